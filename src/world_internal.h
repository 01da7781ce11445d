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
 *
 * This header is storage and handles (and world.c's helpers on them). Each
 * subsystem has its own: grid.h (the neighbour grid), obstacle.h,
 * avoid.h (ORCA and the other avoidance passes; orca.h inside them),
 * motion.h (orientation, integration), behavior_internal.h (what the
 * behaviour modules share), mover.h (orders), nav_internal.h (navigation),
 * geom.h (inline geometry). A file includes the ones it uses.
 */
#ifndef STEER_WORLD_INTERNAL_H
#define STEER_WORLD_INTERNAL_H

#include "steer.h"
#include "grid.h"
#include "request.h"
#include "rng.h"

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

typedef struct st_obstacle st_obstacle; // obstacle.h
typedef struct st_wall st_wall;

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
    // The largest live agent's radius, or more (raycast_agents.c): raised
    // by spawns and growth; radius_max_ok false: count it again.
    double radius_max;
    bool radius_max_ok;

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

/* raycast_agents.c: the largest agent radius, a bound kept as agents come,
   go and change size. */
void st__radius_spawned(st_world *w, double r);
void st__radius_dropped(st_world *w, double r);
double st__radius_max(st_world *w);

/* world.c */
/// The dense index of a live agent's handle; -1 when dead. Inline: most
/// calls into the core start with it (a brain's query, then its behaviour).
static inline int st__dense(const st_world *w, st_agent_id id)
{
    if (id.generation == 0 || id.index >= w->slot_count) return -1;
    const st_slot *s = &w->slots[id.index];
    if (s->generation != id.generation || (s->dense & ST_SLOT_FREE)) return -1;
    return (int)s->dense;
}
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
/// Grows *p (of *cap elements of elem bytes, counted against m when new) to
/// hold at least need, doubling from 16; false when memory runs out (*p and
/// *cap unchanged).
bool st__grow(const st_mem *m, void **p, int *cap, int need, size_t elem);
/// Asks for huge pages under a large array (a hint; nothing where unsupported).
void st__advise_huge(void *p, size_t bytes);
void st__compact(st_world *w);
/// Sorts the dense arrays into the order of the grid just built (every agent
/// alive and in the grid); ids, the grid and the spawn-order index follow.
void st__reorder(st_world *w);
/// Whether this step begins with st__reorder (a big world, every so often).
bool st__reorder_due(const st_world *w);

void st__blist_release(st_world *w, st_blist *l);
/// Whether some behaviour of the list reads another agent's body in the
/// standing pass (st_blist.reads_others; the world counts such agents).
bool st__blist_reads_others(const st_behavior *list, int n);

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
