# steer — the two commands a user needs: `make demo` and `make test`.
# Everything else (configure, build, install missing Debian packages) happens on the way.

BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_VG   ?= build-valgrind
BUILD_FUZZ ?= build-fuzz
BUILD_PORT ?= build-portable
BUILD_CLANG ?= build-clang
BUILD_WIN  ?= build-windows
FUZZ_SECONDS ?= 120
FUZZ_RUNS ?= 2000
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

LUAS       ?= 5.1 5.3 luajit

.PHONY: all deps build demo test test-release test-luas test-reach test-asan test-valgrind test-fuzz test-portable test-windows bench clean docs

all: build

# Install what is missing (Debian 12). Quiet when everything is there.
deps:
	@sh tools/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/steer $(ARGS)

test-release: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# steer.so for the other Luas, each in its own build folder (build-lua51,
# build-lua53, build-luajit: the core, the bindings and steer.so, no app),
# and the whole busted suite under each interpreter.
build-lua51: LUA_OF = 5.1
build-lua53: LUA_OF = 5.3
build-luajit: LUA_OF = luajit
build-lua51 build-lua53 build-luajit: deps
	cmake -S . -B $@ -DCMAKE_BUILD_TYPE=Release -DSTEER_LUA=$(LUA_OF) -DSTEER_INSTALL=OFF $(CMAKE_ARGS)
	cmake --build $@ -j $(JOBS)
.PHONY: build-lua51 build-lua53 build-luajit

test-luas: build-lua51 build-lua53 build-luajit
	for d in build-lua51 build-lua53 build-luajit; do (cd $$d && ctest --output-on-failure -j $(JOBS)) || exit 1; done

# Where steer goes: cmake --install to a prefix and the C/Lua embedding
# examples built against it (find_package, pkg-config, add_subdirectory);
# LuaRocks into scratch trees for 5.4 and 5.1; the LÖVE example under Xvfb
# with the LuaJIT build (skipped with a message when love or xvfb-run is
# missing).
test-reach: build build-lua51 build-lua53 build-luajit
	sh tests/reach/same_checksum.sh $(BUILD) build-lua51 build-lua53 build-luajit
	sh tests/reach/install.sh $(BUILD)
	sh tests/reach/luarocks.sh
	sh tests/reach/love.sh build-luajit

# The sanitizer build also re-sorts every world's storage every step (big
# worlds do it every 32 steps): the Release and valgrind runs cover spawn-order
# storage, this one the re-sorted kind, under ASan.
test-asan: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEER_SANITIZE=ON -DSTEER_RESORT_ALWAYS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS) -L sanitize

# The same tests under valgrind memcheck (no sanitizers, optimised with symbols).
test-valgrind: deps
	cmake -S . -B $(BUILD_VG) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEER_VALGRIND=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_VG) -j $(JOBS)
	cd $(BUILD_VG) && ctest --output-on-failure -j $(JOBS) -L valgrind

# libFuzzer over the core and the Lua bindings (clang; ctest label "fuzz"):
# FUZZ_RUNS inputs each from a fixed seed (at most FUZZ_SECONDS), over the
# corpus in tests/fuzz and every input that once found a bug. New inputs land
# in the build folder, never in the source.
test-fuzz: deps
	cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	      -DSTEER_APP=OFF -DSTEER_OPENMP=OFF -DSTEER_FUZZ_SECONDS=$(FUZZ_SECONDS) -DSTEER_FUZZ_RUNS=$(FUZZ_RUNS) $(CMAKE_ARGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_core fuzz_lua fuzz_snapshot fuzz_record
	cd $(BUILD_FUZZ) && ctest --output-on-failure -j $(JOBS) -L fuzz

# The plain-C fallbacks (-DSTEER_PORTABLE=ON: what MSVC builds, what an
# arm64 Mac runs) and Clang without OpenMP (Apple's compiler stands in):
# the portable build's C tests and Lua specs, the Clang build's C tests
# (its Lua side is smoked by the scenes below: the whole busted suite there
# would add two minutes to make test), then every checksum of the core,
# embed_c and the scenes (tools/checksum_sheet.sh) equal to the default
# build's.
test-portable: build
	cmake -S . -B $(BUILD_PORT) -DCMAKE_BUILD_TYPE=Release -DSTEER_PORTABLE=ON \
	      -DSTEER_APP=OFF -DSTEER_BENCH=OFF -DSTEER_INSTALL=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD_PORT) -j $(JOBS)
	cd $(BUILD_PORT) && ctest --output-on-failure -j $(JOBS) -R "^(c[.]|lua[.]busted$$)"
	cmake -S . -B $(BUILD_CLANG) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DSTEER_OPENMP=OFF \
	      -DSTEER_FUZZ=OFF -DSTEER_APP=OFF -DSTEER_BENCH=OFF -DSTEER_INSTALL=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD_CLANG) -j $(JOBS)
	cd $(BUILD_CLANG) && ctest --output-on-failure -j $(JOBS) -R "^c[.]"
	sh tools/checksum_sheet.sh $(BUILD) > $(BUILD_PORT)/default.sheet
	sh tools/checksum_sheet.sh $(BUILD_PORT) > $(BUILD_PORT)/portable.sheet
	sh tools/checksum_sheet.sh $(BUILD_CLANG) > $(BUILD_PORT)/clang.sheet
	sh tools/same_checksums.sh linux=$(BUILD_PORT)/default.sheet portable=$(BUILD_PORT)/portable.sheet \
	      clang=$(BUILD_PORT)/clang.sheet

# 64-bit Windows: mingw-w64 builds, a few C tests and the checksums under
# Wine, equal to the default build's (tools/test_windows.sh says what).
test-windows: build
	JOBS=$(JOBS) sh tools/test_windows.sh $(BUILD) $(BUILD_WIN)

# The whole suite in Release, then the sanitizer build, valgrind, the
# fuzzers, the portable and Clang builds, Windows under Wine.
test: test-release test-luas test-reach test-asan test-valgrind test-fuzz test-portable test-windows

# Then the lean-brains row once more from each interpreter's own process
# (tests/bench/brains.lua): LuaJIT with build-luajit's steer.so, and lua5.4
# in the same harness for comparison. Then issue 30's hunter/prey workload
# (tests/bench/hunt.sh: Lua 5.4, LuaJIT with its FFI backend and without,
# the C work alone; the ratios), the four-density lean rows under LuaJIT, and
# the LÖVE example's 10k mode under Xvfb (tests/bench/love_10k.sh), and
# group orders against lone units (tests/bench/group_arrival.lua).
bench: build build-luajit
	./$(BUILD)/steer_bench --scripts scripts --app $(BUILD)/steer $(ARGS)
	@echo
	LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/brains.lua
	LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/brains.lua --steer
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/brains.lua
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/brains.lua --steer
	@echo "# behaviour trees (tests/bench/bt.lua): 10,000 agents on an 11-node steer.bt tree, then the same agents as if/else, then with think_every = 4"
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/bt.lua
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/bt.lua --plain
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/bt.lua --think 4
	LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/bt.lua
	LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/bt.lua --plain
	LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/bt.lua --think 4

	@echo
	sh tests/bench/hunt.sh $(BUILD) build-luajit
	@echo
	for a in 14000 3600 900 400; do LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/brains.lua --area $$a || exit 1; done
	@echo
	sh tests/bench/love_10k.sh build-luajit
	@echo "# group orders against lone units (tests/bench/group_arrival.lua; issue 28's scene and variants, simulated seconds)"
	LUA_CPATH='$(BUILD)/?.so;;' lua5.4 tests/bench/group_arrival.lua

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_VG) $(BUILD_FUZZ) build-lua51 build-lua53 build-luajit build.luarocks \
	       $(BUILD_PORT) $(BUILD_CLANG) $(BUILD_WIN) $(BUILD_WIN)-lua51

# The C API reference from include/steer.h and steer_lua.h (Doxygen, docs/Doxyfile):
# $(BUILD)/docs/html/index.html. Not part of `make test`.
docs: deps
	mkdir -p $(BUILD)/docs
	STEER_DOCS_OUT=$(BUILD)/docs STEER_VERSION=$$(sed -n 's/^#define ST_VERSION "\(.*\)"/\1/p' include/steer.h) doxygen docs/Doxyfile
	@echo "docs: $(BUILD)/docs/html/index.html ($$(wc -l <$(BUILD)/docs/warnings.txt) warnings in $(BUILD)/docs/warnings.txt)"
