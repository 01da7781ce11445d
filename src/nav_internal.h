/*
 * nav_internal.h — the navigation grid's layout, shared by nav.c (the grid,
 * line of sight, paths) and flowfield.c (flow fields over the same cells).
 */
#ifndef STEER_NAV_INTERNAL_H
#define STEER_NAV_INTERNAL_H

#include "nav_heap.h"
#include "nav_links.h"
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

struct st_navgrid {
    st_world *w;
    double cell, clearance;
    int cols, rows, cells;
    uint32_t *count;         // footprints over each cell: blocked when > 0
                             // (tile grids: their tiles, NULL until a flow field)
    int32_t *comp;           // connected part of each free cell (-1 blocked)
    int32_t parts;           // how many parts comp numbers (0 .. parts - 1)
    bool comp_dirty;
    uint64_t epoch;          // the world's obstacle_epoch when last updated
    bool synced;             // epoch is meaningful
    nav_footprint *obs;      // in id order, as the world keeps its obstacles
    int obs_count, obs_cap;
    nav_footprint *walls;    // walls are never removed: index order
    int wall_count, wall_cap;
    // Search buffers, one per cell, kept between queries (nav__cell_buffers;
    // a tile grid has them only once it made a flow field).
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
    // tiles of the last path one step at a time (dense_cap of them: as
    // long as the longest path yet). NULL otherwise.
    nav_tiles *tiles;
    nav_query *query;
    int32_t *dense;
    int dense_cap;
    // Sliced searches (nav_job.c): every query that uses the search
    // buffers bumps `queries`, so a job that finds it changed since its
    // last slice knows its state was overwritten; `map` counts changes of
    // the cells (obstacle grids; tile grids count in tiles->version).
    uint64_t queries, map;
    // Off-mesh links (nav_links.c), and for each point of the last path
    // the id of the link its segment out takes (0: none; NULL until the
    // first link).
    nav_links links;
    int32_t *out_link;
    // Discs a search keeps out of while it runs (a group order's later
    // routes, move_split.c): their cells are marked blocked meanwhile, and
    // the finished path's sight lines keep out of them too.
    st_vec2 keep_c[2];
    double keep_r[2];
    int keep_n;
};

/// One Lazy Theta* search on an obstacle grid: its ends (cells and points),
/// stamp and state (NAV_SEARCH_*).
typedef struct theta_query {
    int s, t;
    st_vec2 sp, tp;
    uint32_t id;
    int state;
    double link_k;  // with links: the least cost from any link's start on to the goal
} theta_query;

/// An obstacle-grid path's ends, checked and snapped (nav__ends), and the
/// search between them.
typedef struct nav_ends {
    st_vec2 from, to;
    bool s_snap, t_snap;
    theta_query q;
} nav_ends;

st_nav_result nav__ends(st_navgrid *g, st_vec2 from, st_vec2 to, nav_ends *e);
/// Starts q's search (its ends set), dropping any search left unfinished.
void nav__theta_begin(st_navgrid *g, theta_query *q);
/// At most `budget` cells taken from the open list; *used (when not NULL)
/// grows by how many. NAV_SEARCH_RUNNING, _FOUND or _FAILED.
int nav__theta_run(st_navgrid *g, theta_query *q, long budget, long *used);
/// The found path's points into g->out, goal first; their count.
int nav__theta_collect(st_navgrid *g, const theta_query *q);
/// g->out's m points (goal first) made the finished path, start first:
/// the legs to snapped ends, string pulling and tightening. The new count.
int nav__finish(st_navgrid *g, const nav_ends *e, int m);
/// The path when both ends share a cell, into g->out as theta_collect's.
int nav__same_cell(st_navgrid *g, const nav_ends *e);

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

/// Whether cell c (row-major, unpadded) is blocked.
static inline bool nav__blocked(const st_navgrid *g, int c)
{
    if (g->tiles) return g->tiles->clr[nav__tile_index(g->tiles, c % g->cols, c / g->cols)] == 0;
    return g->count[c] > 0;
}

/// The per-cell search buffers (see st_navgrid), made when missing: a
/// tile grid's on its first flow field. False when memory ran out.
bool nav__cell_buffers(st_navgrid *g);

/// The nearest free cell to p within the snap radius (whose connected part
/// is `comp` unless comp < 0), -1 when none; ties by the lower index.
int nav__snap(st_navgrid *g, st_vec2 p, int32_t comp);

/// Labels the connected parts of the free cells into comp (when dirty;
/// nav_parts.c).
void nav__label_parts(st_navgrid *g);
/// Tile (x, y) of a tile grid was just blocked or freed: its parts kept
/// up to date when the change is local to its neighbours, else marked
/// dirty (a later path labels them again).
void nav__parts_tile_changed(st_navgrid *g, int x, int y, bool blocked);

/// A tile-grid search for an agent of radius r (in tiles) and its room
/// in eighths of a tile (nav_tiles.h).
typedef struct tile_job {
    const nav_tiles *t;
    double r;
    int need;
} tile_job;

/// A tile-grid path's ends, checked and snapped (nav__tile_begin), the
/// search between them begun in g->query.
typedef struct nav_tile_ends {
    tile_job k;
    st_vec2 from, to;  // world units
    st_vec2 a, b;      // the same in tiles
    int s, goal;       // the search's tiles (padded indices)
    int goal_tile;     // the tile under the goal (before any snap)
} nav_tile_ends;

st_nav_result nav__tile_begin(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, nav_tile_ends *e);
/// After the search found the goal: the finished path in g->out (world
/// units); its count, -1 when memory ran out.
int nav__tile_finish(st_navgrid *g, const nav_tile_ends *e);

/// A path on a tile grid for an agent of radius `radius` (world units):
/// jump point search over the tiles with room for it, then pulled straight
/// and tightened with the exact tile line walk (nav_tilepath.c).
st_nav_result nav__tile_path(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                             int *n);

/// The links' edges brought up to date (after a change); false when
/// memory ran out.
bool nav__links_view(st_navgrid *g);
void nav__links_free(nav_links *L);

/// The world is going: the grid is told (its queries then refuse; only
/// st_navgrid_destroy is left to call). (nav.c; world.c calls it.)
void st__nav_orphan(st_navgrid *g);

#endif
