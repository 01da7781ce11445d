/*
 * move.h — the mover's records, shared by move.c (orders, the path queue,
 * following, stuck handling) and move_group.c (group orders and slots).
 */
#ifndef STEER_MOVE_H
#define STEER_MOVE_H

#include "world_internal.h"
#include "mover.h"

/// One ordered agent.
typedef struct mv_entry {
    st_agent_id id;
    uint8_t state;        // st_move_state
    uint8_t live;         // 0: the record is free (order cancelled, agent gone)
    uint8_t near;         // a group member coming in: its slot is settled (move_group.c)
    int16_t retries;      // replans left before "stuck"
    uint32_t ticket;      // bumped by every order and replan: older requests are stale
    int32_t group;        // group handle, 0: none
    int32_t slot;         // its group slot, -1: none yet
    st_move_def def;
    st_vec2 goal;         // where it ends: the order's goal, or its slot
    st_vec2 *route;       // from where it stood to goal
    int n, cap, next;     // points, room, the waypoint it heads for
    // The navgrid link each leg takes (legs [0, n - 1); 0: none), when the
    // route takes any (`linked`); room for cap. link_seg: the leg whose
    // link event was recorded last (-1: none), so each is recorded once.
    int32_t *links;
    bool linked;
    int32_t link_seg;
    double remaining;     // along the route, as of this step
    double best;          // the least `remaining` of this stuck window
    double waited;        // seconds since `best` last fell by enough
    uint64_t epoch;       // the obstacle epoch the route was last checked against
} mv_entry;

/// Routes a group order may split over (move_split.c): the first, and up
/// to two more, each searched with the earlier ones' bottlenecks kept out.
#define MV_PARTS 3

/// A region a search keeps out of (a bottleneck of an earlier route).
typedef struct mv_keepout {
    st_vec2 c;
    double r;
} mv_keepout;

/// One request in the queue: an agent's own path, or a group's shared one.
typedef struct mv_request {
    st_agent_id id;       // the agent (group requests: the member it starts from)
    uint32_t ticket;      // the entry's ticket when asked (agent requests)
    int32_t group;        // > 0: a group's route
    uint32_t group_ticket;
    int part;             // group requests: which of its routes (0: the first)
    int keep_n;           // regions kept out of the search
    mv_keepout keep[MV_PARTS - 1];
} mv_request;

/// A group order: its slots and the route it shares.
typedef struct mv_group {
    int32_t handle;       // 0: free
    uint32_t ticket;
    st_vec2 goal, facing;
    st_vec2 front;        // the middle of the block's front row: the fill starts there
    st_navgrid *nav;
    double radius;        // planning radius of its route
    double body;          // the largest member's radius
    double spacing;       // between slots
    st_vec2 *slots;       // inner first
    uint8_t *taken;
    int32_t *holder;      // the record holding each slot + 1 (0: none)
    double outer;         // the farthest slot from the front middle
    double back;          // the back row's depth along facing from the goal (<= 0)
    int slot_n, slot_cap;
    int members;          // entries still in it
    int leaving;          // st_world_move_group's count of its members in a new order (0 otherwise)
    double arrived_at;    // world time its last member arrived (-inf: none yet)
    // Its routes so far while it considers splitting (move_split.c): the
    // points of each one after the other in `held`, and the bottlenecks
    // kept out of the next search.
    st_vec2 *held;
    int held_cap;
    int held_n[MV_PARTS];
    int parts;
    mv_keepout keep[MV_PARTS - 1];
    int keep_n;
} mv_group;

/// A search job per grid the queue has planned on.
typedef struct mv_job {
    st_navgrid *nav;
    st_nav_job *job;
} mv_job;

struct st_mover {
    mv_entry *e;
    int n, cap;               // records (free ones reused, lowest first)
    int32_t *by_slot;         // agent handle slot -> record + 1 (0: none)
    int slot_cap;
    mv_request *q;            // the queue, a ring
    int qhead, qn, qcap;
    bool q_started;           // the head's search is under way
    mv_job *jobs;
    int job_n, job_cap;
    mv_group *groups;
    int group_n, group_cap;
    int32_t next_group;
    long budget, work;
    long head_done;           // work the head's search has taken so far
    bool replay;              // restored: that search is run again to there first
    st_move_event *events;
    int event_n, event_cap;
};

/* move.c */
mv_entry *mv__entry(const st_world *w, st_agent_id id);
/// A record for id (its old one, reset, or a new one); NULL without memory.
mv_entry *mv__order(st_world *w, st_agent_id id, const st_move_def *def, st_vec2 goal);
/// Asks for the group's route `part`, planned from the member `from`,
/// keeping out of the group's keep-out regions (parts after the first).
bool mv__request_group(st_world *w, st_agent_id from, mv_group *g, int part);
bool mv__set_route(st_world *w, mv_entry *e, const st_vec2 *p, int n, const st_nav_job *job);
/// The same with the legs' links from the search `job` or, without one,
/// from lk (n - 1 entries; NULL: none).
bool mv__set_route_links(st_world *w, mv_entry *e, const st_vec2 *p, int n, const st_nav_job *job,
                         const int32_t *lk);
/// Asks for the agent's own path to e->goal (a replan, or a member that
/// cannot see its group's route). False without memory.
bool mv__request(st_world *w, mv_entry *e);
double mv__plan_radius(const st_world *w, const mv_entry *e);

/* move_split.c */
/// Route `part` of the group arrived (n > 0; `job` the search that found
/// it, NULL for none) or failed (n == 0): it is held, and either another route is asked for (its
/// bottleneck kept out) or the members are shared among the routes and
/// given their lanes. A route that takes a navgrid link is not split: the
/// members follow it through the link (mv__lay_linked).
void mv__group_part(st_world *w, mv_group *g, const st_vec2 *p, int n, int part, st_nav_result why,
                    const st_nav_job *job);
/// Marks (+1) or clears (-1) the request's keep-out regions on its grid.
void mv__keepout(st_navgrid *nav, const mv_request *r, int sign);

/* move_group.c */
/// Whether an agent of radius r fits at a and on the straight line a-b.
bool mv__fits(st_navgrid *nav, st_vec2 a, st_vec2 b, double r);
/// Lanes along route p (n points) for the group's waiting members whose
/// part_of[record] == part (part_of NULL: all of them); `u0` orders them
/// across for their slots (slots are given on the first call only).
void mv__lay_lanes(st_world *w, mv_group *g, const st_vec2 *p, int n, const int8_t *part_of, int part);
void mv__assign_slots(st_world *w, mv_group *g, st_vec2 p0, st_vec2 u0);
/// Routes for the group's waiting members along route p (n points) that
/// takes navgrid links (`job` names them): each joins it at the farthest
/// point it sees before the first link and follows it point by point, the
/// links' legs kept, then walks to its slot (move_group_links.c).
void mv__lay_linked(st_world *w, mv_group *g, const st_vec2 *p, int n, const st_nav_job *job);
/// Whether the search `job` found a route that takes a link.
bool mv__job_linked(const st_nav_job *job);
mv_group *mv__group(const st_mover *m, int32_t handle);
/// The group's route failed: every member fails with `why`.
void mv__group_failed(st_world *w, mv_group *g, st_nav_result why);
/// A member near the goal without a slot takes the innermost free one.
void mv__claim_slot(st_world *w, mv_entry *e);
/// A member coming near the block moves up its column when a slot ahead
/// is free or promised to one still further away.
void mv__coming_in(st_world *w, mv_entry *e);
/// The member leaves its group (its slot is freed).
void mv__leave_group(st_world *w, mv_entry *e);

/* move_block.c */
/// A group's goal: the goal itself when an agent of radius r fits there,
/// else the nearest cell centre where one does (within MV_GOAL_REACH cells;
/// the goal itself when none does).
st_vec2 mv__block_goal(st_navgrid *nav, st_vec2 goal, double r);
/// The slot of the member standing in e's way to its slot (from pos), when
/// that slot is nearer to pos than e's own; -1 when there is none or e is
/// not near its block.
int mv__blocker(const st_world *w, const mv_entry *e, st_vec2 pos);
/// e and the holder of slot k exchange slots (each measures its progress
/// afresh).
void mv__exchange_slots(st_world *w, mv_entry *e, int k);
void mv__groups_free(st_mover *m);
void mv__fail(st_world *w, mv_entry *e, st_move_event_kind kind, st_nav_result why);

#endif
