/*
 * snapshot.c — steer.snapshot: world:snapshot(), world:restore(snap),
 * snap:save(path), steer.load_snapshot(path).
 *
 * A snapshot userdata owns one st_snapshot (the core's copy of the world)
 * and carries the Lua side as bytes in the snapshot's user data: the
 * interned tag names, the brains' module names, and for every live agent
 * with Lua state its brain, paused flag, `self` (or what brain.save made
 * of it), its normalised standing-behaviour list and last followed path;
 * then world.user and the scene's own value. Those bytes are written by a
 * small serialiser of Lua values (nil, booleans, integers, floats,
 * strings, tables with shared and cyclic references, vec2, agents as
 * handles, paths as indices into the core snapshot's path table) and read
 * back on every restore, so a snapshot can be restored any number of
 * times and no table is shared between the snapshot and the live world.
 *
 * Identity: the snapshot keeps the userdata of every agent it captured
 * (uservalue SV_AGENTS, by rank in spawn order) and of every path it names
 * (SV_PATHS, by index), so a script's references stay the same objects:
 * after a restore, an agent held by a script is live again if the snapshot
 * holds it, and reads as removed otherwise. A snapshot loaded from a file
 * makes its agents' userdata at the first restore (reusing those the
 * world holds with the same id and serial) and its paths at load.
 *
 * Objects of their own: flow fields (in follow_flow entries), navgrids and
 * formations are not values but shared objects a snapshot cannot copy. The
 * serialiser writes each as an index into SV_OBJECTS, which holds the
 * userdata: a flow field a standing list points at lives as long as the
 * snapshot, and a restore hands back the same objects. A formation of the
 * world is also copied (SV_SAVED) and put back at restore (members, slots,
 * pattern, leader): it decides the members' next forces. A navgrid is not:
 * it re-reads the restored obstacles at its next query. SV_WHERE names where each was first met, for the error of
 * snap:save / snap:encode: a file cannot hold them.
 *
 * The app's scene runner passes the scene's state through:
 *     snap = world:snapshot(scene.save and scene.save())
 *     local data = world:restore(snap)
 *     if scene.restore then scene.restore(data) end
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "slots.h"

/* Decimal text of v, for messages: Lua 5.1's lua_pushfstring has no %I. */
typedef struct { char s[24]; } numtext;
static numtext num_text(uint64_t v)
{
    numtext t;
    snprintf(t.s, sizeof t.s, "%llu", (unsigned long long)v);
    return t;
}

#define SL_SNAPSHOT "steer.snapshot"
static const char sl_key_snapshot = 0;

/* Snapshot uservalues. */
enum {
    SV_PATHS = 1, /* core path index + 1 -> steer.path userdata */
    SV_AGENTS,    /* rank in spawn order (1-based) -> agent userdata */
    SV_BRAINS,    /* brain index (1-based) -> module table (captured here; loaded: by name at restore) */
    SV_OBJECTS,   /* object index (1-based) -> flowfield / navgrid / formation userdata, and back */
    SV_WHERE,     /* object index (1-based) -> where it was first met ("world.user.nav: a steer.navgrid") */
    SV_SAVED,     /* object index (1-based) -> a formation's copy at capture */
    SV_COUNT = SV_SAVED
};

typedef struct sl_snap {
    st_snapshot *s;
    bool loaded;  /* from bytes: agents and brains are found at restore */
    int unnamed;  /* brains with no name in package.loaded: no file */
} sl_snap;

#define BLOB_MAGIC "SLS1"
#define MAX_DEPTH 200

/* Value tags of the serialiser. */
enum {
    V_NIL = 'n', V_FALSE = 'f', V_TRUE = 't', V_INT = 'i', V_NUM = 'd', V_STR = 's', V_TABLE = 'T',
    V_REF = 'R', V_END = 'E', V_VEC2 = 'v', V_AGENT = 'a', V_PATH = 'p', V_OBJECT = 'o'
};

/* Record flags. */
enum { R_PAUSED = 1, R_SELF = 2, R_SAVED = 4, R_BEHAVIORS = 8, R_PATH = 16, R_BRAIN = 32 };

/* ------------------------------------------------------------------------ */
/* the byte buffer: a userdata in a fixed stack slot (freed by the GC even  */
/* when an error unwinds the encoder)                                       */
/* ------------------------------------------------------------------------ */

typedef struct enc {
    lua_State *L;
    int buf_idx;      /* the buffer userdata */
    unsigned char *p;
    size_t len, cap;
    int seen_idx;     /* table -> id */
    int next_id;
    sl_world *sw;
    int world_idx;
    st_snapshot *s;
    int paths_idx;    /* SV_PATHS table */
    const char *prefix; /* "agent 12 self", "world.user" */
    int snap_idx;     /* the snapshot userdata (SV_OBJECTS, SV_WHERE) */
    int nobjects;
    uint64_t beh_serial; /* encoding this agent's behaviours list; 0: none */
    int keys[MAX_DEPTH + 1]; /* stack indices of the keys on the way down */
    int depth;
} enc;

static void e_room(enc *e, size_t n)
{
    if (e->len + n <= e->cap)
        return;
    size_t cap = e->cap ? e->cap : 1024;
    while (cap < e->len + n)
        cap *= 2;
    unsigned char *q = (unsigned char *)lua_newuserdatauv(e->L, cap, 0);
    if (e->len)
        memcpy(q, e->p, e->len);
    lua_replace(e->L, e->buf_idx);
    e->p = q;
    e->cap = cap;
}

static void e_bytes(enc *e, const void *src, size_t n)
{
    e_room(e, n);
    memcpy(e->p + e->len, src, n);
    e->len += n;
}
static void e_u8(enc *e, uint8_t v) { e_bytes(e, &v, 1); }
static void e_u32(enc *e, uint32_t v) { e_bytes(e, &v, 4); }
static void e_i64(enc *e, int64_t v) { e_bytes(e, &v, 8); }
static void e_f64(enc *e, double v) { e_bytes(e, &v, 8); }
static void e_str(enc *e, const char *s, size_t n)
{
    e_u32(e, (uint32_t)n);
    e_bytes(e, s, n);
}

/* Pushes "<lead><prefix><key path><tail>". */
static void e_pushwhere(enc *e, const char *lead, const char *tail)
{
    lua_State *L = e->L;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, lead);
    luaL_addstring(&b, e->prefix);
    for (int d = 0; d < e->depth; d++) {
        int k = e->keys[d];
        if (lua_type(L, k) == LUA_TSTRING) {
            luaL_addchar(&b, '.');
            luaL_addstring(&b, lua_tostring(L, k));
        } else if (lua_isinteger(L, k)) {
            char n[32];
            snprintf(n, sizeof n, "[%lld]", (long long)lua_tointeger(L, k));
            luaL_addstring(&b, n);
        } else if (lua_type(L, k) == LUA_TNUMBER) {
            char n[48];
            snprintf(n, sizeof n, "[%.14g]", lua_tonumber(L, k));
            luaL_addstring(&b, n);
        } else {
            luaL_addstring(&b, "[<");
            luaL_addstring(&b, luaL_typename(L, k));
            luaL_addstring(&b, " key>]");
        }
    }
    luaL_addstring(&b, tail);
    luaL_pushresult(&b);
}

/* Raises "snapshot: <prefix><key path>: cannot snapshot <what>". */
static int e_fail(enc *e, const char *what)
{
    lua_State *L = e->L;
    e_pushwhere(e, "snapshot: ", ": cannot snapshot ");
    lua_pushstring(L, what);
    lua_concat(L, 2);
    return lua_error(L);
}

/* Flow fields, navgrids and formations: written as an index into
 * SV_OBJECTS (the same index for every reference to one object). False
 * when the value at idx is none of them. */
static bool e_object(enc *e, int idx)
{
    lua_State *L = e->L;
    const char *what;
    bool field = false;
    if (sl_toflowfield(L, idx) != NULL) {
        what = ": a steer.flowfield";
        field = true;
    } else if (sl_isnavgrid(L, idx)) {
        what = ": a steer.navgrid";
    } else if (sl_isformation(L, idx)) {
        what = ": a steer.formation";
    } else {
        return false;
    }
    luaL_checkstack(L, 6, "snapshot: tables nested too deep");
    lua_getiuservalue(L, e->snap_idx, SV_OBJECTS);
    int objs = lua_gettop(L);
    lua_pushvalue(L, idx);
    lua_Integer k;
    if (lua_rawget(L, objs) == LUA_TNUMBER) {
        k = lua_tointeger(L, -1);
    } else {
        k = ++e->nobjects;
        lua_pushvalue(L, idx);
        lua_rawseti(L, objs, k);
        lua_pushvalue(L, idx);
        lua_pushinteger(L, k);
        lua_rawset(L, objs);
        if (sl_isformation(L, idx)) {
            lua_getiuservalue(L, e->snap_idx, SV_SAVED);
            sl_formation_save(L, idx);
            lua_rawseti(L, -2, k);
            lua_pop(L, 1);
        }
        lua_getiuservalue(L, e->snap_idx, SV_WHERE);
        if (field && e->beh_serial != 0)
            lua_pushfstring(L, "agent %s: a follow_flow field", num_text(e->beh_serial).s);
        else
            e_pushwhere(e, "", what);
        lua_rawseti(L, -2, k);
    }
    lua_settop(L, objs - 1);
    e_u8(e, V_OBJECT);
    e_u32(e, (uint32_t)(k - 1));
    return true;
}

static void e_value(enc *e, int idx);

static void e_table(enc *e, int idx)
{
    lua_State *L = e->L;
    lua_pushvalue(L, idx);
    if (lua_rawget(L, e->seen_idx) == LUA_TNUMBER) {
        e_u8(e, V_REF);
        e_u32(e, (uint32_t)lua_tointeger(L, -1));
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        e_fail(e, "a table with a metatable");
    }
    if (e->depth >= MAX_DEPTH)
        e_fail(e, "tables nested this deep");
    luaL_checkstack(L, 8, "snapshot: tables nested too deep");
    lua_pushvalue(L, idx);
    lua_pushinteger(L, ++e->next_id);
    lua_rawset(L, e->seen_idx);
    e_u8(e, V_TABLE);
    /* the array part first, in order, then the rest as lua_next gives it:
     * restored tables are rebuilt in that order */
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    e_i64(e, n);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_pushinteger(L, i);
        e->keys[e->depth++] = lua_gettop(L);
        lua_rawgeti(L, idx, i);
        e_value(e, lua_gettop(L));
        lua_pop(L, 2);
        e->depth--;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int k = lua_gettop(L) - 1;
        if (lua_isinteger(L, k) && lua_tointeger(L, k) >= 1 && lua_tointeger(L, k) <= n) {
            lua_pop(L, 1);
            continue;
        }
        e->keys[e->depth++] = k;
        e_u8(e, 'k');
        /* a key's own problems are named by the path to its table */
        e->depth--;
        e_value(e, k);
        e->depth++;
        e_value(e, k + 1);
        e->depth--;
        lua_pop(L, 1);
    }
    e_u8(e, V_END);
}

/* A userdata: vec2 and agents by value, paths by index into the core
 * snapshot's path table, flow fields, navgrids and formations as objects;
 * any other raises, named by its type. */
static void e_userdata(enc *e, int idx)
{
    lua_State *L = e->L;
    st_vec2 *v = sl_tovec2(L, idx);
    if (v != NULL) {
        e_u8(e, V_VEC2);
        e_f64(e, v->x);
        e_f64(e, v->y);
        return;
    }
    sl_agent *a = sl_toagent(L, idx);
    if (a != NULL) {
        if (a->sw != e->sw)
            e_fail(e, "an agent of another world");
        e_u8(e, V_AGENT);
        e_u32(e, a->id.index);
        e_u32(e, a->id.generation);
        e_i64(e, (int64_t)a->serial);
        return;
    }
    sl_path *p = sl_topath(L, idx);
    if (p != NULL && p->p != NULL) {
        int k = st_snapshot_add_path(e->s, p->p);
        if (k < 0)
            luaL_error(L, "not enough memory");
        lua_pushvalue(L, idx);
        lua_rawseti(L, e->paths_idx, k + 1);
        e_u8(e, V_PATH);
        e_u32(e, (uint32_t)k);
        return;
    }
    if (e_object(e, idx))
        return;
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
        const char *name = lua_tostring(L, -1);
        char what[96];
        snprintf(what, sizeof what, "a %s", name);
        e_fail(e, what); /* the string stays on the stack: it is only read */
    }
    e_fail(e, "a userdata");
}

static void e_value(enc *e, int idx)
{
    lua_State *L = e->L;
    switch (lua_type(L, idx)) {
    case LUA_TNIL: e_u8(e, V_NIL); return;
    case LUA_TBOOLEAN: e_u8(e, lua_toboolean(L, idx) ? V_TRUE : V_FALSE); return;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            e_u8(e, V_INT);
            e_i64(e, (int64_t)lua_tointeger(L, idx));
        } else {
            e_u8(e, V_NUM);
            e_f64(e, lua_tonumber(L, idx));
        }
        return;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        e_u8(e, V_STR);
        e_str(e, s, n);
        return;
    }
    case LUA_TTABLE: e_table(e, idx); return;
    case LUA_TFUNCTION: e_fail(e, "a function"); return;
    case LUA_TTHREAD: e_fail(e, "a coroutine"); return;
    case LUA_TLIGHTUSERDATA: e_fail(e, "a light userdata"); return;
    case LUA_TUSERDATA: e_userdata(e, idx); return;
#ifdef STEER_LUA_JIT
    case SL_LUA_TCDATA: /* the FFI backend's vec2 saves as a steer.vec2 */
        if (sl_tovec2(L, idx) != NULL) {
            e_userdata(e, idx);
            return;
        }
        e_fail(e, "this value");
        return;
#endif
    default: e_fail(e, "this value"); return;
    }
}

/* ------------------------------------------------------------------------ */
/* decoding                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct dec {
    lua_State *L;
    const unsigned char *p, *end;
    int tables_idx;   /* id -> table */
    int next_id;
    int world_idx;    /* 0: validate only (agents decode as false) */
    int paths_idx;    /* SV_PATHS */
    int ghosts_idx;   /* serial -> removed agent userdata made for a reference */
    int npaths;
    int objects_idx;  /* SV_OBJECTS */
    int nobjects;     /* 0 for a snapshot from a file: a file holds none */
    int depth;
} dec;

static int d_bad(dec *d, const char *what)
{
    return luaL_error(d->L, "snapshot: corrupt Lua state (%s)", what);
}

static void d_take(dec *d, void *dst, size_t n)
{
    if ((size_t)(d->end - d->p) < n)
        d_bad(d, "ends early");
    memcpy(dst, d->p, n);
    d->p += n;
}
/* Typed readers over d_take, as e_u8... are writers over e_bytes. */
static uint8_t d_u8(dec *d) { uint8_t v; d_take(d, &v, 1); return v; }
static uint32_t d_u32(dec *d) { uint32_t v; d_take(d, &v, 4); return v; }
static int64_t d_i64(dec *d) { int64_t v; d_take(d, &v, 8); return v; }
static double d_f64(dec *d) { double v; d_take(d, &v, 8); return v; }
static void d_pushstr(dec *d)
{
    uint32_t n = d_u32(d);
    if ((size_t)(d->end - d->p) < n)
        d_bad(d, "a string runs past the end");
    lua_pushlstring(d->L, (const char *)d->p, n);
    d->p += n;
}

/* A new agent userdata for id, removed unless live says otherwise. */
static sl_agent *new_agent_ud(lua_State *L, int world_idx, st_agent_id id, uint64_t serial, bool live)
{
    sl_world *sw = (sl_world *)lua_touserdata(L, world_idx);
    sl_agent *a = (sl_agent *)lua_newuserdatauv(L, sizeof *a, SL_AUV_COUNT);
    sl_agent_init(a, sw, id, serial, !live, false);
    sl_setmetatable(L, &sl_key_agent);
    lua_pushvalue(L, world_idx);
    lua_setiuservalue(L, -2, SL_AUV_WORLD);
    return a;
}

static void d_value(dec *d);

static void d_table(dec *d)
{
    lua_State *L = d->L;
    if (++d->depth > MAX_DEPTH)
        d_bad(d, "nested too deep");
    luaL_checkstack(L, 8, "snapshot: tables nested too deep");
    int64_t n = d_i64(d);
    if (n < 0 || n > (int64_t)(d->end - d->p))
        d_bad(d, "an array length is out of range");
    lua_createtable(L, (int)n, 0);
    lua_pushvalue(L, -1);
    lua_rawseti(L, d->tables_idx, ++d->next_id);
    int t = lua_gettop(L);
    for (int64_t i = 1; i <= n; i++) {
        d_value(d);
        lua_rawseti(L, t, (lua_Integer)i);
    }
    for (;;) {
        uint8_t c = d_u8(d);
        if (c == V_END)
            break;
        if (c != 'k')
            d_bad(d, "a table entry is malformed");
        d_value(d);
        if (lua_isnil(L, -1) || (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1)))
            d_bad(d, "a table key is nil or NaN");
        d_value(d);
        lua_rawset(L, t);
    }
    d->depth--;
}

/* Paths and objects: an index k into the table at t (count entries);
 * pushes entry k + 1. */
static void d_index(dec *d, int t, int count, const char *what)
{
    uint32_t k = d_u32(d);
    if ((int64_t)k >= count)
        d_bad(d, what);
    lua_rawgeti(d->L, t, (lua_Integer)k + 1);
}

/* An agent handle: the world's live agent with that id and serial, or one
 * removed userdata per serial for an agent dead at capture (or gone since);
 * false when only checking (no world). */
static void d_agent(dec *d)
{
    lua_State *L = d->L;
    st_agent_id id;
    id.index = d_u32(d);
    id.generation = d_u32(d);
    uint64_t serial = (uint64_t)d_i64(d);
    if (d->world_idx == 0) {
        lua_pushboolean(L, 0);
        return;
    }
    sl_world *sw = (sl_world *)lua_touserdata(L, d->world_idx);
    if (st_agent_alive(sw->w, id) && st_agent_serial(sw->w, id) == serial) {
        sl_pushagent(L, d->world_idx, id);
        if (!lua_isnil(L, -1))
            return;
        lua_pop(L, 1);
    }
    lua_pushinteger(L, (lua_Integer)serial);
    if (lua_rawget(L, d->ghosts_idx) == LUA_TUSERDATA)
        return;
    lua_pop(L, 1);
    new_agent_ud(L, d->world_idx, id, serial, false);
    lua_pushinteger(L, (lua_Integer)serial);
    lua_pushvalue(L, -2);
    lua_rawset(L, d->ghosts_idx);
}

static void d_value(dec *d)
{
    lua_State *L = d->L;
    luaL_checkstack(L, 4, "snapshot: tables nested too deep");
    uint8_t c = d_u8(d);
    switch (c) {
    case V_NIL: lua_pushnil(L); return;
    case V_FALSE: lua_pushboolean(L, 0); return;
    case V_TRUE: lua_pushboolean(L, 1); return;
    case V_INT: lua_pushinteger(L, (lua_Integer)d_i64(d)); return;
    case V_NUM: lua_pushnumber(L, d_f64(d)); return;
    case V_STR: d_pushstr(d); return;
    case V_TABLE: d_table(d); return;
    case V_REF: {
        uint32_t id = d_u32(d);
        if (id < 1 || (int)id > d->next_id)
            d_bad(d, "a table reference is out of range");
        lua_rawgeti(L, d->tables_idx, (lua_Integer)id);
        return;
    }
    case V_VEC2: {
        double x = d_f64(d), y = d_f64(d);
        steer_lua_pushvec2(L, st_v2(x, y));
        return;
    }
    case V_PATH: d_index(d, d->paths_idx, d->npaths, "a path index is out of range"); return;
    case V_OBJECT: d_index(d, d->objects_idx, d->nobjects, "an object index is out of range"); return;
    case V_AGENT: d_agent(d); return;
    default: d_bad(d, "unknown value tag");
    }
}

/* ------------------------------------------------------------------------ */
/* the userdata                                                             */
/* ------------------------------------------------------------------------ */

static sl_snap *checksnap(lua_State *L, int arg)
{
    sl_snap *sn = (sl_snap *)sl_checkudata(L, arg, &sl_key_snapshot, SL_SNAPSHOT);
    if (sn->s == NULL)
        luaL_error(L, "attempt to use a released snapshot");
    return sn;
}

static sl_snap *new_snap(lua_State *L)
{
    sl_snap *sn = (sl_snap *)lua_newuserdatauv(L, sizeof *sn, SV_COUNT);
    sn->s = NULL;
    sn->loaded = false;
    sn->unnamed = 0;
    sl_setmetatable(L, &sl_key_snapshot);
    for (int uv = 1; uv <= SV_COUNT; uv++) {
        lua_newtable(L);
        lua_setiuservalue(L, -2, uv);
    }
    return sn;
}

static int snap_gc(lua_State *L)
{
    sl_snap *sn = (sl_snap *)sl_checkudata(L, 1, &sl_key_snapshot, SL_SNAPSHOT);
    st_snapshot_destroy(sn->s);
    sn->s = NULL;
    return 0;
}

/* Calls brain[name](self [, data]) protected; raises with the agent named. */
static void call_brain_fn(lua_State *L, int fn_idx, int nargs, int nres, uint64_t serial, const char *name)
{
    lua_pushvalue(L, fn_idx);
    lua_insert(L, -1 - nargs);
    if (steer_lua_pcall(L, nargs, nres) != LUA_OK)
        luaL_error(L, "snapshot: agent %s brain.%s: %s", num_text(serial).s, name, lua_tostring(L, -1));
}

/* Pushes the name under which package.loaded (at loaded_idx) holds the
 * table at mod: "name", or "name:field" for a field of a loaded module
 * table. Returns false (nothing pushed) when there is none. */
static bool find_module_name(lua_State *L, int loaded_idx, int mod)
{
    lua_pushnil(L);
    while (lua_next(L, loaded_idx)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, mod)) {
            lua_pop(L, 1);
            return true;
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, loaded_idx)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
            int t = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, t)) {
                if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, mod)) {
                    lua_pop(L, 1);
                    lua_pushfstring(L, "%s:%s", lua_tostring(L, t - 1), lua_tostring(L, -1));
                    lua_replace(L, t - 1);
                    lua_settop(L, t - 1);
                    return true;
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    return false;
}

/* world:snapshot's stack: fixed slots, named by the steps below. */
enum {
    WS_WORLD = 1,    /* the world */
    WS_SCENE,        /* the scene's value */
    WS_SNAP,         /* the new snapshot */
    WS_PATHS,        /* its SV_PATHS */
    WS_AGENTS,       /* its SV_AGENTS */
    WS_BRAINS,       /* its SV_BRAINS */
    WS_BUF,          /* the encoder's buffer */
    WS_SEEN,         /* the encoder's table -> id */
    WS_BRAIN_IDS,    /* brain module -> its index in WS_BRAINS */
    WS_LOADED,       /* package.loaded, or nil */
    WS_WORLD_AGENTS  /* the world's SL_WUV_AGENTS (pushed by encode_agents) */
};

/* Pushes the slots WS_PATHS to WS_LOADED and sets e up to write the Lua
 * state of the snapshot sn of world sw, starting with the mark. */
static void snapshot_begin(lua_State *L, enc *e, sl_world *sw, sl_snap *sn)
{
    lua_getiuservalue(L, WS_SNAP, SV_PATHS);
    lua_getiuservalue(L, WS_SNAP, SV_AGENTS);
    lua_getiuservalue(L, WS_SNAP, SV_BRAINS);
    lua_pushnil(L);  /* WS_BUF */
    lua_newtable(L); /* WS_SEEN */
    lua_newtable(L); /* WS_BRAIN_IDS */
    sl_push_package(L);
    if (lua_type(L, -1) == LUA_TTABLE)
        lua_getfield(L, -1, "loaded");
    else
        lua_pushnil(L);
    lua_remove(L, -2); /* WS_LOADED */

    memset(e, 0, sizeof *e);
    e->L = L;
    e->buf_idx = WS_BUF;
    e->seen_idx = WS_SEEN;
    e->sw = sw;
    e->world_idx = WS_WORLD;
    e->s = sn->s;
    e->paths_idx = WS_PATHS;
    e->snap_idx = WS_SNAP;
    e->prefix = "";
    e_bytes(e, BLOB_MAGIC, 4);
}

/* The tag names, by id. */
static void encode_tags(lua_State *L, enc *e, const sl_world *sw)
{
    lua_getiuservalue(L, WS_WORLD, SL_WUV_TAGS);
    e_u32(e, (uint32_t)sw->ntags);
    for (int32_t t = 1; t <= sw->ntags; t++) {
        size_t n = 0;
        lua_rawgeti(L, -1, t);
        const char *s = lua_tolstring(L, -1, &n);
        e_str(e, s ? s : "", s ? n : 0);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* The brain module at idx: its index in WS_BRAINS, added on first sight. */
static int32_t brain_index(lua_State *L, int idx)
{
    int32_t brain;
    lua_pushvalue(L, idx);
    if (lua_rawget(L, WS_BRAIN_IDS) == LUA_TNUMBER) {
        brain = (int32_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
        return brain;
    }
    lua_pop(L, 1);
    brain = (int32_t)lua_rawlen(L, WS_BRAINS) + 1;
    lua_pushvalue(L, idx);
    lua_rawseti(L, WS_BRAINS, brain);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, brain);
    lua_rawset(L, WS_BRAIN_IDS);
    return brain;
}

/* Replaces the self at self_idx with brain.save(self) when the brain at
 * brain_idx has a save (raw: a brain is a plain table); returns whether it
 * did. */
static bool save_self(lua_State *L, int self_idx, int brain_idx, uint64_t serial)
{
    lua_pushliteral(L, "save");
    if (lua_rawget(L, brain_idx) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushvalue(L, self_idx);
    call_brain_fn(L, lua_gettop(L) - 1, 1, 1, serial, "save");
    lua_replace(L, self_idx);
    return true;
}

/* A record's values by its flags: self (ai + 1), the behaviours list
 * (ai + 3) and the path (ai + 4), each named by the agent in messages. */
static void encode_record_values(enc *e, const sl_agent *a, int ai, int flags)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "agent %llu self", (unsigned long long)a->serial);
    e->prefix = prefix;
    if (flags & R_SELF) {
        if ((flags & R_SAVED) && lua_type(e->L, ai + 1) != LUA_TTABLE)
            strcat(prefix, " (brain.save result)");
        e_value(e, ai + 1);
    }
    snprintf(prefix, sizeof prefix, "agent %llu behaviors", (unsigned long long)a->serial);
    e->beh_serial = a->serial;
    if (flags & R_BEHAVIORS)
        e_value(e, ai + 3);
    e->beh_serial = 0;
    snprintf(prefix, sizeof prefix, "agent %llu path", (unsigned long long)a->serial);
    if (flags & R_PATH)
        e_value(e, ai + 4);
    e->prefix = "";
}

/* The agent userdata at ai, live and of rank `rank` in spawn order: kept
 * in WS_AGENTS by rank, and when it has Lua state (a brain, self,
 * behaviours list, path, or a pause) its record is written. Returns
 * whether it was. */
static bool encode_record(lua_State *L, enc *e, sl_agent *a, int ai, int rank)
{
    lua_pushvalue(L, ai);
    lua_rawseti(L, WS_AGENTS, rank);
    int has_self = lua_getiuservalue(L, ai, SL_AUV_SELF) == LUA_TTABLE;     /* ai+1 */
    int has_brain = lua_getiuservalue(L, ai, SL_AUV_BRAIN) == LUA_TTABLE;   /* ai+2 */
    int has_beh = lua_getiuservalue(L, ai, SL_AUV_BEHAVIORS) == LUA_TTABLE; /* ai+3 */
    int has_path = lua_getiuservalue(L, ai, SL_AUV_PATH) != LUA_TNIL;       /* ai+4 */
    if (!has_self && !has_brain && !has_beh && !has_path && !a->paused)
        return false;
    uint8_t flags = (uint8_t)((a->paused ? R_PAUSED : 0) | (has_self ? R_SELF : 0) | (has_beh ? R_BEHAVIORS : 0) |
                              (has_path ? R_PATH : 0) | (has_brain ? R_BRAIN : 0));
    int32_t brain = has_brain ? brain_index(L, ai + 2) : 0;
    if (has_brain && has_self && save_self(L, ai + 1, ai + 2, a->serial))
        flags |= R_SAVED;
    e_u32(e, (uint32_t)rank);
    e_u8(e, flags);
    e_u32(e, (uint32_t)brain);
    encode_record_values(e, a, ai, flags);
    return true;
}

/* The agents: every live one's userdata by rank, and the record count then
 * the records of those with Lua state. Leaves WS_WORLD_AGENTS pushed. */
static void encode_agents(lua_State *L, enc *e, sl_world *sw)
{
    lua_getiuservalue(L, WS_WORLD, SL_WUV_AGENTS); /* WS_WORLD_AGENTS */
    size_t count_at = e->len;
    e_u32(e, 0);
    uint32_t records = 0;
    int rank = 0;
    for (st_agent_id id = st_world_next(sw->w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
         id = st_world_next(sw->w, id, ST_TAG_ANY)) {
        rank++;
        lua_rawgeti(L, WS_WORLD_AGENTS, (lua_Integer)id.index + 1);
        int ai = lua_gettop(L);
        sl_agent *a = (sl_agent *)lua_touserdata(L, ai);
        /* none, or not this agent's: an agent made by C code alone has no Lua state */
        if (a != NULL && !a->removed && st_id_equal(a->id, id) && encode_record(L, e, a, ai, rank))
            records++;
        lua_settop(L, ai - 1);
    }
    memcpy(e->p + count_at, &records, 4);
}

/* The brains' module names, for files: "mod" for package.loaded.mod, or
 * "mod:field" for a field of one; "" when neither (such a snapshot
 * restores in this process but cannot be saved). */
static void encode_brain_names(lua_State *L, enc *e, sl_snap *sn)
{
    int nbrains = (int)lua_rawlen(L, WS_BRAINS);
    int top = lua_gettop(L);
    e_u32(e, (uint32_t)nbrains);
    for (int b = 1; b <= nbrains; b++) {
        lua_rawgeti(L, WS_BRAINS, b);
        int mod = lua_gettop(L);
        if (lua_type(L, WS_LOADED) != LUA_TTABLE || !find_module_name(L, WS_LOADED, mod)) {
            lua_pushliteral(L, "");
            sn->unnamed++;
        }
        size_t len;
        const char *name = lua_tolstring(L, -1, &len);
        e_str(e, name, len);
        lua_settop(L, top);
    }
}

/* world.user (a flag, then the table), then the scene's value. */
static void encode_user_and_scene(lua_State *L, enc *e)
{
    e->prefix = "world.user";
    if (lua_getiuservalue(L, WS_WORLD, SL_WUV_USER) == LUA_TTABLE) {
        e_u8(e, 1);
        e_value(e, lua_gettop(L));
    } else {
        e_u8(e, 0);
    }
    lua_pop(L, 1);
    e->prefix = "scene data";
    e_value(e, WS_SCENE);
    /* messages, perception, brain schedules (decide_snapshot.c): after the
     * scene's value, so bytes written before they existed still read */
    e->prefix = "messages and perception";
    sl_decide_save(L, WS_WORLD);
    e_value(e, lua_gettop(L));
    lua_pop(L, 1);
}

/* world:snapshot([scene_data]) */
static int world_snapshot(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, WS_WORLD);
    if (sw->stepping || st_world_in_step(sw->w))
        return luaL_error(L, "world:snapshot called inside a step");
    if (st_world_requests(sw->w) > 0)
        return luaL_error(L, "world:snapshot called with %d behaviour request(s) waiting for the next step "
                             "(take it before the behaviour calls, or after world:step)",
                          st_world_requests(sw->w));
    lua_settop(L, WS_SCENE);
    sl_snap *sn = new_snap(L); /* WS_SNAP */
    sn->s = st_world_snapshot(sw->w);
    if (sn->s == NULL) {
        sl_collect(L);
        sn->s = st_world_snapshot(sw->w);
    }
    if (sn->s == NULL)
        return luaL_error(L, "not enough memory");
    enc e;
    snapshot_begin(L, &e, sw, sn);
    encode_tags(L, &e, sw);
    encode_agents(L, &e, sw);
    encode_brain_names(L, &e, sn);
    encode_user_and_scene(L, &e);
    if (!st_snapshot_set_user(sn->s, e.p, e.len))
        return luaL_error(L, "not enough memory");
    /* the core's own paths (from standing lists) need their userdata too:
     * every one is held by some agent's behaviours list, serialised above */
    lua_settop(L, WS_SNAP);
    return 1;
}

/* What the steps of apply_lua_state share: the decoder and the stack slots
 * of the snapshot's tables and of what it decodes. */
typedef struct lua_state_rd {
    dec d;
    sl_snap *sn;
    sl_world *sw;            /* NULL: check only */
    int world_idx;           /* 0: check only */
    int agents_idx;          /* SV_AGENTS: rank -> agent userdata */
    int brains_idx;          /* SV_BRAINS: brain index -> module table */
    int tags_idx;            /* name -> tag id and tag id -> name */
    uint32_t ntags;
    int live;                /* agents in the snapshot */
    int recs_idx;            /* record r -> {rank, flags, brain, self, behaviours, path} */
    uint32_t records;
    int names_idx;           /* brain index -> module name */
    uint32_t nbrains;
    int user_idx, scene_idx; /* world.user (or nil), the scene's value */
    int decide_idx;          /* messages, perception, schedules (or nil) */
} lua_state_rd;

/* Sets r up to read the Lua state of snapshot sn (userdata at snap_idx)
 * past its mark, pushing the decoder's tables and the snapshot's. */
static void rd_begin(lua_State *L, lua_state_rd *r, int snap_idx, sl_snap *sn, int world_idx)
{
    size_t len = 0;
    const unsigned char *blob = (const unsigned char *)st_snapshot_user(sn->s, &len);
    memset(r, 0, sizeof *r);
    r->sn = sn;
    r->world_idx = world_idx;
    dec *d = &r->d;
    d->L = L;
    d->p = blob;
    d->end = blob + len;
    d->world_idx = world_idx;
    if (len < 4 || memcmp(blob, BLOB_MAGIC, 4) != 0)
        d_bad(d, "no Lua state mark");
    d->p += 4;
    lua_newtable(L);
    d->tables_idx = lua_gettop(L);
    lua_newtable(L);
    d->ghosts_idx = lua_gettop(L);
    lua_getiuservalue(L, snap_idx, SV_PATHS);
    d->paths_idx = lua_gettop(L);
    d->npaths = st_snapshot_path_count(sn->s);
    lua_getiuservalue(L, snap_idx, SV_OBJECTS);
    d->objects_idx = lua_gettop(L);
    d->nobjects = 0;
    while (lua_rawgeti(L, d->objects_idx, d->nobjects + 1) != LUA_TNIL) {
        d->nobjects++;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getiuservalue(L, snap_idx, SV_AGENTS);
    r->agents_idx = lua_gettop(L);
    lua_getiuservalue(L, snap_idx, SV_BRAINS);
    r->brains_idx = lua_gettop(L);
}

/* The tag names: pushes the world's tag table as they make it. */
static void decode_tags(lua_State *L, lua_state_rd *r)
{
    dec *d = &r->d;
    r->ntags = d_u32(d);
    if (r->ntags > (uint32_t)(d->end - d->p) / 4)
        d_bad(d, "tag count");
    lua_createtable(L, (int)r->ntags, (int)r->ntags);
    r->tags_idx = lua_gettop(L);
    for (uint32_t t = 1; t <= r->ntags; t++) {
        d_pushstr(d);
        lua_pushvalue(L, -1);
        lua_pushinteger(L, (lua_Integer)t);
        lua_rawset(L, r->tags_idx);
        lua_rawseti(L, r->tags_idx, (lua_Integer)t);
    }
}

/* The agent userdata on top starts afresh: no brain, no pause, no Lua
 * state (a record sets what the agent had). */
static void forget_lua_state(lua_State *L, sl_agent *a)
{
    a->paused = false;
    a->has_brain = false;
    for (int uv = SL_AUV_SELF; uv <= SL_AUV_COUNT; uv++) {
        lua_pushnil(L);
        lua_setiuservalue(L, -2, uv);
    }
}

/* Pushes the userdata of the restored world's agent id of rank `rank`: the
 * snapshot's own, or the one the world holds (old_idx) for the same id and
 * serial, or a new one; the snapshot keeps it by rank. */
static sl_agent *push_ranked_agent(lua_State *L, lua_state_rd *r, int old_idx, int rank, st_agent_id id)
{
    uint64_t serial = st_agent_serial(r->sw->w, id);
    if (lua_rawgeti(L, r->agents_idx, rank) == LUA_TUSERDATA && ((sl_agent *)lua_touserdata(L, -1))->sw == r->sw)
        return (sl_agent *)lua_touserdata(L, -1);
    /* not held, or held for another world (the snapshot was taken there):
     * this world's own, or a new one */
    lua_pop(L, 1);
    sl_agent *a = NULL;
    if (lua_rawgeti(L, old_idx, (lua_Integer)id.index + 1) == LUA_TUSERDATA) {
        a = (sl_agent *)lua_touserdata(L, -1);
        if (a->serial != serial || a->sw != r->sw)
            a = NULL;
    }
    if (a == NULL) {
        lua_pop(L, 1);
        a = new_agent_ud(L, r->world_idx, id, serial, true);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, r->agents_idx, rank);
    return a;
}

/* Every live agent's userdata, by rank, into a new id table (pushed); the
 * world's table is at old_idx. */
static void rebind_live_agents(lua_State *L, lua_state_rd *r, int old_idx)
{
    lua_createtable(L, 0, r->live);
    int new_agents = lua_gettop(L);
    int rank = 0;
    for (st_agent_id id = st_world_next(r->sw->w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
         id = st_world_next(r->sw->w, id, ST_TAG_ANY)) {
        sl_agent *a = push_ranked_agent(L, r, old_idx, ++rank, id);
        a->id = id;
        a->removed = false;
        lua_pushvalue(L, r->world_idx);
        lua_setiuservalue(L, -2, SL_AUV_WORLD);
        forget_lua_state(L, a);
        lua_rawseti(L, new_agents, (lua_Integer)id.index + 1);
    }
}

/* The world's other agents (spawned after the capture, or gone since)
 * read as removed: those of old_idx not in the new table at new_idx. */
static void retire_other_agents(lua_State *L, int old_idx, int new_idx)
{
    lua_pushnil(L);
    while (lua_next(L, old_idx)) {
        sl_agent *a = (sl_agent *)lua_touserdata(L, -1);
        lua_pushvalue(L, -2);
        int present = lua_rawget(L, new_idx) == LUA_TUSERDATA && lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
        if (!present && a != NULL) {
            a->removed = true;
            forget_lua_state(L, a);
        }
        lua_pop(L, 1);
    }
}

/* Obstacle userdata read their liveness from the core by id; drop the
 * cached ones the restored world does not have, so an id made again later
 * gets a userdata of its own kind. */
static void drop_dead_obstacles(lua_State *L, int world_idx, sl_world *sw)
{
    if (lua_getiuservalue(L, world_idx, SL_WUV_OBSTACLES) == LUA_TTABLE) {
        int ot = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, ot)) {
            lua_pop(L, 1);
            if (lua_isinteger(L, -1) && st_world_obstacle_index(sw->w, (int)lua_tointeger(L, -1)) < 0) {
                lua_pushvalue(L, -1);
                lua_pushnil(L);
                lua_rawset(L, ot); /* clearing a field during lua_next is allowed */
            }
        }
    }
    lua_pop(L, 1);
}

/* The world's Lua side as the snapshot's: its agents' userdata (which keep
 * their identity), tags and counts; no brains yet (the records add them),
 * no pending error. Leaves the world's old agent table and the new one
 * pushed, so the old userdata live until the restore ends. */
static void rebind_world(lua_State *L, lua_state_rd *r)
{
    sl_world *sw = r->sw;
    int world_idx = r->world_idx;
    if (sw->stepping || sw->walking > 0)
        luaL_error(L, "world:restore called inside a step");
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
    int old_idx = lua_gettop(L);
    rebind_live_agents(L, r, old_idx);
    int new_agents = lua_gettop(L);
    retire_other_agents(L, old_idx, new_agents);
    lua_pushvalue(L, new_agents);
    lua_setiuservalue(L, world_idx, SL_WUV_AGENTS);
    sl_slots_rebuild(L, sw, new_agents);
    lua_pushvalue(L, r->tags_idx);
    lua_setiuservalue(L, world_idx, SL_WUV_TAGS);
    sw->ntags = (int32_t)r->ntags;
    sw->agents_epoch++;
    memset(sw->tag_cache_str, 0, sizeof sw->tag_cache_str);
    sw->brains = 0;
    sw->paused = 0;
    sw->brain_count = 0;
    sw->brain_dead = 0;
    drop_dead_obstacles(L, world_idx, sw);
    lua_pushnil(L);
    lua_setiuservalue(L, world_idx, SL_WUV_PENDING);
    lua_pushnil(L);
    lua_setiuservalue(L, world_idx, SL_WUV_REMOVED);
}

/* One agent record, checked, as a table {rank, flags, brain, self,
 * behaviours, path} (pushed); ranks rise from last_rank. */
static uint32_t decode_record(lua_State *L, lua_state_rd *r, uint32_t last_rank)
{
    static const int value_flag[3] = {R_SELF, R_BEHAVIORS, R_PATH};
    dec *d = &r->d;
    uint32_t rank = d_u32(d);
    uint8_t flags = d_u8(d);
    uint32_t brain = d_u32(d);
    if (rank <= last_rank || rank > (uint32_t)r->live)
        d_bad(d, "an agent record's rank is out of range");
    if ((flags & ~63u) != 0 || (!(flags & R_BRAIN) && (brain != 0 || (flags & R_SAVED))))
        d_bad(d, "an agent record's flags are malformed");
    lua_createtable(L, 6, 0);
    lua_pushinteger(L, rank);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, flags);
    lua_rawseti(L, -2, 2);
    lua_pushinteger(L, brain);
    lua_rawseti(L, -2, 3);
    for (int k = 0; k < 3; k++) {
        if (flags & value_flag[k]) {
            d_value(d);
            if (k == 1 && lua_type(L, -1) != LUA_TTABLE)
                d_bad(d, "a behaviour list is not a table");
            if (k == 2 && r->world_idx && lua_type(L, -1) == LUA_TNIL)
                d_bad(d, "a path is nil");
        } else {
            lua_pushnil(L);
        }
        lua_rawseti(L, -2, 4 + k);
    }
    return rank;
}

/* The agent records, into a table (pushed). */
static void decode_records(lua_State *L, lua_state_rd *r)
{
    dec *d = &r->d;
    r->records = d_u32(d);
    if (r->records > (uint32_t)(d->end - d->p) / 9)
        d_bad(d, "record count");
    lua_createtable(L, (int)r->records, 0);
    r->recs_idx = lua_gettop(L);
    uint32_t last_rank = 0;
    for (uint32_t i = 0; i < r->records; i++) {
        last_rank = decode_record(L, r, last_rank);
        lua_rawseti(L, r->recs_idx, (lua_Integer)i + 1);
    }
}

/* The brains' module names (pushed), world.user (or nil) and the scene's
 * value (pushed), which end the bytes; then every record's brain index
 * is checked against the names. */
static void decode_names_and_values(lua_State *L, lua_state_rd *r)
{
    dec *d = &r->d;
    r->nbrains = d_u32(d);
    if (r->nbrains > (uint32_t)(d->end - d->p) / 4)
        d_bad(d, "brain count");
    lua_createtable(L, (int)r->nbrains, 0);
    r->names_idx = lua_gettop(L);
    for (uint32_t b = 1; b <= r->nbrains; b++) {
        d_pushstr(d);
        lua_rawseti(L, r->names_idx, (lua_Integer)b);
    }
    uint8_t has_user = d_u8(d);
    if (has_user > 1)
        d_bad(d, "the world.user flag");
    if (has_user) {
        d_value(d);
        if (lua_type(L, -1) != LUA_TTABLE)
            d_bad(d, "world.user is not a table");
    } else {
        lua_pushnil(L);
    }
    r->user_idx = lua_gettop(L);
    d_value(d);
    r->scene_idx = lua_gettop(L);
    if (d->p != d->end)
        d_value(d);
    else
        lua_pushnil(L); /* written before messages and perception */
    r->decide_idx = lua_gettop(L);
    if (d->p != d->end)
        d_bad(d, "bytes left over");
    for (uint32_t i = 1; i <= r->records; i++) {
        lua_rawgeti(L, r->recs_idx, i);
        lua_rawgeti(L, -1, 2);
        lua_rawgeti(L, -2, 3);
        lua_Integer flags = lua_tointeger(L, -2), b = lua_tointeger(L, -1);
        lua_pop(L, 3);
        /* a record with a brain names one of the modules (1..nbrains):
         * index 0 would leave the agent a brain flag and no brain */
        if (b < 0 || (uint64_t)b > r->nbrains || ((flags & R_BRAIN) && b == 0))
            d_bad(d, "a brain index is out of range");
    }
}

/* Brain b of a loaded file, by its name: require("mod"), or field `field`
 * of it for "mod:field". */
static void require_brain(lua_State *L, lua_state_rd *r, uint32_t b)
{
    lua_rawgeti(L, r->names_idx, b);
    size_t n;
    const char *name = lua_tolstring(L, -1, &n);
    if (n == 0)
        luaL_error(L, "snapshot: brain %d has no module name (not in package.loaded when captured)", (int)b);
    const char *colon = strchr(name, ':');
    lua_getglobal(L, "require");
    if (colon != NULL)
        lua_pushlstring(L, name, (size_t)(colon - name));
    else
        lua_pushvalue(L, -2);
    lua_call(L, 1, 1);
    if (colon != NULL && lua_type(L, -1) == LUA_TTABLE) {
        lua_getfield(L, -1, colon + 1);
        lua_remove(L, -2);
    }
    if (lua_type(L, -1) != LUA_TTABLE)
        luaL_error(L, "snapshot: brain '%s' is not a table", name);
    lua_rawseti(L, r->brains_idx, b);
    lua_pop(L, 1);
}

/* The brains: the modules captured, or by name for a loaded file. */
static void resolve_brains(lua_State *L, lua_state_rd *r)
{
    for (uint32_t b = 1; b <= r->nbrains; b++) {
        int ty = lua_rawgeti(L, r->brains_idx, b);
        lua_pop(L, 1);
        if (ty != LUA_TTABLE)
            require_brain(L, r, b);
    }
}

/* The agent at ai gets its self from record rec: brain.load(self, data)
 * with a fresh self when the brain saved it (without a load, the data is
 * the self), else the self as captured. */
static void restore_self(lua_State *L, lua_state_rd *r, int rec, int ai, int flags, lua_Integer brain)
{
    sl_agent *a = (sl_agent *)lua_touserdata(L, ai);
    if (flags & R_SAVED) {
        lua_rawgeti(L, r->brains_idx, brain);
        lua_pushliteral(L, "load");
        if (lua_rawget(L, -2) == LUA_TFUNCTION) {
            int fn = lua_gettop(L);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setiuservalue(L, ai, SL_AUV_SELF);
            lua_rawgeti(L, rec, 4);
            call_brain_fn(L, fn, 2, 0, a->serial, "load");
        } else {
            lua_rawgeti(L, rec, 4);
            if (lua_type(L, -1) != LUA_TTABLE) {
                lua_pop(L, 1);
                lua_newtable(L);
            }
            lua_setiuservalue(L, ai, SL_AUV_SELF);
        }
    } else if (flags & R_SELF) {
        lua_rawgeti(L, rec, 4);
        if (lua_type(L, -1) != LUA_TTABLE)
            luaL_error(L, "snapshot: corrupt Lua state (a self is not a table)");
        lua_setiuservalue(L, ai, SL_AUV_SELF);
    }
}

/* Each record onto its agent; brains join the brain list in spawn order
 * (ranks rise). */
static void apply_records(lua_State *L, lua_state_rd *r)
{
    sl_world *sw = r->sw;
    for (uint32_t i = 1; i <= r->records; i++) {
        lua_rawgeti(L, r->recs_idx, i);
        int rec = lua_gettop(L);
        lua_rawgeti(L, rec, 1);
        lua_Integer rank = lua_tointeger(L, -1);
        lua_rawgeti(L, rec, 2);
        int flags = (int)lua_tointeger(L, -1);
        lua_rawgeti(L, rec, 3);
        lua_Integer brain = lua_tointeger(L, -1);
        lua_pop(L, 3);
        lua_rawgeti(L, r->agents_idx, rank);
        int ai = lua_gettop(L);
        sl_agent *a = (sl_agent *)lua_touserdata(L, ai);
        if (flags & R_BRAIN) {
            lua_rawgeti(L, r->brains_idx, brain);
            lua_setiuservalue(L, ai, SL_AUV_BRAIN);
            a->has_brain = true;
            sw->brains++;
            sl_brain_list_add(L, sw, a->id);
        }
        if (flags & R_PAUSED) {
            a->paused = true;
            sw->paused++;
        }
        lua_rawgeti(L, rec, 5);
        lua_setiuservalue(L, ai, SL_AUV_BEHAVIORS);
        lua_rawgeti(L, rec, 6);
        lua_setiuservalue(L, ai, SL_AUV_PATH);
        restore_self(L, r, rec, ai, flags, brain);
        lua_settop(L, rec - 1);
    }
}

/* Parses the Lua state of snapshot sn (userdata at snap_idx). world_idx 0:
 * checks the bytes and builds nothing that needs a world (steer.load_snapshot).
 * Otherwise restores the agents' Lua state into the world at world_idx,
 * whose core state is already the snapshot's; pushes the scene data. */
static void apply_lua_state(lua_State *L, int snap_idx, sl_snap *sn, int world_idx)
{
    lua_state_rd r;
    rd_begin(L, &r, snap_idx, sn, world_idx);
    decode_tags(L, &r);
    r.sw = world_idx ? (sl_world *)lua_touserdata(L, world_idx) : NULL;
    r.live = st_snapshot_agent_count(sn->s);
    if (r.sw != NULL)
        rebind_world(L, &r);
    int base = lua_gettop(L);
    decode_records(L, &r);
    decode_names_and_values(L, &r);
    resolve_brains(L, &r);
    if (r.sw == NULL) {
        lua_settop(L, base); /* checked: nothing to apply */
        return;
    }
    apply_records(L, &r);
    if (!lua_isnil(L, r.user_idx)) {
        lua_pushvalue(L, r.user_idx);
        lua_setiuservalue(L, world_idx, SL_WUV_USER);
    }
    sl_decide_load(L, world_idx, r.decide_idx);
    lua_pushvalue(L, r.scene_idx);
    lua_replace(L, base + 1);
    lua_settop(L, base + 1);
}

/* world:restore(snap) -> the scene data given to world:snapshot */
static int world_restore(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    sl_snap *sn = checksnap(L, 2);
    if (sw->stepping || st_world_in_step(sw->w) || sw->walking > 0)
        return luaL_error(L, "world:restore called inside a step");
    lua_settop(L, 2);
    /* a loaded snapshot's Lua state was checked at load, and is checked
     * again (brains found) before the world changes: one that cannot be
     * restored leaves the world as it was */
    if (sn->loaded) {
        apply_lua_state(L, 2, sn, 0);
        lua_settop(L, 2);
    }
    if (!st_world_restore(sw->w, sn->s))
        return luaL_error(L, "not enough memory");
    lua_pushnil(L); /* the requests went with the restore */
    lua_setiuservalue(L, 1, SL_WUV_REQUESTS);
    /* the formations the snapshot's values reach, as they were */
    lua_getiuservalue(L, 2, SV_SAVED);
    lua_getiuservalue(L, 2, SV_OBJECTS);
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        lua_rawgeti(L, 4, lua_tointeger(L, -2));
        sl_formation_load(L, -1, -2, sw);
        lua_pop(L, 2);
    }
    lua_settop(L, 2);
    apply_lua_state(L, 2, sn, 1);
    return 1;
}

/* Files name brains by module and hold no objects: raise for a snapshot
 * with a nameless brain, a follow_flow field, a navgrid or a formation. */
static void check_savable(lua_State *L, sl_snap *sn, int snap_idx)
{
    uint64_t serial = 0;
    if (st_snapshot_orders(sn->s) > 0)
        luaL_error(L, "snapshot: %d agent(s) have orders (move_to, move_group): orders name navgrids, "
                      "which a file cannot hold", st_snapshot_orders(sn->s));
    if (!st_snapshot_encodable(sn->s, &serial))
        luaL_error(L, "snapshot: agent %s: a follow_flow field cannot be saved to a file", num_text(serial).s);
    lua_getiuservalue(L, snap_idx, SV_WHERE);
    if (lua_rawgeti(L, -1, 1) == LUA_TSTRING)
        luaL_error(L, "snapshot: %s cannot be saved to a file", lua_tostring(L, -1));
    lua_pop(L, 2);
    if (sn->unnamed > 0)
        luaL_error(L, "snapshot: %d brain(s) are not modules (nor fields of one) in package.loaded: "
                      "a file could not name them", sn->unnamed);
}

/* snap:save(path) -> true | nil, message */
static int snap_save(lua_State *L)
{
    sl_snap *sn = checksnap(L, 1);
    const char *path = luaL_checkstring(L, 2);
    check_savable(L, sn, 1);
    size_t size = 0;
    void *bytes = st_snapshot_encode(sn->s, &size);
    if (bytes == NULL)
        return luaL_error(L, "not enough memory");
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        free(bytes);
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: cannot open for writing", path);
        return 2;
    }
    bool ok = fwrite(bytes, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    free(bytes);
    if (!ok) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: write failed", path);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* snap:encode() -> string (the bytes a file holds) */
static int snap_encode(lua_State *L)
{
    sl_snap *sn = checksnap(L, 1);
    check_savable(L, sn, 1);
    size_t size = 0;
    void *bytes = st_snapshot_encode(sn->s, &size);
    if (bytes == NULL)
        return luaL_error(L, "not enough memory");
    lua_pushlstring(L, (const char *)bytes, size);
    free(bytes);
    return 1;
}

/* A snapshot from bytes: pushes it, or nil and a message. */
static int decode_bytes(lua_State *L, const void *data, size_t size, const char *what)
{
    char err[256];
    st_snapshot *s = st_snapshot_decode_in(sl_mem(L), data, size, err, sizeof err);
    if (s == NULL && strstr(err, "out of memory") != NULL) {
        sl_collect(L);
        s = st_snapshot_decode_in(sl_mem(L), data, size, err, sizeof err);
        if (s == NULL && strstr(err, "out of memory") != NULL)
            return luaL_error(L, "not enough memory");
    }
    if (s == NULL) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", what, err);
        return 2;
    }
    sl_snap *sn = new_snap(L);
    sn->s = s;
    sn->loaded = true;
    int idx = lua_gettop(L);
    /* the paths the snapshot made become path userdata (which own them) */
    lua_getiuservalue(L, idx, SV_PATHS);
    for (int k = 0; k < st_snapshot_path_count(s); k++) {
        sl_path *p = (sl_path *)lua_newuserdatauv(L, sizeof *p, 0);
        p->p = st_snapshot_path(s, k);
        sl_setmetatable(L, &sl_key_path);
        lua_rawseti(L, -2, k + 1);
    }
    st_snapshot_disown_paths(s);
    lua_pop(L, 1);
    /* the Lua state is checked now, and the brains required, so a bad
     * file fails at load */
    apply_lua_state(L, idx, sn, 0);
    lua_settop(L, idx);
    return 1;
}

/* steer.load_snapshot(path) -> snap | nil, message */
static int load_snapshot(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: cannot open", path);
        return 2;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n;
    char chunk[LUAL_BUFFERSIZE];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        luaL_addlstring(&b, chunk, n);
    bool err = ferror(f) != 0;
    fclose(f);
    luaL_pushresult(&b);
    if (err) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: read failed", path);
        return 2;
    }
    size_t size;
    const char *data = lua_tolstring(L, -1, &size);
    return decode_bytes(L, data, size, path);
}

/* steer.decode_snapshot(bytes) -> snap | nil, message */
static int decode_snapshot(lua_State *L)
{
    size_t size;
    const char *data = luaL_checklstring(L, 1, &size);
    return decode_bytes(L, data, size, "snapshot");
}

static int snap_index(lua_State *L)
{
    sl_snap *sn = checksnap(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "tick") == 0)
        lua_pushinteger(L, (lua_Integer)st_snapshot_tick(sn->s));
    else if (strcmp(k, "time") == 0)
        lua_pushnumber(L, st_snapshot_time(sn->s));
    else if (strcmp(k, "checksum") == 0) {
        char hex[17]; /* as world:checksum(): 16 hex digits, exact on every Lua */
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)st_snapshot_checksum(sn->s));
        lua_pushlstring(L, hex, 16);
    } else if (strcmp(k, "count") == 0)
        lua_pushinteger(L, st_snapshot_agent_count(sn->s));
    else if (strcmp(k, "memory") == 0)
        lua_pushinteger(L, (lua_Integer)st_snapshot_memory(sn->s));
    else {
        lua_getmetatable(L, 1);
        lua_getfield(L, -1, "__methods");
        lua_getfield(L, -1, k);
    }
    return 1;
}

static int snap_newindex(lua_State *L)
{
    checksnap(L, 1);
    return luaL_error(L, "steer.snapshot is read-only");
}

static int snap_tostring(lua_State *L)
{
    sl_snap *sn = (sl_snap *)sl_checkudata(L, 1, &sl_key_snapshot, SL_SNAPSHOT);
    if (sn->s == NULL)
        lua_pushliteral(L, "snapshot (released)");
    else
        lua_pushfstring(L, "snapshot(tick %s, %d agents)", num_text(st_snapshot_tick(sn->s)).s,
                        st_snapshot_agent_count(sn->s));
    return 1;
}

static const luaL_Reg snap_methods[] = {
    {"save", snap_save},
    {"encode", snap_encode},
    {NULL, NULL},
};

/* Expects the steer table on top: the world methods, steer.load_snapshot
 * and steer.decode_snapshot. */
void sl_open_snapshot(lua_State *L)
{
    static const luaL_Reg meta[] = {{"__gc", snap_gc}, {"__tostring", snap_tostring}, {NULL, NULL}};
    static const sl_type t = {
        .name = SL_SNAPSHOT, .key = &sl_key_snapshot, .meta = meta,
        .index = snap_index, .newindex = snap_newindex,
    };
    sl_newtype(L, &t);
    luaL_newlib(L, snap_methods); /* snap_index looks methods up here */
    lua_setfield(L, -2, "__methods");
    lua_pop(L, 1);

    lua_pushcfunction(L, load_snapshot);
    lua_setfield(L, -2, "load_snapshot");
    lua_pushcfunction(L, decode_snapshot);
    lua_setfield(L, -2, "decode_snapshot");
}

/* The world methods snapshot and restore (world.c adds them to its table). */
int sl_world_snapshot(lua_State *L) { return world_snapshot(L); }
int sl_world_restore(lua_State *L) { return world_restore(L); }
