# cmake/install.cmake — what `cmake --install` puts under the prefix, for C
# and C++ games (find_package or pkg-config) and for Lua (steer.so).
#
#   include/steer.h             the core's API (C11, no Lua), with include/steer/*.h
#   include/steer_lua.h         the Lua bindings' host API
#   lib/libsteer.so.1.1.0       the core, shared (SONAME libsteer.so.1)
#   lib/libsteer.a              the core, static
#   lib/libsteer_lua.a          the bindings, static (the host brings its Lua)
#   lib/lua/<5.x>/steer.so      the Lua module (STEER_LUA_CMOD_DIR)
#   share/lua/<5.x>/steer/      the pure-Lua modules of scripts/steer/:
#                               steer.bt, steer.fsm, steer.utility
#                               (STEER_LUA_LMOD_DIR)
#   lib/cmake/steer/            steerConfig.cmake + version: steer::steer
#                               (shared), steer::steer_static, steer::lua
#   lib/pkgconfig/steer.pc      the core; steer-lua.pc the bindings
#
# STEER_INSTALL=OFF (LuaRocks, or a game that vendors steer) installs the
# Lua module only.
include(GNUInstallDirs)

if(STEER_LUA STREQUAL "luajit")
  set(_cmod_ver 5.1)
else()
  set(_cmod_ver ${STEER_LUA})
endif()
set(STEER_LUA_CMOD_DIR "${CMAKE_INSTALL_LIBDIR}/lua/${_cmod_ver}" CACHE STRING
    "Where cmake --install puts steer.so (relative: under the prefix)")
install(TARGETS steer_module LIBRARY DESTINATION ${STEER_LUA_CMOD_DIR})
# require "steer.bt" (and .fsm, .utility): plain Lua, where Lua looks for
# .lua modules (LuaRocks passes its tree's $(LUADIR)).
set(STEER_LUA_LMOD_DIR "${CMAKE_INSTALL_DATADIR}/lua/${_cmod_ver}" CACHE STRING
    "Where cmake --install puts the steer/*.lua modules (relative: under the prefix)")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/steer/ DESTINATION ${STEER_LUA_LMOD_DIR}/steer
        FILES_MATCHING PATTERN "*.lua")

if(NOT STEER_INSTALL)
  return()
endif()

# The shared core: the same objects as the static one.
add_library(steer_shared SHARED $<TARGET_OBJECTS:steer_objs>)
target_include_directories(steer_shared PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
                                               $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(steer_shared PUBLIC m)
if(TARGET OpenMP::OpenMP_C AND STEER_OPENMP)
  target_link_libraries(steer_shared PRIVATE OpenMP::OpenMP_C)
endif()
set_target_properties(steer_shared PROPERTIES OUTPUT_NAME steer EXPORT_NAME steer
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                      C_VISIBILITY_PRESET default)
target_include_directories(steer_bindings INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
if(LUA_INCLUDE_DIRS)
  target_include_directories(steer_bindings INTERFACE $<INSTALL_INTERFACE:${LUA_INCLUDE_DIRS}>)
endif()

install(TARGETS steer_shared steer_core steer_bindings EXPORT steerTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/steer.h ${PROJECT_SOURCE_DIR}/include/steer_lua.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/steer DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/steer)
install(EXPORT steerTargets NAMESPACE steer:: DESTINATION ${_cmakedir})
include(CMakePackageConfigHelpers)
if(_steer_omp)
  set(STEER_CONFIG_OPENMP ON)
else()
  set(STEER_CONFIG_OPENMP OFF)
endif()
set(STEER_CONFIG_LUA ${STEER_LUA})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/steerConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/steerConfig.cmake INSTALL_DESTINATION ${_cmakedir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/steerConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/steerConfig.cmake ${PROJECT_BINARY_DIR}/steerConfigVersion.cmake
        DESTINATION ${_cmakedir})

# pkg-config: paths relative to the .pc file, so a moved prefix still works.
file(RELATIVE_PATH STEER_PC_UP /_p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /_p)
set(STEER_PC_LUA ${_lua_pc_${STEER_LUA}})
configure_file(${PROJECT_SOURCE_DIR}/cmake/steer.pc.in ${PROJECT_BINARY_DIR}/steer.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/steer-lua.pc.in ${PROJECT_BINARY_DIR}/steer-lua.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/steer.pc ${PROJECT_BINARY_DIR}/steer-lua.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
