-- LuaRocks: `luarocks make` from the repo root builds steer.so with CMake for
-- the Lua LuaRocks runs for (5.1, 5.3, 5.4 or LuaJIT) and installs it, with
-- the pure-Lua modules steer.bt, steer.fsm and steer.utility.
rockspec_format = "3.0"
package = "steer"
version = "1.1.0-1"
source = {
  -- No public repository yet: `luarocks make` builds from this checkout.
  url = "git+https://example.invalid/steer.git",
  tag = "v1.1.0",
}
description = {
  summary = "2D steering behaviours for game agents: a C core with Lua bindings",
  detailed = [[
steer simulates 2D vehicles (agents) with the classic steering behaviours
(seek, arrive, pursue, wander, flocking, path following, obstacle and wall
avoidance, ORCA crowds), scripted from Lua brains, deterministic by seed.
Builds for Lua 5.1, 5.3, 5.4 and LuaJIT 2.1.]],
  license = "MIT",
  labels = { "gamedev", "ai", "steering" },
}
dependencies = {
  "lua >= 5.1",
}
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    STEER_LUA_INTERP = "$(LUA)",
    STEER_LUA_INCDIR = "$(LUA_INCDIR)",
    STEER_LUA_CMOD_DIR = "$(LIBDIR)",
    STEER_LUA_LMOD_DIR = "$(LUADIR)",  -- steer/bt.lua, steer/fsm.lua, steer/utility.lua
    STEER_APP = "OFF",
    STEER_TESTS = "OFF",
    STEER_BENCH = "OFF",
    STEER_INSTALL = "OFF",
  },
}
