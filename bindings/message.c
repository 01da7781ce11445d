/*
 * message.c — world:send(to, kind, data [, delay]), agent:send(...) and
 * their delivery to brain.message(self, agent, msg) (core: src/message.c).
 *
 * `to` is an agent, a list of agents, or a tag name (every live agent with
 * that tag as the message is sent, in spawn order). Each recipient gets its
 * own message table { kind, data, from, sent, delivered }, kept in the
 * world's SL_WUV_MESSAGES under the core queue's seq until delivery. A
 * message is due at tick world.tick + ceil(delay / world.dt) and delivered
 * at the first step whose brain pass starts at a tick at or past that, before
 * the updates, in the order (due tick, send order; a list's recipients in
 * list order). A pass delivers only messages sent before it began: one sent
 * during it comes at the next step. A recipient removed, brainless, paused
 * or without brain.message drops its message.
 */
#include <math.h>
#include <stdio.h>

#include "bind.h"

#define MAX_DELAY_TICKS 1e15 /* beyond: not a delay anyone means */

static st_msgq *queue(lua_State *L, sl_world *sw)
{
    if (sw->msgq == NULL)
        sw->msgq = st_msgq_create();
    if (sw->msgq == NULL)
        luaL_error(L, "not enough memory");
    return sw->msgq;
}

/* One recipient: the message table (built from the values at kind..from)
 * under the new seq. */
static void queue_one(lua_State *L, sl_world *sw, int world_idx, st_agent_id to, uint64_t tick, int kind_idx,
                      int from_idx)
{
    uint64_t seq = st_msgq_push(queue(L, sw), tick, to);
    if (seq == 0)
        luaL_error(L, "not enough memory");
    sl_push_uvtable(L, world_idx, SL_WUV_MESSAGES);
    lua_createtable(L, 0, 6);
    lua_pushvalue(L, kind_idx);
    lua_setfield(L, -2, "kind");
    lua_pushvalue(L, kind_idx + 1);
    lua_setfield(L, -2, "data");
    if (from_idx != 0) {
        lua_pushvalue(L, from_idx);
        lua_setfield(L, -2, "from");
    }
    lua_pushinteger(L, (lua_Integer)st_world_tick(sw->w));
    lua_setfield(L, -2, "sent");
    lua_rawseti(L, -2, (lua_Integer)seq);
    lua_pop(L, 1);
}

/* The agent at idx as a recipient: an agent of this world, not removed. */
static st_agent_id recipient(lua_State *L, int idx, sl_world *sw, const sl_src *src)
{
    sl_agent *a = sl_agent_at(L, idx);
    if (a == NULL)
        sl_raise_type(L, src, idx, "agent, list of agents or tag");
    if (a->sw != sw)
        sl_raise(L, src, "agent belongs to another world");
    if (a->removed || !st_agent_alive(sw->w, a->id))
        sl_raise(L, src, "agent is removed");
    return a->id;
}

/* The delay (argument darg, seconds) as whole ticks of world.dt, rounded up. */
static uint64_t delay_ticks(lua_State *L, sl_world *sw, int darg)
{
    sl_src src = sl_arg(darg);
    double delay = sl_optnumber_min(L, darg, &src, 0.0, 0.0);
    double ticks = ceil(delay / st_world_dt(sw->w) - 1e-9);
    if (ticks > MAX_DELAY_TICKS)
        sl_raise(L, &src, "delay is too long");
    return ticks > 0.0 ? (uint64_t)ticks : 0;
}

/* The recipients at arg 2; args 3 kind, 4 data, 5 delay; from_idx the
 * sender (0: none). The stack holds exactly 5 values, or 6 with the world
 * at 6. Returns how many were queued. */
static int send_from(lua_State *L, sl_world *sw, int world_idx, int from_idx)
{
    sl_src to_src = sl_arg(2), kind_src = sl_arg(3);
    if (lua_type(L, 3) != LUA_TSTRING)
        sl_raise_type(L, &kind_src, 3, "string");
    uint64_t tick = st_world_tick(sw->w) + delay_ticks(L, sw, 5);
    int kind = lua_gettop(L) + 1; /* kind, then data: queue_one reads them together */
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    int n = 0;
    if (lua_type(L, 2) == LUA_TSTRING) {
        int32_t tag = sl_tag_lookup_at(L, world_idx, 2);
        if (tag == SL_TAG_UNKNOWN)
            return 0;
        for (st_agent_id id = st_world_next(sw->w, st_null_agent(), tag); !st_id_is_null(id);
             id = st_world_next(sw->w, id, tag), n++)
            queue_one(L, sw, world_idx, id, tick, kind, from_idx);
    } else if (lua_type(L, 2) == LUA_TTABLE) {
        lua_Integer len = (lua_Integer)lua_rawlen(L, 2);
        for (lua_Integer i = 1; i <= len; i++) { /* every entry checked before any is queued */
            lua_rawgeti(L, 2, i);
            sl_src e = to_src;
            char ctx[32];
            snprintf(ctx, sizeof ctx, "[%lld]", (long long)i);
            e.ctx = ctx;
            recipient(L, -1, sw, &e);
            lua_pop(L, 1);
        }
        for (lua_Integer i = 1; i <= len; i++, n++) {
            lua_rawgeti(L, 2, i);
            st_agent_id id = sl_agent_at(L, -1)->id;
            lua_pop(L, 1);
            queue_one(L, sw, world_idx, id, tick, kind, from_idx);
        }
    } else {
        queue_one(L, sw, world_idx, recipient(L, 2, sw, &to_src), tick, kind, from_idx);
        n = 1;
    }
    return n;
}

/* world:send(to, kind, data [, delay]) -> recipients queued */
int sl_world_send(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    lua_settop(L, 5);
    lua_pushinteger(L, send_from(L, sw, 1, 0));
    return 1;
}

/* agent:send(to, kind, data [, delay]) -> recipients queued; msg.from = agent */
int sl_agent_send(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    lua_settop(L, 5);
    lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 6 */
    lua_pushinteger(L, send_from(L, a->sw, 6, 1));
    return 1;
}

/* The host's decision event for message msg (at idx) delivered to `to`. */
static void report(lua_State *L, int idx, st_agent_id to)
{
    steer_lua_event e = {STEER_LUA_MESSAGE, (st_agent_id){0}, to, {0.0, 0.0}, NULL};
    lua_getfield(L, idx, "from");
    st_world *w;
    if (steer_lua_toagent(L, -1, &w, &e.from) && st_agent_alive(w, e.from))
        e.pos = st_agent_pos(w, e.from);
    else
        e.from = (st_agent_id){0};
    lua_getfield(L, idx, "kind");
    e.what = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    sl_event(L, &e);
    lua_pop(L, 2);
}

/* Delivers the messages due now that were queued before this pass began. */
void sl_messages_deliver(lua_State *L, int world_idx, sl_world *sw)
{
    st_msgq *q = sw->msgq;
    if (q == NULL || st_msgq_count(q) == 0)
        return;
    world_idx = lua_absindex(L, world_idx);
    int top = lua_gettop(L);
    uint64_t tick = st_world_tick(sw->w);
    uint64_t limit = st_msgq_next_seq(q); /* sent during the pass: next time */
    sl_push_uvtable(L, world_idx, SL_WUV_MESSAGES); /* top + 1 */
    while (st_msgq_count(q) > 0) {
        st_message m = st_msgq_at(q, 0);
        if (m.tick > tick || m.seq >= limit)
            break; /* in delivery order: nothing after it is due either */
        st_msgq_pop(q, 1);
        lua_rawgeti(L, top + 1, (lua_Integer)m.seq); /* top + 2: the message */
        lua_pushnil(L);
        lua_rawseti(L, top + 1, (lua_Integer)m.seq);
        sl_pushagent(L, world_idx, m.to); /* top + 3 */
        sl_agent *a = sl_agent_at(L, top + 3);
        if (a != NULL && a->has_brain && !a->paused && !a->removed && lua_type(L, top + 2) == LUA_TTABLE) {
            lua_pushinteger(L, (lua_Integer)tick);
            lua_setfield(L, top + 2, "delivered");
            if (sl_events_wanted(L))
                report(L, top + 2, m.to);
            lua_pushvalue(L, top + 2);
            sl_call_brain(L, world_idx, top + 3, "message", 1);
        }
        lua_settop(L, top + 1);
    }
    lua_settop(L, top);
}
