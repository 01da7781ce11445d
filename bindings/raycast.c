/*
 * raycast.c — world:raycast(from, to [, opts]): the first thing on the
 * segment from -> to, against the world's real geometry (core: src/raycast.c).
 *
 * Returns nil, or { point, normal, fraction, distance, kind, and one of
 * obstacle (the steer.obstacle), wall (its id) or agent }. opts: obstacles,
 * walls (default true), agents (default false), tag (agents with that tag
 * only), ignore (an agent never hit).
 */
#include <string.h>

#include "bind.h"

static const char *const kind_names[] = {"none", "circle", "polygon", "polyline", "wall", "agent"};

#define OPTS 4 /* world:raycast(from, to, opts): opts is argument 4 */

static bool opt_bool(lua_State *L, const char *name, bool def)
{
    if (!sl_getfield(L, OPTS, name))
        return def;
    if (!lua_isboolean(L, -1)) {
        sl_src src = sl_field(OPTS, name);
        sl_raise_type(L, &src, -1, "boolean");
    }
    bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* The options table (argument OPTS, nil or none: the defaults) into o. */
static void parse_opts(lua_State *L, sl_world *sw, st_raycast_opts *o)
{
    static const char *const keys[] = {"obstacles", "walls", "agents", "tag", "ignore", NULL};
    if (lua_isnoneornil(L, OPTS))
        return;
    sl_src arg = sl_arg(OPTS);
    if (lua_type(L, OPTS) != LUA_TTABLE)
        sl_raise_type(L, &arg, OPTS, "table");
    const char *bad = sl_unknown_key(L, OPTS, keys);
    if (bad != NULL)
        sl_raise(L, &arg, "unknown raycast option '%s'", bad);
    o->obstacles = opt_bool(L, "obstacles", true);
    o->walls = opt_bool(L, "walls", true);
    o->agents = opt_bool(L, "agents", false);
    if (sl_getfield(L, OPTS, "tag")) {
        sl_src src = sl_field(OPTS, "tag");
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_raise_type(L, &src, -1, "string");
        o->tag = sl_tag_lookup_at(L, 1, -1); /* a name no agent was given: SL_TAG_UNKNOWN, nobody */
        lua_pop(L, 1);
    }
    if (sl_getfield(L, OPTS, "ignore")) {
        sl_src src = sl_field(OPTS, "ignore");
        sl_agent *a = sl_agent_at(L, -1);
        if (a == NULL)
            sl_raise_type(L, &src, -1, SL_AGENT);
        if (a->sw != sw)
            sl_raise(L, &src, "agent belongs to another world");
        o->ignore = a->id; /* a removed agent's id names nobody: nothing ignored */
        lua_pop(L, 1);
    }
}

static void set_vec2(lua_State *L, const char *name, st_vec2 v)
{
    steer_lua_pushvec2(L, v);
    lua_setfield(L, -2, name);
}

static void set_number(lua_State *L, const char *name, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, name);
}

/* world:raycast(from, to [, opts]) -> hit table | nil */
int sl_world_raycast(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    sl_src s2 = sl_arg(2), s3 = sl_arg(3);
    st_vec2 from = sl_point(L, 2, &s2); /* refuses non-finite coordinates */
    st_vec2 to = sl_point(L, 3, &s3);
    st_raycast_opts o = st_raycast_default();
    parse_opts(L, sw, &o);
    st_raycast_hit h;
    st_world_raycast_prepare(sw->w); /* out of memory: every shape is tested, same answer */
    if (!st_world_raycast(sw->w, from, to, &o, &h)) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 6);
    set_vec2(L, "point", h.point);
    set_vec2(L, "normal", h.normal);
    set_number(L, "fraction", h.fraction);
    set_number(L, "distance", h.distance);
    lua_pushstring(L, kind_names[h.kind]);
    lua_setfield(L, -2, "kind");
    if (h.kind == ST_RAY_WALL) {
        lua_pushinteger(L, h.wall);
        lua_setfield(L, -2, "wall");
    } else if (h.kind == ST_RAY_AGENT) {
        sl_pushagent(L, 1, h.agent);
        lua_setfield(L, -2, "agent");
    } else {
        sl_push_obstacle(L, 1, sw, h.obstacle);
        lua_setfield(L, -2, "obstacle");
    }
    return 1;
}
