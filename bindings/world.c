/*
 * world.c — steer.world: a userdata owning one st_world.
 *
 * Uservalues hold the Lua side of the world: the one userdata of each live
 * agent (by slot, so `==` works and identity is stable), the interned tag
 * names, on_error, and the first unhandled brain error of the running step.
 * Agents pin their world through their own uservalue, so a world is never
 * collected while Lua still holds one of its agents.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "bind.h"
#include "slots.h"

static const char *const edge_names[] = {"wrap", "bounce", "none", NULL};

static void set_world_metatable(lua_State *L, int idx);

/* A world's userdata has a metatable of its own (see sl_world_new), whose
 * metatable is the one class table under &sl_key_world: what makes a
 * userdata a world is that second step. */
static bool is_world_mt(lua_State *L, int mt_idx, int class_idx)
{
    bool same = lua_getmetatable(L, mt_idx) && sl_same_table(L, -1, class_idx);
    lua_settop(L, mt_idx); /* the class table, if it was pushed */
    return same;
}

sl_world *sl_toworld(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    void *p = lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx))
        return NULL;
    int top = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_world);
    bool same = is_world_mt(L, top, top + 1);
    lua_settop(L, top - 1);
    return same ? (sl_world *)p : NULL;
}

sl_world *sl_checkworld(lua_State *L, int arg)
{
    sl_world *sw = sl_toworld(L, arg);
    if (sw == NULL)
        luaL_typeerror(L, arg, SL_WORLD);
    if (sw->w == NULL)
        luaL_error(L, "attempt to use a destroyed world");
    return sw;
}

st_world *steer_lua_checkworld(lua_State *L, int idx)
{
    return sl_checkworld(L, idx)->w;
}

/* ---- tags ---- */

int32_t sl_tag_intern(lua_State *L, int world_idx, sl_world *sw, const char *name)
{
    lua_getiuservalue(L, world_idx, SL_WUV_TAGS);
    if (lua_getfield(L, -1, name) == LUA_TNUMBER) {
        int32_t t = (int32_t)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return t;
    }
    lua_pop(L, 1);
    if (sw->ntags >= SL_TAG_UNKNOWN - 1)
        luaL_error(L, "too many tags");
    int32_t t = ++sw->ntags;
    lua_pushinteger(L, t);
    lua_setfield(L, -2, name);
    lua_pushstring(L, name);
    lua_rawseti(L, -2, t);
    lua_pop(L, 1);
    return t;
}

int32_t sl_tag_lookup(lua_State *L, int world_idx, const char *name)
{
    lua_getiuservalue(L, world_idx, SL_WUV_TAGS);
    int32_t t = SL_TAG_UNKNOWN;
    if (lua_getfield(L, -1, name) == LUA_TNUMBER)
        t = (int32_t)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return t;
}

int32_t sl_tag_lookup_at(lua_State *L, int world_idx, int str_idx)
{
    /* the string value itself as the key: a raw hash lookup, where
     * lua_getfield would first intern the C string again (hash + compare) */
    str_idx = lua_absindex(L, str_idx);
    lua_getiuservalue(L, world_idx, SL_WUV_TAGS);
    lua_pushvalue(L, str_idx);
    if (lua_rawget(L, -2) == LUA_TNUMBER) {
        int32_t t = (int32_t)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return t;
    }
    lua_pop(L, 2);
    /* Interned names never hold a '\0' (they come in as C strings), so a
     * hit above is the answer; a miss asks again by the C string, which a
     * name with an embedded zero ends at, as it always has. */
    return sl_tag_lookup(L, world_idx, lua_tostring(L, str_idx));
}

void sl_tag_push(lua_State *L, int world_idx, int32_t tag)
{
    if (tag == ST_TAG_NONE) {
        lua_pushnil(L);
        return;
    }
    lua_getiuservalue(L, world_idx, SL_WUV_TAGS);
    lua_rawgeti(L, -1, tag);
    lua_remove(L, -2);
}

const char *steer_lua_tagname(lua_State *L, int world_idx, int32_t tag)
{
    world_idx = lua_absindex(L, world_idx);
    sl_checkworld(L, world_idx);
    sl_tag_push(L, world_idx, tag);
    /* the tags table keeps the string alive, so the pointer outlives the pop */
    const char *s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s != NULL ? s : "";
}

/* sl_tag_lookup_at for the string at str_idx through the world's cache of
 * string objects (see sl_world.tag_cache_str). */
static int32_t tag_lookup_cached(lua_State *L, int world_idx, sl_world *sw, int str_idx)
{
    const void *p = lua_topointer(L, str_idx);
    for (int i = 0; i < SL_TAG_CACHE; i++)
        if (sw->tag_cache_str[i] == p && p != NULL)
            return sw->tag_cache_id[i];
    int32_t t = sl_tag_lookup_at(L, world_idx, str_idx);
    if (t == SL_TAG_UNKNOWN || p == NULL)
        return t;
    int slot = sw->tag_cache_next;
    sw->tag_cache_next = (slot + 1) % SL_TAG_CACHE;
    sl_push_uvtable(L, world_idx, SL_WUV_TAGPIN);
    lua_pushvalue(L, str_idx);
    lua_rawseti(L, -2, slot + 1); /* the old string of this slot may go now */
    lua_pop(L, 1);
    sw->tag_cache_str[slot] = p;
    sw->tag_cache_id[slot] = t;
    return t;
}

/* An optional tag filter argument: nil means any tag. */
static int32_t opt_tag_filter(lua_State *L, int arg, int world_idx)
{
    int ty = lua_type(L, arg);
    if (ty == LUA_TNONE || ty == LUA_TNIL)
        return ST_TAG_ANY;
    if (ty == LUA_TSTRING)
        return tag_lookup_cached(L, world_idx, (sl_world *)lua_touserdata(L, world_idx), arg);
    /* numbers convert as luaL_checkstring does; the rest raise */
    return sl_tag_lookup(L, world_idx, luaL_checkstring(L, arg));
}

/* ---- agents by id ---- */

void sl_pushagent(lua_State *L, int world_idx, st_agent_id id)
{
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
    lua_rawgeti(L, -1, (lua_Integer)id.index + 1);
    lua_remove(L, -2);
    const sl_agent *known = sl_slots_get((const sl_world *)lua_touserdata(L, world_idx), id);
    if (known != NULL) {
        /* it is that agent (slots.h), unread: a brain's next call (pursue,
         * evade) reads it, meanwhile on its way into the cache */
        sl_slots_prefetch(known);
        return;
    }
    sl_agent *a = (sl_agent *)lua_touserdata(L, -1);
    if (a == NULL || !st_id_equal(a->id, id) || a->removed) {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

void steer_lua_pushagent(lua_State *L, int world_idx, st_agent_id id)
{
    world_idx = lua_absindex(L, world_idx);
    sl_checkworld(L, world_idx);
    sl_pushagent(L, world_idx, id);
}

void sl_brain_list_add(lua_State *L, sl_world *sw, st_agent_id id)
{
    if (sw->brain_count == sw->brain_cap) {
        if (sw->brain_cap > (1 << 29))
            luaL_error(L, "too many agents with brains");
        int cap = sw->brain_cap > 0 ? sw->brain_cap * 2 : 64;
        st_agent_id *l = (st_agent_id *)realloc(sw->brain_list, (size_t)cap * sizeof *l);
        if (l == NULL)
            luaL_error(L, "not enough memory");
        sw->brain_list = l;
        sw->brain_cap = cap;
    }
    sw->brain_list[sw->brain_count++] = id;
}

void sl_scratch_reserve(lua_State *L, sl_world *sw, int n)
{
    if (n <= sw->scratch_cap)
        return;
    int cap = sw->scratch_cap > 0 ? sw->scratch_cap : 64;
    while (cap < n)
        cap = cap > (1 << 29) ? n : cap * 2;
    st_agent_id *ids = (st_agent_id *)realloc(sw->scratch, (size_t)cap * sizeof *ids);
    if (ids == NULL)
        luaL_error(L, "not enough memory");
    sw->scratch = ids;
    double *d = (double *)realloc(sw->scratch_dist, (size_t)cap * sizeof *d);
    if (d == NULL)
        luaL_error(L, "not enough memory");
    sw->scratch_dist = d;
    sw->scratch_cap = cap;
}

/* ---- construction ---- */

/* The def's (arg 1) edges: "wrap", "bounce" or "none". */
static void parse_world_edges(lua_State *L, st_world_def *def)
{
    if (!sl_getfield(L, 1, "edges"))
        return;
    sl_src src = sl_field(1, "edges");
    lua_tostring(L, -1); /* a number reads as its text ("invalid option '3'") */
    def->edges = (st_edges)sl_option(L, -1, &src, edge_names);
    lua_pop(L, 1);
}

/* The def's seed (any integer) and threads (1..1024). */
static void parse_world_integers(lua_State *L, st_world_def *def)
{
    int isint;
    sl_src src = sl_field(1, "seed");
    if (sl_getfield(L, 1, "seed")) {
        lua_Integer seed = lua_tointegerx(L, -1, &isint);
        if (lua_type(L, -1) != LUA_TNUMBER)
            sl_raise_type(L, &src, -1, "integer");
        if (!isint)
            sl_raise(L, &src, "number has no integer representation");
        def->seed = (uint64_t)seed;
        lua_pop(L, 1);
    }
    src.field = "threads";
    if (sl_getfield(L, 1, "threads")) {
        lua_Integer n = lua_tointegerx(L, -1, &isint);
        if (lua_type(L, -1) != LUA_TNUMBER)
            sl_raise_type(L, &src, -1, "integer");
        if (!isint || n < 1 || n > 1024)
            sl_raise(L, &src, "must be an integer in 1..1024");
        def->threads = (int)n;
        lua_pop(L, 1);
    }
}

/* The world def from the table at 1 (none or nil: the defaults). */
static st_world_def parse_world_def(lua_State *L)
{
    st_world_def def = st_default_world_def();
    if (lua_isnoneornil(L, 1))
        return def;
    luaL_checktype(L, 1, LUA_TTABLE);
    def.width = sl_field_min(L, 1, "width", def.width, 0.0, true);
    def.height = sl_field_min(L, 1, "height", def.height, 0.0, true);
    def.dt = sl_field_min(L, 1, "dt", def.dt, 0.0, true);
    def.cell_size = sl_field_min(L, 1, "cell_size", def.cell_size, 0.0, true);
    parse_world_edges(L, &def);
    parse_world_integers(L, &def);
    if (sl_getfield(L, 1, "contacts")) {
        sl_src src = sl_field(1, "contacts");
        if (lua_type(L, -1) != LUA_TBOOLEAN)
            sl_raise_type(L, &src, -1, "boolean");
        def.contacts = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return def;
}

/* steer.world{ width, height, edges, seed, dt, cell_size, threads, contacts } */
int sl_world_new(lua_State *L)
{
    st_world_def def = parse_world_def(L);
    sl_world *sw = (sl_world *)lua_newuserdatauv(L, sizeof *sw, SL_WUV_COUNT);
    memset(sw, 0, sizeof *sw);
    set_world_metatable(L, lua_gettop(L));
    lua_newtable(L);
    lua_setiuservalue(L, -2, SL_WUV_AGENTS);
    lua_newtable(L);
    lua_setiuservalue(L, -2, SL_WUV_TAGS);
    for (int t = 0; t < ST_BEHAVIOR_COUNT; t++)
        sw->defaults[t] = st_default_behavior((st_behavior_type)t);
    const st_mem *mem = sl_mem(L);
    if (mem != NULL)
        def.mem = *mem;
    sw->w = st_world_create(&def);
    if (sw->w == NULL) {
        sl_collect(L);
        sw->w = st_world_create(&def);
    }
    if (sw->w == NULL)
        return luaL_error(L, "not enough memory (cannot create the world)");

    /* in the weak set of worlds, which steer.reload visits */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_worlds);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
#ifdef STEER_LUA_JIT
    sl_ffi_world(L); /* the FFI backend's methods for it, when it runs */
#endif
    return 1;
}

static int world_gc(lua_State *L)
{
    /* The class table is the metatable of every world's own metatable, so
     * those tables are finalized through it too: nothing to do for them
     * (Lua 5.3 reports an error from a finalizer; 5.4 would warn). */
    if (lua_type(L, 1) == LUA_TTABLE)
        return 0;
    sl_world *sw = sl_toworld(L, 1);
    if (sw == NULL)
        return luaL_typeerror(L, 1, SL_WORLD);
    if (sw->w != NULL)
        st_world_destroy(sw->w);
    sw->w = NULL;
    sl_decide_free(sw);
    free(sw->scratch);
    free(sw->scratch_dist);
    free(sw->brain_list);
    sl_slots_free(sw);
    sw->brain_list = NULL;
    sw->brain_count = sw->brain_cap = 0;
    sw->scratch = NULL;
    sw->scratch_dist = NULL;
    sw->scratch_cap = 0;
    return 0;
}

/* ---- fields ---- */

enum {
    WF_WIDTH = 1, WF_HEIGHT, WF_TICK, WF_TIME, WF_DT, WF_EDGES, WF_SEED, WF_THREADS, WF_CELL_SIZE, WF_ON_ERROR, WF_USER,
    WF_CONTACTS, WF_MAX_STEPS, WF_DROPPED_STEPS, WF_NAV, WF_PATH_BUDGET, WF_PATH_PENDING, WF_PATH_WORK
};

static const sl_code world_fields[] = {
    {"width", WF_WIDTH}, {"height", WF_HEIGHT}, {"tick", WF_TICK}, {"time", WF_TIME},
    {"dt", WF_DT}, {"edges", WF_EDGES}, {"seed", WF_SEED}, {"threads", WF_THREADS}, {"cell_size", WF_CELL_SIZE},
    {"on_error", WF_ON_ERROR}, {"user", WF_USER}, {"contacts", WF_CONTACTS},
    {"max_steps", WF_MAX_STEPS}, {"dropped_steps", WF_DROPPED_STEPS}, {"nav", WF_NAV},
    {"path_budget", WF_PATH_BUDGET}, {"path_pending", WF_PATH_PENDING}, {"path_work", WF_PATH_WORK}, {NULL, 0},
};

/* The fields of one world: the __index of its index table (see
 * set_world_metatable), whose methods are found before this is asked.
 * upvalue 1: name -> method or field code; 2: the key cache; 3: its
 * methods (bind.h); 4: the world. Argument 1 is the index table: the world
 * comes from the upvalue, so nothing needs checking. */
static int world_index(lua_State *L)
{
    sl_keycache *kc = (sl_keycache *)lua_touserdata(L, lua_upvalueindex(2));
    int code = sl_keycache_find(L, kc, 2, lua_upvalueindex(1), lua_upvalueindex(3));
    if (code < 0)
        return 1; /* a method, or nil */
    sl_world *sw = (sl_world *)lua_touserdata(L, lua_upvalueindex(4));
    if (sw->w == NULL)
        return luaL_error(L, "attempt to use a destroyed world");
    const st_world *w = sw->w;
    switch (code) {
    case WF_WIDTH: lua_pushnumber(L, st_world_width(w)); break;
    case WF_HEIGHT: lua_pushnumber(L, st_world_height(w)); break;
    case WF_TICK: lua_pushinteger(L, (lua_Integer)st_world_tick(w)); break;
    case WF_TIME: lua_pushnumber(L, st_world_time(w)); break;
    case WF_DT: lua_pushnumber(L, st_world_dt(w)); break;
    case WF_EDGES: lua_pushstring(L, edge_names[st_world_edges(w)]); break;
    case WF_SEED: lua_pushinteger(L, (lua_Integer)st_world_seed(w)); break;
    case WF_THREADS: lua_pushinteger(L, st_world_threads(w)); break;
    case WF_CELL_SIZE: lua_pushnumber(L, st_world_cell_size(w)); break;
    case WF_ON_ERROR: lua_getiuservalue(L, lua_upvalueindex(4), SL_WUV_ONERROR); break;
    case WF_USER: sl_push_uvtable(L, lua_upvalueindex(4), SL_WUV_USER); break;
    case WF_CONTACTS: lua_pushboolean(L, st_world_contacts(w)); break;
    case WF_MAX_STEPS: lua_pushinteger(L, st_world_advance_max(w)); break;
    case WF_DROPPED_STEPS: lua_pushnumber(L, (lua_Number)st_world_advance_dropped(w)); break;
    case WF_NAV: sl_move_push_default_nav(L, lua_upvalueindex(4)); break;
    case WF_PATH_BUDGET: lua_pushinteger(L, (lua_Integer)st_world_path_budget(w)); break;
    case WF_PATH_PENDING: lua_pushinteger(L, st_world_path_pending(w)); break;
    case WF_PATH_WORK: lua_pushinteger(L, (lua_Integer)st_world_path_work(w)); break;
    default: lua_pushnil(L); break;
    }
    return 1;
}

static int world_newindex(lua_State *L)
{
    sl_checkworld(L, 1);
    lua_pushvalue(L, 2);
    int ty = lua_rawget(L, lua_upvalueindex(1));
    const char *k = luaL_tolstring(L, 2, NULL);
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_ON_ERROR) {
        if (!lua_isnil(L, 3) && lua_type(L, 3) != LUA_TFUNCTION) {
            sl_src src = sl_assign("on_error");
            sl_raise_type(L, &src, 3, "function or nil");
        }
        lua_settop(L, 3);
        lua_setiuservalue(L, 1, SL_WUV_ONERROR);
        return 0;
    }
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_USER) {
        if (lua_type(L, 3) != LUA_TTABLE) {
            sl_src src = sl_assign("user");
            sl_raise_type(L, &src, 3, "table");
        }
        lua_settop(L, 3);
        lua_setiuservalue(L, 1, SL_WUV_USER);
        return 0;
    }
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_CONTACTS) {
        if (lua_type(L, 3) != LUA_TBOOLEAN) {
            sl_src src = sl_assign("contacts");
            sl_raise_type(L, &src, 3, "boolean");
        }
        st_world_set_contacts(sl_checkworld(L, 1)->w, lua_toboolean(L, 3));
        return 0;
    }
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_NAV) {
        sl_world *sw = sl_checkworld(L, 1);
        if (!lua_isnil(L, 3) && sl_navgrid_world(L, 3) != sw) {
            sl_src src = sl_assign("nav");
            if (!sl_tonavgrid(L, 3))
                sl_raise_type(L, &src, 3, "steer.navgrid or nil");
            sl_raise(L, &src, "belongs to another world");
        }
        sl_move_set_default_nav(L, 1, 3, false);
        return 0;
    }
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_PATH_BUDGET) {
        sl_src src = sl_assign("path_budget");
        double n = sl_number_min(L, 3, &src, 1.0, false);
        if (n != floor(n) || n > 1e12)
            return luaL_error(L, "invalid value for field 'path_budget' (must be a whole number in [1, 1e12])");
        st_world_set_path_budget(sl_checkworld(L, 1)->w, (long)n);
        return 0;
    }
    if (ty == LUA_TNUMBER && lua_tointeger(L, -2) == WF_MAX_STEPS) {
        sl_src src = sl_assign("max_steps");
        double n = sl_number_min(L, 3, &src, 1.0, false);
        if (n != floor(n) || n > 1e6)
            return luaL_error(L, "invalid value for field 'max_steps' (must be a whole number in [1, 1000000])");
        st_world_set_advance_max(sl_checkworld(L, 1)->w, (int)n);
        return 0;
    }
    if (ty == LUA_TNUMBER)
        return luaL_error(L, "field '%s' of steer.world is read-only", k);
    if (ty != LUA_TNIL)
        return luaL_error(L, "cannot assign to method '%s' of steer.world", k);
    return luaL_error(L, "no field '%s' in steer.world", k);
}

static int world_tostring(lua_State *L)
{
    sl_world *sw = sl_toworld(L, 1);
    if (sw == NULL)
        return luaL_typeerror(L, 1, SL_WORLD);
    if (sw->w == NULL)
        lua_pushliteral(L, "world (destroyed)");
    else
        lua_pushfstring(L, "world(%f x %f, %d agents)", st_world_width(sw->w),
                        st_world_height(sw->w), st_world_count(sw->w, ST_TAG_ANY));
    return 1;
}

/* ---- methods ---- */

static int world_count(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    int32_t tag = opt_tag_filter(L, 2, 1);
    lua_pushinteger(L, tag == SL_TAG_UNKNOWN ? 0 : st_world_count(sw->w, tag));
    return 1;
}

/* The control variable is the previous agent: its serial survives its
 * removal, which is what keeps the loop going when a body removes agents. */
static int agents_iter(lua_State *L)
{
    sl_world *sw = (sl_world *)lua_touserdata(L, lua_upvalueindex(1));
    int32_t tag = (int32_t)lua_tointeger(L, lua_upvalueindex(2));
    if (sw->w == NULL)
        return luaL_error(L, "attempt to use a destroyed world");
    uint64_t after = 0;
    if (!lua_isnil(L, 2)) {
        sl_agent *prev = sl_toagent(L, 2);
        if (prev == NULL)
            return luaL_typeerror(L, 2, SL_AGENT);
        after = prev->serial;
    }
    st_agent_id id = st_world_next_serial(sw->w, after, tag);
    if (st_id_is_null(id)) {
        lua_pushnil(L);
        return 1;
    }
    sl_pushagent(L, lua_upvalueindex(1), id);
    return 1;
}

static int empty_iter(lua_State *L)
{
    lua_pushnil(L);
    return 1;
}

static int world_agents(lua_State *L)
{
    sl_checkworld(L, 1);
    int32_t tag = opt_tag_filter(L, 2, 1);
    if (tag == SL_TAG_UNKNOWN) {
        lua_pushcfunction(L, empty_iter);
        return 1;
    }
    lua_pushvalue(L, 1);
    lua_pushinteger(L, tag);
    lua_pushcclosure(L, agents_iter, 2);
    return 1;
}

/* The world methods are closures over the world class table: nearest and
 * neighbors run once per brain per step, and comparing against an upvalue
 * skips the registry lookup of the shared check. */
#define UV_WORLD_CLASS lua_upvalueindex(1)

/* Argument 1 of a world method: sl_checkworld, with the upvalue check. */
static sl_world *method_world(lua_State *L)
{
    int top = lua_gettop(L);
    sl_world *sw = (sl_world *)lua_touserdata(L, 1);
    if (sw == NULL || !lua_getmetatable(L, 1) || !is_world_mt(L, top + 1, UV_WORLD_CLASS) || sw->w == NULL) {
        lua_settop(L, top);
        return sl_checkworld(L, 1); /* raises the usual error */
    }
    lua_settop(L, top);
    return sw;
}

/* The centre of a query: an agent of this world (its position, excluded
 * from the results, and with `heading` its heading for the cone) or a
 * point. */
static st_query query_around(lua_State *L, int arg, sl_world *sw, bool *is_agent, bool heading)
{
    st_query q;
    sl_agent *a = sl_agent_at(L, arg);
    if (a != NULL) {
        if (a->removed)
            luaL_error(L, "attempt to use a removed agent");
        luaL_argcheck(L, a->sw == sw, arg, "agent belongs to another world");
        q = st_default_query(st_agent_pos(sw->w, a->id), 0.0);
        q.exclude = a->id;
        if (heading)
            q.heading = st_agent_heading(sw->w, a->id);
        *is_agent = true;
    } else {
        if (lua_isnoneornil(L, arg) || (lua_type(L, arg) != LUA_TTABLE && !sl_tovec2(L, arg)))
            luaL_typeerror(L, arg, "steer.agent or point");
        q = st_default_query(steer_lua_checkpoint(L, arg), 0.0);
        *is_agent = false;
    }
    return q;
}

/* The neighbors query of the world at world_idx (sw) around the agent or
 * point at `at`, with the radius and the options at the two arguments
 * after it: world:neighbors and agent:neighbors. */
static int neighbors(lua_State *L, int world_idx, sl_world *sw, int at)
{
    const int opts = at + 2;
    bool is_agent;
    st_query q = query_around(L, at, sw, &is_agent, true);
    q.radius = sl_checknonneg(L, at + 1);
    if (!lua_isnoneornil(L, opts)) {
        luaL_checktype(L, opts, LUA_TTABLE);
        sl_src src = sl_field(opts, "tag");
        if (lua_getfield(L, opts, "tag") != LUA_TNIL) {
            if (lua_type(L, -1) != LUA_TSTRING)
                sl_raise_type(L, &src, -1, "string");
            q.tag = sl_tag_lookup_at(L, world_idx, -1);
        }
        lua_pop(L, 1);
        bool has_heading = false;
        src.field = "heading";
        if (lua_getfield(L, opts, "heading") != LUA_TNIL) {
            st_vec2 h = sl_point(L, -1, &src);
            if (h.x == 0.0 && h.y == 0.0)
                sl_raise(L, &src, "must be a non-zero vector");
            /* scaled first when |h|^2 would under/overflow (tiny or huge h) */
            double l2 = st_v2_len2(h), m = fmax(fabs(h.x), fabs(h.y));
            q.heading = l2 > 1e-290 && l2 < INFINITY ? st_v2_normalize(h)
                                                     : st_v2_normalize(st_v2(h.x / m, h.y / m));
            has_heading = true;
        }
        lua_pop(L, 1);
        src.field = "fov";
        if (lua_getfield(L, opts, "fov") != LUA_TNIL) {
            q.fov = sl_number_min(L, -1, &src, 0.0, false);
            if (!is_agent && !has_heading)
                sl_raise(L, &src, "a view cone around a point needs opts.heading");
        }
        lua_pop(L, 1);
    }
    if (q.tag == SL_TAG_UNKNOWN) {
        lua_newtable(L);
        return 1;
    }
    int n = st_world_query(sw->w, &q, sw->scratch, NULL, sw->scratch_cap);
    if (n > sw->scratch_cap) {
        sl_scratch_reserve(L, sw, n);
        n = st_world_query(sw->w, &q, sw->scratch, NULL, sw->scratch_cap);
    }
    lua_createtable(L, n, 0);
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS); /* fetched once, not per agent */
    for (int i = 0; i < n; i++) {
        /* sl_pushagent, with the table at hand */
        lua_rawgeti(L, -1, (lua_Integer)sw->scratch[i].index + 1);
        if (sl_slots_known(sw, sw->scratch[i])) {
            lua_rawseti(L, -3, i + 1); /* it is that agent: not read (slots.h) */
            continue;
        }
        sl_agent *a = (sl_agent *)lua_touserdata(L, -1);
        if (a == NULL || !st_id_equal(a->id, sw->scratch[i]) || a->removed) {
            lua_pop(L, 1);
            lua_pushnil(L);
        }
        lua_rawseti(L, -3, i + 1);
    }
    lua_pop(L, 1);
    return 1;
}

/* world:neighbors(agent_or_point, radius [, { tag =, fov =, heading = }]) */
static int world_neighbors(lua_State *L)
{
    sl_world *sw = method_world(L);
    return neighbors(L, 1, sw, 2);
}

/* agent:neighbors(radius [, opts]): world:neighbors around the agent. An
 * agent method (agent.c's table), so argument 1 is the agent. */
int sl_agent_neighbors(lua_State *L)
{
    sl_agent *a = sl_checkagent(L, 1);
    lua_settop(L, 3);
    lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 4 */
    if (a->sw->w == NULL)
        return luaL_error(L, "attempt to use a destroyed world");
    return neighbors(L, 4, a->sw, 1);
}

/* The radius of world:nearest when it is a number, finite and >= 0, else
 * -1: the general check decides, and raises. An integer (a brain's
 * constant, the usual case) is read without the conversion to a float
 * that lua_tonumberx makes. */
static inline double plain_radius(lua_State *L, int arg)
{
    if (lua_isinteger(L, arg)) {
        lua_Integer r = lua_tointeger(L, arg);
        return r >= 0 ? (double)r : -1.0;
    }
    if (lua_type(L, arg) != LUA_TNUMBER)
        return -1.0;
    double r = lua_tonumber(L, arg);
    return r >= 0.0 && r < HUGE_VAL ? r : -1.0;
}

/* The tag filter at arg when it is a string of the world's tag cache (the
 * string object's address proves both its type and its tag: the cache pins
 * its strings), else SL_TAG_UNKNOWN - 1: not known here. */
#define SL_TAG_UNCACHED (SL_TAG_UNKNOWN - 1)
static inline int32_t cached_tag(lua_State *L, const sl_world *sw, int arg)
{
    const void *p = lua_topointer(L, arg);
    for (int i = 0; i < SL_TAG_CACHE; i++)
        if (sw->tag_cache_str[i] == p && p != NULL)
            return sw->tag_cache_id[i];
    return SL_TAG_UNCACHED;
}

/* The nearest agent for q in the world at world_idx (sw), pushed with its
 * distance (2 results), or nil (1); q.tag SL_TAG_UNKNOWN finds nobody.
 * self_idx: the agent the query is around and excludes (its own query), or
 * 0. Such an agent keeps its last answer's userdata (SL_AUV_NEAR, in its own
 * block, which its caller has just read): a prey's nearest hunter is most
 * often the one of the step before, and is then pushed from there rather
 * than from the agents table, whose entry for it is one more trip to
 * memory. world_idx 0: the world is self's, fetched when needed. */
static int push_nearest(lua_State *L, int world_idx, int self_idx, sl_world *sw, const st_query *q)
{
    double d = 0.0;
    st_agent_id id = q->tag == SL_TAG_UNKNOWN ? st_null_agent() : st_world_nearest(sw->w, q, &d);
    if (st_id_is_null(id)) {
        lua_pushnil(L);
        return 1;
    }
    if (self_idx != 0) {
        /* only agents are ever stored there */
        if (lua_getiuservalue(L, self_idx, SL_AUV_NEAR) == LUA_TUSERDATA) {
            const sl_agent *o = (const sl_agent *)lua_touserdata(L, -1);
            if (st_id_equal(o->id, id) && !o->removed) {
                lua_pushnumber(L, d);
                return 2;
            }
        }
        lua_pop(L, 1);
    }
    /* sl_pushagent, leaving the agents table below the results rather than
     * moving them down over it */
    if (world_idx == 0) {
        lua_getiuservalue(L, self_idx, SL_AUV_WORLD);
        world_idx = lua_gettop(L);
    }
    lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
    lua_rawgeti(L, -1, (lua_Integer)id.index + 1);
    sl_agent *a = (sl_agent *)lua_touserdata(L, -1);
    if (a == NULL || !st_id_equal(a->id, id) || a->removed) {
        lua_pop(L, 1);
        lua_pushnil(L);
    } else if (self_idx != 0) {
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, self_idx, SL_AUV_NEAR);
    }
    lua_pushnumber(L, d);
    return 2;
}

/* The query of a brain's own nearest: around its agent a, excluding it. */
static inline st_query agent_query(const sl_world *sw, const sl_agent *a, double radius, int32_t tag)
{
    st_query q = st_default_query(st_agent_pos(sw->w, a->id), radius);
    q.exclude = a->id;
    q.tag = tag;
    return q;
}

/* world:nearest(agent_or_point, radius [, tag]) -> agent, distance | nil */
static int world_nearest(lua_State *L)
{
    int top = lua_gettop(L);
    st_query q;
    double radius = -1.0;
    int32_t tag = SL_TAG_UNCACHED;
    /* A brain's world:nearest(agent, radius, tag) runs once per agent per
     * step: it is proved with as few calls into Lua as will do. The agent
     * by its metatable (left on the stack: with all four arguments there it
     * sits above them), the world as the agent's own (a full userdata at
     * the address the checked agent holds, so no metatable of its own to
     * fetch), a plain radius and no tag or a tag string the world has
     * cached. Every other call, and every error, takes the general path. */
    sl_agent *a = sl_agent_at(L, 2);
    sl_world *sw = (sl_world *)lua_touserdata(L, 1);
    if ((top == 3 || top == 4) && a != NULL && sw != NULL && sw == a->sw && lua_type(L, 1) == LUA_TUSERDATA
        && !a->removed && sw->w != NULL && (radius = plain_radius(L, 3)) >= 0.0
        && (tag = top == 4 ? cached_tag(L, sw, 4) : ST_TAG_ANY) != SL_TAG_UNCACHED) {
        q = agent_query(sw, a, radius, tag);
        return push_nearest(L, 1, 2, sw, &q);
    } else {
        lua_settop(L, top);
        sw = method_world(L); /* or its error */
        bool is_agent; /* no view cone here: the heading would go unused */
        q = query_around(L, 2, sw, &is_agent, false); /* or its error */
        q.radius = sl_checknonneg(L, 3);
        q.tag = lua_type(L, 4) == LUA_TSTRING ? tag_lookup_cached(L, 1, sw, 4) : opt_tag_filter(L, 4, 1);
    }
    return push_nearest(L, 1, 0, sw, &q);
}

/* agent:nearest(radius [, tag]) -> agent, distance | nil: world:nearest
 * around the agent, without the agent.world read a brain makes first (an
 * agent method: agent.c's table). The fast path is world_nearest's. */
int sl_agent_nearest(lua_State *L)
{
    int top = lua_gettop(L);
    double radius = -1.0;
    int32_t tag = SL_TAG_UNCACHED;
    sl_agent *a = sl_agent_at(L, 1);
    sl_world *sw = NULL;
    int world_idx = 0; /* push_nearest fetches the agent's world if it needs it */
    if (!((top == 2 || top == 3) && a != NULL && !a->removed && (sw = a->sw)->w != NULL
          && (radius = plain_radius(L, 2)) >= 0.0
          && (tag = top == 3 ? cached_tag(L, sw, 3) : ST_TAG_ANY) != SL_TAG_UNCACHED)) {
        lua_settop(L, top);
        a = sl_checkagent(L, 1);
        sw = a->sw;
        radius = sl_checknonneg(L, 2);
        lua_settop(L, 3);
        lua_getiuservalue(L, 1, SL_AUV_WORLD); /* 4 */
        world_idx = 4;
        if (sw->w == NULL)
            return luaL_error(L, "attempt to use a destroyed world");
        tag = lua_type(L, 3) == LUA_TSTRING ? tag_lookup_cached(L, 4, sw, 3) : opt_tag_filter(L, 3, 4);
    }
    st_query q = agent_query(sw, a, radius, tag);
    return push_nearest(L, world_idx, 1, sw, &q);
}

/* Returns the id of an obstacle just added (0: the core ran out of memory). */
static int push_obstacle_id(lua_State *L, int id)
{
    if (id == 0)
        return luaL_error(L, "not enough memory");
    lua_pushinteger(L, id);
    return 1;
}

static int world_obstacle(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    st_vec2 c = steer_lua_checkpoint(L, 2);
    double r = sl_checknonneg(L, 3);
    return push_obstacle_id(L, st_world_add_obstacle(sw->w, c, r));
}

static int world_wall(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    st_vec2 a = steer_lua_checkpoint(L, 2);
    st_vec2 b = steer_lua_checkpoint(L, 3);
    return push_obstacle_id(L, st_world_add_wall(sw->w, a, b));
}

void sl_check_kept(lua_State *L, sl_world *sw, int before)
{
    if (st_world_in_step(sw->w) || st_world_requests(sw->w) > before)
        return;
    if (before >= ST_WORLD_REQUESTS_MAX)
        luaL_error(L, "too many behaviour requests before the next step (%d; call world:step)", before);
    luaL_error(L, "not enough memory");
}

/* One step of dt with the brains; the world at index 1. Raises the step's
 * brain error, if any, after the step. */
static int step_once(lua_State *L, sl_world *sw, double dt)
{
    /* Brains run in spawn order: a world that is mostly brains keeps its
     * storage in spawn order too (see st_world_set_resort). */
    st_world_set_resort(sw->w, (int64_t)sw->brains * 8 <= st_world_count(sw->w, ST_TAG_ANY));
    sl_perception_reserve(L, sw); /* perceiving in the step never allocates */
    st_world_step_begin(sw->w, dt);
    /* the behaviours asked for since the last step are forces now: the
     * paths and fields they named may go */
    lua_pushnil(L);
    lua_setiuservalue(L, 1, SL_WUV_REQUESTS);
    int status = LUA_OK;
    if (sw->brains == 0 && sw->msgq != NULL) {
        sw->stepping = true;
        sl_messages_deliver(L, 1, sw); /* nobody to hear them: due messages go */
        sw->stepping = false;
    }
    if (sw->brains > 0) {
        int walking = sw->walking;
        sw->stepping = true;
        sl_move_events(L, 1, sw); /* brain.arrived, brain.move_failed: before the updates */
        sl_messages_deliver(L, 1, sw); /* brain.message: before the updates too */
        status = sl_brains_step(L, 1, sw, dt);
        sw->stepping = false;
        sw->walking = walking;
    }
    /* the step closes whatever happened above: a world never stays half-stepped */
    st_world_step_end(sw->w);
    if (status != LUA_OK)
        return lua_error(L);
    if (sw->brains > 0 && st_world_link_event_count(sw->w) > 0) {
        sw->linking = true; /* no world:step from a traverse_link */
        sl_brains_links(L, 1, sw);
        sw->linking = false;
    }
    if (sl_take_pending(L, 1))
        return lua_error(L);
    return 0;
}

static int world_step(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    double dt = st_world_dt(sw->w);
    if (!lua_isnoneornil(L, 2)) {
        sl_src src = sl_arg(2);
        dt = sl_number_min(L, 2, &src, 0.0, true);
    }
    if (sw->stepping || sw->linking || st_world_in_step(sw->w))
        return luaL_error(L, "world:step called inside a step");
    lua_settop(L, 1);
    return step_once(L, sw, dt);
}

/* world:advance(frame_dt [, before_step]) -> steps, alpha: the fixed steps
 * frame_dt brings, each after before_step(world, dt) */
static int world_advance(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    sl_src src = sl_arg(2);
    double frame_dt = sl_number_min(L, 2, &src, 0.0, false);
    bool hook = !lua_isnoneornil(L, 3);
    if (hook)
        luaL_checktype(L, 3, LUA_TFUNCTION);
    if (sw->stepping || sw->linking || st_world_in_step(sw->w))
        return luaL_error(L, "world:advance called inside a step");
    lua_settop(L, 3);
    int n = st_world_advance_due(sw->w, frame_dt);
    double dt = st_world_dt(sw->w);
    for (int k = 0; k < n; k++) {
        if (hook) {
            lua_pushvalue(L, 3);
            lua_pushvalue(L, 1);
            lua_pushnumber(L, dt);
            lua_call(L, 2, 0);
        }
        step_once(L, sw, dt);
    }
    lua_pushinteger(L, n);
    lua_pushnumber(L, st_world_advance_alpha(sw->w));
    return 2;
}

/* world:random([m [, n]]): the rules of math.random on the world's stream */
static int world_random(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    lua_Integer lo, hi;
    switch (lua_gettop(L)) {
    case 1:
        lua_pushnumber(L, st_world_random(sw->w));
        return 1;
    case 2:
        lo = 1;
        hi = luaL_checkinteger(L, 2);
        if (hi == 0) { /* as math.random(0): every bit random */
            lua_pushinteger(L, (lua_Integer)st_world_random_int(sw->w, INT64_MIN, INT64_MAX));
            return 1;
        }
        break;
    case 3:
        lo = luaL_checkinteger(L, 2);
        hi = luaL_checkinteger(L, 3);
        break;
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    luaL_argcheck(L, lo <= hi, 2, "interval is empty");
    lua_pushinteger(L, (lua_Integer)st_world_random_int(sw->w, (int64_t)lo, (int64_t)hi));
    return 1;
}

static int world_checksum(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    /* 16 lowercase hex digits, as the app prints it: exact on every Lua
     * (a 5.1 or LuaJIT number cannot hold 64 bits). */
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)st_world_checksum(sw->w));
    lua_pushlstring(L, hex, 16);
    return 1;
}

static const luaL_Reg world_methods[] = {
    {"spawn", sl_world_spawn},
    {"remove", sl_world_remove},
    {"count", world_count},
    {"mark", sl_world_mark},
    {"agents", world_agents},
    {"neighbors", world_neighbors},
    {"nearest", world_nearest},
    {"obstacle", world_obstacle},
    {"wall", world_wall},
    {"add_obstacle", sl_world_add_obstacle},
    {"add_tiles", sl_world_add_tiles},
    {"remove_obstacle", sl_world_remove_obstacle},
    {"obstacles", sl_world_obstacles},
    {"step", world_step},
    {"advance", world_advance},
    {"random", world_random},
    {"checksum", world_checksum},
    {"navgrid", sl_world_navgrid},
    {"move_group", sl_world_move_group},
    {"group_slots", sl_world_group_slots},
    {"raycast", sl_world_raycast},
    {"send", sl_world_send},
    {"noise", sl_world_noise},
    {"snapshot", sl_world_snapshot},
    {"restore", sl_world_restore},
    {NULL, NULL},
};

static const luaL_Reg world_meta[] = {
    {"__gc", world_gc},
    {"__tostring", world_tostring},
    {NULL, NULL},
};

/* Gives the world userdata at idx its own metatable. Its __index is a table
 * of the world's own: the methods, found by one table lookup, which is
 * what a brain's `agent.world:nearest` costs instead of a call into C
 * (userdata with a shared metatable would need an __index function, to
 * know whose field is asked for); the fields through that table's own
 * __index, a closure over this world. The metatable's metatable is the
 * class table under &sl_key_world, which is what sl_toworld checks; it
 * holds the parts every world shares. */
static void set_world_metatable(lua_State *L, int idx)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_world);
    int cls = lua_gettop(L);
    lua_createtable(L, 0, 6); /* cls + 1: the world's metatable */
    lua_getfield(L, cls, "methods");
    lua_createtable(L, 0, 24); /* cls + 3: the world's index table */
    lua_pushnil(L);
    while (lua_next(L, cls + 2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, cls + 3);
    }
    lua_createtable(L, 0, 1);
    lua_getfield(L, cls, "names");
    lua_getfield(L, cls, "keycache");
    lua_getfield(L, cls, "values");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, world_index, 4);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, cls + 3);
    lua_setfield(L, cls + 1, "__index");
    lua_pop(L, 1); /* the methods */
    static const char *const shared[] = {"__newindex", "__gc", "__tostring", "__name", NULL};
    for (int i = 0; shared[i] != NULL; i++) {
        lua_getfield(L, cls, shared[i]);
        lua_setfield(L, cls + 1, shared[i]);
    }
    /* before the class becomes its metatable: its __newindex would take
     * the write of __metatable */
    steer_lua_protect_metatable(L, cls + 1, SL_WORLD, false);
    lua_pushvalue(L, cls);
    lua_setmetatable(L, cls + 1);
    lua_setmetatable(L, idx);
    lua_pop(L, 1);
}

/* Expects the steer table on top; sets steer.world. */
void sl_open_world(lua_State *L)
{
    /* the class table (see set_world_metatable) */
    luaL_newmetatable(L, SL_WORLD);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sl_key_world);
    luaL_setfuncs(L, world_meta, 0);
    luaL_newlibtable(L, world_methods);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, world_methods, 1);
    lua_setfield(L, -2, "methods");
    /* the names of the fields' closures: methods too, so that it lists
     * everything a world answers (meta_spec reads it) */
    lua_getfield(L, -1, "methods");
    lua_createtable(L, 0, 32);
    lua_pushnil(L);
    while (lua_next(L, -3)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_remove(L, -2);
    for (size_t i = 0; world_fields[i].name != NULL; i++) {
        lua_pushinteger(L, world_fields[i].code);
        lua_setfield(L, -2, world_fields[i].name);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "names");
    sl_keycache_new(L);
    lua_setfield(L, -3, "keycache");
    lua_createtable(L, SL_KEYCACHE, 0);
    lua_setfield(L, -3, "values");
    lua_pushcclosure(L, world_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    steer_lua_protect_metatable(L, -1, SL_WORLD, false);
    lua_pop(L, 1);
    lua_pushcfunction(L, sl_world_new);
    lua_setfield(L, -2, "world");
}
