/*
 * nav.c — steer.navgrid and steer.flowfield: world:navgrid{...},
 * nav:path, nav:visible, nav:blocked, nav:flow_field, field:dir.
 *
 * A navgrid reads its world at every query, so its userdata pins the world
 * (uservalue 1): the world lives as long as any grid made from it. A flow
 * field is a snapshot of plain data and needs nothing alive; a standing
 * follow_flow entry keeps its field alive through the agent's behaviour
 * list copy (as follow_path keeps its path).
 */
#include <string.h>

#include "bind.h"

#define SL_NAV "steer.navgrid"
#define SL_FIELD "steer.flowfield"

static const char sl_key_nav = 0, sl_key_field = 0;

typedef struct sl_nav {
    st_navgrid *g;   /* NULL once collected */
    sl_world *sw;    /* pinned by uservalue 1 */
    st_tile_walls *walls; /* world:add_tiles{ nav = this }: follow set_tile */
} sl_nav;

typedef struct sl_flow {
    st_flowfield *f;
} sl_flow;

static sl_nav *checknav(lua_State *L, int arg)
{
    sl_nav *n = (sl_nav *)sl_checkudata(L, arg, &sl_key_nav, SL_NAV);
    if (n->g == NULL || n->sw->w == NULL)
        luaL_error(L, "attempt to use a navgrid whose world is gone");
    return n;
}

static sl_flow *checkfield(lua_State *L, int arg)
{
    return (sl_flow *)sl_checkudata(L, arg, &sl_key_field, SL_FIELD);
}

const st_flowfield *sl_toflowfield(lua_State *L, int idx)
{
    sl_flow *f = (sl_flow *)sl_testudata(L, idx, &sl_key_field);
    return f ? f->f : NULL;
}

bool sl_isnavgrid(lua_State *L, int idx) { return sl_testudata(L, idx, &sl_key_nav) != NULL; }

st_navgrid *sl_tonavgrid(lua_State *L, int idx)
{
    sl_nav *n = (sl_nav *)sl_testudata(L, idx, &sl_key_nav);
    return n && n->sw->w ? n->g : NULL;
}

sl_world *sl_navgrid_world(lua_State *L, int idx)
{
    sl_nav *n = (sl_nav *)sl_testudata(L, idx, &sl_key_nav);
    return n ? n->sw : NULL;
}

const char *sl_nav_walls_check(lua_State *L, int idx, int cols, int rows)
{
    sl_nav *n = (sl_nav *)sl_testudata(L, idx, &sl_key_nav);
    if (n == NULL)
        return "steer.navgrid expected";
    if (n->g == NULL || n->sw->w == NULL)
        return "a navgrid whose world is gone";
    if (!st_navgrid_tiled(n->g) || st_navgrid_cols(n->g) != cols || st_navgrid_rows(n->g) != rows)
        return "a tile navgrid of the same map expected";
    if (n->walls != NULL)
        return "the navgrid's tiles have walls already";
    return NULL;
}

void sl_nav_set_walls(lua_State *L, int idx, st_tile_walls *tw)
{
    sl_nav *n = (sl_nav *)sl_testudata(L, idx, &sl_key_nav);
    n->walls = tw;
}

/// The tile fields of world:navgrid{tiles = ...} into def (the bytes stay
/// on the stack until the grid has copied them).
static void tile_def(lua_State *L, sl_world *sw, st_navgrid_def *def)
{
    sl_src src = sl_field(2, "cell");
    if (sl_getfield(L, 2, "cell"))
        sl_raise(L, &src, "not with 'tiles' (a tile grid's cells are its tiles: use 'tile')");
    def->tiles = sl_tiles(L, 2, &def->tile_cols, &def->tile_rows);
    double ww = st_world_width(sw->w), wh = st_world_height(sw->w);
    src.field = "tile";
    lua_getfield(L, 2, "tile");
    double fit = fmin(ww / def->tile_cols, wh / def->tile_rows); // default: the map fills the world
    def->cell = sl_optnumber_min(L, -1, &src, fit, 0.0);
    lua_pop(L, 1);
    if (!(def->cell > 0.0)) sl_raise(L, &src, "must be > 0");
    if (def->tile_cols * def->cell > ww * (1 + 1e-12) || def->tile_rows * def->cell > wh * (1 + 1e-12)) {
        src.field = "tiles";
        sl_raise(L, &src, "the map (%d x %d tiles of %g) is larger than the world (%g x %g)", def->tile_cols,
                 def->tile_rows, def->cell, ww, wh);
    }
    def->clearance = 0.0;
}

/* world:navgrid([{ cell = 10, clearance = 6 }])
 * world:navgrid{ tiles = T [, tile = s, walkable = w, clearance = 0] } */
int sl_world_navgrid(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    st_navgrid_def def = st_default_navgrid_def();
    if (!lua_isnoneornil(L, 2)) {
        static const char *const keys[] = {"cell", "clearance", "tiles", "tile", "walkable", NULL};
        luaL_checktype(L, 2, LUA_TTABLE);
        const char *bad = sl_unknown_key(L, 2, keys);
        if (bad != NULL)
            return luaL_error(L, "bad argument #1 to 'navgrid' (unknown field '%s')", bad);
        lua_settop(L, 2);
        if (sl_getfield(L, 2, "tiles")) {
            lua_pop(L, 1);
            tile_def(L, sw, &def); // the bytes at 3
        } else {
            sl_src w = sl_field(2, "tile");
            if (sl_getfield(L, 2, "tile")) sl_raise(L, &w, "only with 'tiles'");
            w.field = "walkable";
            if (sl_getfield(L, 2, "walkable")) sl_raise(L, &w, "only with 'tiles'");
            sl_src src = sl_field(2, "cell");
            lua_getfield(L, 2, "cell");
            def.cell = sl_optnumber_min(L, -1, &src, def.cell, 0.0);
            if (!(def.cell > 0.0))
                sl_raise(L, &src, "must be > 0");
            lua_pop(L, 1);
            double cells = ceil(st_world_width(sw->w) / def.cell) * ceil(st_world_height(sw->w) / def.cell);
            if (!(cells <= ST_NAV_MAX_CELLS))
                sl_raise(L, &src, "too small for this world (more than %d cells)", ST_NAV_MAX_CELLS);
        }
        sl_src src = sl_field(2, "clearance");
        lua_getfield(L, 2, "clearance");
        def.clearance = sl_optnumber_min(L, -1, &src, def.clearance, 0.0);
        lua_pop(L, 1);
    }
    sl_nav *n = (sl_nav *)lua_newuserdatauv(L, sizeof *n, 1);
    n->g = NULL;
    n->sw = sw;
    n->walls = NULL;
    sl_setmetatable(L, &sl_key_nav);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    n->g = st_navgrid_create(sw->w, &def);
    if (n->g == NULL) {
        sl_collect(L);
        n->g = st_navgrid_create(sw->w, &def);
    }
    if (n->g == NULL)
        return luaL_error(L, "not enough memory");
    sl_move_set_default_nav(L, 1, -1, true); /* the world's first grid: orders plan on it */
    return 1;
}

static int nav_gc(lua_State *L)
{
    sl_nav *n = (sl_nav *)sl_checkudata(L, 1, &sl_key_nav, SL_NAV);
    if (n->sw->w != NULL) /* a world finalized first took the grid's memory with it */
        st_navgrid_destroy(n->g);
    n->g = NULL;
    st_tile_walls_destroy(n->walls); /* its obstacles stay the world's */
    n->walls = NULL;
    return 0;
}

/// The agent radius of an options table at arg ({ radius = r }): the
/// grid's clearance when absent; raises when the grid cannot plan for it.
static double agent_radius(lua_State *L, sl_nav *n, int arg, const char *fn)
{
    static const char *const keys[] = {"radius", NULL};
    const char *bad = sl_unknown_key(L, arg, keys);
    if (bad != NULL)
        luaL_error(L, "bad argument #%d to '%s' (unknown field '%s')", arg - 1, fn, bad);
    sl_src src = sl_field(arg, "radius");
    lua_getfield(L, arg, "radius");
    double r = sl_optnumber_min(L, -1, &src, st_navgrid_clearance(n->g), 0.0);
    lua_pop(L, 1);
    double cell = st_navgrid_cell(n->g);
    if (!st_navgrid_tiled(n->g) && r > st_navgrid_clearance(n->g))
        sl_raise(L, &src, "more than the grid's clearance (%g); one grid for every radius needs tiles",
                 st_navgrid_clearance(n->g));
    if (st_navgrid_tiled(n->g) && r > 31.0 * cell)
        sl_raise(L, &src, "at most 31 tiles (%g)", 31.0 * cell);
    return r;
}

/* The links the grid's last path takes, marked in path p (the userdata at
 * idx) and kept in its uservalue: segment index (1-based) -> link table. */
static void path_links(lua_State *L, sl_nav *n, st_path *p, int idx)
{
    if (st_navgrid_link_count(n->g) == 0)
        return;
    lua_getiuservalue(L, 1, 1); /* the world */
    sl_push_uvtable(L, -1, SL_WUV_LINKS);
    lua_newtable(L);
    for (int i = 0; i + 1 < st_path_count(p); i++) {
        int id = st_navgrid_path_link(n->g, i);
        if (id == 0)
            continue;
        if (!st_path_set_link(p, i, id))
            luaL_error(L, "not enough memory");
        lua_rawgeti(L, -2, id);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setiuservalue(L, idx, 1);
    lua_pop(L, 2);
}

/* nav:link(a, b [, { both = false, cost = |b - a|, kind = "jump" }]) -> link:
 * a table { id, from, to, both, cost, kind } the paths of this grid may
 * take; the brains of agents that reach it get traverse_link(self, a, link) */
static int nav_link(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    st_vec2 a = steer_lua_checkpoint(L, 2);
    st_vec2 b = steer_lua_checkpoint(L, 3);
    st_nav_link_def def = st_default_nav_link_def();
    const char *kind = NULL;
    if (!lua_isnoneornil(L, 4)) {
        static const char *const keys[] = {"both", "cost", "kind", NULL};
        luaL_checktype(L, 4, LUA_TTABLE);
        const char *bad = sl_unknown_key(L, 4, keys);
        if (bad != NULL)
            return luaL_error(L, "bad argument #3 to 'link' (unknown field '%s')", bad);
        sl_src src = sl_field(4, "both");
        int ty = lua_getfield(L, 4, "both");
        if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
            sl_raise_type(L, &src, -1, "boolean");
        def.both = lua_toboolean(L, -1);
        src.field = "cost";
        lua_getfield(L, 4, "cost");
        if (!lua_isnil(L, -1))
            def.cost = sl_number_min(L, -1, &src, 0.0, false);
        src.field = "kind";
        ty = lua_getfield(L, 4, "kind");
        if (ty != LUA_TNIL && ty != LUA_TSTRING)
            sl_raise_type(L, &src, -1, "string");
        kind = lua_tostring(L, -1);
        lua_pop(L, 3);
        lua_settop(L, 4);
    }
    bool tiled = st_navgrid_tiled(n->g);
    double w = tiled ? st_navgrid_cols(n->g) * st_navgrid_cell(n->g) : st_world_width(n->sw->w);
    double h = tiled ? st_navgrid_rows(n->g) * st_navgrid_cell(n->g) : st_world_height(n->sw->w);
    for (int k = 0; k < 2; k++) {
        st_vec2 p = k ? b : a;
        luaL_argcheck(L, p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h, 2 + k,
                      lua_pushfstring(L, "outside the grid's %s (%f x %f)", tiled ? "map" : "world", w, h));
    }
    int id = st_navgrid_link(n->g, a, b, &def);
    if (id <= 0)
        return luaL_error(L, "not enough memory");
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, id);
    lua_setfield(L, -2, "id");
    steer_lua_pushvec2(L, a);
    lua_setfield(L, -2, "from");
    steer_lua_pushvec2(L, b);
    lua_setfield(L, -2, "to");
    lua_pushboolean(L, def.both);
    lua_setfield(L, -2, "both");
    lua_pushnumber(L, def.cost < 0.0 ? st_v2_dist(a, b) : def.cost);
    lua_setfield(L, -2, "cost");
    if (kind != NULL) {
        lua_pushstring(L, kind);
        lua_setfield(L, -2, "kind");
    }
    lua_getiuservalue(L, 1, 1);
    sl_push_uvtable(L, -1, SL_WUV_LINKS);
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, id);
    lua_pop(L, 2);
    return 1;
}

/* nav:unlink(link) -> whether this grid had it (link: nav:link's table or id) */
static int nav_unlink(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    lua_Integer id;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "id");
        int isint;
        id = lua_tointegerx(L, -1, &isint);
        luaL_argcheck(L, isint, 2, "a link (a table with an integer id)");
    } else {
        id = luaL_checkinteger(L, 2);
    }
    bool had = id > 0 && id <= INT32_MAX && st_navgrid_unlink(n->g, (int)id);
    lua_pushboolean(L, had);
    return 1;
}

/* nav:path(from, to [, radius | { radius = r }]) -> steer.path | nil, reason
 * A number is the path's waypoint radius (as ever); a table plans for an
 * agent of that radius. */
static int nav_path(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    st_vec2 from = steer_lua_checkpoint(L, 2);
    st_vec2 to = steer_lua_checkpoint(L, 3);
    double radius = st_navgrid_cell(n->g), agent = st_navgrid_clearance(n->g);
    if (lua_istable(L, 4)) {
        agent = agent_radius(L, n, 4, "path");
    } else if (!lua_isnoneornil(L, 4)) {
        sl_src src = sl_arg(4);
        radius = sl_number_min(L, 4, &src, 0.0, true);
    }
    const st_vec2 *pts;
    int count;
    st_nav_result r = st_navgrid_path_radius(n->g, from, to, agent, &pts, &count);
    if (r == ST_NAV_NO_MEMORY)
        return luaL_error(L, "not enough memory");
    if (r != ST_NAV_OK) {
        lua_pushnil(L);
        lua_pushstring(L, st_nav_result_name(r));
        return 2;
    }
    sl_path *p = (sl_path *)lua_newuserdatauv(L, sizeof *p, 1);
    p->p = NULL;
    sl_setmetatable(L, &sl_key_path);
    p->p = st_path_create_in(sl_mem(L), pts, count, false, radius);
    if (p->p == NULL)
        return luaL_error(L, "not enough memory");
    path_links(L, n, p->p, lua_gettop(L));
    return 1;
}

static int nav_visible(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    st_vec2 a = steer_lua_checkpoint(L, 2);
    st_vec2 b = steer_lua_checkpoint(L, 3);
    lua_pushboolean(L, st_navgrid_visible(n->g, a, b));
    return 1;
}

/* nav:blocked(p) or nav:blocked(cx, cy) with integer cell coordinates (0-based) */
static int nav_blocked(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer cx = luaL_checkinteger(L, 2), cy = luaL_checkinteger(L, 3);
        st_navgrid_update(n->g);
        bool in = cx >= 0 && cy >= 0 && cx < st_navgrid_cols(n->g) && cy < st_navgrid_rows(n->g);
        lua_pushboolean(L, !in || st_navgrid_blocked(n->g, (int)cx, (int)cy));
        return 1;
    }
    lua_pushboolean(L, st_navgrid_blocked_at(n->g, steer_lua_checkpoint(L, 2)));
    return 1;
}

/* nav:set_tile(x, y, blocked): tile (x, y) from 0 of a tile grid */
static int nav_set_tile(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    if (!st_navgrid_tiled(n->g))
        return luaL_error(L, "set_tile needs a tile navgrid (world:navgrid{ tiles = ... })");
    lua_Integer x = luaL_checkinteger(L, 2), y = luaL_checkinteger(L, 3);
    luaL_checktype(L, 4, LUA_TBOOLEAN);
    int cols = st_navgrid_cols(n->g), rows = st_navgrid_rows(n->g);
    luaL_argcheck(L, x >= 0 && x < cols, 2, lua_pushfstring(L, "must be in 0..%d", cols - 1));
    luaL_argcheck(L, y >= 0 && y < rows, 3, lua_pushfstring(L, "must be in 0..%d", rows - 1));
    st_navgrid_set_tile(n->g, (int)x, (int)y, lua_toboolean(L, 4));
    if (n->walls != NULL && !st_tile_walls_set(n->walls, (int)x, (int)y, lua_toboolean(L, 4)))
        return luaL_error(L, "not enough memory");
    return 0;
}

static int nav_update(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    int r = st_navgrid_update(n->g);
    if (r < 0)
        return luaL_error(L, "not enough memory");
    lua_pushinteger(L, r);
    return 1;
}

/* nav:cells() -> array of {x, y} centres of the blocked cells (for drawing) */
static int nav_cells(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    st_navgrid_update(n->g);
    int cols = st_navgrid_cols(n->g), rows = st_navgrid_rows(n->g);
    double c = st_navgrid_cell(n->g);
    lua_newtable(L);
    int k = 0;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            if (st_navgrid_blocked(n->g, x, y)) {
                steer_lua_pushvec2(L, st_v2((x + 0.5) * c, (y + 0.5) * c));
                lua_rawseti(L, -2, ++k);
            }
    return 1;
}

/* nav:flow_field(goal [, { radius = r }]) -> steer.flowfield | nil, reason */
static int nav_flow_field(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    st_vec2 goal = steer_lua_checkpoint(L, 2);
    double agent = st_navgrid_clearance(n->g);
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        agent = agent_radius(L, n, 3, "flow_field");
    }
    sl_flow *f = (sl_flow *)lua_newuserdatauv(L, sizeof *f, 0);
    f->f = NULL;
    sl_setmetatable(L, &sl_key_field);
    st_nav_result why;
    f->f = st_flowfield_create_radius(n->g, goal, agent, &why);
    if (f->f == NULL && why == ST_NAV_NO_MEMORY) {
        sl_collect(L);
        f->f = st_flowfield_create_radius(n->g, goal, agent, &why);
    }
    if (f->f == NULL) {
        if (why == ST_NAV_NO_MEMORY)
            return luaL_error(L, "not enough memory");
        lua_pushnil(L);
        lua_pushstring(L, st_nav_result_name(why));
        return 2;
    }
    return 1;
}

static int nav_index(lua_State *L)
{
    sl_nav *n = checknav(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "cell") == 0) lua_pushnumber(L, st_navgrid_cell(n->g));
    else if (strcmp(k, "clearance") == 0) lua_pushnumber(L, st_navgrid_clearance(n->g));
    else if (strcmp(k, "cols") == 0) lua_pushinteger(L, st_navgrid_cols(n->g));
    else if (strcmp(k, "rows") == 0) lua_pushinteger(L, st_navgrid_rows(n->g));
    else if (strcmp(k, "tiled") == 0) lua_pushboolean(L, st_navgrid_tiled(n->g));
    else if (strcmp(k, "snap_radius") == 0) lua_pushnumber(L, st_navgrid_snap_radius(n->g));
    else if (lua_getfield(L, lua_upvalueindex(1), k) == LUA_TNIL)
        return luaL_error(L, "no field '%s' in steer.navgrid", k);
    return 1;
}

static int nav_newindex(lua_State *L)
{
    return luaL_error(L, "steer.navgrid is read-only (cannot assign field '%s')", luaL_tolstring(L, 2, NULL));
}

static int nav_tostring(lua_State *L)
{
    sl_nav *n = (sl_nav *)sl_checkudata(L, 1, &sl_key_nav, SL_NAV);
    if (n->g == NULL) {
        lua_pushliteral(L, "navgrid(collected)");
        return 1;
    }
    lua_pushfstring(L, "navgrid(%dx%d cells of %f, clearance %f)", st_navgrid_cols(n->g), st_navgrid_rows(n->g),
                    st_navgrid_cell(n->g), st_navgrid_clearance(n->g));
    return 1;
}

/* ---- steer.flowfield ---- */

static int field_gc(lua_State *L)
{
    sl_flow *f = checkfield(L, 1);
    st_flowfield_destroy(f->f);
    f->f = NULL;
    return 0;
}

static int field_dir(lua_State *L)
{
    sl_flow *f = checkfield(L, 1);
    steer_lua_pushvec2(L, st_flowfield_dir(f->f, steer_lua_checkpoint(L, 2)));
    return 1;
}

static int field_distance(lua_State *L)
{
    sl_flow *f = checkfield(L, 1);
    double d = st_flowfield_distance(f->f, steer_lua_checkpoint(L, 2));
    if (isfinite(d))
        lua_pushnumber(L, d);
    else
        lua_pushnil(L);
    return 1;
}

static int field_index(lua_State *L)
{
    sl_flow *f = checkfield(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "goal") == 0) steer_lua_pushvec2(L, st_flowfield_goal(f->f));
    else if (strcmp(k, "cell") == 0) lua_pushnumber(L, st_flowfield_cell(f->f));
    else if (strcmp(k, "cols") == 0) lua_pushinteger(L, st_flowfield_cols(f->f));
    else if (strcmp(k, "rows") == 0) lua_pushinteger(L, st_flowfield_rows(f->f));
    else if (lua_getfield(L, lua_upvalueindex(1), k) == LUA_TNIL)
        return luaL_error(L, "no field '%s' in steer.flowfield", k);
    return 1;
}

static int field_newindex(lua_State *L)
{
    return luaL_error(L, "steer.flowfield is read-only (cannot assign field '%s')", luaL_tolstring(L, 2, NULL));
}

static int field_tostring(lua_State *L)
{
    sl_flow *f = checkfield(L, 1);
    st_vec2 g = st_flowfield_goal(f->f);
    lua_pushfstring(L, "flowfield(to %f, %f)", g.x, g.y);
    return 1;
}

void sl_open_nav(lua_State *L)
{
    static const luaL_Reg nav_meta[] = {{"__gc", nav_gc}, {"__tostring", nav_tostring}, {NULL, NULL}};
    static const luaL_Reg nav_methods[] = {
        {"path", nav_path},     {"visible", nav_visible},       {"blocked", nav_blocked},
        {"update", nav_update}, {"flow_field", nav_flow_field}, {"cells", nav_cells},
        {"set_tile", nav_set_tile}, {"link", nav_link},      {"unlink", nav_unlink},
        {NULL, NULL},
    };
    static const luaL_Reg field_meta[] = {{"__gc", field_gc}, {"__tostring", field_tostring}, {NULL, NULL}};
    static const luaL_Reg field_methods[] = {
        {"dir", field_dir},
        {"distance", field_distance},
        {NULL, NULL},
    };
    static const sl_type nav = {
        .name = SL_NAV, .key = &sl_key_nav, .meta = nav_meta, .methods = nav_methods,
        .index = nav_index, .newindex = nav_newindex,
    };
    static const sl_type field = {
        .name = SL_FIELD, .key = &sl_key_field, .meta = field_meta, .methods = field_methods,
        .index = field_index, .newindex = field_newindex,
    };
    sl_newtype(L, &nav);
    sl_newtype(L, &field);
    lua_pop(L, 2);
}
