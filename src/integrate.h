/*
 * integrate.h — step 4 for one agent: truncate the force, divide by mass,
 * velocity, speed, move, edges, heading, clear the accumulator.
 *
 * Inline, so that the passes that move agents one at a time (step.c's, and
 * the standing pass when it moves each agent right after its behaviours)
 * compile it into their loops. One copy of the arithmetic: every checksum
 * depends on it.
 */
#ifndef STEER_INTEGRATE_H
#define STEER_INTEGRATE_H

#include "grid_iter.h"
#include "motion.h"

/// Below this speed an agent counts as standing still: its heading stays.
#define ST_MOVING_SPEED2 1e-12

static inline void st__bounce_axis(double *p, double *v, double size)
{
    if (*p < 0.0) {
        *p = -*p;
        *v = fabs(*v);
    } else if (*p > size) {
        *p = 2.0 * size - *p;
        *v = -fabs(*v);
    }
    // A step longer than the world itself: land inside regardless.
    if (*p < 0.0) *p = 0.0;
    if (*p > size) *p = size;
}

/// Step 4a: the force truncated and applied; returns the velocity the agent
/// would take (its preferred velocity when avoidance runs next).
ST__INLINE st_vec2 st__integrate_velocity(st_world *w, int i, double dt)
{
    st_body *b = &w->bodies[i];
    st_vec2 f = b->accum;
    double l2 = st_v2_len2(f);
    if (!isfinite(l2)) f = st_v2_scale(st_v2_normalize_safe(f), b->max_force);
    else f = st_v2_truncate(f, b->max_force);
    b->force = f;

    st_vec2 dv = st_v2_scale(f, dt / b->mass);
    // A force that would overflow the velocity saturates it instead.
    if (!st_v2_finite(dv)) dv = st_v2_scale(st_v2_normalize_safe(f), 2.0 * b->max_speed);
    st_vec2 v = st_v2_add(b->vel, dv);
    if (!st_v2_finite(v) || !isfinite(st_v2_len2(v))) v = st_v2_scale(st_v2_normalize_safe(v), b->max_speed);
    return st_v2_truncate(v, b->max_speed);
}

/// Step 4b: move at velocity v, edges, heading, clear the accumulator.
ST__INLINE void st__integrate_move(st_world *w, int i, st_vec2 v, double dt)
{
    st_body *b = &w->bodies[i];
    st_vec2 p = st_v2_add(b->pos, st_v2_scale(v, dt));
    if (!st_v2_finite(p)) p = b->pos; // an unbounded world's last finite place

    switch (w->edges) {
    case ST_EDGES_WRAP:
        p.x = st__wrap_coord(p.x, w->width);
        p.y = st__wrap_coord(p.y, w->height);
        break;
    case ST_EDGES_BOUNCE:
        st__bounce_axis(&p.x, &v.x, w->width);
        st__bounce_axis(&p.y, &v.y, w->height);
        break;
    case ST_EDGES_NONE:
        break;
    }
    b->pos = p;
    b->vel = v;
    if (b->orient) {
        st__orient_turn(w, i, v, dt); // a turn rate or a facing request (motion.c)
    } else if (st_v2_len2(v) > ST_MOVING_SPEED2) {
        // Scaled by the largest component first: v may be astronomically fast
        // (and this is the arithmetic every recorded checksum was made with).
        double ax = fabs(v.x), ay = fabs(v.y), m = ax > ay ? ax : ay; // fmax, without its call (v is finite)
        st_vec2 u = st_v2_normalize(st_v2(v.x / m, v.y / m));
        if (u.x != 0.0 || u.y != 0.0) b->heading = u;
    }
    b->accum = st_v2(0.0, 0.0);
}

ST__INLINE void st__integrate_inline(st_world *w, int i, double dt)
{
    st__integrate_move(w, i, st__integrate_velocity(w, i, dt), dt);
}

/// At most this many agents to st__integrate_group.
#define ST_INTEGRATE_GROUP 8

/// st__integrate_inline for agents idx[0..n) (n <= ST_INTEGRATE_GROUP),
/// bit for bit: the first half for all of them, then the second. An
/// agent's move is a chain of square roots and divisions, each waiting on
/// the one before; side by side, the processor overlaps several agents'.
ST__INLINE void st__integrate_group(st_world *w, const int *idx, int n, double dt)
{
    st_vec2 v[ST_INTEGRATE_GROUP];
    for (int m = 0; m < n; m++) v[m] = st__integrate_velocity(w, idx[m], dt);
    for (int m = 0; m < n; m++) st__integrate_move(w, idx[m], v[m], dt);
}

/// st__integrate_group, then each agent's new cell on the main grid into
/// cells[i] unless cells is NULL (st_grid.next_cells). Out of line in
/// step.c: the standing pass (behaviors.c) calls it for each group it
/// queues, and behaviors.c is built without GCC's straight-line vectoriser,
/// which pairs these agents' divisions and square roots (CMakeLists.txt).
void st__move_group(st_world *w, const int *idx, int n, double dt, int32_t *cells);

#endif
