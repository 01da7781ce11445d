/*
 * bind.h — private to the bindings (the app sees only steer_lua.h): the
 * userdata layouts and what the binding files share. Where things live:
 *
 *   steer.c        luaopen_steer: the steer table; calls each sl_open_*
 *   auxlib.c       the shared helpers, as Lua's lauxlib: registry keys,
 *                  userdata tests, the key cache, checked numbers, fields and
 *                  options, errors in Lua's form, sl_newtype (registering a
 *                  userdata type); it calls nothing in the files below
 *   vec2.c         steer.vec2, points (sl_point, steer_lua_checkpoint)
 *   world.c        steer.world: construction, fields, queries, step, tags
 *   agent.c        steer.agent: fields, steering methods; world:spawn/remove
 *   behaviors.c    behaviour entries and the argument forms they share
 *   path.c, obstacle.c, nav.c, formation.c, snapshot.c: those types
 *   raycast.c      world:raycast
 *   avoid.c        the agents' avoidance fields
 *   brain.c        brain dispatch, errors, steer.reload; hotswap*.c merge modules
 *   mark.c         world:mark;  random.c  steer.install_random
 *   sandbox.c, sandbox_string.c: the app's sandbox (steer_host.h)
 */
#ifndef STEER_BIND_H
#define STEER_BIND_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "lua_compat.h" /* <lua.h>, <lauxlib.h>, and the 5.4 API on 5.3/5.1/LuaJIT */

#include "steer.h"
#include "steer_lua.h"

#define SL_VEC2 "steer.vec2"
#define SL_WORLD "steer.world"
#define SL_AGENT "steer.agent"
#define SL_PATH "steer.path"
#define SL_OBSTACLE "steer.obstacle"

/* Registry keys (their addresses). The metatables sit both under their
 * names (for luaL_checkudata users) and under these light-userdata keys:
 * a rawgetp lookup skips interning the name string on every check, which
 * matters on the per-agent hot paths. */
extern const char sl_key_vec2, sl_key_world, sl_key_agent, sl_key_path;
extern const char sl_key_state, sl_key_worlds;

/* The FFI backend (ffi_api.c; LuaJIT builds only). */
#ifdef STEER_LUA_JIT
#define SL_LUA_TCDATA 10 /* lua_type of a LuaJIT cdata */
void sl_ffi_open(lua_State *L);
void sl_ffi_world(lua_State *L);
st_vec2 *sl_ffi_tovec2(lua_State *L, int idx);
/* ffi_vec2.c: the FFI vec2's operations, into ffi.lua's context table on top */
void sl_ffi_vec2_context(lua_State *L);
/* brain.c: the FFI brain loop's side of a step's brain pass */
double sl_ffi_brain_next(void *run, double *dt);
double sl_ffi_brain_due(void *run, void *agent);
void sl_ffi_brain_begin(void *run, void *agent);
void sl_ffi_brain_end(void *run);
int sl_ffi_brain_update(lua_State *L);
#endif

/* ---- userdata layouts ---- */

/* World uservalues. */
enum {
    SL_WUV_AGENTS = 1, /* slot index + 1 -> the agent's one userdata */
    SL_WUV_TAGS,       /* name -> tag id and tag id -> name */
    SL_WUV_ONERROR,    /* world.on_error */
    SL_WUV_PENDING,    /* first unhandled brain error of this step */
    SL_WUV_TAGPIN,     /* the strings of tag_cache, kept alive (slot -> string) */
    SL_WUV_REMOVED,    /* agents removed during the brain pass (pointer -> agent) */
    SL_WUV_USER,       /* world.user: the scene's own table (made on first read; it
                        * outlives scene and brain reloads, going with the world) */
    SL_WUV_OBSTACLES,  /* obstacle id -> its userdata (made on first need) */
    SL_WUV_REQUESTS,   /* paths and flow fields that behaviours asked for between
                        * steps refer to, kept until the step finishes them */
    SL_WUV_NAVS,       /* navgrids orders plan on (navgrid -> true), and the
                        * world's default one under "default" (move.c) */
    SL_WUV_LINKS,      /* navgrid link id -> the table nav:link returned */
    SL_WUV_MESSAGES,   /* message seq -> the message table (message.c) */
    SL_WUV_NOISES,     /* noise seq -> its data (perceive.c) */
    SL_WUV_COUNT = SL_WUV_NOISES
};

#define SL_TAG_CACHE 4

typedef struct sl_world {
    st_world *w;            /* NULL once collected */
    int32_t ntags;          /* tags interned so far (ids 1..ntags) */
    int paused;             /* live agents whose brain an error paused */
    int brains;             /* live agents with a brain: none, no brain pass */
    /* Agents with a brain in spawn order, appended at spawn. Steps, draws and
     * reloads walk this instead of the world's spawn order: no binary search
     * per agent and no visits to brainless agents. Removed agents leave dead
     * entries, compacted when no walk is under way. */
    st_agent_id *brain_list;
    int brain_count, brain_cap, brain_dead;
    int walking;            /* walks of brain_list in progress */
    bool stepping;          /* inside world:step (brains running) */
    bool linking;           /* inside world:step (traverse_link callbacks running) */
    st_agent_id *scratch;   /* query results and id lists, grown on demand */
    int scratch_cap;
    double *scratch_dist;
    /* st_default_behavior of every type, copied rather than recomputed on
     * each method call (a brain makes several per agent per step) */
    st_behavior defaults[ST_BEHAVIOR_COUNT];
    /* Tag filters by string object: a brain passes the same constant
     * ("prey") every step, and comparing its address skips the tags table.
     * Only hits are cached (tag ids never change); the strings are pinned
     * in SL_WUV_TAGPIN so an address is never reused by another string. */
    const void *tag_cache_str[SL_TAG_CACHE];
    int32_t tag_cache_id[SL_TAG_CACHE];
    int tag_cache_next;
    /* messages and perception (message.c, perceive.c): made on first use */
    st_msgq *msgq;
    st_perception *perc;
    st_percept *percepts;   /* a:perceive's results, grown on demand */
    int percepts_cap;

    /* raised whenever the agents or tags uservalue is replaced (a restore):
     * the FFI backend's cached copies of them are stale (ffi_api.c) */
    uint32_t agents_epoch;
    /* the agents table's userdata by handle slot, in C (slots.h) */
    uint32_t *slot_gen1;
    struct sl_agent **slot_ud;
    uint32_t slots_cap;
    bool slots_lost;        /* a slot went unrecorded (out of memory) */
} sl_world;



/* Agent uservalues. */
enum {
    SL_AUV_WORLD = 1,  /* the world userdata: a world outlives its agents' userdata */
    SL_AUV_SELF,       /* the brain's state table (made on first need) */
    SL_AUV_BRAIN,      /* the brain module table, or nil */
    SL_AUV_BEHAVIORS,  /* normalised copy of a.behaviors; keeps paths and agents alive */
    SL_AUV_PATH,       /* the last path followed by method: the core may compare it */
    SL_AUV_NEAR,       /* the answer of its own last nearest query (world.c) */
    SL_AUV_COUNT = SL_AUV_NEAR
};

typedef struct sl_agent {
    const void *mark;   /* &sl_key_agent: see sl_agent_at */
    sl_world *sw;       /* valid while this userdata lives: SL_AUV_WORLD pins it */
    st_agent_id id;
    uint64_t serial;    /* a.id */
    bool removed;
    bool paused;        /* brain stopped by a runtime error until a reload */
    bool has_brain;
    /* brain scheduling (think.c): update every think_every ticks */
    uint32_t think_every;   /* >= 1 */
    uint32_t think_steps;   /* steps since its update last ran */
    double think_dt;        /* their dt summed (think_every > 1) */
} sl_agent;

/* A new agent userdata's fields (its metatable is the caller's to set). */
static inline void sl_agent_init(sl_agent *a, sl_world *sw, st_agent_id id, uint64_t serial, bool removed,
                                 bool has_brain)
{
    a->mark = &sl_key_agent;
    a->sw = sw;
    a->id = id;
    a->serial = serial;
    a->removed = removed;
    a->paused = false;
    a->has_brain = has_brain;
    a->think_every = 1;
    a->think_steps = 0;
    a->think_dt = 0.0;
}

/* The agent at idx, or NULL: a full userdata of sl_agent's size whose first
 * word is the address of sl_key_agent, which only sl_agent_init writes and
 * no Lua code can forge (Lua makes no userdata of given bytes). The
 * brains' calls test several agents per agent per step; fetching and
 * comparing the metatable, as luaL_testudata does, takes three calls into
 * Lua and a pop where this takes two. */
static inline sl_agent *sl_agent_at(lua_State *L, int idx)
{
    sl_agent *a = (sl_agent *)lua_touserdata(L, idx);
    if (a == NULL || lua_rawlen(L, idx) != sizeof *a || a->mark != &sl_key_agent)
        return NULL;
    return a;
}

typedef struct sl_path {
    st_path *p;
} sl_path;

/* A tag id no agent ever carries: the filter for a name never interned. */
#define SL_TAG_UNKNOWN INT32_MAX

/* ---- comparing metatables ---- */

/* Whether the values at a and b are the same table (both tables: a
 * metatable just pushed and the one kept for the check). Tables are equal
 * only when they are the same object, so this is lua_rawequal without its
 * general dispatch, which costs about 75 instructions a call in Lua 5.4;
 * the type checks of a brain's calls make several per agent per step. */
static inline bool sl_same_table(lua_State *L, int a, int b)
{
    return lua_topointer(L, a) == lua_topointer(L, b);
}

/* ---- __index by the key's address (auxlib.c) ---- */

/* Brains read methods and fields by name several times per agent per step
 * (agent.world, world:nearest, agent:wander). Looking each name up in the
 * name table through lua_rawget costs about 110 instructions; this
 * direct-mapped cache, keyed by the name string's address, costs about 10.
 * Only names found in the name table are cached, and that table (an
 * upvalue of the same __index closure) keeps them alive: Lua interns short
 * strings, so while the table holds "wander" every "wander" is that one
 * object, and its address cannot be reused by another string. Methods are
 * kept in `values` (an upvalue table, slot + 1 -> the method) to be
 * pushed without a name lookup. Two ways a set: two names a brain uses on
 * every call ("nearest" and "steer") can land in one set, and a
 * direct-mapped cache would then miss on both, every time. */
#define SL_KEYCACHE 64
#define SL_KC_METHOD (-1)

typedef struct sl_keycache {
    const void *key[SL_KEYCACHE];   /* name string addresses */
    int code[SL_KEYCACHE];          /* field code, or SL_KC_METHOD */
} sl_keycache;

/* Pushes a new, empty cache. */
void sl_keycache_new(lua_State *L);

/* sl_keycache_find's slow path: the name table lookup, and the fill of
 * the set whose first way is `set`. */
int sl_keycache_miss(lua_State *L, sl_keycache *kc, int slot, int key_idx, int names_uv, int values_uv);

/* The first way of the set of the string at address k. */
static inline int sl_keycache_set(const void *k, int size)
{
    uintptr_t h = (uintptr_t)k;
    return (int)((h >> 4) ^ (h >> 11)) & (size - 2);
}

/* The name at key_idx, looked up: returns its field code (>= 0, nothing
 * pushed), or SL_KC_METHOD with the method pushed, or SL_KC_METHOD with nil
 * pushed for a name the type does not have. names_uv: the name table (name
 * -> method, or field code as an integer); values_uv: the method table of
 * the cache slots. */
static inline int sl_keycache_find(lua_State *L, sl_keycache *kc, int key_idx, int names_uv, int values_uv)
{
    const void *k = lua_topointer(L, key_idx); /* NULL unless a collectable */
    int set = sl_keycache_set(k, SL_KEYCACHE);
    int slot = kc->key[set] == k ? set : set + 1;
    if (kc->key[slot] == k && k != NULL) {
        int code = kc->code[slot];
        if (code == SL_KC_METHOD)
            lua_rawgeti(L, values_uv, slot + 1);
        return code;
    }
    return sl_keycache_miss(L, kc, set, key_idx, names_uv, values_uv);
}

/* ---- type checks (auxlib.c; sl_to<type>, sl_check<type>: in the type's file) ---- */

/* The userdata at idx when its metatable is the one under key, else NULL. */
void *sl_testudata(lua_State *L, int idx, const void *key);
void *sl_checkudata(lua_State *L, int arg, const void *key, const char *tname);
void sl_setmetatable(lua_State *L, const void *key);
/* Pushes the table in uservalue uv of the userdata at idx, made on first need. */
void sl_push_uvtable(lua_State *L, int idx, int uv);

st_vec2 *sl_tovec2(lua_State *L, int idx);
/* The world at idx, or NULL (worlds have metatables of their own: see
 * world.c). */
sl_world *sl_toworld(lua_State *L, int idx);
sl_world *sl_checkworld(lua_State *L, int arg);
sl_agent *sl_toagent(lua_State *L, int idx);
/* A live agent: raises "attempt to use a removed agent" otherwise. */
sl_agent *sl_checkagent(lua_State *L, int arg);
sl_path *sl_topath(lua_State *L, int idx);

/* agent:nearest and agent:neighbors (world.c, beside the world's own). */
int sl_agent_nearest(lua_State *L);
int sl_agent_neighbors(lua_State *L);

/* ---- checked values (auxlib.c; points: vec2.c) ---- */

/* Where a checked value came from: one checker serves a plain argument, a
 * field of an options table (`arg` set, `field` names it) and an assignment
 * `a.mass = v` (`arg` 0, `assign` names the field). `ctx` prefixes a list
 * entry ("behaviors[2]"). */
typedef struct sl_src {
    int arg;
    const char *field;
    const char *assign;
    const char *ctx;
} sl_src;

static inline sl_src sl_arg(int arg) { sl_src s = {arg, NULL, NULL, NULL}; return s; }
static inline sl_src sl_field(int arg, const char *field) { sl_src s = {arg, field, NULL, NULL}; return s; }
static inline sl_src sl_assign(const char *field) { sl_src s = {0, NULL, field, NULL}; return s; }

#if defined(__GNUC__)
#define SL_NORETURN __attribute__((noreturn))
#define SL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SL_NORETURN
#define SL_PRINTF(f, a)
#endif

/* Raises the error for a bad value from src; fmt describes what is wrong
 * ("must be > 0", "number expected, got nil"). */
SL_NORETURN void sl_raise(lua_State *L, const sl_src *src, const char *fmt, ...) SL_PRINTF(3, 4);
/* "x expected, got <type of the value at idx>". */
SL_NORETURN void sl_raise_type(lua_State *L, const sl_src *src, int idx, const char *expected);

/* The value at idx, checked. opt variants take nil (or none) as the default. */
double sl_number(lua_State *L, int idx, const sl_src *src);
double sl_number_min(lua_State *L, int idx, const sl_src *src, double min, bool strict);
/* A vec2, {x, y} or {x =, y =} (vec2.c). */
st_vec2 sl_point(lua_State *L, int idx, const sl_src *src);
double sl_optnumber(lua_State *L, int idx, const sl_src *src, double def);
double sl_optnumber_min(lua_State *L, int idx, const sl_src *src, double def, double min);

/* Plain function arguments. */
double sl_checkfinite(lua_State *L, int arg);
double sl_optfinite(lua_State *L, int arg, double def);
/* >= 0 and finite. */
double sl_checknonneg(lua_State *L, int arg);
double sl_optnonneg(lua_State *L, int arg, double def);

/* Pushes v; raises when it is not finite (vec2 arithmetic; vec2.c). */
void sl_pushvec2_checked(lua_State *L, st_vec2 v);
/* The n points of the list at idx into out; errors name the entry ("[3]"); vec2.c. */
void sl_point_list(lua_State *L, int idx, lua_Integer n, const sl_src *src, st_vec2 *out);
/* "nan", "inf" or "-inf". */
const char *sl_nonfinite_name(double d);

/* Pushes field name of the table at idx; true when it is not nil (else
 * nothing stays pushed). */
bool sl_getfield(lua_State *L, int idx, const char *name);
/* Field name of the table at idx: def when nil, else a number >= min (> min
 * when strict), errors naming the field. */
double sl_field_min(lua_State *L, int idx, const char *name, double def, double min, bool strict);
/* The first key of the table at idx that is not one of keys (NULL-ended),
 * as text (pushed), or NULL when every key is known. */
const char *sl_unknown_key(lua_State *L, int idx, const char *const *keys);
/* The index in names (NULL-ended) of the string at idx; raises "string
 * expected" or "invalid option 'x' ("a", "b" or "c")". */
int sl_option(lua_State *L, int idx, const sl_src *src, const char *const *names);

/* ---- auxlib.c: registering a userdata type ---- */

typedef struct sl_code {
    const char *name;
    int code;
} sl_code;

/* What an sl_open_* registers. Every type gets a metatable under its name
 * (luaL_newmetatable: __name and luaL_checkudata) and under key (the
 * rawgetp lookups), made read-only for scripts. With a name table (methods,
 * fields or more_names), __index is a closure over it (upvalue 1) and the
 * first index_ups metatables of ups, then with keycache a key cache and its
 * method slots (bind.h's sl_keycache_find); __newindex a closure over the
 * name table. Without one they are plain functions. */
typedef struct sl_type {
    const char *name;            /* "steer.agent" */
    const void *key;             /* its registry key (&sl_key_agent) */
    const luaL_Reg *meta;        /* metamethods, or NULL */
    const luaL_Reg *methods;     /* the name table's functions, or NULL */
    const sl_code *fields;       /* its field codes ({NULL, 0} ends them), or NULL */
    void (*more_names)(lua_State *L); /* adds to the name table on top, or NULL */
    const void *const *ups;      /* registry keys of the metatables that the methods
                                  * and metamethods close over (NULL ends), or NULL */
    int index_ups;               /* how many of ups __index closes over */
    bool keycache;
    lua_CFunction index, newindex;
} sl_type;

/* Registers t; leaves its metatable on top. */
void sl_newtype(lua_State *L, const sl_type *t);

/* ---- per-world helpers (world.c) ---- */

/* The tag id for name, interning it. world_idx: the world userdata. */
int32_t sl_tag_intern(lua_State *L, int world_idx, sl_world *sw, const char *name);
/* The tag id for name when interned, else SL_TAG_UNKNOWN. */
int32_t sl_tag_lookup(lua_State *L, int world_idx, const char *name);
/* The same for the Lua string at str_idx, looked up without re-interning. */
int32_t sl_tag_lookup_at(lua_State *L, int world_idx, int str_idx);
/* Pushes the name of a tag id, or nil for ST_TAG_NONE. */
void sl_tag_push(lua_State *L, int world_idx, int32_t tag);
/* Appends a spawned agent with a brain to the world's brain list. */
void sl_brain_list_add(lua_State *L, sl_world *sw, st_agent_id id);
/* Room for n ids (and distances) in the world's scratch arrays. */
void sl_scratch_reserve(lua_State *L, sl_world *sw, int n);
/* Pushes the agent userdata of id (nil when not alive). */
void sl_pushagent(lua_State *L, int world_idx, st_agent_id id);

/* ---- move.c: orders ---- */
enum { SL_MOVE_STATE, SL_MOVE_REMAINING, SL_MOVE_GOAL, SL_MOVE_GROUP, SL_MOVE_SLOT };
/* Pushes the agent's order field `which` (SL_MOVE_*). */
void sl_move_push_field(lua_State *L, sl_agent *a, int which);
int sl_agent_move_to(lua_State *L);
int sl_agent_stop_moving(lua_State *L);
int sl_agent_move_route(lua_State *L);
int sl_world_move_group(lua_State *L);
int sl_world_group_slots(lua_State *L);
/* world.nav: the default navgrid (nil when none). */
void sl_move_push_default_nav(lua_State *L, int world_idx);
void sl_move_set_default_nav(lua_State *L, int world_idx, int nav_idx, bool only_if_none);
/* brain.arrived / brain.move_failed for the step's events (brains' pass). */
void sl_move_events(lua_State *L, int world_idx, sl_world *sw);
/* nav.c: the grid at idx or NULL; the world it belongs to. */
st_navgrid *sl_tonavgrid(lua_State *L, int idx);
sl_world *sl_navgrid_world(lua_State *L, int idx);
/* brain.c: brain[name](self, agent, extra...) with nextra values on top
 * (consumed); an error pauses the brain and is routed. */
bool sl_call_brain(lua_State *L, int world_idx, int agent_idx, const char *name, int nextra);

/* ---- agent.c ---- */
int sl_world_spawn(lua_State *L);
int sl_world_mark(lua_State *L); /* mark.c */
/* mark.c: whether the host set an event sink; report one event to it */
bool sl_events_wanted(lua_State *L);
void sl_event(lua_State *L, const steer_lua_event *e);
int sl_world_remove(lua_State *L);
void sl_open_agent(lua_State *L);
/* Pushes the agent's self table, creating it on first need. agent_idx absolute. */
void sl_pushself(lua_State *L, int agent_idx);

/* ---- behaviors.c ---- */

/* A target for seek/flee/arrive (point or agent) or, with agent_only, for
 * pursue/evade/...: agents must be live and of world sw. */
/* Between steps a behaviour call becomes a request (docs/API.md, "game
 * loops"): raises when the call made none (too many, or no memory). before:
 * st_world_requests before the call. */
void sl_check_kept(lua_State *L, sl_world *sw, int before);
void sl_graze_field(lua_State *L, int idx, const sl_src *src, const char *key, st_behavior *b);
st_target sl_target(lua_State *L, int idx, const sl_src *src, sl_world *sw, bool agent_only);
/* Parses the list at idx into the core's form, interning tags in the world
 * at world_idx. Leaves a normalised copy of the list on the stack (the one
 * a.behaviors reads back) and returns the number of entries; *out is a
 * userdata-backed array that lives just below that copy on the stack. */
int sl_behaviors_parse(lua_State *L, int idx, int world_idx, sl_world *sw,
                       const sl_src *src, st_behavior **out);
/* "waypoints" or "predict" (follow_path's mode). */
st_path_mode sl_path_mode(lua_State *L, int idx, const sl_src *src);

/* Flock parameters from an options table at idx (or none/nil: defaults). */
st_flock_params sl_flock_params(lua_State *L, int idx, int world_idx, sl_world *sw,
                                const sl_src *src, double *weight);
/* "slow" | "normal" | "fast" or nil (the linear ramp). */
st_deceleration sl_deceleration(lua_State *L, int idx, const sl_src *src);
/* obstacle.c: steer.obstacle and the world methods that make them. */
int sl_world_add_obstacle(lua_State *L);
int sl_world_add_tiles(lua_State *L);
int sl_world_remove_obstacle(lua_State *L);
int sl_world_obstacles(lua_State *L);
/* Pushes obstacle id's steer.obstacle (the same userdata every time). */
void sl_push_obstacle(lua_State *L, int world_idx, sl_world *sw, int id);
int sl_world_raycast(lua_State *L); /* raycast.c */
/* a.path_index (path.c): 1-based, nil when the agent follows no path. */
void sl_push_path_index(lua_State *L, st_world *w, st_agent_id id);
void sl_set_path_index(lua_State *L, st_world *w, st_agent_id id, int idx, const sl_src *src);
void sl_open_obstacle(lua_State *L);

/* avoid.c: the agent's avoidance fields, by index k into sl_avoid_fields. */
#define SL_AVOID_FIELDS 9
extern const char *const sl_avoid_fields[SL_AVOID_FIELDS + 1];
/* Field k of d from the value at idx (nil: its default). */
void sl_avoid_set_field(lua_State *L, st_avoid_def *d, int k, int idx, const sl_src *src);
/* Pushes field k as the next step will use it. */
void sl_avoid_push_field(lua_State *L, st_world *w, st_agent_id id, int k);
/* a.<field k> = value at idx. */
void sl_avoid_assign(lua_State *L, st_world *w, st_agent_id id, int k, int idx, const sl_src *src);
/* The avoidance fields of spawn's def table at def_idx; true when any was given. */
bool sl_avoid_parse_def(lua_State *L, int def_idx, st_avoid_def *d);

/* A rectangle {x, y, w, h} (or with those keys): finite, w and h > 0. */
void sl_rect(lua_State *L, int idx, const sl_src *src, double rect[4]);
void sl_pushrect(lua_State *L, const double rect[4]);

/* ---- nav.c: steer.navgrid, steer.flowfield ---- */
int sl_world_navgrid(lua_State *L);
/* The tiles and walkable fields of the table at def as one byte a tile
 * (nonzero blocked), in a userdata pushed on the stack (tiles.c). */
uint8_t *sl_tiles(lua_State *L, int def, int *cols, int *rows);
void sl_open_nav(lua_State *L);
/* The flow field of the userdata at idx, or NULL when it is not one. */
const st_flowfield *sl_toflowfield(lua_State *L, int idx);
/* Whether the value at idx is a steer.navgrid userdata. */
bool sl_isnavgrid(lua_State *L, int idx);

/* ---- path.c ---- */
void sl_open_path(lua_State *L);
/* formation.c: steer.formation */
void sl_open_formation(lua_State *L);
/* Whether the value at idx is a steer.formation userdata. */
bool sl_isformation(lua_State *L, int idx);
/* Pushes a copy of the formation at idx (members, slots, pattern, leader). */
void sl_formation_save(lua_State *L, int idx);
/* Puts the copy at saved_idx back into the formation at idx (when neither
 * belongs to a world other than sw). */
void sl_formation_load(lua_State *L, int idx, int saved_idx, const sl_world *sw);
int sl_path_new(lua_State *L);

/* ---- vec2.c ---- */
void sl_open_vec2(lua_State *L);

/* ---- world.c ---- */
void sl_open_world(lua_State *L);
int sl_world_new(lua_State *L);

/* ---- brain.c ---- */

/* Per-lua_State data: the instruction budget and the error sink. */
typedef struct sl_state {
    long budget;          /* 0: unlimited */
    long used;            /* instructions counted in the running callback */
    int depth;            /* budgeted callbacks running */
    double time_limit;    /* seconds of wall time a callback may take (0: not
                           * chosen, a budget brings the default; < 0: none) */
    double started;       /* when the running callback started (0: not yet
                           * known); see charge() in brain.c */
    bool reloading;       /* a reload is running its brains' reload callbacks */
    steer_lua_error_fn sink;
    void *sink_ud;
} sl_state;

sl_state *sl_getstate(lua_State *L);
/* Brain calls of one step: update for each live agent spawned before the
 * step began, in spawn order; brain errors are routed. Returns LUA_OK, or
 * the status of an error the step must raise, its message on top. */
int sl_brains_step(lua_State *L, int world_idx, sl_world *sw, double dt);
/* world:add_tiles{ nav = g }: why the value at idx cannot take walls of a
 * cols x rows map (NULL: it can), and giving them to it. */
const char *sl_nav_walls_check(lua_State *L, int idx, int cols, int rows);
void sl_nav_set_walls(lua_State *L, int idx, st_tile_walls *tw);
/* After a step: brain.traverse_link(self, agent, link) for the agents that
 * reached a link of their path in it (world at world_idx). */
void sl_brains_links(lua_State *L, int world_idx, sl_world *sw);
/* brain.spawn(self, agent) for the agent at agent_idx, if it has one. */
void sl_brain_spawn(lua_State *L, int agent_idx);
/* Handles a brain callback's error (message on top, popped): pauses the
 * agent and routes the message to on_error, the sink, or the pending slot. */
void sl_brain_failed(lua_State *L, int world_idx, int agent_idx);
/* Pushes the pending error of the world (or nothing) and clears it;
 * returns whether one was pushed. */
bool sl_take_pending(lua_State *L, int world_idx);
int sl_reload(lua_State *L);

/* ---- message.c, perceive.c, think.c: the decision layer's C side ---- */
int sl_world_send(lua_State *L);
int sl_agent_send(lua_State *L);
/* Delivers the messages due at this step to brain.message (world at
 * world_idx; inside the step, before the updates). */
void sl_messages_deliver(lua_State *L, int world_idx, sl_world *sw);
int sl_agent_perceive(lua_State *L);
int sl_agent_memory(lua_State *L);
int sl_agent_forget(lua_State *L);
int sl_world_noise(lua_State *L);
/* Room for every agent's perception record before a step (no allocation in it). */
void sl_perception_reserve(lua_State *L, sl_world *sw);
/* Frees the world's message queue and perception (world __gc). */
void sl_decide_free(sl_world *sw);
/* a.think_every, a.think_age */
void sl_think_push_field(lua_State *L, sl_agent *a, bool age);
void sl_think_assign(lua_State *L, sl_agent *a, int idx, const sl_src *src);
/* Whether the brain of a runs its update this step (tick: the world's tick
 * as the step began); when it does, *dt becomes the time it covers. */
bool sl_think_due(sl_agent *a, uint64_t tick, double *dt);
/* Snapshots: pushes a table of the world's messages, perception and brain
 * schedules (save), or puts such a table (at idx; nil: empty) back. */
void sl_decide_save(lua_State *L, int world_idx);
void sl_decide_load(lua_State *L, int world_idx, int idx);

/* ---- hotswap.c (and hotswap.h's files) ---- */
/* Sets package.loaded's __newindex, which records each module's load-time
 * values (its baseline) as require stores it (none on Lua 5.1). */
void sl_hotswap_install(lua_State *L);
/* Pushes the weak-keyed registry table under key (created on first use). */
void sl_push_weak(lua_State *L, const void *key);
/* Merges the new version of module `name` (the table at new_idx) into the
 * loaded one (old_idx) in place; fills info's counts. May raise (memory
 * only; on Lua 5.1 always): the module is then left as it was. */
int sl_hotswap(lua_State *L, const char *name, int old_idx, int new_idx, steer_reload_info *info);

/* ---- snapshot.c ---- */
/* world:snapshot, world:restore; steer.load_snapshot, steer.decode_snapshot
 * (expects the steer table on top). */
int sl_world_snapshot(lua_State *L);
int sl_world_restore(lua_State *L);
void sl_open_snapshot(lua_State *L);

/* ---- random.c ---- */
int sl_install_random(lua_State *L);

/* Pushes the package library's table: the real one a host keeps under
 * SL_HOST_PACKAGE when it sealed the library tables (steer_host_seal; scripts
 * then see a read-only proxy as `package`), else the global. */
/* The memory budget a host shares with the core objects scripts make
 * (steer_host_open keeps one under SL_HOST_MEM, counted with Lua's own
 * memory against --memory); NULL: none. */
#define SL_HOST_MEM "steer.host.mem"
const st_mem *sl_mem(lua_State *L);
/* A full collection, after the core ran out of memory: userdata nobody
 * holds give their C memory back, so one retry may then fit. */
void sl_collect(lua_State *L);

#define SL_HOST_PACKAGE "steer.host.package"
void sl_push_package(lua_State *L);

#endif
