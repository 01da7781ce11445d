/*
 * steer.h — the public face of the steer core.
 *
 * A world simulates 2D vehicles (agents) that steer with the classic
 * behaviours of Reynolds, Buckland and friends. The core is C11 with libc and
 * libm only: it knows nothing of Lua or SDL, never reads a clock, keeps no
 * global state, and allocates nothing inside a step once its arrays are warm.
 *
 * Units: world units (pixels in the app), seconds, radians. Angles run from +x
 * towards +y.
 *
 * Agents are named by handles (slot index + generation), never by pointers:
 * a handle dies with its agent and every function below checks it.
 */
#ifndef STEER_H
#define STEER_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ST_VERSION "1.1.0"
/// ST_VERSION as one number (major * 10000 + minor * 100 + patch), as snapshots record it.
#define ST_VERSION_NUM 10100

#define ST_PI 3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* math with the same bits everywhere                                       */
/* ------------------------------------------------------------------------ */

/// Sine, cosine, atan2 and hypot from +, -, *, / and sqrt alone, which every
/// platform rounds alike: the same bits on Linux, Windows and macOS, where
/// each C library's own functions differ in the last bits (src/dmath.c).
/// The core and the vec2 functions below use only these, so a world steps
/// to the same checksum on every platform; a game in lockstep uses them too.
/// Within 2 ulp of the true sin and cos for |x| < 1.6e6, 4 ulp for atan2,
/// 2 for hypot; special values (NaN, infinities, signed zeros) as C's.
double st_sin(double x);
double st_cos(double x);
void st_sincos(double x, double *s, double *c);
double st_atan2(double y, double x);
double st_hypot(double x, double y);

/* ------------------------------------------------------------------------ */
/* vec2                                                                     */
/* ------------------------------------------------------------------------ */

/// A 2D vector in world units. Plain value type.
typedef struct st_vec2 {
    double x, y;
} st_vec2;

static inline st_vec2 st_v2(double x, double y) { st_vec2 v = {x, y}; return v; }
static inline st_vec2 st_v2_add(st_vec2 a, st_vec2 b) { return st_v2(a.x + b.x, a.y + b.y); }
static inline st_vec2 st_v2_sub(st_vec2 a, st_vec2 b) { return st_v2(a.x - b.x, a.y - b.y); }
static inline st_vec2 st_v2_scale(st_vec2 a, double s) { return st_v2(a.x * s, a.y * s); }
static inline st_vec2 st_v2_neg(st_vec2 a) { return st_v2(-a.x, -a.y); }
static inline double st_v2_dot(st_vec2 a, st_vec2 b) { return a.x * b.x + a.y * b.y; }
/// z of the 3D cross product: > 0 when b lies counter-clockwise of a (towards +y).
static inline double st_v2_cross(st_vec2 a, st_vec2 b) { return a.x * b.y - a.y * b.x; }
static inline double st_v2_len2(st_vec2 a) { return a.x * a.x + a.y * a.y; }
static inline double st_v2_len(st_vec2 a) { return sqrt(st_v2_len2(a)); }
static inline double st_v2_dist(st_vec2 a, st_vec2 b) { return st_v2_len(st_v2_sub(a, b)); }
static inline double st_v2_dist2(st_vec2 a, st_vec2 b) { return st_v2_len2(st_v2_sub(a, b)); }
/// (-y, x): the vector turned +90 degrees.
static inline st_vec2 st_v2_perp(st_vec2 a) { return st_v2(-a.y, a.x); }
static inline double st_v2_angle(st_vec2 a) { return st_atan2(a.y, a.x); }
/// Unit vector in the direction of a; the zero vector normalises to zero, never NaN.
static inline st_vec2 st_v2_normalize(st_vec2 a)
{
    double l = st_v2_len(a);
    return l > 0.0 ? st_v2(a.x / l, a.y / l) : st_v2(0.0, 0.0);
}
/// a shortened to at most max (max >= 0); shorter vectors are returned unchanged.
static inline st_vec2 st_v2_truncate(st_vec2 a, double max)
{
    double l2 = st_v2_len2(a);
    if (l2 > max * max && l2 > 0.0) {
        double s = max / sqrt(l2);
        return st_v2(a.x * s, a.y * s);
    }
    return a;
}
static inline st_vec2 st_v2_rotate(st_vec2 a, double rad)
{
    double c, s;
    st_sincos(rad, &s, &c);
    return st_v2(a.x * c - a.y * s, a.x * s + a.y * c);
}
static inline st_vec2 st_v2_from_angle(double rad, double len)
{
    double c, s;
    st_sincos(rad, &s, &c);
    return st_v2(c * len, s * len);
}
static inline st_vec2 st_v2_lerp(st_vec2 a, st_vec2 b, double t)
{
    return st_v2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}
static inline bool st_finite(double d) { return isfinite(d) != 0; }
static inline bool st_v2_finite(st_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

/* Overflow- and underflow-safe forms: right for finite vectors of any size
 * (components past 1e154, whose squared length overflows, or below 1e-145,
 * whose squared length loses precision) and, for the direction, for infinite
 * components too. They agree with the plain forms everywhere else. */

/// |a| for any finite a.
static inline double st_v2_len_safe(st_vec2 a)
{
    double l2 = st_v2_len2(a);
    return l2 > 1e-290 && isfinite(l2) ? sqrt(l2) : st_hypot(a.x, a.y);
}

/// Unit vector along a (zero for zero); infinite components count as +-1
/// and the finite ones beside them as 0.
static inline st_vec2 st_v2_normalize_safe(st_vec2 a)
{
    double l2 = st_v2_len2(a);
    if (l2 > 1e-290 && isfinite(l2)) return st_v2_normalize(a);
    if (isinf(a.x) || isinf(a.y))
        return st_v2_normalize(st_v2(isinf(a.x) ? copysign(1.0, a.x) : 0.0, isinf(a.y) ? copysign(1.0, a.y) : 0.0));
    double m = fmax(fabs(a.x), fabs(a.y)); // scale first: the squared length lost precision or overflowed
    return m > 0.0 && isfinite(m) ? st_v2_normalize(st_v2(a.x / m, a.y / m)) : st_v2(0.0, 0.0);
}

/// a shortened to at most max (max >= 0), for any a without NaN.
static inline st_vec2 st_v2_truncate_safe(st_vec2 a, double max)
{
    double l2 = st_v2_len2(a);
    if (l2 > 1e-290 && isfinite(l2)) return st_v2_truncate(a, max);
    return st_v2_len_safe(a) <= max ? a : st_v2_scale(st_v2_normalize_safe(a), max);
}

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

/// The defaults listed above.
st_world_def st_default_world_def(void);
/// NULL when the def is invalid (non-finite or non-positive sizes) or memory runs out.
st_world *st_world_create(const st_world_def *def);
void st_world_destroy(st_world *w);

double st_world_width(const st_world *w);
double st_world_height(const st_world *w);
st_edges st_world_edges(const st_world *w);
uint64_t st_world_seed(const st_world *w);
/// Fixed step in seconds.
double st_world_dt(const st_world *w);
/// Steps taken so far.
uint64_t st_world_tick(const st_world *w);
/// Simulated seconds so far (sum of every step's dt).
double st_world_time(const st_world *w);
/// Number of standing-pass threads; 1 when built without OpenMP.
int st_world_threads(const st_world *w);
/// n >= 1. The result of a step does not depend on it.
void st_world_set_threads(st_world *w, int n);
/// Cell size of the neighbour grid, > 0. Queries of any radius stay correct.
void st_world_set_cell_size(st_world *w, double cell);
/// Whether a big world (64k+ agents) may re-sort its storage into grid order
/// now and then (default on): each step then reads its agents from memory in
/// order. A host that visits most agents in spawn order every step (Lua
/// brains) turns it off, since those visits would then go all over memory.
/// Results do not depend on it.
void st_world_set_resort(st_world *w, bool on);
/// The grid cell size asked for (def.cell_size or the last set_cell_size).
double st_world_cell_size(const st_world *w);

/// The shortest offset from `from` to `to`: across the edges in a wrap world.
st_vec2 st_world_offset(const st_world *w, st_vec2 from, st_vec2 to);
/// |st_world_offset(w, a, b)|.
double st_world_distance(const st_world *w, st_vec2 a, st_vec2 b);

/// Uniform double in [0, 1) from the world's seeded stream.
double st_world_random(st_world *w);
/// Uniform integer in [lo, hi], lo <= hi.
int64_t st_world_random_int(st_world *w, int64_t lo, int64_t hi);

/// A hash of every live agent's state (serial, position, velocity, heading,
/// wander state): FNV-1a per agent, summed, so the order agents are stored
/// in does not matter. Same seed + same calls => same value.
uint64_t st_world_checksum(const st_world *w);

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

/// The defaults listed above. Wander parameters start at the world's defaults
/// (ST_WANDER_*).
st_agent_def st_default_agent_def(void);

/// Default wander circle: ahead by DISTANCE, radius RADIUS, target jittered by
/// up to JITTER units per second along each axis.
#define ST_WANDER_DISTANCE 60.0
#define ST_WANDER_RADIUS 30.0
#define ST_WANDER_JITTER 240.0

/// Adds an agent at the end of the spawn order. Null id when the def is
/// invalid (non-finite, negative speed/force/radius, mass <= 0) or memory runs out.
/// Inside a step the agent joins from the next step on.
st_agent_id st_world_spawn(st_world *w, const st_agent_def *def);
/// Removes at once. False when the agent was not alive.
bool st_world_remove(st_world *w, st_agent_id id);
bool st_agent_alive(const st_world *w, st_agent_id id);
/// Live agents with this tag (ST_TAG_ANY: all).
int st_world_count(const st_world *w, int32_t tag);
/// The first live agent after `after` in spawn order (null after: the first),
/// with the tag (ST_TAG_ANY: any). Null id at the end. `after` may be the
/// agent just removed (iteration carries on); for ids removed longer ago an
/// iterator keeps the serial and calls st_world_next_serial.
st_agent_id st_world_next(const st_world *w, st_agent_id after, int32_t tag);
/// Every agent in the order they are stored, for passes over all agents that
/// do not care about order (drawing them, scaling them): on a big world,
/// whose storage is re-sorted into grid order now and then, much faster than
/// spawn order. Entries 0 .. st_world_stored_count(w) - 1, valid until the
/// next step, spawn or removal; a dead entry gives the null id.
int st_world_stored_count(const st_world *w);
st_agent_id st_world_stored(const st_world *w, int k);
/// The first live agent whose serial is greater than after_serial (0: the
/// first), with the tag. Robust to any removals and spawns between calls.
st_agent_id st_world_next_serial(const st_world *w, uint64_t after_serial, int32_t tag);
/// Serial number: starts at 1, increases with every spawn, never reused.
uint64_t st_agent_serial(const st_world *w, st_agent_id id);

/* Getters return zeroes for dead ids. Setters ignore dead ids and assert
 * their contracts (finite, in range): the bindings check first. */
st_vec2 st_agent_pos(const st_world *w, st_agent_id id);
st_vec2 st_agent_vel(const st_world *w, st_agent_id id);
/// Unit vector: the facing. Follows vel while the agent moves (at most
/// turn_rate a second when that is finite; toward an ST_FACE request instead).
st_vec2 st_agent_heading(const st_world *w, st_agent_id id);
/// heading turned +90 degrees.
st_vec2 st_agent_side(const st_world *w, st_agent_id id);
double st_agent_speed(const st_world *w, st_agent_id id);
/// The steering force applied in the last step (after truncation).
st_vec2 st_agent_force(const st_world *w, st_agent_id id);
/// What this step's behaviours have accumulated so far.
st_vec2 st_agent_accum(const st_world *w, st_agent_id id);
double st_agent_max_speed(const st_world *w, st_agent_id id);
double st_agent_max_force(const st_world *w, st_agent_id id);
double st_agent_mass(const st_world *w, st_agent_id id);
double st_agent_radius(const st_world *w, st_agent_id id);
int32_t st_agent_tag(const st_world *w, st_agent_id id);
void st_agent_color(const st_world *w, st_agent_id id, uint8_t rgb[3]);
st_combine st_agent_combine(const st_world *w, st_agent_id id);
double st_agent_wander_distance(const st_world *w, st_agent_id id);
double st_agent_wander_radius(const st_world *w, st_agent_id id);
double st_agent_wander_jitter(const st_world *w, st_agent_id id);
/// The wander target on its circle, in the agent's local frame relative to
/// the circle's centre (for drawing).
st_vec2 st_agent_wander_target(const st_world *w, st_agent_id id);

void st_agent_set_pos(st_world *w, st_agent_id id, st_vec2 pos);
/// Truncated to max_speed; the heading follows when non-zero, unless the
/// agent has a finite turn rate (it then turns over the next steps).
void st_agent_set_vel(st_world *w, st_agent_id id, st_vec2 vel);
/// Also truncates the velocity at once, so speed <= max_speed always holds.
void st_agent_set_max_speed(st_world *w, st_agent_id id, double v);
void st_agent_set_max_force(st_world *w, st_agent_id id, double f);
void st_agent_set_mass(st_world *w, st_agent_id id, double m);
void st_agent_set_radius(st_world *w, st_agent_id id, double r);
void st_agent_set_tag(st_world *w, st_agent_id id, int32_t tag);
void st_agent_set_color(st_world *w, st_agent_id id, const uint8_t rgb[3]);
void st_agent_set_combine(st_world *w, st_agent_id id, st_combine c);
void st_agent_set_wander(st_world *w, st_agent_id id, double distance, double radius, double jitter);

/* ------------------------------------------------------------------------ */
/* obstacles, walls, paths                                                  */
/* ------------------------------------------------------------------------ */

/// What shape an obstacle has.
typedef enum st_obstacle_kind {
    ST_OBSTACLE_CIRCLE = 0,   ///< a disc: centre and radius
    ST_OBSTACLE_POLYGON = 1,  ///< a closed polygon (any winding; simple, not self-intersecting)
    ST_OBSTACLE_POLYLINE = 2, ///< an open chain of segments, solid on both sides
} st_obstacle_kind;

/// A circle for avoid_obstacles, hide and ORCA. Returns its id (1, 2, ...;
/// never reused), 0 when the values are invalid or memory runs out.
int st_world_add_obstacle(st_world *w, st_vec2 center, double radius);
/// A closed polygon (closed = true, n >= 3) or an open polyline (n >= 2) of
/// finite points in world coordinates. Its position (st_world_obstacle_pos)
/// is the mean of its points; moving it moves every point. Returns its id,
/// 0 when the values are invalid or memory runs out.
int st_world_add_polygon(st_world *w, const st_vec2 *points, int n, bool closed);
/// The blocked tiles of a tile map (cols x rows bytes, row-major from the
/// top-left, nonzero blocked; tile side `tile`, the map's corner at the
/// origin) as closed rectangle obstacles: runs of blocked tiles, merged
/// with the same runs in the rows below. Returns how many were added, their
/// ids consecutive from *first_id; -1 when the values are invalid or memory
/// runs out (the ones added so far stay).
int st_world_add_tiles(st_world *w, const uint8_t *tiles, int cols, int rows, double tile, int *first_id);
/// Removes it at once (also inside a step: from the next step on). False
/// when there is no such obstacle.
bool st_world_remove_obstacle(st_world *w, int id);

/// A tile map's walls that follow its changes: the blocked tiles added as
/// merged rectangles (as st_world_add_tiles), and the map and which
/// rectangle holds each tile kept, so st_tile_walls_set changes only the
/// rectangles at the tile. The obstacles belong to the world (destroying
/// this leaves them there).
typedef struct st_tile_walls st_tile_walls;
/// NULL on bad arguments (as st_world_add_tiles) or when memory runs out
/// (then none of its obstacles stay).
st_tile_walls *st_tile_walls_create(st_world *w, const uint8_t *tiles, int cols, int rows, double tile);
void st_tile_walls_destroy(st_tile_walls *tw);
/// Its obstacles now, and the id of the i-th (0 <= i < count; in no
/// particular order).
int st_tile_walls_count(const st_tile_walls *tw);
int st_tile_walls_id(const st_tile_walls *tw, int i);
/// Blocks or frees tile (x, y): blocking adds a one-tile rectangle, freeing
/// replaces the rectangle that held it by the (at most four) rectangles of
/// the rest; the walls then cover exactly the changed map's blocked tiles.
/// False when (x, y) is outside the map or memory ran out (the walls then
/// may lack part of the freed tile's rectangle).
bool st_tile_walls_set(st_tile_walls *tw, int x, int y, bool blocked);
/// Moves it (a circle's centre, a polygon's mean point); false when there is
/// no such obstacle. ORCA sees a circle that moved between steps as moving
/// at the velocity that took it there.
bool st_world_set_obstacle_pos(st_world *w, int id, st_vec2 pos);
/// Its index in [0, st_world_obstacle_count) (obstacles keep the order they
/// were added in), or -1 when there is no such obstacle.
int st_world_obstacle_index(const st_world *w, int id);

/// One obstacle as the world holds it.
typedef struct st_obstacle_info {
    int id;
    st_obstacle_kind kind;
    st_vec2 pos;             ///< circle: centre; polygon / polyline: mean of the points
    double radius;           ///< circle: radius; polygon / polyline: the farthest point from pos
    int point_count;         ///< 0 for a circle
    const st_vec2 *points;   ///< relative to pos, valid until the obstacle changes
} st_obstacle_info;

/// A segment for avoid_walls (and ORCA). Returns its id (1, 2, ...), 0 when memory runs out.
int st_world_add_wall(st_world *w, st_vec2 from, st_vec2 to);
int st_world_obstacle_count(const st_world *w);
/// i in [0, count): every kind, in the order added. A polygon's centre and
/// radius are its mean point and bounding radius.
void st_world_obstacle(const st_world *w, int i, st_vec2 *center, double *radius);
/// i in [0, count).
void st_world_obstacle_get(const st_world *w, int i, st_obstacle_info *out);
int st_world_wall_count(const st_world *w);
void st_world_wall(const st_world *w, int i, st_vec2 *from, st_vec2 *to);

/* ------------------------------------------------------------------------ */
/* raycasts (raycast.c)                                                     */
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

/// Obstacles and walls, no agents, any tag, nothing ignored.
st_raycast_opts st_raycast_default(void);

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

/// Builds the grid st_world_raycast uses for obstacles and walls, or brings
/// it up to date after they changed (a no-op while it is current). Without
/// a current grid rays test every obstacle and wall: the same answers,
/// slower. Allocates only when the grid needs more room. False when memory
/// runs out (rays then test every shape).
bool st_world_raycast_prepare(st_world *w);
/// Casts the segment from -> to (plain world coordinates: it does not cross
/// a wrap world's edges) against the world's real geometry and fills *hit
/// (may be NULL) with the nearest hit. False when nothing is hit, when
/// from == to, or when a point is not finite. Shapes that contain `from`
/// (circles, closed polygons, agents) are not hit; segments are solid on both
/// sides; shapes of zero size are never hit. Ties: obstacles in the order
/// added, then walls, then agents in spawn order. opts NULL: the defaults.
/// Reads only; never allocates; safe from brains during a step.
bool st_world_raycast(const st_world *w, st_vec2 from, st_vec2 to, const st_raycast_opts *opts,
                      st_raycast_hit *hit);

/// Default arrival radius of a path's waypoints.
#define ST_PATH_RADIUS 20.0

/// An immutable polyline shared by any number of agents and worlds.
/// n >= 1 finite points, radius > 0. NULL when invalid or out of memory.
st_path *st_path_create(const st_vec2 *points, int n, bool loop, double radius);
/// The same, its memory counted against mem (NULL: none).
st_path *st_path_create_in(const st_mem *mem, const st_vec2 *points, int n, bool loop, double radius);
void st_path_destroy(st_path *p);
int st_path_count(const st_path *p);
st_vec2 st_path_point(const st_path *p, int i);
bool st_path_loop(const st_path *p);
double st_path_radius(const st_path *p);
/// The waypoint this agent heads for next (0-based) on the path it follows:
/// in "waypoints" mode the point it seeks, in "predict" mode the end of the
/// segment it is on. 0 when it follows none.
int st_agent_path_index(const st_world *w, st_agent_id id);
/// The path follow_path last used for this agent (NULL when none, or dead).
/// For comparing only: the caller owns paths and may have destroyed it.
const st_path *st_agent_path(const st_world *w, st_agent_id id);
/// Makes the agent head for waypoint `index` (>= 0) of the path it follows,
/// from its next follow_path on that path: past the end of an open path it
/// heads for the last point, on a loop the index counts round (index mod n).
/// False when the agent is dead, follows no path, or index < 0.
bool st_agent_set_path_index(st_world *w, st_agent_id id, int index);
/// index as follow_path reads it: < 0 gives 0; past the end, the last point
/// of an open path, index mod n on a loop.
int st_path_wrap_index(const st_path *p, int index);
/// The distance left along the path (world units) for something at pos
/// heading for waypoint `next` (as st_path_wrap_index reads it; < 0: the
/// waypoint after the point of the path nearest to pos): the straight way
/// to that waypoint (what "waypoints" mode travels; on the path, the same
/// as along it), then waypoint to waypoint to the last point of an open
/// path, or round to the first point of a loop (the end of the lap).
double st_path_remaining(const st_path *p, st_vec2 pos, int next);
/// The navgrid link (st_navgrid_link's id) segment i of the path takes,
/// from point i to point i + 1; 0 when none.
int st_path_link(const st_path *p, int i);
/// Marks segment i (0 <= i < count - 1) of an open path as taking link
/// `id` (> 0; 0 unmarks). A follower (follow_path, both modes) goes to the
/// link's start, records an st_link_event when it reaches it (within the
/// path radius), then heads straight for the link's end, never cutting
/// across it, and carries on along the path once within the path radius
/// of the end. False for a loop path, an i out of range, id < 0, or when
/// memory runs out.
bool st_path_set_link(st_path *p, int i, int id);

/// An agent reached a path's link in the last step: the host (the Lua
/// bindings: brain.traverse_link) may move it across (a jump, a ladder, a
/// teleport: set its position near the link's end).
typedef struct st_link_event {
    st_agent_id agent;
    int link;            ///< the link's id
    int index;           ///< the path's segment: the link runs from point index to index + 1
    const st_path *path;
    uint64_t serial;     ///< the agent's spawn serial (the events' order)
} st_link_event;

/// The link events of the last step, in spawn order of the agents (then
/// path segment); valid until the next step begins.
int st_world_link_event_count(const st_world *w);
st_link_event st_world_link_event(const st_world *w, int k);

/* ------------------------------------------------------------------------ */
/* messages (message.c)                                                     */
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

/// An empty queue; NULL when memory runs out.
st_msgq *st_msgq_create(void);
void st_msgq_destroy(st_msgq *q);
/// Queues a message to `to` for tick `tick` and returns its seq (> 0), or 0
/// when memory runs out. May allocate (amortised doubling); never called by
/// the step itself: hosts queue from scripts.
uint64_t st_msgq_push(st_msgq *q, uint64_t tick, st_agent_id to);
/// Queued messages.
int st_msgq_count(const st_msgq *q);
/// The i-th (0 <= i < count) in delivery order.
st_message st_msgq_at(const st_msgq *q, int i);
/// Removes the first n messages (those st_msgq_due counted).
void st_msgq_pop(st_msgq *q, int n);
/// How many messages at the front are due at `tick` (tick field <= tick).
int st_msgq_due(const st_msgq *q, uint64_t tick);
/// The next seq st_msgq_push will hand out.
uint64_t st_msgq_next_seq(const st_msgq *q);
/// Empties the queue and sets the next seq (>= 1), for restoring a saved
/// queue with st_msgq_put.
void st_msgq_reset(st_msgq *q, uint64_t next_seq);
/// Puts back a saved message as it was (its seq < the next seq). False when
/// memory runs out or the seq is not below the next one.
bool st_msgq_put(st_msgq *q, st_message m);

/* ------------------------------------------------------------------------ */
/* perception (perceive.c)                                                  */
/* ------------------------------------------------------------------------ */

/// What agents perceive and remember: sight (range, view cone, line of
/// sight by st_world_raycast against obstacles and walls), hearing of
/// noises made in the world, and each perceiver's memory of the agents it
/// sensed. One per world; the host owns it.
typedef struct st_perception st_perception;

/// Senses for one st_perceive call.
typedef struct st_senses {
    double sight_range;   ///< >= 0; 0: no sight
    double fov;           ///< full view-cone angle in radians, (0, 2*pi]; >= 2*pi: all around
    double hearing_range; ///< >= 0; 0: no hearing
    double memory;        ///< seconds a memory takes to fade from confidence 1 to 0, > 0
    int32_t tag;          ///< agents seen: this tag only; ST_TAG_ANY for all
} st_senses;

/// Sight 0, fov 2*pi, hearing 0, memory ST_MEMORY_DEFAULT, any tag.
st_senses st_senses_default(void);
#define ST_MEMORY_DEFAULT 5.0
/// Memories a perceiver keeps; a new one replaces its weakest.
#define ST_MEMORY_SLOTS 8
/// Noises kept for hearing; a newer one replaces the oldest.
#define ST_NOISE_SLOTS 256
/// A noise can be heard this many ticks after it was made (then it is gone).
#define ST_NOISE_TICKS 60

enum { ST_SENSE_SEEN = 1, ST_SENSE_HEARD = 2 };

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

/// Empty; NULL when memory runs out.
st_perception *st_perception_create(void);
/// Handle slots the world has handed out (every live id's index is below it).
int st_world_slot_count(const st_world *w);
void st_perception_destroy(st_perception *p);
/// Makes room for perceivers in slots [0, slots) (a world's st_agent_id
/// index). Allocates; call it outside a step with the world's slot count
/// (st_world_slot_count), so st_perceive never needs to. False when memory
/// runs out.
bool st_perception_reserve(st_perception *p, int slots);
int st_perception_slots(const st_perception *p);
/// Records a noise (pos finite, radius >= 0) at the world's tick; returns
/// its seq. Never allocates.
uint64_t st_perception_noise(st_perception *p, const st_world *w, st_vec2 pos, double radius, st_agent_id source);
/// What `who` perceives now with senses s: the agents it sees (within
/// sight range and the cone about its heading, with a clear line of sight
/// from its position to the target's centre or to either side of the
/// target's disc), nearest first (ties in spawn order); then the noises it
/// hears (made in the last ST_NOISE_TICKS ticks, not heard by it before,
/// within radius + hearing range), in the order made. Writes up to cap and
/// returns how many in all. Updates who's memories of what it perceived
/// (up to cap: raise cap to remember more) and forgets memories whose
/// confidence reached 0 and memories of removed agents. Reads the world;
/// never allocates; -1 when who is dead or outside the reserved slots.
/// `scratch` (cap_scratch ids) holds the candidates of the sight query.
int st_perceive(st_perception *p, st_world *w, st_agent_id who, const st_senses *s, st_percept *out, int cap,
                st_agent_id *scratch, int cap_scratch);
/// Confidence of memory m at world time `now`: 1 - (now - m.time) / m.span, in [0, 1].
double st_memory_confidence(const st_memory *m, double now);
/// who's memories (removed targets and faded ones left out), strongest
/// first (then most recent, then the target's spawn order); up to cap.
/// Returns how many.
int st_perception_memories(const st_perception *p, const st_world *w, st_agent_id who, st_memory *out, int cap);
/// Forgets who's memories (all of them when target is null, else the one of target).
void st_perception_forget(st_perception *p, st_agent_id who, st_agent_id target);
/// Stores a memory for who as it was (restoring a saved one). False when
/// who is outside the reserved slots.
bool st_perception_put_memory(st_perception *p, st_agent_id who, const st_memory *m);
/// The last noise seq who has heard (a snapshot keeps it).
uint64_t st_perception_heard(const st_perception *p, st_agent_id who);
void st_perception_set_heard(st_perception *p, st_agent_id who, uint64_t seq);
/// Noises kept (oldest first) and the next seq.
int st_perception_noise_count(const st_perception *p);
st_noise st_perception_noise_at(const st_perception *p, int i);
uint64_t st_perception_next_noise(const st_perception *p);
/// Forgets everything (memories, noises) and sets the next noise seq.
void st_perception_reset(st_perception *p, uint64_t next_noise);
/// Puts back a saved noise (restore, oldest first).
void st_perception_put_noise(st_perception *p, st_noise n);

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

/// A query around `center` that excludes nothing and sees all around.
st_query st_default_query(st_vec2 center, double radius);

/// Live agents within the query, nearest first (ties by spawn order).
/// Writes up to `cap` ids (and distances when `dist` is not NULL) and returns
/// how many matched in all, which may be more than cap.
/// Queries leave their answers alone but keep caches in the world (the
/// grid after a change, grids of rare tags, each asking agent's last
/// nearest answer): call them on one thread at a time.
int st_world_query(const st_world *w, const st_query *q, st_agent_id *out, double *dist, int cap);
/// Scan every agent instead of the grid cells (the all-pairs loop): the
/// oracle for tests and the benchmark's baseline. Results are the same up to
/// the order in which neighbours are summed.
void st_world_set_brute_force(st_world *w, bool on);

/// Nearest live agent within radius matching q, or the null id.
st_agent_id st_world_nearest(const st_world *w, const st_query *q, double *dist);

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

st_flock_params st_default_flock_params(void);

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

/// A behaviour of this type with its defaults.
st_behavior st_default_behavior(st_behavior_type type);

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

/// False for a dead agent.
bool st_agent_sensors(const st_world *w, st_agent_id id, st_sensors *out);

/// Default arrive slowing radius.
#define ST_ARRIVE_SLOWING_RADIUS 100.0

/// Computes one behaviour's steering force for the agent (unweighted, at most
/// max_force long; ST_AVOID_URGENCY times that for the avoidances), adds weight times it to the agent's accumulator under its
/// combine mode, and returns it. Wander and follow_path advance the agent's own
/// state. Zero for a dead agent or a dead target.
st_vec2 st_agent_steer(st_world *w, st_agent_id id, const st_behavior *b);
/// As st_agent_steer, without accumulating.
st_vec2 st_agent_force_of(st_world *w, st_agent_id id, const st_behavior *b);

/// separate / align / cohere over an explicit list of agents (dead ones and
/// the agent itself are skipped). Computes, accumulates with weight, returns.
st_vec2 st_agent_separate_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);
st_vec2 st_agent_align_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);
st_vec2 st_agent_cohere_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);

/// Adds weight * force under the agent's combine mode.
void st_agent_apply(st_world *w, st_agent_id id, st_vec2 force, double weight);

/// Replaces the agent's standing behaviours (copied; n = 0 clears them).
/// False when out of memory (the old list stays).
bool st_agent_set_behaviors(st_world *w, st_agent_id id, const st_behavior *list, int n);
/// The standing list (valid until the next set or removal) and its length.
int st_agent_behaviors(const st_world *w, st_agent_id id, const st_behavior **list);

/* ------------------------------------------------------------------------ */
/* avoidance: ORCA, a final velocity pass                                   */
/* ------------------------------------------------------------------------ */

/*
 * An agent with avoidance ST_AVOID_ORCA takes the velocity its steering
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

st_avoid_def st_default_avoid_def(void);
/// False for a dead agent, an invalid def (NaN, range < 0 other than auto,
/// horizons <= 0 other than auto, priority < 0, max_neighbors outside
/// [0, ST_AVOID_MAX_NEIGHBORS_CAP]) or no memory.
bool st_agent_set_avoidance(st_world *w, st_agent_id id, const st_avoid_def *def);
/// The settings as set (auto values stay ST_AVOID_AUTO), or with effective
/// the values the next step uses. False for a dead agent.
bool st_agent_avoidance(const st_world *w, st_agent_id id, st_avoid_def *out, bool effective);

/// One ORCA half-plane in velocity space: the permitted velocities lie to
/// the left of the line through point along direction (a unit vector).
typedef struct st_orca_line {
    st_vec2 point;
    st_vec2 direction;
} st_orca_line;

/// Half-planes one ORCA agent makes at most, and so holds in its trace:
/// 32 obstacle edges and circles, 16 neighbours close enough to touch
/// within the step, ST_AVOID_MAX_NEIGHBORS_CAP nearest for the horizon.
#define ST_ORCA_TRACE_LINES (32 + 16 + ST_AVOID_MAX_NEIGHBORS_CAP)

/// What ORCA did for the traced agent (st_world_set_trace) in the last step.
typedef struct st_orca_trace {
    bool valid;               ///< false when the agent did not run ORCA
    st_vec2 preferred;        ///< the velocity its forces asked for
    st_vec2 chosen;           ///< the velocity ORCA gave it
    int line_count;           ///< half-planes: obstacles', then this step's, then the horizon's
    int obstacle_lines;
    int hard_lines;           ///< obstacle lines and one-step agent lines (kept when infeasible)
    st_orca_line lines[ST_ORCA_TRACE_LINES];
} st_orca_trace;

const st_orca_trace *st_world_orca_trace(const st_world *w);

/// Contacts: after moving, overlapping bodies are pushed apart (equal
/// shares; a locked agent does not move) and out of obstacles, in a few
/// deterministic Jacobi passes. Off by default.
void st_world_set_contacts(st_world *w, bool on);
bool st_world_contacts(const st_world *w);

/* ------------------------------------------------------------------------ */
/* stepping                                                                 */
/* ------------------------------------------------------------------------ */

/// One whole step with the given dt (> 0): begin then end.
void st_world_step(st_world *w, double dt);
/// Phase 1: rebuild the neighbour grid and open the step. Between begin and
/// end, brains add forces with st_agent_steer / st_agent_apply.
void st_world_step_begin(st_world *w, double dt);
/// Phases 3-5: standing behaviours (threaded), integration, edges, removals.
void st_world_step_end(st_world *w);
bool st_world_in_step(const st_world *w);
/// The dt of the step in progress, else the fixed dt.
double st_world_step_dt(const st_world *w);
/// A game loop's frames at the world's fixed dt ("fix your timestep"): adds
/// frame_dt (>= 0, finite; else nothing) to the world's accumulator and
/// returns how many steps of st_world_dt it now holds, at most
/// st_world_advance_max (8 by default); the time past that is dropped and
/// counted (st_world_advance_dropped), so a stalled frame never makes the
/// next one run hundreds of steps. The caller runs the steps.
int st_world_advance_due(st_world *w, double frame_dt);
#define ST_ADVANCE_MAX_DEFAULT 8
/// st_world_advance_due, then that many st_world_step(w, st_world_dt(w)).
int st_world_advance(st_world *w, double frame_dt);
/// How far the accumulator is into the next step, in [0, 1]: the alpha to
/// draw with (st_agent_render_pos).
double st_world_advance_alpha(const st_world *w);
void st_world_set_advance_max(st_world *w, int max_steps); ///< >= 1, else ignored
int st_world_advance_max(const st_world *w);
/// Steps' worth of time st_world_advance_due dropped so far.
uint64_t st_world_advance_dropped(const st_world *w);
/// Where to draw the agent at `alpha` (0..1) of the way through its last
/// step: pos - vel * last dt * (1 - alpha). alpha 1 is pos.
st_vec2 st_agent_render_pos(const st_world *w, st_agent_id id, double alpha);
/// Behaviours asked for since the last step (st_agent_steer, st_agent_apply,
/// the list rules and st_formation_update called outside a step). Each is
/// kept and computed again by the next st_world_step_begin with that step's
/// dt, in call order, before anything else adds forces: the same force as
/// the call made inside that step. What the call returned was that force
/// at st_world_dt, changing nothing. A snapshot does not hold them (take it
/// before the calls or after the step); a restore drops them.
/// A call that would be kept past ST_WORLD_REQUESTS_MAX, or when memory runs
/// out, is not: it adds nothing and returns zero (the count tells).
int st_world_requests(const st_world *w);
#define ST_WORLD_REQUESTS_MAX (1 << 20)

/* ------------------------------------------------------------------------ */
/* orientation (motion.c)                                                   */
/* ------------------------------------------------------------------------ */

/*
 * An agent's heading is its facing. By default (turn rate INFINITY) it is
 * the direction of the velocity after every step, as in steer 1.0. With a
 * finite turn rate the facing turns toward the velocity's direction by at
 * most turn_rate * dt a step; ST_FACE / ST_LOOK_WHERE_GOING choose, for one
 * step, what it turns toward instead. Everything that reads the heading
 * reads the facing: view cones, alignment, wander's circle, the sensors of
 * avoid_obstacles and avoid_walls, pursue's head-on test, the drawing.
 */

/// rad/s >= 0, or INFINITY (the facing follows the velocity at once). False
/// for a dead agent, a negative or NaN rate, or no memory.
bool st_agent_set_turn_rate(st_world *w, st_agent_id id, double rate);
/// INFINITY unless set (0 for a dead agent).
double st_agent_turn_rate(const st_world *w, st_agent_id id);

/* ------------------------------------------------------------------------ */
/* formations (formation.c)                                                 */
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

st_formation_def st_default_formation_def(void);
/// NULL for an invalid def or no memory. A formation belongs to no world:
/// pass the world its agents live in to every call.
st_formation *st_formation_create(const st_formation_def *def);
void st_formation_destroy(st_formation *f);
/// Adds a live agent (not the leader, not already a member) and reassigns.
bool st_formation_add(st_world *w, st_formation *f, st_agent_id id);
/// Removes a member and reassigns; false when it was not one.
bool st_formation_remove(st_world *w, st_formation *f, st_agent_id id);
/// Drops dead members (reassigning when any died) and returns how many are left.
int st_formation_prune(st_world *w, st_formation *f);
int st_formation_count(const st_formation *f);
/// Member k in [0, count), in the order they joined.
st_agent_id st_formation_member(const st_formation *f, int k);
/// The slot index of member k (0 .. count-1).
int st_formation_slot_of(const st_formation *f, int k);
/// Slot s's offset in the anchor frame (x ahead, y to the side).
st_vec2 st_formation_offset(const st_formation *f, int s);
/// Slot s's position in the world now.
st_vec2 st_formation_slot_pos(const st_world *w, const st_formation *f, int s);
/// For ST_FORMATION_CUSTOM: n >= count offsets (finite), copied; reassigns.
bool st_formation_set_offsets(st_world *w, st_formation *f, const st_vec2 *offsets, int n);
bool st_formation_set_leader(st_world *w, st_formation *f, st_agent_id leader);
void st_formation_set_anchor(st_world *w, st_formation *f, st_vec2 pos, st_vec2 heading);
st_agent_id st_formation_leader(const st_formation *f);
/// The anchor's pose now (the leader's, or the fixed one).
void st_formation_anchor(const st_world *w, const st_formation *f, st_vec2 *pos, st_vec2 *heading);
/// Assigns members to slots by least total distance now.
void st_formation_reassign(st_world *w, st_formation *f);
/// Makes dst what src is (def, members, slots, custom offsets, the heading
/// of the last assignment), reusing dst's memory: a copy taken with a world
/// snapshot puts the formation back with the world. False (dst unchanged)
/// when memory runs out.
bool st_formation_copy(st_formation *dst, const st_formation *src);
/// Once a step (inside it, or before it): prunes, reassigns if the anchor
/// turned past reassign_angle, and adds to each member the force that brings
/// it to its slot at the anchor's velocity.
void st_formation_update(st_world *w, st_formation *f);
/// The slot offsets of a built-in pattern for n members (s in [0, n)).
st_vec2 st_formation_pattern_offset(st_formation_pattern p, double spacing, int s, int n);
/// Least-total-cost assignment of an n x n cost matrix (row-major): row r
/// gets column out[r]. Exact for n <= ST_FORMATION_EXACT, greedy beyond.
/// Returns the total cost; false-y (negative) when out of memory.
double st_assign(const double *cost, int n, int *out);

/* ------------------------------------------------------------------------ */
/* tracing one agent (for debug overlays)                                   */
/* ------------------------------------------------------------------------ */

/// One behaviour's contribution in a step. type == ST_BEHAVIOR_COUNT marks a
/// raw st_agent_apply force.
typedef struct st_trace_entry {
    st_behavior_type type;
    st_vec2 force;   ///< unweighted, as the behaviour returned it
    double weight;
} st_trace_entry;

/// Records every behaviour of this agent (null id: none) from the next step on.
void st_world_set_trace(st_world *w, st_agent_id id);
/// The entries of the last finished step (at most 32), in call order.
int st_world_trace(const st_world *w, const st_trace_entry **entries);
/// "seek", "flee", ... for a type; "apply" for ST_BEHAVIOR_COUNT.
const char *st_behavior_name(st_behavior_type type);


/* ------------------------------------------------------------------------ */
/* navigation: grid, any-angle paths, flow fields (nav.c, flowfield.c)     */
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

st_navgrid_def st_default_navgrid_def(void);
/// NULL when the def is invalid (non-finite, cell <= 0, clearance < 0,
/// more than ST_NAV_MAX_CELLS cells, about 60 bytes each; a tile map:
/// more than ST_NAV_MAX_TILES tiles, about 6 bytes each plus what its
/// searches touch) or memory runs out. The grid reads the world at every query: destroy it before the
/// world. Its queries share its search buffers: one query at a time.
st_navgrid *st_navgrid_create(st_world *w, const st_navgrid_def *def);
void st_navgrid_destroy(st_navgrid *g);
#define ST_NAV_MAX_CELLS (1 << 22)
#define ST_NAV_MAX_TILES (1 << 26)

/// Brings the cells up to date with the world's obstacles and walls; only
/// the cells under what changed are recomputed. Returns how many cells were
/// rasterised (0 when nothing changed), -1 when memory ran out (the grid
/// then stays as it was and the next call tries again).
int st_navgrid_update(st_navgrid *g);
int st_navgrid_cols(const st_navgrid *g);
int st_navgrid_rows(const st_navgrid *g);
double st_navgrid_cell(const st_navgrid *g);
double st_navgrid_clearance(const st_navgrid *g);
/// Whether cell (cx, cy) is blocked; cells outside the grid are.
bool st_navgrid_blocked(const st_navgrid *g, int cx, int cy);
/// Whether the cell under p is blocked (outside the world: true).
bool st_navgrid_blocked_at(st_navgrid *g, st_vec2 p);
/// Exact line of sight: whether the segment a-b keeps at least `clearance`
/// from every obstacle and wall (a circle of radius r: r + clearance from
/// its centre; a polygon: outside it and clearance from its outline).
bool st_navgrid_visible(st_navgrid *g, st_vec2 a, st_vec2 b);

typedef enum st_nav_result {
    ST_NAV_OK = 0,
    ST_NAV_NO_ROUTE,       ///< start and goal lie in parts the obstacles separate
    ST_NAV_START_BLOCKED,  ///< no free cell within the snap radius of the start
    ST_NAV_GOAL_BLOCKED,   ///< no free cell reachable from the start within the snap radius of the goal
    ST_NAV_OUTSIDE,        ///< start or goal outside the world's rectangle (or not finite)
    ST_NAV_NO_MEMORY,
    ST_NAV_RADIUS,         ///< the radius asked for is more than this grid can plan for
} st_nav_result;

/// "ok", "no route", "start blocked", "goal blocked", "outside the world", "out of memory",
/// "radius too large".
const char *st_nav_result_name(st_nav_result r);

/// How far (world units) a start or goal inside a blocked cell is moved to
/// the nearest free cell: max(2 cells, clearance + 1 cell).
double st_navgrid_snap_radius(const st_navgrid *g);

/// A shortest any-angle path from `from` to `to`: Lazy Theta* over the free
/// cells (8-connected, no corner cutting; line of sight through free cells),
/// then string-pulled and its corners tightened with the exact line of
/// sight. The path starts at `from` and ends at `to`; a start in a blocked
/// cell first leaves for the nearest free cell within the snap radius, and a
/// goal in a blocked cell is reached through the nearest free cell, or
/// replaced by it when `to` itself lies within the clearance. Deterministic;
/// allocates nothing once warm. On ST_NAV_OK *points (valid until the next
/// query on this grid) holds *n >= 2 points.
st_nav_result st_navgrid_path(st_navgrid *g, st_vec2 from, st_vec2 to, const st_vec2 **points, int *n);

/// Whether the grid was made from tiles (st_navgrid_def.tiles).
bool st_navgrid_tiled(const st_navgrid *g);
/// Blocks or frees tile (x, y) of a tile grid. The change stays local: the
/// clearance of the tiles within 33 of it is recomputed, and the result is
/// the grid a new st_navgrid_create of the changed map would give (the
/// connected parts are relabelled at the next query). False when the grid
/// is not a tile grid or (x, y) is outside the map.
bool st_navgrid_set_tile(st_navgrid *g, int x, int y, bool blocked);

/// A path for an agent of radius `radius` (world units, >= 0) on the same
/// grid. On a tile grid: jump point search over the tiles whose centre is
/// at least `radius` from every blocked tile and from the map's edge (a
/// clearance field, exact to an eighth of a tile, rounded down; up to 31
/// tiles), then pulled straight and its corners tightened with an exact
/// walk of the tiles each segment passes: every segment keeps `radius`
/// from every blocked tile, and the path is never longer than the
/// shortest 8-connected one. The ends snap as in st_navgrid_path (within
/// max(2 tiles, radius + 1 tile)); a start or goal closer than `radius`
/// to a wall keeps its leg to the first tile as it is. On an obstacle
/// grid: the grid's own path when radius <= clearance, else ST_NAV_RADIUS.
/// Deterministic; allocates nothing once warm.
st_nav_result st_navgrid_path_radius(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                                     int *n);

/// An off-mesh link's options (st_navgrid_link): one-way unless `both`;
/// `cost` in world units (>= 0; < 0: the straight distance between its
/// ends, the default).
typedef struct st_nav_link_def {
    bool both;
    double cost;
} st_nav_link_def;

st_nav_link_def st_default_nav_link_def(void);
/// Adds an off-mesh link (a jump, a ladder, a door, a teleport) from point
/// a to point b (world units, inside the grid's rectangle): an extra edge
/// of every later path search, from the cell (tile) under a to the one
/// under b at the link's cost, used when both are free (tile grids: when
/// both have room for the agent's radius). The path then runs to a, takes
/// the segment a-b (st_navgrid_path_link names it) and carries on from b;
/// string pulling never pulls across a link. Returns the link's id (> 0,
/// unique in the world); 0 when a point is outside or not finite or the
/// cost is NaN or infinite; -1 when memory ran out. def NULL: the defaults.
int st_navgrid_link(st_navgrid *g, st_vec2 a, st_vec2 b, const st_nav_link_def *def);
/// Removes link `id`; false when the grid has none of that id.
bool st_navgrid_unlink(st_navgrid *g, int id);
int st_navgrid_link_count(const st_navgrid *g);
/// The id of the link that segment i (points i to i+1) of the grid's last
/// path takes; 0 when it takes none (or i is outside the last path).
int st_navgrid_path_link(const st_navgrid *g, int i);

/// A flow field towards `goal` over the grid's free cells: the travel
/// distance of every cell to the goal by fast marching (the eikonal
/// equation, so distances are Euclidean rather than 8-directional), and a
/// direction per cell down its gradient. Blocked cells and cells cut off
/// from the goal point towards the nearest reachable free cell. The field
/// is a snapshot: it does not follow later changes of the obstacles. NULL
/// with *why set when the goal is outside, blocked with no free cell
/// within the snap radius, or memory runs out.
st_flowfield *st_flowfield_create(st_navgrid *g, st_vec2 goal, st_nav_result *why);
/// The same for an agent of radius `radius` (world units): on a tile grid,
/// over the tiles whose clearance holds it (as st_navgrid_path_radius);
/// on an obstacle grid, st_flowfield_create when radius <= clearance. NULL
/// with *why = ST_NAV_RADIUS when the grid cannot plan for it.
st_flowfield *st_flowfield_create_radius(st_navgrid *g, st_vec2 goal, double radius, st_nav_result *why);
void st_flowfield_destroy(st_flowfield *f);
st_vec2 st_flowfield_goal(const st_flowfield *f);
/// The direction to go at p (unit; bilinear between cell centres, so it
/// turns smoothly; zero at the goal). Positions outside read the edge.
st_vec2 st_flowfield_dir(const st_flowfield *f, st_vec2 p);
/// Travel distance from p's cell to the goal, INFINITY when unreachable.
double st_flowfield_distance(const st_flowfield *f, st_vec2 p);
int st_flowfield_cols(const st_flowfield *f);
int st_flowfield_rows(const st_flowfield *f);
double st_flowfield_cell(const st_flowfield *f);

/* ------------------------------------------------------------------------ */
/* path searches in slices of a work budget (nav_job.c)                     */
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
enum { ST_NAV_JOB_IDLE, ST_NAV_JOB_RUNNING, ST_NAV_JOB_DONE, ST_NAV_JOB_FAILED };

st_nav_job *st_nav_job_create(st_navgrid *g); ///< NULL when memory runs out
void st_nav_job_destroy(st_nav_job *j);
st_navgrid *st_nav_job_grid(const st_nav_job *j);
/// Starts a search (dropping the one under way): the ends are checked and
/// snapped now (as st_navgrid_path_radius: on an obstacle grid, radius
/// must be <= its clearance). ST_NAV_OK, or why it failed at once.
st_nav_result st_nav_job_start(st_nav_job *j, st_vec2 from, st_vec2 to, double radius);
/// Runs the search for at most `budget` units, adding what it took to
/// *used (when not NULL). The finishing pass waits for a slice with room
/// for it, unless it alone needs more than a whole budget and *used is 0
/// (it then runs alone). Returns ST_NAV_JOB_RUNNING, _DONE or _FAILED.
int st_nav_job_run(st_nav_job *j, long budget, long *used);
int st_nav_job_state(const st_nav_job *j);
/// Why a failed job failed (ST_NAV_OK otherwise).
st_nav_result st_nav_job_result(const st_nav_job *j);
/// The finished path (NULL, *n = 0 until done); valid until the next start.
const st_vec2 *st_nav_job_points(const st_nav_job *j, int *n);
/// Units the current search has taken so far.
long st_nav_job_done(const st_nav_job *j);
void st_nav_job_cancel(st_nav_job *j);

/* ------------------------------------------------------------------------ */
/* orders: move_to, group moves, the path queue (move.c, move_group.c)      */
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

/// "idle", "waiting", "moving", "arrived", "stuck", "failed".
const char *st_move_state_name(st_move_state s);

typedef struct st_move_def {
    st_navgrid *nav;      ///< the grid to plan on (required)
    double stop_distance; ///< arrived within this of the goal; < 0: half the agent's radius
    double speed;         ///< travel speed; <= 0: the agent's max_speed
    double slowing;       ///< distance over which it slows for the goal; < 0: from its speed and max_force
    double radius;        ///< planning radius; < 0: the agent's (obstacle grids: the grid's clearance)
    double stuck_time;    ///< seconds without progress before a replan; default 2
    int retries;          ///< replans without progress before "stuck"; default 3
} st_move_def;

st_move_def st_default_move_def(void);

/// Orders the agent to `goal`: its path request joins the queue and the
/// agent holds still (ST_MOVE_WAITING) until the path comes. A new order
/// replaces the old one (and leaves its group). False when the agent is
/// dead, the def or goal is not finite, nav is NULL, or memory runs out.
bool st_agent_move_to(st_world *w, st_agent_id id, st_vec2 goal, const st_move_def *def);
/// Cancels the order: ST_MOVE_IDLE, nothing more added to its forces.
void st_agent_stop_moving(st_world *w, st_agent_id id);
st_move_state st_agent_move_state(const st_world *w, st_agent_id id);
/// Distance left along the path (from the agent to its next waypoint, then
/// waypoint to waypoint); 0 when arrived, INFINITY while waiting with no
/// path, NAN for an agent with no order.
double st_agent_move_remaining(const st_world *w, st_agent_id id);
/// The order's goal (for a group member: its slot once it has one, else the
/// group's goal); false when the agent has no order.
bool st_agent_move_goal(const st_world *w, st_agent_id id, st_vec2 *goal);
/// The agent's route (valid until the next step or order) and the index of
/// the waypoint it heads for; 0 points when it has none.
int st_agent_move_route(const st_world *w, st_agent_id id, const st_vec2 **points, int *next);
/// Its group (a handle from st_world_move_group) and slot index (-1: none).
int st_agent_move_group(const st_world *w, st_agent_id id, int *slot);

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

st_group_def st_default_group_def(void);

/// Orders the agents (duplicates and dead ones skipped) to `goal` as one
/// group: one path search for all (from the member nearest their centre),
/// which each member joins where it sees it; destination slots in the
/// pattern around the goal, each on free space the goal sees (slots that
/// fall in walls or off the grid move outwards); a member approaching the
/// goal takes the innermost free slot (the nearest of those), so the block
/// fills from the inside out and members do not cross. Returns the group
/// handle (>= 1), 0 when no agent was alive, -1 on bad input or no memory.
int st_world_move_group(st_world *w, const st_agent_id *ids, int n, st_vec2 goal, const st_group_def *def);
/// A group's slots (inner first; valid until the next order) and whether
/// each is taken; 0 for an unknown or finished group.
int st_world_group_slots(const st_world *w, int group, const st_vec2 **slots, const uint8_t **taken);

/// The path queue's work budget per step (units as st_nav_job's; default
/// ST_PATH_BUDGET_DEFAULT). No step's planning takes more, except a path
/// whose finishing pass alone needs more than a whole budget (it then runs
/// alone in its step).
void st_world_set_path_budget(st_world *w, long units); ///< >= 1, else ignored
long st_world_path_budget(const st_world *w);
#define ST_PATH_BUDGET_DEFAULT 2048
/// Path requests waiting in the queue (the one being searched included).
int st_world_path_pending(const st_world *w);
/// Work units the queue took in the last step.
long st_world_path_work(const st_world *w);

/// What happened to orders at the start of the last step, in agent order
/// of the mover's records: arrivals, failures, stuck agents.
typedef enum st_move_event_kind { ST_MOVE_EVENT_ARRIVED = 1, ST_MOVE_EVENT_FAILED, ST_MOVE_EVENT_STUCK } st_move_event_kind;
typedef struct st_move_event {
    st_agent_id id;
    st_move_event_kind kind;
    st_nav_result reason; ///< ST_MOVE_EVENT_FAILED: why the path failed
} st_move_event;
int st_world_move_events(const st_world *w, const st_move_event **events);
/* ------------------------------------------------------------------------ */
/* snapshots (snapshot.c, snapshot_io.c)                                    */
/* ------------------------------------------------------------------------ */

/// Everything that decides a world's future steps, copied: agents with
/// their handles, generations and serials, every RNG stream, standing
/// behaviours, obstacles, walls, avoidance settings, storage order, tick
/// and time. Restoring it makes st_world_checksum equal to the value at
/// capture, and the steps after give the same checksums as the steps after
/// the capture did, on any thread count.
typedef struct st_snapshot st_snapshot;

/// Captures w. NULL inside a step or when memory runs out. Paths named by
/// standing behaviours are kept by pointer: they must outlive the snapshot
/// (as they must outlive the agents using them), and so must the flow
/// fields of follow_flow entries. Formations and navgrids are objects of
/// their own, not part of the world: a restore leaves a formation's members
/// and slot assignment as they are, and a navgrid re-reads the restored
/// obstacles at its next query.
st_snapshot *st_world_snapshot(const st_world *w);
/// Captures w into s, replacing what s held and reusing its memory: a ring
/// of snapshots taken again and again (the app's rewind) allocates nothing
/// once warm. False inside a step or when memory runs out (s then holds an
/// empty world).
bool st_snapshot_capture(st_snapshot *s, const st_world *w);
/// Puts w back to the state s holds (any world: its size, edges and seed
/// become the snapshot's). Ids captured in s are valid again; ids made
/// since are dead, and stay dead when their slots are freed and handed out
/// again (each slot's generation skips past the ones they used). The thread count
/// and the behaviour trace stay w's. False, with w unchanged, inside a step
/// or when memory runs out.
bool st_world_restore(st_world *w, const st_snapshot *s);
void st_snapshot_destroy(st_snapshot *s);
uint64_t st_snapshot_tick(const st_snapshot *s);
double st_snapshot_time(const st_snapshot *s);
/// st_world_checksum of the world at capture.
uint64_t st_snapshot_checksum(const st_snapshot *s);
/// Live agents captured.
int st_snapshot_agent_count(const st_snapshot *s);
/// Bytes the snapshot holds in memory (approximate: the arrays and lists).
size_t st_snapshot_memory(const st_snapshot *s);
/// Orders the snapshot holds (st_agent_move_to, st_world_move_group): every
/// order, route, group and slot, and the path queue, captured with the
/// world and restored with it (the search under way is run again to where
/// it was at the first step after, uncounted, so the steps after a restore
/// plan as the steps after the capture did). Orders name navgrids: those
/// must outlive the snapshot; a restore into another world drops the orders,
/// and a snapshot with orders has no byte form (st_snapshot_encodable).
int st_snapshot_orders(const st_snapshot *s);

/// The paths the snapshot refers to: those of the standing behaviours, then
/// any added. A decoded snapshot made them and destroys them with itself
/// unless st_snapshot_disown_paths hands them to the caller.
int st_snapshot_path_count(const st_snapshot *s);
st_path *st_snapshot_path(const st_snapshot *s, int i);
/// The index of p, or -1.
int st_snapshot_path_index(const st_snapshot *s, const st_path *p);
/// Adds p (a path the caller's own data refers to) and returns its index;
/// the one it had when already there; -1 when memory runs out.
int st_snapshot_add_path(st_snapshot *s, st_path *p);
void st_snapshot_disown_paths(st_snapshot *s);
/// Bytes of the caller's own (the Lua bindings keep brains' state here),
/// stored and encoded with the snapshot. False when memory runs out.
bool st_snapshot_set_user(st_snapshot *s, const void *data, size_t n);
const void *st_snapshot_user(const st_snapshot *s, size_t *n);

/// The snapshot file format's version; st_snapshot_decode refuses others.
#define ST_SNAPSHOT_FORMAT 3
/// Bytes of the header that starts every encoded snapshot.
#define ST_SNAPSHOT_HEADER 64

/// The header's payload checksum of the format (for tools that edit bytes).
uint64_t st_snapshot_hash(const void *data, size_t n);
/// The snapshot as bytes (a header, then the payload; see snapshot_io.c),
/// malloc'd, *size set. NULL when memory runs out, or when
/// st_snapshot_encodable says the snapshot has no byte form.
void *st_snapshot_encode(const st_snapshot *s, size_t *size);
/// Whether st_snapshot_encode can write s. A flow field has no byte form
/// (it is the caller's object, like a path, but made from a navgrid the file
/// cannot hold), so a snapshot whose standing lists hold a follow_flow field
/// cannot be written: false, with *serial (when not NULL) the serial of the
/// first such agent in spawn order.
bool st_snapshot_encodable(const st_snapshot *s, uint64_t *serial);
/// A snapshot from bytes made by st_snapshot_encode. NULL for anything
/// else: truncated, corrupt (checksum), foreign (magic), a newer or older
/// format, another build's layout, or contents that fail the checks a
/// world's invariants need; err (when not NULL) then says which, in at
/// most err_cap bytes.
st_snapshot *st_snapshot_decode(const void *data, size_t size, char *err, size_t err_cap);
/// The same, the snapshot's memory (and its paths') counted against mem (NULL: none).
st_snapshot *st_snapshot_decode_in(const st_mem *mem, const void *data, size_t size, char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif

#endif /* STEER_H */
