/*
 * path.c — steer.path, an immutable polyline for follow_path.
 *
 * The core's st_path is shared by reference, so the userdata must outlive
 * every standing behaviour that names it: agents keep their behaviour list
 * (and with it the path userdata) in a uservalue.
 */
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
