/*
 * hotswap_commit.c — a reload's pending writes: what the plan decides to
 * change in the live module, kept apart until the commit.
 *
 * The plan never writes to a live table, function or world. Each write goes
 * to a shadow (per table: key -> new value; per upvalue variable: its new
 * value; per table: its new metatable; per new function: the old variables
 * its upvalues join), and every read the plan makes of a live object goes
 * through the shadows, so the plan sees the module as the writes before it
 * left it, as the in-place merge it replaces did.
 *
 * The only write that allocates is a new key in a live table. The plan's
 * last step (hs_reserve) adds those keys with their new values, in the
 * order the plan met them; should that run out of memory, hs_unreserve
 * takes them out again (removing a key allocates nothing). Everything the
 * commit then does cannot fail: values stored under keys that exist,
 * metatables set, upvalues set and joined, a world's on_error replaced.
 */
#include "hotswap.h"

#ifndef SL_NO_HOTSWAP

/* A shadow's and an upvalue entry's stand-in for nil (a value that will be
 * removed), which a Lua table cannot hold. */
static const char nil_mark;

static bool is_nil_mark(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == (void *)&nil_mark;
}

/* Pushes the value at idx, or the stand-in when it is nil. */
static void push_marked(lua_State *L, int idx)
{
    if (lua_isnil(L, idx))
        lua_pushlightuserdata(L, (void *)&nil_mark);
    else
        lua_pushvalue(L, idx);
}

/* Turns the stand-in on top of the stack into nil. */
static void unmark_top(lua_State *L)
{
    if (is_nil_mark(L, -1)) {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

void hs_pending_new(lua_State *L, hs_pending *p)
{
    int first = lua_gettop(L) + 1;
    for (int i = 0; i < HS_PENDING_TABLES; i++)
        lua_newtable(L);
    hs_pending_at(p, first);
}

void hs_pending_at(hs_pending *p, int first)
{
    p->tables = first;
    p->metas = first + 1;
    p->upvals = first + 2;
    p->joins = first + 3;
    p->worlds = first + 4;
    p->added = first + 5;
    p->nadded = 0;
}

/* ---- table fields ---- */

void hs_get(lua_State *L, hs_pending *p, int t, int k)
{
    t = lua_absindex(L, t);
    k = lua_absindex(L, k);
    lua_pushvalue(L, t);
    if (lua_rawget(L, p->tables) == LUA_TTABLE) {
        lua_pushvalue(L, k);
        if (lua_rawget(L, -2) != LUA_TNIL) {
            lua_remove(L, -2);
            unmark_top(L);
            return;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, k);
    lua_rawget(L, t);
}

/* Pushes t's shadow, made on first use. */
static void push_shadow(lua_State *L, hs_pending *p, int t)
{
    lua_pushvalue(L, t);
    if (lua_rawget(L, p->tables) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, t);
    lua_pushvalue(L, -2);
    lua_rawset(L, p->tables);
}

void hs_set(lua_State *L, hs_pending *p, int t, int k, int v)
{
    t = lua_absindex(L, t);
    k = lua_absindex(L, k);
    v = lua_absindex(L, v);
    hs_get(L, p, t, k);
    bool same = lua_rawequal(L, -1, v) || (lua_isnil(L, -1) && lua_isnil(L, v));
    lua_pop(L, 1);
    if (same)
        return; /* what the field holds (or will) already */
    push_shadow(L, p, t);
    int sh = lua_gettop(L);
    if (!hs_has_key(L, sh, k) && !hs_has_key(L, t, k)) {
        /* a key t does not have yet: hs_reserve adds it */
        lua_pushvalue(L, t);
        lua_rawseti(L, p->added, ++p->nadded);
        lua_pushvalue(L, k);
        lua_rawseti(L, p->added, ++p->nadded);
    }
    lua_pushvalue(L, k);
    push_marked(L, v);
    lua_rawset(L, sh);
    lua_pop(L, 1);
}

void hs_fields(lua_State *L, hs_pending *p, int t, hs_field_fn fn, void *ud)
{
    t = lua_absindex(L, t);
    int top = lua_gettop(L);
    lua_pushvalue(L, t);
    int sh = lua_rawget(L, p->tables) == LUA_TTABLE ? top + 1 : 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (sh != 0) {
            lua_pushvalue(L, -2);
            if (lua_rawget(L, sh) != LUA_TNIL) {
                lua_replace(L, -2);
                if (is_nil_mark(L, -1)) {
                    lua_pop(L, 1); /* removed by the commit */
                    continue;
                }
            } else {
                lua_pop(L, 1);
            }
        }
        fn(L, ud);
        lua_pop(L, 1);
    }
    if (sh != 0) { /* the keys the commit adds */
        lua_pushnil(L);
        while (lua_next(L, sh)) {
            if (!is_nil_mark(L, -1) && !hs_has_key(L, t, -2))
                fn(L, ud);
            lua_pop(L, 1);
        }
    }
    lua_settop(L, top);
}

/* ---- metatables ---- */

bool hs_getmetatable(lua_State *L, hs_pending *p, int t)
{
    lua_pushvalue(L, t);
    if (lua_rawget(L, p->metas) != LUA_TNIL)
        return true;
    lua_pop(L, 1);
    return lua_getmetatable(L, t) != 0;
}

void hs_setmetatable(lua_State *L, hs_pending *p, int t, int mt)
{
    t = lua_absindex(L, t);
    mt = lua_absindex(L, mt);
    lua_pushvalue(L, t);
    lua_pushvalue(L, mt);
    lua_rawset(L, p->metas);
}

/* ---- upvalues ---- */

/* Pushes the function whose upvalue is the variable upvalue i of f will be
 * after the commit (f, or the old function f's upvalue joins) and returns
 * that upvalue's index. */
static int push_variable(lua_State *L, hs_pending *p, int f, int i)
{
    int top = lua_gettop(L);
    lua_pushvalue(L, f);
    if (lua_rawget(L, p->joins) == LUA_TTABLE && lua_rawgeti(L, -1, i) == LUA_TTABLE) {
        lua_rawgeti(L, -1, 2);
        int j = (int)lua_tointeger(L, -1);
        lua_rawgeti(L, -2, 1);
        lua_replace(L, top + 1);
        lua_settop(L, top + 1);
        return j;
    }
    lua_settop(L, top);
    lua_pushvalue(L, f);
    return i;
}

const char *hs_getupvalue(lua_State *L, hs_pending *p, int f, int i)
{
    f = lua_absindex(L, f);
    const char *name = lua_getupvalue(L, f, i);
    if (name == NULL)
        return NULL;
    int v = lua_gettop(L);
    int j = push_variable(L, p, f, i);
    lua_pushlightuserdata(L, lua_upvalueid(L, v + 1, j));
    if (lua_rawget(L, p->upvals) == LUA_TTABLE) {
        lua_rawgeti(L, -1, 3);
        unmark_top(L);
    } else {
        lua_getupvalue(L, v + 1, j);
    }
    lua_replace(L, v);
    lua_settop(L, v);
    return name;
}

void hs_setupvalue(lua_State *L, hs_pending *p, int f, int i, int v)
{
    f = lua_absindex(L, f);
    v = lua_absindex(L, v);
    int top = lua_gettop(L);
    if (hs_getupvalue(L, p, f, i) == NULL)
        return;
    bool same = lua_rawequal(L, -1, v) || (lua_isnil(L, -1) && lua_isnil(L, v));
    lua_settop(L, top);
    if (same)
        return;
    int j = push_variable(L, p, f, i);
    lua_pushlightuserdata(L, lua_upvalueid(L, top + 1, j));
    lua_createtable(L, 3, 0);
    lua_pushvalue(L, top + 1);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, j);
    lua_rawseti(L, -2, 2);
    push_marked(L, v);
    lua_rawseti(L, -2, 3);
    lua_rawset(L, p->upvals);
    lua_settop(L, top);
}

void hs_join(lua_State *L, hs_pending *p, int f, int u, int of, int j)
{
    f = lua_absindex(L, f);
    of = lua_absindex(L, of);
    lua_pushvalue(L, f);
    if (lua_rawget(L, p->joins) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, f);
        lua_pushvalue(L, -2);
        lua_rawset(L, p->joins);
    }
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, of);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, j);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, u);
    lua_pop(L, 1);
}

void hs_set_onerror(lua_State *L, hs_pending *p, int w, int fn)
{
    w = lua_absindex(L, w);
    fn = lua_absindex(L, fn);
    lua_pushvalue(L, w);
    lua_pushvalue(L, fn);
    lua_rawset(L, p->worlds);
}

/* ---- reserving, undoing, committing ---- */

void hs_reserve(lua_State *L, hs_pending *p, lua_Integer *done)
{
    int top = lua_gettop(L);
    *done = 0;
    for (lua_Integer i = 1; i < p->nadded; i += 2) {
        lua_rawgeti(L, p->added, i);     /* top + 1: the table */
        lua_rawgeti(L, p->added, i + 1); /* top + 2: the key */
        hs_get(L, p, top + 1, top + 2);  /* top + 3: its value after the commit */
        if (!lua_isnil(L, top + 3) && !hs_has_key(L, top + 1, top + 2)) {
            *done = i + 1; /* counted first: a key that failed to go in is absent */
            lua_pushvalue(L, top + 2);
            lua_pushvalue(L, top + 3);
            lua_rawset(L, top + 1);
        }
        lua_settop(L, top);
    }
}

void hs_unreserve(lua_State *L, hs_pending *p, lua_Integer done)
{
    int top = lua_gettop(L);
    for (lua_Integer i = 1; i < done; i += 2) {
        lua_rawgeti(L, p->added, i);
        lua_rawgeti(L, p->added, i + 1);
        if (hs_has_key(L, top + 1, top + 2)) {
            lua_pushnil(L);
            lua_rawset(L, top + 1); /* an existing key: nothing to allocate */
        }
        lua_settop(L, top);
    }
}

/* Every shadow into its table: keys that exist (hs_reserve added the new
 * ones) take their values; removed ones go. */
static void commit_fields(lua_State *L, hs_pending *p)
{
    lua_pushnil(L);
    while (lua_next(L, p->tables)) {
        int sh = lua_gettop(L), t = sh - 1;
        lua_pushnil(L);
        while (lua_next(L, sh)) {
            lua_pushvalue(L, -2);
            if (!is_nil_mark(L, -2)) {
                lua_pushvalue(L, -2);
                lua_rawset(L, t);
            } else if (lua_rawget(L, t) != LUA_TNIL) {
                lua_pop(L, 1);
                lua_pushvalue(L, -2);
                lua_pushnil(L);
                lua_rawset(L, t);
            } else {
                lua_pop(L, 1); /* gone already: setting nil could allocate on 5.3 */
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* Upvalues set (their variables), then the joins of the new functions. */
static void commit_upvalues(lua_State *L, hs_pending *p)
{
    lua_pushnil(L);
    while (lua_next(L, p->upvals)) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        int j = (int)lua_tointeger(L, -1);
        lua_rawgeti(L, -3, 3);
        unmark_top(L);
        lua_setupvalue(L, -3, j);
        lua_pop(L, 3);
    }
    lua_pushnil(L);
    while (lua_next(L, p->joins)) {
        int f = lua_gettop(L) - 1;
        lua_pushnil(L);
        while (lua_next(L, f + 1)) {
            int u = (int)lua_tointeger(L, -2);
            lua_rawgeti(L, -1, 1);
            lua_rawgeti(L, -2, 2);
            int j = (int)lua_tointeger(L, -1);
            lua_upvaluejoin(L, f, u, lua_gettop(L) - 1, j);
            lua_pop(L, 3);
        }
        lua_pop(L, 1);
    }
}

void hs_commit(lua_State *L, hs_pending *p)
{
    commit_fields(L, p);
    lua_pushnil(L);
    while (lua_next(L, p->metas)) {
        lua_pushvalue(L, -1);
        lua_setmetatable(L, -3);
        lua_pop(L, 1);
    }
    commit_upvalues(L, p);
    lua_pushnil(L);
    while (lua_next(L, p->worlds))
        lua_setiuservalue(L, -2, SL_WUV_ONERROR);
}

#endif /* SL_NO_HOTSWAP */
