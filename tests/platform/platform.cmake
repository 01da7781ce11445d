# tests/platform/platform.cmake — included by tests.cmake: the programs
# that compare one build of steer with another (make test-portable,
# make test-windows; tools/same_checksums.sh does the comparing).
#
#   steer_checksums   the core's worlds, a checksum a line (checksums.c)
#   steer_embed_c     examples/embed_c as a user builds it, against this
#                     build's core
#
# Under ctest the checksum program checks itself: 1 thread against 2, and
# a restored snapshot against the first run (c.checksums).
add_executable(steer_checksums ${PROJECT_SOURCE_DIR}/tests/platform/checksums.c)
target_link_libraries(steer_checksums PRIVATE steer_core)
add_executable(steer_embed_c ${PROJECT_SOURCE_DIR}/examples/embed_c/main.c)
target_link_libraries(steer_embed_c PRIVATE steer_core)
set_target_properties(steer_checksums steer_embed_c PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
if(STEER_VALGRIND)
  set(_ck_args --light)
endif()
add_test(NAME c.checksums COMMAND ${STEER_VG} $<TARGET_FILE:steer_checksums> ${_ck_args})
set_tests_properties(c.checksums PROPERTIES LABELS "c;${_sanitize_label}" TIMEOUT 900)

# The core's object code names no platform-dependent libm function.
find_program(STEER_NM nm)
if(STEER_NM AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME c.libm_free COMMAND sh ${PROJECT_SOURCE_DIR}/tests/platform/libm_free.sh $<TARGET_FILE:steer_core>)
  set_tests_properties(c.libm_free PROPERTIES LABELS "c")
endif()
