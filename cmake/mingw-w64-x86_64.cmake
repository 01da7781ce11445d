# cmake/mingw-w64-x86_64.cmake — cross-build steer for 64-bit Windows with
# Debian's mingw-w64 (gcc-mingw-w64-x86-64), and run what it builds under
# Wine (wine64): ctest and add_test pass each program through
# CMAKE_CROSSCOMPILING_EMULATOR.
#
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
#
# make test-windows (tools/test_windows.sh) is the whole run.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc)
set(CMAKE_RC_COMPILER ${_mingw}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# C99's printf (%zu, %lld) instead of the old msvcrt one.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
# The C runtime's DLLs (libgcc, winpthread, libgomp) go into each program:
# a Windows user runs a steer program without mingw's folder on PATH.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static-libgcc")
# FindOpenMP would take libgomp's and winpthread's import libraries (their
# DLLs beside every program); the static ones instead.
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE _gomp OUTPUT_STRIP_TRAILING_WHITESPACE)
if(EXISTS "${_gomp}")
  set(OpenMP_gomp_LIBRARY "${_gomp}" CACHE FILEPATH "libgomp, static")
  set(OpenMP_pthread_LIBRARY "/usr/${_mingw}/lib/libpthread.a" CACHE FILEPATH "winpthread, static")
endif()
find_program(STEER_WINE NAMES wine wine-stable wine64 PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(STEER_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${STEER_WINE})
endif()
