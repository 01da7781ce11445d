/*
 * hotswap.h — private to the hot reload files (bind.h declares what the rest
 * of the bindings call: sl_hotswap_install, sl_hotswap, sl_push_weak).
 *
 *   hotswap.c         the overview, baselines (what a load made), and
 *                     sl_hotswap: the plan under a protected call, then the
 *                     commit, or the undo of the plan's reservations
 *   hotswap_plan.c    the plan: the merge of two versions and the sweep for
 *                     old function references, every write kept as pending
 *   hotswap_commit.c  pending writes: reads that see them, the reservation
 *                     of new table keys, the commit and its undo
 *   hotswap_dump.c    whether two functions have the same code
 *
 * On Lua 5.1 (not LuaJIT) nothing here is compiled but sl_push_weak and the
 * refusal in sl_hotswap (lua_compat.h's SL_NO_HOTSWAP).
 */
#ifndef STEER_HOTSWAP_H
#define STEER_HOTSWAP_H

#include "bind.h"

#ifndef SL_NO_HOTSWAP

/* Tables and functions (plus fields) one load-time walk records at most. */
#define HS_TRACK_LIMIT 500000L
/* Nodes the sweep for old function references visits at most. */
#define HS_SWEEP_LIMIT 2000000L
/* Stack slots the commit and the undo use at most. */
#define HS_COMMIT_STACK 12
/* Stack slots the plan uses at most: its walks keep work lists, not C
 * recursion, so the depth is bounded (about 40 at the deepest). */
#define HS_PLAN_STACK 64

/* ---- small helpers ---- */

static inline bool hs_is_data(int ty)
{
    return ty == LUA_TNUMBER || ty == LUA_TSTRING || ty == LUA_TBOOLEAN;
}

/* A key the merge matches by value: names and indices, not objects. */
static inline bool hs_is_data_key(lua_State *L, int idx)
{
    return hs_is_data(lua_type(L, idx));
}

static inline bool hs_is_lua_function(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TFUNCTION && !lua_iscfunction(L, idx);
}

/* Whether the table at t has the value at key_idx as a key (raw). */
static inline bool hs_has_key(lua_State *L, int t, int key_idx)
{
    lua_pushvalue(L, key_idx);
    bool in = lua_rawget(L, t) != LUA_TNIL;
    lua_pop(L, 1);
    return in;
}

/* Whether the upvalue name is one the merge matches: not _ENV (the globals,
 * shared anyway) and not the nameless ones of stripped code. */
bool hs_matchable_upvalue(const char *name);
/* Whether the value at idx is a snapshot's stand-in for a table or function. */
bool hs_is_ref(lua_State *L, int idx);

/* ---- walks (hotswap.c) ---- */

/* What the baseline walk and the sweep share: a visited set and a work
 * list (stack indices), and a node count against a limit. */
typedef struct hs_walk {
    int seen, work;
    lua_Integer nwork;
    long nodes, limit;
    bool truncated;
} hs_walk;

/* Pushes the last entry of the work list at work (*n entries long) and
 * takes it off the list; returns its stack index. */
int hs_pop_work(lua_State *L, int work, lua_Integer *n);
/* Queues the value at idx when the walk goes into it: a table or a Lua
 * function (C functions have no upvalues a script can reach). */
void hs_walk_push(lua_State *L, hs_walk *w, int idx);
/* Counts the value at x, not seen yet, as visited and marks it seen; false
 * (the walk cut short) past the node limit. */
bool hs_walk_visit(lua_State *L, hs_walk *w, int x);

/* The baseline walk over a new version: what it made. */
typedef struct hs_track {
    hs_walk w;                /* w.seen: everything this load made */
    int base, foreign, funcs; /* stack indices; funcs 0: not kept */
    int owner, name;          /* the owner table, the module's name */
    lua_Integer nfuncs;
} hs_track;

/* ---- pending writes (hotswap_commit.c) ---- */

/* Every write the plan decides, kept apart from the live objects until the
 * commit: stack indices of tables made before the plan's protected call. */
typedef struct hs_pending {
    int tables;  /* live table -> shadow { key -> value, or the nil stand-in } */
    int metas;   /* live table -> its new metatable */
    int upvals;  /* upvalue id -> { function, index, value or nil stand-in } */
    int joins;   /* new function -> { [u] = { old function, j } } */
    int worlds;  /* world userdata -> its new on_error */
    int added;   /* list: table, key, ... keys the shadows add, in order */
    lua_Integer nadded;
} hs_pending;

#define HS_PENDING_TABLES 6

/* Pushes the tables of a pending set and fills p with their indices. */
void hs_pending_new(lua_State *L, hs_pending *p);
/* p's tables at the HS_PENDING_TABLES stack slots from first on. */
void hs_pending_at(hs_pending *p, int first);

/* Pushes t[k] as it will be after the commit (raw). t, k: stack indices. */
void hs_get(lua_State *L, hs_pending *p, int t, int k);
/* t[k] = v at the commit. t, k, v: stack indices. */
void hs_set(lua_State *L, hs_pending *p, int t, int k, int v);
/* Pushes t's metatable as it will be and returns true, or pushes nothing. */
bool hs_getmetatable(lua_State *L, hs_pending *p, int t);
/* t's metatable becomes the table at mt at the commit. */
void hs_setmetatable(lua_State *L, hs_pending *p, int t, int mt);
/* Pushes the value upvalue i of the Lua function at f will have (joins
 * included) and returns its name, or pushes nothing and returns NULL. */
const char *hs_getupvalue(lua_State *L, hs_pending *p, int f, int i);
/* The variable upvalue i of f is (joins included) takes the value at v. */
void hs_setupvalue(lua_State *L, hs_pending *p, int f, int i, int v);
/* Upvalue u of the new function f joins upvalue j of the old one of. */
void hs_join(lua_State *L, hs_pending *p, int f, int u, int of, int j);
/* The world's on_error (world userdata at w) becomes the value at fn. */
void hs_set_onerror(lua_State *L, hs_pending *p, int w, int fn);

/* Calls fn(L, ud) for each field of the table at t as it will be after the
 * commit, with the key at -2 and the value at -1 (fn leaves them there). */
typedef void (*hs_field_fn)(lua_State *L, void *ud);
void hs_fields(lua_State *L, hs_pending *p, int t, hs_field_fn fn, void *ud);

/* The plan's last step: adds each key the shadows add to its live table
 * (with its new value), counting them in *done as it goes, so that the
 * commit only writes keys that exist. May raise (memory). */
void hs_reserve(lua_State *L, hs_pending *p, lua_Integer *done);
/* After a failed plan: removes the first `done` keys hs_reserve added.
 * Allocates nothing. */
void hs_unreserve(lua_State *L, hs_pending *p, lua_Integer done);
/* Applies every pending write. Allocates nothing, runs no Lua code. */
void hs_commit(lua_State *L, hs_pending *p);

/* ---- the plan (hotswap_plan.c) ---- */

/* Plans the merge of the new version (new_idx) into the loaded one
 * (old_idx): t is the baseline walk over the new version. Fills info's
 * counts; every write goes to p. May raise (memory). */
void hs_plan_merge(lua_State *L, hs_pending *p, const hs_track *t, int old_idx, int new_idx,
                   steer_reload_info *info);

/* ---- comparing code (hotswap_dump.c) ---- */

/* Whether the Lua functions at a and b have the same code (bytecode,
 * constants and nested functions; on Lua 5.4 line numbers left out). When
 * in doubt (no memory), they differ. */
bool hs_same_code(lua_State *L, int a, int b);

#endif /* SL_NO_HOTSWAP */

#endif
