/*
 * flowfield.c — flow fields: one goal, a direction for every cell, so any
 * number of agents find their way there for the price of one bilinear read.
 *
 * Distances come from fast marching (Sethian's first-order upwind solver of
 * |grad T| = 1 over the free cells, 4-neighbour stencil): unlike Dijkstra on
 * the 8-connected graph, whose distances are octile and whose directions
 * snap to 8 headings, its wavefronts are round, so its gradient points the
 * straight way across open ground. Each cell's direction is minus the
 * gradient (central differences, one-sided beside walls), replaced by the
 * move to the lowest neighbour wherever the gradient vanishes (a ridge
 * where two fronts meet) or points into a blocked cell. Cells that are
 * blocked or cut off point to the nearest reachable free cell, so an agent
 * pushed into the clearance finds its way out.
 *
 * follow_flow reads the four cell centres around the agent and blends their
 * directions by distance (bilinear), so the heading turns smoothly as it
 * crosses cells instead of jumping at each border.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_internal.h"
#include "behavior_internal.h"

struct st_flowfield {
    int cols, rows;
    double cell;
    st_vec2 goal;
    int goal_cell;
    float *dist;   // INFINITY: unreachable
    float *dir;    // two per cell, unit or zero
};

static void set_dir(st_flowfield *f, int c, st_vec2 d)
{
    d = st_v2_normalize(d);
    f->dir[2 * c] = (float)d.x;
    f->dir[2 * c + 1] = (float)d.y;
}

/// T at cell (x, y) once accepted (known), INFINITY outside the grid or before.
static inline double known_T(const st_navgrid *g, const double *T, const uint8_t *known, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->cols || y >= g->rows) return INFINITY;
    int c = y * g->cols + x;
    return known[c] ? T[c] : INFINITY;
}

/// The eikonal update of cell n from its accepted neighbours (T = arrival times).
static double eikonal(const st_navgrid *g, const double *T, const uint8_t *known, int n)
{
    int x = n % g->cols, y = n / g->cols;
    double h = g->cell;
    double a = fmin(known_T(g, T, known, x - 1, y), known_T(g, T, known, x + 1, y));
    double b = fmin(known_T(g, T, known, x, y - 1), known_T(g, T, known, x, y + 1));
    if (fabs(a - b) >= h || !isfinite(a) || !isfinite(b)) return fmin(a, b) + h;
    return 0.5 * (a + b + sqrt(2.0 * h * h - (a - b) * (a - b)));
}

/// The goal's cell: the one under it, or when that is blocked the nearest
/// free one; -1 with *why set when there is none.
static int goal_cell(st_navgrid *g, st_vec2 goal, st_nav_result *why)
{
    const st_world *w = g->w;
    double wide = g->tiles ? g->cols * g->cell : st_world_width(w); // a tile grid: its map
    double high = g->tiles ? g->rows * g->cell : st_world_height(w);
    if (!st_v2_finite(goal) || goal.x < 0.0 || goal.y < 0.0 || goal.x > wide || goal.y > high) {
        *why = ST_NAV_OUTSIDE;
        return -1;
    }
    if (st_navgrid_update(g) < 0) {
        *why = ST_NAV_NO_MEMORY;
        return -1;
    }
    int gx, gy;
    int t = nav__cell_of(g, goal, &gx, &gy);
    if (g->count[t] && (t = nav__snap(g, goal, -1)) < 0) {
        *why = ST_NAV_GOAL_BLOCKED;
        return -1;
    }
    return t;
}

/// Fast marching from the goal (in cell t) over the free cells: g->g holds
/// the arrival times T, g->closed marks the accepted (reachable) cells.
static void march(st_navgrid *g, st_vec2 goal, int t)
{
    double *T = g->g;
    uint8_t *known = g->closed;
    for (int c = 0; c < g->cells; c++) {
        T[c] = INFINITY;
        known[c] = 0;
        g->heap.pos[c] = -1;
    }
    g->heap.n = 0;
    T[t] = st_v2_dist(goal, nav__center(g, t));
    g->key[t] = T[t];
    nav__heap_push(&g->heap, g->key, t);
    while (g->heap.n > 0) {
        int c = nav__heap_pop(&g->heap, g->key);
        known[c] = 1;
        int x = c % g->cols, y = c / g->cols;
        for (int k = 0; k < 4; k++) {
            int n = nav__step(g, x, y, k);
            if (n < 0 || known[n]) continue;
            double v = eikonal(g, T, known, n);
            if (v < T[n]) {
                T[n] = v;
                g->key[n] = v;
                if (g->heap.pos[n] >= 0) nav__heap_decrease(&g->heap, g->key, n);
                else nav__heap_push(&g->heap, g->key, n);
            }
        }
    }
}

/// One axis of T's gradient at c, from its neighbours lo and hi along it
/// (INFINITY where not reachable): central where both are, one-sided
/// beside a wall, and only ever pointing down towards the goal there.
static double gradient_axis(double lo, double here, double hi, double h)
{
    return isfinite(lo) && isfinite(hi) ? (hi - lo) / (2.0 * h)
         : isfinite(lo)                 ? fmax(0.0, here - lo) / h
         : isfinite(hi)                 ? fmin(0.0, hi - here) / h
                                        : 0.0;
}

/// Steepest descent from reachable cell c (at x, y) to an allowed neighbour,
/// per unit of distance; zero when no neighbour lies lower.
static st_vec2 descent_dir(const st_navgrid *g, const double *T, int c, int x, int y)
{
    double best = T[c];
    int bk = -1;
    for (int k = 0; k < 8; k++) {
        int n = nav__step(g, x, y, k);
        if (n < 0) continue;
        double slope = (T[n] - T[c]) / (k < 4 ? 1.0 : sqrt(2.0));
        if (T[n] < T[c] && (bk < 0 || slope < best)) {
            best = slope;
            bk = k;
        }
    }
    return bk >= 0 ? st_v2(NAV_DX[bk], NAV_DY[bk]) : st_v2(0.0, 0.0);
}

/// The direction of reachable cell c (not the goal's): minus the gradient,
/// or steepest descent where the gradient vanishes or leads into a move
/// the grid forbids.
static st_vec2 reachable_dir(const st_navgrid *g, const double *T, const uint8_t *known, int c)
{
    int x = c % g->cols, y = c / g->cols;
    double h = g->cell;
    double gxv = gradient_axis(known_T(g, T, known, x - 1, y), T[c], known_T(g, T, known, x + 1, y), h);
    double gyv = gradient_axis(known_T(g, T, known, x, y - 1), T[c], known_T(g, T, known, x, y + 1), h);
    st_vec2 dir = st_v2_normalize(st_v2(-gxv, -gyv));
    int kx = (int)lround(dir.x * 1.2), ky = (int)lround(dir.y * 1.2);
    bool ok = kx != 0 || ky != 0;
    if (ok) {
        for (int k = 0; k < 8; k++)
            if (NAV_DX[k] == kx && NAV_DY[k] == ky) ok = nav__step(g, x, y, k) >= 0;
    }
    return ok ? dir : descent_dir(g, T, c, x, y);
}

/// Blocked and cut-off cells: towards the nearest reachable cell, found by
/// a breadth-first sweep outwards from all of them (parent = queue).
static void point_out_of_blocked(st_flowfield *f, st_navgrid *g)
{
    uint8_t *known = g->closed;
    int tail = 0;
    for (int c = 0; c < g->cells; c++)
        if (known[c]) g->parent[tail++] = c;
    for (int head = 0; head < tail; head++) {
        int c = g->parent[head], x = c % g->cols, y = c / g->cols;
        for (int k = 0; k < 8; k++) {
            int nx = x + NAV_DX[k], ny = y + NAV_DY[k];
            if (nx < 0 || ny < 0 || nx >= g->cols || ny >= g->rows) continue;
            int n = ny * g->cols + nx;
            if (known[n]) continue;
            known[n] = 2;
            set_dir(f, n, st_v2(-NAV_DX[k], -NAV_DY[k]));
            g->parent[tail++] = n;
        }
    }
}

st_flowfield *st_flowfield_create(st_navgrid *g, st_vec2 goal, st_nav_result *why)
{
    st_nav_result dummy;
    if (!why) why = &dummy;
    *why = ST_NAV_OK;
    g->queries++; // the search buffers (nav_job.c)
    if (!nav__cell_buffers(g)) { // a tile grid's first flow field
        *why = ST_NAV_NO_MEMORY;
        return NULL;
    }
    int t = goal_cell(g, goal, why);
    if (t < 0) return NULL;
    st_flowfield *f = st__calloc(&g->w->mem, 1, sizeof *f);
    if (f) {
        f->dist = st__alloc(&g->w->mem, (size_t)g->cells * sizeof *f->dist);
        f->dir = st__alloc(&g->w->mem, (size_t)g->cells * 2 * sizeof *f->dir);
    }
    if (!f || !f->dist || !f->dir) {
        st_flowfield_destroy(f);
        *why = ST_NAV_NO_MEMORY;
        return NULL;
    }
    f->cols = g->cols;
    f->rows = g->rows;
    f->cell = g->cell;
    f->goal = goal;
    f->goal_cell = t;
    march(g, goal, t);
    // Directions of the reachable cells.
    const double *T = g->g;
    for (int c = 0; c < g->cells; c++) {
        f->dist[c] = (float)T[c];
        f->dir[2 * c] = f->dir[2 * c + 1] = 0.0f;
        if (!g->closed[c]) continue;
        set_dir(f, c, c == t ? st_v2_sub(goal, nav__center(g, c)) : reachable_dir(g, T, g->closed, c));
    }
    point_out_of_blocked(f, g);
    return f;
}

void st_flowfield_destroy(st_flowfield *f)
{
    if (!f) return;
    st__free(f->dist);
    st__free(f->dir);
    st__free(f);
}

st_vec2 st_flowfield_goal(const st_flowfield *f) { return f->goal; }
int st_flowfield_cols(const st_flowfield *f) { return f->cols; }
int st_flowfield_rows(const st_flowfield *f) { return f->rows; }
double st_flowfield_cell(const st_flowfield *f) { return f->cell; }

static inline int clampi(int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; }

st_vec2 st_flowfield_dir(const st_flowfield *f, st_vec2 p)
{
    if (!st_v2_finite(p)) return st_v2(0.0, 0.0);
    double fx = p.x / f->cell - 0.5, fy = p.y / f->cell - 0.5;
    fx = fmin(fmax(fx, -1.0), (double)f->cols);
    fy = fmin(fmax(fy, -1.0), (double)f->rows);
    int x0 = (int)floor(fx), y0 = (int)floor(fy);
    double tx = fx - x0, ty = fy - y0;
    int cx = clampi((int)floor(p.x / f->cell), f->cols - 1), cy = clampi((int)floor(p.y / f->cell), f->rows - 1);
    if (cy * f->cols + cx == f->goal_cell) return st_v2_normalize(st_v2_sub(f->goal, p));
    int xa = clampi(x0, f->cols - 1), xb = clampi(x0 + 1, f->cols - 1);
    int ya = clampi(y0, f->rows - 1), yb = clampi(y0 + 1, f->rows - 1);
    const float *d = f->dir;
    int cs[4] = {ya * f->cols + xa, ya * f->cols + xb, yb * f->cols + xa, yb * f->cols + xb};
    double ws[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    // On reachable ground only reachable cells count: the blocked ones
    // beside them point away from the wall, and blended in they would push
    // a follower off the mouth of a narrow passage.
    int own = cy * f->cols + cx;
    bool free_here = isfinite(f->dist[own]);
    st_vec2 v = st_v2(0.0, 0.0);
    for (int k = 0; k < 4; k++) {
        if (free_here && !isfinite(f->dist[cs[k]])) continue;
        v.x += ws[k] * d[2 * cs[k]];
        v.y += ws[k] * d[2 * cs[k] + 1];
    }
    if (st_v2_len2(v) < 1e-6) // nothing left, or opposite directions cancelled: the agent's own cell decides
        v = st_v2(d[2 * own], d[2 * own + 1]);
    return st_v2_normalize(v);
}

double st_flowfield_distance(const st_flowfield *f, st_vec2 p)
{
    if (!st_v2_finite(p)) return INFINITY;
    int cx = clampi((int)floor(p.x / f->cell), f->cols - 1), cy = clampi((int)floor(p.y / f->cell), f->rows - 1);
    return f->dist[cy * f->cols + cx];
}

st_vec2 st__flow_desired(const st_flowfield *f, st_vec2 pos, double max_speed)
{
    if (!f) return st_v2(0.0, 0.0);
    st_vec2 dir = st_flowfield_dir(f, pos);
    // Slow into the goal over the last cell so followers settle there.
    double d = st_v2_dist(pos, f->goal);
    double speed = d < f->cell ? max_speed * d / f->cell : max_speed;
    return st_v2_scale(dir, speed);
}
