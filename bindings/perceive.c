/*
 * perceive.c — a:perceive{ sight = { range =, fov = }, hearing = { range = },
 * tag =, memory = }, a:memory([target]), a:forget([target]) and
 * world:noise(pos, radius [, data]) (core: src/perceive.c).
 *
 * a:perceive returns what the agent perceives now, a list of
 * { agent, position, distance, sense = "sight" | "hearing", data }: the
 * agents seen, nearest first (ties in spawn order), then the noises heard,
 * in the order made (agent: the noise's source, when it has one; data: the
 * noise's data). Each perceived agent updates the agent's memory of it.
 * The world's st_perception is made at the first perceive or noise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bind.h"

#define PI2 (2.0 * ST_PI)

static st_perception *perception(lua_State *L, sl_world *sw)
{
    if (sw->perc == NULL)
        sw->perc = st_perception_create();
    if (sw->perc == NULL)
        luaL_error(L, "not enough memory");
    return sw->perc;
}

void sl_perception_reserve(lua_State *L, sl_world *sw)
{
    if (sw->perc != NULL && !st_perception_reserve(sw->perc, st_world_slot_count(sw->w)))
        luaL_error(L, "not enough memory");
}

void sl_decide_free(sl_world *sw)
{
    st_msgq_destroy(sw->msgq);
    st_perception_destroy(sw->perc);
    free(sw->percepts);
    sw->msgq = NULL;
    sw->perc = NULL;
    sw->percepts = NULL;
    sw->percepts_cap = 0;
}

/* The table at idx (a sense's options): checks its keys; pushes nothing. */
static void check_sense(lua_State *L, int idx, const char *name, const char *const *keys)
{
    sl_src src = sl_field(2, name);
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, &src, idx, "table");
    const char *bad = sl_unknown_key(L, idx, keys);
    if (bad != NULL)
        sl_raise(L, &src, "unknown option '%s'", bad);
}

/* Number field `key` of the sense table at idx (arg 2's field `name`). */
static double sense_number(lua_State *L, int idx, const char *name, const char *key, double def, double min,
                           bool strict)
{
    char field[48];
    snprintf(field, sizeof field, "%s.%s", name, key);
    lua_getfield(L, idx, key);
    double v = def;
    if (!lua_isnil(L, -1)) {
        sl_src src = sl_field(2, field);
        v = sl_number_min(L, -1, &src, min, strict);
    }
    lua_pop(L, 1);
    return v;
}

/* a:perceive's options (argument 2) into s. */
static void parse_senses(lua_State *L, sl_world *sw, st_senses *s)
{
    static const char *const keys[] = {"sight", "hearing", "tag", "memory", NULL};
    static const char *const sight_keys[] = {"range", "fov", NULL};
    static const char *const hearing_keys[] = {"range", NULL};
    sl_src arg = sl_arg(2);
    if (lua_type(L, 2) != LUA_TTABLE)
        sl_raise_type(L, &arg, 2, "table");
    const char *bad = sl_unknown_key(L, 2, keys);
    if (bad != NULL)
        sl_raise(L, &arg, "unknown perceive option '%s'", bad);
    if (sl_getfield(L, 2, "sight")) {
        check_sense(L, -1, "sight", sight_keys);
        s->sight_range = sense_number(L, -1, "sight", "range", 0.0, 0.0, false);
        s->fov = sense_number(L, -1, "sight", "fov", PI2, 0.0, true);
        lua_pop(L, 1);
    }
    if (sl_getfield(L, 2, "hearing")) {
        check_sense(L, -1, "hearing", hearing_keys);
        s->hearing_range = sense_number(L, -1, "hearing", "range", 0.0, 0.0, false);
        lua_pop(L, 1);
    }
    s->memory = sl_field_min(L, 2, "memory", ST_MEMORY_DEFAULT, 0.0, true);
    if (sl_getfield(L, 2, "tag")) {
        sl_src src = sl_field(2, "tag");
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_raise_type(L, &src, -1, "string");
        lua_getiuservalue(L, 1, SL_AUV_WORLD);
        s->tag = sl_tag_lookup_at(L, lua_gettop(L), -2);
        lua_pop(L, 2);
    }
    (void)sw;
}

static void set_vec2(lua_State *L, const char *name, st_vec2 v)
{
    steer_lua_pushvec2(L, v);
    lua_setfield(L, -2, name);
}

/* The host's decision events for one a:perceive: each agent seen that the
 * perceiver did not remember before (`before`, nb memories), each noise
 * heard (a noise is heard once). */
static void report(lua_State *L, st_agent_id who, const st_percept *pc, int n, const st_memory *before, int nb)
{
    for (int i = 0; i < n; i++) {
        bool news = pc[i].sense == ST_SENSE_HEARD;
        if (!news) {
            news = true;
            for (int k = 0; k < nb && news; k++)
                news = !st_id_equal(before[k].target, pc[i].agent);
        }
        if (!news)
            continue;
        steer_lua_event e = {pc[i].sense == ST_SENSE_HEARD ? STEER_LUA_HEARD : STEER_LUA_SEEN, pc[i].agent, who,
                             pc[i].pos, NULL};
        sl_event(L, &e);
    }
}

/* a:perceive(opts) -> list of percepts */
int sl_agent_perceive(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    sl_world *sw = a->sw;
    st_senses s = st_senses_default();
    parse_senses(L, sw, &s);
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 3 */
    st_perception *p = perception(L, sw);
    if (!st_perception_reserve(p, st_world_slot_count(sw->w)))
        return luaL_error(L, "not enough memory");
    int all = st_world_count(sw->w, ST_TAG_ANY);
    sl_scratch_reserve(L, sw, all);
    int cap = all + ST_NOISE_SLOTS; /* every agent seen and every noise heard */
    if (sw->percepts_cap < cap) {
        st_percept *np = (st_percept *)realloc(sw->percepts, (size_t)cap * sizeof *np);
        if (np == NULL)
            return luaL_error(L, "not enough memory");
        sw->percepts = np;
        sw->percepts_cap = cap;
    }
    st_world_raycast_prepare(sw->w); /* out of memory: every shape is tested, same answer */
    st_memory before[ST_MEMORY_SLOTS];
    int nb = sl_events_wanted(L) ? st_perception_memories(p, sw->w, a->id, before, ST_MEMORY_SLOTS) : -1;
    int n = st_perceive(p, sw->w, a->id, &s, sw->percepts, cap, sw->scratch, all);
    if (nb >= 0)
        report(L, a->id, sw->percepts, n < cap ? n : cap, before, nb);
    lua_createtable(L, n > 0 ? n : 0, 0); /* 4 */
    sl_push_uvtable(L, 3, SL_WUV_NOISES); /* 5 */
    for (int i = 0; i < n; i++) {
        const st_percept *e = &sw->percepts[i];
        lua_createtable(L, 0, 5);
        sl_pushagent(L, 3, e->agent); /* nil for a noise without a source */
        lua_setfield(L, -2, "agent");
        set_vec2(L, "position", e->pos);
        lua_pushnumber(L, e->distance);
        lua_setfield(L, -2, "distance");
        lua_pushstring(L, e->sense == ST_SENSE_SEEN ? "sight" : "hearing");
        lua_setfield(L, -2, "sense");
        if (e->noise != 0) {
            lua_rawgeti(L, 5, (lua_Integer)e->noise);
            lua_setfield(L, -2, "data");
        }
        lua_rawseti(L, 4, i + 1);
    }
    lua_pop(L, 1);
    return 1;
}

/* Pushes memory m as a table. */
static void push_memory(lua_State *L, int world_idx, const st_world *w, const st_memory *m)
{
    lua_createtable(L, 0, 7);
    sl_pushagent(L, world_idx, m->target);
    lua_setfield(L, -2, "agent");
    set_vec2(L, "position", m->pos);
    lua_pushnumber(L, m->time);
    lua_setfield(L, -2, "time");
    lua_pushinteger(L, (lua_Integer)m->tick);
    lua_setfield(L, -2, "tick");
    lua_pushnumber(L, st_world_time(w) - m->time);
    lua_setfield(L, -2, "age");
    lua_pushnumber(L, st_memory_confidence(m, st_world_time(w)));
    lua_setfield(L, -2, "confidence");
    lua_pushstring(L, (m->sense & ST_SENSE_SEEN) ? "sight" : "hearing");
    lua_setfield(L, -2, "sense");
}

/* The optional target at arg 2: an agent of a's world (removed: no memory). */
static st_agent_id opt_target(lua_State *L, sl_agent *a)
{
    if (lua_isnoneornil(L, 2))
        return st_null_agent();
    sl_agent *t = sl_agent_at(L, 2);
    if (t == NULL)
        luaL_typeerror(L, 2, SL_AGENT);
    luaL_argcheck(L, t->sw == a->sw, 2, "agent belongs to another world");
    return t->id;
}

/* a:memory() -> list of memories, strongest first; a:memory(target) -> one or nil */
int sl_agent_memory(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    st_agent_id target = opt_target(L, a);
    bool one = !lua_isnoneornil(L, 2);
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 3 */
    st_memory mem[ST_MEMORY_SLOTS];
    int n = a->sw->perc ? st_perception_memories(a->sw->perc, a->sw->w, a->id, mem, ST_MEMORY_SLOTS) : 0;
    if (one) {
        for (int i = 0; i < n; i++)
            if (st_id_equal(mem[i].target, target)) {
                push_memory(L, 3, a->sw->w, &mem[i]);
                return 1;
            }
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_memory(L, 3, a->sw->w, &mem[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* a:forget([target]): forgets one memory, or all */
int sl_agent_forget(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    st_agent_id target = opt_target(L, a);
    if (!lua_isnoneornil(L, 2) && st_id_is_null(target))
        return 0;
    if (a->sw->perc != NULL)
        st_perception_forget(a->sw->perc, a->id, target);
    return 0;
}

/* The source of a noise's data at idx: the agent itself, or its field from. */
static st_agent_id noise_source(lua_State *L, int idx, sl_world *sw)
{
    sl_agent *s = sl_agent_at(L, idx);
    if (s == NULL && lua_type(L, idx) == LUA_TTABLE) {
        lua_getfield(L, idx, "from");
        s = sl_agent_at(L, -1);
        lua_pop(L, 1);
    }
    if (s == NULL || s->sw != sw || s->removed)
        return st_null_agent();
    return s->id;
}

/* world:noise(pos, radius [, data]) */
int sl_world_noise(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    sl_src s2 = sl_arg(2), s3 = sl_arg(3);
    st_vec2 pos = sl_point(L, 2, &s2);
    double radius = sl_number_min(L, 3, &s3, 0.0, false);
    lua_settop(L, 4);
    st_perception *p = perception(L, sw);
    uint64_t seq = st_perception_noise(p, sw->w, pos, radius, noise_source(L, 4, sw));
    sl_push_uvtable(L, 1, SL_WUV_NOISES); /* 5 */
    lua_pushvalue(L, 4);
    lua_rawseti(L, 5, (lua_Integer)seq);
    /* the data of noises the ring let go: from the lowest kept (key 0) up */
    uint64_t oldest = st_perception_noise_at(p, 0).seq;
    lua_rawgeti(L, 5, 0);
    lua_Integer low = lua_type(L, -1) == LUA_TNUMBER ? lua_tointeger(L, -1) : 1;
    for (lua_Integer k = low; k < (lua_Integer)oldest; k++) {
        lua_pushnil(L);
        lua_rawseti(L, 5, k);
    }
    lua_pushinteger(L, (lua_Integer)oldest);
    lua_rawseti(L, 5, 0);
    return 0;
}
