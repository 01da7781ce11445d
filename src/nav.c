/*
 * nav.c — the navigation grid: the world's obstacles and walls rasterised,
 * inflated by a clearance, into square cells; exact line of sight; any-angle
 * paths (Lazy Theta*, then string pulling and corner tightening).
 *
 * A cell is blocked when its centre lies closer than clearance + half its
 * diagonal to some obstacle: then no point of a free cell comes within the
 * clearance, so a segment that only crosses free cells is clear without any
 * further test, and the search needs no geometry at all. That margin is
 * what the grid costs in narrow passages; the exact line of sight, used to
 * pull the finished path straight, gives it back where it matters (corners).
 *
 * Each obstacle and wall keeps its footprint (the cells it blocks, counted in
 * `count`), so a moved or removed obstacle takes back exactly its own cells
 * and stamps the new ones: an update costs the obstacles that changed, not
 * the grid. Connected parts of the free cells are labelled after a change,
 * so a query between parts fails at once instead of searching the whole
 * grid.
 *
 * Every search pops cells in one fixed order (ties by cell index) and reuses
 * the grid's buffers (a stamp per cell instead of clearing them), so a query
 * allocates nothing once warm and gives the same path every time.
 */
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_internal.h"
#include "geom.h"
#include "mover.h"
#include "obstacle.h"

st_navgrid_def st_default_navgrid_def(void)
{
    st_navgrid_def d;
    d.cell = 10.0;
    d.clearance = 6.0;
    d.tiles = NULL;
    d.tile_cols = d.tile_rows = 0;
    return d;
}

const char *st_nav_result_name(st_nav_result r)
{
    switch (r) {
    case ST_NAV_OK: return "ok";
    case ST_NAV_NO_ROUTE: return "no route";
    case ST_NAV_START_BLOCKED: return "start blocked";
    case ST_NAV_GOAL_BLOCKED: return "goal blocked";
    case ST_NAV_OUTSIDE: return "outside the world";
    case ST_NAV_NO_MEMORY: return "out of memory";
    case ST_NAV_RADIUS: return "radius too large";
    }
    return "?";
}

/* ---- create / destroy ---- */

static void free_cell_buffers(st_navgrid *g)
{
    void **p[] = {(void **)&g->count, (void **)&g->g, (void **)&g->key, (void **)&g->parent, (void **)&g->stamp,
                  (void **)&g->closed, (void **)&g->heap.items, (void **)&g->heap.pos};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
        st__free(*p[k]);
        *p[k] = NULL;
    }
}

/// The buffers of one cell each that obstacle-grid searches and flow
/// fields use (cell counts, costs, parents, stamps, the heap): made with
/// an obstacle grid, and for a tile grid with its first flow field (its
/// paths use its query, whose memory grows with the search, not the map).
bool nav__cell_buffers(st_navgrid *g)
{
    if (g->count) return true;
    size_t n = (size_t)g->cells;
    const st_mem *m = &g->w->mem;
    g->count = st__calloc(m, n, sizeof *g->count);
    g->g = st__alloc(m, n * sizeof *g->g);
    g->key = st__alloc(m, n * sizeof *g->key);
    g->parent = st__alloc(m, n * sizeof *g->parent);
    g->stamp = st__calloc(m, n, sizeof *g->stamp);
    g->closed = st__calloc(m, n, sizeof *g->closed);
    g->heap.items = st__alloc(m, n * sizeof *g->heap.items);
    g->heap.pos = st__alloc(m, n * sizeof *g->heap.pos);
    if (!g->count || !g->g || !g->key || !g->parent || !g->stamp || !g->closed || !g->heap.items || !g->heap.pos) {
        free_cell_buffers(g);
        return false;
    }
    for (size_t i = 0; i < n; i++) g->heap.pos[i] = -1;
    if (g->tiles)
        for (int y = 0; y < g->rows; y++)
            for (int x = 0; x < g->cols; x++)
                g->count[y * g->cols + x] = nav__tile_blocked(g->tiles, x, y);
    return true;
}

/// A tile grid's map and query; its parts labelled.
static bool tiles_init(st_navgrid *g, const uint8_t *tiles)
{
    g->tiles = nav__tiles_create(&g->w->mem, g->cols, g->rows, tiles);
    g->query = g->tiles ? nav__query_create(&g->w->mem, g->tiles->cells) : NULL;
    if (!g->tiles || !g->query) return false;
    nav__label_parts(g); // now, not in the first query
    return true;
}

/// An obstacle grid's buffers: one per cell for its searches, and room
/// for a path through every cell.
static bool cells_init(st_navgrid *g)
{
    g->out_cap = g->cells + 4;
    g->out = st__alloc(&g->w->mem, (size_t)g->out_cap * sizeof *g->out);
    return g->out && nav__cell_buffers(g);
}

st_navgrid *st_navgrid_create(st_world *w, const st_navgrid_def *def)
{
    if (!w || !def || !st_finite(def->cell) || !(def->cell > 0.0) || !st_finite(def->clearance) ||
        !(def->clearance >= 0.0))
        return NULL;
    double cols = ceil(st_world_width(w) / def->cell), rows = ceil(st_world_height(w) / def->cell);
    double most = ST_NAV_MAX_CELLS;
    if (def->tiles) {
        cols = def->tile_cols;
        rows = def->tile_rows;
        most = ST_NAV_MAX_TILES;
        if (cols * def->cell > st_world_width(w) * (1 + 1e-12) || rows * def->cell > st_world_height(w) * (1 + 1e-12))
            return NULL;
    }
    if (!(cols >= 1.0 && rows >= 1.0 && cols * rows <= most))
        return NULL;
    st_navgrid *g = st__calloc(&w->mem, 1, sizeof *g);
    if (!g) return NULL;
    g->w = w;
    g->cell = def->cell;
    g->clearance = def->clearance;
    g->cols = (int)cols;
    g->rows = (int)rows;
    g->cells = g->cols * g->rows;
    g->comp = st__alloc(&g->w->mem, (size_t)g->cells * sizeof *g->comp);
    g->comp_dirty = true;
    if (!g->comp || (def->tiles ? !tiles_init(g, def->tiles) : !cells_init(g))) {
        st_navgrid_destroy(g);
        return NULL;
    }
    if (st_navgrid_update(g) < 0 ||
        !st__grow(&w->mem, (void **)&w->navs, &w->nav_cap, w->nav_n + 1, sizeof *w->navs)) {
        st_navgrid_destroy(g);
        return NULL;
    }
    w->navs[w->nav_n++] = g;
    return g;
}

void st__nav_orphan(st_navgrid *g) { g->w = NULL; }

/// The grid leaves its world's list (and the world's orders let it go).
static void leave_world(st_navgrid *g)
{
    st_world *w = g->w;
    if (!w) return;
    st__mover_forget(w, g);
    for (int k = 0; k < w->nav_n; k++)
        if (w->navs[k] == g) {
            w->navs[k] = w->navs[--w->nav_n];
            break;
        }
}

void st_navgrid_destroy(st_navgrid *g)
{
    if (!g) return;
    leave_world(g);
    for (int i = 0; i < g->obs_count; i++) st__free(g->obs[i].cells);
    for (int i = 0; i < g->wall_count; i++) st__free(g->walls[i].cells);
    st__free(g->obs);
    st__free(g->walls);
    free_cell_buffers(g);
    st__free(g->comp);
    st__free(g->out);
    nav__tiles_destroy(g->tiles);
    nav__query_destroy(g->query);
    st__free(g->dense);
    nav__links_free(&g->links);
    st__free(g->out_link);
    st__free(g);
}

int st_navgrid_cols(const st_navgrid *g) { return g->cols; }
int st_navgrid_rows(const st_navgrid *g) { return g->rows; }
double st_navgrid_cell(const st_navgrid *g) { return g->cell; }
double st_navgrid_clearance(const st_navgrid *g) { return g->clearance; }

double st_navgrid_snap_radius(const st_navgrid *g) { return fmax(2.0 * g->cell, g->clearance + g->cell); }

/* ---- geometry ---- */

/// Distance from p to the outline of an obstacle (0 inside a closed polygon).
static double obstacle_distance(const st_obstacle *o, st_vec2 p)
{
    if (o->kind == ST_OBSTACLE_CIRCLE) return st_v2_dist(p, o->center) - o->radius;
    if (o->kind == ST_OBSTACLE_POLYGON && st__polygon_holds(o, p)) return 0.0;
    st_vec2 q = st_v2_sub(p, o->center);
    int n = o->point_count, segs = o->kind == ST_OBSTACLE_POLYGON ? n : n - 1;
    double best = INFINITY;
    for (int k = 0; k < segs; k++) {
        st_vec2 a = o->points[k], b = o->points[(k + 1) % n];
        best = fmin(best, st_v2_dist2(q, st__closest_on_segment(q, a, b)));
    }
    return sqrt(best);
}

static double segment_point_distance(st_vec2 p, st_vec2 a, st_vec2 b)
{
    return st_v2_dist(p, st__closest_on_segment(p, a, b));
}

/// Whether segments a-b and c-d meet (touching counts).
static bool segments_meet(st_vec2 a, st_vec2 b, st_vec2 c, st_vec2 d)
{
    double d1 = st_v2_cross(st_v2_sub(b, a), st_v2_sub(c, a));
    double d2 = st_v2_cross(st_v2_sub(b, a), st_v2_sub(d, a));
    double d3 = st_v2_cross(st_v2_sub(d, c), st_v2_sub(a, c));
    double d4 = st_v2_cross(st_v2_sub(d, c), st_v2_sub(b, c));
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
    // Collinear or touching cases: an endpoint on the other segment.
    if (d1 == 0 && segment_point_distance(c, a, b) == 0) return true;
    if (d2 == 0 && segment_point_distance(d, a, b) == 0) return true;
    if (d3 == 0 && segment_point_distance(a, c, d) == 0) return true;
    if (d4 == 0 && segment_point_distance(b, c, d) == 0) return true;
    return false;
}

static double segment_segment_distance(st_vec2 a, st_vec2 b, st_vec2 c, st_vec2 d)
{
    if (segments_meet(a, b, c, d)) return 0.0;
    double x = segment_point_distance(a, c, d), y = segment_point_distance(b, c, d);
    double z = segment_point_distance(c, a, b), u = segment_point_distance(d, a, b);
    x = x < y ? x : y;
    z = z < u ? z : u;
    return x < z ? x : z;
}

static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

/// Whether segment a-b stays at least r from the obstacle (and out of it).
/// The bounding circle first: most obstacles near a segment's box are not
/// near the segment.
static bool segment_clear_of(const st_obstacle *o, st_vec2 a, st_vec2 b, double r)
{
    double dc = segment_point_distance(o->center, a, b);
    if (o->kind == ST_OBSTACLE_CIRCLE) return r > 0.0 || o->radius > 0.0 ? dc >= o->radius + r : dc > 0.0;
    if (dc > o->radius + r) return true;
    st_vec2 qa = st_v2_sub(a, o->center), qb = st_v2_sub(b, o->center);
    double lox = dmin(qa.x, qb.x) - r, hix = dmax(qa.x, qb.x) + r;
    double loy = dmin(qa.y, qb.y) - r, hiy = dmax(qa.y, qb.y) + r;
    int n = o->point_count, segs = o->kind == ST_OBSTACLE_POLYGON ? n : n - 1;
    for (int k = 0; k < segs; k++) {
        st_vec2 e0 = o->points[k], e1 = o->points[(k + 1) % n];
        if (dmax(e0.x, e1.x) < lox || dmin(e0.x, e1.x) > hix || dmax(e0.y, e1.y) < loy || dmin(e0.y, e1.y) > hiy)
            continue; // the edge's box misses the segment's, widened by r
        double d = segment_segment_distance(qa, qb, e0, e1);
        if (d < r || (d == 0.0)) return false;
    }
    // Clear of the outline: wholly inside or wholly outside.
    return o->kind != ST_OBSTACLE_POLYGON || !st__polygon_holds(o, a);
}

/// Whether the axis-aligned boxes [lo, hi] overlap.
static inline bool boxes_overlap(st_vec2 alo, st_vec2 ahi, st_vec2 blo, st_vec2 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y;
}

static bool visible_exact(const st_world *w, st_vec2 a, st_vec2 b, double c)
{
    st_vec2 lo = st_v2(dmin(a.x, b.x), dmin(a.y, b.y)), hi = st_v2(dmax(a.x, b.x), dmax(a.y, b.y));
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        double r = o->radius + c;
        if (!boxes_overlap(lo, hi, st_v2(o->center.x - r, o->center.y - r), st_v2(o->center.x + r, o->center.y + r)))
            continue;
        if (!segment_clear_of(o, a, b, c)) return false;
    }
    for (int i = 0; i < w->wall_count; i++) {
        const st_wall *wl = &w->walls[i];
        st_vec2 wlo = st_v2(dmin(wl->from.x, wl->to.x) - c, dmin(wl->from.y, wl->to.y) - c);
        st_vec2 whi = st_v2(dmax(wl->from.x, wl->to.x) + c, dmax(wl->from.y, wl->to.y) + c);
        if (!boxes_overlap(lo, hi, wlo, whi)) continue;
        double d = segment_segment_distance(a, b, wl->from, wl->to);
        if (d < c || d == 0.0) return false;
    }
    return true;
}

/// The smoothing's sight line: exact, and clear of the discs a search
/// keeps out of (st_navgrid.keep_*).
static bool path_sight(const st_navgrid *g, st_vec2 a, st_vec2 b, double c)
{
    for (int k = 0; k < g->keep_n; k++)
        if (st_v2_dist(st__closest_on_segment(g->keep_c[k], a, b), g->keep_c[k]) < g->keep_r[k]) return false;
    return visible_exact(g->w, a, b, c);
}

bool st_navgrid_visible(st_navgrid *g, st_vec2 a, st_vec2 b)
{
    if (!st_v2_finite(a) || !st_v2_finite(b)) return false;
    if (g->tiles)
        return nav__tiles_clear(g->tiles, st_v2_scale(a, 1.0 / g->cell), st_v2_scale(b, 1.0 / g->cell),
                                g->clearance / g->cell);
    return visible_exact(g->w, a, b, g->clearance);
}

/// Whether the point keeps the clearance from everything.
static bool point_clear(const st_world *w, st_vec2 p, double c)
{
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (st_v2_dist2(p, o->center) > (o->radius + c) * (o->radius + c)) continue;
        double d = obstacle_distance(o, p);
        if (d < c || (o->kind == ST_OBSTACLE_POLYGON && d == 0.0)) return false;
    }
    for (int i = 0; i < w->wall_count; i++)
        if (segment_point_distance(p, w->walls[i].from, w->walls[i].to) < c) return false;
    return true;
}

/* ---- rasterising ---- */

static bool fp_push(const st_navgrid *g, nav_footprint *f, int32_t c)
{
    if (f->n == f->cap && !st__grow(&g->w->mem, (void **)&f->cells, &f->cap, f->n + 1, sizeof *f->cells)) return false;
    f->cells[f->n++] = c;
    return true;
}

/// The cells whose centres lie within the box [lo, hi].
static void cell_range(const st_navgrid *g, st_vec2 lo, st_vec2 hi, int *x0, int *y0, int *x1, int *y1)
{
    *x0 = (int)fmax(0.0, ceil(lo.x / g->cell - 0.5));
    *y0 = (int)fmax(0.0, ceil(lo.y / g->cell - 0.5));
    *x1 = (int)fmin(g->cols - 1.0, floor(hi.x / g->cell - 0.5));
    *y1 = (int)fmin(g->rows - 1.0, floor(hi.y / g->cell - 0.5));
}

/// A stamp that ran out of memory: none of the cells found so far were
/// counted, so f keeps none (unstamp then takes nothing back).
static bool stamp_failed(nav_footprint *f)
{
    f->n = 0;
    return false;
}

/// Stamps the cells the obstacle blocks into f (emptied first) and count;
/// on failure, none.
static bool stamp_obstacle(st_navgrid *g, const st_obstacle *o, nav_footprint *f)
{
    f->n = 0;
    double reach = g->clearance + 0.5 * sqrt(2.0) * g->cell;
    double r = o->radius + reach;
    int x0, y0, x1, y1;
    cell_range(g, st_v2(o->center.x - r, o->center.y - r), st_v2(o->center.x + r, o->center.y + r), &x0, &y0, &x1, &y1);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int c = y * g->cols + x;
            if (obstacle_distance(o, nav__center(g, c)) < reach && !fp_push(g, f, c)) return stamp_failed(f);
        }
    for (int k = 0; k < f->n; k++) g->count[f->cells[k]]++;
    return true;
}

static bool stamp_wall(st_navgrid *g, const st_wall *wl, nav_footprint *f)
{
    f->n = 0;
    double reach = g->clearance + 0.5 * sqrt(2.0) * g->cell;
    st_vec2 lo = st_v2(fmin(wl->from.x, wl->to.x) - reach, fmin(wl->from.y, wl->to.y) - reach);
    st_vec2 hi = st_v2(fmax(wl->from.x, wl->to.x) + reach, fmax(wl->from.y, wl->to.y) + reach);
    int x0, y0, x1, y1;
    cell_range(g, lo, hi, &x0, &y0, &x1, &y1);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int c = y * g->cols + x;
            if (segment_point_distance(nav__center(g, c), wl->from, wl->to) < reach && !fp_push(g, f, c))
                return stamp_failed(f);
        }
    for (int k = 0; k < f->n; k++) g->count[f->cells[k]]++;
    return true;
}

static void unstamp(st_navgrid *g, nav_footprint *f)
{
    for (int k = 0; k < f->n; k++) g->count[f->cells[k]]--;
    f->n = 0;
}

/// Walls only come: the new ones are stamped. Adds the cells changed to *touched.
static bool stamp_new_walls(st_navgrid *g, int *touched)
{
    const st_world *w = g->w;
    if (!st__grow(&g->w->mem, (void **)&g->walls, &g->wall_cap, w->wall_count, sizeof *g->walls)) return false;
    while (g->wall_count < w->wall_count) {
        nav_footprint *f = &g->walls[g->wall_count];
        memset(f, 0, sizeof *f);
        f->id = g->wall_count + 1;
        if (!stamp_wall(g, &w->walls[g->wall_count], f)) {
            st__free(f->cells);
            return false;
        }
        *touched += f->n;
        g->wall_count++;
        g->comp_dirty = true;
    }
    return true;
}

/// Footprint i's obstacle is gone from the world: its cells are taken back.
static void drop_footprint(st_navgrid *g, int i, int *touched)
{
    nav_footprint *f = &g->obs[i];
    *touched += f->n;
    unstamp(g, f);
    st__free(f->cells);
    memmove(f, f + 1, (size_t)(g->obs_count - i - 1) * sizeof *f);
    g->obs_count--;
    g->comp_dirty = true;
}

/// Stamps obstacle o into f, which stands where it is now; on failure f
/// stamps nothing, and a centre that matches no position has it stamped
/// again at the next update.
static bool stamp_at(st_navgrid *g, const st_obstacle *o, nav_footprint *f, int *touched)
{
    f->center = o->center;
    if (!stamp_obstacle(g, o, f)) {
        f->center = st_v2(NAN, NAN);
        return false;
    }
    *touched += f->n;
    g->comp_dirty = true;
    return true;
}

/// A new obstacle of the world: a footprint inserted at i (id order) and stamped.
static bool insert_footprint(st_navgrid *g, int i, const st_obstacle *o, int *touched)
{
    if (!st__grow(&g->w->mem, (void **)&g->obs, &g->obs_cap, g->obs_count + 1, sizeof *g->obs)) return false;
    nav_footprint *f = &g->obs[i];
    memmove(f + 1, f, (size_t)(g->obs_count - i) * sizeof *f);
    memset(f, 0, sizeof *f);
    f->id = o->id;
    g->obs_count++;
    return stamp_at(g, o, f, touched);
}

/// The footprints brought in line with the world's obstacles: both lists
/// are in id order, so one merge finds the removed, moved and new ones.
static bool sync_obstacles(st_navgrid *g, int *touched)
{
    const st_world *w = g->w;
    int i = 0, j = 0;
    while (i < g->obs_count || j < w->obstacle_count) {
        nav_footprint *f = i < g->obs_count ? &g->obs[i] : NULL;
        const st_obstacle *o = j < w->obstacle_count ? &w->obstacles[j] : NULL;
        if (f && (!o || f->id < o->id)) {
            drop_footprint(g, i, touched);
            continue;
        }
        if (f && f->id == o->id) {
            if (f->center.x != o->center.x || f->center.y != o->center.y) {
                *touched += f->n;
                unstamp(g, f);
                if (!stamp_at(g, o, f, touched)) return false;
            }
        } else if (!insert_footprint(g, i, o, touched)) {
            return false;
        }
        i++;
        j++;
    }
    return true;
}

int st_navgrid_update(st_navgrid *g)
{
    const st_world *w = g->w;
    if (g->tiles || (g->synced && g->epoch == w->obstacle_epoch)) return 0; // tile grids: their tiles alone
    int touched = 0;
    if (!stamp_new_walls(g, &touched) || !sync_obstacles(g, &touched)) return -1;
    g->epoch = w->obstacle_epoch;
    g->synced = true;
    if (touched > 0) {
        g->map++;
        g->links.dirty = true; // an end's free cell may have changed
    }
    return touched;
}

bool st_navgrid_blocked(const st_navgrid *g, int cx, int cy)
{
    if (cx < 0 || cy < 0 || cx >= g->cols || cy >= g->rows) return true;
    return nav__blocked(g, cy * g->cols + cx);
}

static bool inside_world(const st_navgrid *g, st_vec2 p)
{
    if (g->tiles)
        return st_v2_finite(p) && p.x >= 0.0 && p.y >= 0.0 && p.x <= g->cols * g->cell && p.y <= g->rows * g->cell;
    return st_v2_finite(p) && p.x >= 0.0 && p.y >= 0.0 && p.x <= st_world_width(g->w) &&
           p.y <= st_world_height(g->w);
}

bool st_navgrid_blocked_at(st_navgrid *g, st_vec2 p)
{
    if (!inside_world(g, p)) return true;
    st_navgrid_update(g);
    int cx, cy;
    return nav__blocked(g, nav__cell_of(g, p, &cx, &cy));
}

/* ---- moves between cells ---- */

int nav__snap(st_navgrid *g, st_vec2 p, int32_t comp)
{
    double r = st_navgrid_snap_radius(g);
    int x0, y0, x1, y1;
    cell_range(g, st_v2(p.x - r, p.y - r), st_v2(p.x + r, p.y + r), &x0, &y0, &x1, &y1);
    int best = -1;
    double best_d2 = r * r;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            int c = y * g->cols + x;
            if (nav__blocked(g, c) || (comp >= 0 && g->comp[c] != comp)) continue;
            double d2 = st_v2_dist2(p, nav__center(g, c));
            if (d2 < best_d2) { // scan order breaks ties: lowest index
                best_d2 = d2;
                best = c;
            }
        }
    return best;
}

/// Line of sight through free cells: every cell the segment a-b passes
/// through (both, where it crosses a corner exactly) is free. a and b lie
/// in the grid.
static bool visible_cells(const st_navgrid *g, st_vec2 a, st_vec2 b)
{
    double x0 = a.x / g->cell, y0 = a.y / g->cell, x1 = b.x / g->cell, y1 = b.y / g->cell;
    int ix = (int)floor(x0), iy = (int)floor(y0), ex = (int)floor(x1), ey = (int)floor(y1);
    ix = ix >= g->cols ? g->cols - 1 : ix;
    iy = iy >= g->rows ? g->rows - 1 : iy;
    ex = ex >= g->cols ? g->cols - 1 : ex;
    ey = ey >= g->rows ? g->rows - 1 : ey;
    double dx = x1 - x0, dy = y1 - y0;
    int sx = dx > 0 ? 1 : -1, sy = dy > 0 ? 1 : -1;
    double tdx = dx != 0 ? 1.0 / fabs(dx) : INFINITY, tdy = dy != 0 ? 1.0 / fabs(dy) : INFINITY;
    double tx = dx != 0 ? (dx > 0 ? (ix + 1 - x0) : (x0 - ix)) * tdx : INFINITY;
    double ty = dy != 0 ? (dy > 0 ? (iy + 1 - y0) : (y0 - iy)) * tdy : INFINITY;
    for (int guard = g->cols + g->rows + 4; guard > 0; guard--) {
        if (st_navgrid_blocked(g, ix, iy)) return false;
        if (ix == ex && iy == ey) return true;
        if (fabs(tx - ty) < 1e-9) {
            // Through a corner: the cells on both sides as well.
            if (st_navgrid_blocked(g, ix + sx, iy) || st_navgrid_blocked(g, ix, iy + sy)) return false;
            ix += sx;
            iy += sy;
            tx += tdx;
            ty += tdy;
        } else if (tx < ty) {
            ix += sx;
            tx += tdx;
        } else {
            iy += sy;
            ty += tdy;
        }
        if (tx > 1.0 + 1e-9 && ty > 1.0 + 1e-9 && !(ix == ex && iy == ey)) {
            // Rounding left us beside the end cell: it is the next one.
            ix = ex;
            iy = ey;
        }
    }
    return false;
}

/* ---- search ---- */

/// Where the path passes through cell c: the query's own points at its ends.
static inline st_vec2 query_pos(const st_navgrid *g, const theta_query *q, int c)
{
    return c == q->s ? q->sp : c == q->t ? q->tp : nav__center(g, c);
}

/// A new search's stamp: cells stamped with an older one hold stale g/parent.
static uint32_t next_search(st_navgrid *g)
{
    uint32_t id = ++g->search;
    if (id == 0) { // wrapped: forget every stamp
        memset(g->stamp, 0, (size_t)g->cells * sizeof *g->stamp);
        id = g->search = 1;
    }
    return id;
}

/// Lazy Theta*'s check on popping c: its parent was taken on trust; when c
/// cannot see it, the best expanded neighbour becomes the parent instead.
static void check_parent(st_navgrid *g, const theta_query *q, int c)
{
    st_vec2 cp = query_pos(g, q, c);
    int p = g->parent[c];
    if (g->links.ne > 0 && g->links.via[c]) return; // over a link: no sight line needed
    if (p == c || visible_cells(g, query_pos(g, q, p), cp)) return;
    double best = INFINITY;
    int bp = -1, x = c % g->cols, y = c / g->cols;
    for (int k = 0; k < 8; k++) {
        int n = nav__step(g, x, y, k);
        if (n < 0 || g->stamp[n] != q->id || !g->closed[n]) continue;
        double v = g->g[n] + st_v2_dist(query_pos(g, q, n), cp);
        if (v < best) {
            best = v;
            bp = n;
        }
    }
    if (bp >= 0) { // always: the cell was reached from an expanded neighbour
        g->parent[c] = bp;
        g->g[c] = best;
    }
}

/// The heuristic at n (at point np): the straight distance to the goal,
/// or with links, the least of that and the way over any link (to the
/// nearest link start, plus q->link_k). Admissible and consistent.
static double heuristic(const st_navgrid *g, const theta_query *q, st_vec2 np)
{
    double h = st_v2_dist(np, q->tp);
    const nav_links *L = &g->links;
    if (L->nshort == 0) return h;
    double d = INFINITY;
    for (int k = 0; k < L->nshort; k++) d = fmin(d, st_v2_dist(np, query_pos(g, q, L->e[L->shorts[k]].from)));
    return fmin(h, d + q->link_k);
}

/// Whether n may be offered a new cost: stamped for this search and open.
static bool open_cell(st_navgrid *g, const theta_query *q, int n)
{
    if (g->stamp[n] != q->id) {
        g->stamp[n] = q->id;
        g->closed[n] = 0;
        g->g[n] = INFINITY;
        g->heap.pos[n] = -1;
        if (g->links.via) g->links.via[n] = 0;
        return true;
    }
    return !g->closed[n];
}

/// Offers n the cost v with parent p (over a link when via).
static void offer(st_navgrid *g, const theta_query *q, int n, int p, double v, bool via)
{
    if (v >= g->g[n]) return;
    g->g[n] = v;
    g->parent[n] = p;
    if (g->links.via) g->links.via[n] = via;
    g->key[n] = v + heuristic(g, q, query_pos(g, q, n));
    if (g->heap.pos[n] >= 0) nav__heap_decrease(&g->heap, g->key, n);
    else nav__heap_push(&g->heap, g->key, n);
}

/// The links out of c whose far cell is free.
static void offer_links(st_navgrid *g, const theta_query *q, int c)
{
    const nav_links *L = &g->links;
    for (int k = nav__links_first(L, c); k < L->ne && L->e[k].from == c; k++) {
        int n = L->e[k].to;
        if (!g->count[n] && open_cell(g, q, n)) offer(g, q, n, c, g->g[c] + L->e[k].cost, true);
    }
}

/// Expands c: each open neighbour is offered a path straight from c's
/// parent, taken on trust (check_parent tests it when the neighbour pops);
/// from a cell reached over a link, straight from the cell itself.
static void expand(st_navgrid *g, const theta_query *q, int c)
{
    g->closed[c] = 1;
    int x = c % g->cols, y = c / g->cols;
    int pc = g->links.ne > 0 && g->links.via[c] ? c : g->parent[c];
    st_vec2 pp = query_pos(g, q, pc);
    for (int k = 0; k < 8; k++) {
        int n = nav__step(g, x, y, k);
        if (n < 0 || !open_cell(g, q, n)) continue;
        offer(g, q, n, pc, g->g[pc] + st_v2_dist(pp, query_pos(g, q, n)), false);
    }
    if (g->links.ne > 0) offer_links(g, q, c);
}

void nav__theta_begin(st_navgrid *g, theta_query *q)
{
    // A search left unfinished (a job's, dropped) leaves its heap behind.
    for (int k = 0; k < g->heap.n; k++) g->heap.pos[g->heap.items[k]] = -1;
    g->heap.n = 0;
    q->id = next_search(g);
    q->state = NAV_SEARCH_RUNNING;
    int s = q->s;
    g->stamp[s] = q->id;
    g->closed[s] = 0;
    g->g[s] = 0.0;
    g->parent[s] = s;
    if (g->links.via) g->links.via[s] = 0;
    q->link_k = INFINITY;
    const nav_links *L = &g->links;
    if (L->nshort > 0) { // the least cost of a link and the least way on from its end
        double cost = INFINITY, on = INFINITY;
        for (int k = 0; k < L->nshort; k++) {
            cost = fmin(cost, L->e[L->shorts[k]].cost);
            on = fmin(on, st_v2_dist(query_pos(g, q, L->e[L->shorts[k]].to), q->tp));
        }
        q->link_k = cost + on;
    }
    g->key[s] = heuristic(g, q, q->sp);
    nav__heap_push(&g->heap, g->key, s);
}

int nav__theta_run(st_navgrid *g, theta_query *q, long budget, long *used)
{
    long k = 0;
    for (; k < budget && q->state == NAV_SEARCH_RUNNING; k++) {
        if (g->heap.n == 0) {
            q->state = NAV_SEARCH_FAILED;
            break;
        }
        int c = nav__heap_pop(&g->heap, g->key);
        check_parent(g, q, c);
        if (c == q->t) q->state = NAV_SEARCH_FOUND;
        else expand(g, q, c);
    }
    if (used) *used += k;
    if (q->state != NAV_SEARCH_RUNNING) {
        // Leave the heap's positions clean for the next search.
        for (int i = 0; i < g->heap.n; i++) g->heap.pos[g->heap.items[i]] = -1;
        g->heap.n = 0;
    }
    return q->state;
}

int nav__theta_collect(st_navgrid *g, const theta_query *q)
{
    int m = 0;
    bool links = g->links.ne > 0;
    for (int c = q->t;; c = g->parent[c]) {
        // With links: the id of the link into c, on c's point (goal first).
        if (links) g->out_link[m] = g->links.via[c] ? g->links.v[nav__links_between(&g->links, g->parent[c], c)].id : 0;
        g->out[m++] = query_pos(g, q, c);
        if (c == q->s || m >= g->out_cap - 2) break;
    }
    return m;
}

/// String pulling with the exact line of sight: from each kept point, the
/// farthest later point it sees. In place; returns the new count.
static int pull_string(const st_navgrid *g, st_vec2 *p, int n)
{
    if (n <= 2) return n;
    int m = 1, i = 0;
    while (i < n - 1) {
        int j = n - 1;
        while (j > i + 1 && !path_sight(g, p[i], p[j], g->clearance)) j--;
        p[m++] = p[j];
        i = j;
    }
    return m;
}

/// How far (0..1) point p may slide towards `to` with both sight lines
/// (from a and to b) clear, by bisection; skip_a / skip_b: that line is
/// known clear (p slides along it).
static double slide(const st_navgrid *g, st_vec2 a, st_vec2 p, st_vec2 b, st_vec2 to, double c, bool skip_a,
                    bool skip_b)
{
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 10; it++) {
        double t = it == 0 ? 1.0 : 0.5 * (lo + hi);
        st_vec2 q = st_v2_lerp(p, to, t);
        bool ok = (skip_a || path_sight(g, a, q, c)) && (skip_b || path_sight(g, q, b, c));
        if (it == 0) {
            if (ok) return 1.0;
            continue;
        }
        if (ok) lo = t;
        else hi = t;
    }
    return lo;
}

/// Corners pulled in: each inner point slides as far as the exact line of
/// sight lets it, towards the straight line between its neighbours and
/// along either of its two legs (every such slide shortens the path), until
/// nothing moves. The path then wraps the inflated obstacles rather than
/// the centres of the free cells around them. Slides stop a hair
/// (NAV_TIGHT) short of touching, so later sight lines from a point still
/// pass.
#define NAV_TIGHT 1e-3
static void tighten(const st_navgrid *g, st_vec2 *p, int n)
{
    double c = g->clearance + NAV_TIGHT;
    for (int pass = 0; pass < 32; pass++) {
        double moved = 0.0;
        for (int i = 1; i < n - 1; i++) {
            st_vec2 start = p[i];
            st_vec2 chord = st__closest_on_segment(p[i], p[i - 1], p[i + 1]);
            double t = slide(g, p[i - 1], p[i], p[i + 1], chord, c, false, false);
            p[i] = st_v2_lerp(p[i], chord, t);
            if (t < 1.0) {
                t = slide(g, p[i - 1], p[i], p[i + 1], p[i - 1], c, true, false);
                p[i] = st_v2_lerp(p[i], p[i - 1], t);
                t = slide(g, p[i - 1], p[i], p[i + 1], p[i + 1], c, false, true);
                p[i] = st_v2_lerp(p[i], p[i + 1], t);
            }
            moved = fmax(moved, st_v2_dist(start, p[i]));
        }
        if (moved < 0.01) break;
    }
}

/// A point held by two tangents (its leg in touches one obstacle, its leg
/// out another) cannot slide; the taut path has a point on each. Each such
/// point is cut into two, one on each leg, as far out as the straight cut
/// between them stays clear; the slides then pull both onto their
/// obstacles. Returns the new count (cap: room in p).
static int split_corners(const st_navgrid *g, st_vec2 *p, int n, int cap)
{
    double c = g->clearance + NAV_TIGHT;
    for (int i = 1; i < n - 1 && n < cap; i++) {
        double lo = 0.0, hi = 0.5;
        for (int it = 0; it < 10; it++) {
            double t = 0.5 * (lo + hi);
            if (path_sight(g, st_v2_lerp(p[i], p[i - 1], t), st_v2_lerp(p[i], p[i + 1], t), c)) lo = t;
            else hi = t;
        }
        if (lo < 1e-3) continue;
        st_vec2 a = st_v2_lerp(p[i], p[i - 1], lo), b = st_v2_lerp(p[i], p[i + 1], lo);
        memmove(p + i + 1, p + i, (size_t)(n - i) * sizeof *p);
        p[i] = a;
        p[i + 1] = b;
        n++;
        i++;
    }
    return n;
}

bool st_navgrid_tiled(const st_navgrid *g) { return g->tiles != NULL; }

st_nav_result st_navgrid_path_radius(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                                     int *n)
{
    *points = NULL;
    *n = 0;
    if (!st_finite(radius) || radius < 0.0) return ST_NAV_RADIUS;
    if (g->tiles) return nav__tile_path(g, from, to, radius, points, n);
    if (radius > g->clearance) return ST_NAV_RADIUS;
    return st_navgrid_path(g, from, to, points, n);
}

st_nav_result nav__ends(st_navgrid *g, st_vec2 from, st_vec2 to, nav_ends *e)
{
    if (!inside_world(g, from) || !inside_world(g, to)) return ST_NAV_OUTSIDE;
    if (st_navgrid_update(g) < 0 || !nav__links_view(g)) return ST_NAV_NO_MEMORY;
    nav__label_parts(g);
    bool links = g->links.ne > 0; // links may join the connected parts
    int sx, sy, tx, ty;
    int s = nav__cell_of(g, from, &sx, &sy), t = nav__cell_of(g, to, &tx, &ty);
    e->from = from;
    e->to = to;
    e->s_snap = g->count[s] > 0;
    e->t_snap = g->count[t] > 0;
    if (e->s_snap && (s = nav__snap(g, from, -1)) < 0) return ST_NAV_START_BLOCKED;
    if (e->t_snap && (t = nav__snap(g, to, links ? -1 : g->comp[s])) < 0) return ST_NAV_GOAL_BLOCKED;
    if (!links && g->comp[s] != g->comp[t]) return ST_NAV_NO_ROUTE;
    e->q.s = s;
    e->q.t = t;
    e->q.sp = e->s_snap ? nav__center(g, s) : from;
    e->q.tp = e->t_snap ? nav__center(g, t) : to;
    e->q.state = NAV_SEARCH_IDLE;
    return ST_NAV_OK;
}

/// One section of a path between links (nav_fix_fn): pulled straight,
/// its corners tightened and split.
static int fix_theta(void *ctx, st_vec2 *o, int m, int cap)
{
    const st_navgrid *g = ctx;
    m = pull_string(g, o, m);
    tighten(g, o, m);
    for (int round = 0; round < 2; round++) {
        m = split_corners(g, o, m, cap);
        tighten(g, o, m);
        m = pull_string(g, o, m);
    }
    return m;
}

/// With links, after the reversal: out_link[i] names the link of segment
/// i to i+1, whose own ends go into the path between the cells' points.
/// The new count.
static int link_points(st_navgrid *g, int m)
{
    st_vec2 *o = g->out;
    int32_t *lk = g->out_link;
    for (int i = 0; i + 1 < m; i++) lk[i] = lk[i + 1]; // the link into point i+1 leaves point i
    lk[m - 1] = 0;
    for (int i = m - 2; i >= 0; i--) {
        if (!lk[i]) continue;
        const nav_link *k = NULL;
        for (int j = 0; j < g->links.n; j++)
            if (g->links.v[j].id == lk[i]) k = &g->links.v[j];
        int x, y, from = nav__cell_of(g, o[i], &x, &y), to = nav__cell_of(g, o[i + 1], &x, &y);
        int edge = nav__links_edge(&g->links, from, to, lk[i]); // its ends may have snapped off blocked cells
        bool fwd = edge >= 0 ? !g->links.e[edge].back : from == nav__cell_of(g, k->a, &x, &y);
        memmove(o + i + 3, o + i + 1, (size_t)(m - i - 1) * sizeof *o);
        memmove(lk + i + 3, lk + i + 1, (size_t)(m - i - 1) * sizeof *lk);
        o[i + 1] = fwd ? k->a : k->b;
        o[i + 2] = fwd ? k->b : k->a;
        lk[i + 1] = lk[i];
        lk[i] = lk[i + 2] = 0;
        m += 2;
    }
    return m;
}

/// nav__finish's reversal into start-to-goal order (with the link marks).
static void reverse(st_navgrid *g, int m)
{
    st_vec2 *o = g->out;
    for (int i = 0, j = m - 1; i < j; i++, j--) {
        st_vec2 tmp = o[i];
        o[i] = o[j];
        o[j] = tmp;
        if (g->links.ne > 0) {
            int32_t t = g->out_link[i];
            g->out_link[i] = g->out_link[j];
            g->out_link[j] = t;
        }
    }
}

/// nav__finish with links: the same steps, section by section.
static int finish_links(st_navgrid *g, const nav_ends *e, int m)
{
    const double c = g->clearance;
    st_vec2 *o = g->out;
    int32_t *lk = g->out_link;
    reverse(g, m);
    m = link_points(g, m);
    if (e->s_snap) {
        memmove(o + 1, o, (size_t)m * sizeof *o);
        memmove(lk + 1, lk, (size_t)m * sizeof *lk);
        o[0] = e->from;
        lk[0] = 0;
        m++;
    }
    if (e->t_snap && point_clear(g->w, e->to, c) && visible_exact(g->w, o[m - 1], e->to, c)) {
        lk[m] = 0;
        o[m++] = e->to;
    }
    if (m == 1) {
        lk[m] = 0;
        o[m++] = e->to;
    }
    m = nav__links_sections(o, lk, m, g->out_cap, fix_theta, g); // never short of room: m <= out_cap
    g->out_count = m;
    return m;
}

int nav__finish(st_navgrid *g, const nav_ends *e, int m)
{
    if (g->links.ne > 0) return finish_links(g, e, m);
    const double c = g->clearance;
    // Reverse into start-to-goal order, with the legs to snapped cells.
    st_vec2 *o = g->out;
    reverse(g, m);
    if (e->s_snap) {
        memmove(o + 1, o, (size_t)m * sizeof *o);
        o[0] = e->from;
        m++;
    }
    // A goal in a blocked cell but clear itself is still reached.
    if (e->t_snap && point_clear(g->w, e->to, c) && visible_exact(g->w, o[m - 1], e->to, c)) o[m++] = e->to;
    if (m == 1) o[m++] = e->to;
    m = pull_string(g, o, m);
    tighten(g, o, m);
    for (int round = 0; round < 2; round++) {
        m = split_corners(g, o, m, g->out_cap);
        tighten(g, o, m);
        m = pull_string(g, o, m);
    }
    g->out_count = m;
    if (g->out_link) memset(g->out_link, 0, (size_t)m * sizeof *g->out_link);
    return m;
}

/// The ends' own path when they share a cell: no search.
int nav__same_cell(st_navgrid *g, const nav_ends *e)
{
    g->out[0] = e->q.tp;
    g->out[1] = e->q.sp;
    if (g->out_link) g->out_link[0] = g->out_link[1] = 0;
    return st_v2_dist2(e->q.sp, e->q.tp) == 0.0 ? 1 : 2;
}

st_nav_result st_navgrid_path(st_navgrid *g, st_vec2 from, st_vec2 to, const st_vec2 **points, int *n)
{
    *points = NULL;
    *n = 0;
    g->queries++;
    if (g->tiles) return nav__tile_path(g, from, to, g->clearance, points, n);
    nav_ends e;
    st_nav_result r = nav__ends(g, from, to, &e);
    if (r != ST_NAV_OK) return r;
    int m;
    if (e.q.s == e.q.t) {
        m = nav__same_cell(g, &e);
    } else {
        nav__theta_begin(g, &e.q);
        if (nav__theta_run(g, &e.q, LONG_MAX, NULL) != NAV_SEARCH_FOUND) return ST_NAV_NO_ROUTE; // not within one part
        m = nav__theta_collect(g, &e.q);
    }
    *points = g->out;
    *n = nav__finish(g, &e, m);
    return ST_NAV_OK;
}
