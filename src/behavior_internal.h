/*
 * behavior_internal.h — what the behaviour modules share: the group sums
 * and the flock batch (group.c), the steering pieces (behaviors.c, rest.c),
 * path following and its links, formation slots, flow fields, and the
 * requests' preview (request.c). The section names the file that defines
 * each.
 */
#ifndef STEER_BEHAVIOR_INTERNAL_H
#define STEER_BEHAVIOR_INTERNAL_H

#include "world_internal.h"

/* path_links.c */
/// Records that agent i reached the link of segment `seg` of path p (from
/// any thread of a step); false when there is no room yet (the agent then
/// waits a step at the link's start) or outside a step.
bool st__link_reached(const st_world *w, int i, const st_path *p, int seg);
/// The same for any route: agent i reached link `link` at the start of
/// its segment `seg` (p: the path, or NULL for an order's route, move.c).
bool st__link_event(const st_world *w, int i, int link, int seg, const st_path *p);
/// Step begin: room for the events, and none yet. Step end: in agent order.
void st__link_events_begin(st_world *w);
void st__link_events_end(st_world *w);
static inline int st__path_link(const st_path *p, int seg) { return p->links ? p->links[seg] : 0; }

/* path_follow.c */
/// follow_path in ST_PATH_PREDICT mode.
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

/* behavior_obstacles.c */
/// avoid_obstacles, avoid_walls and contain for body b (their sensors:
/// st_agent_sensors).
st_vec2 st__avoid_obstacles_force(const st_world *w, const st_body *b, double dt);
st_vec2 st__avoid_walls_force(const st_world *w, const st_body *b, double dt);
st_vec2 st__contain_force(const st_world *w, const st_body *b, const double rect[4], double dt);

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

/* flowfield.c */
/// follow_flow's desired velocity at pos: down the field at max_speed,
/// slowing over the last cell before the goal.
st_vec2 st__flow_desired(const st_flowfield *f, st_vec2 pos, double max_speed);

#endif
