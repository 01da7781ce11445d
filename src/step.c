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

#include "integrate.h"

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

void st__integrate(st_world *w, int i, double dt) { st__integrate_inline(w, i, dt); }

/// The move of this thread's share of the slices (ns of them, as the grid
/// build takes them), counting the next grid's cells on the way. pref: the
/// velocities ORCA chose, or NULL to integrate the forces as they are. The
/// standing pass's barrier is behind every caller, so the counters are free.
ST__INLINE void move_in_slices(st_world *w, const st_vec2 *pref, int n, int ns, double dt)
{
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
            if (pref) st__integrate_move(w, i, st__avoid_velocity(w, pref, i), dt);
            else st__integrate_inline(w, i, dt);
            st__grid_count(w, h, i);
        }
    }
}

/// Steps 3-4 when some agent avoids: the standing pass, every agent's
/// preferred velocity, then ORCA replaces some of them (reading only the
/// state at the start of the step), then everyone moves.
static void step_avoiding(st_world *w, st_vec2 *pref, int n, int ns, double dt)
{
    const bool all_alive = w->dead == 0;
    int mixed = 0; // some agent is not a plain ORCA one (st__avoid_peer)
#ifdef STEER_HAVE_OPENMP
#pragma omp parallel num_threads(w->threads) if (w->threads > 1 && n > 256)
#endif
    {
        st__standing_pass(w, false);
#ifdef STEER_HAVE_OPENMP
// Dynamic: the two cores of a busy machine are seldom equally fast, and
// what each agent does here is its own (any order, the same bits).
#pragma omp for schedule(dynamic, 4096) reduction(| : mixed)
#endif
        for (int i = 0; i < n; i++) {
            if (all_alive || w->agents[i].alive) pref[i] = st__integrate_velocity(w, i, dt);
            mixed |= !st__avoid_peer(w, i);
        }
        st__avoid_pass(w, pref, !mixed);
        if (ns > 1) {
            move_in_slices(w, pref, n, ns, dt);
        } else {
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4096)
#endif
            for (int i = 0; i < n; i++)
                if (all_alive || w->agents[i].alive) st__integrate_move(w, i, st__avoid_velocity(w, pref, i), dt);
        }
    }
}

/// What each thread of step_plain's team does (or the one thread, alone).
static void plain_passes(st_world *w, int n, int ns, bool all_alive, double dt, bool fused)
{
    st__standing_pass(w, fused); // its loop is shared out among the team, then all wait
    if (fused) {
        // moved already, in the standing pass
    } else if (ns > 1) {
        move_in_slices(w, NULL, n, ns, dt);
    } else {
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4096)
#endif
        for (int i = 0; i < n; i++)
            if (all_alive || w->agents[i].alive) st__integrate_inline(w, i, dt);
    }
}

/// Steps 3-4 when nobody avoids: one team for the standing pass and the
/// integration, which also counts the next grid's cells on the way.
static void step_plain(st_world *w, int n, int ns, bool all_alive, double dt, bool fused)
{
#ifdef STEER_HAVE_OPENMP
    if (w->threads > 1 && n > 2048) {
        // One team for both passes: every fork and join is a wait for the
        // slowest thread, which on a busy machine can be a whole time slice.
#pragma omp parallel num_threads(w->threads)
        plain_passes(w, n, ns, all_alive, dt, fused);
        return;
    }
#endif
    // Alone, no team at all: a parallel region that its if clause turns off
    // still goes through libgomp, which allocates for it every step (and
    // glibc's consolidation of that slows the Lua brains' own allocations).
    plain_passes(w, n, ns, all_alive, dt, fused);
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
    // Without avoidance, and when no standing behaviour reads another
    // agent's body, each agent moves right after its behaviours, in the
    // standing pass: one stream over the bodies instead of two (the build
    // then counts the next grid's cells itself, from the positions alone).
    const bool fused = !pref && w->others_readers == 0;
    const int ns = all_alive && !w->contacts && !fused ? st__grid_slices(w, n) : 1;
    // The fused pass keeps each agent's next cell (st_grid.next_cells) when
    // everyone moves and the grid lists them all.
    w->grid.keep_cells = fused && all_alive && w->grid.item_count == n && w->grid.next_cells_cap >= n;
    if (pref) step_avoiding(w, pref, n, ns, dt);
    else step_plain(w, n, ns, all_alive, dt, fused);
    // After the team's last barrier; a removal or a move before the next
    // build clears them (st__moved).
    w->grid.pre_slices = ns > 1 ? ns : 0;
    w->grid.pre_count = n;
    w->grid.pre_cells = w->grid.keep_cells ? n : 0;
    w->grid.keep_cells = false;
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
