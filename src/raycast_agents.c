/*
 * raycast_agents.c — rays against agents through the world's neighbour grid,
 * and the largest agent radius that makes that exact.
 *
 * An agent can be hit only if its centre lies within its radius of the ray,
 * so within the largest radius of any agent: the grid cells that come that
 * near the ray hold every candidate, and only their agents are tested
 * (raycast.c's own test, with its tie-break by spawn order: the answer is
 * the one testing every agent gives, whatever order the cells come in).
 *
 * The grid is used outside a step only, rebuilt first when anything moved
 * (it is a cache, as st_world_query's): then it lists every live agent at
 * its position. In a step (a brain's sight test on the team's threads)
 * every agent is tested. Wrap worlds test every agent too: the grid folds
 * positions into the world and a ray does not.
 *
 * The largest radius is kept as a bound that never falls below the truth:
 * raised by a spawn or a larger radius; when the agent that may hold it is
 * removed or shrinks (or a snapshot is restored) it is marked stale and the
 * next ray counts it again over the live agents. Counted, not guessed, so
 * it is the same on any machine; it only chooses cells, never the answer.
 */
#include <math.h>

#include "raycast_internal.h"
#include "grid.h"
#include "grid_iter.h"

void st__radius_spawned(st_world *w, double r)
{
    if (w->radius_max_ok && r > w->radius_max) w->radius_max = r;
}

void st__radius_dropped(st_world *w, double r)
{
    if (r >= w->radius_max) w->radius_max_ok = false;
}

double st__radius_max(st_world *w)
{
    if (w->radius_max_ok) return w->radius_max;
    double m = 0.0;
    for (int i = 0; i < w->count; i++)
        if (w->agents[i].alive && w->bodies[i].radius > m) m = w->bodies[i].radius;
    w->radius_max = m;
    w->radius_max_ok = true;
    return m;
}

/// The cells (clamped to the grid: the edge cells hold the agents beyond the
/// world) whose span, widened by `reach`, the ray's bounding box overlaps.
static void ray_cells(const st_grid *g, const st__ray *r, double reach, int *x0, int *x1, int *y0, int *y1)
{
    st_vec2 a = r->from, b = st_v2_add(r->from, r->d);
    *x0 = st__clamp_cell(floor((fmin(a.x, b.x) - reach) / g->cell_w), g->nx);
    *x1 = st__clamp_cell(floor((fmax(a.x, b.x) + reach) / g->cell_w), g->nx);
    *y0 = st__clamp_cell(floor((fmin(a.y, b.y) - reach) / g->cell_h), g->ny);
    *y1 = st__clamp_cell(floor((fmax(a.y, b.y) + reach) / g->cell_h), g->ny);
}

/// Whether cell (cx, cy) may hold a centre within `reach` of the ray: its
/// rectangle (open to infinity on the grid's edges, which hold the agents
/// beyond them) against the ray's line, as a distance from the cell's
/// middle within half its diagonal and reach. A bound, no more.
static bool cell_near(const st_grid *g, const st__ray *r, int cx, int cy, double reach)
{
    if (cx == 0 || cy == 0 || cx == g->nx - 1 || cy == g->ny - 1) return true;
    st_vec2 c = st_v2((cx + 0.5) * g->cell_w, (cy + 0.5) * g->cell_h);
    st_vec2 f = st_v2_sub(c, r->from);
    double t = st_v2_dot(f, r->d) / r->len2;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double d = st_v2_len(st_v2_sub(f, st_v2_scale(r->d, t)));
    double half = 0.5 * sqrt(g->cell_w * g->cell_w + g->cell_h * g->cell_h);
    return d <= half + reach + 1e-9 * (1.0 + d);
}

void st__ray_agents(const st_world *cw, const st__ray *r, const st_raycast_opts *o, st__ray_best *best)
{
    // The grid and the largest radius are caches: refreshing them does not
    // change what the world is.
    st_world *w = (st_world *)cw;
    if (w->in_step || w->edges == ST_EDGES_WRAP || w->brute_force || w->count == 0) {
        st__ray_agents_all(w, r, o, best);
        return;
    }
    if (w->grid_dirty) st__grid_build(w, w->count);
    const st_grid *g = &w->grid;
    if (w->grid_dirty || !g->cell_start || g->nx <= 0 || g->ny <= 0 || !(g->cell_w > 0.0) || !(g->cell_h > 0.0)) {
        st__ray_agents_all(w, r, o, best); // no grid (out of memory): every agent, same answer
        return;
    }
    double reach = st__radius_max(w);
    int x0, x1, y0, y1;
    ray_cells(g, r, reach, &x0, &x1, &y0, &y1);
    for (int cy = y0; cy <= y1; cy++)
        for (int cx = x0; cx <= x1; cx++) {
            if (!cell_near(g, r, cx, cy, reach)) continue;
            int c = cy * g->nx + cx;
            for (int k = g->cell_start[c]; k < g->cell_start[c + 1]; k++)
                st__ray_test_agent(w, r, o, (int)g->items[k].index, best);
        }
}
