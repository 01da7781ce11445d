/*
 * decide_snapshot.c — the decision layer's state in snapshots: queued
 * messages (with their tables), noises (with their data), every
 * perceiver's memories and last noise heard, and brain schedules
 * (think_every, the steps and time since the last update).
 *
 * snapshot.c writes the table sl_decide_save makes after the scene's value
 * with its serialiser (agents as handles, vec2 exactly, floats bit for bit)
 * and hands the decoded table to sl_decide_load at restore; a snapshot
 * written before these existed holds none, and restores to an empty queue,
 * no memories and every-tick brains. Seqs are kept as they were, so the
 * order of deliveries after a restore is the order they had.
 *
 *   { messages = { next = seq, {tick, seq, to, msg}... },
 *     noises = { next = seq, {seq, tick, pos, radius, source, data}... },
 *     memories = { {who, heard, {target, pos, time, tick, span, sense}...}... },
 *     think = { {agent, every, steps, dt}... } }
 */
#include "bind.h"

static void seti(lua_State *L, int i, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_rawseti(L, -2, i);
}

static void setn(lua_State *L, int i, double v)
{
    lua_pushnumber(L, v);
    lua_rawseti(L, -2, i);
}

static void save_messages(lua_State *L, int world_idx, sl_world *sw)
{
    lua_newtable(L);
    if (sw->msgq == NULL)
        return;
    lua_pushinteger(L, (lua_Integer)st_msgq_next_seq(sw->msgq));
    lua_setfield(L, -2, "next");
    sl_push_uvtable(L, world_idx, SL_WUV_MESSAGES);
    int msgs = lua_gettop(L), k = 0;
    for (int i = 0; i < st_msgq_count(sw->msgq); i++) {
        st_message m = st_msgq_at(sw->msgq, i);
        if (!st_agent_alive(sw->w, m.to))
            continue; /* it would be dropped at delivery */
        lua_createtable(L, 4, 0);
        seti(L, 1, (lua_Integer)m.tick);
        seti(L, 2, (lua_Integer)m.seq);
        sl_pushagent(L, world_idx, m.to);
        lua_rawseti(L, -2, 3);
        lua_rawgeti(L, msgs, (lua_Integer)m.seq);
        lua_rawseti(L, -2, 4);
        lua_rawseti(L, msgs - 1, ++k);
    }
    lua_pop(L, 1);
}

static void save_noises(lua_State *L, int world_idx, sl_world *sw)
{
    lua_newtable(L);
    st_perception *p = sw->perc;
    if (p == NULL)
        return;
    lua_pushinteger(L, (lua_Integer)st_perception_next_noise(p));
    lua_setfield(L, -2, "next");
    sl_push_uvtable(L, world_idx, SL_WUV_NOISES);
    int data = lua_gettop(L);
    for (int i = 0; i < st_perception_noise_count(p); i++) {
        st_noise n = st_perception_noise_at(p, i);
        lua_createtable(L, 6, 0);
        seti(L, 1, (lua_Integer)n.seq);
        seti(L, 2, (lua_Integer)n.tick);
        steer_lua_pushvec2(L, n.pos);
        lua_rawseti(L, -2, 3);
        setn(L, 4, n.radius);
        sl_pushagent(L, world_idx, n.source); /* nil: none, or removed */
        lua_rawseti(L, -2, 5);
        lua_rawgeti(L, data, (lua_Integer)n.seq);
        lua_rawseti(L, -2, 6);
        lua_rawseti(L, data - 1, i + 1);
    }
    lua_pop(L, 1);
}

static void save_memories(lua_State *L, int world_idx, sl_world *sw)
{
    lua_newtable(L);
    if (sw->perc == NULL)
        return;
    int k = 0;
    st_memory mem[ST_MEMORY_SLOTS];
    for (st_agent_id id = st_world_next(sw->w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
         id = st_world_next(sw->w, id, ST_TAG_ANY)) {
        int n = st_perception_memories(sw->perc, sw->w, id, mem, ST_MEMORY_SLOTS);
        uint64_t heard = st_perception_heard(sw->perc, id);
        if (n == 0 && heard == 0)
            continue;
        lua_createtable(L, n + 2, 0);
        sl_pushagent(L, world_idx, id);
        lua_rawseti(L, -2, 1);
        seti(L, 2, (lua_Integer)heard);
        for (int i = 0; i < n; i++) {
            lua_createtable(L, 6, 0);
            sl_pushagent(L, world_idx, mem[i].target);
            lua_rawseti(L, -2, 1);
            steer_lua_pushvec2(L, mem[i].pos);
            lua_rawseti(L, -2, 2);
            setn(L, 3, mem[i].time);
            seti(L, 4, (lua_Integer)mem[i].tick);
            setn(L, 5, mem[i].span);
            seti(L, 6, mem[i].sense);
            lua_rawseti(L, -2, i + 3);
        }
        lua_rawseti(L, -2, ++k);
    }
}

static void save_think(lua_State *L, int world_idx, sl_world *sw)
{
    lua_newtable(L);
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
    int k = 0;
    for (int i = 0; i < sw->brain_count; i++) {
        st_agent_id id = sw->brain_list[i];
        if (!st_agent_alive(sw->w, id))
            continue; /* nothing pushed */
        if (lua_rawgeti(L, -1, (lua_Integer)id.index + 1) != LUA_TUSERDATA) {
            lua_pop(L, 1);
            continue;
        }
        sl_agent *a = sl_agent_at(L, -1);
        if (a == NULL || a->removed || (a->think_every == 1 && a->think_steps == 0 && a->think_dt == 0.0)) {
            lua_pop(L, 1);
            continue;
        }
        lua_createtable(L, 4, 0);
        lua_insert(L, -2);
        lua_rawseti(L, -2, 1);
        seti(L, 2, a->think_every);
        seti(L, 3, a->think_steps);
        setn(L, 4, a->think_dt);
        lua_rawseti(L, -3, ++k);
    }
    lua_pop(L, 1);
}

void sl_decide_save(lua_State *L, int world_idx)
{
    world_idx = lua_absindex(L, world_idx);
    sl_world *sw = sl_toworld(L, world_idx);
    lua_createtable(L, 0, 4);
    save_messages(L, world_idx, sw);
    lua_setfield(L, -2, "messages");
    save_noises(L, world_idx, sw);
    lua_setfield(L, -2, "noises");
    save_memories(L, world_idx, sw);
    lua_setfield(L, -2, "memories");
    save_think(L, world_idx, sw);
    lua_setfield(L, -2, "think");
}

/* ---- restore ---- */

/* Integer entry i of the table on top (0 when not one). */
static lua_Integer geti(lua_State *L, int t, int i)
{
    lua_rawgeti(L, t, i);
    lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    return v;
}

static double getn(lua_State *L, int t, int i)
{
    lua_rawgeti(L, t, i);
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* The live agent of sw in entry i of table t, or a null id. */
static st_agent_id get_agent(lua_State *L, int t, int i, sl_world *sw)
{
    lua_rawgeti(L, t, i);
    sl_agent *a = sl_agent_at(L, -1);
    st_agent_id id = (a != NULL && a->sw == sw && !a->removed) ? a->id : st_null_agent();
    lua_pop(L, 1);
    return id;
}

static st_vec2 get_vec2(lua_State *L, int t, int i)
{
    lua_rawgeti(L, t, i);
    st_vec2 *v = sl_tovec2(L, -1);
    st_vec2 r = v ? *v : st_v2(0.0, 0.0);
    lua_pop(L, 1);
    return r;
}

static void load_messages(lua_State *L, int world_idx, sl_world *sw, int t)
{
    lua_newtable(L);
    lua_setiuservalue(L, world_idx, SL_WUV_MESSAGES);
    if (sw->msgq == NULL && lua_type(L, t) != LUA_TTABLE)
        return;
    if (sw->msgq == NULL && (sw->msgq = st_msgq_create()) == NULL)
        luaL_error(L, "not enough memory");
    if (lua_type(L, t) != LUA_TTABLE) {
        st_msgq_reset(sw->msgq, st_msgq_next_seq(sw->msgq));
        return;
    }
    lua_getfield(L, t, "next");
    uint64_t next = lua_type(L, -1) == LUA_TNUMBER ? (uint64_t)lua_tointeger(L, -1) : st_msgq_next_seq(sw->msgq);
    lua_pop(L, 1);
    st_msgq_reset(sw->msgq, next);
    sl_push_uvtable(L, world_idx, SL_WUV_MESSAGES);
    lua_Integer n = lua_type(L, t) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, t) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        int e = lua_gettop(L);
        st_message m;
        m.tick = (uint64_t)geti(L, e, 1);
        m.seq = (uint64_t)geti(L, e, 2);
        m.to = get_agent(L, e, 3, sw);
        if (!st_id_is_null(m.to) && st_msgq_put(sw->msgq, m)) {
            lua_rawgeti(L, e, 4);
            lua_rawseti(L, e - 1, (lua_Integer)m.seq);
        }
        lua_settop(L, e - 1);
    }
    lua_pop(L, 1);
}

static void load_noises(lua_State *L, int world_idx, sl_world *sw, int t)
{
    lua_newtable(L);
    lua_setiuservalue(L, world_idx, SL_WUV_NOISES);
    uint64_t next = st_perception_next_noise(sw->perc);
    if (lua_type(L, t) == LUA_TTABLE) {
        lua_getfield(L, t, "next");
        if (lua_type(L, -1) == LUA_TNUMBER)
            next = (uint64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    st_perception_reset(sw->perc, next);
    sl_push_uvtable(L, world_idx, SL_WUV_NOISES);
    lua_Integer n = lua_type(L, t) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, t) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        int e = lua_gettop(L);
        st_noise z;
        z.seq = (uint64_t)geti(L, e, 1);
        z.tick = (uint64_t)geti(L, e, 2);
        z.pos = get_vec2(L, e, 3);
        z.radius = getn(L, e, 4);
        z.source = get_agent(L, e, 5, sw);
        st_perception_put_noise(sw->perc, z);
        lua_rawgeti(L, e, 6);
        lua_rawseti(L, e - 1, (lua_Integer)z.seq);
        lua_settop(L, e - 1);
    }
    lua_pop(L, 1);
}

static void load_memories(lua_State *L, sl_world *sw, int t)
{
    lua_Integer n = lua_type(L, t) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, t) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, t, i);
        int e = lua_gettop(L);
        st_agent_id who = get_agent(L, e, 1, sw);
        if (!st_id_is_null(who)) {
            st_perception_set_heard(sw->perc, who, (uint64_t)geti(L, e, 2));
            lua_Integer nm = (lua_Integer)lua_rawlen(L, e);
            for (lua_Integer j = 3; j <= nm; j++) {
                lua_rawgeti(L, e, j);
                int me = lua_gettop(L);
                st_memory m;
                m.target = get_agent(L, me, 1, sw);
                m.pos = get_vec2(L, me, 2);
                m.time = getn(L, me, 3);
                m.tick = (uint64_t)geti(L, me, 4);
                m.span = getn(L, me, 5);
                m.sense = (int)geti(L, me, 6);
                if (!st_id_is_null(m.target) && m.span > 0.0)
                    st_perception_put_memory(sw->perc, who, &m);
                lua_settop(L, e);
            }
        }
        lua_settop(L, e - 1);
    }
}

static void load_think(lua_State *L, int world_idx, sl_world *sw, int t)
{
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
    for (int i = 0; i < sw->brain_count; i++) { /* every brain back to every tick... */
        if (lua_rawgeti(L, -1, (lua_Integer)sw->brain_list[i].index + 1) == LUA_TUSERDATA) {
            sl_agent *a = sl_agent_at(L, -1);
            if (a != NULL)
                a->think_every = 1, a->think_steps = 0, a->think_dt = 0.0;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_Integer n = lua_type(L, t) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, t) : 0;
    for (lua_Integer i = 1; i <= n; i++) { /* ...then those the snapshot names */
        lua_rawgeti(L, t, i);
        lua_rawgeti(L, -1, 1);
        sl_agent *a = sl_agent_at(L, -1);
        lua_pop(L, 1);
        if (a != NULL && a->sw == sw) {
            lua_Integer every = geti(L, lua_gettop(L), 2);
            a->think_every = every >= 1 ? (uint32_t)every : 1;
            a->think_steps = (uint32_t)geti(L, lua_gettop(L), 3);
            a->think_dt = getn(L, lua_gettop(L), 4);
        }
        lua_pop(L, 1);
    }
}

void sl_decide_load(lua_State *L, int world_idx, int idx)
{
    world_idx = lua_absindex(L, world_idx);
    idx = lua_absindex(L, idx);
    sl_world *sw = sl_toworld(L, world_idx);
    int top = lua_gettop(L);
    const char *const parts[] = {"messages", "noises", "memories", "think"};
    for (int k = 0; k < 4; k++) {
        if (lua_type(L, idx) == LUA_TTABLE)
            lua_getfield(L, idx, parts[k]);
        else
            lua_pushnil(L);
    }
    load_messages(L, world_idx, sw, top + 1);
    if (sw->perc != NULL || lua_type(L, top + 2) == LUA_TTABLE) {
        if (sw->perc == NULL && (sw->perc = st_perception_create()) == NULL)
            luaL_error(L, "not enough memory");
        if (!st_perception_reserve(sw->perc, st_world_slot_count(sw->w)))
            luaL_error(L, "not enough memory");
        load_noises(L, world_idx, sw, top + 2);
        load_memories(L, sw, top + 3);
    }
    load_think(L, world_idx, sw, top + 4);
    lua_settop(L, top);
}
