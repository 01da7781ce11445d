/*
 * world_internal.h — the world's private layout, shared by the core's .c files.
 *
 * Agents live in dense arrays, in spawn order until a big world first sorts
 * them into grid order (st__reorder; iteration then follows a spawn-order
 * index). A removal marks the entry dead and frees its handle at once; the
 * arrays are compacted (order kept) at the start of a step or when dead
 * entries pile up, so iteration order never changes and no pointer into the
 * arrays survives a call that may compact or re-sort.
 *
 * Hot data (what the integrator and the standing pass touch every step)
 * sits in st_body; everything else in st_agent.
 */
#ifndef STEER_WORLD_INTERNAL_H
#define STEER_WORLD_INTERNAL_H

#include "steer.h"
#include "rng.h"
#include "request.h"

/// Bodies are allocated at this alignment, and one is exactly two such
/// lines: the standing pass, which visits the agents in grid order and so
/// fetches their bodies at random, then reads two lines an agent and
/// nothing else of it (no straddling, no agent record).
#define ST_BODY_ALIGN 64

typedef struct st_body {
    st_vec2 pos;
    st_vec2 vel;
    st_vec2 heading;   // unit
    st_vec2 accum;     // this step's force so far
    double max_speed;
    double max_force;
    double mass;
    double radius;
    st_vec2 force;     // what the last step applied
    // The standing behaviours, shared (NULL when none, and once removed, so
    // a dead agent is skipped without a look at its record).
    struct st_blist *behaviors;
    uint8_t combine;   // st_combine
    uint8_t avoid;     // ST__AV_* bits (avoid.c)
    // Non-zero: the agent has an orientation record (motion.c) in
    // orients[slot], and the integrator turns its facing by it. In the
    // padding, so agents without one pay one byte test on a line the
    // integrator writes anyway.
    uint8_t orient;
    uint8_t pad_[5];
} st_body;

// st_body.avoid: ORCA runs for it; locked; its st_avoid_def is in avoid_defs[slot].
#define ST__AV_ORCA 1u
#define ST__AV_LOCKED 2u
#define ST__AV_DEF 4u

_Static_assert(sizeof(st_body) == 2 * ST_BODY_ALIGN, "st_body is two cache lines");

// A standing-behaviour list, shared by every agent given an identical one
// (a crowd set up in a loop holds one copy, not a million).
typedef struct st_blist {
    int refs;
    int count;
    // Some item reads another agent's body (a target's, a neighbour's
    // velocity ...), rather than only its own and the grid's copies.
    bool reads_others;
    st_behavior items[];
} st_blist;

// 72 bytes: with st_body, the tag, the handle slot and the grid item an
// agent costs under 256 bytes in all (the benchmark measures it).
typedef struct st_agent {
    uint32_t slot;            // back-link into the handle table
    uint8_t alive;
    uint8_t color[3];
    uint32_t rng_count;       // draws taken from the agent's stream (keyed by seed and serial)
    int32_t path_index;
    uint64_t serial;          // 1, 2, ...: spawn order, never reused
    st_vec2 wander_target;    // on the wander circle, relative to its centre, local frame
    double wander_distance, wander_radius, wander_jitter;
    const st_path *path;      // the path follow_path last used, and the next waypoint on it
} st_agent;

_Static_assert(sizeof(st_agent) == 72, "st_agent grew: recount the bytes per agent");

typedef struct st_slot {
    uint32_t dense;       // index into bodies/agents while alive; free: ST_SLOT_FREE | next free slot
    uint32_t generation;  // >= 1; bumped when the slot is freed, so old ids die
    uint64_t freed_serial; // serial of the agent last removed from this slot
} st_slot;

// A free slot's `dense` carries this bit over its free-list link, so that an
// id whose generation matches a free slot (forged, or kept across a restore
// by a C caller) is refused by st__dense instead of read as a dense index.
// Dense indices are ints, below the bit; the list's end, UINT32_MAX, has it.
#define ST_SLOT_FREE 0x80000000u
#define ST_NO_SLOT UINT32_MAX

static inline uint32_t st__free_link(uint32_t next) { return next | ST_SLOT_FREE; }
/// The generation after g (generations wrap past UINT32_MAX to 1, never 0).
static inline uint32_t st__gen_after(uint32_t g) { return g == UINT32_MAX ? 1 : g + 1; }
static inline uint32_t st__free_next(uint32_t dense)
{
    return dense == ST_NO_SLOT ? ST_NO_SLOT : dense & ~ST_SLOT_FREE;
}

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

typedef struct st_obstacle {
    int id;
    st_obstacle_kind kind;
    st_vec2 center;      // circle: centre; polygon / polyline: mean of the points
    st_vec2 prev_center; // where it was when the last step ended (ORCA's velocity for a moved circle)
    double radius;       // circle: radius; polygon / polyline: bounding radius about center
    st_vec2 *points;     // polygon / polyline: relative to center (closed polygons counter-clockwise)
    int point_count;
} st_obstacle;

typedef struct st_wall {
    st_vec2 from, to;
    st_vec2 normal;  // unit, +90 degrees from the direction from -> to
} st_wall;

typedef struct st_query_hit {
    double dist2;
    uint32_t index;
} st_query_hit;

#define ST_TRACE_CAP 32

struct st_world {
    st_mem mem; ///< the budget every block of the world (and what is made from it) is counted against
    double width, height;
    st_edges edges;
    uint64_t seed;
    double dt;
    double cell_size;
    int threads;

    uint64_t rng;        // world stream
    uint64_t tick;
    double time;
    uint64_t next_serial;
    int32_t link_serial; // the last navgrid link id given (st_navgrid_link)
    // Agents that reached a path's link in the step (path_links.c): room
    // for twice the agents once any has wanted it (grown at step begin).
    st_link_event *link_events;
    int link_event_count, link_event_cap;
    bool link_event_want;

    st_body *bodies;
    st_agent *agents;
    // Tags apart from the agent records: rebuilding the grid copies every
    // agent's tag into its item, and 4 bytes an agent stream far cheaper
    // than a cache line of a record each.
    int32_t *tags;
    int count;           // dense entries, dead ones included
    int capacity;
    int dead;            // dead entries awaiting compaction

    st_slot *slots;
    uint32_t slot_count, slot_cap;
    uint32_t free_slot;  // head of the free list, UINT32_MAX when empty
    // Generation floors, made by the first restore (NULL until then): slot
    // q has handed out generations up to gen_floor[q] in timelines a
    // restore abandoned, so its next freeing skips past them and an id from
    // those timelines never names an agent again. Once skipped, the entry
    // holds the generation of the agent last removed from the slot
    // (st_world_next finds a just-removed agent's place by it).
    uint32_t *gen_floor;
    uint32_t floor_count;

    // Storage order. The dense arrays start in spawn order; a big world is
    // sorted into grid order every ST_REORDER_EVERY steps (st__reorder), so
    // that each step's passes read its agents from memory in order rather
    // than at random. From then on spawn order lives in `order` (dense
    // indices in spawn order, dead entries too until compaction) and
    // `order_pos` (dense index -> place in `order`), made when first needed
    // (iteration) and kept up to date after that.
    bool reordered;
    bool resort;          // st_world_set_resort (default on)
    uint32_t *order, *order_pos;
    int order_cap;        // 0: no spawn-order index
    st_grid grid;
    uint64_t grid_epoch;  // builds of `grid` so far: what tag grids are checked against
    st_tag_grid tag_grids[ST_TAG_GRIDS];
    uint64_t tag_clock;
    int tag_last;                  // the tag grid slot last asked for: looked at first
    bool grid_dirty;
    bool brute_force;     // queries scan every item (all-pairs)

    bool in_step;
    bool removed_in_step; // the grid may list dead agents: check alive
    // st_world_nearest's last answer and its dense index: a brain's next call
    // is most often a behaviour toward it, whose target then needs no trip
    // to the handle table (st__dense_hint). Cleared wherever a dense index
    // can change or an id can die: removal, compaction, reorder, restore.
    st_agent_id hint_id;
    int hint_dense;
    // st_world_nearest's last answer to each agent that asked, by the
    // asker's handle slot (near_cap of them; NULL until first needed). Only
    // a bound: the next search around that agent reaches no farther than
    // that answer lies now, and searches again in full when the bound finds
    // nobody, so a stale or recycled entry costs time, never an answer.
    st_agent_id *near_last;
    uint32_t near_cap;
    double step_dt;
    double last_dt;       // the dt of the last step (0 before the first)
    // st_world_advance: time not yet stepped, the cap of steps a call, and
    // the steps dropped past it.
    double advance_acc;
    int advance_max;
    uint64_t advance_dropped;
    int step_count;      // dense entries that take part in the current step

    st_obstacle *obstacles;   // in the order added (ids increase)
    int obstacle_count, obstacle_cap;
    int next_obstacle_id;
    st_wall *walls;
    int wall_count, wall_cap;
    uint64_t obstacle_epoch;  // bumped by every change to obstacles or walls
    struct st_ray_index *ray_index; // raycast_index.c: the grid over them for rays (NULL until prepared)

    // Avoidance (avoid.c): settings by handle slot, for agents whose body
    // has ST__AV_DEF; the module's step buffers.
    st_avoid_def *avoid_defs;
    uint32_t avoid_def_cap;
    bool avoid_active;        // some agent was ever given ORCA: the step takes the avoidance path
    struct st_mover *mover;   // orders and the path queue (move.c); NULL until the first order
    struct st_navgrid **navs; // the navgrids made from this world (nav.c): orphaned when it goes
    int nav_n, nav_cap;
    st_vec2 *aside;           // each agent's step aside this step (avoid_yield.c), grown once
    int aside_cap;
    bool contacts;
    struct st_avoid_state *avoid;

    st_query_hit *scratch;   // st_world_query's sort buffer
    st_blist *last_list;     // the list set last, offered for sharing
    // Live agents whose standing list reads other agents' bodies. While
    // there are none, nothing in the standing pass looks at anyone's body
    // but its own, so each agent can move as soon as its forces are in.
    int others_readers;
    int scratch_cap;

    // Orientation records (motion.c) by handle slot, for agents whose body
    // has `orient` set; NULL until some agent needs one.
    struct st_orient *orients;
    uint32_t orient_cap;

    // Behaviours asked for between steps, for the next step (request.c).
    st__requests requests;

    // One agent's behaviours, recorded for the app's per-behaviour overlay.
    st_agent_id trace_id;
    st_trace_entry trace[2][ST_TRACE_CAP];
    int trace_count[2];
    int trace_cur;
};

struct st_path {
    st_vec2 *points;
    int count;
    bool loop;
    double radius;
    int32_t *links;     // per segment, the navgrid link it takes (0: none); NULL: none at all
    const st_mem *mem;  // what it was made in (st_path_set_link's array too)
};

/// Positions, membership or grid geometry changed outside a step's
/// integration: the grid must be rebuilt from scratch.
static inline void st__moved(st_world *w)
{
    w->grid_dirty = true;
    w->grid.pre_slices = 0;
    w->grid.pre_cells = 0;
}

/* move.c */
typedef struct st_mover st_mover;
void st__mover_step(st_world *w);
void st__mover_free(st_world *w);
/// The grid is going: orders on it fail, its search job goes.
void st__mover_forget(st_world *w, const st_navgrid *nav);
/* nav.c */
/// The world is going: the grid is told (its queries then refuse; only
/// st_navgrid_destroy is left to call).
void st__nav_orphan(st_navgrid *g);
/* move_snapshot.c */
/// A whole copy (NULL for NULL, *ok true); NULL with *ok false when memory runs out.
st_mover *st__mover_clone(const st_mover *m, const st_mem *mem, bool *ok);
void st__mover_destroy(st_mover *m);
/// Whether every grid the orders name belongs to w.
bool st__mover_orders_in(const st_mover *m, const st_world *w);
/// Live orders, and the first one's agent.
int st__mover_orders(const st_mover *m, st_agent_id *first);
size_t st__mover_memory(const st_mover *m);

/* world.c */
int st__dense(const st_world *w, st_agent_id id);   // -1 when dead
/// st__dense for a behaviour's target: the last nearest answer first.
static inline int st__dense_hint(const st_world *w, st_agent_id id)
{
    if (id.index == w->hint_id.index && id.generation == w->hint_id.generation && id.generation != 0)
        return w->hint_dense;
    return st__dense(w, id);
}
static inline void st__hint_clear(st_world *w) { w->hint_id.generation = 0; }
/// The handle of the live agent at dense index i.
static inline st_agent_id st__id_of(const st_world *w, int i)
{
    st_agent_id id = {w->agents[i].slot, w->slots[w->agents[i].slot].generation};
    return id;
}
/// Grows *p (of *cap elements of elem bytes) to hold at least need, doubling
/// from 16; false when memory runs out (*p and *cap unchanged).
/// Grows *p (counted against m when new) to hold need elements, doubling.
bool st__grow(const st_mem *m, void **p, int *cap, int need, size_t elem);
/// Asks for huge pages under a large array (a hint; nothing where unsupported).
void st__advise_huge(void *p, size_t bytes);
void st__compact(st_world *w);
/// Sorts the dense arrays into the order of the grid just built (every agent
/// alive and in the grid); ids, the grid and the spawn-order index follow.
void st__reorder(st_world *w);
/// Whether this step begins with st__reorder (a big world, every so often).
bool st__reorder_due(const st_world *w);

/* grid.c */
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

void st__blist_release(st_world *w, st_blist *l);
/// Whether some behaviour of the list reads another agent's body in the
/// standing pass (st_blist.reads_others; the world counts such agents).
bool st__blist_reads_others(const st_behavior *list, int n);

/* obstacle.c */
void st__obstacles_free(st_world *w);
/// The end of a step: every obstacle's current centre becomes its previous one.
void st__obstacles_settle(st_world *w);
/// avoid_obstacles' look at polygons and polylines: the nearest point of
/// one inside the detection box (length box, half width r about the
/// heading h), as x along h and y along its side. False when none.
bool st__polygon_box_hit(const st_world *w, const st_obstacle *o, st_vec2 pos, st_vec2 h, double box, double r,
                         double *hit_x, double *hit_y);
/// The point of a polygon or polyline's outline closest to p, and whether p
/// lies inside a closed polygon.
st_vec2 st__polygon_closest(const st_world *w, const st_obstacle *o, st_vec2 p, bool *inside);
/// Whether p lies inside the closed polygon o (crossing count; nav.c, raycast.c).
bool st__polygon_holds(const st_obstacle *o, st_vec2 p);
/// Every segment of the world's obstacles and walls (polygon edges, polyline
/// segments, walls), for avoid_walls: calls fn(ctx, from, to).
void st__each_segment(const st_world *w, void (*fn)(void *ctx, st_vec2 a, st_vec2 b), void *ctx);

/* raycast_index.c */
void st__ray_index_free(st_world *w);

/* avoid.c */
void st__avoid_free(st_world *w);
/// Agent i's avoidance settings (the defaults when it has none), and with
/// its automatic values worked out.
const st_avoid_def *st__avoid_def(const st_world *w, int i);
st_avoid_def st__avoid_effective(const st_world *w, int i);
/// The layers agent j is on.
static inline uint32_t st__avoid_layer(const st_world *w, uint32_t j)
{
    return (w->bodies[j].avoid & ST__AV_DEF) ? w->avoid_defs[w->agents[j].slot].layer : 1u;
}
/// Agent i as its ORCA neighbours see it (avoid.c), copied once per step
/// before st__avoid_pass; call for every i in [0, step_count). True when
/// it is a plain ORCA agent: unlocked, avoiding every layer, on one at
/// least, priority 1 (the defaults).
bool st__avoid_peer(st_world *w, int i);
/// ORCA's velocities for the step's agents, from the state at its start.
/// pref[i] holds agent i's preferred velocity (the pass only reads it);
/// after the pass st__avoid_velocity(w, i) is the one it moves at. Call from every
/// thread of the parallel region (orphaned omp fors), after st__avoid_peer
/// for every agent and a barrier. `plain`: every agent of the step is a
/// plain one (st__avoid_peer), so every pair shares the avoiding evenly.
void st__avoid_pass(st_world *w, const st_vec2 *pref, bool plain);
st_vec2 st__avoid_velocity(const st_world *w, int i);
/* avoid_yield.c */
/// ORCA agents that want to stay about where they are step aside for one
/// whose preferred way runs through them: pref[i] becomes the step aside.
/// aside: n entries of scratch. Call from every thread of the parallel
/// region (orphaned omp fors), after every pref[i] is in.
void st__yield_pass(st_world *w, st_vec2 *pref, st_vec2 *aside, int n);
/// The buffer for the step's preferred velocities (count entries), or NULL
/// when memory ran out (the step then runs without avoidance).
st_vec2 *st__avoid_begin(st_world *w, int count);
/// The same buffer alone, for other passes after the move (contacts).
st_vec2 *st__avoid_buffer(st_world *w, int count);
/// Contacts: push overlapping bodies apart after moving (contacts.c).
void st__contacts_pass(st_world *w);

/* avoid_predict.c */
/// avoid_agents: away from the neighbour this agent would pass closest to
/// soonest, if that pass is a collision.
st_vec2 st__avoid_agents_force(const st_world *w, int i, double dt);

/* flowfield.c */
/// follow_flow's desired velocity at pos: down the field at max_speed,
/// slowing over the last cell before the goal.
st_vec2 st__flow_desired(const st_flowfield *f, st_vec2 pos, double max_speed);
/* motion.c */
/// An agent's orientation: its turn rate and this step's facing request.
typedef struct st_orient {
    double turn_rate;   // rad/s, INFINITY: unlimited
    st_vec2 face;       // unit direction asked for this step (ST_FACE); zero: the velocity's
} st_orient;
/// Agent i's record, made when missing (never inside the standing pass);
/// NULL when memory runs out.
st_orient *st__orient_ensure(st_world *w, int i);
/// The integrator's turn for an agent with a record: toward this step's
/// request or the new velocity v, by at most turn_rate * dt.
void st__orient_turn(st_world *w, int i, st_vec2 v, double dt);
void st__orient_free(st_world *w);
/// A standing list with face / look_where_going needs the record up front.
bool st__orient_list_needs(const st_behavior *list, int n);
/// The motion.c behaviours' forces (ST_FACE .. ST_QUEUE).
st_vec2 st__motion_force(st_world *w, int i, const st_behavior *bh, double dt);

/* path_follow.c */
/// follow_path in ST_PATH_PREDICT mode.
/* path_links.c */
/// Records that agent i reached the link of segment `seg` of path p (from
/// any thread of a step); false when there is no room yet (the agent then
/// waits a step at the link's start) or outside a step.
bool st__link_reached(const st_world *w, int i, const st_path *p, int seg);
/// Step begin: room for the events, and none yet. Step end: in agent order.
void st__link_events_begin(st_world *w);
void st__link_events_end(st_world *w);
static inline int st__path_link(const st_path *p, int seg) { return p->links ? p->links[seg] : 0; }

st_vec2 st__follow_path_predict(st_world *w, int i, const st_path *p, double predict, double ahead,
                                double dt);

/* group.c */
/// The sums behind separate, align, cohere and flock, over an agent's
/// neighbours (or a given list of agents, behaviors.c).
typedef struct st__group {
    st_vec2 sep;          // sum of -offset / distance^2 over neighbours within the separation radius
    st_vec2 heading_sum;
    st_vec2 offset_sum;
    int n;
    double sep_r2;        // the separation radius^2
    uint32_t self;        // dense index of the agent the sums are for
} st__group;
/// A run of grid items [k0, k1) (group.c) whose lane positions are
/// relative to (bx, by): their block's corner, shifted across the wrap
/// edges when the run lies past one.
typedef struct st__run {
    int32_t k0, k1;
    double bx, by;
} st__run;
/// The runs a disc covers, kept from one agent to the next by a pass in
/// grid order: the agents of one cell nearly always cover the same cells,
/// and the next one only shifts them to its own centre.
#define ST_RUNS_MEMO 16
typedef struct st__runs_memo {
    uint64_t epoch;          // the grid (w->grid_epoch) they are runs of; 0: none
    double radius;
    double lo[2], hi[2];     // where a centre may lie for its disc to cover these runs
    int m;
    st__run runs[ST_RUNS_MEMO];
} st__runs_memo;
/// Agent i's neighbours from the grid: within p's radius and tag, in the
/// view cone (cos_half: the cosine of half of it, -2 all around), other
/// than itself; separation counts those within sep_radius. memo: NULL, or
/// the pass's (st__runs_memo; its epoch 0 to begin with).
void st__group_query(const st_world *w, int i, const st_flock_params *p, double cos_half, double sep_radius,
                     st__group *g, st__runs_memo *memo);
/// How many agents st__flock_batch takes at most.
#define ST_FLOCK_BATCH 8
/// The flock's forces for agents index[0..n) (n <= ST_FLOCK_BATCH), all with
/// flock parameters p: their neighbour sums (as st__group_query), then the
/// three rules, four agents a vector (separation, alignment and cohesion
/// each steer toward max speed along their sum's direction with
/// behaviors.c's velocity matching, weighted, added, and truncated to just
/// under max_force), in float: force[m]. ok[m] false where float will not do
/// (a sum, the body or a weight out of its range, or a neighbour on the
/// agent's own spot): g[m] then holds the sums for the same rules in double.
/// An agent's force does not depend on the others of the batch.
void st__flock_batch(const st_world *w, const st_flock_params *p, double cos_half, double sep_radius,
                     const int *index, int n, double dt, st_vec2 *force, bool *ok, st__group *g,
                     st__runs_memo *memo);
/// Two agents on the same spot still push apart, each its own way: a
/// direction that depends only on the pair (by serial), flipped for one.
st_vec2 st__coincident_dir(uint64_t self, uint64_t other);

/* behaviors.c: the shared pieces other behaviour modules build on */
/// The direction wander heads this step: its target jittered on the circle
/// ahead (advancing the agent's draws and circle).
st_vec2 st__wander_dir(const st_world *w, const st_body *b, st_agent *a, double dt);
/* rest.c */
/// stop and graze.
st_vec2 st__rest_force(st_world *w, int i, const st_behavior *bh, double dt);
st_vec2 st__steer_velocity(const st_body *b, st_vec2 desired, double dt);
/// Speed from which the body still stops at distance d (arrive's ramp).
double st__approach_speed(const st_body *b, double d, double slowing, double dt);
st_vec2 st__seek(const st_world *w, const st_body *b, st_vec2 target, double dt);
st_vec2 st__arrive(const st_world *w, const st_body *b, st_vec2 target, double slowing, double dt);

/* behaviors.c */
/// One behaviour's force for agent i at st_world_step_dt (advances its own state).
st_vec2 st__force_of(st_world *w, int i, const st_behavior *b);
/// separate, align or cohere (type) over an explicit list of agents.
st_vec2 st__list_force(st_world *w, int i, const st_agent_id *list, int n, st_behavior_type type);
void st__accumulate(st_world *w, int i, st_vec2 force, double weight, st_behavior_type type);
/// Standing behaviours of every agent of the step. Call from every thread of
/// a parallel region (its loop is an orphaned omp for), or from one. With
/// `integrate`, each agent is integrated (st__integrate) right after its
/// behaviours, while its body is still in cache: only when no standing
/// behaviour reads another agent's body (others_readers == 0).
void st__standing_pass(st_world *w, bool integrate);
/* request.c */
/// What a kept request returns to its caller: its force at the world's dt,
/// with the agent's own state left as it was.
st_vec2 st__request_preview(st_world *w, int i, const st__request *r, const st_agent_id *ids);

/* formation.c */
/// The force that brings agent i to a formation slot at `slot` moving with
/// the anchor's velocity (arrive's ramp over `slowing`).
st_vec2 st__formation_slot_force(st_world *w, int i, st_vec2 slot, st_vec2 anchor_vel, double slowing);

/* step.c */
/// Step 4 for agent i (live): truncate, integrate, move, clear.
void st__integrate(st_world *w, int i, double dt);

/// The point of segment a-b closest to p.
static inline st_vec2 st__closest_on_segment(st_vec2 p, st_vec2 a, st_vec2 b)
{
    st_vec2 e = st_v2_sub(b, a);
    double l2 = st_v2_len2(e);
    double t = l2 > 0.0 ? st_v2_dot(st_v2_sub(p, a), e) / l2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return st_v2_add(a, st_v2_scale(e, t));
}

/// Is `offset` (length^2 dist2) inside the cone of half-angle acos(cos_half)
/// around the unit `heading`? No square root: compares squares by sign.
static inline bool st__in_cone(st_vec2 offset, double dist2, st_vec2 heading, double cos_half)
{
    double dot = offset.x * heading.x + offset.y * heading.y;
    double c2 = cos_half * cos_half * dist2;
    if (cos_half >= 0.0) return dot >= 0.0 && dot * dot >= c2;
    return dot >= 0.0 || dot * dot <= c2;
}

static inline bool st__in_view(st_vec2 offset, double dist2, st_vec2 heading, double cos_half)
{
    // cos_half <= -1 means all around; an agent on top of us is always seen.
    if (cos_half <= -1.0 || dist2 <= 0.0) return true;
    return st_v2_dot(offset, heading) >= cos_half * sqrt(dist2);
}

/// 2^52: from here on every double is a whole number, and x - size * n
/// (n a whole number of sizes) may be off by more than a size.
#define ST__WHOLE 4503599627370496.0

/// d reduced modulo size into [-size/2, size/2]: the nearest whole number
/// of sizes taken off, exactly even far out (remainder), where the product
/// of the usual way is off by more than a size.
static inline double st__fold_far(double d, double size)
{
    if (fabs(d) < ST__WHOLE * size) return d - size * floor(d / size + 0.5);
    return remainder(d, size);
}

/// st_world_offset, inline for the behaviours that call it once an agent a
/// step: through the exported function a crowd's arrive stalled on the
/// returned vector (two stores to the stack, read back as one).
static inline st_vec2 st__offset(const st_world *w, st_vec2 from, st_vec2 to)
{
    st_vec2 d = st_v2_sub(to, from);
    if (w->edges == ST_EDGES_WRAP) {
        // Positions outside the rectangle (a prediction ahead of an agent, a
        // user's point) still get the shortest offset: reduce modulo the size.
        // Finite points so far apart that their difference overflows are
        // reduced one by one first (inf - inf would make a nan).
        if (!isfinite(d.x)) d.x = fmod(to.x, w->width) - fmod(from.x, w->width);
        if (!isfinite(d.y)) d.y = fmod(to.y, w->height) - fmod(from.y, w->height);
        if (d.x > 0.5 * w->width || d.x < -0.5 * w->width) d.x = st__fold_far(d.x, w->width);
        if (d.y > 0.5 * w->height || d.y < -0.5 * w->height) d.y = st__fold_far(d.y, w->height);
    }
    return d;
}

#endif
