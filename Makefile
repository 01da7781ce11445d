# steer — the two commands a user needs: `make demo` and `make test`.
# Everything else (configure, build, install missing Debian packages) happens on the way.

BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_VG   ?= build-valgrind
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=

.PHONY: all deps build demo test test-release test-asan test-valgrind bench clean

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

test-asan: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEER_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS) -L sanitize

# The same tests under valgrind memcheck (no sanitizers, optimised with symbols).
test-valgrind: deps
	cmake -S . -B $(BUILD_VG) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTEER_VALGRIND=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_VG) -j $(JOBS)
	cd $(BUILD_VG) && ctest --output-on-failure -j $(JOBS) -L valgrind

# The whole suite in Release, then the sanitizer build, then valgrind.
test: test-release test-asan test-valgrind

bench: build
	./$(BUILD)/steer_bench --scripts scripts --app $(BUILD)/steer $(ARGS)

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_VG)
