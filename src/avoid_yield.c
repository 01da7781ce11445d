/*
 * avoid_yield.c — ORCA agents at rest make room for one that needs to pass.
 *
 * ORCA shares the avoiding between two agents by their velocities. An agent
 * standing still in a doorway or a corridor meets one that walks into it:
 * the walker slows until it stands too, and then neither has a velocity for
 * ORCA to share, so both wait forever (ORCA's well-known deadlock). People
 * step aside instead. Before the ORCA pass, an ORCA agent that wants to stay
 * about where it is (its preferred velocity under half its max speed) looks
 * at the neighbours it avoids: one that is held up (slower than a quarter
 * of its max speed while it pushes on with over half its max force, so
 * that its preferred velocity runs ahead of the one it has) and whose way
 * ahead, within a second of its preferred travel, runs through us,
 * makes us step sideways out of its way, to the side we already stand on.
 * Our preferred velocity for this step becomes that step aside; ORCA does
 * the rest (the neighbours we then move toward make room in turn), and once
 * the walker has gone by, our own behaviours (an arrive to our spot) bring
 * us back.
 *
 * Reads only the state at the start of the step and the preferred
 * velocities of the step, and writes each agent's own entry: the same on
 * any number of threads.
 */
#include <math.h>

#include "grid_iter.h"
#include "avoid.h"

/// Seconds of a walker's preferred travel ahead in which we make room.
#define ST_YIELD_AHEAD 1.0
/// We stay put while we want to go slower than this share of max speed.
#define ST_YIELD_SETTLED 0.5
/// A walker is held up below this share of its max speed...
#define ST_YIELD_HELD 0.25
/// ...while it pushes on with more than this share of the velocity change
/// its max_force gives it in a step.
#define ST_YIELD_PUSH 0.5
/// Seconds in which we aim to be out of its way.
#define ST_YIELD_TIME 0.25

typedef struct yielder {
    const st_world *w;
    const st_vec2 *pref;
    int self, n;
    uint32_t mask;
    double radius, own2;
    uint64_t serial;
    st_vec2 aside; // the sum of the steps aside asked for
} yielder;

/// Neighbour j (offset rel from us to it): our step aside for it, added to q.
static void yield_to(yielder *q, int j, st_vec2 rel)
{
    const st_world *w = q->w;
    const st_body *o = &w->bodies[j];
    st_vec2 pj = q->pref[j];
    double p2 = st_v2_len2(pj);
    if (!(p2 > q->own2)) return;
    // Held up: slow (under a quarter of its max speed) while it pushes on
    // with more than half the velocity change its max_force allows a step,
    // so its preferred velocity runs ahead of the one ORCA let it have.
    double v = st_v2_len(o->vel), held = ST_YIELD_HELD * o->max_speed;
    double push = ST_YIELD_PUSH * o->max_force / o->mass * w->step_dt;
    if (!(v < held) || !(sqrt(p2) - v > push)) return;
    double plen = sqrt(p2);
    st_vec2 u = st_v2_scale(pj, 1.0 / plen);
    st_vec2 d = st_v2_neg(rel); // from it to us
    double along = st_v2_dot(d, u), lateral = st_v2_cross(u, d);
    double rsum = q->radius + o->radius;
    if (!(along > 0.0) || along > rsum + plen * ST_YIELD_AHEAD || fabs(lateral) >= rsum) return;
    // The side we stand on; dead on its line, the side our serials pick.
    double side = lateral > 0.0 ? 1.0 : lateral < 0.0 ? -1.0 : q->serial > w->agents[j].serial ? 1.0 : -1.0;
    double need = rsum - fabs(lateral);
    q->aside = st_v2_add(q->aside, st_v2_scale(st_v2_perp(u), side * need / ST_YIELD_TIME));
}

static void yield_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                      double r2, bool fold)
{
    yielder *q = ctx;
    const st_world *w = q->w;
    for (int k = k0; k < k1; k++) {
        const st_grid_item *it = &items[k];
        int j = (int)it->index;
        if (j == q->self || j >= q->n) continue;
        st_vec2 rel = st__run_offset(w, it, sx, sy, c, fold);
        if (st_v2_len2(rel) > r2) continue;
        if (w->removed_in_step && !w->agents[j].alive) continue;
        if (!(q->mask & st__avoid_layer(w, (uint32_t)j))) continue;
        yield_to(q, j, rel);
    }
}

/// Agent i's step aside, or zero when it keeps its preferred velocity.
static st_vec2 step_aside(const st_world *w, const st_vec2 *pref, int i, int n)
{
    const st_body *b = &w->bodies[i];
    if ((b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) != ST__AV_ORCA) return st_v2(0.0, 0.0);
    double settled = ST_YIELD_SETTLED * b->max_speed, own2 = st_v2_len2(pref[i]);
    if (!(own2 < settled * settled)) return st_v2(0.0, 0.0);
    st_avoid_def d = st__avoid_effective(w, i);
    if (!(d.range > 0.0)) return st_v2(0.0, 0.0);
    yielder q = {w, pref, i, n, d.mask, b->radius, own2, w->agents[i].serial, {0.0, 0.0}};
    st__grid_runs(w, &w->grid, b->pos, d.range, yield_run, &q);
    return st_v2_truncate_safe(q.aside, b->max_speed);
}

void st__yield_pass(st_world *w, st_vec2 *pref, st_vec2 *aside, int n)
{
    const bool all_alive = w->dead == 0;
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4096)
#endif
    for (int i = 0; i < n; i++)
        aside[i] = all_alive || w->agents[i].alive ? step_aside(w, pref, i, n) : st_v2(0.0, 0.0);
    // every agent's step aside is in (the omp for's barrier) before any pref changes
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
    for (int i = 0; i < n; i++)
        if (aside[i].x != 0.0 || aside[i].y != 0.0) pref[i] = aside[i];
}
