/*
 * path.c — steer.path, an immutable polyline for follow_path.
 *
 * The core's st_path is shared by reference, so the userdata must outlive
 * every standing behaviour that names it: agents keep their behaviour list
 * (and with it the path userdata) in a uservalue.
 */
#include <limits.h>

#include "bind.h"

sl_path *sl_topath(lua_State *L, int idx)
{
    return (sl_path *)sl_testudata(L, idx, &sl_key_path);
}

static sl_path *checkpath(lua_State *L, int arg)
{
    return (sl_path *)sl_checkudata(L, arg, &sl_key_path, SL_PATH);
}

/* steer.path{ p1, p2, ..., loop = false, radius = 20 } */
int sl_path_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 1, 1, "a path needs at least one point");
    luaL_argcheck(L, n <= 1000000, 1, "too many points");

    sl_src src = sl_field(1, "loop");
    int ty = lua_getfield(L, 1, "loop");
    if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
        sl_raise_type(L, &src, -1, "boolean");
    bool loop = lua_toboolean(L, -1);
    lua_pop(L, 1);

    src.field = "radius";
    lua_getfield(L, 1, "radius");
    double radius = lua_isnil(L, -1) ? ST_PATH_RADIUS : sl_number_min(L, -1, &src, 0.0, true);
    lua_pop(L, 1);

    /* a userdata for the points: freed by the GC even if a point raises */
    st_vec2 *pts = (st_vec2 *)lua_newuserdatauv(L, (size_t)n * sizeof *pts, 0);
    sl_src ps = sl_arg(1);
    sl_point_list(L, 1, n, &ps, pts);

    sl_path *p = (sl_path *)lua_newuserdatauv(L, sizeof *p, 0);
    p->p = NULL;
    sl_setmetatable(L, &sl_key_path);
    p->p = st_path_create_in(sl_mem(L), pts, (int)n, loop, radius);
    if (p->p == NULL) {
        sl_collect(L);
        p->p = st_path_create_in(sl_mem(L), pts, (int)n, loop, radius);
    }
    if (p->p == NULL)
        return luaL_error(L, "not enough memory");
    return 1;
}

static int path_gc(lua_State *L)
{
    sl_path *p = checkpath(L, 1);
    if (p->p != NULL)
        st_path_destroy(p->p);
    p->p = NULL;
    return 0;
}

static int path_len(lua_State *L)
{
    lua_pushinteger(L, st_path_count(checkpath(L, 1)->p));
    return 1;
}

static int path_points(lua_State *L)
{
    const st_path *p = checkpath(L, 1)->p;
    int n = st_path_count(p);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        steer_lua_pushvec2(L, st_path_point(p, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ---- progress along a path ---- */

void sl_push_path_index(lua_State *L, st_world *w, st_agent_id id)
{
    if (st_agent_path(w, id) == NULL)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)st_agent_path_index(w, id) + 1);
}

void sl_set_path_index(lua_State *L, st_world *w, st_agent_id id, int idx, const sl_src *src)
{
    int isint;
    lua_Integer i = lua_tointegerx(L, idx, &isint);
    if (!isint) {
        if (lua_type(L, idx) != LUA_TNUMBER)
            sl_raise_type(L, src, idx, "number");
        sl_raise(L, src, "must be an integer");
    }
    if (i < 1)
        sl_raise(L, src, "must be >= 1");
    if (i > INT_MAX)
        i = INT_MAX; /* past any path's end: its last point, as documented */
    if (!st_agent_set_path_index(w, id, (int)(i - 1)))
        sl_raise(L, src, "the agent follows no path");
}

/* path:remaining(pos_or_agent [, index]) -> the distance left along the path:
 * from pos projected onto the segment into waypoint `index` (default: an
 * agent's own path_index when it follows this path, else the waypoint after
 * the nearest point of the path), then waypoint to waypoint to the end. */
static int path_remaining(lua_State *L)
{
    const st_path *p = checkpath(L, 1)->p;
    int next = -1;
    st_vec2 pos;
    sl_agent *a = sl_agent_at(L, 2);
    if (a != NULL) {
        if (a->removed)
            return luaL_error(L, "attempt to use a removed agent");
        pos = st_agent_pos(a->sw->w, a->id);
        if (st_agent_path(a->sw->w, a->id) == p)
            next = st_agent_path_index(a->sw->w, a->id);
    } else {
        sl_src src = sl_arg(2);
        pos = sl_point(L, 2, &src);
    }
    if (!lua_isnoneornil(L, 3)) {
        lua_Integer i = luaL_checkinteger(L, 3);
        luaL_argcheck(L, i >= 1, 3, "must be >= 1");
        next = (int)(i > INT_MAX ? INT_MAX : i - 1);
    }
    lua_pushnumber(L, st_path_remaining(p, pos, next));
    return 1;
}

enum { PF_LOOP = 1, PF_RADIUS };

/* upvalue 1: name -> method or field code */
static int path_index(lua_State *L)
{
    const st_path *p = checkpath(L, 1)->p;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        int isint;
        lua_Integer i = lua_tointegerx(L, 2, &isint);
        if (isint && i >= 1 && i <= st_path_count(p))
            steer_lua_pushvec2(L, st_path_point(p, (int)(i - 1)));
        else
            lua_pushnil(L);
        return 1;
    }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNUMBER)
        return 1; /* a method, or nil */
    if (lua_tointeger(L, -1) == PF_LOOP)
        lua_pushboolean(L, st_path_loop(p));
    else
        lua_pushnumber(L, st_path_radius(p));
    return 1;
}

static int path_newindex(lua_State *L)
{
    return luaL_error(L, "steer.path is immutable (cannot assign field '%s')",
                      luaL_tolstring(L, 2, NULL));
}

static int path_tostring(lua_State *L)
{
    const st_path *p = checkpath(L, 1)->p;
    lua_pushfstring(L, "path(%d points%s)", st_path_count(p), st_path_loop(p) ? ", loop" : "");
    return 1;
}

static const luaL_Reg path_meta[] = {
    {"__gc", path_gc},
    {"__len", path_len},
    {"__newindex", path_newindex},
    {"__tostring", path_tostring},
    {NULL, NULL},
};

/* path:links() -> { { index = i, link = L }, ... }: the segments (from point
 * i to i + 1) that take a navgrid link, in order, with nav:link's tables */
static int path_links(lua_State *L)
{
    const st_path *p = checkpath(L, 1)->p;
    lua_newtable(L);
    if (lua_getiuservalue(L, 1, 1) != LUA_TTABLE) { /* paths not from a navgrid have none */
        lua_pop(L, 1);
        return 1;
    }
    int k = 0;
    for (int i = 0; i + 1 < st_path_count(p); i++) {
        if (st_path_link(p, i) == 0)
            continue;
        lua_createtable(L, 0, 2);
        lua_pushinteger(L, i + 1);
        lua_setfield(L, -2, "index");
        lua_rawgeti(L, -2, i + 1);
        lua_setfield(L, -2, "link");
        lua_rawseti(L, -3, ++k);
    }
    lua_pop(L, 1);
    return 1;
}

static const luaL_Reg path_methods[] = {
    {"points", path_points},
    {"remaining", path_remaining},
    {"links", path_links},
    {NULL, NULL},
};

static const sl_code path_fields[] = {{"loop", PF_LOOP}, {"radius", PF_RADIUS}, {NULL, 0}};

/* Expects the steer table on top; sets steer.path. */
void sl_open_path(lua_State *L)
{
    static const sl_type t = {
        .name = SL_PATH, .key = &sl_key_path, .meta = path_meta, .methods = path_methods,
        .fields = path_fields, .index = path_index,
    };
    sl_newtype(L, &t);
    lua_pop(L, 1);
    lua_pushcfunction(L, sl_path_new);
    lua_setfield(L, -2, "path");
}
