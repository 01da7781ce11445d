/*
 * avoid.c — the agent's avoidance fields (avoidance, avoid_*, locked), shared
 * by world:spawn and by field reads and assignments.
 *
 * A field set to nil goes back to its default; range and horizons default to
 * "automatic" (worked out from the agent each step), and reading them gives
 * the value the next step will use.
 */
#include "bind.h"

const char *const sl_avoid_fields[SL_AVOID_FIELDS + 1] = {
    "avoidance", "avoid_range", "avoid_max_neighbors", "avoid_horizon", "avoid_horizon_obstacles",
    "avoid_priority", "avoid_layer", "avoid_mask", "locked", NULL,
};

enum { AV_MODE, AV_RANGE, AV_MAX_NEIGHBORS, AV_HORIZON, AV_HORIZON_OBSTACLES, AV_PRIORITY, AV_LAYER, AV_MASK, AV_LOCKED };

static uint32_t check_bits(lua_State *L, int idx, const sl_src *src)
{
    if (!lua_isinteger(L, idx)) {
        if (lua_type(L, idx) != LUA_TNUMBER)
            sl_raise_type(L, src, idx, "integer");
        sl_raise(L, src, "bit set must be an integer");
    }
    lua_Integer v = lua_tointeger(L, idx);
    if (v < 0 || v > (lua_Integer)UINT32_MAX)
        sl_raise(L, src, "bit set must be in [0, 0xFFFFFFFF]");
    return (uint32_t)v;
}

void sl_avoid_set_field(lua_State *L, st_avoid_def *d, int k, int idx, const sl_src *src)
{
    const st_avoid_def def = st_default_avoid_def();
    bool nil = lua_isnil(L, idx);
    switch (k) {
    case AV_MODE:
        if (nil) {
            d->mode = def.mode;
        } else {
            static const char *const modes[] = {"none", "orca", NULL};
            d->mode = sl_option(L, idx, src, modes) == 1 ? ST_AVOIDANCE_ORCA : ST_AVOIDANCE_NONE;
        }
        break;
    case AV_RANGE: d->range = nil ? def.range : sl_number_min(L, idx, src, 0.0, false); break;
    case AV_HORIZON: d->horizon = nil ? def.horizon : sl_number_min(L, idx, src, 0.0, true); break;
    case AV_HORIZON_OBSTACLES:
        d->horizon_obstacles = nil ? def.horizon_obstacles : sl_number_min(L, idx, src, 0.0, true);
        break;
    case AV_PRIORITY: d->priority = nil ? def.priority : sl_number_min(L, idx, src, 0.0, false); break;
    case AV_MAX_NEIGHBORS:
        if (nil) {
            d->max_neighbors = def.max_neighbors;
        } else {
            if (!lua_isinteger(L, idx)) {
                if (lua_type(L, idx) != LUA_TNUMBER)
                    sl_raise_type(L, src, idx, "integer");
                sl_raise(L, src, "must be an integer");
            }
            lua_Integer v = lua_tointeger(L, idx);
            if (v < 0 || v > ST_AVOID_MAX_NEIGHBORS_CAP)
                sl_raise(L, src, "must be in [0, %d]", ST_AVOID_MAX_NEIGHBORS_CAP);
            d->max_neighbors = (int)v;
        }
        break;
    case AV_LAYER: d->layer = nil ? def.layer : check_bits(L, idx, src); break;
    case AV_MASK: d->mask = nil ? def.mask : check_bits(L, idx, src); break;
    case AV_LOCKED:
        if (!nil && lua_type(L, idx) != LUA_TBOOLEAN)
            sl_raise_type(L, src, idx, "boolean");
        d->locked = !nil && lua_toboolean(L, idx);
        break;
    default: break;
    }
}

void sl_avoid_push_field(lua_State *L, st_world *w, st_agent_id id, int k)
{
    st_avoid_def d;
    st_agent_avoidance(w, id, &d, true);
    switch (k) {
    case AV_MODE: lua_pushstring(L, d.mode == ST_AVOIDANCE_ORCA ? "orca" : "none"); break;
    case AV_RANGE: lua_pushnumber(L, d.range); break;
    case AV_MAX_NEIGHBORS: lua_pushinteger(L, d.max_neighbors); break;
    case AV_HORIZON: lua_pushnumber(L, d.horizon); break;
    case AV_HORIZON_OBSTACLES: lua_pushnumber(L, d.horizon_obstacles); break;
    case AV_PRIORITY: lua_pushnumber(L, d.priority); break;
    case AV_LAYER: lua_pushinteger(L, (lua_Integer)d.layer); break;
    case AV_MASK: lua_pushinteger(L, (lua_Integer)d.mask); break;
    case AV_LOCKED: lua_pushboolean(L, d.locked); break;
    default: lua_pushnil(L); break;
    }
}

void sl_avoid_assign(lua_State *L, st_world *w, st_agent_id id, int k, int idx, const sl_src *src)
{
    st_avoid_def d;
    st_agent_avoidance(w, id, &d, false);
    sl_avoid_set_field(L, &d, k, idx, src);
    if (!st_agent_set_avoidance(w, id, &d))
        luaL_error(L, "not enough memory");
}

bool sl_avoid_parse_def(lua_State *L, int def_idx, st_avoid_def *d)
{
    bool any = false;
    *d = st_default_avoid_def();
    for (int k = 0; k < SL_AVOID_FIELDS; k++) {
        if (lua_getfield(L, def_idx, sl_avoid_fields[k]) != LUA_TNIL) {
            sl_src src = sl_field(def_idx, sl_avoid_fields[k]);
            sl_avoid_set_field(L, d, k, -1, &src);
            any = true;
        }
        lua_pop(L, 1);
    }
    return any;
}
