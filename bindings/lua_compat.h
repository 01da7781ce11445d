/*
 * lua_compat.h — the one place where the Luas steer.so builds for differ.
 *
 * The bindings are written against the Lua 5.4 C API. Lua 5.3, 5.1 and
 * LuaJIT 2.1 (the 5.1 API) get it from here: the compat-5.3 C API (Debian
 * lua-compat53-dev; compiled once into the bindings with COMPAT53_PREFIX, see
 * CMakeLists.txt) for the 5.2/5.3 functions, and below, the few 5.4 ones it
 * does not cover. Whatever cannot be the same is listed in docs/API.md,
 * "Lua versions".
 */
#ifndef STEER_LUA_COMPAT_H
#define STEER_LUA_COMPAT_H

#include <lua.h>
#include <lauxlib.h>

#if LUA_VERSION_NUM < 504

#if LUA_VERSION_NUM < 503
#ifndef STEER_COMPAT53_H
#error "Lua 5.1 and LuaJIT need compat-5.3 (lua-compat53-dev): configure with CMake"
#endif
#include STEER_COMPAT53_H
#endif

/* Several user values per userdata (5.4): below 5.4 a userdata has one
 * (5.3) or an environment table (5.1), so it holds a table with the n
 * values. Only the userdata made with nuv > 0 have one. */
static inline void *sl_compat_newuserdatauv(lua_State *L, size_t size, int nuv)
{
    void *p = lua_newuserdata(L, size);
    if (nuv > 0) {
        lua_createtable(L, nuv, 0);
        lua_setuservalue(L, -2);
    }
    return p;
}

static inline int sl_compat_getiuservalue(lua_State *L, int idx, int n)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TUSERDATA || lua_getuservalue(L, idx) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return LUA_TNONE;
    }
    int t = lua_rawgeti(L, -1, n);
    lua_remove(L, -2);
    return t;
}

/* Pops the value; 0 when the userdata has no user values. */
static inline int sl_compat_setiuservalue(lua_State *L, int idx, int n)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TUSERDATA || lua_getuservalue(L, idx) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_insert(L, -2);
    lua_rawseti(L, -2, n);
    lua_pop(L, 1);
    return 1;
}

#define lua_newuserdatauv sl_compat_newuserdatauv
#define lua_getiuservalue sl_compat_getiuservalue
#define lua_setiuservalue sl_compat_setiuservalue

#ifdef STEER_LUA_JIT
/* ffi_api.c: "steer.vec2" for the FFI backend's vec2 (a cdata, whose
 * metatable no __name reaches), else NULL */
const char *sl_ffi_typename(lua_State *L, int idx);
#endif

/* 5.4's "bad argument #n to 'f' (T expected, got U)", U from __name. */
static inline int sl_compat_typeerror(lua_State *L, int arg, const char *tname)
{
    const char *got;
#ifdef STEER_LUA_JIT
    if ((got = sl_ffi_typename(L, arg)) != NULL) {
    } else
#endif
    if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, arg);
    return luaL_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, got));
}
#define luaL_typeerror sl_compat_typeerror

#if LUA_VERSION_NUM < 503
/* 5.1 truncates 1.5 to 1; 5.3+ raise, and so does steer everywhere. */
static inline lua_Integer sl_compat_checkinteger(lua_State *L, int arg)
{
    int ok = 0;
    lua_Integer n = lua_tointegerx(L, arg, &ok);
    if (!ok) {
        if (lua_isnumber(L, arg))
            luaL_argerror(L, arg, "number has no integer representation");
        else
            sl_compat_typeerror(L, arg, "number");
    }
    return n;
}
static inline lua_Integer sl_compat_optinteger(lua_State *L, int arg, lua_Integer def)
{
    return lua_isnoneornil(L, arg) ? def : sl_compat_checkinteger(L, arg);
}
#undef luaL_checkinteger
#undef luaL_optinteger
#define luaL_checkinteger sl_compat_checkinteger
#define luaL_optinteger sl_compat_optinteger
#endif

#ifndef luaL_pushfail
#define luaL_pushfail(L) lua_pushnil(L)
#endif

#ifndef LUA_LOADED_TABLE
#define LUA_LOADED_TABLE "_LOADED"
#endif

#endif /* LUA_VERSION_NUM < 504 */

/* LuaJIT's lua_dump cannot strip debug information; its string.dump(f,
 * true) can, and a stripped LuaJIT dump keeps no line numbers at all: hot
 * reload compares functions' code by their stripped dumps. */
#if defined(STEER_LUA_JIT)
static inline int sl_compat_dump(lua_State *L, lua_Writer writer, void *data, int strip)
{
    if (!strip)
        return (lua_dump)(L, writer, data);
    int top = lua_gettop(L);
    lua_getglobal(L, "string");
    if (lua_type(L, -1) == LUA_TTABLE)
        lua_getfield(L, -1, "dump");
    else
        lua_pushnil(L);
    int status = 1;
    if (lua_type(L, -1) == LUA_TFUNCTION) {
        lua_pushvalue(L, top);
        lua_pushboolean(L, 1);
        if (lua_pcall(L, 2, 1, 0) == 0 && lua_type(L, -1) == LUA_TSTRING) {
            size_t n;
            const char *p = lua_tolstring(L, -1, &n);
            status = writer(L, p, n, data);
        }
    }
    lua_settop(L, top);
    return status;
}
#undef lua_dump
#define lua_dump sl_compat_dump
#endif

/* package.searchers was package.loaders in Lua 5.1 and LuaJIT. */
#if LUA_VERSION_NUM < 502
#define SL_PACKAGE_SEARCHERS "loaders"
#else
#define SL_PACKAGE_SEARCHERS "searchers"
#endif

/* Hot reload joins a new function's upvalues to the old variables
 * (lua_upvalueid, lua_upvaluejoin): Lua 5.2+ and LuaJIT have them, Lua 5.1
 * does not, and there steer.reload of a loaded module fails with
 * SL_NO_HOTSWAP_MSG (a first load still works); the merge is not compiled
 * (bindings/hotswap.h). */
#if LUA_VERSION_NUM == 501 && !defined(STEER_LUA_JIT)
#define SL_NO_HOTSWAP 1
#define SL_NO_HOTSWAP_MSG "hot reload needs Lua 5.2 or later, or LuaJIT (Lua 5.1 cannot join upvalues)"
#endif

#endif
