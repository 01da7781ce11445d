# cmake/platforms.cmake — included by CMakeLists.txt: what a macOS or a
# Windows build adds to the targets. Linux needs nothing here.
#
# macOS (Apple Clang; untested here, Clang without OpenMP on Linux stands in
# for it in make test-portable): steer.so resolves Lua's functions from the
# program that loads it (lua, luajit, LÖVE), as on Linux; Apple's linker
# wants that said (-undefined dynamic_lookup).
#
# Windows (mingw-w64, tested under Wine by make test-windows; MSVC through
# the same files, untested here):
#   steer.dll        the Lua module; exports luaopen_steer only
#                    (STEER_LUA_API, include/steer_lua.h). Windows resolves a
#                    DLL's every symbol at link time, so it links the Lua
#                    DLL's import library: STEER_LUA_LIBRARY (lua54.lib,
#                    LÖVE's lua51.lib, or one tools/lua_implib.sh makes)
#   libsteer.dll     the core (steer.dll with MSVC's naming: keep it out of
#                    the module's folder), every function exported as on
#                    Linux, where the shared core's visibility is default
#
# The bindings' file and clock calls go through bindings/sys.h, the core's
# aligned blocks through src/alloc.c; nothing else in them is POSIX-only.
if(APPLE)
  target_link_options(steer_module PRIVATE "LINKER:-undefined,dynamic_lookup")
endif()
if(NOT WIN32)
  return()
endif()
set(STEER_LUA_LIBRARY "" CACHE FILEPATH
    "Windows: the import library of the Lua DLL steer.dll loads into (lua54.lib, lua51.lib; tools/lua_implib.sh)")
target_compile_definitions(steer_bindings PRIVATE STEER_LUA_BUILDING=1)
if(STEER_LUA_LIBRARY)
  target_link_libraries(steer_module PRIVATE ${STEER_LUA_LIBRARY})
endif()
if(TARGET steer_shared)
  set_target_properties(steer_shared PROPERTIES WINDOWS_EXPORT_ALL_SYMBOLS ON)
endif()
