/*
 * nav_tiles.h — tile maps for the navigation grid: the read-only map (which
 * tiles are blocked, and each free tile's clearance), the search state of
 * one query apart from it (Detour's dtNavMesh / dtNavMeshQuery split), and
 * the exact tile line walk the paths are smoothed with.
 *
 * Coordinates here are in tiles: tile (x, y) is the closed square
 * [x, x+1] x [y, y+1]; its centre is (x + 0.5, y + 0.5). Arrays are padded
 * with one blocked tile all round, so a neighbour read never needs a bounds
 * check: padded index c = (y + 1) * stride + (x + 1).
 */
#ifndef STEER_NAV_TILES_H
#define STEER_NAV_TILES_H

#include <stdbool.h>
#include <stdint.h>

#include "nav_links.h"
#include "steer.h"

/// Clearance is kept in eighths of a tile, rounded down (so it never
/// overstates the room), up to 255 (31.875 tiles).
#define NAV_CLR_SCALE 8
#define NAV_CLR_MAX 255
/// A free tile's centre is at least half a tile from every blocked one.
#define NAV_CLR_FREE (NAV_CLR_SCALE / 2)

/// The read-only map: built once, changed only by nav__tiles_set.
typedef struct nav_tiles {
    int cols, rows;     // tiles
    int stride;         // cols + 2
    int cells;          // stride * (rows + 2)
    uint8_t *clr;       // padded; 0 blocked, else floor(8 * distance from
                        // the centre to the nearest blocked tile or the
                        // map's edge), at least NAV_CLR_FREE
    uint32_t version;   // bumped by every change of the tiles
} nav_tiles;

/// A map from cols x rows bytes (row-major, nonzero blocked). NULL when
/// memory runs out.
nav_tiles *nav__tiles_create(const st_mem *mem, int cols, int rows, const uint8_t *blocked);
void nav__tiles_destroy(nav_tiles *t);
/// Blocks or frees tile (x, y) (inside the map) and brings the clearance
/// of the tiles around it up to date: the same bytes a new map would have,
/// for the price of the ~67 x 67 tiles it can reach. Bumps the version.
void nav__tiles_set(nav_tiles *t, int x, int y, bool blocked);

static inline int nav__tile_index(const nav_tiles *t, int x, int y) { return (y + 1) * t->stride + (x + 1); }
static inline int nav__tile_x(const nav_tiles *t, int c) { return c % t->stride - 1; }
static inline int nav__tile_y(const nav_tiles *t, int c) { return c / t->stride - 1; }

/// Whether tile (x, y) is blocked; tiles outside the map are.
static inline bool nav__tile_blocked(const nav_tiles *t, int x, int y)
{
    if (x < 0 || y < 0 || x >= t->cols || y >= t->rows) return true;
    return t->clr[nav__tile_index(t, x, y)] == 0;
}

/// The clearance needed, in the map's eighths, by an agent of radius r
/// tiles: at least 1 (a free tile); > NAV_CLR_MAX when no tile can hold it.
int nav__tiles_need(double r);

/// Whether the segment a-b (tile coordinates) keeps at least r from every
/// blocked tile and from outside the map; with r = 0, whether it touches
/// none of them (a blocked tile is closed: a segment through the corner
/// two blocked tiles share, or along a blocked tile's side, is not clear).
bool nav__tiles_clear(const nav_tiles *t, st_vec2 a, st_vec2 b, double r);

/* ---- one search (nav_query.c, nav_search.c) ---- */

/// The tiles usable for one need as bits, rows and columns apart, so a
/// straight run reads 64 tiles at a time. Bit 64 + x of row y is padded
/// tile (x, y); the 64 bits before and after are unusable.
typedef struct nav_bits {
    uint64_t *rows, *cols;
    int row_words, col_words; // words per row, per column
    int need;                 // 0: empty
    uint32_t version;         // the map's version they were made from
} nav_bits;

/// One tile's search state: a slot of the query's table, which holds only
/// the tiles a search touched (open addressing by tile index, linear
/// probing). A slot whose stamp is not the query's id is empty, so a new
/// search empties the table by bumping the id.
typedef struct nav_node {
    double g;        // octile cost from the start
    int32_t cell;    // the tile (padded index) this slot is for
    int32_t parent;
    uint32_t stamp;  // == the query's id: the slot is in use in this search
    uint8_t closed;
    uint8_t via;     // reached from its parent over a link
} nav_node;

/// An open-list entry, self-contained so the heap never reads the nodes:
/// a tile may be in it more than once (a later, cheaper offer); the stale
/// entries are skipped when popped.
typedef struct nav_open {
    double f, g;
    int32_t c;
} nav_open;

/// The search state of one query: costs, parents and the open list of the
/// tiles its search touched, in memory that grows with the search (never
/// with the map: a 4096 x 4096 map's query starts at a few hundred kB).
/// A map may have any number.
typedef struct nav_query {
    int cells;
    const st_mem *mem;  // the budget its buffers count against (alloc.h)
    nav_node *node;     // node_mask + 1 slots, a power of two
    uint32_t node_mask;
    int node_shift;     // 32 - log2(slots): a tile's home slot is the top bits of its hash
    int node_n;         // slots in use in this search
    nav_open *heap;
    int heap_n, heap_cap;
    uint32_t id;
    // The search under way.
    int start, goal, need;
    int state;           // NAV_SEARCH_*
    long expanded;
    long pops;           // taken from the open list, stale ones too (the budget's unit)
    // The usable bits of the last two needs searched (round robin).
    nav_bits bits[2];
    int bits_next;
    const nav_bits *use; // those of the search under way
    // The grid's links for the next search (NULL: none; set before
    // nav__search_begin), and the least cost from a short link's start on.
    const nav_links *links;
    double link_k;
    // Its result: jump points, goal first (padded indices).
    int32_t *out;
    int out_n, out_cap;
} nav_query;

enum { NAV_SEARCH_IDLE, NAV_SEARCH_RUNNING, NAV_SEARCH_FOUND, NAV_SEARCH_FAILED };

nav_query *nav__query_create(const st_mem *mem, int cells);
void nav__query_destroy(nav_query *q);
/// A new stamp: every tile's g and parent from earlier searches are stale.
void nav__query_reset(nav_query *q);

/// The slot of tile c in this search, NULL when the search has not
/// touched it.
static inline nav_node *nav__query_find(const nav_query *q, int32_t c)
{
    for (uint32_t i = ((uint32_t)c * 2654435761u) >> q->node_shift;; i = (i + 1) & q->node_mask) {
        nav_node *n = &q->node[i];
        if (n->stamp != q->id) return NULL;
        if (n->cell == c) return n;
    }
}
/// The slot of tile c, made (g = infinity, open) when new. NULL when the
/// table was full and could not grow. A later touch may move the slots:
/// the pointer holds until then.
nav_node *nav__query_touch(nav_query *q, int32_t c);
/// Open-list operations (ties by the larger g, then the lower index).
/// Push is false when the list was full and could not grow.
bool nav__query_push(nav_query *q, int32_t c, double f, double g);
nav_open nav__query_pop(nav_query *q);
bool nav__query_grow_out(nav_query *q);
/// The usable bits for `need` on map t: kept ones when they match, else
/// made in one of the two slots (the one allocation a new need makes).
/// NULL when memory runs out.
const nav_bits *nav__query_bits(nav_query *q, const nav_tiles *t, int need);

/// Jump point search (Harabor and Grastien 2011; no corner cutting) over
/// the tiles whose clearance is at least `need`, from tile s to tile t
/// (padded indices; both must be usable). Begin, then run in slices of at
/// most `budget` expansions until the state is FOUND or FAILED.
/// False when memory for the need's bits ran out.
bool nav__search_begin(nav_query *q, const nav_tiles *t, int s, int goal, int need);
int nav__search_run(nav_query *q, const nav_tiles *t, long budget);

/// How many tiles nav__search_cells gives for the last FOUND search (-1:
/// more than fit in an int's half).
int nav__search_steps(const nav_query *q, const nav_tiles *t);
/// Tiles the path of the last FOUND search visits, start to goal, one step
/// at a time (a dense octile path), into `out` (room for `cap`). Returns the
/// count, or -1 when it does not fit.
int nav__search_cells(const nav_query *q, const nav_tiles *t, int32_t *out, int cap);
/// The same, and (when `link` is not NULL) link[i] set when the path goes
/// from out[i] to out[i + 1] over a link (link[last] is 0).
int nav__search_cells_links(const nav_query *q, const nav_tiles *t, int32_t *out, uint8_t *link, int cap);

/// White-box: the straight run from padded tile c by d (±1, ±stride) for
/// the query's need and goal, one tile at a time and 64 at a time: the
/// jump point (or -1) when both agree, -2 when they do not.
int nav__jump_check(const nav_query *q, const nav_tiles *t, int c, int d);

/// Octile length of the last FOUND search's path, in tiles.
double nav__search_cost(const nav_query *q);

#endif
