/*
 * string_diff.c — runs tests/stock/string_diff.lua in a plain Lua state
 * where the global BOUNDED holds the app's bounded string and table
 * functions (steer_host_push_bounded) next to the stock ones, so the script
 * can compare them call by call.
 *
 * usage: string_diff <string_diff.lua> [cases]
 */
#include <stdio.h>

#include <lauxlib.h>
#include <lualib.h>

#include "steer_host.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s string_diff.lua [cases]\n", argv[0]);
        return 2;
    }
    lua_State *L = luaL_newstate();
    if (L == NULL)
        return 1;
    luaL_openlibs(L);
    steer_host_push_bounded(L, (size_t)64 << 20);
    lua_setglobal(L, "BOUNDED");
    int status = luaL_loadfile(L, argv[1]);
    if (status == LUA_OK) {
        lua_pushstring(L, argc > 2 ? argv[2] : "");
        status = lua_pcall(L, 1, 0, 0);
    }
    if (status != LUA_OK)
        fprintf(stderr, "string_diff: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
