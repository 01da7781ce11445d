/*
 * nav_links.h — off-mesh links of a navigation grid (jumps, ladders, doors,
 * teleports): extra edges of the path searches from the cell (or tile) at a
 * link's start to the one at its end, with their own cost.
 *
 * The grid keeps its links as given (nav_link, world units); before a
 * search the edges are derived from them once per change (nav_links_view):
 * sorted by the cell they leave from, in the units of the search (world
 * units for Lazy Theta*, tiles for jump point search; on an obstacle grid
 * an end in a blocked cell, as a ledge beside a wall within the clearance
 * is, leaves from or lands on the nearest free cell within the snap
 * radius, and a link with an end that has none is left out until one
 * has), the "short" ones
 * (cheaper than the octile or straight distance between their ends, so
 * the plain heuristic could overestimate through them) apart, and for tile
 * grids the link starts as bits in the layout of nav_bits, so a jump stops
 * on them as it stops on the goal.
 */
#ifndef STEER_NAV_LINKS_H
#define STEER_NAV_LINKS_H

#include <stdbool.h>
#include <stdint.h>

#include "steer.h"

typedef struct nav_link {
    int32_t id;    // unique in the world, > 0
    st_vec2 a, b;  // ends, world units
    double cost;   // world units, >= 0
    bool both;     // also from b to a
} nav_link;

/// One direction of one link, in the search's units and cells.
typedef struct nav_edge {
    int32_t from, to;  // cells (obstacle grids) or padded tiles (tile grids)
    int32_t link;      // index into nav_links.v
    int32_t back;      // 1: the way back (b to a) of a two-way link
    double cost;
} nav_edge;

typedef struct nav_links {
    nav_link *v;
    int n, cap;
    bool dirty;          // the view below is stale
    // The view (nav__links_view), rebuilt after a change.
    nav_edge *e;         // sorted by from, then cost, then link id
    int ne, ecap;
    int32_t *shorts;     // indices into e of the short edges
    int nshort;
    uint64_t *stop_rows, *stop_cols; // tile grids: link starts, nav_bits layout
    int row_words, col_words;
    uint8_t *via;        // obstacle grids: per cell, reached over a link in this search
    uint8_t *step_link;  // tile grids: per tile of a path, whether it leaves over a link
} nav_links;

/// Index of the first edge leaving `from` (ne when none).
static inline int nav__links_first(const nav_links *L, int from)
{
    int lo = 0, hi = L->ne;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (L->e[mid].from < from) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// The cheapest link from cell `from` to cell `to` (the one a search
/// took): its index into v, -1 when none.
int nav__links_between(const nav_links *L, int from, int to);
/// The edge of link id `id` from cell `from` to cell `to`: its index into
/// e, -1 when none.
int nav__links_edge(const nav_links *L, int from, int to, int32_t id);

/// Runs a path's sections between links through fix (string pulling and
/// the like, which keeps each section's ends): o[0..m) with lk[i] != 0 when
/// o[i]..o[i+1] is a link. cap: room in o and lk. The new count, or -1
/// when the room ran out.
typedef int (*nav_fix_fn)(void *ctx, st_vec2 *p, int n, int cap);
int nav__links_sections(st_vec2 *o, int32_t *lk, int m, int cap, nav_fix_fn fix, void *ctx);

#endif
