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
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"

/* Tables and functions (plus fields) one load-time walk records at most. */
#define HS_TRACK_LIMIT 500000L
/* Nodes the sweep for old function references visits at most. */
#define HS_SWEEP_LIMIT 2000000L

/* Registry key: live table or function -> its load-time snapshot (weak keys). */
static const char key_base;
/* Registry key: live table or function -> the name of the module whose
 * load made it (weak keys). A merge only changes tables of the module it
 * reloads (or tables no load made, such as ones built at run time). */
static const char key_owner;
/* A snapshot's stand-in for a value that is not data (tables, functions). */
static const char key_ref;

/* ---- small helpers ---- */

static bool is_data(int ty)
{
    return ty == LUA_TNUMBER || ty == LUA_TSTRING || ty == LUA_TBOOLEAN;
}

/* A key the merge matches by value: names and indices, not objects. */
static bool is_data_key(lua_State *L, int idx)
{
    return is_data(lua_type(L, idx));
}

static bool is_lua_function(lua_State *L, int idx)
{
    return lua_type(L, idx) == LUA_TFUNCTION && !lua_iscfunction(L, idx);
}

static bool is_ref(lua_State *L, int idx)
{
    return lua_touserdata(L, idx) == (void *)&key_ref && lua_type(L, idx) == LUA_TLIGHTUSERDATA;
}

/* Pushes the value's snapshot form: data as is, anything else the stand-in. */
static void push_snap_value(lua_State *L, int idx)
{
    if (is_data(lua_type(L, idx)))
        lua_pushvalue(L, idx);
    else
        lua_pushlightuserdata(L, (void *)&key_ref);
}

/* Whether the upvalue name is one the merge matches: not _ENV (the globals,
 * shared anyway) and not the nameless ones of stripped code. */
static bool matchable_upvalue(const char *name)
{
    return name != NULL && name[0] != '\0' && name[0] != '(' && strcmp(name, "_ENV") != 0;
}

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

/* Whether the table at t has the value at key_idx as a key (raw). */
static bool has_key(lua_State *L, int t, int key_idx)
{
    lua_pushvalue(L, key_idx);
    bool in = lua_rawget(L, t) != LUA_TNIL;
    lua_pop(L, 1);
    return in;
}

/* Pushes the last entry of the work list at work (*n entries long) and
 * takes it off the list; returns its stack index. */
static int pop_work(lua_State *L, int work, lua_Integer *n)
{
    lua_rawgeti(L, work, *n);
    lua_pushnil(L);
    lua_rawseti(L, work, (*n)--);
    return lua_gettop(L);
}

/* ---- walks ---- */

/* What the baseline walk and the sweep share: a visited set and a work
 * list (stack indices), and a node count against a limit. */
typedef struct walk {
    int seen, work;
    lua_Integer nwork;
    long nodes, limit;
    bool truncated;
} walk;

/* Queues the value at idx when the walk goes into it: a table or a Lua
 * function (C functions have no upvalues a script can reach). */
static void walk_push(lua_State *L, walk *w, int idx)
{
    if (lua_istable(L, idx) || is_lua_function(L, idx)) {
        lua_pushvalue(L, idx);
        lua_rawseti(L, w->work, ++w->nwork);
    }
}

/* Counts the value at x, not seen yet, as visited and marks it seen; false
 * (the walk cut short) past the node limit. */
static bool walk_visit(lua_State *L, walk *w, int x)
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

typedef struct track_walk {
    walk w;
    int base, foreign, funcs;  /* stack indices; funcs 0: not kept */
    int owner, name;           /* the owner table, the module's name */
    lua_Integer nfuncs;
} track_walk;

/* Sets up t for a walk that records baselines: the base and owner
 * registries, the set of foreign tables (all but except), and with funcs a
 * list of the Lua functions it meets. name_idx: the module's name. */
static void track_begin(lua_State *L, track_walk *t, int except, int name_idx, bool funcs)
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
static void track_table(lua_State *L, track_walk *t, int x, int snap)
{
    lua_pushnil(L);
    while (lua_next(L, x)) {
        t->w.nodes++;
        if (is_data_key(L, -2)) {
            lua_pushvalue(L, -2);
            push_snap_value(L, -2);
            lua_rawset(L, snap);
        }
        walk_push(L, &t->w, -1);
        lua_pop(L, 1);
    }
    if (lua_getmetatable(L, x)) {
        walk_push(L, &t->w, -1);
        lua_pop(L, 1);
    }
}

/* A Lua function's named upvalues as they are now into snap; queues them,
 * and lists the function in funcs when kept. */
static void track_function(lua_State *L, track_walk *t, int x, int snap)
{
    const char *name;
    for (int i = 1; (name = lua_getupvalue(L, x, i)) != NULL; i++) {
        if (matchable_upvalue(name)) {
            push_snap_value(L, -1);
            lua_setfield(L, snap, name);
            walk_push(L, &t->w, -1);
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
static void track(lua_State *L, track_walk *t, int root)
{
    walk_push(L, &t->w, root);
    while (t->w.nwork > 0) {
        int x = pop_work(L, t->w.work, &t->w.nwork);
        if (!has_key(L, t->w.seen, x) && !has_key(L, t->base, x) && !has_key(L, t->foreign, x)
            && walk_visit(L, &t->w, x)) {
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
    track_walk t;
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

/* ---- comparing code ---- */

typedef struct dump_buf {
    char *p;
    size_t n, cap;
    bool failed;
} dump_buf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    dump_buf *b = (dump_buf *)ud;
    if (b->n + sz > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + sz)
            cap *= 2;
        char *q = (char *)realloc(b->p, cap);
        if (q == NULL) {
            b->failed = true;
            return 1;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, sz);
    b->n += sz;
    return 0;
}

/* A stripped dump without the line numbers it keeps (each function's
 * linedefined and lastlinedefined), so that code moved up or down by an
 * edit elsewhere compares equal. Follows ldump.c of Lua 5.4; returns false
 * (the dump left as it was) on anything it does not expect. */
typedef struct dump_rd {
    const unsigned char *p, *end;
    unsigned char *out;
    size_t n;
    size_t isize, nsize; /* sizeof(Instruction), sizeof(lua_Number) and lua_Integer */
} dump_rd;

static bool rd_copy(dump_rd *r, size_t k, bool keep)
{
    if ((size_t)(r->end - r->p) < k)
        return false;
    if (keep)
        memcpy(r->out + r->n, r->p, k), r->n += k;
    r->p += k;
    return true;
}

static bool rd_size(dump_rd *r, size_t *x, bool keep)
{
    const unsigned char *start = r->p;
    size_t v = 0;
    for (;;) {
        if (r->p == r->end || r->p - start > 9)
            return false;
        unsigned char b = *r->p++;
        v = (v << 7) | (b & 0x7f);
        if (b & 0x80)
            break;
    }
    if (keep)
        memcpy(r->out + r->n, start, (size_t)(r->p - start)), r->n += (size_t)(r->p - start);
    *x = v;
    return true;
}

static bool rd_function(dump_rd *r, int depth)
{
    size_t n, k;
    if (depth > 200 || !rd_size(r, &n, true) || (n > 0 && !rd_copy(r, n - 1, true))) /* source */
        return false;
    if (!rd_size(r, &k, false) || !rd_size(r, &k, false)) /* the two line numbers, dropped */
        return false;
    if (!rd_copy(r, 3, true) || !rd_size(r, &n, true) || n > (size_t)(r->end - r->p) / r->isize
        || !rd_copy(r, n * r->isize, true)) /* parameters, stack size; code */
        return false;
    if (!rd_size(r, &n, true)) /* constants */
        return false;
    for (size_t i = 0; i < n; i++) {
        if (r->p == r->end)
            return false;
        unsigned char tt = *r->p;
        if (!rd_copy(r, 1, true))
            return false;
        if (tt == 0x13 || tt == 0x03) { /* float, integer */
            if (!rd_copy(r, r->nsize, true))
                return false;
        } else if (tt == 0x04 || tt == 0x14) { /* short, long string */
            if (!rd_size(r, &k, true) || (k > 0 && !rd_copy(r, k - 1, true)))
                return false;
        } else if (tt != 0x00 && tt != 0x01 && tt != 0x11) { /* nil, false, true */
            return false;
        }
    }
    if (!rd_size(r, &n, true) || n > (size_t)(r->end - r->p) / 3 || !rd_copy(r, n * 3, true)) /* upvalues */
        return false;
    if (!rd_size(r, &n, true)) /* nested functions */
        return false;
    for (size_t i = 0; i < n; i++)
        if (!rd_function(r, depth + 1))
            return false;
    for (int i = 0; i < 4; i++) /* debug information: empty when stripped */
        if (!rd_size(r, &n, true) || n != 0)
            return false;
    return true;
}

static void drop_lines(dump_buf *b)
{
    /* header: signature 4, version, format, LUAC_DATA 6, three sizes,
     * LUAC_INT, LUAC_NUM; then the main function's upvalue count */
    if (b->failed || b->n < 15)
        return;
    const unsigned char *h = (const unsigned char *)b->p;
    size_t isize = h[12], intsize = h[13], numsize = h[14];
    size_t head = 15 + intsize + numsize + 1;
    if (isize == 0 || intsize != numsize || b->n < head)
        return;
    unsigned char *out = (unsigned char *)malloc(b->n);
    if (out == NULL)
        return;
    dump_rd r = {h + head, h + b->n, out, head, isize, numsize};
    memcpy(out, h, head);
    if (rd_function(&r, 0) && r.p == r.end) {
        free(b->p);
        b->p = (char *)out;
        b->n = r.n;
    } else {
        free(out);
    }
}

/* Whether the Lua functions at a and b have the same code (bytecode,
 * constants and nested functions; debug information and line numbers
 * left out, so a comment or code moved to other lines is no change). When
 * in doubt (no memory), they differ. */
static bool same_code(lua_State *L, int a, int b)
{
    dump_buf da = {0}, db = {0};
    lua_pushvalue(L, a);
    lua_dump(L, dump_writer, &da, 1);
    lua_pop(L, 1);
    lua_pushvalue(L, b);
    lua_dump(L, dump_writer, &db, 1);
    lua_pop(L, 1);
    drop_lines(&da);
    drop_lines(&db);
    bool same = !da.failed && !db.failed && da.n == db.n && (da.n == 0 || memcmp(da.p, db.p, da.n) == 0);
    free(da.p);
    free(db.p);
    return same;
}

/* ---- merging ---- */

typedef struct merge_walk {
    int base, fresh, pairs, relink, resolved, work;
    int foreign, owner, name;
    lua_Integer nwork;
    steer_reload_info *info;
} merge_walk;

static void push_pair(lua_State *L, merge_walk *m, int o, int n)
{
    o = lua_absindex(L, o);
    n = lua_absindex(L, n);
    lua_pushvalue(L, o);
    lua_rawseti(L, m->work, ++m->nwork);
    lua_pushvalue(L, n);
    lua_rawseti(L, m->work, ++m->nwork);
}

/* Whether the new value at n is still to be merged; if so it is now taken
 * (pairs: n -> o), so a value met twice merges once. */
static bool claim_pair(lua_State *L, merge_walk *m, int o, int n)
{
    if (has_key(L, m->pairs, n))
        return false;
    lua_pushvalue(L, n);
    lua_pushvalue(L, o);
    lua_rawset(L, m->pairs);
    return true;
}

/* Whether the old table at o may take the new one at n in place: n is made
 * by this load, and o is neither a library or other module (package.loaded,
 * the globals) nor a table another module's load made. */
static bool mergeable(lua_State *L, merge_walk *m, int o, int n)
{
    if (!has_key(L, m->fresh, n) || has_key(L, m->foreign, o))
        return false;
    lua_pushvalue(L, o);
    int ty = lua_rawget(L, m->owner);
    bool ok = ty == LUA_TNIL || lua_rawequal(L, -1, m->name);
    lua_pop(L, 1);
    return ok;
}

/* The three-way rule's test for data: whether the old source made the
 * same value as the new one at nv, by the baseline at base (not a table:
 * none, so no) under the key on top of the stack (popped). */
static bool same_source(lua_State *L, int base, int nv)
{
    if (!lua_istable(L, base)) {
        lua_pop(L, 1);
        return false;
    }
    lua_rawget(L, base);
    bool same = !is_ref(L, -1) && lua_rawequal(L, -1, nv);
    lua_pop(L, 1);
    return same;
}

/* Pairs the old Lua function at of with the new one at nf: counts the
 * change, remembers it for the sweep and queues the upvalue merge. */
static void pair_functions(lua_State *L, merge_walk *m, int of, int nf)
{
    of = lua_absindex(L, of);
    nf = lua_absindex(L, nf);
    if (lua_rawequal(L, of, nf))
        return;
    lua_pushvalue(L, of);
    lua_pushvalue(L, nf);
    lua_rawset(L, m->relink);
    push_pair(L, m, of, nf);
}

/* The index of the old function's upvalue that upvalue i (name) of the new
 * function joins, or 0 when there is nothing to merge: the new variable
 * is decided already (another new function shares it), the old function
 * has no variable of that name, or it is the same variable. */
static int old_variable(lua_State *L, merge_walk *m, int of, int nf, int i, const char *name)
{
    void *nid = lua_upvalueid(L, nf, i);
    lua_pushlightuserdata(L, nid);
    bool decided = lua_rawget(L, m->resolved) != LUA_TNIL;
    lua_pop(L, 1);
    if (decided)
        return 0;
    const char *oname;
    for (int j = 1; (oname = lua_getupvalue(L, of, j)) != NULL; j++) {
        lua_pop(L, 1);
        if (strcmp(oname, name) == 0)
            return lua_upvalueid(L, of, j) == nid ? 0 : j;
    }
    return 0;
}

/* Merges the new function's variable (value at nv, upvalue id nid) into
 * the old function's variable j (see the file comment). ubo: the old
 * function's load-time upvalues, or nil. The decision is kept in
 * `resolved` (nid -> old function and j) for every new function that
 * shares the variable. */
static void merge_upvalue(lua_State *L, merge_walk *m, int of, int j, int nv, void *nid, int ubo, const char *name)
{
    lua_getupvalue(L, of, j);
    int ov = lua_gettop(L);
    bool keep_old = false;
    if (lua_istable(L, nv) && lua_istable(L, ov)) {
        if (lua_rawequal(L, nv, ov)) {
            keep_old = true;
        } else if (mergeable(L, m, ov, nv)) {
            push_pair(L, m, ov, nv);
            keep_old = true;
        }
    } else if (is_lua_function(L, nv) && is_lua_function(L, ov)) {
        pair_functions(L, m, ov, nv);
    } else if (is_data(lua_type(L, nv)) || lua_isnil(L, nv)) {
        lua_pushstring(L, name);
        keep_old = same_source(L, ubo, nv);
    }
    if (!keep_old) {
        if (!lua_rawequal(L, ov, nv) && !lua_isfunction(L, nv))
            m->info->values++;
        lua_pushvalue(L, nv);
        lua_setupvalue(L, of, j);
    }
    /* the new variable becomes the old one: nid -> { of, j } */
    lua_pushlightuserdata(L, nid);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, of);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, j);
    lua_rawseti(L, -2, 2);
    lua_rawset(L, m->resolved);
    lua_settop(L, ov - 1);
}

/* Merges the upvalues of the new function at nf into the variables of the
 * old one at of, by name (see the file comment). */
static void merge_functions(lua_State *L, merge_walk *m, int of, int nf)
{
    if (!claim_pair(L, m, of, nf))
        return;
    if (same_code(L, of, nf))
        m->info->unchanged++;
    else
        m->info->functions++;
    lua_pushvalue(L, of);
    lua_rawget(L, m->base);
    int ubo = lua_gettop(L); /* the old function's load-time upvalues, or nil */
    const char *name;
    for (int i = 1; (name = lua_getupvalue(L, nf, i)) != NULL; i++) {
        int nv = lua_gettop(L);
        int j = matchable_upvalue(name) ? old_variable(L, m, of, nf, i, name) : 0;
        if (j != 0)
            merge_upvalue(L, m, of, j, nv, lua_upvalueid(L, nf, i), ubo, name);
        lua_settop(L, nv - 1);
    }
    lua_settop(L, ubo - 1);
}

/* Fields the new source (n) dropped from o: removed when the old source
 * made them (by the baseline at bo, or with none, when they are
 * functions); kept when they were added at run time. Returns the number of
 * functions removed. Clearing fields during lua_next is allowed. */
static int drop_fields(lua_State *L, merge_walk *m, int o, int n, int bo)
{
    bool has_base = lua_istable(L, bo);
    int code_changes = 0;
    lua_pushnil(L);
    while (lua_next(L, o)) {
        if (is_data_key(L, -2) && !has_key(L, n, -2)
            && (has_base ? has_key(L, bo, -2) : lua_isfunction(L, -1))) {
            if (lua_isfunction(L, -1))
                code_changes++;
            m->info->removed++;
            lua_pushvalue(L, -2);
            lua_pushnil(L);
            lua_rawset(L, o);
        }
        lua_pop(L, 1);
    }
    return code_changes;
}

/* Merges the new field (key at k, value at nv) into o: tables merge in
 * place, functions are paired and replaced, data follows the three-way
 * rule (baseline at bo). Returns 1 when o's code changes (a function added,
 * or replaced by other code), else 0. */
static int merge_field(lua_State *L, merge_walk *m, int o, int k, int nv, int bo)
{
    lua_pushvalue(L, k);
    lua_rawget(L, o);
    int ov = lua_gettop(L);
    bool set = false;
    int code_change = 0;
    if (lua_rawequal(L, ov, nv)) {
        /* the same value: nothing to do */
    } else if (lua_istable(L, nv)) {
        if (lua_istable(L, ov) && mergeable(L, m, ov, nv)) {
            push_pair(L, m, ov, nv);
        } else {
            set = true;
            m->info->values++;
        }
    } else if (lua_isfunction(L, nv)) {
        set = true;
        if (is_lua_function(L, ov) && is_lua_function(L, nv)) {
            code_change = !same_code(L, ov, nv);
            pair_functions(L, m, ov, nv);
        } else {
            code_change = 1;
            m->info->added++;
        }
    } else {
        lua_pushvalue(L, k);
        if (!same_source(L, bo, nv)) {
            set = true;
            m->info->values++;
        }
    }
    if (set) {
        lua_pushvalue(L, k);
        lua_pushvalue(L, nv);
        lua_rawset(L, o); /* an existing key, or a new one in o (not n): fine under lua_next of n */
    }
    lua_settop(L, ov - 1);
    return code_change;
}

/* n's metatable: o takes it when o has none or when o's cannot take the
 * new one in place; otherwise the two are merged. */
static void merge_metatable(lua_State *L, merge_walk *m, int o, int n)
{
    if (!lua_getmetatable(L, n))
        return;
    int mn = lua_gettop(L);
    if (!lua_getmetatable(L, o)) {
        lua_pushvalue(L, mn);
        lua_setmetatable(L, o);
    } else if (!lua_rawequal(L, -1, mn)) {
        if (mergeable(L, m, lua_gettop(L), mn)) {
            push_pair(L, m, -1, mn);
        } else {
            lua_pushvalue(L, mn);
            lua_setmetatable(L, o);
        }
    }
    lua_settop(L, mn - 1);
}

/* Merges the new table at n into the old one at o (see the file comment). */
static void merge_tables(lua_State *L, merge_walk *m, int o, int n)
{
    if (!claim_pair(L, m, o, n))
        return;
    lua_pushvalue(L, o);
    lua_rawget(L, m->base);
    int bo = lua_gettop(L); /* o's load-time fields, or nil */
    int code_changes = drop_fields(L, m, o, n, bo);
    lua_pushnil(L);
    while (lua_next(L, n)) {
        int nv = lua_gettop(L);
        if (is_data_key(L, nv - 1))
            code_changes += merge_field(L, m, o, nv - 1, nv, bo);
        lua_pop(L, 1);
    }
    merge_metatable(L, m, o, n);

    /* o now stands for this version of the source: its baseline is n's */
    lua_pushvalue(L, o);
    lua_pushvalue(L, n);
    lua_rawget(L, m->base);
    lua_rawset(L, m->base);

    if (code_changes > 0) {
        lua_pushliteral(L, "__index");
        if (lua_rawget(L, o) != LUA_TNIL)
            m->info->classes++;
        lua_pop(L, 1);
    }
    lua_settop(L, bo - 1);
}

/* ---- pointing old references at the new functions ---- */

typedef struct sweep_walk {
    walk w;
    int relink;
} sweep_walk;

/* Pushes what the old function at idx became, returning true; or nothing. */
static bool relinked(lua_State *L, sweep_walk *s, int idx)
{
    if (lua_type(L, idx) != LUA_TFUNCTION)
        return false;
    lua_pushvalue(L, idx);
    if (lua_rawget(L, s->relink) != LUA_TNIL)
        return true;
    lua_pop(L, 1);
    return false;
}

/* The table at x: fields holding a replaced function get the new one; the
 * other values and the metatable are queued. */
static void sweep_table(lua_State *L, sweep_walk *s, int x)
{
    lua_pushnil(L);
    while (lua_next(L, x)) {
        s->w.nodes++;
        if (relinked(L, s, -1)) {
            lua_pushvalue(L, -3);
            lua_insert(L, -2);
            lua_rawset(L, x); /* an existing key: fine under lua_next */
        } else {
            walk_push(L, &s->w, -1);
        }
        lua_pop(L, 1);
    }
    if (lua_getmetatable(L, x)) {
        walk_push(L, &s->w, -1);
        lua_pop(L, 1);
    }
}

/* The Lua function at x: the same for its upvalues. */
static void sweep_function(lua_State *L, sweep_walk *s, int x)
{
    for (int i = 1; lua_getupvalue(L, x, i) != NULL; i++) {
        if (relinked(L, s, -1))
            lua_setupvalue(L, x, i);
        else
            walk_push(L, &s->w, -1);
        lua_pop(L, 1);
    }
}

static void sweep(lua_State *L, sweep_walk *s)
{
    while (s->w.nwork > 0) {
        int x = pop_work(L, s->w.work, &s->w.nwork);
        if (!has_key(L, s->w.seen, x) && walk_visit(L, &s->w, x)) {
            if (lua_istable(L, x))
                sweep_table(L, s, x);
            else
                sweep_function(L, s, x);
        }
        lua_settop(L, x - 1);
    }
}

/* Queues every world's agents' self tables and world.user, and fixes
 * world.on_error. */
static void sweep_worlds(lua_State *L, sweep_walk *s)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_worlds);
    int worlds = lua_gettop(L);
    if (!lua_istable(L, worlds)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushnil(L);
    while (lua_next(L, worlds)) {
        lua_pop(L, 1);
        int w = lua_gettop(L);
        sl_world *sw = sl_toworld(L, w);
        if (sw == NULL || sw->w == NULL)
            continue;
        lua_getiuservalue(L, w, SL_WUV_USER);
        walk_push(L, &s->w, -1);
        lua_pop(L, 1);
        lua_getiuservalue(L, w, SL_WUV_ONERROR);
        if (relinked(L, s, -1)) {
            lua_setiuservalue(L, w, SL_WUV_ONERROR);
        }
        lua_pop(L, 1);
        if (sw->brains == 0)
            continue;
        lua_getiuservalue(L, w, SL_WUV_AGENTS);
        int agents = lua_gettop(L);
        for (int i = 0; i < sw->brain_count; i++) {
            if (lua_rawgeti(L, agents, (lua_Integer)sw->brain_list[i].index + 1) == LUA_TUSERDATA) {
                lua_getiuservalue(L, -1, SL_AUV_SELF);
                walk_push(L, &s->w, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, w);
    }
    lua_pop(L, 1);
}

/* ---- the reload's merge ---- */

/* Step 2: the merge, from the module tables (old at old_idx, new at
 * new_idx) through everything paired on the way. */
static void merge_versions(lua_State *L, merge_walk *m, const track_walk *t, int old_idx, int new_idx,
                           steer_reload_info *info)
{
    memset(m, 0, sizeof *m);
    m->info = info;
    m->base = t->base;
    m->fresh = t->w.seen;
    m->foreign = t->foreign;
    m->owner = t->owner;
    m->name = t->name;
    lua_newtable(L);
    m->pairs = lua_gettop(L);
    lua_newtable(L);
    m->relink = lua_gettop(L);
    lua_newtable(L);
    m->resolved = lua_gettop(L);
    lua_newtable(L);
    m->work = lua_gettop(L);
    push_pair(L, m, old_idx, new_idx);
    while (m->nwork > 0) {
        int n = pop_work(L, m->work, &m->nwork);
        int o = pop_work(L, m->work, &m->nwork);
        if (lua_istable(L, n))
            merge_tables(L, m, o, n);
        else
            merge_functions(L, m, o, n);
        lua_settop(L, n - 1);
    }
}

/* Step 3: every new function (listed in t's funcs) that shares a decided
 * variable joins the old one. */
static void join_resolved(lua_State *L, const track_walk *t, int resolved)
{
    for (lua_Integer i = 1; i <= t->nfuncs; i++) {
        lua_rawgeti(L, t->funcs, i);
        int f = lua_gettop(L);
        for (int u = 1; lua_getupvalue(L, f, u) != NULL; u++) {
            lua_pop(L, 1);
            lua_pushlightuserdata(L, lua_upvalueid(L, f, u));
            if (lua_rawget(L, resolved) == LUA_TTABLE) {
                lua_rawgeti(L, -1, 1);
                lua_rawgeti(L, -2, 2);
                int j = (int)lua_tointeger(L, -1);
                lua_pop(L, 1);
                if (lua_upvalueid(L, f, u) != lua_upvalueid(L, -1, j))
                    lua_upvaluejoin(L, f, u, lua_gettop(L), j);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, f - 1);
    }
}

/* Step 4: old functions held elsewhere (package.loaded and what it
 * reaches, the worlds' agents and world.user) become the new ones. */
static void relink_old_functions(lua_State *L, int relink, steer_reload_info *info)
{
    lua_pushnil(L);
    if (lua_next(L, relink) == 0)
        return; /* no function was replaced */
    lua_pop(L, 2);
    sweep_walk s;
    memset(&s, 0, sizeof s);
    s.relink = relink;
    lua_newtable(L);
    s.w.seen = lua_gettop(L);
    lua_newtable(L);
    s.w.work = lua_gettop(L);
    s.w.limit = HS_SWEEP_LIMIT;
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    walk_push(L, &s.w, -1);
    lua_pop(L, 1);
    sweep_worlds(L, &s);
    sweep(L, &s);
    info->truncated = info->truncated || s.w.truncated;
}

int sl_hotswap(lua_State *L, const char *name, int old_idx, int new_idx, steer_reload_info *info)
{
#ifdef SL_NO_HOTSWAP
    return luaL_error(L, "%s: %s", name, SL_NO_HOTSWAP_MSG); /* lua_compat.h */
#endif
    old_idx = lua_absindex(L, old_idx);
    new_idx = lua_absindex(L, new_idx);
    int top = lua_gettop(L);
    lua_pushstring(L, name);

    /* 1. baselines of the new version, and the set of what it made (the
     * module itself is what the merge changes: not foreign) */
    track_walk t;
    track_begin(L, &t, old_idx, lua_gettop(L), true);
    track(L, &t, new_idx);
    info->truncated = t.w.truncated;

    merge_walk m;
    merge_versions(L, &m, &t, old_idx, new_idx, info);
    join_resolved(L, &t, m.resolved);
    relink_old_functions(L, m.relink, info);
    info->changed = info->functions + info->added + info->removed + info->values > 0;
    lua_settop(L, top);
    return 0;
}
