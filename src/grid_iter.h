/*
 * grid_iter.h — the one loop over the grid cells around a point.
 *
 * Inlined into each caller with its callback, so the hot flocking kernel and
 * the general queries share one piece of geometry without paying for a call
 * per candidate.
 *
 * Wrap worlds: grid items hold positions folded into the rectangle. The loop
 * walks unwrapped cell columns/rows and shifts each cell's items by a whole
 * world size when the column lies past an edge, so a candidate's offset is a
 * plain subtraction. Only when the disc is as wide as the world does it visit
 * every cell once and fold each offset instead.
 */
#ifndef STEER_GRID_ITER_H
#define STEER_GRID_ITER_H

#include "portable.h"
#include "world_internal.h"

/// An item's coordinate p less the centre's c in a wrap world of this size,
/// a size taken off or added where that is shorter: as (p + shift) - c, the
/// arithmetic of a run whose cells are shifted, so that a folded visit (a
/// disc as wide as the world, the all-pairs path) and a shifted one give
/// the same bits.
static inline double st__fold(double p, double c, double size)
{
    double d = p - c, h = 0.5 * size;
    if (d > h) return (p - size) - c;
    if (d < -h) return (p + size) - c;
    return d;
}

static inline double st__wrap_coord(double x, double size)
{
    if (x >= 0.0 && x < size) return x;
    // Past 2^52 sizes away the product below is off by more than a size:
    // fmod is exact there (a point far out, as a user may give a query).
    double r = fabs(x) < ST__WHOLE * size ? x - size * floor(x / size) : fmod(x, size) + (x < 0.0 ? size : 0.0);
    return r >= size || r < 0.0 ? 0.0 : r;
}

/// floor(x), inline: the library call costs more than the rest of a
/// query's set-up. Through an integer below 2^52, where every double is one.
static inline double st__floor(double x)
{
    if (fabs(x) < ST__WHOLE) {
        double t = (double)(int64_t)x;
        return t > x ? t - 1.0 : t;
    }
    return floor(x);
}

static inline int st__clamp_cell(double f, int n)
{
    if (!(f >= 0.0)) return 0;
    if (f >= (double)(n - 1)) return n - 1;
    return (int)f;
}

#define ST__INLINE static ST__FORCE_INLINE

/// A wrap world's grid column and row of a position already folded into it
/// (x, y), from the grid's settings as values (a loop keeps them in locals).
/// Rounding can put a coordinate just below the width on column nx: it
/// belongs to the last one.
static inline void st__folded_cell(double x, double y, double cw, double ch, int nx, int ny, int *cx, int *cy)
{
    int ix = (int)(x / cw), iy = (int)(y / ch);
    *cx = ix < nx ? ix : nx - 1;
    *cy = iy < ny ? iy : ny - 1;
}

/// The grid column and row of a position (grid.c sorts by them).
static inline void st__cell_xy(const st_world *w, const st_grid *g, st_vec2 p, int *cx, int *cy)
{
    if (w->edges == ST_EDGES_WRAP) {
        // Folded into the world first (a user's set_pos may put one
        // anywhere), as the grid's copy of the position is: the cell is
        // then the one that copy lies in.
        double x = st__wrap_coord(p.x, w->width), y = st__wrap_coord(p.y, w->height);
        st__folded_cell(x, y, g->cell_w, g->cell_h, g->nx, g->ny, cx, cy);
    } else {
        *cx = st__clamp_cell(floor(p.x / g->cell_w), g->nx);
        *cy = st__clamp_cell(floor(p.y / g->cell_h), g->ny);
    }
}

/// The grid cell of a position.
static inline int st__cell_of(const st_world *w, const st_grid *g, st_vec2 p)
{
    int cx, cy;
    st__cell_xy(w, g, p, &cx, &cy);
    return cy * g->nx + cx;
}

/// Where the block of cells holding column cx (row cy) begins: the origin
/// of the grid lanes' positions (st_grid_lanes).
static inline double st__block_x(const st_grid *g, int cx)
{
    return (double)(cx & ~(ST_GRID_BLOCK - 1)) * g->cell_w;
}
static inline double st__block_y(const st_grid *g, int cy)
{
    return (double)(cy & ~(ST_GRID_BLOCK - 1)) * g->cell_h;
}

/// Counts body i into a slice's histogram row, as the build's counting pass
/// would (see st__grid_slice).
static inline void st__grid_count(const st_world *w, int32_t *row, int i)
{
    row[st__cell_of(w, &w->grid, w->bodies[i].pos)]++;
}

/// Whether an offset d whose square overflowed (d2 == inf) still lies within
/// radius r: only a radius past 1e154, whose own square overflows too, can
/// hold one, and then `d2 <= r2` admits every candidate; this is the exact
/// test behind it (grid and all-pairs searches then agree).
static inline bool st__far_within(st_vec2 d, double r)
{
    return st_hypot(d.x, d.y) <= r;
}

/// How many agents ahead a pass in grid order prefetches the records of the
/// agent it will visit. One agent's flocking work already outlasts a trip to
/// memory; a few more cover runs of agents that finish early (no neighbours,
/// no behaviours). Measured at 1M agents, one thread: spawn order 1,040 ns an
/// agent, grid order 650, grid order with this prefetch 415.
#define ST_PREFETCH_AHEAD 8

/// One contiguous run of items [k0, k1) to test against the disc around c
/// (radius^2 r2): each item's offset is `pos + (sx, sy) - c`, or with `fold`
/// `pos - c` folded across the wrap edges (the disc as wide as the world).
typedef void (*st__run_fn)(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                           double r2, bool fold);

/// The offset of an item from c within a run (see st__run_fn).
ST__INLINE st_vec2 st__run_offset(const st_world *w, const st_grid_item *it, double sx, double sy, st_vec2 c,
                                  bool fold)
{
    if (fold) return st_v2(st__fold(it->pos.x, c.x, w->width), st__fold(it->pos.y, c.y, w->height));
    return st_v2(it->pos.x + sx - c.x, it->pos.y + sy - c.y);
}

/// Whether a wrap world's disc spanning cell columns fx0..fx1 and rows
/// fy0..fy1 is as wide as the world: st__grid_runs then folds every
/// offset instead of shifting whole cells.
static inline bool st__grid_folds(const st_grid *g, double fx0, double fx1, double fy0, double fy1)
{
    return fx1 - fx0 + 1.0 >= g->nx || fy1 - fy0 + 1.0 >= g->ny;
}

/// The runs of a wrap world's cell columns cx0..cx1 and rows cy0..cy1,
/// unwrapped (each may lie up to one grid width or height past an edge) and
/// fewer than the grid has: each row is one run, or two where it crosses
/// the edge, with its items shifted by a whole world size (see
/// st__grid_runs). c: the centre, folded into the world; r2: radius^2.
ST__INLINE void st__grid_wrap_rows(const st_world *w, const st_grid *g, int cx0, int cx1, int cy0, int cy1, st_vec2 c,
                                   double r2, st__run_fn fn, void *ctx)
{
    const st_grid_item *items = g->items;
    const int32_t *start = g->cell_start;
    const int nx = g->nx, ny = g->ny;
    const double W = w->width, H = w->height;
    for (int cy = cy0; cy <= cy1; cy++) {
        int row = cy < 0 ? cy + ny : cy >= ny ? cy - ny : cy;
        double sy = cy < 0 ? -H : cy >= ny ? H : 0.0;
        const int32_t *rs = start + row * nx;
        if (cx0 < 0) {
            fn(ctx, items, rs[cx0 + nx], rs[nx], -W, sy, c, r2, false);
            fn(ctx, items, rs[0], rs[cx1 + 1], 0.0, sy, c, r2, false);
        } else if (cx1 >= nx) {
            fn(ctx, items, rs[cx0], rs[nx], 0.0, sy, c, r2, false);
            fn(ctx, items, rs[0], rs[cx1 - nx + 1], W, sy, c, r2, false);
        } else {
            fn(ctx, items, rs[cx0], rs[cx1 + 1], 0.0, sy, c, r2, false);
        }
    }
}

/// Calls fn for the runs of grid items that cover the disc of `radius`
/// around `center`. The cells of one row sit next to each other in the item
/// array, so each row is one run (two when it crosses a wrap edge): no
/// per-cell overhead. Every item within the disc is in exactly one run, in
/// the same order on every call; items outside it may be too, so fn tests
/// the distance (and everything else: self, tag, cone, dead agents).
ST__INLINE void st__grid_runs(const st_world *w, const st_grid *g, st_vec2 center, double radius, st__run_fn fn,
                               void *ctx)
{
    if (!g->cell_start || g->item_count == 0) return;
    const st_grid_item *items = g->items;
    const int32_t *start = g->cell_start;
    const int nx = g->nx, ny = g->ny;
    const double r2 = radius * radius;

    if (w->edges != ST_EDGES_WRAP && w->brute_force) {
        fn(ctx, items, 0, g->item_count, 0.0, 0.0, center, r2, false);
        return;
    }
    if (w->edges != ST_EDGES_WRAP) {
        int cx0 = st__clamp_cell(floor((center.x - radius) / g->cell_w), nx);
        int cx1 = st__clamp_cell(floor((center.x + radius) / g->cell_w), nx);
        int cy0 = st__clamp_cell(floor((center.y - radius) / g->cell_h), ny);
        int cy1 = st__clamp_cell(floor((center.y + radius) / g->cell_h), ny);
        for (int cy = cy0; cy <= cy1; cy++)
            fn(ctx, items, start[cy * nx + cx0], start[cy * nx + cx1 + 1], 0.0, 0.0, center, r2, false);
        return;
    }

    const double W = w->width, H = w->height;
    const st_vec2 c = {st__wrap_coord(center.x, W), st__wrap_coord(center.y, H)};
    double fx0 = floor((c.x - radius) / g->cell_w), fx1 = floor((c.x + radius) / g->cell_w);
    double fy0 = floor((c.y - radius) / g->cell_h), fy1 = floor((c.y + radius) / g->cell_h);

    if (w->brute_force || st__grid_folds(g, fx0, fx1, fy0, fy1)) {
        // The disc is as wide as the world: every item once, offsets folded.
        fn(ctx, items, 0, g->item_count, 0.0, 0.0, c, r2, true);
        return;
    }

    // -nx < cx0 <= cx1 < 2 nx
    st__grid_wrap_rows(w, g, (int)fx0, (int)fx1, (int)fy0, (int)fy1, c, r2, fn, ctx);
}

#endif
