/*
 * nav_internal.h — the navigation grid's layout, shared by nav.c (the grid,
 * line of sight, paths) and flowfield.c (flow fields over the same cells).
 */
#ifndef STEER_NAV_INTERNAL_H
#define STEER_NAV_INTERNAL_H

#include "nav_tiles.h"
#include "world_internal.h"

/// What one obstacle or wall last stamped into the grid: the cells it
/// blocks (each counted once in `count`), and where it stood then, so a
/// move or a removal takes back exactly those cells.
typedef struct nav_footprint {
    int id;          // obstacle id; walls: their index + 1
    st_vec2 center;  // obstacles: the centre it was rasterised at
    int32_t *cells;
    int n, cap;
} nav_footprint;

/// A binary min-heap of cell indices keyed by key[cell], with each cell's
/// place in it (pos) so a key can decrease in place. Ties go to the lower
/// cell index, so every search pops in one fixed order.
typedef struct nav_heap {
    int32_t *items;
    int32_t *pos;     // -1: not in the heap
    int n;
} nav_heap;

struct st_navgrid {
    st_world *w;
    double cell, clearance;
    int cols, rows, cells;
    uint32_t *count;         // footprints over each cell: blocked when > 0
    int32_t *comp;           // connected part of each free cell (-1 blocked)
    bool comp_dirty;
    uint64_t epoch;          // the world's obstacle_epoch when last updated
    bool synced;             // epoch is meaningful
    nav_footprint *obs;      // in id order, as the world keeps its obstacles
    int obs_count, obs_cap;
    nav_footprint *walls;    // walls are never removed: index order
    int wall_count, wall_cap;
    // Search buffers, one per cell, kept between queries.
    double *g;               // A*: cost so far; fast marching: arrival time
    double *key;             // heap keys
    int32_t *parent;
    uint32_t *stamp;         // == search: g/parent belong to this search
    uint8_t *closed;         // == 1 once expanded in the current search
    uint32_t search;
    nav_heap heap;
    st_vec2 *out;            // the last path
    int out_count, out_cap;
    // Tile grids (st_navgrid_def.tiles): the map, its query, and the
    // tiles of the last path one step at a time. NULL otherwise.
    nav_tiles *tiles;
    nav_query *query;
    int32_t *dense;
};

bool nav__heap_push(nav_heap *h, const double *key, int32_t c);
int32_t nav__heap_pop(nav_heap *h, const double *key);
/// key[c] just decreased: move c up.
void nav__heap_decrease(nav_heap *h, const double *key, int32_t c);

/// The cell under p, clamped to the grid.
static inline int nav__cell_of(const st_navgrid *g, st_vec2 p, int *cx, int *cy)
{
    int x = (int)floor(p.x / g->cell), y = (int)floor(p.y / g->cell);
    x = x < 0 ? 0 : x >= g->cols ? g->cols - 1 : x;
    y = y < 0 ? 0 : y >= g->rows ? g->rows - 1 : y;
    *cx = x;
    *cy = y;
    return y * g->cols + x;
}

static inline st_vec2 nav__center(const st_navgrid *g, int c)
{
    return st_v2(((c % g->cols) + 0.5) * g->cell, ((c / g->cols) + 0.5) * g->cell);
}

static const int NAV_DX[8] = {1, 0, -1, 0, 1, -1, -1, 1};
static const int NAV_DY[8] = {0, 1, 0, -1, 1, 1, -1, -1};

/// Neighbour k of cell (x, y) when the move there is allowed: free, inside,
/// and for a diagonal both cells beside it free (no corner cutting). -1 else.
static inline int nav__step(const st_navgrid *g, int x, int y, int k)
{
    int nx = x + NAV_DX[k], ny = y + NAV_DY[k];
    if (nx < 0 || ny < 0 || nx >= g->cols || ny >= g->rows) return -1;
    int c = ny * g->cols + nx;
    if (g->count[c]) return -1;
    if (k >= 4 && (g->count[y * g->cols + nx] || g->count[ny * g->cols + x])) return -1;
    return c;
}

/// The nearest free cell to p within the snap radius (whose connected part
/// is `comp` unless comp < 0), -1 when none; ties by the lower index.
int nav__snap(st_navgrid *g, st_vec2 p, int32_t comp);

/// Labels the connected parts of the free cells into comp (when dirty).
void nav__label_parts(st_navgrid *g);

/// A path on a tile grid for an agent of radius `radius` (world units):
/// jump point search over the tiles with room for it, then pulled straight
/// and tightened with the exact tile line walk (nav_tilepath.c).
st_nav_result nav__tile_path(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                             int *n);

#endif
