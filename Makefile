# steer — the two commands a user needs: `make demo` and `make test`.
# Everything else (configure, build, install missing Debian packages) happens on the way.

BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_VG   ?= build-valgrind
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 120
FUZZ_RUNS ?= 2000
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all deps build demo test test-release test-asan test-valgrind test-fuzz bench clean

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
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_core fuzz_lua fuzz_snapshot
	cd $(BUILD_FUZZ) && ctest --output-on-failure -j $(JOBS) -L fuzz

# The whole suite in Release, then the sanitizer build, valgrind, the fuzzers.
test: test-release test-asan test-valgrind test-fuzz

bench: build
	./$(BUILD)/steer_bench --scripts scripts --app $(BUILD)/steer $(ARGS)

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_VG) $(BUILD_FUZZ)
