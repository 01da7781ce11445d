/*
 * nav_job.c — a path search that runs in slices of a work budget.
 *
 * A job is one st_navgrid_path (or _path_radius) taken apart: the ends are
 * checked and snapped when it starts, the search then runs a slice at a
 * time (Lazy Theta* on an obstacle grid, jump point search on a tile grid),
 * and the finished path is pulled straight and tightened by the same code
 * as a whole query. Work is counted, not timed: one unit for every cell
 * (or jump point) taken from the open list, and one for every raw point of
 * the path the finishing pass walks. So a job's path and the work it costs
 * are the same on every machine and thread count.
 *
 * The search state lives in the grid's buffers, which every query of the
 * grid shares. A job remembers the grid's query count after each of its
 * slices; when another query (a path, a flow field, another job) ran in
 * between, it runs its search again up to where it was, without counting
 * that work. The search is deterministic, so the state it rebuilds is the
 * one it had. When the map itself changed (obstacles, tiles), the search
 * starts over and counts again: the path a job returns is always the one a
 * whole query on the map of the step it finished would give.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_internal.h"

struct st_nav_job {
    st_navgrid *g;
    st_vec2 from, to;
    double radius;
    bool tiled;
    int state;              // NAV_SEARCH_*; IDLE: nothing asked
    st_nav_result result;   // when FAILED: why
    long done;              // units the current search has taken so far
    uint64_t seen;          // g->queries after the job's last slice
    uint64_t map;           // the map's version the search began on
    nav_ends e;             // obstacle grids
    nav_tile_ends te;       // tile grids
    st_vec2 *pts;           // the finished path (FOUND)
    int32_t *lks;           // the link each of its segments takes (0: none), when `linked`
    bool linked;
    int n, cap, lk_cap;
};

static uint64_t map_version(const st_navgrid *g) { return g->map + (g->tiles ? g->tiles->version : 0); }

st_nav_job *st_nav_job_create(st_navgrid *g)
{
    if (!g) return NULL;
    st_nav_job *j = st__calloc(&g->w->mem, 1, sizeof *j);
    if (j) j->g = g;
    return j;
}

void st_nav_job_destroy(st_nav_job *j)
{
    if (!j) return;
    st__free(j->pts);
    st__free(j->lks);
    st__free(j);
}

st_navgrid *st_nav_job_grid(const st_nav_job *j) { return j->g; }

/// Checks and snaps the ends and begins the search (no work counted: the
/// snaps are bounded by the snap radius). False with j->result on failure.
static bool begin(st_nav_job *j)
{
    st_navgrid *g = j->g;
    j->done = 0;
    j->n = 0;
    st_nav_result r;
    if (j->tiled) {
        r = nav__tile_begin(g, j->from, j->to, j->radius, &j->te);
    } else {
        // Obstacle grids plan for their own clearance only.
        r = !st_finite(j->radius) || j->radius < 0.0 || j->radius > g->clearance ? ST_NAV_RADIUS
                                                                                : nav__ends(g, j->from, j->to, &j->e);
        if (r == ST_NAV_OK && j->e.q.s != j->e.q.t) nav__theta_begin(g, &j->e.q);
    }
    j->map = map_version(g);
    j->seen = g->queries;
    if (r != ST_NAV_OK) {
        j->state = NAV_SEARCH_FAILED;
        j->result = r;
        return false;
    }
    j->state = NAV_SEARCH_RUNNING;
    return true;
}

st_nav_result st_nav_job_start(st_nav_job *j, st_vec2 from, st_vec2 to, double radius)
{
    j->from = from;
    j->to = to;
    j->radius = radius;
    j->tiled = j->g->tiles != NULL;
    j->g->queries++; // the buffers now hold this job's search
    begin(j);
    return j->state == NAV_SEARCH_FAILED ? j->result : ST_NAV_OK;
}

/// The search's own slice: at most `budget` units, counted into *used.
static int search(st_nav_job *j, long budget, long *used)
{
    st_navgrid *g = j->g;
    if (j->tiled) {
        nav_query *q = g->query;
        long before = q->pops;
        int s = nav__search_run(q, j->te.k.t, budget);
        *used += q->pops - before;
        return s;
    }
    if (j->e.q.s == j->e.q.t) return NAV_SEARCH_FOUND;
    return nav__theta_run(g, &j->e.q, budget, used);
}

/// Another query used the grid's buffers since the job's last slice: its
/// search again up to where it was, uncounted.
static bool rebuild(st_nav_job *j)
{
    long done = j->done;
    if (!begin(j)) return false;
    long ignored = 0;
    if (done > 0) j->state = search(j, done, &ignored);
    j->done = done;
    return true;
}

/// Raw points the finishing pass walks.
static long finish_cost(const st_nav_job *j)
{
    if (j->tiled) {
        // The jump points' tiles, one step at a time: the octile length.
        const nav_query *q = j->g->query;
        const int s = j->te.k.t->stride;
        long cost = 2;
        for (int k = q->out_n - 1; k > 0; k--) {
            int a = q->out[k], b = q->out[k - 1];
            int dx = abs(b % s - a % s), dy = abs(b / s - a / s);
            cost += dx > dy ? dx : dy;
        }
        return cost;
    }
    if (j->e.q.s == j->e.q.t) return 2;
    long cost = 2;
    for (int c = j->e.q.t; c != j->e.q.s && cost < j->g->cells; c = j->g->parent[c]) cost++;
    return cost;
}

/// The finished path into the job's own copy. False when memory ran out.
static bool finish(st_nav_job *j)
{
    st_navgrid *g = j->g;
    int m;
    if (j->tiled) {
        m = nav__tile_finish(g, &j->te);
    } else {
        m = j->e.q.s == j->e.q.t ? nav__same_cell(g, &j->e) : nav__theta_collect(g, &j->e.q);
        m = nav__finish(g, &j->e, m);
    }
    if (m < 0 || !st__grow(&g->w->mem, (void **)&j->pts, &j->cap, m, sizeof *j->pts)) return false;
    memcpy(j->pts, g->out, (size_t)m * sizeof *j->pts);
    j->n = m;
    j->linked = false;
    for (int k = 0; k + 1 < m && !j->linked; k++) j->linked = st_navgrid_path_link(g, k) != 0;
    if (j->linked) {
        if (!st__grow(&g->w->mem, (void **)&j->lks, &j->lk_cap, m, sizeof *j->lks)) return false;
        for (int k = 0; k < m; k++) j->lks[k] = k + 1 < m ? st_navgrid_path_link(g, k) : 0;
    }
    return true;
}

static int fail(st_nav_job *j, st_nav_result r)
{
    j->state = NAV_SEARCH_FAILED;
    j->result = r;
    return ST_NAV_JOB_FAILED;
}

int st_nav_job_run(st_nav_job *j, long budget, long *used)
{
    long spent = 0;
    const bool fresh = !used || *used == 0; // nothing else ran in this budget yet
    if (j->state == NAV_SEARCH_IDLE) return ST_NAV_JOB_IDLE;
    if (j->state == NAV_SEARCH_FAILED) return ST_NAV_JOB_FAILED;
    if (j->n > 0) return ST_NAV_JOB_DONE;
    st_navgrid *g = j->g;
    if (!j->tiled && st_navgrid_update(g) < 0) return fail(j, ST_NAV_NO_MEMORY);
    if (map_version(g) != j->map) {
        g->queries++;
        if (!begin(j)) return ST_NAV_JOB_FAILED; // the map changed: again, counted
    } else if (g->queries != j->seen) {
        g->queries++;
        if (!rebuild(j)) return ST_NAV_JOB_FAILED;
    }
    int s = j->state == NAV_SEARCH_RUNNING ? search(j, budget, &spent) : j->state;
    j->done += spent;
    j->state = s;
    j->seen = g->queries;
    if (s == NAV_SEARCH_FAILED) {
        if (used) *used += spent;
        // Both ends lie in one connected part, so only memory can fail a
        // tile search; a Lazy Theta* search cannot fail within one part.
        return fail(j, j->tiled && g->query->heap_n > 0 ? ST_NAV_NO_MEMORY : ST_NAV_NO_ROUTE);
    }
    int out = ST_NAV_JOB_RUNNING;
    if (s == NAV_SEARCH_FOUND) {
        long cost = finish_cost(j);
        // The finishing pass waits for a slice with room for it, unless it
        // alone is more than a whole budget (it then takes a slice alone).
        if (spent + cost <= budget || (fresh && spent == 0 && cost > budget)) {
            spent += cost;
            out = finish(j) ? ST_NAV_JOB_DONE : fail(j, ST_NAV_NO_MEMORY);
        }
    }
    if (used) *used += spent;
    return out;
}

int st_nav_job_state(const st_nav_job *j)
{
    if (j->state == NAV_SEARCH_IDLE) return ST_NAV_JOB_IDLE;
    if (j->state == NAV_SEARCH_FAILED) return ST_NAV_JOB_FAILED;
    return j->n > 0 ? ST_NAV_JOB_DONE : ST_NAV_JOB_RUNNING;
}

st_nav_result st_nav_job_result(const st_nav_job *j)
{
    return j->state == NAV_SEARCH_FAILED ? j->result : ST_NAV_OK;
}

const st_vec2 *st_nav_job_points(const st_nav_job *j, int *n)
{
    *n = j->state == NAV_SEARCH_FAILED ? 0 : j->n;
    return *n > 0 ? j->pts : NULL;
}

int st_nav_job_link(const st_nav_job *j, int i)
{
    int n;
    st_nav_job_points(j, &n);
    return j->linked && i >= 0 && i + 1 < n ? j->lks[i] : 0;
}

long st_nav_job_done(const st_nav_job *j) { return j->done; }

void st_nav_job_cancel(st_nav_job *j)
{
    j->state = NAV_SEARCH_IDLE;
    j->n = 0;
    j->done = 0;
}
