# Every test goes through ctest. Label "sanitize" marks the ones the
# ASan+UBSan build runs too (make test-asan); with STEER_VALGRIND the same
# ones run under valgrind memcheck and carry the label "valgrind"
# (make test-valgrind).

set(STEER_VG "")
set(_sanitize_label "sanitize")
if(STEER_VALGRIND)
  find_program(VALGRIND valgrind REQUIRED)
  # Definite leaks and every memory error fail a test; libgomp's and Lua's
  # still-reachable blocks at exit do not.
  set(STEER_VG ${VALGRIND} --quiet --error-exitcode=99 --leak-check=full
      --errors-for-leak-kinds=definite --show-leak-kinds=definite)
  set(_sanitize_label "sanitize;valgrind")
endif()

# The interpreter of the Lua steer.so is built for (STEER_LUA). A build for
# another Lua than 5.4 runs the Lua tests only: the C tests, the app and the
# fuzzers do not depend on the Lua and run in the 5.4 build.
set(_lua_bin_5.4 lua5.4)
set(_lua_bin_5.3 lua5.3)
set(_lua_bin_5.1 lua5.1)
set(_lua_bin_luajit luajit)
find_program(STEER_LUA_BIN ${_lua_bin_${STEER_LUA}})
if(STEER_LUA STREQUAL "5.4")
  set(STEER_TEST_C ON)
else()
  set(STEER_TEST_C OFF)
endif()

# C unit tests: tests/c/test_*.c, one executable each, linked with the core only.
if(STEER_TEST_C)
  file(GLOB STEER_C_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/c/test_*.c)
foreach(src ${STEER_C_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  # White-box tests may read the core's private headers (src/); nothing else does.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/c ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE steer_core)
  add_test(NAME c.${name} COMMAND ${STEER_VG} $<TARGET_FILE:${name}>)
  set_tests_properties(c.${name} PROPERTIES LABELS "c;${_sanitize_label}" TIMEOUT 900)
  if(STEER_VALGRIND)
    # Memcheck runs about 50x slower: the biggest crowds run in the Release
    # and sanitizer builds only (the tests say which they skip).
    set_tests_properties(c.${name} PROPERTIES ENVIRONMENT "STEER_TEST_LIGHT=1")
  endif()
endforeach()
endif()

# The public headers as a user includes them: ST_API on every function, each
# header compiling on its own as C11 and as C++ (tools/check_headers.sh).
if(STEER_TEST_C)
  find_program(STEER_HEADERS_CXX NAMES c++ g++ clang++)
  if(NOT STEER_HEADERS_CXX)
    set(STEER_HEADERS_CXX "")
  endif()
  add_test(NAME headers COMMAND sh ${PROJECT_SOURCE_DIR}/tools/check_headers.sh ${PROJECT_SOURCE_DIR}
           ${CMAKE_C_COMPILER} ${STEER_HEADERS_CXX})
  set_tests_properties(headers PROPERTIES LABELS "c")
endif()

# The programs that compare builds (make test-portable, make test-windows).
if(STEER_TEST_C)
  include(${PROJECT_SOURCE_DIR}/tests/platform/platform.cmake)
endif()

# A cross build (make test-windows) stops here: its C programs run through
# the emulator (Wine); the Lua specs, the app tests and the helpers want
# the host's Lua and programs.
if(CMAKE_CROSSCOMPILING)
  return()
endif()

# Host tests: C programs embedding Lua and the bindings, as the app does
# (tests/host/test_*.c): what the bindings hand a host.
if(STEER_TEST_C)
  file(GLOB STEER_HOST_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/host/test_*.c)
  foreach(src ${STEER_HOST_TESTS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/c)
    target_link_libraries(${name} PRIVATE steer_bindings steer_lua)
    add_test(NAME c.${name} COMMAND ${STEER_VG} $<TARGET_FILE:${name}>)
    set_tests_properties(c.${name} PROPERTIES LABELS "c;${_sanitize_label}" TIMEOUT 300)
  endforeach()
endif()

# Lua specs: busted under the STEER_LUA interpreter against build/steer.so.
set(LUA54 ${STEER_LUA_BIN})
find_program(BUSTED busted)
if(LUA54 AND BUSTED)
  # Semicolons are Lua's path separators here, not CMake list separators.
  set(_spec_env "LUA_CPATH=${PROJECT_BINARY_DIR}/?.so\;\;"
                "LUA_PATH=${PROJECT_SOURCE_DIR}/tests/spec/?.lua\;${PROJECT_SOURCE_DIR}/scripts/?.lua\;\;")
  if(STEER_SANITIZE)
    # steer.so is built with ASan; lua5.4 is not, so the runtime must load first.
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _asan OUTPUT_STRIP_TRAILING_WHITESPACE)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libubsan.so OUTPUT_VARIABLE _ubsan OUTPUT_STRIP_TRAILING_WHITESPACE)
    list(APPEND _spec_env "LD_PRELOAD=${_asan}:${_ubsan}" "ASAN_OPTIONS=detect_leaks=0")
  endif()
  if(STEER_VALGRIND)
    # Under memcheck the long scene runs (orders_spec's 40-unit order against
    # 40 lone runs) shrink to a few seconds: their figures are checked in
    # every other build.
    list(APPEND _spec_env "STEER_TEST_LIGHT=1")
  endif()
  add_test(NAME lua.busted
           COMMAND ${STEER_VG} ${LUA54} ${BUSTED} --lua=${LUA54} -o utfTerminal ${PROJECT_SOURCE_DIR}/tests/spec
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(lua.busted PROPERTIES ENVIRONMENT "${_spec_env}" LABELS "lua;${_sanitize_label}" TIMEOUT 1800)
  if(STEER_LUA STREQUAL "luajit")
    # LuaJIT runs the FFI backend (steer.backend == "ffi"; lua.busted above);
    # the whole suite once more with it off (STEER_FFI=0: the C backend).
    add_test(NAME lua.busted_ffi_off
             COMMAND ${LUA54} ${BUSTED} --lua=${LUA54} -o utfTerminal ${PROJECT_SOURCE_DIR}/tests/spec
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(lua.busted_ffi_off PROPERTIES ENVIRONMENT "${_spec_env};STEER_FFI=0" LABELS "lua" TIMEOUT 1800)
  endif()
endif()

# Stock Lua exits cleanly after a world with two threads (steer.so must
# outlive lua_close's unloading of C modules: see CMakeLists.txt).
if(LUA54)
  add_test(NAME lua.threads_exit COMMAND sh ${PROJECT_SOURCE_DIR}/tests/stock/threads_exit.sh ${LUA54} ${PROJECT_SOURCE_DIR})
  set_tests_properties(lua.threads_exit PROPERTIES ENVIRONMENT "LUA_CPATH=${PROJECT_BINARY_DIR}/?.so\;\;"
                       LABELS "lua" TIMEOUT 300)
endif()

find_program(LUACHECK luacheck)
if(LUACHECK AND STEER_TEST_C)
  add_test(NAME lua.luacheck COMMAND ${LUACHECK} -q scripts tests WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(lua.luacheck PROPERTIES LABELS "lua")
endif()

# App end-to-end tests: tests/app/*.sh, given the app binary and the source dir.
if(STEER_APP)
  # Under valgrind the tests get a wrapper that runs the app under memcheck.
  set(_app $<TARGET_FILE:steer_app>)
  if(STEER_VALGRIND)
    string(REPLACE ";" " " _vg "${STEER_VG}")
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/steer-valgrind
         CONTENT "#!/bin/sh\nexec ${_vg} $<TARGET_FILE:steer_app> \"$@\"\n"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    set(_app ${PROJECT_BINARY_DIR}/steer-valgrind)
  endif()
  file(GLOB STEER_APP_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/app/test_*.sh)
  foreach(t ${STEER_APP_TESTS})
    get_filename_component(name ${t} NAME_WE)
    add_test(NAME app.${name} COMMAND sh ${t} ${_app} ${PROJECT_SOURCE_DIR})
    # The soak measures resident memory, which ASan's quarantine inflates:
    # it runs in the Release build only.
    if(name STREQUAL "test_soak")
      set(_labels "app;soak")
    else()
      set(_labels "app;${_sanitize_label}")
    endif()
    set_tests_properties(app.${name} PROPERTIES LABELS "${_labels}" TIMEOUT 600
                         ENVIRONMENT "SDL_VIDEODRIVER=dummy;SDL_AUDIODRIVER=dummy;ASAN_OPTIONS=detect_leaks=0")
  endforeach()
  # app/event_marks.c (the timeline's labels) is plain C: tested alone
  add_executable(test_event_marks tests/app/c/test_event_marks.c app/event_marks.c)
  target_include_directories(test_event_marks PRIVATE ${PROJECT_SOURCE_DIR}/app ${PROJECT_SOURCE_DIR}/tests/c)
  target_link_libraries(test_event_marks PRIVATE steer_core)
  add_test(NAME app.test_event_marks COMMAND ${STEER_VG} $<TARGET_FILE:test_event_marks>)
  set_tests_properties(app.test_event_marks PROPERTIES LABELS "app;${_sanitize_label}")
  # The red-team table is ~90 headless runs: under valgrind (50 times
  # slower) about 10 minutes on a quiet machine, so it gets room.
  if(TEST app.test_redteam)
    set_tests_properties(app.test_redteam PROPERTIES TIMEOUT 1800)
  endif()
endif()

# Each helper program a test needs is listed in tests/extra.cmake when present.
if(STEER_TEST_C AND EXISTS ${PROJECT_SOURCE_DIR}/tests/extra.cmake)
  include(${PROJECT_SOURCE_DIR}/tests/extra.cmake)
endif()
