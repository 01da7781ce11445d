# tests/extra.cmake — included by tests.cmake: helper programs and the
# tests that need them.

# ---- libFuzzer targets: tests/fuzz/ (clang only) ----
#
# fuzz_core drives the core API (include/steer.h), fuzz_lua the Lua bindings,
# fuzz_snapshot the snapshot loader (st_snapshot_decode, then the same bytes
# through steer.decode_snapshot and world:restore), fuzz_record the
# recording loader (app/record_read.c, the file --replay reads).
# They get their own copies of the core and the bindings, instrumented for
# coverage with ASan + UBSan and with asserts on (the core asserts its
# contracts). ctest runs each for a short while over its seed corpus and the
# regression inputs of the bugs it found (label "fuzz"); new inputs go to
# <build>/fuzz/, never into the source tree. Longer runs by hand:
#
#   ./fuzz_core -max_total_time=600 fuzz/corpus_core ../tests/fuzz/corpus_core
#
# A build with another compiler skips all of this; `make test-fuzz` configures
# a separate clang build (build-fuzz-clang) for it.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  option(STEER_FUZZ "Build the libFuzzer targets and their ctest runs" ON)
  set(STEER_FUZZ_SECONDS 30 CACHE STRING "Upper bound on the seconds each fuzzer runs under ctest")
  # A fixed seed and a fixed number of runs make the ctest run repeatable:
  # a fresh build explores the same inputs every time, so CI passes or fails
  # on the code, not on luck. Longer, open-ended runs are for people (above).
  set(STEER_FUZZ_RUNS 2000 CACHE STRING "Inputs each fuzzer tries under ctest")
endif()

if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND STEER_FUZZ)
  set(_fuzz_flags -g -O1 -UNDEBUG -fno-omit-frame-pointer
                  -fsanitize=address,undefined -fno-sanitize-recover=undefined)

  add_library(steer_core_fuzz STATIC ${STEER_CORE_SOURCES})
  target_include_directories(steer_core_fuzz PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(steer_core_fuzz PRIVATE ${_fuzz_flags} -fsanitize=fuzzer-no-link -Wno-unknown-pragmas)
  target_link_libraries(steer_core_fuzz PUBLIC m)

  add_library(steer_bindings_fuzz STATIC ${STEER_BINDING_SOURCES})
  target_include_directories(steer_bindings_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/bindings)
  target_compile_options(steer_bindings_fuzz PRIVATE ${_fuzz_flags} -fsanitize=fuzzer-no-link)
  target_link_libraries(steer_bindings_fuzz PUBLIC steer_core_fuzz PkgConfig::LUA)

  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
  foreach(t core lua snapshot record)
    add_executable(fuzz_${t} ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_${t}.c)
    target_include_directories(fuzz_${t} PRIVATE ${PROJECT_SOURCE_DIR}/tests/fuzz)
    target_compile_options(fuzz_${t} PRIVATE ${_fuzz_flags} -fsanitize=fuzzer -Wno-overlength-strings)
    target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer,address,undefined)
    if(t STREQUAL "lua" OR t STREQUAL "snapshot")
      target_link_libraries(fuzz_${t} PRIVATE steer_bindings_fuzz)
    elseif(t STREQUAL "record")
      # the recording loader alone: no SDL, no Lua
      target_sources(fuzz_${t} PRIVATE ${PROJECT_SOURCE_DIR}/app/record_read.c)
      target_include_directories(fuzz_${t} PRIVATE ${PROJECT_SOURCE_DIR}/app)
    else()
      target_link_libraries(fuzz_${t} PRIVATE steer_core_fuzz)
    endif()
    set_target_properties(fuzz_${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
    file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz/corpus_${t})
    add_test(NAME fuzz.${t}
             COMMAND fuzz_${t} -seed=1 -runs=${STEER_FUZZ_RUNS} -max_total_time=${STEER_FUZZ_SECONDS}
                     -timeout=30 -rss_limit_mb=4096
                     -print_final_stats=1 -artifact_prefix=${PROJECT_BINARY_DIR}/fuzz/
                     ${PROJECT_BINARY_DIR}/fuzz/corpus_${t}
                     ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus_${t}
                     ${PROJECT_SOURCE_DIR}/tests/fuzz/regress_${t}
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
    math(EXPR _fuzz_timeout "${STEER_FUZZ_SECONDS} * 4 + 120")
    set_tests_properties(fuzz.${t} PROPERTIES LABELS "fuzz" TIMEOUT ${_fuzz_timeout})
  endforeach()
endif()

# ---- the app's bounded string functions against stock Lua's ----
# string_diff runs tests/stock/string_diff.lua in a plain state holding both
# (see bindings/sandbox_string.c); every result and error must agree.
add_executable(string_diff ${PROJECT_SOURCE_DIR}/tests/stock/string_diff.c)
target_link_libraries(string_diff PRIVATE steer_bindings steer_lua)
if(STEER_VALGRIND)
  set(_diff_cases 20000)
else()
  set(_diff_cases 200000)
endif()
add_test(NAME lua.string_diff
         COMMAND ${STEER_VG} $<TARGET_FILE:string_diff> ${PROJECT_SOURCE_DIR}/tests/stock/string_diff.lua ${_diff_cases})
set_tests_properties(lua.string_diff PROPERTIES LABELS "lua;${_sanitize_label}" TIMEOUT 900)
