/*
 * steer.c — the `steer` table (luaopen_steer) and the checks every binding
 * file shares: userdata type tests, finite numbers, and error messages in
 * Lua's standard form.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"

const char sl_key_vec2, sl_key_world, sl_key_agent, sl_key_path;
const char sl_key_state, sl_key_worlds;

/* ---- type checks ---- */

void *sl_testudata(lua_State *L, int idx, const void *key)
{
    void *p = lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx))
        return NULL;
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    bool same = sl_same_table(L, -1, -2);
    lua_pop(L, 2);
    return same ? p : NULL;
}

void *sl_checkudata(lua_State *L, int arg, const void *key, const char *tname)
{
    void *p = sl_testudata(L, arg, key);
    if (p == NULL)
        luaL_typeerror(L, arg, tname);
    return p;
}

void sl_setmetatable(lua_State *L, const void *key)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    lua_setmetatable(L, -2);
}

/* ---- __index by the key's address (bind.h) ---- */

void sl_keycache_new(lua_State *L, int mt_idx)
{
    const void *mt = lua_topointer(L, mt_idx);
    sl_keycache *kc = (sl_keycache *)lua_newuserdatauv(L, sizeof *kc, 0);
    memset(kc, 0, sizeof *kc);
    kc->mt = mt;
}

int sl_keycache_miss(lua_State *L, sl_keycache *kc, int slot, int key_idx, int names_uv, int values_uv)
{
    lua_pushvalue(L, key_idx);
    int ty = lua_rawget(L, names_uv);
    /* The name table has only string keys: a hit is a string, and a short
     * one (interned, the table's own key object). */
    bool cache = ty != LUA_TNIL && lua_type(L, key_idx) == LUA_TSTRING;
    int code = SL_KC_METHOD;
    if (ty == LUA_TNUMBER) {
        code = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    } else if (cache) {
        lua_pushvalue(L, -1);
        lua_rawseti(L, values_uv, slot + 1);
    }
    if (cache) {
        kc->key[slot] = lua_topointer(L, key_idx);
        kc->code[slot] = code;
    }
    return code;
}

/* ---- errors ---- */

void sl_raise(lua_State *L, const sl_src *src, const char *fmt, ...)
{
    luaL_Buffer b;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    luaL_buffinit(L, &b);
    if (src->ctx != NULL) {
        luaL_addstring(&b, src->ctx);
        luaL_addstring(&b, ": ");
    }
    if (src->field != NULL) {
        luaL_addstring(&b, "field '");
        luaL_addstring(&b, src->field);
        luaL_addstring(&b, "': ");
    }
    luaL_addstring(&b, msg);
    luaL_pushresult(&b);
    const char *full = lua_tostring(L, -1);
    if (src->arg > 0)
        luaL_argerror(L, src->arg, full);
    luaL_error(L, "invalid value for field '%s' (%s)", src->assign ? src->assign : "?", full);
    for (;;) {} /* not reached: both raise */
}

void sl_raise_type(lua_State *L, const sl_src *src, int idx, const char *expected)
{
    const char *got;
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, idx) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, idx);
    sl_raise(L, src, "%s expected, got %s", expected, got);
}

static const char *nonfinite_name(double d)
{
    return isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
}

double sl_number(lua_State *L, int idx, const sl_src *src)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        sl_raise_type(L, src, idx, "number");
    double d = lua_tonumber(L, idx);
    if (!isfinite(d))
        sl_raise(L, src, "finite number expected, got %s", nonfinite_name(d));
    return d;
}

double sl_number_min(lua_State *L, int idx, const sl_src *src, double min, bool strict)
{
    double d = sl_number(L, idx, src);
    if (strict ? !(d > min) : !(d >= min))
        sl_raise(L, src, "must be %s %.14g", strict ? ">" : ">=", min);
    return d;
}

double sl_optnumber(lua_State *L, int idx, const sl_src *src, double def)
{
    return lua_isnoneornil(L, idx) ? def : sl_number(L, idx, src);
}

double sl_optnumber_min(lua_State *L, int idx, const sl_src *src, double def, double min)
{
    return lua_isnoneornil(L, idx) ? def : sl_number_min(L, idx, src, min, false);
}

double sl_checkfinite(lua_State *L, int arg)
{
    sl_src s = sl_arg(arg);
    return sl_number(L, arg, &s);
}

double sl_optfinite(lua_State *L, int arg, double def)
{
    sl_src s = sl_arg(arg);
    return sl_optnumber(L, arg, &s, def);
}

double sl_checknonneg(lua_State *L, int arg)
{
    /* the common case first, without the sl_src plumbing: a number (not a
     * string lua_tonumberx would convert), finite and >= 0; anything else
     * takes the general path, which raises */
    int isnum;
    double d = lua_tonumberx(L, arg, &isnum);
    if (isnum && d >= 0.0 && d < HUGE_VAL && lua_type(L, arg) == LUA_TNUMBER)
        return d;
    sl_src s = sl_arg(arg);
    return sl_number_min(L, arg, &s, 0.0, false);
}

double sl_optnonneg(lua_State *L, int arg, double def)
{
    sl_src s = sl_arg(arg);
    return sl_optnumber_min(L, arg, &s, def, 0.0);
}

/* ---- the steer table ---- */

/* ---- read-only metatables (steer_lua.h) ---- */

static int protected_write(lua_State *L)
{
    return luaL_error(L, "cannot change the metatable of %s (it is shared by every script, and read-only)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

static int protected_tostring(lua_State *L)
{
    lua_pushfstring(L, "metatable of %s (read-only)", lua_tostring(L, lua_upvalueindex(1)));
    return 1;
}

void steer_lua_protect_metatable(lua_State *L, int idx, const char *what, bool show_index)
{
    idx = lua_absindex(L, idx);
    lua_newuserdatauv(L, 0, 0); /* the view: a userdata, so rawset cannot write it */
    lua_createtable(L, 0, 4);   /* its metatable */
    lua_createtable(L, 0, 2);   /* what reads of the view see */
    lua_pushstring(L, what);
    lua_setfield(L, -2, "__name");
    if (show_index && lua_getfield(L, idx, "__index") == LUA_TTABLE)
        lua_setfield(L, -2, "__index"); /* getmetatable("").__index is string */
    else if (show_index)
        lua_pop(L, 1);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, what);
    lua_pushcclosure(L, protected_write, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushstring(L, what);
    lua_pushcclosure(L, protected_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, idx, "__metatable");
}

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

    lua_createtable(L, 0, 8);
    lua_pushliteral(L, ST_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushcfunction(L, steer_mouse);
    lua_setfield(L, -2, "mouse");
    lua_pushcfunction(L, sl_reload);
    lua_setfield(L, -2, "reload");
    lua_pushcfunction(L, sl_install_random);
    lua_setfield(L, -2, "install_random");
    sl_open_vec2(L);
    sl_open_path(L);
    sl_open_obstacle(L);
    sl_open_nav(L);
    sl_open_agent(L); /* before the world: its methods keep the agent metatable */
    sl_open_world(L);
    sl_open_formation(L);
    sl_open_snapshot(L);
    return 1;
}
