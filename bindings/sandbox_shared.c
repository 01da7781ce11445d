/*
 * sandbox_shared.c — what the scripts of a sandboxed state share, made
 * read-only: the standard library tables, steer's tables and the globals
 * that name them (steer_host_seal); and package.searchpath confined to the
 * script folders.
 *
 * Every brain and the scene run in one state, so `string.find = f` in one
 * script would change string.find for all of them, and so would
 * `string = t`. Sealing replaces each library table, wherever a script can
 * reach it (its global, package.loaded, fields of other library tables,
 * getmetatable("").__index), by a proxy: an empty table whose reads go to a
 * hidden copy of the library (nested library tables proxied in turn), whose
 * writes raise, and whose metatable is locked. The globals that name the
 * libraries and the base functions move behind the global table's __index,
 * so assigning one raises too; any other global is the scripts' own, as
 * before. rawset refuses proxies and those names. C code keeps the real
 * tables: require's searchers, the registry's loaded table (whose library
 * entries become the proxies, so require "string" gives one), and the
 * strings' metatable, so ("x"):find costs what it did.
 */
#define _XOPEN_SOURCE 700
#include "sandbox.h"

#include "bind.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#define KEY_SEALED "steer.host.sealed" /* weak set: the proxies and the global table */
#define KEY_BASE "steer.host.base"     /* the protected globals */

/* ---------------------------------------------------------------- proxies */

static int refuse_write(lua_State *L)
{
    const char *what = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "cannot change '%s.%s' (the library tables are shared by every script, and read-only "
                             "in the sandbox)", what, lua_tostring(L, 2));
    return luaL_error(L, "cannot change '%s' (the library tables are shared by every script, and read-only in the "
                         "sandbox)", what);
}

/* pairs(proxy): the hidden copy's fields, without handing out the copy. */
static int proxy_next(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_next(L, lua_upvalueindex(1)))
        return 2;
    lua_pushnil(L);
    return 1;
}

static int proxy_pairs(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, proxy_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int proxy_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* Marks the value on top as sealed (rawset refuses it). */
static void mark_sealed(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_SEALED);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* proxy(...): the real table called (steer.vec2(x, y)). */
static int proxy_call(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_replace(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* A proxy of a table with a metatable (the real one at real) calls it, and
 * shows what getmetatable showed. */
static void proxy_keeps_metatable(lua_State *L, int real)
{
    if (real == 0 || !lua_getmetatable(L, real))
        return;
    if (lua_getfield(L, -1, "__call") != LUA_TNIL) {
        lua_pushvalue(L, real);
        lua_pushcclosure(L, proxy_call, 1);
        lua_setfield(L, -4, "__call");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "__metatable") != LUA_TNIL)
        lua_setfield(L, -3, "__metatable");
    else
        lua_pop(L, 1);
    lua_pop(L, 1);
}

/* Pushes a proxy whose reads see the table at `seen` (real: the table it
 * stands for, 0 when that is seen; name: for messages). */
static void push_proxy(lua_State *L, int seen, int real, const char *name)
{
    seen = lua_absindex(L, seen);
    real = real != 0 ? lua_absindex(L, real) : seen;
    lua_newtable(L);
    lua_createtable(L, 0, 6);
    lua_pushvalue(L, seen);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, refuse_write, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, seen);
    lua_pushcclosure(L, proxy_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushvalue(L, seen);
    lua_pushcclosure(L, proxy_len, 1);
    lua_setfield(L, -2, "__len");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    proxy_keeps_metatable(L, real);
    lua_setmetatable(L, -2);
    mark_sealed(L);
}

/* Pushes the proxy of the library table at idx, made once (memo: real ->
 * proxy): its reads see a copy whose table fields are proxies as well. */
static void proxy_of(lua_State *L, int idx, const char *name, int memo)
{
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, memo) != LUA_TNIL)
        return;
    lua_pop(L, 1);
    lua_newtable(L); /* the copy: absent keys and calls as the real table */
    int copy = lua_gettop(L);
    if (lua_getmetatable(L, idx))
        lua_setmetatable(L, copy);
    push_proxy(L, copy, idx, name);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, memo); /* before the fields: cycles end here */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -1) == LUA_TTABLE && lua_type(L, -2) == LUA_TSTRING) {
            const char *field = lua_pushfstring(L, "%s.%s", name, lua_tostring(L, -2));
            proxy_of(L, -2, field, memo);
            lua_remove(L, -2); /* the name */
            lua_remove(L, -2); /* the real table */
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, copy);
    }
    lua_remove(L, copy);
}

/* ---------------------------------------------------------------- globals */

/* _G's __newindex: a new global is the script's; a library's name is not. */
static int globals_write(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_BASE);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL)
        return luaL_error(L, "cannot assign the global '%s' (the standard globals are shared by every script, and "
                             "read-only in the sandbox)", luaL_tolstring(L, 2, NULL));
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

/* rawset: refuses the proxies, and the protected names in the globals. */
static int sandbox_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_SEALED);
    lua_pushvalue(L, 1);
    bool sealed = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    if (sealed) {
        lua_pushglobaltable(L);
        bool globals = lua_rawequal(L, 1, -1);
        lua_pop(L, 1);
        if (!globals)
            return luaL_error(L, "rawset: the library tables are read-only in the sandbox");
        return globals_write(L);
    }
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/* Moves every global (the libraries as proxies) into the base table behind
 * the global table's __index. */
static void seal_globals(lua_State *L, int memo)
{
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    lua_newtable(L);
    int base = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, g)) {
        if (lua_type(L, -1) == LUA_TTABLE && !lua_rawequal(L, -1, g) && lua_type(L, -2) == LUA_TSTRING) {
            proxy_of(L, -1, lua_tostring(L, -2), memo);
            lua_remove(L, -2);
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, base);
    }
    lua_pushcfunction(L, sandbox_rawset);
    lua_setfield(L, base, "rawset");
    /* empty the globals (keys cleared while walking a table is allowed) */
    lua_pushnil(L);
    while (lua_next(L, base)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, g);
    }
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, base);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, globals_write);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, g);
    lua_pushvalue(L, base);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_BASE);
    lua_pushvalue(L, g);
    mark_sealed(L);
    lua_settop(L, g - 1);
}

/* The registry's loaded table: each library's entry (all there are when
 * the host seals: the standard ones and steer) becomes its proxy, so
 * require "string" gives one; the table itself stays real for require, and
 * scripts see it through a live proxy as package.loaded. */
static void seal_loaded(lua_State *L, int memo)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    int loaded = lua_gettop(L);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, loaded)) {
        if (lua_type(L, -1) == LUA_TTABLE && lua_type(L, -2) == LUA_TSTRING && !lua_rawequal(L, -1, g)) {
            proxy_of(L, -1, lua_tostring(L, -2), memo);
            lua_pushvalue(L, -3);
            lua_insert(L, -2);
            lua_rawset(L, loaded);
        }
        lua_pop(L, 1);
    }
    lua_settop(L, loaded - 1);
}

/* The strings' read-only metatable view shows the string proxy as __index. */
static void seal_string_view(lua_State *L)
{
    int top = lua_gettop(L);
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1) && lua_getfield(L, -1, "__metatable") == LUA_TUSERDATA
        && lua_getmetatable(L, -1) && lua_getfield(L, -1, "__index") == LUA_TTABLE
        && lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE) {
        lua_getfield(L, -1, "string"); /* the proxy by now */
        lua_setfield(L, -3, "__index");
    }
    lua_settop(L, top);
}

static int seal(lua_State *L)
{
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_SEALED);
    lua_getglobal(L, "package");
    lua_setfield(L, LUA_REGISTRYINDEX, SL_HOST_PACKAGE); /* the real one, for the bindings */
    lua_newtable(L);
    int memo = lua_gettop(L);
    /* package.loaded first: as a live proxy, not a copy */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -1);
    push_proxy(L, -1, 0, "package.loaded");
    lua_rawset(L, memo);
    seal_globals(L, memo);
    seal_loaded(L, memo);
    seal_string_view(L);
    return 0;
}

void steer_host_seal(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "steer.host.dirs");
    const host_dirs *d = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (d == NULL || d->trust)
        return;
    lua_pushcfunction(L, seal);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "steer: cannot seal the library tables: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
}

/* ---------------------------------------------------------------- searchpath */

/* package.searchpath(name, path [, sep [, rep]]) as stock Lua's, except that
 * a file outside the script folders is never found: the answer says nothing
 * about the rest of the disk. */
static int sandbox_searchpath(lua_State *L)
{
    const host_dirs *d = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    const char *path = luaL_checkstring(L, 2);
    const char *sep = luaL_optstring(L, 3, ".");
    const char *rep = luaL_optstring(L, 4, LUA_DIRSEP);
    if (*sep != '\0' && strchr(name, *sep) != NULL)
        name = luaL_gsub(L, name, sep, rep);
    luaL_Buffer tried;
    luaL_buffinit(L, &tried);
    const char *t = path;
    while (*t != '\0') {
        size_t n = strcspn(t, LUA_PATH_SEP);
        lua_pushlstring(L, t, n);
        const char *file = luaL_gsub(L, lua_tostring(L, -1), LUA_PATH_MARK, name);
        lua_remove(L, -2);
        char real[PATH_MAX];
        FILE *f = NULL;
        if (sl_realpath(file, real) != NULL && sandbox_in_script_folders(d, real) && (f = fopen(real, "r")) != NULL) {
            fclose(f);
            return 1;
        }
        lua_pushfstring(L, "\n\tno file '%s'", file);
        lua_remove(L, -2);
        luaL_addvalue(&tried);
        t += n;
        if (*t != '\0')
            t++;
    }
    luaL_pushresult(&tried);
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

void sandbox_confine_searchpath(lua_State *L, host_dirs *d)
{
    lua_getglobal(L, "package");
    lua_pushlightuserdata(L, d);
    lua_pushcclosure(L, sandbox_searchpath, 1);
    lua_setfield(L, -2, "searchpath");
    lua_pop(L, 1);
}
