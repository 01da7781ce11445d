/*
 * avoid_predict.c — avoid_agents: predictive avoidance as a behaviour
 * (Reynolds' "unaligned collision avoidance", OpenSteer's avoid-neighbours,
 * gdx-ai's CollisionAvoidance).
 *
 * Of the neighbours within the agent's avoidance range and mask, find the
 * one it will pass closest to soonest, assuming both keep their velocities.
 * If that closest approach is a collision (nearer than the two radii) within
 * the horizon, steer away from where that neighbour will then be, harder the
 * sooner it comes. For agents that do not run ORCA: a force among others,
 * with no guarantee, but cheap and at home in any combine.
 */
#include <float.h>
#include <math.h>

#include "grid_iter.h"
#include "avoid.h"

typedef struct threat {
    const st_world *w;
    int self;
    uint32_t mask;
    st_vec2 vel;
    double radius, horizon;
    double best_t;
    uint64_t best_serial;
    st_vec2 best_cpa; // the neighbour's offset from us at closest approach
    bool found;
} threat;

static void threat_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                       double r2, bool fold)
{
    threat *q = ctx;
    const st_world *w = q->w;
    for (int k = k0; k < k1; k++) {
        const st_grid_item *it = &items[k];
        st_vec2 rel = st__run_offset(w, it, sx, sy, c, fold);
        double d2 = st_v2_len2(rel);
        if (d2 > r2 || (int)it->index == q->self) continue;
        if (w->removed_in_step && !w->agents[it->index].alive) continue;
        if (!(q->mask & st__avoid_layer(w, it->index))) continue;
        const st_body *o = &w->bodies[it->index];
        double rsum = q->radius + o->radius;
        st_vec2 rv = st_v2_sub(o->vel, q->vel);
        double t;
        st_vec2 cpa;
        if (d2 < rsum * rsum) {
            t = 0.0; // touching already
            cpa = rel;
        } else {
            double rv2 = st_v2_len2(rv);
            if (!(rv2 > 0.0)) continue;
            t = -st_v2_dot(rel, rv) / rv2;
            if (!(t > 0.0) || t > q->horizon) continue;
            cpa = st_v2_add(rel, st_v2_scale(rv, t));
            if (st_v2_len2(cpa) >= rsum * rsum) continue;
        }
        uint64_t serial = w->agents[it->index].serial;
        if (!q->found || t < q->best_t || (t == q->best_t && serial < q->best_serial)) {
            q->found = true;
            q->best_t = t;
            q->best_serial = serial;
            q->best_cpa = cpa;
        }
    }
}

st_vec2 st__avoid_agents_force(const st_world *w, int i, double dt)
{
    (void)dt;
    const st_body *b = &w->bodies[i];
    st_avoid_def d = st__avoid_effective(w, i);
    if (d.range <= 0.0) return st_v2(0.0, 0.0);
    threat q = {w, i, d.mask, b->vel, b->radius, d.horizon, 0.0, 0, {0.0, 0.0}, false};
    st__grid_runs(w, &w->grid, b->pos, d.range, threat_run, &q);
    if (!q.found) return st_v2(0.0, 0.0);
    st_vec2 away = st_v2_neg(q.best_cpa);
    if (!(st_v2_len2(away) >= 1e-18)) {
        // Dead centre: pass on our own right, which for two agents head-on
        // is opposite sides, so they do not dodge into each other. (Also
        // an offset lost to overflow, far out where positions near 1e308.)
        away = st_v2_perp(b->heading);
    }
    double urgency = 1.0 - q.best_t / d.horizon; // 1 now, 0 at the horizon
    // A max_force past DBL_MAX / ST_AVOID_URGENCY would make it infinite.
    double mag = fmin(b->max_force * ST_AVOID_URGENCY * (0.25 + 0.75 * urgency), DBL_MAX);
    return st_v2_scale(st_v2_normalize_safe(away), mag);
}
