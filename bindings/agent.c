/*
 * agent.c — steer.agent: one userdata per agent, its fields and its
 * steering methods, plus world:spawn and world:remove (they parse and keep
 * the same fields as the agent's assignments). The behaviour methods are
 * the rows of one table, BEHAVIOR_METHODS.
 *
 * The userdata names its agent by handle; after world:remove it stays a
 * valid userdata that says so ("attempt to use a removed agent"), as a
 * closed file does in liolib. Field reads and method calls are the brains'
 * hot path: one rawget in a name -> code table, then a switch.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"
#include "slots.h"

static const char *const combine_names[] = {"sum", "priority", NULL};

sl_agent *sl_toagent(lua_State *L, int idx)
{
    return sl_agent_at(L, idx);
}

sl_agent *sl_checkagent(lua_State *L, int arg)
{
    sl_agent *a = sl_agent_at(L, arg);
    if (a == NULL)
        luaL_typeerror(L, arg, SL_AGENT);
    if (a->removed)
        luaL_error(L, "attempt to use a removed agent");
    return a;
}

void sl_pushself(lua_State *L, int agent_idx)
{
    sl_push_uvtable(L, agent_idx, SL_AUV_SELF);
}

void steer_lua_pushself(lua_State *L, int world_idx, st_agent_id id)
{
    world_idx = lua_absindex(L, world_idx);
    sl_checkworld(L, world_idx);
    sl_pushagent(L, world_idx, id);
    if (lua_isnil(L, -1))
        return;
    sl_pushself(L, lua_gettop(L));
    lua_remove(L, -2);
}

bool steer_lua_toagent(lua_State *L, int idx, st_world **w, st_agent_id *id)
{
    sl_agent *a = sl_toagent(L, idx);
    if (a == NULL || a->removed || a->sw->w == NULL)
        return false;
    if (w != NULL)
        *w = a->sw->w;
    if (id != NULL)
        *id = a->id;
    return true;
}

/* ---- values shared by spawn and field assignment ---- */

static void check_color(lua_State *L, int idx, const sl_src *src, uint8_t rgb[3])
{
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, src, idx, "table {r, g, b}");
    idx = lua_absindex(L, idx);
    for (int i = 0; i < 3; i++) {
        lua_geti(L, idx, i + 1);
        int isint;
        lua_Integer c = lua_tointegerx(L, -1, &isint);
        if (lua_type(L, -1) != LUA_TNUMBER || !isint || c < 0 || c > 255)
            sl_raise(L, src, "color[%d] must be an integer in 0..255", i + 1);
        rgb[i] = (uint8_t)c;
        lua_pop(L, 1);
    }
}

static st_combine check_combine(lua_State *L, int idx, const sl_src *src)
{
    return (st_combine)sl_option(L, idx, src, combine_names);
}

static int32_t check_tag(lua_State *L, int idx, const sl_src *src, int world_idx, sl_world *sw)
{
    if (lua_isnil(L, idx))
        return ST_TAG_NONE;
    if (lua_type(L, idx) != LUA_TSTRING)
        sl_raise_type(L, src, idx, "string or nil");
    return sl_tag_intern(L, world_idx, sw, lua_tostring(L, idx));
}

/* turn_rate: >= 0 rad/s, math.huge for unlimited */
static double check_turn_rate(lua_State *L, int idx, const sl_src *src)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        sl_raise_type(L, src, idx, "number");
    double d = lua_tonumber(L, idx);
    if (!(d >= 0.0))
        sl_raise(L, src, "must be >= 0 (math.huge: unlimited)");
    return d;
}

/* ---- world:spawn ---- */

static const char *const spawn_fields[] = {
    "pos", "vel", "heading", "max_speed", "max_force", "mass", "radius", "tag", "color",
    "combine", "wander_distance", "wander_radius", "wander_jitter", "behaviors", "brain",
    "turn_rate", NULL,
};

static bool is_spawn_field(lua_State *L, int key_idx)
{
    if (lua_type(L, key_idx) != LUA_TSTRING)
        return false;
    const char *k = lua_tostring(L, key_idx);
    for (int i = 0; spawn_fields[i] != NULL; i++)
        if (strcmp(k, spawn_fields[i]) == 0)
            return true;
    for (int i = 0; sl_avoid_fields[i] != NULL; i++)
        if (strcmp(k, sl_avoid_fields[i]) == 0)
            return true;
    return false;
}

/* The def's (arg 2) pos, vel and heading. */
static void parse_spawn_motion(lua_State *L, st_agent_def *def)
{
    sl_src src;
    if (sl_getfield(L, 2, "pos")) {
        src = sl_field(2, "pos");
        def->pos = sl_point(L, -1, &src);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "vel")) {
        src = sl_field(2, "vel");
        def->vel = sl_point(L, -1, &src);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "heading")) {
        src = sl_field(2, "heading");
        st_vec2 h = sl_point(L, -1, &src);
        if (h.x == 0.0 && h.y == 0.0)
            sl_raise(L, &src, "must be a non-zero vector");
        /* a tiny or huge h whose |h|^2 under/overflows would normalise to
         * zero here: the core normalises those safely */
        double l2 = st_v2_len2(h);
        def->heading = l2 > 1e-290 && l2 < INFINITY ? st_v2_normalize(h) : h;
        def->has_heading = true;
        lua_pop(L, 1);
    }
}

/* The def's limits, body and wander circle (distance, radius, jitter). */
static void parse_spawn_numbers(lua_State *L, st_agent_def *def, double wander[3])
{
    def->max_speed = sl_field_min(L, 2, "max_speed", def->max_speed, 0.0, false);
    def->max_force = sl_field_min(L, 2, "max_force", def->max_force, 0.0, false);
    def->mass = sl_field_min(L, 2, "mass", def->mass, 0.0, true);
    def->radius = sl_field_min(L, 2, "radius", def->radius, 0.0, false);
    wander[0] = sl_field_min(L, 2, "wander_distance", ST_WANDER_DISTANCE, 0.0, false);
    wander[1] = sl_field_min(L, 2, "wander_radius", ST_WANDER_RADIUS, 0.0, false);
    wander[2] = sl_field_min(L, 2, "wander_jitter", ST_WANDER_JITTER, 0.0, false);
}

/* The def's color, combine, tag (interned in the world at 1) and turn_rate. */
static void parse_spawn_traits(lua_State *L, sl_world *sw, st_agent_def *def)
{
    sl_src src;
    if (sl_getfield(L, 2, "color")) {
        src = sl_field(2, "color");
        check_color(L, -1, &src, def->color);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "combine")) {
        src = sl_field(2, "combine");
        def->combine = check_combine(L, -1, &src);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "tag")) {
        src = sl_field(2, "tag");
        def->tag = check_tag(L, -1, &src, 1, sw);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "turn_rate")) {
        src = sl_field(2, "turn_rate");
        def->turn_rate = check_turn_rate(L, -1, &src);
        lua_pop(L, 1);
    }
}

/* Pushes the def's behaviour array (3) and its normalised copy (4), or two
 * nils; returns the number of behaviours. */
static int push_spawn_behaviors(lua_State *L, sl_world *sw, st_behavior **list)
{
    *list = NULL;
    if (!sl_getfield(L, 2, "behaviors")) {
        lua_pushnil(L);
        lua_pushnil(L);
        return 0;
    }
    sl_src src = sl_field(2, "behaviors");
    int nb = sl_behaviors_parse(L, 3, 1, sw, &src, list);
    lua_remove(L, 3);
    return nb;
}

/* Pushes the def's brain (5): a module table, the table a module name
 * requires, or nil. */
static void push_spawn_brain(lua_State *L)
{
    if (!sl_getfield(L, 2, "brain")) {
        lua_pushnil(L);
        return;
    }
    sl_src src = sl_field(2, "brain");
    if (lua_type(L, 5) == LUA_TSTRING) {
        lua_getglobal(L, "require");
        lua_pushvalue(L, 5);
        lua_call(L, 1, 1);
        if (lua_type(L, -1) != LUA_TTABLE)
            sl_raise(L, &src, "module '%s' did not return a table", lua_tostring(L, 5));
        lua_replace(L, 5);
    } else if (lua_type(L, 5) != LUA_TTABLE) {
        sl_raise_type(L, &src, 5, "module name or table");
    }
}

/* What spawn gives the core besides the agent def. */
typedef struct spawn_extras {
    const st_behavior *list;
    int nb;
    double wander[3];
    const st_avoid_def *avoid; /* NULL: the defaults */
    bool brain;
} spawn_extras;

/* The agent in the core, all of it or nothing: raises (the world as it
 * was) when out of memory. */
static st_agent_id spawn_in_core(lua_State *L, sl_world *sw, const st_agent_def *def, const spawn_extras *x)
{
    if (x->brain) /* room first: once spawned, nothing may fail */
        sl_brain_list_add(L, sw, st_null_agent());
    st_agent_id id = st_world_spawn(sw->w, def);
    if (x->brain)
        sw->brain_list[sw->brain_count - 1] = id; /* a null id is skipped as dead */
    bool ok = !st_id_is_null(id) && (x->nb == 0 || st_agent_set_behaviors(sw->w, id, x->list, x->nb));
    if (ok) {
        st_agent_set_wander(sw->w, id, x->wander[0], x->wander[1], x->wander[2]);
        ok = x->avoid == NULL || st_agent_set_avoidance(sw->w, id, x->avoid);
    }
    if (!ok) {
        if (!st_id_is_null(id))
            st_world_remove(sw->w, id);
        if (x->brain)
            sw->brain_dead++;
        luaL_error(L, "not enough memory (cannot spawn the agent)");
    }
    return id;
}

/* Pushes the new agent's userdata (6), the one of its slot from now on,
 * holding the world (1), the behaviour copy (4) and the brain (5). */
static void push_spawned(lua_State *L, sl_world *sw, st_agent_id id, bool brain)
{
    sl_agent *a = (sl_agent *)lua_newuserdatauv(L, sizeof *a, SL_AUV_COUNT);
    sl_agent_init(a, sw, id, st_agent_serial(sw->w, id), false, brain);
    sl_setmetatable(L, &sl_key_agent);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 6, SL_AUV_WORLD);
    lua_pushvalue(L, 4);
    lua_setiuservalue(L, 6, SL_AUV_BEHAVIORS);
    lua_pushvalue(L, 5);
    lua_setiuservalue(L, 6, SL_AUV_BRAIN);
    lua_getiuservalue(L, 1, SL_WUV_AGENTS);
    lua_pushvalue(L, 6);
    lua_rawseti(L, -2, (lua_Integer)id.index + 1);
    lua_pop(L, 1);
    sl_slots_set(sw, a);
    if (brain)
        sw->brains++;
}

/* Every field of the def that spawn does not know seeds the brain's state
 * (self) of the agent at 6; an agent with a brain always has one. */
static void seed_self(lua_State *L, bool brain)
{
    if (brain) {
        sl_pushself(L, 6);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (!is_spawn_field(L, -2)) {
            sl_pushself(L, 6);
            lua_pushvalue(L, -3);
            lua_pushvalue(L, -3);
            lua_rawset(L, -3);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* world:spawn{ pos, vel, heading, max_speed, ..., behaviors, brain, <state> } */
int sl_world_spawn(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_newtable(L);
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);

    /* everything is checked before the world changes: a bad field spawns nothing */
    st_agent_def def = st_default_agent_def();
    spawn_extras x;
    parse_spawn_motion(L, &def);
    parse_spawn_numbers(L, &def, x.wander);
    parse_spawn_traits(L, sw, &def);
    st_avoid_def avoid;
    x.avoid = sl_avoid_parse_def(L, 2, &avoid) ? &avoid : NULL;
    st_behavior *list;
    x.nb = push_spawn_behaviors(L, sw, &list); /* 3, 4 */
    x.list = list;
    push_spawn_brain(L); /* 5 */
    x.brain = !lua_isnil(L, 5);

    st_agent_id id = spawn_in_core(L, sw, &def, &x);
    push_spawned(L, sw, id, x.brain); /* 6 */
    seed_self(L, x.brain);
    if (x.brain)
        sl_brain_spawn(L, 6);
    lua_settop(L, 6);
    return 1;
}

int sl_world_remove(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    sl_agent *a = (sl_agent *)sl_checkudata(L, 2, &sl_key_agent, SL_AGENT);
    luaL_argcheck(L, a->sw == sw, 2, "agent belongs to another world");
    if (a->removed)
        return luaL_error(L, "attempt to use a removed agent");
    st_world_remove(sw->w, a->id);
    a->removed = true;
    if (a->paused)
        sw->paused--;
    if (a->has_brain) {
        sw->brains--;
        sw->brain_dead++;
    }
    a->paused = false;
    lua_getiuservalue(L, 1, SL_WUV_AGENTS);
    lua_pushnil(L);
    lua_rawseti(L, -2, (lua_Integer)a->id.index + 1);
    lua_pop(L, 1);
    sl_slots_clear(sw, a->id);
    if (sw->stepping) {
        /* the brain pass may still need this userdata (to route an error of
         * the update that removed it): keep it until the pass ends */
        sl_push_uvtable(L, 1, SL_WUV_REMOVED);
        lua_pushvalue(L, 2);
        lua_rawsetp(L, -2, a);
        lua_pop(L, 1);
    }
    /* drop what only a live agent needs; id and alive stay readable */
    for (int uv = SL_AUV_SELF; uv <= SL_AUV_COUNT; uv++) {
        lua_pushnil(L);
        lua_setiuservalue(L, 2, uv);
    }
    return 0;
}

/* ---- fields ---- */

enum {
    AF_POS = 1, AF_VEL, AF_HEADING, AF_SIDE, AF_SPEED, AF_FORCE, AF_MAX_SPEED, AF_MAX_FORCE,
    AF_MASS, AF_RADIUS, AF_TAG, AF_COLOR, AF_COMBINE, AF_WANDER_DISTANCE, AF_WANDER_RADIUS,
    AF_WANDER_JITTER, AF_ID, AF_ALIVE, AF_WORLD, AF_SELF, AF_BEHAVIORS,
    AF_TURN_RATE, AF_PATH_INDEX,
    AF_MOVE_STATE, AF_MOVE_REMAINING, AF_MOVE_GOAL, AF_MOVE_GROUP, AF_MOVE_SLOT,
    AF_THINK_EVERY, AF_THINK_AGE, /* think.c */
    AF_AVOID = 32, /* AF_AVOID + k: sl_avoid_fields[k] */
    AF_READONLY = 64 /* flag: assigning raises */
};

static const sl_code agent_fields[] = {
    {"pos", AF_POS},
    {"vel", AF_VEL},
    {"heading", AF_HEADING | AF_READONLY},
    {"side", AF_SIDE | AF_READONLY},
    {"speed", AF_SPEED | AF_READONLY},
    {"force", AF_FORCE | AF_READONLY},
    {"max_speed", AF_MAX_SPEED},
    {"max_force", AF_MAX_FORCE},
    {"mass", AF_MASS},
    {"radius", AF_RADIUS},
    {"tag", AF_TAG},
    {"color", AF_COLOR},
    {"combine", AF_COMBINE},
    {"wander_distance", AF_WANDER_DISTANCE},
    {"wander_radius", AF_WANDER_RADIUS},
    {"wander_jitter", AF_WANDER_JITTER},
    {"id", AF_ID | AF_READONLY},
    {"alive", AF_ALIVE | AF_READONLY},
    {"world", AF_WORLD | AF_READONLY},
    {"self", AF_SELF | AF_READONLY},
    {"behaviors", AF_BEHAVIORS},
    {"turn_rate", AF_TURN_RATE},
    {"move_state", AF_MOVE_STATE | AF_READONLY},
    {"move_remaining", AF_MOVE_REMAINING | AF_READONLY},
    {"move_goal", AF_MOVE_GOAL | AF_READONLY},
    {"move_group", AF_MOVE_GROUP | AF_READONLY},
    {"move_slot", AF_MOVE_SLOT | AF_READONLY},
    {"path_index", AF_PATH_INDEX},
    {"think_every", AF_THINK_EVERY},
    {"think_age", AF_THINK_AGE | AF_READONLY},
    {NULL, 0},
};

/* A copy of the stored behaviour list: entries are fresh tables, so
 * editing what a read returned never changes the agent behind its back. */
static void push_behaviors_copy(lua_State *L, int agent_idx)
{
    if (lua_getiuservalue(L, agent_idx, SL_AUV_BEHAVIORS) != LUA_TTABLE)
        return; /* nil */
    int src = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, src);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, src, i);
        lua_createtable(L, 1, 4);
        lua_pushnil(L);
        while (lua_next(L, -3)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }
        lua_rawseti(L, -3, i);
        lua_pop(L, 1);
    }
    lua_remove(L, src);
}

/* A vector field read: steer_lua_pushvec2 with the metatable from upvalue 3. */
static void push_field_vec2(lua_State *L, st_vec2 v)
{
    st_vec2 *u = (st_vec2 *)lua_newuserdatauv(L, sizeof *u, 0);
    *u = v;
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_setmetatable(L, -2);
}

/* upvalue 1: name -> method or field code; 2: the vec2 metatable; 3: the
 * key cache; 4: its methods (bind.h) */
static int agent_index(lua_State *L)
{
    /* Methods first: handing out a method touches no agent, so the type
     * check (__index can be called by hand with any value) is paid only by
     * field reads. */
    sl_keycache *kc = (sl_keycache *)lua_touserdata(L, lua_upvalueindex(3));
    int code = sl_keycache_find(L, kc, 2, lua_upvalueindex(1), lua_upvalueindex(4));
    if (code < 0)
        return 1; /* a method, or nil */
    sl_agent *a = sl_agent_at(L, 1);
    if (a == NULL)
        return luaL_typeerror(L, 1, SL_AGENT);
    code &= ~AF_READONLY;
    if (code == AF_ID) {
        lua_pushinteger(L, (lua_Integer)a->serial);
        return 1;
    }
    if (code == AF_ALIVE) {
        lua_pushboolean(L, !a->removed);
        return 1;
    }
    if (a->removed)
        return luaL_error(L, "attempt to use a removed agent");
    st_world *w = a->sw->w;
    st_agent_id id = a->id;
    switch (code) {
    case AF_POS: push_field_vec2(L, st_agent_pos(w, id)); break;
    case AF_VEL: push_field_vec2(L, st_agent_vel(w, id)); break;
    case AF_HEADING: push_field_vec2(L, st_agent_heading(w, id)); break;
    case AF_SIDE: push_field_vec2(L, st_agent_side(w, id)); break;
    case AF_SPEED: lua_pushnumber(L, st_agent_speed(w, id)); break;
    case AF_FORCE: push_field_vec2(L, st_agent_force(w, id)); break;
    case AF_MAX_SPEED: lua_pushnumber(L, st_agent_max_speed(w, id)); break;
    case AF_MAX_FORCE: lua_pushnumber(L, st_agent_max_force(w, id)); break;
    case AF_MASS: lua_pushnumber(L, st_agent_mass(w, id)); break;
    case AF_RADIUS: lua_pushnumber(L, st_agent_radius(w, id)); break;
    case AF_TAG:
        lua_getiuservalue(L, 1, SL_AUV_WORLD);
        sl_tag_push(L, lua_gettop(L), st_agent_tag(w, id));
        break;
    case AF_COLOR: {
        uint8_t rgb[3];
        st_agent_color(w, id, rgb);
        lua_createtable(L, 3, 0);
        for (int i = 0; i < 3; i++) {
            lua_pushinteger(L, rgb[i]);
            lua_rawseti(L, -2, i + 1);
        }
        break;
    }
    case AF_COMBINE: lua_pushstring(L, combine_names[st_agent_combine(w, id)]); break;
    case AF_WANDER_DISTANCE: lua_pushnumber(L, st_agent_wander_distance(w, id)); break;
    case AF_WANDER_RADIUS: lua_pushnumber(L, st_agent_wander_radius(w, id)); break;
    case AF_WANDER_JITTER: lua_pushnumber(L, st_agent_wander_jitter(w, id)); break;
    case AF_WORLD: lua_getiuservalue(L, 1, SL_AUV_WORLD); break;
    case AF_SELF: sl_pushself(L, 1); break;
    case AF_BEHAVIORS: push_behaviors_copy(L, 1); break;
    case AF_TURN_RATE: lua_pushnumber(L, st_agent_turn_rate(w, id)); break;
    case AF_MOVE_STATE: sl_move_push_field(L, a, SL_MOVE_STATE); break;
    case AF_THINK_EVERY: sl_think_push_field(L, a, false); break;
    case AF_THINK_AGE: sl_think_push_field(L, a, true); break;
    case AF_MOVE_REMAINING: sl_move_push_field(L, a, SL_MOVE_REMAINING); break;
    case AF_MOVE_GOAL: sl_move_push_field(L, a, SL_MOVE_GOAL); break;
    case AF_MOVE_GROUP: sl_move_push_field(L, a, SL_MOVE_GROUP); break;
    case AF_MOVE_SLOT: sl_move_push_field(L, a, SL_MOVE_SLOT); break;
    case AF_PATH_INDEX: sl_push_path_index(L, w, id); break;
    default:
        if (code >= AF_AVOID && code < AF_AVOID + SL_AVOID_FIELDS)
            sl_avoid_push_field(L, w, id, code - AF_AVOID);
        else
            lua_pushnil(L);
        break;
    }
    return 1;
}

static int agent_newindex(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    lua_settop(L, 3);
    lua_pushvalue(L, 2);
    int ty = lua_rawget(L, lua_upvalueindex(1)); /* 4 */
    if (ty != LUA_TNUMBER) {
        const char *k = luaL_tolstring(L, 2, NULL);
        if (ty != LUA_TNIL)
            return luaL_error(L, "cannot assign to method '%s' of steer.agent", k);
        return luaL_error(L, "no field '%s' in steer.agent (keep brain state in agent.self)", k);
    }
    int code = (int)lua_tointeger(L, 4);
    const char *k = lua_tostring(L, 2);
    if (code & AF_READONLY)
        return luaL_error(L, "field '%s' of steer.agent is read-only", k);
    st_world *w = a->sw->w;
    st_agent_id id = a->id;
    sl_src src = sl_assign(k);
    switch (code) {
    case AF_POS: st_agent_set_pos(w, id, sl_point(L, 3, &src)); break;
    case AF_THINK_EVERY: sl_think_assign(L, a, 3, &src); break;
    case AF_VEL: st_agent_set_vel(w, id, sl_point(L, 3, &src)); break;
    case AF_MAX_SPEED: st_agent_set_max_speed(w, id, sl_number_min(L, 3, &src, 0.0, false)); break;
    case AF_MAX_FORCE: st_agent_set_max_force(w, id, sl_number_min(L, 3, &src, 0.0, false)); break;
    case AF_MASS: st_agent_set_mass(w, id, sl_number_min(L, 3, &src, 0.0, true)); break;
    case AF_RADIUS: st_agent_set_radius(w, id, sl_number_min(L, 3, &src, 0.0, false)); break;
    case AF_TAG:
        lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 5 */
        st_agent_set_tag(w, id, check_tag(L, 3, &src, 5, a->sw));
        break;
    case AF_COLOR: {
        uint8_t rgb[3];
        check_color(L, 3, &src, rgb);
        st_agent_set_color(w, id, rgb);
        break;
    }
    case AF_COMBINE: st_agent_set_combine(w, id, check_combine(L, 3, &src)); break;
    case AF_WANDER_DISTANCE:
    case AF_WANDER_RADIUS:
    case AF_WANDER_JITTER: {
        double v = sl_number_min(L, 3, &src, 0.0, false);
        double d = st_agent_wander_distance(w, id);
        double r = st_agent_wander_radius(w, id);
        double j = st_agent_wander_jitter(w, id);
        if (code == AF_WANDER_DISTANCE) d = v;
        else if (code == AF_WANDER_RADIUS) r = v;
        else j = v;
        st_agent_set_wander(w, id, d, r, j);
        break;
    }
    case AF_BEHAVIORS:
        if (lua_isnil(L, 3)) {
            st_agent_set_behaviors(w, id, NULL, 0);
            lua_pushnil(L);
        } else {
            lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 5 */
            st_behavior *list;
            int n = sl_behaviors_parse(L, 3, 5, a->sw, &src, &list);
            if (!st_agent_set_behaviors(w, id, list, n))
                return luaL_error(L, "not enough memory");
        }
        lua_setiuservalue(L, 1, SL_AUV_BEHAVIORS);
        break;
    case AF_TURN_RATE:
        if (!st_agent_set_turn_rate(w, id, check_turn_rate(L, 3, &src)))
            return luaL_error(L, "not enough memory");
        break;
    case AF_PATH_INDEX: sl_set_path_index(L, w, id, 3, &src); break;
    default:
        if (code >= AF_AVOID && code < AF_AVOID + SL_AVOID_FIELDS) {
            sl_avoid_assign(L, w, id, code - AF_AVOID, 3, &src);
            break;
        }
        return luaL_error(L, "field '%s' of steer.agent is read-only", k);
    }
    return 0;
}

static int agent_tostring(lua_State *L)
{
    sl_agent *a = (sl_agent *)sl_checkudata(L, 1, &sl_key_agent, SL_AGENT);
    char id[24]; /* not %I: Lua 5.1's lua_pushfstring has no integers */
    snprintf(id, sizeof id, "%llu", (unsigned long long)a->serial);
    lua_pushfstring(L, a->removed ? "agent(%s, removed)" : "agent(%s)", id);
    return 1;
}

/* ---- steering methods: each returns its unweighted force ---- */

/* The methods are closures over the vec2 metatable: a behaviour method's
 * result takes it from the upvalue, not from the registry. */
#define UV_VEC2_MT lua_upvalueindex(1)

/* steer_lua_pushvec2 with the metatable from the upvalue. */
static void push_result(lua_State *L, st_vec2 v)
{
    st_vec2 *u = (st_vec2 *)lua_newuserdatauv(L, sizeof *u, 0);
    *u = v;
    lua_pushvalue(L, UV_VEC2_MT);
    lua_setmetatable(L, -2);
}

static int push_steer(lua_State *L, sl_agent *a, const st_behavior *b)
{
    push_result(L, st_agent_steer(a->sw->w, a->id, b));
    return 1;
}

/* A behaviour method's target argument (arg <= top: see method_arg). */
static st_target target_arg(lua_State *L, int arg, int top, sl_agent *a, bool agent_only)
{
    /* a live agent of this world, the usual target; anything else takes
     * the general path */
    sl_agent *o = sl_agent_at(L, arg);
    if (o != NULL && !o->removed && o->sw == a->sw)
        return st_target_agent(o->id);
    lua_settop(L, top);
    sl_src src = sl_arg(arg);
    return sl_target(L, arg, &src, a->sw, agent_only);
}

typedef st_vec2 (*list_fn)(st_world *, st_agent_id, const st_agent_id *, int, double);

/* separate / align / cohere over an explicit array of agents. Removed
 * agents are skipped: a list from world:neighbors may outlive some of them. */
static int list_behavior(lua_State *L, list_fn fn, int base, bool quiet)
{
    sl_agent *a = sl_checkagent(L, 1);
    luaL_checktype(L, base, LUA_TTABLE);
    double weight = sl_optfinite(L, base + 1, 1.0);
    sl_world *sw = a->sw;
    lua_Integer n = luaL_len(L, base);
    luaL_argcheck(L, n >= 0 && n <= (1 << 28), base, "list too long");
    sl_scratch_reserve(L, sw, (int)n);
    int k = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, base, i);
        sl_agent *o = sl_toagent(L, -1);
        if (o == NULL) {
            char ctx[32];
            snprintf(ctx, sizeof ctx, "[%lld]", (long long)i);
            sl_src src = {base, NULL, NULL, ctx};
            sl_raise_type(L, &src, -1, SL_AGENT);
        }
        if (!o->removed) {
            luaL_argcheck(L, o->sw == sw, base, "agent of another world in the list");
            sw->scratch[k++] = o->id;
        }
        lua_pop(L, 1);
    }
    int before = st_world_requests(sw->w);
    st_vec2 f = fn(sw->w, a->id, sw->scratch, k, weight);
    if (!sw->stepping)
        sl_check_kept(L, sw, before);
    if (quiet)
        return 0;
    push_result(L, f);
    return 1;
}

static int agent_separate(lua_State *L) { return list_behavior(L, st_agent_separate_list, 2, false); }
static int agent_align(lua_State *L) { return list_behavior(L, st_agent_align_list, 2, false); }
static int agent_cohere(lua_State *L) { return list_behavior(L, st_agent_cohere_list, 2, false); }
/* agent:steer's forms (base 3: the name is argument 2) */
static int steer_separate(lua_State *L) { return list_behavior(L, st_agent_separate_list, 3, true); }
static int steer_align(lua_State *L) { return list_behavior(L, st_agent_align_list, 3, true); }
static int steer_cohere(lua_State *L) { return list_behavior(L, st_agent_cohere_list, 3, true); }

static int agent_apply(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    st_vec2 f = steer_lua_checkpoint(L, 2);
    double weight = sl_optfinite(L, 3, 1.0);
    int before = st_world_requests(a->sw->w);
    st_agent_apply(a->sw->w, a->id, f, weight);
    if (!a->sw->stepping)
        sl_check_kept(L, a->sw, before);
    return 0;
}

/* a:render_pos([alpha]) -> where to draw it, alpha (0..1, default 1) of the
 * way through its last step (world:advance's second result) */
static int agent_render_pos(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    double alpha = 1.0;
    if (!lua_isnoneornil(L, 2)) {
        sl_src src = sl_arg(2);
        alpha = sl_number_min(L, 2, &src, 0.0, false);
        luaL_argcheck(L, alpha <= 1.0, 2, "must be in [0, 1]");
    }
    push_result(L, st_agent_render_pos(a->sw->w, a->id, alpha));
    return 1;
}

/* ---- the behaviour methods, from one table ---- */

/* What a behaviour method takes after self, argument by argument. Each
 * reads its argument into the behaviour, starting from the world's copy
 * of st_default_behavior; a missing optional one keeps that default. */
enum {
    MA_END,
    MA_TARGET, /* a point or an agent of this world -> target */
    MA_AGENT,  /* an agent of this world -> target */
    MA_AGENT2, /* an agent of this world -> target2 */
    MA_LEADER, /* an agent of this world other than self -> target */
    MA_RADIUS, /* optional, >= 0 -> radius */
    MA_TIME,   /* optional, >= 0 -> predict (match_velocity's time to target) */
    MA_DECEL,  /* optional "slow" | "normal" | "fast" -> decel */
    MA_OFFSET, /* a point -> offset */
    MA_FIELD,  /* a steer.flowfield -> field */
    MA_PATH,   /* a steer.path -> path; the agent keeps the userdata alive */
    MA_RECT,   /* optional rectangle -> rect; a non-table is the next argument */
    MA_OPTS,   /* optional options table (method_def.opts); a non-table is the next argument */
    MA_FLOCK,  /* optional flock options, which may carry the weight */
    MA_WEIGHT, /* optional finite number -> weight (default 1, or the options' weight) */
};

typedef struct method_def {
    const char *name;
    st_behavior_type type;
    bool force;               /* returns the force; else (the facing) steers and returns nothing */
    const char *const *opts;  /* MA_OPTS: its keys, in the order they are read */
    unsigned char args[4];    /* MA_*, in argument order; MA_END (0) ends them */
} method_def;

static const char *const follow_path_opts[] = {"mode", "predict", "offset", "weight", NULL};
static const char *const follow_leader_opts[] = {"distance", "zone", "weight", NULL};
static const char *const queue_opts[] = {"distance", "weight", "tag", NULL};
static const char *const graze_opts[] = {"rest", "bout", "pace", "weight", NULL};

/* The behaviour methods, a line each: the method (and behaviour) name, its
 * core type, whether it returns the force, its options' keys, and what it
 * takes after self (docs/API.md gives each one's arguments). Each row
 * becomes a method_def and a C function agent_<name>, for which
 * behavior_method is specialised: the row's reads cost what a hand-written
 * body's would, which matters on the brains' per-agent path. */
#define BEHAVIOR_METHODS(X)                                                              \
    X(seek, ST_SEEK, true, NULL, MA_TARGET, MA_WEIGHT)                                   \
    X(flee, ST_FLEE, true, NULL, MA_TARGET, MA_RADIUS, MA_WEIGHT)                        \
    X(arrive, ST_ARRIVE, true, NULL, MA_TARGET, MA_RADIUS, MA_WEIGHT, MA_DECEL)          \
    X(pursue, ST_PURSUE, true, NULL, MA_AGENT, MA_WEIGHT)                                \
    X(evade, ST_EVADE, true, NULL, MA_AGENT, MA_RADIUS, MA_WEIGHT)                       \
    X(intercept, ST_INTERCEPT, true, NULL, MA_AGENT, MA_WEIGHT)                          \
    X(wander, ST_WANDER, true, NULL, MA_WEIGHT)                                          \
    X(flock, ST_FLOCK, true, NULL, MA_FLOCK, MA_WEIGHT)                                  \
    X(avoid_obstacles, ST_AVOID_OBSTACLES, true, NULL, MA_WEIGHT)                        \
    X(avoid_walls, ST_AVOID_WALLS, true, NULL, MA_WEIGHT)                                \
    X(avoid_agents, ST_AVOID_AGENTS, true, NULL, MA_WEIGHT)                              \
    X(contain, ST_CONTAIN, true, NULL, MA_RECT, MA_WEIGHT)                               \
    X(follow_path, ST_FOLLOW_PATH, true, follow_path_opts, MA_PATH, MA_OPTS, MA_WEIGHT) \
    X(offset_pursue, ST_OFFSET_PURSUE, true, NULL, MA_AGENT, MA_OFFSET, MA_WEIGHT)       \
    X(interpose, ST_INTERPOSE, true, NULL, MA_AGENT, MA_AGENT2, MA_WEIGHT)               \
    X(hide, ST_HIDE, true, NULL, MA_AGENT, MA_WEIGHT)                                    \
    X(follow_flow, ST_FOLLOW_FLOW, true, NULL, MA_FIELD, MA_WEIGHT)                      \
    X(face, ST_FACE, false, NULL, MA_TARGET)                                             \
    X(look_where_going, ST_LOOK_WHERE_GOING, false, NULL, MA_END)                        \
    X(match_velocity, ST_MATCH_VELOCITY, true, NULL, MA_TARGET, MA_TIME, MA_WEIGHT)      \
    X(follow_leader, ST_FOLLOW_LEADER, true, follow_leader_opts, MA_LEADER, MA_OPTS, MA_WEIGHT) \
    X(queue, ST_QUEUE, true, queue_opts, MA_OPTS, MA_WEIGHT)                             \
    X(stop, ST_STOP, true, NULL, MA_WEIGHT)                                              \
    X(graze, ST_GRAZE, true, graze_opts, MA_OPTS, MA_WEIGHT)

/* Option `key` of the options table at idx, pushed on top, into b.
 * "offset" is follow_path's distance along the path, as in its entries. */
static void method_opt(lua_State *L, int idx, const char *key, st_behavior *b)
{
    sl_src src = sl_field(idx, key);
    if (strcmp(key, "weight") == 0) {
        b->weight = sl_number(L, -1, &src);
    } else if (strcmp(key, "mode") == 0) {
        b->path_mode = sl_path_mode(L, -1, &src);
    } else if (strcmp(key, "tag") == 0) {
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_raise_type(L, &src, -1, "string");
        int str = lua_gettop(L);
        lua_getiuservalue(L, 1, SL_AUV_WORLD);
        b->flock.tag = sl_tag_lookup_at(L, str + 1, str);
        lua_settop(L, str);
    } else if (strcmp(key, "rest") == 0 || strcmp(key, "bout") == 0 || strcmp(key, "pace") == 0) {
        sl_graze_field(L, -1, &src, key, b);
    } else {
        double d = sl_number_min(L, -1, &src, 0.0, false);
        if (strcmp(key, "predict") == 0)
            b->predict = d;
        else if (strcmp(key, "zone") == 0)
            b->zone = d;
        else /* "distance", "offset" */
            b->ahead = d;
    }
}

/* The options table at idx: every key must be one of d->opts; each read in turn. */
static void method_opts(lua_State *L, int idx, const method_def *d, st_behavior *b)
{
    const char *bad = sl_unknown_key(L, idx, d->opts);
    if (bad != NULL) {
        sl_src src = sl_arg(idx);
        sl_raise(L, &src, "unknown %s option '%s'", d->name, bad);
    }
    for (int i = 0; d->opts[i] != NULL; i++) {
        if (sl_getfield(L, idx, d->opts[i])) {
            method_opt(L, idx, d->opts[i], b);
            lua_pop(L, 1);
        }
    }
}

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* Reads argument `arg` as `kind` into b; returns the next argument's index.
 * *path_arg: where a path was read. top: the number of arguments. Values
 * above top (behavior_self's and target_arg's metatables) are not
 * arguments: an argument past top is none, known without asking Lua (an
 * optional one keeps its default), and the kinds that read the stack more
 * freely first put the top back. */
static ALWAYS_INLINE int method_arg(lua_State *L, sl_agent *a, const method_def *d, int kind, int arg, int top,
                                    st_behavior *b, int *path_arg)
{
    sl_src src = sl_arg(arg);
    switch (kind) {
    case MA_END: return arg;
    case MA_RADIUS:
        if (arg <= top)
            b->radius = sl_optnonneg(L, arg, b->radius);
        return arg + 1;
    case MA_TIME:
        if (arg <= top)
            b->predict = sl_optnonneg(L, arg, b->predict);
        return arg + 1;
    case MA_WEIGHT:
        if (arg <= top)
            b->weight = sl_optfinite(L, arg, b->weight);
        return arg + 1;
    case MA_TARGET:
    case MA_AGENT:
    case MA_AGENT2:
    case MA_LEADER:
        if (arg > top)
            lua_settop(L, top); /* the general path reads it as none */
        break;
    default:
        lua_settop(L, top);
        break;
    }
    switch (kind) {
    case MA_TARGET: b->target = target_arg(L, arg, top, a, false); break;
    case MA_AGENT: b->target = target_arg(L, arg, top, a, true); break;
    case MA_AGENT2: b->target2 = target_arg(L, arg, top, a, true); break;
    case MA_LEADER:
        b->target = target_arg(L, arg, top, a, true);
        luaL_argcheck(L, !st_id_equal(b->target.agent, a->id), arg, "an agent cannot follow itself");
        break;
    case MA_DECEL: b->decel = sl_deceleration(L, arg, &src); break;
    case MA_OFFSET: b->offset = steer_lua_checkpoint(L, arg); break;
    case MA_FIELD:
        if ((b->field = sl_toflowfield(L, arg)) == NULL)
            luaL_typeerror(L, arg, "steer.flowfield");
        break;
    case MA_PATH:
        b->path = ((sl_path *)sl_checkudata(L, arg, &sl_key_path, SL_PATH))->p;
        *path_arg = arg;
        break;
    case MA_RECT:
        if (lua_type(L, arg) != LUA_TTABLE)
            return arg;
        sl_rect(L, arg, &src, b->rect);
        break;
    case MA_OPTS:
        if (lua_type(L, arg) != LUA_TTABLE)
            return arg;
        method_opts(L, arg, d, b);
        break;
    case MA_FLOCK:
        if (lua_gettop(L) < arg)
            lua_settop(L, arg); /* a missing table reads as nil, not as the world */
        lua_getiuservalue(L, 1, SL_AUV_WORLD); /* above the arguments until read */
        b->flock = sl_flock_params(L, arg, -1, a->sw, &src, &b->weight);
        lua_pop(L, 1);
        break;
    default: break;
    }
    return arg + 1;
}

/* The agent remembers which path it follows (the core may compare it):
 * the userdata at arg stays alive with it. */
static void keep_path(lua_State *L, int arg)
{
    lua_getiuservalue(L, 1, SL_AUV_PATH);
    if (!lua_rawequal(L, -1, arg)) {
        lua_pushvalue(L, arg);
        lua_setiuservalue(L, 1, SL_AUV_PATH);
    }
    lua_pop(L, 1);
}

/* A behaviour asked for between steps is finished by the next step: the
 * path or field at arg must live until then, whatever the script drops. */
static void keep_for_step(lua_State *L, int arg)
{
    lua_getiuservalue(L, 1, SL_AUV_WORLD);
    sl_push_uvtable(L, -1, SL_WUV_REQUESTS);
    lua_pushvalue(L, arg);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 2);
}

/* Where the method d takes its flow field (follow_flow's first argument). */
static int field_arg(lua_State *L, const method_def *d, int base)
{
    (void)L;
    for (int k = 0; k < 4; k++)
        if (d->args[k] == MA_FIELD)
            return base + k;
    return base;
}

/* The body of every behaviour method, for the method_def d: its arguments
 * from `base` on (2, after self; 3 in agent:steer, after the name). quiet:
 * agent:steer's form, which returns nothing (no vec2 for the collector). */
static ALWAYS_INLINE int behavior_method(lua_State *L, const method_def *d, int base, bool quiet)
{
    int top = lua_gettop(L);
    sl_agent *a = sl_checkagent(L, 1);
    st_behavior b = a->sw->defaults[d->type];
    b.weight = 1.0;
    /* written out rather than a loop, so that the compiler resolves each
     * row's arguments (d is constant in every agent_<name>) */
    int arg = base, path_arg = 0;
    arg = method_arg(L, a, d, d->args[0], arg, top, &b, &path_arg);
    arg = method_arg(L, a, d, d->args[1], arg, top, &b, &path_arg);
    arg = method_arg(L, a, d, d->args[2], arg, top, &b, &path_arg);
    method_arg(L, a, d, d->args[3], arg, top, &b, &path_arg);
    if (path_arg != 0)
        keep_path(L, path_arg);
    if (a->sw->stepping) { /* a brain's call, inside the step: the hot path */
        if (!d->force || quiet) {
            st_agent_steer(a->sw->w, a->id, &b);
            return 0;
        }
        return push_steer(L, a, &b);
    }
    if ((path_arg != 0 || b.field != NULL) && !st_world_in_step(a->sw->w))
        keep_for_step(L, path_arg != 0 ? path_arg : field_arg(L, d, base));
    int before = st_world_requests(a->sw->w);
    st_vec2 f = st_agent_steer(a->sw->w, a->id, &b);
    if (d->force)
        sl_check_kept(L, a->sw, before);
    if (!d->force || quiet)
        return 0;
    push_result(L, f);
    return 1;
}

/* Each row: agent_<name>, the method, and steer_<name>, its agent:steer form. */
#define DEFINE_METHOD(name, type, force, opts, ...)                                        \
    static const method_def def_##name = {#name, type, force, opts, {__VA_ARGS__}};        \
    static int agent_##name(lua_State *L) { return behavior_method(L, &def_##name, 2, false); } \
    static int steer_##name(lua_State *L) { return behavior_method(L, &def_##name, 3, true); }
BEHAVIOR_METHODS(DEFINE_METHOD)
#undef DEFINE_METHOD

/* ---- agent:steer(name, ...) ---- */

/* What agent:steer takes as a name: every behaviour method. */
#define STEER_REG(name, ...) {#name, steer_##name},
static const luaL_Reg steer_forms[] = {
    BEHAVIOR_METHODS(STEER_REG)
    {"separate", steer_separate},
    {"align", steer_align},
    {"cohere", steer_cohere},
    {NULL, NULL},
};
#undef STEER_REG

/* The names a brain passed last, by the string's address, as the key cache
 * of __index (bind.h; two ways a set, the same sets): only names found in
 * the name table (upvalue 2) are kept, and that table keeps them alive, so
 * an address is never another string's. */
#define STEER_CACHE 16
typedef struct steer_cache {
    const void *key[STEER_CACHE];
    lua_CFunction fn[STEER_CACHE];
} steer_cache;

static int steer_miss(lua_State *L, steer_cache *c, int set)
{
    sl_checkagent(L, 1); /* a bad self is reported before a bad name */
    if (lua_type(L, 2) != LUA_TSTRING)
        return luaL_typeerror(L, 2, "string");
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER)
        return luaL_argerror(L, 2, lua_pushfstring(L, "unknown behaviour '%s'", lua_tostring(L, 2)));
    lua_CFunction fn = steer_forms[lua_tointeger(L, -1)].func;
    lua_pop(L, 1);
    const void *k = lua_topointer(L, 2); /* NULL where strings have no address (Lua 5.1) */
    if (k != NULL) {
        /* a free way, else the first way's name moves to the second */
        if (c->key[set] != NULL && c->key[set + 1] == NULL) {
            set++;
        } else if (c->key[set] != NULL) {
            c->key[set + 1] = c->key[set];
            c->fn[set + 1] = c->fn[set];
        }
        c->key[set] = k;
        c->fn[set] = fn;
    }
    return fn(L);
}

/* agent:steer(name, ...): the behaviour method `name` with the arguments
 * after it, returning nothing. A brain that calls agent:evade(hunter) for
 * its effect makes a vec2 a call that the collector must then sweep; at
 * thousands of brains that garbage costs about a fifth of their time.
 * upvalues: 1 the vec2 metatable (that of every method: the forms run in
 * this call's frame), 2 the name table, 3 the steer_cache. */
static int agent_steer(lua_State *L)
{
    steer_cache *c = (steer_cache *)lua_touserdata(L, lua_upvalueindex(3));
    const void *k = lua_topointer(L, 2);
    int set = sl_keycache_set(k, STEER_CACHE);
    if (k != NULL) {
        if (c->key[set] == k)
            return c->fn[set](L);
        if (c->key[set + 1] == k)
            return c->fn[set + 1](L);
    }
    return steer_miss(L, c, set);
}

#define METHOD_REG(name, ...) {#name, agent_##name},
static const luaL_Reg agent_methods[] = {
    BEHAVIOR_METHODS(METHOD_REG)
    {"separate", agent_separate},
    {"align", agent_align},
    {"cohere", agent_cohere},
    {"apply", agent_apply},
    {"render_pos", agent_render_pos},
    {"nearest", sl_agent_nearest},
    {"neighbors", sl_agent_neighbors},
    {"move_to", sl_agent_move_to},
    {"stop_moving", sl_agent_stop_moving},
    {"move_route", sl_agent_move_route},
    {"send", sl_agent_send},
    {"perceive", sl_agent_perceive},
    {"memory", sl_agent_memory},
    {"forget", sl_agent_forget},
    {NULL, NULL},
};
#undef METHOD_REG

/* The avoidance fields (avoid.c) in the name table, as AF_AVOID + k, and
 * agent:steer with its own upvalues. */
static void add_more_names(lua_State *L)
{
    for (int k = 0; k < SL_AVOID_FIELDS; k++) {
        lua_pushinteger(L, AF_AVOID + k);
        lua_setfield(L, -2, sl_avoid_fields[k]);
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_vec2);
    lua_newtable(L);
    for (int i = 0; steer_forms[i].name != NULL; i++) {
        lua_pushinteger(L, i);
        lua_setfield(L, -2, steer_forms[i].name);
    }
    steer_cache *c = (steer_cache *)lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    lua_pushcclosure(L, agent_steer, 3);
    lua_setfield(L, -2, "steer");
}

/* The methods and agent_index close over the vec2 metatable (UV_VEC2_MT:
 * sl_open_vec2 ran first). */
static const void *const agent_ups[] = {&sl_key_vec2, NULL};

void sl_open_agent(lua_State *L)
{
    static const luaL_Reg meta[] = {{"__tostring", agent_tostring}, {NULL, NULL}};
    static const sl_type t = {
        .name = SL_AGENT, .key = &sl_key_agent, .meta = meta, .methods = agent_methods,
        .fields = agent_fields, .more_names = add_more_names, .ups = agent_ups, .index_ups = 1,
        .keycache = true, .index = agent_index, .newindex = agent_newindex,
    };
    sl_newtype(L, &t);
    /* steer.agent: every method as a plain function, the very objects that
     * a.evade and the rest give. A brain that keeps the ones it calls in
     * locals (local nearest = steer.agent.nearest) calls them with no
     * __index call to find them each time. */
    lua_getfield(L, -1, "__index");
    lua_getupvalue(L, -1, 1); /* its name table */
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, -3) != 0) {
        if (lua_type(L, -1) == LUA_TFUNCTION) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_setfield(L, -5, "agent"); /* the steer table, below the metatable */
    lua_pop(L, 3);
}
