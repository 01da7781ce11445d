/*
 * grid.h — the neighbour grid (grid.c): a counting sort of the live agents
 * into cells, rebuilt from their positions at the start of every step, and
 * the small grids of one rare tag. The inline walk over a disc's cells is
 * grid_iter.h.
 */
#ifndef STEER_GRID_H
#define STEER_GRID_H

#include "steer.h"

// The neighbour grid: a counting sort of live agents into cells, rebuilt from
// positions at the start of every step (and lazily before queries outside a
// step when something moved). Items carry a copy of the position so the
// distance test touches one cache line per candidate.
typedef struct st_grid_item {
    st_vec2 pos;
    uint32_t index;  // dense index
    int32_t tag;
} st_grid_item;

/// The main grid's items once more for the group rules (group.c), in float
/// and one array a field, so that four candidates load at once. Positions
/// are kept relative to the corner of their block of ST_GRID_BLOCK x
/// ST_GRID_BLOCK cells: their precision (about 1e-4 at cells of 50) then
/// does not depend on where in the world the agents are.
#define ST_GRID_BLOCK_SHIFT 5
#define ST_GRID_BLOCK (1 << ST_GRID_BLOCK_SHIFT)
/// Floats past the last item: a vector read past a run's end stays inside.
#define ST_GRID_LANE_PAD 4
typedef struct st_grid_lanes {
    float *x, *y;    // relative to the block's corner
    float *hx, *hy;  // heading
    uint32_t *index; // dense index, as items[k].index
    int32_t *tag;    // as items[k].tag
    int cap;         // items the arrays hold (past them: ST_GRID_LANE_PAD)
} st_grid_lanes;


typedef struct st_grid {
    st_mem mem; ///< the world's budget (set as the world is made)
    double cell_w, cell_h;    // effective cell sizes (wrap worlds divide the world evenly)
    int nx, ny;
    int32_t *cell_start;      // nx*ny + 1 prefix sums
    st_grid_item *items;      // sorted by cell
    // The main grid's lanes, one allocation with their arrays behind them;
    // NULL in tag grids (a pointer: a world copy in every snapshot carries
    // five grids).
    st_grid_lanes *lanes;
    int item_count;
    int cell_cap, agent_cap;
    int32_t *hist;            // the parallel sort's counters, (threads - 1) * cells
    int hist_cap;
    // The serial sort's counters, one a cell, all zero between builds (the
    // build clears the cells it counted in): nothing to clear a whole
    // table of mostly empty cells for.
    int32_t *counts;
    int counts_cap;
    // > 0 when the integrator already counted the next build's slices (that
    // many, over pre_count agents, into cell_start + 1 and hist): the build
    // then skips its own counting pass, a whole stream over the bodies.
    // Anything else that moves, adds or removes an agent clears it.
    int pre_slices;
    int pre_count;
    // The fused standing pass (step.c) moves each agent in grid order, far
    // from where the build will stream its body: it keeps the agent's new
    // cell in next_cells[i] on the way (this grid's geometry), and
    // pre_cells > 0 says that many agents' are there. The build then counts
    // from 4 bytes an agent rather than a line of its body, when its
    // geometry is still the same. Cleared as pre_slices is.
    int32_t *next_cells;
    int next_cells_cap;
    int pre_cells;
    bool keep_cells;  // this step's fused pass fills next_cells
    // A tag grid's handles of its items (items[k] is agent ids[k]), so that
    // a nearest answer from it reads no agent record or slot: thousands of
    // prey asking for the nearest of a thousand hunters would otherwise
    // fetch those two lines of a hunter each. NULL in the main grid.
    st_agent_id *ids;
    int ids_cap;
} st_grid;

/// A grid of one tag's agents alone, for queries filtered by a tag that few
/// agents carry ("the nearest hunter" asked by thousands of prey): its cells
/// are sized for those few, so a query reads a row or two of a small grid
/// instead of every row of the full one and skips the other tags' agents.
/// Made on demand from the main grid (same items, same dense indices), valid
/// until that grid is rebuilt. Results do not depend on which grid answers.
#define ST_TAG_GRIDS 4
typedef struct st_tag_grid {
    st_grid g;
    int32_t tag;
    bool rare;       // false: too common to be worth a grid; the main one answers
    double near_step; // st_world_nearest's first disc on the grid that answers (grid.c)
    uint64_t epoch;  // the main grid build it was made from (0: unused slot)
    uint64_t used;   // last use, for replacing the stalest slot
} st_tag_grid;

void st__grid_build(st_world *w, int count);
void st__grid_free(st_grid *g);
void st__tag_grids_free(st_world *w);
/// The grid that answers a query filtered by tag (ST_TAG_ANY: the main one).
const st_grid *st__grid_for_tag(st_world *w, int32_t tag);
void st__grid_ensure(st_world *w);   // rebuild if dirty and not in a step
/// How many slices the next build of `count` agents sorts in, with the
/// histograms for them allocated; 1 when it sorts serially.
int st__grid_slices(st_world *w, int count);
/// Slice s of ns over count agents: [*i0, *i1), and its histogram row.
int32_t *st__grid_slice(st_world *w, int s, int ns, int count, int *i0, int *i1);
// st__grid_count, the integrator's side of it, is in grid_iter.h.
/// A query's callback for each live agent that passes it (grid.c).
typedef void (*st__visit_fn)(void *ctx, const st_grid_item *item, st_vec2 offset, double dist2);

#endif
