/*
 * steer/types.h — the core's types and definitions: handles, enums, the
 * definition structs each constructor takes (st_world_def, st_avoid_def,
 * st_navgrid_def...), the results functions fill in, and the constants
 * (defaults and limits). Part of steer.h, whose functions use them.
 */
#ifndef STEER_TYPES_H
#define STEER_TYPES_H

#include "base.h"
#include "math_functions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* handles and enums                                                        */
/* ------------------------------------------------------------------------ */

/// Names one agent of one world. Generation 0 is never valid, so a zeroed
/// id is the null handle. Pass by value; do not keep it past the world.
typedef struct st_agent_id {
    uint32_t index;      ///< slot in the world's handle table
    uint32_t generation; ///< raised every time the slot is freed
} st_agent_id;

static inline st_agent_id st_null_agent(void) { st_agent_id id = {0, 0}; return id; }
static inline bool st_id_is_null(st_agent_id id) { return id.generation == 0; }
static inline bool st_id_equal(st_agent_id a, st_agent_id b)
{
    return a.index == b.index && a.generation == b.generation;
}

typedef enum st_edges {
    ST_EDGES_WRAP = 0,   ///< leaving one side enters the opposite; distances are the shortest across edges
    ST_EDGES_BOUNCE = 1, ///< position clamped to the rectangle, the normal velocity component reflected
    ST_EDGES_NONE = 2,   ///< unbounded plane; width/height only size the neighbour grid
} st_edges;

typedef enum st_combine {
    ST_COMBINE_SUM = 0,      ///< add everything, truncate to max_force
    ST_COMBINE_PRIORITY = 1, ///< prioritised truncated running sum: each force adds only what still fits
} st_combine;

/// seed 000's Arrive deceleration: the time to reach the target is
/// distance / (k * 0.3 s) with slow k = 3, normal k = 2, fast k = 1.
typedef enum st_deceleration {
    ST_DECEL_LINEAR = 0, ///< the seeds' linear ramp inside slowing_radius (default)
    ST_DECEL_FAST = 1,
    ST_DECEL_NORMAL = 2,
    ST_DECEL_SLOW = 3,
} st_deceleration;

/// Any tag: the filter value that matches every agent.
#define ST_TAG_ANY (-1)
/// No tag: what an agent carries until it is given one.
#define ST_TAG_NONE 0

/* ------------------------------------------------------------------------ */
/* world                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct st_world st_world;
typedef struct st_path st_path;
typedef struct st_navgrid st_navgrid; ///< navigation (nav.c)

/// A memory budget (alloc.c). A host that caps what its scripts may take
/// (the app: one budget per Lua state, shared with Lua's own memory) hands
/// one to every world and object it makes: each block the core takes for
/// them is first asked of reserve(ud, bytes), which says whether it fits,
/// and release(ud, bytes) hears of every block given back. An allocation
/// that does not fit fails as running out of memory does (NULL / false,
/// the object unchanged). Every block a budget allows costs its bytes plus
/// ST_MEM_OVERHEAD. Zero (both NULL): no limit, nothing counted. The
/// functions run on the thread that calls into the core, never inside a
/// step's parallel part; ud must outlive every object made with them.
typedef struct st_mem {
    bool (*reserve)(void *ud, size_t bytes);
    void (*release)(void *ud, size_t bytes);
    void *ud;
} st_mem;

/// The bytes each block of the core costs beyond what it holds.
#define ST_MEM_OVERHEAD 48

typedef struct st_world_def {
    double width, height; ///< world units, > 0; default 800 x 600
    st_edges edges;       ///< default ST_EDGES_WRAP
    uint64_t seed;        ///< every random number of the world comes from this; default 1
    double dt;            ///< fixed step in seconds, > 0; default 1/60
    double cell_size;     ///< neighbour grid cell in world units, > 0; default 50
    int threads;          ///< worker threads for the standing pass (OpenMP), >= 1; default 1
    int capacity;         ///< agents to reserve room for up front, >= 0; default 0 (grow as needed)
    bool contacts;        ///< resolve overlaps after moving (st_world_set_contacts); default false
    st_mem mem;           ///< the budget of the world and of the navgrids, flow fields and snapshots made from it; default none
} st_world_def;

/* ------------------------------------------------------------------------ */
/* agents                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct st_agent_def {
    st_vec2 pos;          ///< world units
    st_vec2 vel;          ///< world units per second; truncated to max_speed
    st_vec2 heading;      ///< used when has_heading; normalised
    bool has_heading;     ///< else heading = direction of vel, else (1, 0)
    double max_speed;     ///< >= 0, units/s; default 150
    double max_force;     ///< >= 0, force units; default 400
    double mass;          ///< > 0; default 1
    double radius;        ///< >= 0, units; default 6
    int32_t tag;          ///< >= 0, ST_TAG_NONE by default; the bindings intern strings
    uint8_t color[3];     ///< RGB for the app; default 200, 200, 200
    st_combine combine;   ///< default ST_COMBINE_SUM
    double turn_rate;     ///< >= 0 rad/s, or INFINITY (default): how fast the facing may turn (st_agent_set_turn_rate)
} st_agent_def;

/// Default wander circle: ahead by DISTANCE, radius RADIUS, target jittered by
/// up to JITTER units per second along each axis.
#define ST_WANDER_DISTANCE 60.0
#define ST_WANDER_RADIUS 30.0
#define ST_WANDER_JITTER 240.0

/* ------------------------------------------------------------------------ */
/* obstacles, walls, paths                                                  */
/* ------------------------------------------------------------------------ */

/// What shape an obstacle has.
typedef enum st_obstacle_kind {
    ST_OBSTACLE_CIRCLE = 0,   ///< a disc: centre and radius
    ST_OBSTACLE_POLYGON = 1,  ///< a closed polygon (any winding; simple, not self-intersecting)
    ST_OBSTACLE_POLYLINE = 2, ///< an open chain of segments, solid on both sides
} st_obstacle_kind;

/// A tile map's walls that follow its changes: the blocked tiles added as
/// merged rectangles (as st_world_add_tiles), and the map and which
/// rectangle holds each tile kept, so st_tile_walls_set changes only the
/// rectangles at the tile. The obstacles belong to the world (destroying
/// this leaves them there).
typedef struct st_tile_walls st_tile_walls;

/// One obstacle as the world holds it.
typedef struct st_obstacle_info {
    int id;
    st_obstacle_kind kind;
    st_vec2 pos;             ///< circle: centre; polygon / polyline: mean of the points
    double radius;           ///< circle: radius; polygon / polyline: the farthest point from pos
    int point_count;         ///< 0 for a circle
    const st_vec2 *points;   ///< relative to pos, valid until the obstacle changes
} st_obstacle_info;

/* ------------------------------------------------------------------------ */
/* raycasts                                                                 */
/* ------------------------------------------------------------------------ */

/// What a ray hit.
typedef enum st_raycast_kind {
    ST_RAY_NONE = 0,
    ST_RAY_CIRCLE = 1,    ///< a circle obstacle
    ST_RAY_POLYGON = 2,   ///< an edge of a closed polygon obstacle
    ST_RAY_POLYLINE = 3,  ///< a segment of a polyline obstacle
    ST_RAY_WALL = 4,      ///< a wall (st_world_add_wall)
    ST_RAY_AGENT = 5,     ///< an agent (a disc of its radius)
} st_raycast_kind;

/// What a ray tests. Start from st_raycast_default().
typedef struct st_raycast_opts {
    bool obstacles;       ///< circles, polygons, polylines (default true)
    bool walls;           ///< walls (default true)
    bool agents;          ///< agents (default false)
    int32_t tag;          ///< agents with this tag only; ST_TAG_ANY (default) for all
    st_agent_id ignore;   ///< an agent never hit (the caster); null (default) for none
} st_raycast_opts;

/// The first thing a ray meets.
typedef struct st_raycast_hit {
    st_vec2 point;        ///< where the ray meets the shape's outline
    st_vec2 normal;       ///< unit, the outline's normal there, facing the ray's start
    double fraction;      ///< in [0, 1]: point = from + fraction * (to - from)
    double distance;      ///< world units from `from` to point
    st_raycast_kind kind;
    int obstacle;         ///< the obstacle's id (circle, polygon, polyline), else 0
    int wall;             ///< the wall's id (1, 2, ...: as st_world_add_wall returned), else 0
    st_agent_id agent;    ///< the agent (ST_RAY_AGENT), else null
} st_raycast_hit;

/// Default arrival radius of a path's waypoints.
#define ST_PATH_RADIUS 20.0

/// An agent reached a path's link in the last step: the host (the Lua
/// bindings: brain.traverse_link) may move it across (a jump, a ladder, a
/// teleport: set its position near the link's end).
typedef struct st_link_event {
    st_agent_id agent;
    int link;            ///< the link's id
    int index;           ///< the path's segment: the link runs from point index to index + 1
    const st_path *path; ///< NULL for an order's route (st_agent_move_to; st_agent_move_route's points)
    uint64_t serial;     ///< the agent's spawn serial (the events' order)
} st_link_event;

/* ------------------------------------------------------------------------ */
/* messages                                                                 */
/* ------------------------------------------------------------------------ */

/// A queue of messages between agents, in delivery order: by delivery tick,
/// then by send order (seq). The host keeps each message's contents under
/// its seq (the Lua bindings: a table); the queue holds when and to whom.
typedef struct st_msgq st_msgq;

/// One queued message to one recipient.
typedef struct st_message {
    uint64_t tick;      ///< delivered by the first delivery pass at a world tick >= this
    uint64_t seq;       ///< send order, from 1; unique within the queue's life
    st_agent_id to;     ///< the recipient
} st_message;

/* ------------------------------------------------------------------------ */
/* perception                                                               */
/* ------------------------------------------------------------------------ */

/// What agents perceive and remember: sight (range, view cone, line of
/// sight by st_world_raycast against obstacles and walls), hearing of
/// noises made in the world, and each perceiver's memory of the agents it
/// sensed. One per world; the host owns it.
typedef struct st_perception st_perception;

/// How an agent was sensed: a sighting's or a memory entry's `sense`.
enum { ST_SENSE_SEEN = 1, ST_SENSE_HEARD = 2 };

/// Senses for one st_perceive call.
typedef struct st_senses {
    double sight_range;   ///< >= 0; 0: no sight
    double fov;           ///< full view-cone angle in radians, (0, 2*pi]; >= 2*pi: all around
    double hearing_range; ///< >= 0; 0: no hearing
    double memory;        ///< seconds a memory takes to fade from confidence 1 to 0, > 0
    int32_t tag;          ///< agents seen: this tag only; ST_TAG_ANY for all
} st_senses;
#define ST_MEMORY_DEFAULT 5.0
/// Memories a perceiver keeps; a new one replaces its weakest.
#define ST_MEMORY_SLOTS 8
/// Noises kept for hearing; a newer one replaces the oldest.
#define ST_NOISE_SLOTS 256
/// A noise can be heard this many ticks after it was made (then it is gone).
#define ST_NOISE_TICKS 60

/// One thing perceived now.
typedef struct st_percept {
    st_agent_id agent;    ///< what was seen, or the noise's source (null: none)
    st_vec2 pos;          ///< where (the agent, or the noise)
    double distance;      ///< from the perceiver
    int sense;            ///< ST_SENSE_SEEN or ST_SENSE_HEARD
    uint64_t noise;       ///< the noise's seq (heard), else 0
} st_percept;

/// One memory of a perceiver about one agent.
typedef struct st_memory {
    st_agent_id target;
    st_vec2 pos;          ///< where it was last sensed
    double time;          ///< st_world_time then
    uint64_t tick;        ///< st_world_tick then
    double span;          ///< the senses' memory (seconds to fade)
    int sense;            ///< how it was last sensed (ST_SENSE_*)
} st_memory;

/// One noise.
typedef struct st_noise {
    uint64_t seq;         ///< from 1, in the order made
    uint64_t tick;        ///< st_world_tick when made
    st_vec2 pos;
    double radius;        ///< how far it carries, >= 0
    st_agent_id source;   ///< who made it (null: nobody in particular)
} st_noise;

/* ------------------------------------------------------------------------ */
/* neighbour queries                                                        */
/* ------------------------------------------------------------------------ */

typedef struct st_query {
    st_vec2 center;
    double radius;        ///< >= 0
    int32_t tag;          ///< ST_TAG_ANY for every tag
    st_agent_id exclude;  ///< null id for none
    double fov;           ///< full view-cone angle in radians; >= 2*pi (or <= 0 disabled) means all around
    st_vec2 heading;      ///< cone axis (unit), used when fov is in (0, 2*pi)
} st_query;

/* ------------------------------------------------------------------------ */
/* behaviours                                                               */
/* ------------------------------------------------------------------------ */

typedef enum st_behavior_type {
    ST_SEEK = 0,
    ST_FLEE,
    ST_ARRIVE,
    ST_PURSUE,
    ST_EVADE,
    ST_INTERCEPT,
    ST_WANDER,
    ST_SEPARATE,   ///< standing form: neighbours from a query (flock's radius/fov/tag)
    ST_ALIGN,
    ST_COHERE,
    ST_FLOCK,
    ST_AVOID_OBSTACLES,
    ST_AVOID_WALLS,
    ST_CONTAIN,
    ST_FOLLOW_PATH,
    ST_OFFSET_PURSUE,
    ST_INTERPOSE,
    ST_HIDE,
    ST_AVOID_AGENTS, ///< predictive: away from the neighbour of soonest closest approach
    ST_FOLLOW_FLOW,  ///< down a flow field (st_flowfield) at max speed
    /* motion.c: orientation, velocity matching, leader following, queueing */
    ST_FACE,             ///< no force: this step the facing turns toward target (point or agent)
    ST_LOOK_WHERE_GOING, ///< no force: this step the facing turns toward the velocity (the default)
    ST_MATCH_VELOCITY,   ///< gdx-ai MatchVelocity: (v - vel) / time_to_target; target agent: its velocity
    ST_FOLLOW_LEADER,    ///< Reynolds: arrive behind the leader, step out of the zone in front of it
    ST_QUEUE,            ///< Reynolds: brake while someone is in the short box ahead
    ST_STOP,             ///< come to a standstill where it is, braking with max_force
    ST_GRAZE,            ///< wander in bouts: some stood still, others at a pace of their own
    ST_BEHAVIOR_COUNT
} st_behavior_type;

/// A point, or an agent (whose position and velocity are read at use).
typedef struct st_target {
    bool is_agent;
    st_agent_id agent;
    st_vec2 point;
} st_target;

static inline st_target st_target_point(st_vec2 p) { st_target t = {false, {0, 0}, p}; return t; }
static inline st_target st_target_agent(st_agent_id a) { st_target t = {true, a, {0, 0}}; return t; }

/// Flocking parameters. Defaults: radius 50, fov 270 degrees, separation 1.5,
/// alignment 1, cohesion 1, separation_radius = radius / 2, any tag.
typedef struct st_flock_params {
    double radius;            ///< neighbour radius, >= 0
    double fov;               ///< full view-cone angle (radians), centred on the heading
    double separation;        ///< weights of the three rules
    double alignment;
    double cohesion;
    double separation_radius; ///< only neighbours this close push apart; < 0: radius / 2
    int32_t tag;              ///< ST_TAG_ANY: flock with everyone
} st_flock_params;

/// How follow_path follows a path.
typedef enum st_path_mode {
    ST_PATH_WAYPOINTS = 0, ///< seek each waypoint in turn until within path radius (steer 1.0; default)
    ST_PATH_PREDICT = 1,   ///< Reynolds: predict, project onto the path, seek ahead along it when outside
} st_path_mode;

#define ST_PATH_PREDICT_TIME 0.5
#define ST_PATH_OFFSET 20.0
#define ST_MATCH_TIME 0.1
#define ST_LEADER_DISTANCE 30.0

/// One behaviour with its parameters: what a method call computes, and one
/// entry of an agent's standing list. Unused fields are ignored.
typedef struct st_behavior {
    st_behavior_type type;
    double weight;            ///< default 1
    st_target target;         ///< seek/flee/arrive: point or agent; pursue/evade/intercept: agent;
                              ///< offset_pursue: leader; interpose: a; hide: threat
    st_target target2;        ///< interpose: b
    double radius;            ///< flee: panic radius; arrive: slowing radius; evade: threat radius
                              ///< (INFINITY = unlimited; arrive default 100)
    st_deceleration decel;    ///< arrive only
    st_vec2 offset;           ///< offset_pursue: in the leader's frame (x along heading, y along side)
    const st_path *path;      ///< follow_path; must outlive its use
    st_flock_params flock;    ///< flock, and separate/align/cohere in standing form
    double rect[4];           ///< contain: x, y, w, h; w <= 0, h <= 0 or not finite: the world's rectangle
    const struct st_flowfield *field; ///< follow_flow; must outlive its use
    /* follow_path's modes and the motion.c behaviours */
    st_path_mode path_mode;   ///< follow_path: ST_PATH_WAYPOINTS (default) or ST_PATH_PREDICT
    double predict;           ///< follow_path (predict): seconds of travel ahead (ST_PATH_PREDICT_TIME);
                              ///< match_velocity: time to target (ST_MATCH_TIME)
    double ahead;             ///< follow_path (predict): path distance sought past the projection (ST_PATH_OFFSET);
                              ///< follow_leader: distance behind the leader (ST_LEADER_DISTANCE);
                              ///< queue: braking box beyond the radius (< 0: auto, see st_default_behavior)
    double zone;              ///< follow_leader: length of the zone ahead of the leader (< 0: auto)
    /* graze: predict is the share of bouts stood still (0..1, ST_GRAZE_REST),
     * ahead a bout's length in seconds (> 0, ST_GRAZE_BOUT), zone the slowest
     * walking pace as a share of max_speed (0..1, ST_GRAZE_PACE) */
} st_behavior;

#define ST_GRAZE_REST 0.4
#define ST_GRAZE_BOUT 3.0
#define ST_GRAZE_PACE 0.3

/// avoid_obstacles, avoid_walls and avoid_agents return forces up to this many times
/// max_force when a collision is near, so that summed at equal weight with a
/// seek or a wander they still win; the sum is truncated to max_force as
/// always, and under "priority" only max_force fits anyway. Every other
/// behaviour returns at most max_force.
#define ST_AVOID_URGENCY 3.0

/// The sensors avoid_obstacles and avoid_walls use at the agent's current
/// speed, for drawing: the detection box (from the agent along its heading,
/// box_length long, box_half_width to each side; obstacles are widened by
/// their radius) and the tips of the three wall feelers in world coordinates.
typedef struct st_sensors {
    double box_length;
    double box_half_width;
    st_vec2 feelers[3];
} st_sensors;

/// Default arrive slowing radius.
#define ST_ARRIVE_SLOWING_RADIUS 100.0

/* ------------------------------------------------------------------------ */
/* avoidance: ORCA, a final velocity pass                                   */
/* ------------------------------------------------------------------------ */

/*
 * An agent with avoidance ST_AVOIDANCE_ORCA takes the velocity its steering
 * forces give it this step as its preferred velocity, and replaces it with
 * the velocity closest to it that no neighbour and no obstacle can collide
 * with inside the time horizons (Optimal Reciprocal Collision Avoidance, van
 * den Berg, Guy, Lin and Manocha 2011). Two ORCA agents share the avoiding
 * by priority; an agent without ORCA, a locked agent and a circle obstacle
 * are avoided entirely by the ORCA agent, as if they kept their velocity.
 * The pass reads only the state at the start of the step, so its result
 * does not depend on the number of threads.
 */

typedef enum st_avoidance {
    ST_AVOIDANCE_NONE = 0,
    ST_AVOIDANCE_ORCA = 1,
} st_avoidance;

/// An agent's avoidance settings. Range, horizons: a negative value means
/// "automatic", worked out from the agent each step (see the fields).
typedef struct st_avoid_def {
    st_avoidance mode;         ///< default ST_AVOIDANCE_NONE
    double range;              ///< neighbour distance; auto: max(10 * radius, max_speed * 1 s)
    int max_neighbors;         ///< >= 0; default 10
    double horizon;            ///< s, > 0; auto: range / max_speed, within [0.5, 10] s
    double horizon_obstacles;  ///< s, > 0; auto: the agent horizon
    double priority;           ///< >= 0, default 1; of two agents, the lower takes the larger share
                               ///< (other / (own + other)); 0 against anything higher takes all
    uint32_t layer;            ///< bits this agent is on; default 1
    uint32_t mask;             ///< bits of the layers it avoids; default all
    bool locked;               ///< never changes its velocity for others; they avoid it entirely
} st_avoid_def;

#define ST_AVOID_AUTO (-1.0)
#define ST_AVOID_MAX_NEIGHBORS 10
#define ST_AVOID_MAX_NEIGHBORS_CAP 64

/* ------------------------------------------------------------------------ */
/* stepping                                                                 */
/* ------------------------------------------------------------------------ */

#define ST_ADVANCE_MAX_DEFAULT 8
#define ST_WORLD_REQUESTS_MAX (1 << 20)

/* ------------------------------------------------------------------------ */
/* formations                                                               */
/* ------------------------------------------------------------------------ */

/*
 * gdx-ai's formation motion architecture: a pattern gives slot offsets in
 * the frame of an anchor (a leader agent, or a fixed point and direction),
 * members are assigned to slots by least total distance (exact Hungarian
 * assignment up to ST_FORMATION_EXACT members, a greedy nearest-pair
 * heuristic beyond), and st_formation_update steers every member to its slot.
 * Reassignment happens when members join or leave (or die) and when the
 * anchor has turned by more than reassign_angle since the last assignment.
 */

typedef struct st_formation st_formation;

typedef enum st_formation_pattern {
    ST_FORMATION_WEDGE = 0,  ///< a V behind the anchor, rank k at (-k s, +-k s)
    ST_FORMATION_LINE = 1,   ///< abreast, one spacing behind the anchor
    ST_FORMATION_COLUMN = 2, ///< single file behind the anchor
    ST_FORMATION_CIRCLE = 3, ///< a ring around the anchor
    ST_FORMATION_CUSTOM = 4, ///< offsets given by st_formation_set_offsets
} st_formation_pattern;

#define ST_FORMATION_EXACT 64

typedef struct st_formation_def {
    st_formation_pattern pattern; ///< default ST_FORMATION_WEDGE
    double spacing;               ///< > 0 world units between neighbouring slots; default 30
    st_agent_id leader;           ///< the anchor; null: anchor_pos / anchor_heading
    st_vec2 anchor_pos;           ///< used without a leader (and where a dead leader was last)
    st_vec2 anchor_heading;       ///< unit; default (1, 0)
    double reassign_angle;        ///< radians in [0, pi]; default pi / 2
    double slowing_radius;        ///< > 0, members slow inside it; default 60
    double weight;                ///< of the members' force; default 1
    st_mem mem;                   ///< its memory's budget; default none
    /// Optional (default NULL): slots are kept on free space. A slot the
    /// grid's line of sight from the anchor does not reach (in a wall, past
    /// a corner) is pulled in along that line to the farthest point it
    /// does, so members squeeze through a corridor instead of pressing into
    /// its walls. The grid must outlive the formation's use of it.
    st_navgrid *nav;
} st_formation_def;

/* ------------------------------------------------------------------------ */
/* navigation: grid, any-angle paths, flow fields                           */
/* ------------------------------------------------------------------------ */

/*
 * A navigation grid covers the world's rectangle [0, width] x [0, height]
 * with square cells. A cell is blocked when any point of it lies closer
 * than `clearance` to an obstacle or wall (circles, polygons and their
 * insides, polylines, walls): a free cell is clear as a whole, so a path
 * through free cells keeps `clearance` from everything. Paths are straight
 * in the plane (they do not cross a wrap world's edges). The grid follows
 * the world's obstacles by itself: every query first recomputes the cells
 * of the obstacles added, moved or removed since the last one.
 */
typedef struct st_flowfield st_flowfield;

typedef struct st_navgrid_def {
    double cell;       ///< cell side in world units, > 0; default 10
    double clearance;  ///< distance paths keep from obstacles and walls, >= 0; default 6
    /// A tile map instead of the world's obstacles (default NULL): tile_cols
    /// x tile_rows bytes, row-major from the top-left (y grows downwards as
    /// the world's does), nonzero = blocked; each tile is a cell (side
    /// `cell`), and the map must fit in the world. The grid copies it. A
    /// tile grid reads only its tiles (not the world's obstacles), treats
    /// tiles as closed squares (a point agent may use every free tile; no
    /// path touches a blocked one or cuts between two diagonal ones) and
    /// plans with jump point search for any agent radius (see
    /// st_navgrid_path_radius); its `clearance` is the default radius.
    const uint8_t *tiles;
    int tile_cols, tile_rows;
} st_navgrid_def;
#define ST_NAV_MAX_CELLS (1 << 22)
#define ST_NAV_MAX_TILES (1 << 26)

typedef enum st_nav_result {
    ST_NAV_OK = 0,
    ST_NAV_NO_ROUTE,       ///< start and goal lie in parts the obstacles separate
    ST_NAV_START_BLOCKED,  ///< no free cell within the snap radius of the start
    ST_NAV_GOAL_BLOCKED,   ///< no free cell reachable from the start within the snap radius of the goal
    ST_NAV_OUTSIDE,        ///< start or goal outside the world's rectangle (or not finite)
    ST_NAV_NO_MEMORY,
    ST_NAV_RADIUS,         ///< the radius asked for is more than this grid can plan for
} st_nav_result;

/// An off-mesh link's options (st_navgrid_link): one-way unless `both`;
/// `cost` in world units (>= 0; < 0: the straight distance between its
/// ends, the default).
typedef struct st_nav_link_def {
    bool both;
    double cost;
} st_nav_link_def;

/* ------------------------------------------------------------------------ */
/* path searches in slices of a work budget                                 */
/* ------------------------------------------------------------------------ */

/// One path search on a grid, run a slice at a time. Work is counted, not
/// timed: one unit for each cell (tile grids: jump point) taken from the
/// search's open list, and one for each raw point the finishing pass
/// (string pulling, tightening) walks. The finished path is the one
/// st_navgrid_path_radius would return on the grid as it is when the job
/// finishes: a change of the map (obstacles, tiles) starts the search
/// again, and another query on the grid between two slices only makes the
/// next slice rebuild its state (without counting that work).
typedef struct st_nav_job st_nav_job;

/// What st_nav_job_run reports (and a job's state).
enum { ST_NAV_JOB_IDLE, ST_NAV_JOB_RUNNING, ST_NAV_JOB_DONE, ST_NAV_JOB_FAILED };

/* ------------------------------------------------------------------------ */
/* orders: move_to, group moves, the path queue                             */
/* ------------------------------------------------------------------------ */

/*
 * The mover is a layer above the behaviours: an agent given an order
 * plans a path on a navgrid (through the world's path queue), follows it,
 * arrives and comes to rest. It runs at the start of every step, after the
 * kept behaviour requests and before the brains: it takes path requests
 * from the queue in order until the step's work budget is spent, then adds
 * each ordered agent's force (so ORCA, contacts and an agent's own
 * behaviours act on top of it). Everything it does is deterministic and
 * single-threaded.
 */
typedef enum st_move_state {
    ST_MOVE_IDLE = 0, ///< no order
    ST_MOVE_WAITING,  ///< its path is in the queue: it holds still
    ST_MOVE_MOVING,   ///< following its path
    ST_MOVE_ARRIVED,  ///< within stop_distance of its goal: at rest there
    ST_MOVE_STUCK,    ///< no progress after every replan: holds still
    ST_MOVE_FAILED,   ///< no path (unreachable goal, ...): holds still
} st_move_state;

typedef struct st_move_def {
    st_navgrid *nav;      ///< the grid to plan on (required)
    double stop_distance; ///< arrived within this of the goal; < 0: half the agent's radius
    double speed;         ///< travel speed; <= 0: the agent's max_speed
    double slowing;       ///< distance over which it slows for the goal; < 0: from its speed and max_force
    double radius;        ///< planning radius; < 0: the agent's (obstacle grids: the grid's clearance)
    double stuck_time;    ///< seconds without progress before a replan; default 2
    int retries;          ///< replans without progress before "stuck"; default 3
} st_move_def;

typedef enum st_group_pattern {
    ST_GROUP_BLOCK = 0, ///< rows across the direction of travel, as square as n allows
    ST_GROUP_LINE,        ///< one row across it
    ST_GROUP_COLUMN,      ///< one file along it
} st_group_pattern;

typedef struct st_group_def {
    st_move_def move;             ///< for every member (nav required)
    double spacing;               ///< between slots; <= 0: 2.5 x the largest member radius
    st_group_pattern pattern;
    st_vec2 facing;               ///< the block's front; zero: from the members' centre to the goal
} st_group_def;
#define ST_PATH_BUDGET_DEFAULT 2048

/// What happened to orders at the start of the last step, in agent order
/// of the mover's records: arrivals, failures, stuck agents.
typedef enum st_move_event_kind { ST_MOVE_EVENT_ARRIVED = 1, ST_MOVE_EVENT_FAILED, ST_MOVE_EVENT_STUCK } st_move_event_kind;
typedef struct st_move_event {
    st_agent_id id;
    st_move_event_kind kind;
    st_nav_result reason; ///< ST_MOVE_EVENT_FAILED: why the path failed
} st_move_event;

/* ------------------------------------------------------------------------ */
/* snapshots                                                                */
/* ------------------------------------------------------------------------ */

/// Everything that decides a world's future steps, copied: agents with
/// their handles, generations and serials, every RNG stream, standing
/// behaviours, obstacles, walls, avoidance settings, storage order, tick
/// and time. Restoring it makes st_world_checksum equal to the value at
/// capture, and the steps after give the same checksums as the steps after
/// the capture did, on any thread count.
typedef struct st_snapshot st_snapshot;

/// The snapshot file format's version; st_snapshot_decode refuses others.
#define ST_SNAPSHOT_FORMAT 3
/// Bytes of the header that starts every encoded snapshot.
#define ST_SNAPSHOT_HEADER 64

#ifdef __cplusplus
}
#endif

#endif /* STEER_TYPES_H */
