/*
 * step.c — one simulation step.
 *
 *   1. rebuild the neighbour grid from positions          (st_world_step_begin)
 *      (a big world re-sorts its storage into that grid's order now and then)
 *      behaviours asked for since the last step are computed with this
 *      step's dt (request.c)
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
#include "avoid.h"
#include "behavior_internal.h"
#include "motion.h"
#include "mover.h"
#include "obstacle.h"

void st_world_step_begin(st_world *w, double dt)
{
    assert(!w->in_step);
    assert(st_finite(dt) && dt > 0.0);
    if (w->in_step) return;
    if (!(st_finite(dt) && dt > 0.0)) dt = w->dt;
    if (w->dead > 0) st__compact(w);
    w->step_dt = dt;
    w->step_count = w->count;
    st__link_events_begin(w);
    st__grid_build(w, w->count);
    if (st__reorder_due(w)) st__reorder(w);
    w->in_step = true;
    w->trace_count[w->trace_cur] = 0;
    // What was asked for since the last step, now with this step's dt.
    if (w->requests.count > 0) st__requests_finish(w);
    // Orders: the path queue's share of work, then each ordered agent's force.
    if (w->mover) st__mover_step(w);
}

void st__integrate(st_world *w, int i, double dt) { st__integrate_inline(w, i, dt); }

void st__move_group(st_world *w, const int *idx, int n, double dt, int32_t *cells)
{
    st__integrate_group(w, idx, n, dt);
    if (cells)
        for (int m = 0; m < n; m++) cells[idx[m]] = st__cell_of(w, &w->grid, w->bodies[idx[m]].pos);
}

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
            if (pref) st__integrate_move(w, i, st__avoid_velocity(w, i), dt);
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
    // Scratch for the steps aside (avoid_yield.c); without memory for it,
    // agents at rest do not make room this step.
    st_vec2 *aside = st__grow(&w->mem, (void **)&w->aside, &w->aside_cap, n, sizeof *w->aside) ? w->aside : NULL;
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
        if (aside) st__yield_pass(w, pref, aside, n);
        st__avoid_pass(w, pref, !mixed);
        if (ns > 1) {
            move_in_slices(w, pref, n, ns, dt);
        } else {
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4096)
#endif
            for (int i = 0; i < n; i++)
                if (all_alive || w->agents[i].alive) st__integrate_move(w, i, st__avoid_velocity(w, i), dt);
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
    st__link_events_end(w);

    w->in_step = false;
    w->removed_in_step = false;
    w->grid_dirty = true;
    if (w->dead > 0) st__compact(w);
    w->tick++;
    w->time += dt;
    w->last_dt = dt;
    if (!isfinite(w->time)) w->time = DBL_MAX; // steps of 1e308 s: saturate, never inf
    w->trace_cur = 1 - w->trace_cur;
}

void st_world_step(st_world *w, double dt)
{
    st_world_step_begin(w, dt);
    st_world_step_end(w);
}

/* ------------------------------------------------------------------------ */
/* a game's frames: fixed steps from an accumulator                         */
/* ------------------------------------------------------------------------ */

/// A step is due when the accumulator holds its dt to within this share of
/// it: frame times summed in floating point (1/30 = 2 x 1/60 plus a
/// rounding) must not leave a step waiting a whole frame.
#define ST_ADVANCE_SLACK 1e-9

int st_world_advance_due(st_world *w, double frame_dt)
{
    if (!(st_finite(frame_dt) && frame_dt >= 0.0)) return 0;
    w->advance_acc += frame_dt;
    if (!st_finite(w->advance_acc)) w->advance_acc = DBL_MAX;
    int n = 0;
    const double dt = w->dt;
    while (w->advance_acc >= dt * (1.0 - ST_ADVANCE_SLACK)) {
        if (n == w->advance_max) {
            // Behind by more than the cap: the rest is dropped, counted, and
            // the simulation runs slower than real time for this frame.
            double behind = floor(w->advance_acc / dt + ST_ADVANCE_SLACK);
            w->advance_dropped += behind > 0.0 ? (uint64_t)fmin(behind, 1e18) : 1u;
            w->advance_acc = fmod(w->advance_acc, dt);
            if (w->advance_acc >= dt * (1.0 - ST_ADVANCE_SLACK)) w->advance_acc = 0.0;
            break;
        }
        w->advance_acc -= dt;
        n++;
    }
    if (w->advance_acc < 0.0) w->advance_acc = 0.0;
    return n;
}

double st_world_advance_alpha(const st_world *w)
{
    double alpha = w->advance_acc / w->dt;
    return alpha < 0.0 ? 0.0 : alpha > 1.0 ? 1.0 : alpha;
}

int st_world_advance(st_world *w, double frame_dt)
{
    int n = st_world_advance_due(w, frame_dt);
    for (int k = 0; k < n; k++) st_world_step(w, w->dt);
    return n;
}

void st_world_set_advance_max(st_world *w, int max_steps)
{
    if (max_steps >= 1) w->advance_max = max_steps;
}
int st_world_advance_max(const st_world *w) { return w->advance_max; }
uint64_t st_world_advance_dropped(const st_world *w) { return w->advance_dropped; }

st_vec2 st_agent_render_pos(const st_world *w, st_agent_id id, double alpha)
{
    int i = st__dense(w, id);
    if (i < 0) return st_v2(0.0, 0.0);
    const st_body *b = &w->bodies[i];
    if (!(alpha >= 0.0)) alpha = 0.0; // also nan
    if (alpha > 1.0) alpha = 1.0;
    // The position `alpha` of the way through the last step: it moved along
    // its velocity for w->last_dt (edges and contacts aside, which this
    // smooths over).
    st_vec2 back = st_v2_scale(b->vel, w->last_dt * (1.0 - alpha));
    st_vec2 p = st_v2_sub(b->pos, back);
    return st_v2_finite(p) ? p : b->pos;
}
