/*
 * avoid_ref.c — the velocities ORCA builds its long-horizon half-planes
 * around (the "optimization velocity" v_opt of van den Berg et al.).
 *
 * Each pair's half-plane is made around a reference velocity of each
 * agent: any will do for the guarantee, as long as both agents of the pair
 * use the same two. RVO2 takes the current velocities. In an open crowd
 * that traps an agent that some earlier encounter turned away from its
 * goal: the half-planes of the neighbours it now passes are made around
 * the way it walks, and each lets it turn back towards the goal by only
 * half the room left, step after step, so it keeps walking the wrong way
 * (issue 26's random-goal crowd had a fifth of its agents making under
 * half their preferred speed towards their goals). Here an agent in the
 * open plans a share of the way from its velocity towards its preferred
 * one (ST_REF_SHARE), so the half-planes let it turn back sooner.
 *
 * Only in the open: with no neighbour within twice the distance at which
 * it could touch it within the step (ST_REF_CLEAR) and no obstacle in reach
 * (the caller decides that part). In a squeeze the preferred velocities
 * point into the others (everyone for the centre of a circle), and planning
 * around them presses the crowd into overlaps; there every agent keeps its
 * current velocity. The one-step
 * half-planes always use the current velocities.
 *
 * Reads the state at the start of the step and the step's preferred
 * velocities; each agent's reference is its own: the same on any number
 * of threads.
 */
#include <math.h>

#include "avoid_ref.h"
#include "grid_iter.h"
#include "avoid.h"

/// The share of the way from its velocity to its preferred one an agent in
/// the open plans at (issue 26's crowd, with ST_REF_CLEAR 1: 0.1 gave 3.93
/// goals per agent per 1,000 steps, 0.3 4.03, 0.5 4.05 but took Blocks'
/// closest pair to 0.978).
#define ST_REF_SHARE 0.3
/// In the open: no other agent within this many times the distance at
/// which the two could touch within the step. Issue 26's crowd: 4.10
/// goals per agent per 1,000 steps with 1, 4.02 with 2 (with ORCA_ONWARD
/// in avoid_pass.c; before it, 1 made the app's circle of 160,
/// scripts/crowd_crossing.lua, overlap in 64 pair-steps; now none).
#define ST_REF_CLEAR 1.0

typedef struct crowd_q {
    const st_world *w;
    int self;
    double radius, speed, dt;
    bool close; // someone within ST_REF_CLEAR times touching reach
} crowd_q;

static void crowd_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                      double r2, bool fold)
{
    crowd_q *q = ctx;
    const st_world *w = q->w;
    (void)r2;
    for (int k = k0; k < k1 && !q->close; k++) {
        int j = (int)items[k].index;
        if (j == q->self) continue;
        if (w->removed_in_step && !w->agents[j].alive) continue;
        const st_body *o = &w->bodies[j];
        st_vec2 rel = st__run_offset(w, &items[k], sx, sy, c, fold);
        double clear = (q->radius + o->radius + (q->speed + o->max_speed) * q->dt) * ST_REF_CLEAR;
        q->close = st_v2_len2(rel) < clear * clear;
    }
}

st_vec2 st__avoid_ref(const st_world *w, const st_vec2 *pref, int i, double dt, bool open, double max_radius,
                      double max_speed)
{
    const st_body *b = &w->bodies[i];
    if (!open) return b->vel;
    st_vec2 p = pref[i];
    st_vec2 r = st_v2_add(b->vel, st_v2_scale(st_v2_sub(p, b->vel), ST_REF_SHARE));
    if (!st_v2_finite(r)) return b->vel;
    // As far as that could be for the biggest and fastest of the others.
    double reach = (b->radius + max_radius + (b->max_speed + max_speed) * dt) * ST_REF_CLEAR;
    if (!(reach < INFINITY)) return b->vel;
    crowd_q q = {w, i, b->radius, b->max_speed, dt, false};
    st__grid_runs(w, &w->grid, b->pos, reach, crowd_run, &q);
    return q.close ? b->vel : r;
}
