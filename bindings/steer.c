/*
 * steer.c — the module entry: luaopen_steer and the `steer` table. Each
 * type registers itself (sl_open_* in its own file); the helpers they share
 * live in auxlib.c.
 */
#include "bind.h"

/* Headless there is no pointer; the app replaces this field. */
static int steer_mouse(lua_State *L)
{
    lua_pushnil(L);
    return 1;
}

int luaopen_steer(lua_State *L)
{
    luaL_checkversion(L);
    sl_getstate(L); /* created now so hooks never allocate it mid-callback */
    sl_hotswap_install(L); /* baselines of the modules loaded from now on */

    /* worlds, weakly held: steer.reload visits every world's agents */
    sl_push_weak(L, &sl_key_worlds);
    lua_pop(L, 1);

    static const luaL_Reg functions[] = {
        {"mouse", steer_mouse},
        {"reload", sl_reload},
        {"install_random", sl_install_random},
        {NULL, NULL},
    };
    lua_createtable(L, 0, 16);
    luaL_setfuncs(L, functions, 0);
    lua_pushliteral(L, ST_VERSION);
    lua_setfield(L, -2, "version");
    sl_open_vec2(L);
    sl_open_path(L);
    sl_open_obstacle(L);
    sl_open_nav(L);
    sl_open_agent(L); /* before the world: its methods keep the agent metatable */
    sl_open_world(L);
    sl_open_formation(L);
    sl_open_snapshot(L);
#ifdef STEER_LUA_JIT
    sl_ffi_open(L); /* steer.backend: "ffi", or "c" with STEER_FFI=0 */
#else
    lua_pushliteral(L, "c");
    lua_setfield(L, -2, "backend");
#endif
    return 1;
}
