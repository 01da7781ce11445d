/*
 * hotswap.c — the deep, in-place part of a reload: merging a module's new
 * version into the one in use.
 *
 * A reload loads the file afresh, which builds a second copy of everything
 * the module makes at load time: its table, the tables in its locals (class
 * tables, method tables, state tables), their metatables and its functions.
 * The live copy is what agents, instances, cached `require` results and
 * other modules hold, so the new copy is merged into it and then dropped:
 *
 *   - Tables keep their identity. Old and new are walked together, from the
 *     module table and from the upvalues of paired functions, through
 *     fields with the same key and through metatables; every table met on
 *     both sides is merged field by field, so instances whose metatable (or
 *     __index) is an old class table see the new methods.
 *   - Functions always come from the new source. A field holding a function
 *     gets the new one; the new function's upvalues are joined, by name, to
 *     the old function's variables, so module state (`local count = 0`,
 *     `local K = class("K")`) stays shared with everything that still uses
 *     it. Every other reference to a replaced function that the sweep finds
 *     (tables reachable from package.loaded, agents' self, world.user,
 *     upvalues of Lua functions there) is pointed at the new one.
 *   - Data (numbers, strings, booleans, other values that are not tables or
 *     functions) follows a three-way rule against the value the module had
 *     when it was loaded (its baseline, recorded at every load): when the
 *     new source produces the same value as the old source did, the source
 *     did not change it and the run-time value is kept; when it produces
 *     another, the new value replaces the run-time one. A field the old
 *     source made and the new one does not is removed; a field added at run
 *     time is kept. The same holds for a function's upvalues, by name.
 *
 * Baselines are recorded for every module registered in package.loaded
 * (a __newindex on that table sees require store each new module) and for
 * every reloaded version. Values without one (a table built at run time,
 * a module loaded before steer) take the new source's values.
 *
 * Every walk keeps a visited set (cycles are fine) and a node limit (a huge
 * graph is cut short and reported, never hangs the app). None of it runs
 * Lua code: all access is raw, so no budget or sandbox rule is involved.
 *
 * A reload applies whole or not at all. It runs in two phases:
 *
 *   1. The plan, under a protected call: the baselines of the new version,
 *      the merge and the sweep decide every change, and make every table,
 *      string and list the changes need, without writing to the live
 *      module (hotswap_plan.c: the writes wait in hotswap_commit.c's
 *      pending set). Its last step puts in the keys the merge adds to
 *      live tables: of all the writes, only those allocate.
 *   2. The commit: values into keys that exist, metatables, upvalues set
 *      and joined, worlds' on_error. None of it allocates or can fail.
 *
 * When the plan fails (out of memory: the app runs Lua under a cap), the
 * keys it added are taken out again and the error goes on: the module's
 * tables, functions, upvalues and every agent's self are as they were.
 * The new version's own bookkeeping (its baselines, in weak tables) may
 * stay behind; it is dropped with the new version.
 *
 * Files: hotswap.h lists them.
 */
#include <string.h>

#include "hotswap.h"

void sl_push_weak(lua_State *L, const void *key)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, key) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

#ifndef SL_NO_HOTSWAP

/* Registry key: live table or function -> its load-time snapshot (weak keys). */
static const char key_base;
/* Registry key: live table or function -> the name of the module whose
 * load made it (weak keys). A merge only changes tables of the module it
 * reloads (or tables no load made, such as ones built at run time). */
static const char key_owner;
/* A snapshot's stand-in for a value that is not data (tables, functions). */
static const char key_ref;

/* ---- small helpers ---- */

bool hs_is_ref(lua_State *L, int idx)
{
    return lua_touserdata(L, idx) == (void *)&key_ref && lua_type(L, idx) == LUA_TLIGHTUSERDATA;
}

/* Pushes the value's snapshot form: data as is, anything else the stand-in. */
static void push_snap_value(lua_State *L, int idx)
{
    if (hs_is_data(lua_type(L, idx)))
        lua_pushvalue(L, idx);
    else
        lua_pushlightuserdata(L, (void *)&key_ref);
}

bool hs_matchable_upvalue(const char *name)
{
    return name != NULL && name[0] != '\0' && name[0] != '(' && strcmp(name, "_ENV") != 0;
}

static void push_base(lua_State *L) { sl_push_weak(L, &key_base); }

/* Pushes a set of the tables a walk never enters: package.loaded, every
 * module in it (each has its own baseline, or is a library), the globals
 * and the registry. `except` (0: none) is left out. */
static void push_foreign(lua_State *L, int except)
{
    lua_newtable(L);
    int set = lua_gettop(L);
    lua_pushglobaltable(L);
    lua_pushboolean(L, 1);
    lua_rawset(L, set);
    lua_pushvalue(L, LUA_REGISTRYINDEX);
    lua_pushboolean(L, 1);
    lua_rawset(L, set);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    int loaded = lua_gettop(L);
    if (lua_istable(L, loaded)) {
        lua_pushvalue(L, loaded);
        lua_pushboolean(L, 1);
        lua_rawset(L, set);
        lua_pushnil(L);
        while (lua_next(L, loaded)) {
            if (lua_istable(L, -1) && !(except != 0 && lua_rawequal(L, -1, except))) {
                lua_pushboolean(L, 1);
                lua_rawset(L, set);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    lua_settop(L, set);
}

/* ---- walks ---- */

int hs_pop_work(lua_State *L, int work, lua_Integer *n)
{
    lua_rawgeti(L, work, *n);
    lua_pushnil(L);
    lua_rawseti(L, work, (*n)--);
    return lua_gettop(L);
}

void hs_walk_push(lua_State *L, hs_walk *w, int idx)
{
    if (lua_istable(L, idx) || hs_is_lua_function(L, idx)) {
        lua_pushvalue(L, idx);
        lua_rawseti(L, w->work, ++w->nwork);
    }
}

bool hs_walk_visit(lua_State *L, hs_walk *w, int x)
{
    if (w->nodes >= w->limit) {
        w->truncated = true;
        return false;
    }
    w->nodes++;
    lua_pushvalue(L, x);
    lua_pushboolean(L, 1);
    lua_rawset(L, w->seen);
    return true;
}

/* ---- recording baselines ---- */

/* Sets up t for a walk that records baselines: the base and owner
 * registries, the set of foreign tables (all but except), and with funcs a
 * list of the Lua functions it meets. name_idx: the module's name. */
static void track_begin(lua_State *L, hs_track *t, int except, int name_idx, bool funcs)
{
    memset(t, 0, sizeof *t);
    push_base(L);
    t->base = lua_gettop(L);
    push_foreign(L, except);
    t->foreign = lua_gettop(L);
    lua_newtable(L);
    t->w.seen = lua_gettop(L);
    lua_newtable(L);
    t->w.work = lua_gettop(L);
    if (funcs) {
        lua_newtable(L);
        t->funcs = lua_gettop(L);
    }
    sl_push_weak(L, &key_owner);
    t->owner = lua_gettop(L);
    t->name = name_idx;
    t->w.limit = HS_TRACK_LIMIT;
}

/* A table's data fields as they are now into snap; queues its values and
 * its metatable. */
static void track_table(lua_State *L, hs_track *t, int x, int snap)
{
    lua_pushnil(L);
    while (lua_next(L, x)) {
        t->w.nodes++;
        if (hs_is_data_key(L, -2)) {
            lua_pushvalue(L, -2);
            push_snap_value(L, -2);
            lua_rawset(L, snap);
        }
        hs_walk_push(L, &t->w, -1);
        lua_pop(L, 1);
    }
    if (lua_getmetatable(L, x)) {
        hs_walk_push(L, &t->w, -1);
        lua_pop(L, 1);
    }
}

/* A Lua function's named upvalues as they are now into snap; queues them,
 * and lists the function in funcs when kept. */
static void track_function(lua_State *L, hs_track *t, int x, int snap)
{
    const char *name;
    for (int i = 1; (name = lua_getupvalue(L, x, i)) != NULL; i++) {
        if (hs_matchable_upvalue(name)) {
            push_snap_value(L, -1);
            lua_setfield(L, snap, name);
            hs_walk_push(L, &t->w, -1);
        }
        lua_pop(L, 1);
    }
    if (t->funcs != 0) {
        lua_pushvalue(L, x);
        lua_rawseti(L, t->funcs, ++t->nfuncs);
    }
}

/* Walks everything reachable from the value at root that no earlier load
 * made: records each table's fields and each Lua function's upvalues as
 * they are now (the load-time values) in base, and the module's name in
 * owner, marks them in seen, and lists the functions in funcs. */
static void track(lua_State *L, hs_track *t, int root)
{
    hs_walk_push(L, &t->w, root);
    while (t->w.nwork > 0) {
        int x = hs_pop_work(L, t->w.work, &t->w.nwork);
        if (!hs_has_key(L, t->w.seen, x) && !hs_has_key(L, t->base, x) && !hs_has_key(L, t->foreign, x)
            && hs_walk_visit(L, &t->w, x)) {
            lua_newtable(L);
            int snap = lua_gettop(L);
            if (lua_istable(L, x))
                track_table(L, t, x, snap);
            else
                track_function(L, t, x, snap);
            lua_pushvalue(L, x);
            lua_pushvalue(L, snap);
            lua_rawset(L, t->base);
            lua_pushvalue(L, x);
            lua_pushvalue(L, t->name);
            lua_rawset(L, t->owner);
        }
        lua_settop(L, x - 1);
    }
}

/* package.loaded's __newindex: require storing a module it just loaded.
 * 1: package.loaded, 2: name, 3: the module. */
static int loaded_newindex(lua_State *L)
{
    lua_settop(L, 3);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, 1);
    if (!lua_istable(L, 3))
        return 0;
    luaL_checkstack(L, HS_PLAN_STACK, "recording a module's baseline");
    hs_track t;
    track_begin(L, &t, 3, 2, false);
    track(L, &t, 3);
    return 0;
}

void sl_hotswap_install(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_istable(L, -1) && !lua_getmetatable(L, -1)) {
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, loaded_newindex);
        lua_setfield(L, -2, "__newindex");
        lua_setmetatable(L, -2);
    } else if (lua_istable(L, -1)) {
        lua_pop(L, 1); /* someone else's metatable: leave it, no baselines */
    }
    lua_pop(L, 1);
}

/* ---- the reload: plan, then commit ---- */

/* What the plan hands back besides its pending writes. */
typedef struct hs_job {
    steer_reload_info info; /* the counts */
    lua_Integer reserved;   /* entries of the pending `added` list hs_reserve got to */
} hs_job;

enum { PLAN_OLD = HS_PENDING_TABLES + 1, PLAN_NEW, PLAN_NAME, PLAN_JOB, PLAN_ARGS = PLAN_JOB };

/* The plan, under lua_pcall. 1..HS_PENDING_TABLES: the pending writes;
 * then the old module, the new one, its name and the hs_job. */
static int plan_body(lua_State *L)
{
    hs_job *job = (hs_job *)lua_touserdata(L, PLAN_JOB);
    luaL_checkstack(L, HS_PLAN_STACK, "hot reload");
    hs_pending p;
    hs_pending_at(&p, 1);
    /* the baselines of the new version, and the set of what it made (the
     * module itself is what the merge changes: not foreign) */
    hs_track t;
    track_begin(L, &t, PLAN_OLD, PLAN_NAME, true);
    track(L, &t, PLAN_NEW);
    job->info.truncated = t.w.truncated;
    hs_plan_merge(L, &p, &t, PLAN_OLD, PLAN_NEW, &job->info);
    hs_reserve(L, &p, &job->reserved);
    return 0;
}

int sl_hotswap(lua_State *L, const char *name, int old_idx, int new_idx, steer_reload_info *info)
{
    old_idx = lua_absindex(L, old_idx);
    new_idx = lua_absindex(L, new_idx);
    int top = lua_gettop(L);
    /* room for the commit and the undo: they must not grow the stack */
    luaL_checkstack(L, HS_PENDING_TABLES + PLAN_ARGS + 1 + HS_COMMIT_STACK, "hot reload");
    hs_pending p;
    hs_pending_new(L, &p);
    lua_pushcfunction(L, plan_body);
    for (int i = 0; i < HS_PENDING_TABLES; i++)
        lua_pushvalue(L, top + 1 + i);
    lua_pushvalue(L, old_idx);
    lua_pushvalue(L, new_idx);
    lua_pushstring(L, name);
    hs_job job;
    memset(&job, 0, sizeof job);
    lua_pushlightuserdata(L, &job);
    if (lua_pcall(L, PLAN_ARGS, 0, 0) != LUA_OK) {
        hs_unreserve(L, &p, job.reserved);
        return lua_error(L); /* the plan's error, the module as it was */
    }
    hs_commit(L, &p);
    info->functions = job.info.functions;
    info->unchanged = job.info.unchanged;
    info->added = job.info.added;
    info->removed = job.info.removed;
    info->classes = job.info.classes;
    info->values = job.info.values;
    info->truncated = job.info.truncated;
    info->changed = info->functions + info->added + info->removed + info->values > 0;
    lua_settop(L, top);
    return 0;
}

#else /* SL_NO_HOTSWAP: Lua 5.1 cannot join upvalues */

void sl_hotswap_install(lua_State *L)
{
    (void)L; /* no reload merges: no baselines to record */
}

int sl_hotswap(lua_State *L, const char *name, int old_idx, int new_idx, steer_reload_info *info)
{
    (void)old_idx, (void)new_idx, (void)info;
    return luaL_error(L, "%s: %s", name, SL_NO_HOTSWAP_MSG); /* lua_compat.h */
}

#endif /* SL_NO_HOTSWAP */
