/*
 * behaviors.c — behaviour entries ({"seek", target = p, weight = 2}) to the
 * core's st_behavior and back, plus the argument forms shared by the
 * steering methods (targets, flock options, arrive's deceleration).
 *
 * Entries are checked strictly: an unknown behaviour, an unknown field or a
 * field the behaviour does not take is an error naming the entry, because a
 * typo in a standing list would otherwise fail silently forever after.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"

enum {
    BF_WEIGHT = 1u << 0,
    BF_TARGET = 1u << 1,
    BF_PANIC_RADIUS = 1u << 2,
    BF_SLOWING_RADIUS = 1u << 3,
    BF_THREAT_RADIUS = 1u << 4,
    BF_DECELERATION = 1u << 5,
    BF_LEADER = 1u << 6,
    BF_OFFSET = 1u << 7,
    BF_A = 1u << 8,
    BF_B = 1u << 9,
    BF_THREAT = 1u << 10,
    BF_PATH = 1u << 11,
    BF_RADIUS = 1u << 12,
    BF_FOV = 1u << 13,
    BF_TAG = 1u << 14,
    BF_SEPARATION = 1u << 15,
    BF_ALIGNMENT = 1u << 16,
    BF_COHESION = 1u << 17,
    BF_SEPARATION_RADIUS = 1u << 18,
    BF_RECT = 1u << 19,
    BF_MODE = 1u << 20,
    BF_PREDICT = 1u << 21,
    BF_DISTANCE = 1u << 22,
    BF_ZONE = 1u << 23,
    BF_TIME = 1u << 24,
    BF_FIELD = 1u << 25,
    BF_REST = 1u << 26,
    BF_BOUT = 1u << 27,
    BF_PACE = 1u << 28,
};

#define BF_QUERY (BF_RADIUS | BF_FOV | BF_TAG)
#define BF_FLOCK (BF_QUERY | BF_SEPARATION | BF_ALIGNMENT | BF_COHESION | BF_SEPARATION_RADIUS)

static const struct { const char *name; unsigned bit; } entry_fields[] = {
    {"weight", BF_WEIGHT},
    {"target", BF_TARGET},
    {"panic_radius", BF_PANIC_RADIUS},
    {"slowing_radius", BF_SLOWING_RADIUS},
    {"threat_radius", BF_THREAT_RADIUS},
    {"deceleration", BF_DECELERATION},
    {"leader", BF_LEADER},
    {"offset", BF_OFFSET},
    {"a", BF_A},
    {"b", BF_B},
    {"threat", BF_THREAT},
    {"path", BF_PATH},
    {"radius", BF_RADIUS},
    {"fov", BF_FOV},
    {"tag", BF_TAG},
    {"separation", BF_SEPARATION},
    {"alignment", BF_ALIGNMENT},
    {"cohesion", BF_COHESION},
    {"separation_radius", BF_SEPARATION_RADIUS},
    {"rect", BF_RECT},
    {"field", BF_FIELD},
    {"mode", BF_MODE},
    {"predict", BF_PREDICT},
    {"distance", BF_DISTANCE},
    {"zone", BF_ZONE},
    {"time", BF_TIME},
    {"rest", BF_REST},
    {"bout", BF_BOUT},
    {"pace", BF_PACE},
};
#define N_ENTRY_FIELDS (sizeof entry_fields / sizeof entry_fields[0])

/* Name, core type, fields it takes, fields it needs; agent_target: its
 * `target` must be an agent (pursue, evade, intercept). */
static const struct {
    const char *name;
    st_behavior_type type;
    unsigned takes, needs;
    bool agent_target;
} kinds[] = {
    {"seek", ST_SEEK, BF_TARGET, BF_TARGET, false},
    {"flee", ST_FLEE, BF_TARGET | BF_PANIC_RADIUS, BF_TARGET, false},
    {"arrive", ST_ARRIVE, BF_TARGET | BF_SLOWING_RADIUS | BF_DECELERATION, BF_TARGET, false},
    {"pursue", ST_PURSUE, BF_TARGET, BF_TARGET, true},
    {"evade", ST_EVADE, BF_TARGET | BF_THREAT_RADIUS, BF_TARGET, true},
    {"intercept", ST_INTERCEPT, BF_TARGET, BF_TARGET, true},
    {"wander", ST_WANDER, 0, 0, false},
    {"separate", ST_SEPARATE, BF_QUERY | BF_SEPARATION_RADIUS, 0, false},
    {"align", ST_ALIGN, BF_QUERY, 0, false},
    {"cohere", ST_COHERE, BF_QUERY, 0, false},
    {"flock", ST_FLOCK, BF_FLOCK, 0, false},
    {"avoid_obstacles", ST_AVOID_OBSTACLES, 0, 0, false},
    {"avoid_walls", ST_AVOID_WALLS, 0, 0, false},
    {"contain", ST_CONTAIN, BF_RECT, 0, false},
    {"follow_path", ST_FOLLOW_PATH, BF_PATH | BF_MODE | BF_PREDICT | BF_OFFSET, BF_PATH, false},
    {"offset_pursue", ST_OFFSET_PURSUE, BF_LEADER | BF_OFFSET, BF_LEADER | BF_OFFSET, false},
    {"interpose", ST_INTERPOSE, BF_A | BF_B, BF_A | BF_B, false},
    {"hide", ST_HIDE, BF_THREAT, BF_THREAT, false},
    {"avoid_agents", ST_AVOID_AGENTS, 0, 0, false},
    {"follow_flow", ST_FOLLOW_FLOW, BF_FIELD, BF_FIELD, false},
    {"face", ST_FACE, BF_TARGET, BF_TARGET, false},
    {"look_where_going", ST_LOOK_WHERE_GOING, 0, 0, false},
    {"match_velocity", ST_MATCH_VELOCITY, BF_TARGET | BF_TIME, BF_TARGET, false},
    {"follow_leader", ST_FOLLOW_LEADER, BF_LEADER | BF_DISTANCE | BF_ZONE, BF_LEADER, false},
    {"queue", ST_QUEUE, BF_DISTANCE | BF_TAG, 0, false},
    {"stop", ST_STOP, 0, 0, false},
    {"graze", ST_GRAZE, BF_REST | BF_BOUT | BF_PACE, 0, false},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

/* ---- argument forms ---- */

/* graze's rest (0..1), bout (> 0) and pace (0..1), at idx, into b */
void sl_graze_field(lua_State *L, int idx, const sl_src *src, const char *key, st_behavior *b)
{
    if (key[0] == 'b') {
        b->ahead = sl_number_min(L, idx, src, 0.0, true);
        return;
    }
    double v = sl_number_min(L, idx, src, 0.0, false);
    if (v > 1.0)
        sl_raise(L, src, "must be in [0, 1]");
    if (key[0] == 'r')
        b->predict = v;
    else
        b->zone = v;
}

st_target sl_target(lua_State *L, int idx, const sl_src *src, sl_world *sw, bool agent_only)
{
    sl_agent *o = sl_toagent(L, idx);
    if (o != NULL) {
        if (o->removed)
            sl_raise(L, src, "attempt to use a removed agent");
        if (o->sw != sw)
            sl_raise(L, src, "agent belongs to another world");
        return st_target_agent(o->id);
    }
    if (agent_only)
        sl_raise_type(L, src, idx, SL_AGENT);
    return st_target_point(sl_point(L, idx, src));
}

st_deceleration sl_deceleration(lua_State *L, int idx, const sl_src *src)
{
    static const char *const names[] = {"slow", "normal", "fast", NULL};
    static const st_deceleration values[] = {ST_DECEL_SLOW, ST_DECEL_NORMAL, ST_DECEL_FAST};
    if (lua_isnoneornil(L, idx))
        return ST_DECEL_LINEAR;
    return values[sl_option(L, idx, src, names)];
}

st_path_mode sl_path_mode(lua_State *L, int idx, const sl_src *src)
{
    static const char *const names[] = {"waypoints", "predict", NULL};
    static const st_path_mode values[] = {ST_PATH_WAYPOINTS, ST_PATH_PREDICT};
    return values[sl_option(L, idx, src, names)];
}

void sl_rect(lua_State *L, int idx, const sl_src *src, double rect[4])
{
    static const char *const keys[4] = {"x", "y", "w", "h"};
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, src, idx, "rectangle {x, y, w, h}");
    idx = lua_absindex(L, idx);
    for (int i = 0; i < 4; i++) {
        if (lua_rawgeti(L, idx, i + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_getfield(L, idx, keys[i]);
        }
        if (lua_type(L, -1) != LUA_TNUMBER)
            sl_raise(L, src, "rectangle {x, y, w, h} expected (%s is %s)", keys[i], luaL_typename(L, -1));
        rect[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!isfinite(rect[i]))
            sl_raise(L, src, "rectangle coordinates must be finite");
    }
    if (!(rect[2] > 0.0 && rect[3] > 0.0))
        sl_raise(L, src, "rectangle width and height must be > 0");
}

void sl_pushrect(lua_State *L, const double rect[4])
{
    lua_createtable(L, 4, 0);
    for (int i = 0; i < 4; i++) {
        lua_pushnumber(L, rect[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* One flock field (bit) whose value is on top into p. Standing lists
 * intern their tag (agents may take it later); one-off calls only look it up. */
static void flock_field(lua_State *L, unsigned bit, const sl_src *src, st_flock_params *p,
                        bool intern, int world_idx, sl_world *sw)
{
    switch (bit) {
    case BF_RADIUS: p->radius = sl_number_min(L, -1, src, 0.0, false); break;
    case BF_FOV: p->fov = sl_number_min(L, -1, src, 0.0, false); break;
    case BF_SEPARATION: p->separation = sl_number(L, -1, src); break;
    case BF_ALIGNMENT: p->alignment = sl_number(L, -1, src); break;
    case BF_COHESION: p->cohesion = sl_number(L, -1, src); break;
    case BF_SEPARATION_RADIUS: p->separation_radius = sl_number_min(L, -1, src, 0.0, false); break;
    case BF_TAG:
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_raise_type(L, src, -1, "string");
        p->tag = intern ? sl_tag_intern(L, world_idx, sw, lua_tostring(L, -1))
                        : sl_tag_lookup_at(L, world_idx, -1);
        break;
    default: break;
    }
}

static unsigned field_bit(const char *name)
{
    for (size_t i = 0; i < N_ENTRY_FIELDS; i++)
        if (strcmp(entry_fields[i].name, name) == 0)
            return entry_fields[i].bit;
    return 0;
}

/* Registry key of the table name -> field bit, built on first need: a
 * brain's a:flock(opts) runs every step, and one rawget of an interned
 * string beats comparing each key against every field name. */
static const char key_field_bits;

/* Pushes the name -> bit table. */
static void push_field_bits(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &key_field_bits) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_createtable(L, 0, (int)N_ENTRY_FIELDS);
    for (size_t i = 0; i < N_ENTRY_FIELDS; i++) {
        lua_pushinteger(L, entry_fields[i].bit);
        lua_setfield(L, -2, entry_fields[i].name);
    }
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &key_field_bits);
}

st_flock_params sl_flock_params(lua_State *L, int idx, int world_idx, sl_world *sw,
                                const sl_src *src, double *weight)
{
    st_flock_params p = st_default_flock_params();
    if (lua_isnoneornil(L, idx))
        return p;
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, src, idx, "table");
    idx = lua_absindex(L, idx);
    world_idx = lua_absindex(L, world_idx);
    push_field_bits(L);
    int bits = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        unsigned bit = 0;
        if (k != NULL) {
            lua_pushvalue(L, -2);
            bit = lua_rawget(L, bits) == LUA_TNUMBER ? (unsigned)lua_tointeger(L, -1) : 0;
            lua_pop(L, 1);
        }
        sl_src fs = *src;
        fs.field = k;
        if (bit == BF_WEIGHT) {
            *weight = sl_number(L, -1, &fs);
        } else if (bit & BF_FLOCK) {
            flock_field(L, bit, &fs, &p, false, world_idx, sw);
        } else {
            fs.field = NULL;
            sl_raise(L, &fs, "unknown flock option '%s'", luaL_tolstring(L, -2, NULL));
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return p;
}

/* ---- behaviour lists ---- */

/* What parsing one entry needs to hand around. */
typedef struct entry_ctx {
    const sl_src *src;  /* the list's context ("behaviors[2]") */
    const char *name;   /* the behaviour's name */
    size_t kind;        /* its row in kinds */
    int world_idx;      /* the world, for agents and tags */
    sl_world *sw;
} entry_ctx;

/* The name of the entry at e: the entry itself ("wander" is short for
 * {"wander"}) or its first element, anchored in the entry. */
static const char *entry_name(lua_State *L, int e, const sl_src *src)
{
    if (lua_type(L, e) == LUA_TSTRING)
        return lua_tostring(L, e);
    if (lua_type(L, e) != LUA_TTABLE)
        sl_raise_type(L, src, e, "behaviour entry {name, ...}");
    if (lua_rawgeti(L, e, 1) != LUA_TSTRING)
        sl_raise(L, src, "behaviour name expected as the first element, got %s", luaL_typename(L, -1));
    const char *name = lua_tostring(L, -1);
    lua_pop(L, 1);
    return name;
}

/* The row of kinds named name. */
static size_t entry_kind(lua_State *L, const char *name, const sl_src *src)
{
    size_t k = 0;
    while (k < N_KINDS && strcmp(kinds[k].name, name) != 0)
        k++;
    if (k == N_KINDS)
        sl_raise(L, src, "unknown behaviour '%s'", name);
    return k;
}

/* Rejects the first key of the entry table at e that is not a field the
 * behaviour takes, before any value is read, so that the message names the
 * real mistake. */
static void check_entry_keys(lua_State *L, int e, const entry_ctx *c, unsigned takes)
{
    lua_pushnil(L);
    while (lua_next(L, e)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TNUMBER && lua_tointeger(L, -1) == 1)
            continue;
        if (lua_type(L, -1) != LUA_TSTRING)
            sl_raise(L, c->src, "unexpected key %s in '%s'", luaL_tolstring(L, -1, NULL), c->name);
        const char *f = lua_tostring(L, -1);
        unsigned bit = field_bit(f);
        if (bit == 0)
            sl_raise(L, c->src, "unknown field '%s' in '%s'", f, c->name);
        if (!(bit & takes))
            sl_raise(L, c->src, "'%s' takes no field '%s'", c->name, f);
    }
}

/* The field (bit) on top, from fs, into b. Leaves on top what the entry's
 * copy holds: the value, or for a rectangle its checked {x, y, w, h}. */
static void entry_field(lua_State *L, const entry_ctx *c, unsigned bit, const sl_src *fs, st_behavior *b)
{
    switch (bit) {
    case BF_WEIGHT: b->weight = sl_number(L, -1, fs); break;
    case BF_TARGET: b->target = sl_target(L, -1, fs, c->sw, kinds[c->kind].agent_target); break;
    case BF_LEADER:
    case BF_A:
    case BF_THREAT: b->target = sl_target(L, -1, fs, c->sw, true); break;
    case BF_B: b->target2 = sl_target(L, -1, fs, c->sw, true); break;
    case BF_PANIC_RADIUS:
    case BF_SLOWING_RADIUS:
    case BF_THREAT_RADIUS: b->radius = sl_number_min(L, -1, fs, 0.0, false); break;
    case BF_DECELERATION: b->decel = sl_deceleration(L, -1, fs); break;
    case BF_OFFSET:
        if (kinds[c->kind].type == ST_FOLLOW_PATH) /* follow_path: a distance along the path */
            b->ahead = sl_number_min(L, -1, fs, 0.0, false);
        else
            b->offset = sl_point(L, -1, fs);
        break;
    case BF_MODE: b->path_mode = sl_path_mode(L, -1, fs); break;
    case BF_PREDICT:
    case BF_TIME: b->predict = sl_number_min(L, -1, fs, 0.0, false); break;
    case BF_DISTANCE: b->ahead = sl_number_min(L, -1, fs, 0.0, false); break;
    case BF_ZONE: b->zone = sl_number_min(L, -1, fs, 0.0, false); break;
    case BF_REST:
    case BF_BOUT:
    case BF_PACE: sl_graze_field(L, -1, fs, bit == BF_REST ? "rest" : bit == BF_BOUT ? "bout" : "pace", b); break;
    case BF_PATH: {
        sl_path *p = sl_topath(L, -1);
        if (p == NULL)
            sl_raise_type(L, fs, -1, SL_PATH);
        b->path = p->p;
        break;
    }
    case BF_FIELD:
        if ((b->field = sl_toflowfield(L, -1)) == NULL)
            sl_raise_type(L, fs, -1, "steer.flowfield");
        break;
    case BF_RECT:
        sl_rect(L, -1, fs, b->rect);
        lua_pop(L, 1);
        sl_pushrect(L, b->rect);
        break;
    default: flock_field(L, bit, fs, &b->flock, true, c->world_idx, c->sw); break;
    }
}

/* Reads each field of the entry table at e that the behaviour takes into
 * b and the copy at out; returns the bits of the fields present. */
static unsigned read_entry_fields(lua_State *L, int e, int out, const entry_ctx *c, unsigned takes, st_behavior *b)
{
    unsigned have = 0;
    for (size_t i = 0; i < N_ENTRY_FIELDS; i++) {
        unsigned bit = entry_fields[i].bit;
        const char *f = entry_fields[i].name;
        if (!(bit & takes) || !sl_getfield(L, e, f))
            continue;
        have |= bit;
        sl_src fs = *c->src;
        fs.field = f;
        entry_field(L, c, bit, &fs, b);
        /* the copy holds vec2s for points, so it reads back as values */
        if (bit != BF_RECT && lua_type(L, -1) == LUA_TTABLE) {
            st_vec2 v = sl_point(L, -1, &fs);
            lua_pop(L, 1);
            steer_lua_pushvec2(L, v);
        }
        lua_setfield(L, out, f);
    }
    return have;
}

/* Parses the entry on top into *b, leaving its normalised copy on top
 * instead. src carries the list's context ("behaviors[2]"). */
static void parse_entry(lua_State *L, int world_idx, sl_world *sw, sl_src *src, st_behavior *b)
{
    int e = lua_gettop(L);
    entry_ctx c = {src, NULL, 0, world_idx, sw};
    c.name = entry_name(L, e, src);
    c.kind = entry_kind(L, c.name, src);
    unsigned takes = kinds[c.kind].takes | BF_WEIGHT;
    *b = st_default_behavior(kinds[c.kind].type);

    lua_createtable(L, 1, 4); /* e + 1: the copy */
    lua_pushstring(L, c.name);
    lua_rawseti(L, e + 1, 1);
    unsigned have = 0;
    if (lua_type(L, e) == LUA_TTABLE) {
        check_entry_keys(L, e, &c, takes);
        have = read_entry_fields(L, e, e + 1, &c, takes, b);
    }
    unsigned missing = kinds[c.kind].needs & ~have;
    for (size_t i = 0; missing != 0 && i < N_ENTRY_FIELDS; i++)
        if (missing & entry_fields[i].bit)
            sl_raise(L, src, "'%s' needs field '%s'", c.name, entry_fields[i].name);
    lua_replace(L, e);
}

int sl_behaviors_parse(lua_State *L, int idx, int world_idx, sl_world *sw,
                       const sl_src *src, st_behavior **out)
{
    idx = lua_absindex(L, idx);
    world_idx = lua_absindex(L, world_idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, src, idx, "table");
    lua_Integer n = luaL_len(L, idx);
    if (n < 0 || n > 100000)
        sl_raise(L, src, "too many behaviours");
    /* userdata storage: collected if a later entry raises */
    st_behavior *list = (st_behavior *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *list, 0);
    lua_createtable(L, (int)n, 0);
    int copy = lua_gettop(L);
    char ctx[48];
    for (lua_Integer i = 1; i <= n; i++) {
        snprintf(ctx, sizeof ctx, "behaviors[%lld]", (long long)i);
        sl_src es = *src;
        es.field = NULL;
        es.ctx = ctx;
        lua_geti(L, idx, i);
        parse_entry(L, world_idx, sw, &es, &list[i - 1]);
        lua_rawseti(L, copy, i);
    }
    *out = list;
    return (int)n;
}
