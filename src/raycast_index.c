/*
 * raycast_index.c — a uniform grid over the obstacles and walls, so that a
 * ray tests the shapes near it, not every shape in the world.
 *
 * Each circle, each polygon edge or polyline segment, and each wall is
 * listed in the cells its bounding box touches (padded a little, so that a
 * shape on a cell border sits in both cells). A ray walks the cells it
 * crosses in order (Amanatides & Woo) and stops once the best hit lies
 * before the cell it is leaving: any shape not yet tested lies in a later
 * cell, so it is hit farther on. Ties are broken by a key, not by the order
 * of testing, so the answer is the one testing every shape gives.
 *
 * The grid is made by st_world_raycast_prepare for one obstacle epoch (any
 * change to obstacles or walls makes it stale, and rays then test every
 * shape until it is prepared again). Cells are sized for about one entry
 * each, larger when the shapes are large, so that the entries stay within a
 * few times the shapes. Its blocks are kept and reused by later builds.
 */
#include <math.h>

#include "alloc.h"
#include "raycast_internal.h"
#include "obstacle.h"

typedef struct ray_ref {
    int32_t ref;  // >= 0: obstacle index; < 0: wall -1 - ref
    int32_t seg;  // edge or segment of a polygon / polyline, -1 otherwise
} ray_ref;

typedef struct ray_entry {
    ray_ref r;
    double x0, y0, x1, y1;  // bounding box
} ray_entry;

struct st_ray_index {
    uint64_t epoch;   // obstacle_epoch + 1 it was made at (0: never)
    double x0, y0, cell, inv, pad;
    int nx, ny;       // 0: nothing to list
    int32_t *start;   // nx * ny + 1 offsets into refs
    ray_ref *refs;
    ray_entry *ents;
    int start_cap, ref_cap, ent_cap, ent_count;
};

void st__ray_index_free(st_world *w)
{
    st_ray_index *x = w->ray_index;
    if (!x) return;
    st__free(x->start);
    st__free(x->refs);
    st__free(x->ents);
    st__free(x);
    w->ray_index = NULL;
}

bool st__ray_index_fresh(const st_world *w)
{
    return w->ray_index && w->ray_index->epoch == w->obstacle_epoch + 1;
}

static void box_of(ray_entry *e, st_vec2 a, st_vec2 b)
{
    e->x0 = fmin(a.x, b.x);
    e->y0 = fmin(a.y, b.y);
    e->x1 = fmax(a.x, b.x);
    e->y1 = fmax(a.y, b.y);
}

/// Every circle, segment and wall with its box into x->ents.
static bool gather(st_world *w, st_ray_index *x)
{
    int n = w->wall_count;
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        n += o->kind == ST_OBSTACLE_CIRCLE ? 1 : o->kind == ST_OBSTACLE_POLYGON ? o->point_count : o->point_count - 1;
    }
    if (!st__grow(&w->mem, (void **)&x->ents, &x->ent_cap, n > 0 ? n : 1, sizeof *x->ents)) return false;
    int k = 0;
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (o->kind == ST_OBSTACLE_CIRCLE) {
            ray_entry *e = &x->ents[k++];
            e->r = (ray_ref){i, -1};
            st_vec2 rr = {o->radius, o->radius};
            box_of(e, st_v2_sub(o->center, rr), st_v2_add(o->center, rr));
            continue;
        }
        int segs = o->kind == ST_OBSTACLE_POLYGON ? o->point_count : o->point_count - 1;
        for (int s = 0; s < segs; s++) {
            ray_entry *e = &x->ents[k++];
            e->r = (ray_ref){i, s};
            box_of(e, st_v2_add(o->center, o->points[s]), st_v2_add(o->center, o->points[(s + 1) % o->point_count]));
        }
    }
    for (int j = 0; j < w->wall_count; j++) {
        ray_entry *e = &x->ents[k++];
        e->r = (ray_ref){-1 - j, -1};
        box_of(e, w->walls[j].from, w->walls[j].to);
    }
    x->ent_count = k;
    return true;
}

/// The cells entry e covers (padded), clamped to the grid.
static void cells_of(const st_ray_index *x, const ray_entry *e, int *cx0, int *cy0, int *cx1, int *cy1)
{
    double fx0 = floor((e->x0 - x->pad - x->x0) * x->inv), fx1 = floor((e->x1 + x->pad - x->x0) * x->inv);
    double fy0 = floor((e->y0 - x->pad - x->y0) * x->inv), fy1 = floor((e->y1 + x->pad - x->y0) * x->inv);
    *cx0 = fx0 < 0 ? 0 : fx0 >= x->nx ? x->nx - 1 : (int)fx0;
    *cx1 = fx1 < 0 ? 0 : fx1 >= x->nx ? x->nx - 1 : (int)fx1;
    *cy0 = fy0 < 0 ? 0 : fy0 >= x->ny ? x->ny - 1 : (int)fy0;
    *cy1 = fy1 < 0 ? 0 : fy1 >= x->ny ? x->ny - 1 : (int)fy1;
}

/// The cell size and grid over the entries' boxes; the number of refs, or
/// -1 when the shapes span more than doubles measure (no grid then).
static double choose_cells(st_ray_index *x)
{
    int n = x->ent_count;
    double X0 = INFINITY, Y0 = INFINITY, X1 = -INFINITY, Y1 = -INFINITY, extent = 0.0;
    for (int k = 0; k < n; k++) {
        const ray_entry *e = &x->ents[k];
        X0 = fmin(X0, e->x0), Y0 = fmin(Y0, e->y0), X1 = fmax(X1, e->x1), Y1 = fmax(Y1, e->y1);
        extent += fmax(e->x1 - e->x0, e->y1 - e->y0) / n;
    }
    double wd = fmax(X1 - X0, 1e-9), ht = fmax(Y1 - Y0, 1e-9);
    double cell = fmax(sqrt(wd * ht / n), extent);
    if (!isfinite(wd * ht) || !isfinite(extent)) return -1.0;
    for (int tries = 0; tries < 200 && isfinite(cell); tries++) {
        x->x0 = X0, x->y0 = Y0, x->cell = cell, x->inv = 1.0 / cell, x->pad = 1e-6 * cell;
        double nx = floor(wd / cell) + 1, ny = floor(ht / cell) + 1;
        if (nx * ny <= 4.0 * n + 64 && nx < INT32_MAX && ny < INT32_MAX) {
            x->nx = (int)nx, x->ny = (int)ny;
            double refs = 0.0;
            for (int k = 0; k < n; k++) {
                int cx0, cy0, cx1, cy1;
                cells_of(x, &x->ents[k], &cx0, &cy0, &cx1, &cy1);
                refs += (double)(cx1 - cx0 + 1) * (cy1 - cy0 + 1);
            }
            if (refs <= 8.0 * n + nx * ny || nx * ny <= 1) return refs;
        }
        cell *= 1.5;
    }
    return -1.0;
}

/// Lists every entry in its cells (a counting sort).
static bool fill(st_world *w, st_ray_index *x, int refs)
{
    int cells = x->nx * x->ny;
    if (!st__grow(&w->mem, (void **)&x->start, &x->start_cap, cells + 1, sizeof *x->start) ||
        !st__grow(&w->mem, (void **)&x->refs, &x->ref_cap, refs > 0 ? refs : 1, sizeof *x->refs))
        return false;
    for (int c = 0; c <= cells; c++) x->start[c] = 0;
    for (int k = 0; k < x->ent_count; k++) {
        int cx0, cy0, cx1, cy1;
        cells_of(x, &x->ents[k], &cx0, &cy0, &cx1, &cy1);
        for (int cy = cy0; cy <= cy1; cy++)
            for (int cx = cx0; cx <= cx1; cx++) x->start[cy * x->nx + cx + 1]++;
    }
    for (int c = 0; c < cells; c++) x->start[c + 1] += x->start[c];
    for (int k = 0; k < x->ent_count; k++) {
        int cx0, cy0, cx1, cy1;
        cells_of(x, &x->ents[k], &cx0, &cy0, &cx1, &cy1);
        for (int cy = cy0; cy <= cy1; cy++)
            for (int cx = cx0; cx <= cx1; cx++) x->refs[x->start[cy * x->nx + cx]++] = x->ents[k].r;
    }
    // The fill moved each start to its cell's end: shift back.
    for (int c = cells; c > 0; c--) x->start[c] = x->start[c - 1];
    x->start[0] = 0;
    return true;
}

bool st_world_raycast_prepare(st_world *w)
{
    if (st__ray_index_fresh(w)) return true;
    if (!w->ray_index) {
        w->ray_index = st__calloc(&w->mem, 1, sizeof *w->ray_index);
        if (!w->ray_index) return false;
    }
    st_ray_index *x = w->ray_index;
    x->epoch = 0;
    x->nx = x->ny = 0;
    if (!gather(w, x)) return false;
    if (x->ent_count > 0) {
        double refs = choose_cells(x);
        if (refs < 0.0 || refs > INT32_MAX / 2 || !fill(w, x, (int)refs)) {
            x->nx = x->ny = 0;
            return false;
        }
    }
    x->epoch = w->obstacle_epoch + 1;
    return true;
}

/// The part [*t0, *t1] of the ray inside the grid's box; false when none.
static bool clip(const st_ray_index *x, const st__ray *r, double *t0, double *t1)
{
    double lo[2] = {x->x0 - x->pad, x->y0 - x->pad};
    double hi[2] = {x->x0 + x->nx * x->cell + x->pad, x->y0 + x->ny * x->cell + x->pad};
    double o[2] = {r->from.x, r->from.y}, d[2] = {r->d.x, r->d.y};
    *t0 = 0.0, *t1 = 1.0;
    for (int a = 0; a < 2; a++) {
        if (d[a] == 0.0) {
            if (o[a] < lo[a] || o[a] > hi[a]) return false;
            continue;
        }
        double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
        *t0 = fmax(*t0, fmin(ta, tb));
        *t1 = fmin(*t1, fmax(ta, tb));
    }
    return *t0 <= *t1;
}

static void test_cell(const st_world *w, const st_ray_index *x, const st__ray *r, int c, bool obstacles, bool walls,
                      st__ray_best *best)
{
    for (int k = x->start[c]; k < x->start[c + 1]; k++) {
        ray_ref f = x->refs[k];
        if (f.ref >= 0) {
            if (obstacles) st__ray_test_obstacle(w, r, f.ref, f.seg, best);
        } else if (walls) {
            st__ray_test_wall(w, r, -1 - f.ref, best);
        }
    }
}

void st__ray_index_cast(const st_world *w, const st__ray *r, bool obstacles, bool walls, st__ray_best *best)
{
    const st_ray_index *x = w->ray_index;
    double t0, t1;
    if (x->nx == 0 || !clip(x, r, &t0, &t1)) return;
    st_vec2 p = st_v2_add(r->from, st_v2_scale(r->d, t0));
    double fx = floor((p.x - x->x0) * x->inv), fy = floor((p.y - x->y0) * x->inv);
    int cx = fx < 0 ? 0 : fx >= x->nx ? x->nx - 1 : (int)fx;
    int cy = fy < 0 ? 0 : fy >= x->ny ? x->ny - 1 : (int)fy;
    int sx = r->d.x > 0 ? 1 : r->d.x < 0 ? -1 : 0, sy = r->d.y > 0 ? 1 : r->d.y < 0 ? -1 : 0;
    double next_x = sx ? (x->x0 + (cx + (sx > 0)) * x->cell - r->from.x) / r->d.x : INFINITY;
    double next_y = sy ? (x->y0 + (cy + (sy > 0)) * x->cell - r->from.y) / r->d.y : INFINITY;
    double step_x = sx ? x->cell / fabs(r->d.x) : INFINITY, step_y = sy ? x->cell / fabs(r->d.y) : INFINITY;
    for (;;) {
        test_cell(w, x, r, cy * x->nx + cx, obstacles, walls, best);
        double exit = fmin(next_x, next_y);
        if (best->hit.fraction < exit || exit > t1) return;
        if (next_x < next_y) {
            cx += sx;
            next_x += step_x;
        } else {
            cy += sy;
            next_y += step_y;
        }
        if (cx < 0 || cx >= x->nx || cy < 0 || cy >= x->ny) return;
    }
}
