/*
 * avoid.h — avoidance as the step runs it: ORCA (avoid.c, avoid_pass.c and
 * the orca_* files), stepping aside (avoid_yield.c), contacts (contacts.c)
 * and avoid_agents' force (avoid_predict.c).
 */
#ifndef STEER_AVOID_H
#define STEER_AVOID_H

#include "world_internal.h"

void st__avoid_free(st_world *w);
/// Agent i's avoidance settings (the defaults when it has none), and with
/// its automatic values worked out.
const st_avoid_def *st__avoid_def(const st_world *w, int i);
st_avoid_def st__avoid_effective(const st_world *w, int i);
/// The layers agent j is on.
static inline uint32_t st__avoid_layer(const st_world *w, uint32_t j)
{
    return (w->bodies[j].avoid & ST__AV_DEF) ? w->avoid_defs[w->agents[j].slot].layer : 1u;
}
/// Agent i as its ORCA neighbours see it (avoid_pass.c), copied once per step
/// before st__avoid_pass; call for every i in [0, step_count). True when
/// it is a plain ORCA agent: unlocked, avoiding every layer, on one at
/// least, priority 1 (the defaults).
bool st__avoid_peer(st_world *w, int i);
/// ORCA's velocities for the step's agents, from the state at its start.
/// pref[i] holds agent i's preferred velocity (the pass only reads it);
/// after the pass st__avoid_velocity(w, i) is the one it moves at. Call from every
/// thread of the parallel region (orphaned omp fors), after st__avoid_peer
/// for every agent and a barrier. `plain`: every agent of the step is a
/// plain one (st__avoid_peer), so every pair shares the avoiding evenly.
void st__avoid_pass(st_world *w, const st_vec2 *pref, bool plain);
st_vec2 st__avoid_velocity(const st_world *w, int i);
/// ORCA agents that want to stay about where they are step aside for one
/// whose preferred way runs through them: pref[i] becomes the step aside.
/// aside: n entries of scratch. Call from every thread of the parallel
/// region (orphaned omp fors), after every pref[i] is in.
void st__yield_pass(st_world *w, st_vec2 *pref, st_vec2 *aside, int n);
/// The buffer for the step's preferred velocities (count entries), or NULL
/// when memory ran out (the step then runs without avoidance).
st_vec2 *st__avoid_begin(st_world *w, int count);
/// The same buffer alone, for other passes after the move (contacts).
st_vec2 *st__avoid_buffer(st_world *w, int count);
/// Contacts: push overlapping bodies apart after moving (contacts.c).
void st__contacts_pass(st_world *w);

/// avoid_agents: away from the neighbour this agent would pass closest to
/// soonest, if that pass is a collision.
st_vec2 st__avoid_agents_force(const st_world *w, int i, double dt);

#endif
