/*
 * obstacle.c — steer.obstacle: circles, polygons and polylines that move and
 * can be removed (world:add_obstacle, world:remove_obstacle, world:obstacles).
 *
 * One userdata per obstacle and world, kept in the world's obstacle table
 * (id -> userdata), so the same obstacle always reads back as the same value.
 * A removed obstacle keeps `id`, `kind` and `alive` readable; everything else
 * raises, as a removed agent does.
 */
#include <string.h>

#include "bind.h"

const char sl_key_obstacle = 0;

typedef struct sl_obstacle {
    sl_world *sw; /* pinned by uservalue 1, the world */
    int id;
    st_obstacle_kind kind;
} sl_obstacle;

static const char *const kind_names[] = {"circle", "polygon", "polyline"};

/* Pushes the userdata of obstacle `id` (made on first need). */
void sl_push_obstacle(lua_State *L, int world_idx, sl_world *sw, int id)
{
    world_idx = lua_absindex(L, world_idx);
    sl_push_uvtable(L, world_idx, SL_WUV_OBSTACLES); /* id -> obstacle */
    if (lua_rawgeti(L, -1, id) == LUA_TUSERDATA) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    st_obstacle_info info;
    st_world_obstacle_get(sw->w, st_world_obstacle_index(sw->w, id), &info);
    sl_obstacle *o = (sl_obstacle *)lua_newuserdatauv(L, sizeof *o, 1);
    o->sw = sw;
    o->id = id;
    o->kind = info.kind;
    sl_setmetatable(L, &sl_key_obstacle);
    lua_pushvalue(L, world_idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, id);
    lua_remove(L, -2);
}

static sl_obstacle *check_obstacle(lua_State *L, int arg)
{
    return (sl_obstacle *)sl_checkudata(L, arg, &sl_key_obstacle, SL_OBSTACLE);
}

/* Index of a live obstacle in its world, else an error. */
static int live_index(lua_State *L, const sl_obstacle *o)
{
    int i = o->sw->w ? st_world_obstacle_index(o->sw->w, o->id) : -1;
    if (i < 0)
        luaL_error(L, "attempt to use a removed obstacle");
    return i;
}

/* The points of a polygon or polyline def field (at the top), at least min. */
static int check_points(lua_State *L, const sl_src *src, int min, st_vec2 **out)
{
    if (lua_type(L, -1) != LUA_TTABLE)
        sl_raise_type(L, src, -1, "array of points");
    lua_Integer n = luaL_len(L, -1);
    if (n < min || n > 100000)
        sl_raise(L, src, "needs %d to 100000 points, got %lld", min, (long long)n);
    st_vec2 *p = (st_vec2 *)lua_newuserdatauv(L, (size_t)n * sizeof *p, 0); /* collected if we raise */
    sl_point_list(L, -2, n, src, p);
    *out = p;
    return (int)n;
}

/* world:add_obstacle{ pos = p, radius = r } | { polygon = {...} } | { polyline = {...} } */
int sl_world_add_obstacle(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    static const char *const keys[] = {"pos", "radius", "polygon", "polyline", NULL};
    const char *bad = sl_unknown_key(L, 2, keys);
    if (bad != NULL)
        return luaL_error(L, "bad argument #1 to 'add_obstacle' (unknown field '%s')", bad);
    bool circle = lua_getfield(L, 2, "radius") != LUA_TNIL;
    bool poly = lua_getfield(L, 2, "polygon") != LUA_TNIL;
    bool line = lua_getfield(L, 2, "polyline") != LUA_TNIL;
    lua_settop(L, 2);
    if (circle + poly + line != 1)
        return luaL_error(L, "bad argument #1 to 'add_obstacle' (give one of 'radius' (with 'pos'), 'polygon' or "
                             "'polyline')");
    int id;
    if (circle) {
        sl_src src = sl_field(2, "pos");
        if (lua_getfield(L, 2, "pos") == LUA_TNIL)
            sl_raise(L, &src, "a circle needs a centre");
        st_vec2 c = sl_point(L, -1, &src);
        src.field = "radius";
        lua_getfield(L, 2, "radius");
        double r = sl_number_min(L, -1, &src, 0.0, false);
        id = st_world_add_obstacle(sw->w, c, r);
    } else {
        const char *f = poly ? "polygon" : "polyline";
        sl_src src = sl_field(2, f);
        if (lua_getfield(L, 2, "pos") != LUA_TNIL) {
            src.field = "pos";
            sl_raise(L, &src, "a %s takes no 'pos' (its points place it)", f);
        }
        lua_getfield(L, 2, f);
        st_vec2 *pts;
        int n = check_points(L, &src, poly ? 3 : 2, &pts);
        id = st_world_add_polygon(sw->w, pts, n, poly);
    }
    if (id == 0)
        return luaL_error(L, "not enough memory");
    sl_push_obstacle(L, 1, sw, id);
    return 1;
}

/* world:add_tiles{ tiles = T [, tile = s, walkable = w, nav = g] } -> { steer.obstacle, ... }:
 * the blocked tiles as merged rectangles (the map's corner at the origin;
 * the same fields and defaults as world:navgrid{ tiles = ... }). With nav,
 * a tile navgrid of the same map: g:set_tile changes these walls too. */
int sl_world_add_tiles(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    static const char *const keys[] = {"tiles", "tile", "walkable", "nav", NULL};
    luaL_checktype(L, 2, LUA_TTABLE);
    const char *bad = sl_unknown_key(L, 2, keys);
    if (bad != NULL)
        return luaL_error(L, "bad argument #1 to 'add_tiles' (unknown field '%s')", bad);
    lua_settop(L, 2);
    int cols, rows;
    const uint8_t *tiles = sl_tiles(L, 2, &cols, &rows);
    sl_src src = sl_field(2, "tile");
    lua_getfield(L, 2, "tile");
    double fit = fmin(st_world_width(sw->w) / cols, st_world_height(sw->w) / rows);
    double tile = sl_optnumber_min(L, -1, &src, fit, 0.0);
    lua_pop(L, 1);
    if (!(tile > 0.0))
        sl_raise(L, &src, "must be > 0");
    if (lua_getfield(L, 2, "nav") != LUA_TNIL) {
        int nav = lua_gettop(L);
        const char *why = sl_nav_walls_check(L, nav, cols, rows);
        if (why != NULL) {
            src.field = "nav";
            sl_raise(L, &src, "%s", why);
        }
        st_tile_walls *tw = st_tile_walls_create(sw->w, tiles, cols, rows, tile);
        if (tw == NULL)
            return luaL_error(L, "not enough memory");
        sl_nav_set_walls(L, nav, tw);
        int n = st_tile_walls_count(tw);
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            sl_push_obstacle(L, 1, sw, st_tile_walls_id(tw, i));
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    lua_pop(L, 1);
    int first;
    int n = st_world_add_tiles(sw->w, tiles, cols, rows, tile, &first);
    if (n < 0)
        return luaL_error(L, "not enough memory");
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        sl_push_obstacle(L, 1, sw, first + i);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* world:remove_obstacle(o): an obstacle or the id world:obstacle returned */
int sl_world_remove_obstacle(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    int id;
    if (lua_isinteger(L, 2)) {
        id = (int)lua_tointeger(L, 2);
    } else {
        sl_obstacle *o = check_obstacle(L, 2);
        luaL_argcheck(L, o->sw == sw, 2, "obstacle belongs to another world");
        id = o->id;
    }
    if (!st_world_remove_obstacle(sw->w, id))
        return luaL_error(L, "attempt to remove a removed obstacle");
    return 0;
}

/* world:obstacles(): every obstacle, in the order added */
int sl_world_obstacles(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    int n = st_world_obstacle_count(sw->w);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        st_obstacle_info info;
        st_world_obstacle_get(sw->w, i, &info);
        sl_push_obstacle(L, 1, sw, info.id);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int obstacle_index(lua_State *L)
{
    sl_obstacle *o = check_obstacle(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "id") == 0) {
        lua_pushinteger(L, o->id);
        return 1;
    }
    if (strcmp(k, "kind") == 0) {
        lua_pushstring(L, kind_names[o->kind]);
        return 1;
    }
    if (strcmp(k, "alive") == 0) {
        lua_pushboolean(L, o->sw->w && st_world_obstacle_index(o->sw->w, o->id) >= 0);
        return 1;
    }
    bool pos = strcmp(k, "pos") == 0, radius = strcmp(k, "radius") == 0, points = strcmp(k, "points") == 0;
    if (!pos && !radius && !points)
        return luaL_error(L, "no field '%s' in steer.obstacle", k);
    st_obstacle_info info;
    st_world_obstacle_get(o->sw->w, live_index(L, o), &info);
    if (pos) {
        steer_lua_pushvec2(L, info.pos);
    } else if (radius) {
        lua_pushnumber(L, info.radius);
    } else {
        lua_createtable(L, info.point_count, 0);
        for (int i = 0; i < info.point_count; i++) {
            steer_lua_pushvec2(L, st_v2_add(info.pos, info.points[i]));
            lua_rawseti(L, -2, i + 1);
        }
    }
    return 1;
}

static int obstacle_newindex(lua_State *L)
{
    sl_obstacle *o = check_obstacle(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "pos") != 0) {
        if (!strcmp(k, "id") || !strcmp(k, "kind") || !strcmp(k, "alive") || !strcmp(k, "radius") ||
            !strcmp(k, "points"))
            return luaL_error(L, "field '%s' of steer.obstacle is read-only", k);
        return luaL_error(L, "no field '%s' in steer.obstacle", k);
    }
    live_index(L, o);
    sl_src src = sl_assign("pos");
    st_world_set_obstacle_pos(o->sw->w, o->id, sl_point(L, 3, &src));
    return 0;
}

static int obstacle_tostring(lua_State *L)
{
    sl_obstacle *o = check_obstacle(L, 1);
    bool alive = o->sw->w && st_world_obstacle_index(o->sw->w, o->id) >= 0;
    lua_pushfstring(L, "obstacle(%d, %s%s)", o->id, kind_names[o->kind], alive ? "" : ", removed");
    return 1;
}

void sl_open_obstacle(lua_State *L)
{
    static const luaL_Reg meta[] = {{"__tostring", obstacle_tostring}, {NULL, NULL}};
    static const sl_type t = {
        .name = SL_OBSTACLE, .key = &sl_key_obstacle, .meta = meta,
        .index = obstacle_index, .newindex = obstacle_newindex,
    };
    sl_newtype(L, &t);
    lua_pop(L, 1);
}
