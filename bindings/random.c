/*
 * random.c — steer.install_random(world): math.random drawing from a
 * world's seeded stream, as the app does, for a stock-Lua host.
 *
 * The app (sandbox.c, host_random) routes math.random to the world of the
 * running scene, so a scene whose libraries call math.random (lume.uuid,
 * shuffles, jitter) is reproducible from the world's seed. steer.so cannot
 * change stock Lua's math.random on its own; a host that wants the app's
 * numbers calls steer.install_random(world) once the world exists, and
 * math.random then makes exactly the draws the app makes, in the same
 * order, from the same stream: same seed, same calls, same checksum.
 *
 * The app's host_random (sandbox.c) and steer.install_random share
 * steer_lua_math_random below; the app test test_random_parity.sh runs one
 * scene in the app and in lua5.4 and compares the checksums.
 */
#include "bind.h"

/* Registry key: the stock math.random and math.randomseed, kept by the
 * first install so that steer.install_random(nil) can put them back. */
static const char key_stock;

/* splitmix64, for draws made before any world exists. */
static uint64_t fallback_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 64 random bits: from w, two 32-bit draws, high half first; else from *s. */
static uint64_t draw_bits(st_world *w, uint64_t *s)
{
    if (w == NULL)
        return fallback_next(s);
    uint64_t hi = (uint64_t)st_world_random_int(w, 0, 0xFFFFFFFFll);
    uint64_t lo = (uint64_t)st_world_random_int(w, 0, 0xFFFFFFFFll);
    return (hi << 32) | lo;
}

int steer_lua_math_random(lua_State *L, st_world *w, uint64_t *fallback)
{
    lua_Integer lo, hi;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, w ? st_world_random(w) : (double)(fallback_next(fallback) >> 11) * 0x1.0p-53);
        return 1;
    case 1:
        lo = 1;
        hi = luaL_checkinteger(L, 1);
        if (hi == 0) {
            lua_pushinteger(L, (lua_Integer)draw_bits(w, fallback));
            return 1;
        }
        break;
    case 2:
        lo = luaL_checkinteger(L, 1);
        hi = luaL_checkinteger(L, 2);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, lo <= hi, lua_gettop(L), "interval is empty");
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t v;
    if (w != NULL && span <= 0xFFFFFFFFull) {
        v = (uint64_t)st_world_random_int(w, 0, (int64_t)span);
    } else if (span == UINT64_MAX) {
        v = draw_bits(w, fallback);
    } else {
        /* every integer equally likely: reject the top partial block */
        uint64_t limit = UINT64_MAX - (UINT64_MAX % (span + 1) + 1) % (span + 1);
        do {
            v = draw_bits(w, fallback);
        } while (v > limit);
        v %= span + 1;
    }
    lua_pushinteger(L, (lua_Integer)((uint64_t)lo + v));
    return 1;
}

/* math.random([m [, n]]) on the world at upvalue 1. */
static int world_math_random(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    st_world *w = sl_checkworld(L, -1)->w;
    lua_pop(L, 1);
    return steer_lua_math_random(L, w, NULL);
}

/* The world's seed is the only seed, as in the app: reseeding from a script
 * would make a run differ from its replay. */
static int world_math_randomseed(lua_State *L)
{
    (void)L;
    return 0;
}

/* steer.install_random(world | nil) */
int sl_install_random(lua_State *L)
{
    if (!lua_isnoneornil(L, 1))
        sl_checkworld(L, 1);
    lua_settop(L, 1);
    if (lua_getglobal(L, "math") != LUA_TTABLE) /* 2 */
        return luaL_error(L, "steer.install_random: no math library");
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &key_stock) != LUA_TTABLE) { /* 3 */
        lua_pop(L, 1);
        lua_createtable(L, 0, 2);
        lua_getfield(L, 2, "random");
        lua_setfield(L, -2, "random");
        lua_getfield(L, 2, "randomseed");
        lua_setfield(L, -2, "randomseed");
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &key_stock);
    }
    if (lua_isnil(L, 1)) {
        lua_getfield(L, 3, "random");
        lua_setfield(L, 2, "random");
        lua_getfield(L, 3, "randomseed");
        lua_setfield(L, 2, "randomseed");
        return 0;
    }
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, world_math_random, 1);
    lua_setfield(L, 2, "random");
    lua_pushcfunction(L, world_math_randomseed);
    lua_setfield(L, 2, "randomseed");
    return 0;
}
