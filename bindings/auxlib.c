/*
 * auxlib.c — the helpers every binding file shares, as Lua's lauxlib is
 * for the standard libraries: the registry keys, userdata type tests, the
 * key cache behind the hot __index closures, checked numbers and options
 * with errors in Lua's standard form, and the one registration of a
 * userdata type (sl_newtype). Nothing here knows a particular type: the
 * per-type files call in, never the other way round.
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

void sl_push_uvtable(lua_State *L, int idx, int uv)
{
    idx = lua_absindex(L, idx);
    if (lua_getiuservalue(L, idx, uv) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, idx, uv);
}

/* ---- __index by the key's address (bind.h) ---- */

void sl_keycache_new(lua_State *L)
{
    sl_keycache *kc = (sl_keycache *)lua_newuserdatauv(L, sizeof *kc, 0);
    memset(kc, 0, sizeof *kc);
}

int sl_keycache_miss(lua_State *L, sl_keycache *kc, int set, int key_idx, int names_uv, int values_uv)
{
    lua_pushvalue(L, key_idx);
    int ty = lua_rawget(L, names_uv);
    /* The name table has only string keys: a hit is a string, and a short
     * one (interned, the table's own key object). */
    bool cache = ty != LUA_TNIL && lua_type(L, key_idx) == LUA_TSTRING;
    if (!cache)
        return SL_KC_METHOD; /* nil pushed: only strings name anything */
    /* A free way, else the first way's name moves to the second and this
     * one takes the first: the two names met last both stay. */
    int slot = set;
    if (kc->key[set] != NULL && kc->key[set + 1] == NULL) {
        slot = set + 1;
    } else if (kc->key[set] != NULL) {
        kc->key[set + 1] = kc->key[set];
        kc->code[set + 1] = kc->code[set];
        if (kc->code[set] == SL_KC_METHOD) {
            lua_rawgeti(L, values_uv, set + 1);
            lua_rawseti(L, values_uv, set + 2);
        }
    }
    int code = SL_KC_METHOD;
    if (ty == LUA_TNUMBER) {
        code = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    } else {
        lua_pushvalue(L, -1);
        lua_rawseti(L, values_uv, slot + 1);
    }
    kc->key[slot] = lua_topointer(L, key_idx);
    kc->code[slot] = code;
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
#ifdef STEER_LUA_JIT
    if ((got = sl_ffi_typename(L, idx)) != NULL) {
    } else
#endif
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, idx) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, idx);
    sl_raise(L, src, "%s expected, got %s", expected, got);
}

const char *sl_nonfinite_name(double d)
{
    return isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
}

/* ---- numbers ---- */

double sl_number(lua_State *L, int idx, const sl_src *src)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        sl_raise_type(L, src, idx, "number");
    double d = lua_tonumber(L, idx);
    if (!isfinite(d))
        sl_raise(L, src, "finite number expected, got %s", sl_nonfinite_name(d));
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

/* ---- fields of option and def tables ---- */

bool sl_getfield(lua_State *L, int idx, const char *name)
{
    if (lua_getfield(L, idx, name) != LUA_TNIL)
        return true;
    lua_pop(L, 1);
    return false;
}

double sl_field_min(lua_State *L, int idx, const char *name, double def, double min, bool strict)
{
    if (!sl_getfield(L, idx, name))
        return def;
    sl_src src = sl_field(idx, name);
    double d = sl_number_min(L, -1, &src, min, strict);
    lua_pop(L, 1);
    return d;
}

const char *sl_unknown_key(lua_State *L, int idx, const char *const *keys)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int i = 0; keys[i] != NULL && !ok; i++)
                ok = strcmp(lua_tostring(L, -1), keys[i]) == 0;
        if (!ok)
            return luaL_tolstring(L, -1, NULL);
    }
    return NULL;
}

/* `"a", "b" or "c"`: the choices of an invalid option's message. */
static void add_choices(luaL_Buffer *b, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++) {
        if (i > 0)
            luaL_addstring(b, names[i + 1] != NULL ? ", " : " or ");
        luaL_addchar(b, '"');
        luaL_addstring(b, names[i]);
        luaL_addchar(b, '"');
    }
}

int sl_option(lua_State *L, int idx, const sl_src *src, const char *const *names)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        sl_raise_type(L, src, idx, "string");
    const char *s = lua_tostring(L, idx);
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    add_choices(&b, names);
    luaL_pushresult(&b);
    sl_raise(L, src, "invalid option '%s' (%s)", s, lua_tostring(L, -1));
    return 0;
}

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

/* ---- the host's memory budget ---- */

const st_mem *sl_mem(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, SL_HOST_MEM);
    const st_mem *m = (const st_mem *)lua_touserdata(L, -1);
    lua_pop(L, 1);
    return m;
}

void sl_collect(lua_State *L)
{
    lua_gc(L, LUA_GCCOLLECT, 0);
}

/* ---- the package library ---- */

void sl_push_package(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, SL_HOST_PACKAGE) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_getglobal(L, "package");
}

/* ---- registering a userdata type ---- */

/* Pushes the metatables under the registry keys in t->ups; returns how many. */
static int push_ups(lua_State *L, const sl_type *t)
{
    int n = 0;
    for (; t->ups != NULL && t->ups[n] != NULL; n++)
        lua_rawgetp(L, LUA_REGISTRYINDEX, t->ups[n]);
    return n;
}

/* Sets luaL_Reg functions into the table on top, each a closure over the
 * metatables of t->ups. */
static void set_closures(lua_State *L, const sl_type *t, const luaL_Reg *fns)
{
    luaL_setfuncs(L, fns, push_ups(L, t));
}

/* Pushes the name table: methods (closures over t->ups) and field codes. */
static void push_names(lua_State *L, const sl_type *t)
{
    int n = 0, m = 0;
    while (t->methods != NULL && t->methods[m].name != NULL)
        m++;
    while (t->fields != NULL && t->fields[n].name != NULL)
        n++;
    lua_createtable(L, 0, m + n);
    if (t->methods != NULL)
        set_closures(L, t, t->methods);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, t->fields[i].code);
        lua_setfield(L, -2, t->fields[i].name);
    }
    if (t->more_names != NULL)
        t->more_names(L);
}

/* __index and __newindex as closures over the name table on top (popped):
 * __index also over the first t->index_ups metatables of t->ups and, with
 * t->keycache, a key cache and its method slots (bind.h). */
static void set_index_closures(lua_State *L, const sl_type *t, int mt)
{
    lua_pushvalue(L, -1);
    for (int i = 0; i < t->index_ups; i++)
        lua_rawgetp(L, LUA_REGISTRYINDEX, t->ups[i]);
    int nup = 1 + t->index_ups;
    if (t->keycache) {
        sl_keycache_new(L);
        lua_createtable(L, SL_KEYCACHE, 0);
        nup += 2;
    }
    lua_pushcclosure(L, t->index, nup);
    lua_setfield(L, mt, "__index");
    if (t->newindex == NULL) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, t->newindex, 1);
    lua_setfield(L, mt, "__newindex");
}

/* __index and __newindex as plain functions: a type without a name table. */
static void set_index_functions(lua_State *L, const sl_type *t, int mt)
{
    if (t->index != NULL) {
        lua_pushcfunction(L, t->index);
        lua_setfield(L, mt, "__index");
    }
    if (t->newindex != NULL) {
        lua_pushcfunction(L, t->newindex);
        lua_setfield(L, mt, "__newindex");
    }
}

void sl_newtype(lua_State *L, const sl_type *t)
{
    luaL_newmetatable(L, t->name);
    int mt = lua_gettop(L);
    lua_pushvalue(L, mt);
    lua_rawsetp(L, LUA_REGISTRYINDEX, t->key);
    if (t->meta != NULL)
        set_closures(L, t, t->meta);
    if (t->methods != NULL || t->fields != NULL || t->more_names != NULL) {
        push_names(L, t);
        set_index_closures(L, t, mt);
    } else {
        set_index_functions(L, t, mt);
    }
    steer_lua_protect_metatable(L, mt, t->name, false);
}
