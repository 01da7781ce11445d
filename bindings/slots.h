/*
 * slots.h — each world's table of its agents' userdata by handle slot, in
 * C (bindings/slots.c): for slot i, the payload of the userdata that the
 * world's agents table (SL_WUV_AGENTS) holds at i + 1 and its generation,
 * while that agent is live (not removed).
 *
 * What it is for: telling that a handle the core gave (nearest's answer, a
 * brain list entry) names the userdata in the agents table without reading
 * that userdata, which lies anywhere in Lua's heap (a cache miss an answer:
 * the brains' queries answer with a random agent). The FFI backend returns
 * agents[i + 1] when the slot says so, and prefetches the agents its brain
 * loop is about to run; sl_pushagent pushes it without the check.
 *
 * Invariant: slot_gen1[i] = g + 1 and slot_ud[i] = a only while agents[i + 1]
 * is the userdata a, a->id = {i, g} and !a->removed. A slot it could not
 * record (out of memory) reads 0: the callers then take the check they
 * took before. Two arrays: the test reads only the generations, 4 bytes an
 * agent, which stay in the cache where 16 would not.
 */
#ifndef STEER_SLOTS_H
#define STEER_SLOTS_H

#include "bind.h"

/* Records the live agent a (just put into the agents table) in its slot. */
void sl_slots_set(sl_world *sw, sl_agent *a);
/* Forgets slot id.index (the agents table's entry is being cleared). */
void sl_slots_clear(sl_world *sw, st_agent_id id);
/* Every slot from the agents table at agents_idx (a restore's new one). */
void sl_slots_rebuild(lua_State *L, sl_world *sw, int agents_idx);
/* The world is going: frees the table. */
void sl_slots_free(sl_world *sw);

/* Whether the agents table holds the live agent id at id.index + 1. */
static inline bool sl_slots_known(const sl_world *sw, st_agent_id id)
{
    return id.index < sw->slots_cap && sw->slot_gen1[id.index] == id.generation + 1u;
}

/* The live agent userdata payload the agents table holds for id, known
 * without reading it; NULL when the slot does not say so. */
static inline sl_agent *sl_slots_get(const sl_world *sw, st_agent_id id)
{
    return sl_slots_known(sw, id) ? sw->slot_ud[id.index] : NULL;
}

/* Asks for the cache lines of a's userdata (its header, where the
 * interpreter reads the metatable, and the payload) ahead of their use. */
static inline void sl_slots_prefetch(const sl_agent *a)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch((const char *)a - 64);
    __builtin_prefetch(a);
#else
    (void)a;
#endif
}

#endif
