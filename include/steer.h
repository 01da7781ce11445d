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
 *
 * This header is the API: the functions, by subject. It includes the rest,
 * so `#include <steer.h>` gives everything:
 *   steer/base.h            ST_API, the export mark on every function
 *   steer/math_functions.h  platform-exact sin/cos/atan2/hypot, st_vec2
 *   steer/types.h           handles, enums, definitions, constants
 *   steer/debug.h           the ORCA and behaviour traces of one agent
 */
#ifndef STEER_H
#define STEER_H

#define ST_VERSION "1.1.0"
/// ST_VERSION as one number (major * 10000 + minor * 100 + patch), as snapshots record it.
#define ST_VERSION_NUM 10100

#include "steer/base.h"
#include "steer/math_functions.h"
#include "steer/types.h"
#include "steer/debug.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* world                                                                    */
/* ------------------------------------------------------------------------ */

/// The defaults listed in st_world_def (steer/types.h).
ST_API st_world_def st_default_world_def(void);
/// NULL when the def is invalid (non-finite or non-positive sizes) or memory runs out.
ST_API st_world *st_world_create(const st_world_def *def);
ST_API void st_world_destroy(st_world *w);

ST_API double st_world_width(const st_world *w);
ST_API double st_world_height(const st_world *w);
ST_API st_edges st_world_edges(const st_world *w);
ST_API uint64_t st_world_seed(const st_world *w);
/// Fixed step in seconds.
ST_API double st_world_dt(const st_world *w);
/// Steps taken so far.
ST_API uint64_t st_world_tick(const st_world *w);
/// Simulated seconds so far (sum of every step's dt).
ST_API double st_world_time(const st_world *w);
/// Number of standing-pass threads; 1 when built without OpenMP.
ST_API int st_world_threads(const st_world *w);
/// n >= 1. The result of a step does not depend on it.
ST_API void st_world_set_threads(st_world *w, int n);
/// Cell size of the neighbour grid, > 0. Queries of any radius stay correct.
ST_API void st_world_set_cell_size(st_world *w, double cell);
/// Whether a big world (64k+ agents) may re-sort its storage into grid order
/// now and then (default on): each step then reads its agents from memory in
/// order. A host that visits most agents in spawn order every step (Lua
/// brains) turns it off, since those visits would then go all over memory.
/// Results do not depend on it.
ST_API void st_world_set_resort(st_world *w, bool on);
/// The grid cell size asked for (def.cell_size or the last set_cell_size).
ST_API double st_world_cell_size(const st_world *w);

/// The shortest offset from `from` to `to`: across the edges in a wrap world.
ST_API st_vec2 st_world_offset(const st_world *w, st_vec2 from, st_vec2 to);
/// |st_world_offset(w, a, b)|.
ST_API double st_world_distance(const st_world *w, st_vec2 a, st_vec2 b);

/// Uniform double in [0, 1) from the world's seeded stream.
ST_API double st_world_random(st_world *w);
/// Uniform integer in [lo, hi], lo <= hi.
ST_API int64_t st_world_random_int(st_world *w, int64_t lo, int64_t hi);

/// A hash of every live agent's state (serial, position, velocity, heading,
/// wander state): FNV-1a per agent, summed, so the order agents are stored
/// in does not matter. Same seed + same calls => same value.
ST_API uint64_t st_world_checksum(const st_world *w);

/* ------------------------------------------------------------------------ */
/* agents                                                                   */
/* ------------------------------------------------------------------------ */

/// The defaults listed in st_agent_def (steer/types.h). Wander parameters start at the world's defaults
/// (ST_WANDER_*).
ST_API st_agent_def st_default_agent_def(void);

/// Adds an agent at the end of the spawn order. Null id when the def is
/// invalid (non-finite, negative speed/force/radius, mass <= 0) or memory runs out.
/// Inside a step the agent joins from the next step on.
ST_API st_agent_id st_world_spawn(st_world *w, const st_agent_def *def);
/// Removes at once. False when the agent was not alive.
ST_API bool st_world_remove(st_world *w, st_agent_id id);
ST_API bool st_agent_alive(const st_world *w, st_agent_id id);
/// Live agents with this tag (ST_TAG_ANY: all).
ST_API int st_world_count(const st_world *w, int32_t tag);
/// The first live agent after `after` in spawn order (null after: the first),
/// with the tag (ST_TAG_ANY: any). Null id at the end. `after` may be the
/// agent just removed (iteration carries on); for ids removed longer ago an
/// iterator keeps the serial and calls st_world_next_serial.
ST_API st_agent_id st_world_next(const st_world *w, st_agent_id after, int32_t tag);
/// Every agent in the order they are stored, for passes over all agents that
/// do not care about order (drawing them, scaling them): on a big world,
/// whose storage is re-sorted into grid order now and then, much faster than
/// spawn order. Entries 0 .. st_world_stored_count(w) - 1, valid until the
/// next step, spawn or removal; a dead entry gives the null id.
ST_API int st_world_stored_count(const st_world *w);
ST_API st_agent_id st_world_stored(const st_world *w, int k);
/// The first live agent whose serial is greater than after_serial (0: the
/// first), with the tag. Robust to any removals and spawns between calls.
ST_API st_agent_id st_world_next_serial(const st_world *w, uint64_t after_serial, int32_t tag);
/// Serial number: starts at 1, increases with every spawn, never reused.
ST_API uint64_t st_agent_serial(const st_world *w, st_agent_id id);

/* Getters return zeroes for dead ids. Setters ignore dead ids and assert
 * their contracts (finite, in range): the bindings check first. */
ST_API st_vec2 st_agent_pos(const st_world *w, st_agent_id id);
ST_API st_vec2 st_agent_vel(const st_world *w, st_agent_id id);
/// Unit vector: the facing. Follows vel while the agent moves (at most
/// turn_rate a second when that is finite; toward an ST_FACE request instead).
ST_API st_vec2 st_agent_heading(const st_world *w, st_agent_id id);
/// heading turned +90 degrees.
ST_API st_vec2 st_agent_side(const st_world *w, st_agent_id id);
ST_API double st_agent_speed(const st_world *w, st_agent_id id);
/// The steering force applied in the last step (after truncation).
ST_API st_vec2 st_agent_force(const st_world *w, st_agent_id id);
/// What this step's behaviours have accumulated so far.
ST_API st_vec2 st_agent_accum(const st_world *w, st_agent_id id);
ST_API double st_agent_max_speed(const st_world *w, st_agent_id id);
ST_API double st_agent_max_force(const st_world *w, st_agent_id id);
ST_API double st_agent_mass(const st_world *w, st_agent_id id);
ST_API double st_agent_radius(const st_world *w, st_agent_id id);
ST_API int32_t st_agent_tag(const st_world *w, st_agent_id id);
ST_API void st_agent_color(const st_world *w, st_agent_id id, uint8_t rgb[3]);
ST_API st_combine st_agent_combine(const st_world *w, st_agent_id id);
ST_API double st_agent_wander_distance(const st_world *w, st_agent_id id);
ST_API double st_agent_wander_radius(const st_world *w, st_agent_id id);
ST_API double st_agent_wander_jitter(const st_world *w, st_agent_id id);
/// The wander target on its circle, in the agent's local frame relative to
/// the circle's centre (for drawing).
ST_API st_vec2 st_agent_wander_target(const st_world *w, st_agent_id id);

ST_API void st_agent_set_pos(st_world *w, st_agent_id id, st_vec2 pos);
/// Truncated to max_speed; the heading follows when non-zero, unless the
/// agent has a finite turn rate (it then turns over the next steps).
ST_API void st_agent_set_vel(st_world *w, st_agent_id id, st_vec2 vel);
/// Also truncates the velocity at once, so speed <= max_speed always holds.
ST_API void st_agent_set_max_speed(st_world *w, st_agent_id id, double v);
ST_API void st_agent_set_max_force(st_world *w, st_agent_id id, double f);
ST_API void st_agent_set_mass(st_world *w, st_agent_id id, double m);
ST_API void st_agent_set_radius(st_world *w, st_agent_id id, double r);
ST_API void st_agent_set_tag(st_world *w, st_agent_id id, int32_t tag);
ST_API void st_agent_set_color(st_world *w, st_agent_id id, const uint8_t rgb[3]);
ST_API void st_agent_set_combine(st_world *w, st_agent_id id, st_combine c);
ST_API void st_agent_set_wander(st_world *w, st_agent_id id, double distance, double radius, double jitter);

/* ------------------------------------------------------------------------ */
/* obstacles, walls, paths                                                  */
/* ------------------------------------------------------------------------ */

/// A circle for avoid_obstacles, hide and ORCA. Returns its id (1, 2, ...;
/// never reused), 0 when the values are invalid or memory runs out.
ST_API int st_world_add_obstacle(st_world *w, st_vec2 center, double radius);
/// A closed polygon (closed = true, n >= 3) or an open polyline (n >= 2) of
/// finite points in world coordinates. Its position (st_world_obstacle_pos)
/// is the mean of its points; moving it moves every point. Returns its id,
/// 0 when the values are invalid or memory runs out.
ST_API int st_world_add_polygon(st_world *w, const st_vec2 *points, int n, bool closed);
/// The blocked tiles of a tile map (cols x rows bytes, row-major from the
/// top-left, nonzero blocked; tile side `tile`, the map's corner at the
/// origin) as closed rectangle obstacles: runs of blocked tiles, merged
/// with the same runs in the rows below. Returns how many were added, their
/// ids consecutive from *first_id; -1 when the values are invalid or memory
/// runs out (the ones added so far stay).
ST_API int st_world_add_tiles(st_world *w, const uint8_t *tiles, int cols, int rows, double tile, int *first_id);
/// Removes it at once (also inside a step: from the next step on). False
/// when there is no such obstacle.
ST_API bool st_world_remove_obstacle(st_world *w, int id);
/// NULL on bad arguments (as st_world_add_tiles) or when memory runs out
/// (then none of its obstacles stay).
ST_API st_tile_walls *st_tile_walls_create(st_world *w, const uint8_t *tiles, int cols, int rows, double tile);
ST_API void st_tile_walls_destroy(st_tile_walls *tw);
/// Its obstacles now, and the id of the i-th (0 <= i < count; in no
/// particular order).
ST_API int st_tile_walls_count(const st_tile_walls *tw);
ST_API int st_tile_walls_id(const st_tile_walls *tw, int i);
/// Blocks or frees tile (x, y): blocking adds a one-tile rectangle, freeing
/// replaces the rectangle that held it by the (at most four) rectangles of
/// the rest; the walls then cover exactly the changed map's blocked tiles.
/// False when (x, y) is outside the map or memory ran out (the walls then
/// may lack part of the freed tile's rectangle).
ST_API bool st_tile_walls_set(st_tile_walls *tw, int x, int y, bool blocked);
/// Moves it (a circle's centre, a polygon's mean point); false when there is
/// no such obstacle. ORCA sees a circle that moved between steps as moving
/// at the velocity that took it there.
ST_API bool st_world_set_obstacle_pos(st_world *w, int id, st_vec2 pos);
/// Its index in [0, st_world_obstacle_count) (obstacles keep the order they
/// were added in), or -1 when there is no such obstacle.
ST_API int st_world_obstacle_index(const st_world *w, int id);

/// A segment for avoid_walls (and ORCA). Returns its id (1, 2, ...), 0 when memory runs out.
ST_API int st_world_add_wall(st_world *w, st_vec2 from, st_vec2 to);
ST_API int st_world_obstacle_count(const st_world *w);
/// i in [0, count): every kind, in the order added. A polygon's centre and
/// radius are its mean point and bounding radius.
ST_API void st_world_obstacle(const st_world *w, int i, st_vec2 *center, double *radius);
/// i in [0, count).
ST_API void st_world_obstacle_get(const st_world *w, int i, st_obstacle_info *out);
ST_API int st_world_wall_count(const st_world *w);
ST_API void st_world_wall(const st_world *w, int i, st_vec2 *from, st_vec2 *to);

/* ------------------------------------------------------------------------ */
/* raycasts                                                                 */
/* ------------------------------------------------------------------------ */

/// Obstacles and walls, no agents, any tag, nothing ignored.
ST_API st_raycast_opts st_raycast_default(void);

/// Builds the grid st_world_raycast uses for obstacles and walls, or brings
/// it up to date after they changed (a no-op while it is current). Without
/// a current grid rays test every obstacle and wall: the same answers,
/// slower. Allocates only when the grid needs more room. False when memory
/// runs out (rays then test every shape).
ST_API bool st_world_raycast_prepare(st_world *w);
/// Casts the segment from -> to (plain world coordinates: it does not cross
/// a wrap world's edges) against the world's real geometry and fills *hit
/// (may be NULL) with the nearest hit. False when nothing is hit, when
/// from == to, or when a point is not finite. Shapes that contain `from`
/// (circles, closed polygons, agents) are not hit; segments are solid on both
/// sides; shapes of zero size are never hit. Ties: obstacles in the order
/// added, then walls, then agents in spawn order. opts NULL: the defaults.
/// Reads only; never allocates; safe from brains during a step.
ST_API bool st_world_raycast(const st_world *w, st_vec2 from, st_vec2 to, const st_raycast_opts *opts,
                      st_raycast_hit *hit);

/// An immutable polyline shared by any number of agents and worlds.
/// n >= 1 finite points, radius > 0. NULL when invalid or out of memory.
ST_API st_path *st_path_create(const st_vec2 *points, int n, bool loop, double radius);
/// The same, its memory counted against mem (NULL: none).
ST_API st_path *st_path_create_in(const st_mem *mem, const st_vec2 *points, int n, bool loop, double radius);
ST_API void st_path_destroy(st_path *p);
ST_API int st_path_count(const st_path *p);
ST_API st_vec2 st_path_point(const st_path *p, int i);
ST_API bool st_path_loop(const st_path *p);
ST_API double st_path_radius(const st_path *p);
/// The waypoint this agent heads for next (0-based) on the path it follows:
/// in "waypoints" mode the point it seeks, in "predict" mode the end of the
/// segment it is on. 0 when it follows none.
ST_API int st_agent_path_index(const st_world *w, st_agent_id id);
/// The path follow_path last used for this agent (NULL when none, or dead).
/// For comparing only: the caller owns paths and may have destroyed it.
ST_API const st_path *st_agent_path(const st_world *w, st_agent_id id);
/// Makes the agent head for waypoint `index` (>= 0) of the path it follows,
/// from its next follow_path on that path: past the end of an open path it
/// heads for the last point, on a loop the index counts round (index mod n).
/// False when the agent is dead, follows no path, or index < 0.
ST_API bool st_agent_set_path_index(st_world *w, st_agent_id id, int index);
/// index as follow_path reads it: < 0 gives 0; past the end, the last point
/// of an open path, index mod n on a loop.
ST_API int st_path_wrap_index(const st_path *p, int index);
/// The distance left along the path (world units) for something at pos
/// heading for waypoint `next` (as st_path_wrap_index reads it; < 0: the
/// waypoint after the point of the path nearest to pos): the straight way
/// to that waypoint (what "waypoints" mode travels; on the path, the same
/// as along it), then waypoint to waypoint to the last point of an open
/// path, or round to the first point of a loop (the end of the lap).
ST_API double st_path_remaining(const st_path *p, st_vec2 pos, int next);
/// The navgrid link (st_navgrid_link's id) segment i of the path takes,
/// from point i to point i + 1; 0 when none.
ST_API int st_path_link(const st_path *p, int i);
/// Marks segment i (0 <= i < count - 1) of an open path as taking link
/// `id` (> 0; 0 unmarks). A follower (follow_path, both modes) goes to the
/// link's start, records an st_link_event when it reaches it (within the
/// path radius), then heads straight for the link's end, never cutting
/// across it, and carries on along the path once within the path radius
/// of the end. False for a loop path, an i out of range, id < 0, or when
/// memory runs out.
ST_API bool st_path_set_link(st_path *p, int i, int id);

/// The link events of the last step, in spawn order of the agents (then
/// path segment); valid until the next step begins.
ST_API int st_world_link_event_count(const st_world *w);
ST_API st_link_event st_world_link_event(const st_world *w, int k);

/* ------------------------------------------------------------------------ */
/* messages                                                                 */
/* ------------------------------------------------------------------------ */

/// An empty queue; NULL when memory runs out.
ST_API st_msgq *st_msgq_create(void);
ST_API void st_msgq_destroy(st_msgq *q);
/// Queues a message to `to` for tick `tick` and returns its seq (> 0), or 0
/// when memory runs out. May allocate (amortised doubling); never called by
/// the step itself: hosts queue from scripts.
ST_API uint64_t st_msgq_push(st_msgq *q, uint64_t tick, st_agent_id to);
/// Queued messages.
ST_API int st_msgq_count(const st_msgq *q);
/// The i-th (0 <= i < count) in delivery order.
ST_API st_message st_msgq_at(const st_msgq *q, int i);
/// Removes the first n messages (those st_msgq_due counted).
ST_API void st_msgq_pop(st_msgq *q, int n);
/// How many messages at the front are due at `tick` (tick field <= tick).
ST_API int st_msgq_due(const st_msgq *q, uint64_t tick);
/// The next seq st_msgq_push will hand out.
ST_API uint64_t st_msgq_next_seq(const st_msgq *q);
/// Empties the queue and sets the next seq (>= 1), for restoring a saved
/// queue with st_msgq_put.
ST_API void st_msgq_reset(st_msgq *q, uint64_t next_seq);
/// Puts back a saved message as it was (its seq < the next seq). False when
/// memory runs out or the seq is not below the next one.
ST_API bool st_msgq_put(st_msgq *q, st_message m);

/* ------------------------------------------------------------------------ */
/* perception                                                               */
/* ------------------------------------------------------------------------ */

/// Sight 0, fov 2*pi, hearing 0, memory ST_MEMORY_DEFAULT, any tag.
ST_API st_senses st_senses_default(void);

/// Empty; NULL when memory runs out.
ST_API st_perception *st_perception_create(void);
/// Handle slots the world has handed out (every live id's index is below it).
ST_API int st_world_slot_count(const st_world *w);
ST_API void st_perception_destroy(st_perception *p);
/// Makes room for perceivers in slots [0, slots) (a world's st_agent_id
/// index). Allocates; call it outside a step with the world's slot count
/// (st_world_slot_count), so st_perceive never needs to. False when memory
/// runs out.
ST_API bool st_perception_reserve(st_perception *p, int slots);
ST_API int st_perception_slots(const st_perception *p);
/// Records a noise (pos finite, radius >= 0) at the world's tick; returns
/// its seq. Never allocates.
ST_API uint64_t st_perception_noise(st_perception *p, const st_world *w, st_vec2 pos, double radius, st_agent_id source);
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
ST_API int st_perceive(st_perception *p, st_world *w, st_agent_id who, const st_senses *s, st_percept *out, int cap,
                st_agent_id *scratch, int cap_scratch);
/// Confidence of memory m at world time `now`: 1 - (now - m.time) / m.span, in [0, 1].
ST_API double st_memory_confidence(const st_memory *m, double now);
/// who's memories (removed targets and faded ones left out), strongest
/// first (then most recent, then the target's spawn order); up to cap.
/// Returns how many.
ST_API int st_perception_memories(const st_perception *p, const st_world *w, st_agent_id who, st_memory *out, int cap);
/// Forgets who's memories (all of them when target is null, else the one of target).
ST_API void st_perception_forget(st_perception *p, st_agent_id who, st_agent_id target);
/// Stores a memory for who as it was (restoring a saved one). False when
/// who is outside the reserved slots.
ST_API bool st_perception_put_memory(st_perception *p, st_agent_id who, const st_memory *m);
/// The last noise seq who has heard (a snapshot keeps it).
ST_API uint64_t st_perception_heard(const st_perception *p, st_agent_id who);
ST_API void st_perception_set_heard(st_perception *p, st_agent_id who, uint64_t seq);
/// Noises kept (oldest first) and the next seq.
ST_API int st_perception_noise_count(const st_perception *p);
ST_API st_noise st_perception_noise_at(const st_perception *p, int i);
ST_API uint64_t st_perception_next_noise(const st_perception *p);
/// Forgets everything (memories, noises) and sets the next noise seq.
ST_API void st_perception_reset(st_perception *p, uint64_t next_noise);
/// Puts back a saved noise (restore, oldest first).
ST_API void st_perception_put_noise(st_perception *p, st_noise n);

/* ------------------------------------------------------------------------ */
/* neighbour queries                                                        */
/* ------------------------------------------------------------------------ */

/// A query around `center` that excludes nothing and sees all around.
ST_API st_query st_default_query(st_vec2 center, double radius);

/// Live agents within the query, nearest first (ties by spawn order).
/// Writes up to `cap` ids (and distances when `dist` is not NULL) and returns
/// how many matched in all, which may be more than cap.
/// Queries leave their answers alone but keep caches in the world (the
/// grid after a change, grids of rare tags, each asking agent's last
/// nearest answer): call them on one thread at a time.
ST_API int st_world_query(const st_world *w, const st_query *q, st_agent_id *out, double *dist, int cap);
/// Scan every agent instead of the grid cells (the all-pairs loop): the
/// oracle for tests and the benchmark's baseline. Results are the same up to
/// the order in which neighbours are summed.
ST_API void st_world_set_brute_force(st_world *w, bool on);

/// Nearest live agent within radius matching q, or the null id.
ST_API st_agent_id st_world_nearest(const st_world *w, const st_query *q, double *dist);

/* ------------------------------------------------------------------------ */
/* behaviours                                                               */
/* ------------------------------------------------------------------------ */

ST_API st_flock_params st_default_flock_params(void);

/// A behaviour of this type with its defaults.
ST_API st_behavior st_default_behavior(st_behavior_type type);

/// False for a dead agent.
ST_API bool st_agent_sensors(const st_world *w, st_agent_id id, st_sensors *out);

/// Computes one behaviour's steering force for the agent (unweighted, at most
/// max_force long; ST_AVOID_URGENCY times that for the avoidances), adds weight times it to the agent's accumulator under its
/// combine mode, and returns it. Wander and follow_path advance the agent's own
/// state. Zero for a dead agent or a dead target.
ST_API st_vec2 st_agent_steer(st_world *w, st_agent_id id, const st_behavior *b);
/// As st_agent_steer, without accumulating.
ST_API st_vec2 st_agent_force_of(st_world *w, st_agent_id id, const st_behavior *b);

/// separate / align / cohere over an explicit list of agents (dead ones and
/// the agent itself are skipped). Computes, accumulates with weight, returns.
ST_API st_vec2 st_agent_separate_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);
ST_API st_vec2 st_agent_align_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);
ST_API st_vec2 st_agent_cohere_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight);

/// Adds weight * force under the agent's combine mode.
ST_API void st_agent_apply(st_world *w, st_agent_id id, st_vec2 force, double weight);

/// Replaces the agent's standing behaviours (copied; n = 0 clears them).
/// False when out of memory (the old list stays).
ST_API bool st_agent_set_behaviors(st_world *w, st_agent_id id, const st_behavior *list, int n);
/// The standing list (valid until the next set or removal) and its length.
ST_API int st_agent_behaviors(const st_world *w, st_agent_id id, const st_behavior **list);

/* ------------------------------------------------------------------------ */
/* avoidance: ORCA, a final velocity pass                                   */
/* ------------------------------------------------------------------------ */

ST_API st_avoid_def st_default_avoid_def(void);
/// False for a dead agent, an invalid def (NaN, range < 0 other than auto,
/// horizons <= 0 other than auto, priority < 0, max_neighbors outside
/// [0, ST_AVOID_MAX_NEIGHBORS_CAP]) or no memory.
ST_API bool st_agent_set_avoidance(st_world *w, st_agent_id id, const st_avoid_def *def);
/// The settings as set (auto values stay ST_AVOID_AUTO), or with effective
/// the values the next step uses. False for a dead agent.
ST_API bool st_agent_avoidance(const st_world *w, st_agent_id id, st_avoid_def *out, bool effective);

/// Contacts: after moving, overlapping bodies are pushed apart (equal
/// shares; a locked agent does not move) and out of obstacles, in a few
/// deterministic Jacobi passes. Off by default.
ST_API void st_world_set_contacts(st_world *w, bool on);
ST_API bool st_world_contacts(const st_world *w);

/* ------------------------------------------------------------------------ */
/* stepping                                                                 */
/* ------------------------------------------------------------------------ */

/// One whole step with the given dt (> 0): begin then end.
ST_API void st_world_step(st_world *w, double dt);
/// Phase 1: rebuild the neighbour grid and open the step. Between begin and
/// end, brains add forces with st_agent_steer / st_agent_apply.
ST_API void st_world_step_begin(st_world *w, double dt);
/// Phases 3-5: standing behaviours (threaded), integration, edges, removals.
ST_API void st_world_step_end(st_world *w);
ST_API bool st_world_in_step(const st_world *w);
/// The dt of the step in progress, else the fixed dt.
ST_API double st_world_step_dt(const st_world *w);
/// A game loop's frames at the world's fixed dt ("fix your timestep"): adds
/// frame_dt (>= 0, finite; else nothing) to the world's accumulator and
/// returns how many steps of st_world_dt it now holds, at most
/// st_world_advance_max (8 by default); the time past that is dropped and
/// counted (st_world_advance_dropped), so a stalled frame never makes the
/// next one run hundreds of steps. The caller runs the steps.
ST_API int st_world_advance_due(st_world *w, double frame_dt);
/// st_world_advance_due, then that many st_world_step(w, st_world_dt(w)).
ST_API int st_world_advance(st_world *w, double frame_dt);
/// How far the accumulator is into the next step, in [0, 1]: the alpha to
/// draw with (st_agent_render_pos).
ST_API double st_world_advance_alpha(const st_world *w);
ST_API void st_world_set_advance_max(st_world *w, int max_steps); ///< >= 1, else ignored
ST_API int st_world_advance_max(const st_world *w);
/// Steps' worth of time st_world_advance_due dropped so far.
ST_API uint64_t st_world_advance_dropped(const st_world *w);
/// Where to draw the agent at `alpha` (0..1) of the way through its last
/// step: pos - vel * last dt * (1 - alpha). alpha 1 is pos.
ST_API st_vec2 st_agent_render_pos(const st_world *w, st_agent_id id, double alpha);
/// Behaviours asked for since the last step (st_agent_steer, st_agent_apply,
/// the list rules and st_formation_update called outside a step). Each is
/// kept and computed again by the next st_world_step_begin with that step's
/// dt, in call order, before anything else adds forces: the same force as
/// the call made inside that step. What the call returned was that force
/// at st_world_dt, changing nothing. A snapshot does not hold them (take it
/// before the calls or after the step); a restore drops them.
/// A call that would be kept past ST_WORLD_REQUESTS_MAX, or when memory runs
/// out, is not: it adds nothing and returns zero (the count tells).
ST_API int st_world_requests(const st_world *w);

/* ------------------------------------------------------------------------ */
/* orientation                                                              */
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
ST_API bool st_agent_set_turn_rate(st_world *w, st_agent_id id, double rate);
/// INFINITY unless set (0 for a dead agent).
ST_API double st_agent_turn_rate(const st_world *w, st_agent_id id);

/* ------------------------------------------------------------------------ */
/* formations                                                               */
/* ------------------------------------------------------------------------ */

ST_API st_formation_def st_default_formation_def(void);
/// NULL for an invalid def or no memory. A formation belongs to no world:
/// pass the world its agents live in to every call.
ST_API st_formation *st_formation_create(const st_formation_def *def);
ST_API void st_formation_destroy(st_formation *f);
/// Adds a live agent (not the leader, not already a member) and reassigns.
ST_API bool st_formation_add(st_world *w, st_formation *f, st_agent_id id);
/// Removes a member and reassigns; false when it was not one.
ST_API bool st_formation_remove(st_world *w, st_formation *f, st_agent_id id);
/// Drops dead members (reassigning when any died) and returns how many are left.
ST_API int st_formation_prune(st_world *w, st_formation *f);
ST_API int st_formation_count(const st_formation *f);
/// Member k in [0, count), in the order they joined.
ST_API st_agent_id st_formation_member(const st_formation *f, int k);
/// The slot index of member k (0 .. count-1).
ST_API int st_formation_slot_of(const st_formation *f, int k);
/// Slot s's offset in the anchor frame (x ahead, y to the side).
ST_API st_vec2 st_formation_offset(const st_formation *f, int s);
/// Slot s's position in the world now.
ST_API st_vec2 st_formation_slot_pos(const st_world *w, const st_formation *f, int s);
/// For ST_FORMATION_CUSTOM: n >= count offsets (finite), copied; reassigns.
ST_API bool st_formation_set_offsets(st_world *w, st_formation *f, const st_vec2 *offsets, int n);
ST_API bool st_formation_set_leader(st_world *w, st_formation *f, st_agent_id leader);
ST_API void st_formation_set_anchor(st_world *w, st_formation *f, st_vec2 pos, st_vec2 heading);
ST_API st_agent_id st_formation_leader(const st_formation *f);
/// The anchor's pose now (the leader's, or the fixed one).
ST_API void st_formation_anchor(const st_world *w, const st_formation *f, st_vec2 *pos, st_vec2 *heading);
/// Assigns members to slots by least total distance now.
ST_API void st_formation_reassign(st_world *w, st_formation *f);
/// Makes dst what src is (def, members, slots, custom offsets, the heading
/// of the last assignment), reusing dst's memory: a copy taken with a world
/// snapshot puts the formation back with the world. False (dst unchanged)
/// when memory runs out.
ST_API bool st_formation_copy(st_formation *dst, const st_formation *src);
/// Once a step (inside it, or before it): prunes, reassigns if the anchor
/// turned past reassign_angle, and adds to each member the force that brings
/// it to its slot at the anchor's velocity.
ST_API void st_formation_update(st_world *w, st_formation *f);
/// The slot offsets of a built-in pattern for n members (s in [0, n)).
ST_API st_vec2 st_formation_pattern_offset(st_formation_pattern p, double spacing, int s, int n);
/// Least-total-cost assignment of an n x n cost matrix (row-major): row r
/// gets column out[r]. Exact for n <= ST_FORMATION_EXACT, greedy beyond.
/// Returns the total cost; false-y (negative) when out of memory.
ST_API double st_assign(const double *cost, int n, int *out);

/* ------------------------------------------------------------------------ */
/* navigation: grid, any-angle paths, flow fields                           */
/* ------------------------------------------------------------------------ */

ST_API st_navgrid_def st_default_navgrid_def(void);
/// NULL when the def is invalid (non-finite, cell <= 0, clearance < 0,
/// more than ST_NAV_MAX_CELLS cells, about 60 bytes each; a tile map:
/// more than ST_NAV_MAX_TILES tiles, about 6 bytes each plus what its
/// searches touch) or memory runs out. The grid reads the world at every query: destroy it before the
/// world. Its queries share its search buffers: one query at a time.
ST_API st_navgrid *st_navgrid_create(st_world *w, const st_navgrid_def *def);
ST_API void st_navgrid_destroy(st_navgrid *g);

/// Brings the cells up to date with the world's obstacles and walls; only
/// the cells under what changed are recomputed. Returns how many cells were
/// rasterised (0 when nothing changed), -1 when memory ran out (the grid
/// then stays as it was and the next call tries again).
ST_API int st_navgrid_update(st_navgrid *g);
ST_API int st_navgrid_cols(const st_navgrid *g);
ST_API int st_navgrid_rows(const st_navgrid *g);
ST_API double st_navgrid_cell(const st_navgrid *g);
ST_API double st_navgrid_clearance(const st_navgrid *g);
/// Whether cell (cx, cy) is blocked; cells outside the grid are.
ST_API bool st_navgrid_blocked(const st_navgrid *g, int cx, int cy);
/// Whether the cell under p is blocked (outside the world: true).
ST_API bool st_navgrid_blocked_at(st_navgrid *g, st_vec2 p);
/// Exact line of sight: whether the segment a-b keeps at least `clearance`
/// from every obstacle and wall (a circle of radius r: r + clearance from
/// its centre; a polygon: outside it and clearance from its outline).
ST_API bool st_navgrid_visible(st_navgrid *g, st_vec2 a, st_vec2 b);

/// "ok", "no route", "start blocked", "goal blocked", "outside the world", "out of memory",
/// "radius too large".
ST_API const char *st_nav_result_name(st_nav_result r);

/// How far (world units) a start or goal inside a blocked cell is moved to
/// the nearest free cell: max(2 cells, clearance + 1 cell).
ST_API double st_navgrid_snap_radius(const st_navgrid *g);

/// A shortest any-angle path from `from` to `to`: Lazy Theta* over the free
/// cells (8-connected, no corner cutting; line of sight through free cells),
/// then string-pulled and its corners tightened with the exact line of
/// sight. The path starts at `from` and ends at `to`; a start in a blocked
/// cell first leaves for the nearest free cell within the snap radius, and a
/// goal in a blocked cell is reached through the nearest free cell, or
/// replaced by it when `to` itself lies within the clearance. Deterministic;
/// allocates nothing once warm. On ST_NAV_OK *points (valid until the next
/// query on this grid) holds *n >= 2 points.
ST_API st_nav_result st_navgrid_path(st_navgrid *g, st_vec2 from, st_vec2 to, const st_vec2 **points, int *n);

/// Whether the grid was made from tiles (st_navgrid_def.tiles).
ST_API bool st_navgrid_tiled(const st_navgrid *g);
/// Blocks or frees tile (x, y) of a tile grid. The change stays local: the
/// clearance of the tiles within 33 of it is recomputed, and the result is
/// the grid a new st_navgrid_create of the changed map would give (the
/// connected parts are relabelled at the next query). False when the grid
/// is not a tile grid or (x, y) is outside the map.
ST_API bool st_navgrid_set_tile(st_navgrid *g, int x, int y, bool blocked);

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
ST_API st_nav_result st_navgrid_path_radius(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                                     int *n);

ST_API st_nav_link_def st_default_nav_link_def(void);
/// Adds an off-mesh link (a jump, a ladder, a door, a teleport) from point
/// a to point b (world units, inside the grid's rectangle): an extra edge
/// of every later path search, from the cell (tile) under a to the one
/// under b at the link's cost, used when both are free (tile grids: when
/// both have room for the agent's radius). The path then runs to a, takes
/// the segment a-b (st_navgrid_path_link names it) and carries on from b;
/// string pulling never pulls across a link. Returns the link's id (> 0,
/// unique in the world); 0 when a point is outside or not finite or the
/// cost is NaN or infinite; -1 when memory ran out. def NULL: the defaults.
ST_API int st_navgrid_link(st_navgrid *g, st_vec2 a, st_vec2 b, const st_nav_link_def *def);
/// Removes link `id`; false when the grid has none of that id.
ST_API bool st_navgrid_unlink(st_navgrid *g, int id);
ST_API int st_navgrid_link_count(const st_navgrid *g);
/// The id of the link that segment i (points i to i+1) of the grid's last
/// path takes; 0 when it takes none (or i is outside the last path).
ST_API int st_navgrid_path_link(const st_navgrid *g, int i);

/// A flow field towards `goal` over the grid's free cells: the travel
/// distance of every cell to the goal by fast marching (the eikonal
/// equation, so distances are Euclidean rather than 8-directional), and a
/// direction per cell down its gradient. Blocked cells and cells cut off
/// from the goal point towards the nearest reachable free cell. The field
/// is a snapshot: it does not follow later changes of the obstacles. NULL
/// with *why set when the goal is outside, blocked with no free cell
/// within the snap radius, or memory runs out.
ST_API st_flowfield *st_flowfield_create(st_navgrid *g, st_vec2 goal, st_nav_result *why);
/// The same for an agent of radius `radius` (world units): on a tile grid,
/// over the tiles whose clearance holds it (as st_navgrid_path_radius);
/// on an obstacle grid, st_flowfield_create when radius <= clearance. NULL
/// with *why = ST_NAV_RADIUS when the grid cannot plan for it.
ST_API st_flowfield *st_flowfield_create_radius(st_navgrid *g, st_vec2 goal, double radius, st_nav_result *why);
ST_API void st_flowfield_destroy(st_flowfield *f);
ST_API st_vec2 st_flowfield_goal(const st_flowfield *f);
/// The direction to go at p (unit; bilinear between cell centres, so it
/// turns smoothly; zero at the goal). Positions outside read the edge.
ST_API st_vec2 st_flowfield_dir(const st_flowfield *f, st_vec2 p);
/// Travel distance from p's cell to the goal, INFINITY when unreachable.
ST_API double st_flowfield_distance(const st_flowfield *f, st_vec2 p);
ST_API int st_flowfield_cols(const st_flowfield *f);
ST_API int st_flowfield_rows(const st_flowfield *f);
ST_API double st_flowfield_cell(const st_flowfield *f);

/* ------------------------------------------------------------------------ */
/* path searches in slices of a work budget                                 */
/* ------------------------------------------------------------------------ */

ST_API st_nav_job *st_nav_job_create(st_navgrid *g); ///< NULL when memory runs out
ST_API void st_nav_job_destroy(st_nav_job *j);
ST_API st_navgrid *st_nav_job_grid(const st_nav_job *j);
/// Starts a search (dropping the one under way): the ends are checked and
/// snapped now (as st_navgrid_path_radius: on an obstacle grid, radius
/// must be <= its clearance). ST_NAV_OK, or why it failed at once.
ST_API st_nav_result st_nav_job_start(st_nav_job *j, st_vec2 from, st_vec2 to, double radius);
/// Runs the search for at most `budget` units, adding what it took to
/// *used (when not NULL). The finishing pass waits for a slice with room
/// for it, unless it alone needs more than a whole budget and *used is 0
/// (it then runs alone). Returns ST_NAV_JOB_RUNNING, _DONE or _FAILED.
ST_API int st_nav_job_run(st_nav_job *j, long budget, long *used);
ST_API int st_nav_job_state(const st_nav_job *j);
/// Why a failed job failed (ST_NAV_OK otherwise).
ST_API st_nav_result st_nav_job_result(const st_nav_job *j);
/// The finished path (NULL, *n = 0 until done); valid until the next start.
ST_API const st_vec2 *st_nav_job_points(const st_nav_job *j, int *n);
/// Units the current search has taken so far.
ST_API long st_nav_job_done(const st_nav_job *j);
/// The navgrid link (st_navgrid_link's id) segment i of the finished path
/// takes, from point i to point i + 1; 0 when none.
ST_API int st_nav_job_link(const st_nav_job *j, int i);
ST_API void st_nav_job_cancel(st_nav_job *j);

/* ------------------------------------------------------------------------ */
/* orders: move_to, group moves, the path queue                             */
/* ------------------------------------------------------------------------ */

/// "idle", "waiting", "moving", "arrived", "stuck", "failed".
ST_API const char *st_move_state_name(st_move_state s);

ST_API st_move_def st_default_move_def(void);

/// Orders the agent to `goal`: its path request joins the queue and the
/// agent holds still (ST_MOVE_WAITING) until the path comes. A new order
/// replaces the old one (and leaves its group). False when the agent is
/// dead, the def or goal is not finite, nav is NULL, or memory runs out.
ST_API bool st_agent_move_to(st_world *w, st_agent_id id, st_vec2 goal, const st_move_def *def);
/// Cancels the order: ST_MOVE_IDLE, nothing more added to its forces.
ST_API void st_agent_stop_moving(st_world *w, st_agent_id id);
ST_API st_move_state st_agent_move_state(const st_world *w, st_agent_id id);
/// Distance left along the path (from the agent to its next waypoint, then
/// waypoint to waypoint); 0 when arrived, INFINITY while waiting with no
/// path, NAN for an agent with no order.
ST_API double st_agent_move_remaining(const st_world *w, st_agent_id id);
/// The order's goal (for a group member: its slot once it has one, else the
/// group's goal); false when the agent has no order.
ST_API bool st_agent_move_goal(const st_world *w, st_agent_id id, st_vec2 *goal);
/// The agent's route (valid until the next step or order) and the index of
/// the waypoint it heads for; 0 points when it has none.
ST_API int st_agent_move_route(const st_world *w, st_agent_id id, const st_vec2 **points, int *next);
/// Its group (a handle from st_world_move_group) and slot index (-1: none).
ST_API int st_agent_move_group(const st_world *w, st_agent_id id, int *slot);

ST_API st_group_def st_default_group_def(void);

/// Orders the agents (duplicates and dead ones skipped) to `goal` as one
/// group: one path search for all (from the member nearest their centre),
/// which each member joins where it sees it; destination slots in the
/// pattern around the goal, each on free space the goal sees (slots that
/// fall in walls or off the grid move outwards); a member approaching the
/// goal takes the innermost free slot (the nearest of those), so the block
/// fills from the inside out and members do not cross. Returns the group
/// handle (>= 1), 0 when no agent was alive, -1 on bad input or no memory.
ST_API int st_world_move_group(st_world *w, const st_agent_id *ids, int n, st_vec2 goal, const st_group_def *def);
/// A group's slots (inner first; valid until the next order) and whether
/// each is taken; 0 for an unknown or finished group.
ST_API int st_world_group_slots(const st_world *w, int group, const st_vec2 **slots, const uint8_t **taken);

/// The path queue's work budget per step (units as st_nav_job's; default
/// ST_PATH_BUDGET_DEFAULT). No step's planning takes more, except a path
/// whose finishing pass alone needs more than a whole budget (it then runs
/// alone in its step).
ST_API void st_world_set_path_budget(st_world *w, long units); ///< >= 1, else ignored
ST_API long st_world_path_budget(const st_world *w);
/// Path requests waiting in the queue (the one being searched included).
ST_API int st_world_path_pending(const st_world *w);
/// Work units the queue took in the last step.
ST_API long st_world_path_work(const st_world *w);
ST_API int st_world_move_events(const st_world *w, const st_move_event **events);

/* ------------------------------------------------------------------------ */
/* snapshots                                                                */
/* ------------------------------------------------------------------------ */

/// Captures w. NULL inside a step or when memory runs out. Paths named by
/// standing behaviours are kept by pointer: they must outlive the snapshot
/// (as they must outlive the agents using them), and so must the flow
/// fields of follow_flow entries. Formations and navgrids are objects of
/// their own, not part of the world: a restore leaves a formation's members
/// and slot assignment as they are, and a navgrid re-reads the restored
/// obstacles at its next query.
ST_API st_snapshot *st_world_snapshot(const st_world *w);
/// Captures w into s, replacing what s held and reusing its memory: a ring
/// of snapshots taken again and again (the app's rewind) allocates nothing
/// once warm. False inside a step or when memory runs out (s then holds an
/// empty world).
ST_API bool st_snapshot_capture(st_snapshot *s, const st_world *w);
/// Puts w back to the state s holds (any world: its size, edges and seed
/// become the snapshot's). Ids captured in s are valid again; ids made
/// since are dead, and stay dead when their slots are freed and handed out
/// again (each slot's generation skips past the ones they used). The thread count
/// and the behaviour trace stay w's. False, with w unchanged, inside a step
/// or when memory runs out.
ST_API bool st_world_restore(st_world *w, const st_snapshot *s);
ST_API void st_snapshot_destroy(st_snapshot *s);
ST_API uint64_t st_snapshot_tick(const st_snapshot *s);
ST_API double st_snapshot_time(const st_snapshot *s);
/// st_world_checksum of the world at capture.
ST_API uint64_t st_snapshot_checksum(const st_snapshot *s);
/// Live agents captured.
ST_API int st_snapshot_agent_count(const st_snapshot *s);
/// Bytes the snapshot holds in memory (approximate: the arrays and lists).
ST_API size_t st_snapshot_memory(const st_snapshot *s);
/// Orders the snapshot holds (st_agent_move_to, st_world_move_group): every
/// order, route, group and slot, and the path queue, captured with the
/// world and restored with it (the search under way is run again to where
/// it was at the first step after, uncounted, so the steps after a restore
/// plan as the steps after the capture did). Orders name navgrids: those
/// must outlive the snapshot; a restore into another world drops the orders,
/// and a snapshot with orders has no byte form (st_snapshot_encodable).
ST_API int st_snapshot_orders(const st_snapshot *s);

/// The paths the snapshot refers to: those of the standing behaviours, then
/// any added. A decoded snapshot made them and destroys them with itself
/// unless st_snapshot_disown_paths hands them to the caller.
ST_API int st_snapshot_path_count(const st_snapshot *s);
ST_API st_path *st_snapshot_path(const st_snapshot *s, int i);
/// The index of p, or -1.
ST_API int st_snapshot_path_index(const st_snapshot *s, const st_path *p);
/// Adds p (a path the caller's own data refers to) and returns its index;
/// the one it had when already there; -1 when memory runs out.
ST_API int st_snapshot_add_path(st_snapshot *s, st_path *p);
ST_API void st_snapshot_disown_paths(st_snapshot *s);
/// Bytes of the caller's own (the Lua bindings keep brains' state here),
/// stored and encoded with the snapshot. False when memory runs out.
ST_API bool st_snapshot_set_user(st_snapshot *s, const void *data, size_t n);
ST_API const void *st_snapshot_user(const st_snapshot *s, size_t *n);

/// The header's payload checksum of the format (for tools that edit bytes).
ST_API uint64_t st_snapshot_hash(const void *data, size_t n);
/// The snapshot as bytes (a header, then the payload; see snapshot_io.c),
/// malloc'd, *size set. NULL when memory runs out, or when
/// st_snapshot_encodable says the snapshot has no byte form.
ST_API void *st_snapshot_encode(const st_snapshot *s, size_t *size);
/// Whether st_snapshot_encode can write s. A flow field has no byte form
/// (it is the caller's object, like a path, but made from a navgrid the file
/// cannot hold), so a snapshot whose standing lists hold a follow_flow field
/// cannot be written: false, with *serial (when not NULL) the serial of the
/// first such agent in spawn order.
ST_API bool st_snapshot_encodable(const st_snapshot *s, uint64_t *serial);
/// A snapshot from bytes made by st_snapshot_encode. NULL for anything
/// else: truncated, corrupt (checksum), foreign (magic), a newer or older
/// format, another build's layout, or contents that fail the checks a
/// world's invariants need; err (when not NULL) then says which, in at
/// most err_cap bytes.
ST_API st_snapshot *st_snapshot_decode(const void *data, size_t size, char *err, size_t err_cap);
/// The same, the snapshot's memory (and its paths') counted against mem (NULL: none).
ST_API st_snapshot *st_snapshot_decode_in(const st_mem *mem, const void *data, size_t size, char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif

#endif /* STEER_H */
