/*
 * step.c — one simulation step.
 *
 *   1. rebuild the neighbour grid from positions          (st_world_step_begin)
 *      (a big world re-sorts its storage into that grid's order now and then)
 *   2. brains add forces (the bindings, between begin and end)
 *   3. standing behaviours, threaded                      (st_world_step_end)
 *   4. integrate: truncate force, divide by mass, velocity, speed, move,
 *      heading, edges, clear accumulators
 *   5. apply removals (compaction keeps spawn order)
 */
#include <assert.h>
#include <float.h>

#ifdef STEER_HAVE_OPENMP
#include <omp.h>
#endif

#include "grid_iter.h"

/// Below this speed an agent counts as standing still: its heading stays.
#define ST_MOVING_SPEED2 1e-12

void st_world_step_begin(st_world *w, double dt)
{
    assert(!w->in_step);
    assert(st_finite(dt) && dt > 0.0);
    if (w->in_step) return;
    if (!(st_finite(dt) && dt > 0.0)) dt = w->dt;
    if (w->dead > 0) st__compact(w);
    w->step_dt = dt;
    w->step_count = w->count;
    st__grid_build(w, w->count);
    if (st__reorder_due(w)) st__reorder(w);
    w->in_step = true;
    w->trace_count[w->trace_cur] = 0;
}

static double wrap_coord(double x, double size)
{
    if (x >= 0.0 && x < size) return x;
    double r = x - size * floor(x / size);
    // Rounding can land exactly on `size` for tiny negative x.
    return r >= size || r < 0.0 ? 0.0 : r;
}

static void bounce_axis(double *p, double *v, double size)
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

/// Steps 4a: the force truncated and applied; returns the velocity the agent
/// would take (its preferred velocity when avoidance runs next).
ST__INLINE st_vec2 integrate_velocity(st_world *w, int i, double dt)
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
ST__INLINE void integrate_move(st_world *w, int i, st_vec2 v, double dt)
{
    st_body *b = &w->bodies[i];
    st_vec2 p = st_v2_add(b->pos, st_v2_scale(v, dt));
    if (!st_v2_finite(p)) p = b->pos; // an unbounded world's last finite place

    switch (w->edges) {
    case ST_EDGES_WRAP:
        p.x = wrap_coord(p.x, w->width);
        p.y = wrap_coord(p.y, w->height);
        break;
    case ST_EDGES_BOUNCE:
        bounce_axis(&p.x, &v.x, w->width);
        bounce_axis(&p.y, &v.y, w->height);
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
        double m = fmax(fabs(v.x), fabs(v.y));
        st_vec2 u = st_v2_normalize(st_v2(v.x / m, v.y / m));
        if (u.x != 0.0 || u.y != 0.0) b->heading = u;
    }
    b->accum = st_v2(0.0, 0.0);
}

ST__INLINE void integrate(st_world *w, int i, double dt) { integrate_move(w, i, integrate_velocity(w, i, dt), dt); }

/// Steps 3-4 when some agent avoids: the standing pass, every agent's
/// preferred velocity, then ORCA replaces some of them (reading only the
/// state at the start of the step), then everyone moves.
static void step_avoiding(st_world *w, st_vec2 *pref, int n, int ns, double dt)
{
    const bool all_alive = w->dead == 0;
#ifdef STEER_HAVE_OPENMP
#pragma omp parallel num_threads(w->threads) if (w->threads > 1 && n > 256)
#endif
    {
        st__standing_pass(w);
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
        for (int i = 0; i < n; i++) {
            if (all_alive || w->agents[i].alive) pref[i] = integrate_velocity(w, i, dt);
            st__avoid_peer(w, i);
        }
        st__avoid_pass(w, pref);
        if (ns > 1) {
            // The move counts the next grid's cells on the way, as in step_plain.
#ifdef STEER_HAVE_OPENMP
            int t0 = omp_get_thread_num(), nth = omp_get_num_threads();
#else
            int t0 = 0, nth = 1;
#endif
            const int cells = w->grid.nx * w->grid.ny;
            for (int s = t0; s < ns; s += nth) {
                int i0, i1;
                int32_t *h = st__grid_slice(w, s, ns, n, &i0, &i1);
                for (int c = 0; c < cells; c++) h[c] = 0;
                for (int i = i0; i < i1; i++) {
                    integrate_move(w, i, st__avoid_velocity(w, pref, i), dt);
                    st__grid_count(w, h, i);
                }
            }
        } else {
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(static)
#endif
            for (int i = 0; i < n; i++)
                if (all_alive || w->agents[i].alive) integrate_move(w, i, st__avoid_velocity(w, pref, i), dt);
        }
    }
}

/// Steps 3-4 when nobody avoids: one team for the standing pass and the
/// integration, which also counts the next grid's cells on the way.
static void step_plain(st_world *w, int n, int ns, bool all_alive, double dt)
{
    // One team for both passes: every fork and join is a wait for the
    // slowest thread, which on a busy machine can be a whole time slice.
#ifdef STEER_HAVE_OPENMP
#pragma omp parallel num_threads(w->threads) if (w->threads > 1 && n > 2048)
#endif
    {
        st__standing_pass(w); // its loop is shared out among the team, then all wait
        if (ns > 1) {
#ifdef STEER_HAVE_OPENMP
            int t0 = omp_get_thread_num(), nth = omp_get_num_threads();
#else
            int t0 = 0, nth = 1;
#endif
            const int cells = w->grid.nx * w->grid.ny;
            // Whole slices, as the build takes them: the standing pass's
            // barrier is behind us, so the grid's counters are free.
            for (int s = t0; s < ns; s += nth) {
                int i0, i1;
                int32_t *h = st__grid_slice(w, s, ns, n, &i0, &i1);
                for (int c = 0; c < cells; c++) h[c] = 0;
                for (int i = i0; i < i1; i++) {
                    integrate(w, i, dt);
                    st__grid_count(w, h, i);
                }
            }
        } else {
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4096)
#endif
            for (int i = 0; i < n; i++)
                if (all_alive || w->agents[i].alive) integrate(w, i, dt);
        }
    }
}

void st_world_step_end(st_world *w)
{
    assert(w->in_step);
    if (!w->in_step) return;
    int n = w->step_count;
    double dt = w->step_dt;
    // The step began compacted; unless a brain removed someone since, every
    // agent is alive and integration need not touch the agent records at all.
    const bool all_alive = w->dead == 0;
    // Integration streams every body; counting each new position into the
    // next grid's histograms on the way saves the build a second stream
    // over them. It fixes the integrator's shares to the build's slices.
    st_vec2 *pref = w->avoid_active ? st__avoid_begin(w, n) : NULL;
    const int ns = all_alive && !w->contacts ? st__grid_slices(w, n) : 1;
    if (pref) step_avoiding(w, pref, n, ns, dt);
    else step_plain(w, n, ns, all_alive, dt);
    // After the team's last barrier; a removal or a move before the next
    // build clears it (st__moved).
    w->grid.pre_slices = ns > 1 ? ns : 0;
    w->grid.pre_count = n;
    if (w->contacts) st__contacts_pass(w);
    st__obstacles_settle(w);

    w->in_step = false;
    w->removed_in_step = false;
    w->grid_dirty = true;
    if (w->dead > 0) st__compact(w);
    w->tick++;
    w->time += dt;
    if (!isfinite(w->time)) w->time = DBL_MAX; // steps of 1e308 s: saturate, never inf
    w->trace_cur = 1 - w->trace_cur;
}

void st_world_step(st_world *w, double dt)
{
    st_world_step_begin(w, dt);
    st_world_step_end(w);
}
