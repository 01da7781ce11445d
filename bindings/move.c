/*
 * move.c — orders from Lua: agent:move_to, agent:stop_moving,
 * agent:move_route, world:move_group, world:group_slots, the world's
 * default navgrid and path budget, and the brain callbacks arrived and
 * move_failed (called at the start of the step the mover reported them).
 *
 * An order keeps its navgrid alive: the grid's userdata goes into the
 * world's table of grids in use (SL_WUV_NAVS), which also holds the
 * default grid under "default".
 */
#include <string.h>

#include "bind.h"

/* Pushes the world's grid table, making it on first need. */
static void push_navs(lua_State *L, int world_idx)
{
    world_idx = lua_absindex(L, world_idx);
    if (lua_getiuservalue(L, world_idx, SL_WUV_NAVS) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, world_idx, SL_WUV_NAVS);
}

void sl_move_push_default_nav(lua_State *L, int world_idx)
{
    push_navs(L, world_idx);
    lua_getfield(L, -1, "default");
    lua_remove(L, -2);
}

void sl_move_set_default_nav(lua_State *L, int world_idx, int nav_idx, bool only_if_none)
{
    nav_idx = lua_absindex(L, nav_idx);
    push_navs(L, world_idx);
    if (only_if_none && lua_getfield(L, -1, "default") != LUA_TNIL) {
        lua_pop(L, 2);
        return;
    }
    if (only_if_none)
        lua_pop(L, 1);
    lua_pushvalue(L, nav_idx);
    lua_setfield(L, -2, "default");
    lua_pop(L, 1);
}

/* The grid for an order: opts.nav, else the world's default; pinned. */
static st_navgrid *order_nav(lua_State *L, int world_idx, sl_world *sw, int opts)
{
    int top = lua_gettop(L);
    if (opts == 0 || lua_getfield(L, opts, "nav") == LUA_TNIL) {
        if (opts)
            lua_pop(L, 1);
        sl_move_push_default_nav(L, world_idx);
        if (lua_isnil(L, -1))
            luaL_error(L, "no navgrid to plan on (pass opts.nav, or make one with world:navgrid)");
    }
    sl_src src = sl_field(opts, "nav");
    st_navgrid *g = sl_tonavgrid(L, -1);
    if (!g)
        sl_raise_type(L, &src, -1, "steer.navgrid");
    if (sl_navgrid_world(L, -1) != sw)
        sl_raise(L, &src, "belongs to another world");
    push_navs(L, world_idx);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_settop(L, top);
    return g;
}

static const char *const move_keys[] = {"nav", "stop_distance", "speed", "slowing", "radius",
                                        "stuck_time", "retries", NULL};

/* The order's options (table at opts, or 0) into d. */
static void move_opts(lua_State *L, int opts, st_move_def *d)
{
    if (!opts)
        return;
    d->stop_distance = sl_field_min(L, opts, "stop_distance", d->stop_distance, 0.0, false);
    d->speed = sl_field_min(L, opts, "speed", d->speed, 0.0, true);
    d->slowing = sl_field_min(L, opts, "slowing", d->slowing, 0.0, false);
    d->radius = sl_field_min(L, opts, "radius", d->radius, 0.0, false);
    d->stuck_time = sl_field_min(L, opts, "stuck_time", d->stuck_time, 0.0, true);
    double r = sl_field_min(L, opts, "retries", d->retries, 0.0, false);
    if (r != floor(r) || r > 1000) {
        sl_src src = sl_field(opts, "retries");
        sl_raise(L, &src, "must be a whole number in [0, 1000]");
    }
    d->retries = (int)r;
}

static int opts_table(lua_State *L, int arg, const char *const *keys)
{
    if (lua_isnoneornil(L, arg))
        return 0;
    luaL_checktype(L, arg, LUA_TTABLE);
    const char *bad = sl_unknown_key(L, arg, keys);
    if (bad)
        luaL_error(L, "bad argument #%d (unknown option '%s')", arg, bad);
    return arg;
}

/* agent:move_to(goal [, opts]) */
int sl_agent_move_to(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    sl_src src = sl_arg(2);
    st_vec2 goal = sl_point(L, 2, &src);
    int opts = opts_table(L, 3, move_keys);
    lua_getiuservalue(L, 1, SL_AUV_WORLD);
    int world_idx = lua_gettop(L);
    st_move_def d = st_default_move_def();
    d.nav = order_nav(L, world_idx, a->sw, opts);
    move_opts(L, opts, &d);
    if (!st_agent_move_to(a->sw->w, a->id, goal, &d))
        return luaL_error(L, "not enough memory");
    return 0;
}

int sl_agent_stop_moving(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    st_agent_stop_moving(a->sw->w, a->id);
    return 0;
}

/* agent:move_route() -> { points }, index of the waypoint it heads for */
int sl_agent_move_route(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    const st_vec2 *p;
    int next, n = st_agent_move_route(a->sw->w, a->id, &p, &next);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        sl_pushvec2_checked(L, p[i]);
        lua_rawseti(L, -2, i + 1);
    }
    if (n == 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, next + 1);
    return 2;
}

void sl_move_push_field(lua_State *L, sl_agent *a, int which)
{
    const st_world *w = a->sw->w;
    st_vec2 g;
    int slot;
    switch (which) {
    case SL_MOVE_STATE: lua_pushstring(L, st_move_state_name(st_agent_move_state(w, a->id))); break;
    case SL_MOVE_REMAINING: {
        double r = st_agent_move_remaining(w, a->id);
        if (r != r)
            lua_pushnil(L);
        else
            lua_pushnumber(L, r);
        break;
    }
    case SL_MOVE_GOAL:
        if (st_agent_move_goal(w, a->id, &g))
            sl_pushvec2_checked(L, g);
        else
            lua_pushnil(L);
        break;
    case SL_MOVE_GROUP: {
        int h = st_agent_move_group(w, a->id, &slot);
        if (h > 0)
            lua_pushinteger(L, h);
        else
            lua_pushnil(L);
        break;
    }
    default:
        st_agent_move_group(w, a->id, &slot);
        if (slot >= 0)
            lua_pushinteger(L, slot + 1);
        else
            lua_pushnil(L);
        break;
    }
}

static const char *const group_keys[] = {"nav", "stop_distance", "speed", "slowing", "radius", "stuck_time",
                                         "retries", "spacing", "pattern", "facing", NULL};

/* world:move_group(agents, goal [, opts]) -> group */
int sl_world_move_group(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    sl_src src = sl_arg(3);
    st_vec2 goal = sl_point(L, 3, &src);
    int opts = opts_table(L, 4, group_keys);
    st_group_def d = st_default_group_def();
    d.move.nav = order_nav(L, 1, sw, opts);
    move_opts(L, opts, &d.move);
    if (opts) {
        d.spacing = sl_field_min(L, opts, "spacing", 0.0, 0.0, false);
        static const char *const patterns[] = {"block", "line", "column", NULL};
        src = sl_field(opts, "pattern");
        if (sl_getfield(L, opts, "pattern")) {
            d.pattern = (st_group_pattern)sl_option(L, -1, &src, patterns);
            lua_pop(L, 1);
        }
        src.field = "facing";
        if (sl_getfield(L, opts, "facing")) {
            d.facing = sl_point(L, -1, &src);
            if (d.facing.x == 0.0 && d.facing.y == 0.0)
                sl_raise(L, &src, "must be a non-zero vector");
            lua_pop(L, 1);
        }
    }
    lua_Integer n = luaL_len(L, 2);
    if (n > INT32_MAX / 2)
        return luaL_error(L, "bad argument #2 to 'move_group' (too many agents)");
    sl_scratch_reserve(L, sw, (int)n);
    for (lua_Integer k = 1; k <= n; k++) {
        lua_rawgeti(L, 2, k);
        sl_agent *a = sl_toagent(L, -1);
        if (!a)
            return luaL_error(L, "bad argument #2 to 'move_group' (steer.agent expected at [%d], got %s)",
                              (int)k, luaL_typename(L, -1));
        if (a->sw != sw)
            return luaL_error(L, "bad argument #2 to 'move_group' (agent [%d] belongs to another world)", (int)k);
        sw->scratch[k - 1] = a->id;
        lua_pop(L, 1);
    }
    int h = st_world_move_group(sw->w, sw->scratch, (int)n, goal, &d);
    if (h < 0)
        return luaL_error(L, "not enough memory");
    if (h == 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, h);
    return 1;
}

/* world:group_slots(group) -> { {pos, taken}... } inner first */
int sl_world_group_slots(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    lua_Integer h = luaL_checkinteger(L, 2);
    const st_vec2 *s;
    const uint8_t *taken;
    int n = h > 0 && h <= INT32_MAX ? st_world_group_slots(sw->w, (int)h, &s, &taken) : 0;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 2);
        sl_pushvec2_checked(L, s[i]);
        lua_setfield(L, -2, "pos");
        lua_pushboolean(L, taken[i]);
        lua_setfield(L, -2, "taken");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const char *reason_name(const st_move_event *e)
{
    if (e->kind == ST_MOVE_EVENT_STUCK)
        return "stuck";
    return st_nav_result_name(e->reason);
}

/* Calls brain.arrived / brain.move_failed for the mover's events of this
 * step. world_idx absolute. */
void sl_move_events(lua_State *L, int world_idx, sl_world *sw)
{
    const st_move_event *ev;
    int n = st_world_move_events(sw->w, &ev);
    for (int k = 0; k < n; k++) {
        st_move_event e = ev[k]; /* a callback may order again: copy first */
        sl_pushagent(L, world_idx, e.id);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            continue;
        }
        int agent = lua_gettop(L);
        if (e.kind == ST_MOVE_EVENT_ARRIVED) {
            sl_call_brain(L, world_idx, agent, "arrived", 0);
        } else {
            lua_pushstring(L, reason_name(&e));
            sl_call_brain(L, world_idx, agent, "move_failed", 1);
        }
        lua_settop(L, agent - 1);
    }
}
