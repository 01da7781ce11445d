/*
 * hotswap_plan.c — a reload's plan: the merge of the new version into the
 * loaded one (hotswap.c's file comment has the rules) and the sweep that
 * points old references at the new functions.
 *
 * Everything it decides to change in the live module goes to the pending
 * writes (hotswap_commit.c), and everything it reads of a live object comes
 * through them, so it works on the module as its own earlier writes leave
 * it while the module itself stays as it was until the commit. It may run
 * out of memory anywhere: the module is then untouched.
 */
#include <string.h>

#include "hotswap.h"

#ifndef SL_NO_HOTSWAP

typedef struct merge_walk {
    hs_pending *p;
    int base, fresh, pairs, relink, resolved, work;
    int foreign, owner, name;
    int coded, same; /* new function -> the old one its code was compared with, and the verdict */
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
    if (hs_has_key(L, m->pairs, n))
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
    if (!hs_has_key(L, m->fresh, n) || hs_has_key(L, m->foreign, o))
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
    bool same = !hs_is_ref(L, -1) && lua_rawequal(L, -1, nv);
    lua_pop(L, 1);
    return same;
}

/* Whether the old Lua function at of and the new one at nf have the same
 * code. A pair is asked twice (by the field that holds it, then by the
 * merge of its upvalues): its code is compared once and the verdict kept. */
static bool pair_same_code(lua_State *L, merge_walk *m, int of, int nf)
{
    of = lua_absindex(L, of);
    nf = lua_absindex(L, nf);
    lua_pushvalue(L, nf);
    lua_rawget(L, m->coded);
    bool known = lua_rawequal(L, -1, of);
    lua_pop(L, 1);
    if (known) {
        lua_pushvalue(L, nf);
        lua_rawget(L, m->same);
        bool same = lua_toboolean(L, -1);
        lua_pop(L, 1);
        return same;
    }
    bool same = hs_same_code(L, of, nf);
    lua_pushvalue(L, nf);
    lua_pushvalue(L, of);
    lua_rawset(L, m->coded);
    lua_pushvalue(L, nf);
    lua_pushboolean(L, same);
    lua_rawset(L, m->same);
    return same;
}

/* Pairs the old Lua function at of with the new one at nf: remembers it
 * for the sweep and queues the upvalue merge. */
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
 * the old function's variable j (see hotswap.c's file comment). ubo: the
 * old function's load-time upvalues, or nil. The decision is kept in
 * `resolved` (nid -> old function and j) for every new function that
 * shares the variable. */
static void merge_upvalue(lua_State *L, merge_walk *m, int of, int j, int nv, void *nid, int ubo, const char *name)
{
    hs_getupvalue(L, m->p, of, j);
    int ov = lua_gettop(L);
    bool keep_old = false;
    if (lua_istable(L, nv) && lua_istable(L, ov)) {
        if (lua_rawequal(L, nv, ov)) {
            keep_old = true;
        } else if (mergeable(L, m, ov, nv)) {
            push_pair(L, m, ov, nv);
            keep_old = true;
        }
    } else if (hs_is_lua_function(L, nv) && hs_is_lua_function(L, ov)) {
        pair_functions(L, m, ov, nv);
    } else if (hs_is_data(lua_type(L, nv)) || lua_isnil(L, nv)) {
        lua_pushstring(L, name);
        keep_old = same_source(L, ubo, nv);
    }
    if (!keep_old) {
        if (!lua_rawequal(L, ov, nv) && !lua_isfunction(L, nv))
            m->info->values++;
        hs_setupvalue(L, m->p, of, j, nv);
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
 * old one at of, by name (see hotswap.c's file comment). */
static void merge_functions(lua_State *L, merge_walk *m, int of, int nf)
{
    if (!claim_pair(L, m, of, nf))
        return;
    if (pair_same_code(L, m, of, nf))
        m->info->unchanged++;
    else
        m->info->functions++;
    hs_get(L, m->p, m->base, of);
    int ubo = lua_gettop(L); /* the old function's load-time upvalues, or nil */
    const char *name;
    for (int i = 1; (name = hs_getupvalue(L, m->p, nf, i)) != NULL; i++) {
        int nv = lua_gettop(L);
        int j = hs_matchable_upvalue(name) ? old_variable(L, m, of, nf, i, name) : 0;
        if (j != 0)
            merge_upvalue(L, m, of, j, nv, lua_upvalueid(L, nf, i), ubo, name);
        lua_settop(L, nv - 1);
    }
    lua_settop(L, ubo - 1);
}

/* What a walk over one table's fields carries. */
typedef struct table_merge {
    merge_walk *m;
    int o, n, bo;     /* the old table, the new one, o's load-time fields (or nil) */
    int code_changes; /* functions added, removed or replaced by other code */
} table_merge;

/* A field of o (key at -2, value at -1) the new source (n) dropped:
 * removed when the old source made it (by the baseline, or with none, when
 * it is a function); kept when it was added at run time. */
static void drop_field(lua_State *L, void *ud)
{
    table_merge *tm = (table_merge *)ud;
    if (!hs_is_data_key(L, -2))
        return;
    hs_get(L, tm->m->p, tm->n, -2);
    bool in_new = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (in_new || !(lua_istable(L, tm->bo) ? hs_has_key(L, tm->bo, -2) : lua_isfunction(L, -1)))
        return;
    if (lua_isfunction(L, -1))
        tm->code_changes++;
    tm->m->info->removed++;
    lua_pushnil(L);
    hs_set(L, tm->m->p, tm->o, -3, -1);
    lua_pop(L, 1);
}

/* Merges the new field (key at k, value at nv) into o: tables merge in
 * place, functions are paired and replaced, data follows the three-way
 * rule (baseline at bo). Returns 1 when o's code changes (a function added,
 * or replaced by other code), else 0. */
static int merge_field(lua_State *L, merge_walk *m, int o, int k, int nv, int bo)
{
    hs_get(L, m->p, o, k);
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
        if (hs_is_lua_function(L, ov) && hs_is_lua_function(L, nv)) {
            code_change = !pair_same_code(L, m, ov, nv);
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
    if (set)
        hs_set(L, m->p, o, k, nv);
    lua_settop(L, ov - 1);
    return code_change;
}

/* A field of n (key at -2, value at -1) into o. */
static void new_field(lua_State *L, void *ud)
{
    table_merge *tm = (table_merge *)ud;
    int nv = lua_gettop(L);
    if (hs_is_data_key(L, nv - 1))
        tm->code_changes += merge_field(L, tm->m, tm->o, nv - 1, nv, tm->bo);
}

/* n's metatable: o takes it when o has none or when o's cannot take the
 * new one in place; otherwise the two are merged. */
static void merge_metatable(lua_State *L, merge_walk *m, int o, int n)
{
    if (!hs_getmetatable(L, m->p, n))
        return;
    int mn = lua_gettop(L);
    if (!hs_getmetatable(L, m->p, o)) {
        hs_setmetatable(L, m->p, o, mn);
    } else if (!lua_rawequal(L, -1, mn)) {
        if (mergeable(L, m, lua_gettop(L), mn))
            push_pair(L, m, -1, mn);
        else
            hs_setmetatable(L, m->p, o, mn);
    }
    lua_settop(L, mn - 1);
}

/* Merges the new table at n into the old one at o (see hotswap.c). */
static void merge_tables(lua_State *L, merge_walk *m, int o, int n)
{
    if (!claim_pair(L, m, o, n))
        return;
    hs_get(L, m->p, m->base, o);
    int bo = lua_gettop(L); /* o's load-time fields, or nil */
    table_merge tm = {m, o, n, bo, 0};
    hs_fields(L, m->p, o, drop_field, &tm);
    hs_fields(L, m->p, n, new_field, &tm);
    merge_metatable(L, m, o, n);

    /* o now stands for this version of the source: its baseline is n's */
    hs_get(L, m->p, m->base, n);
    hs_set(L, m->p, m->base, o, -1);
    lua_pop(L, 1);

    if (tm.code_changes > 0) {
        lua_pushliteral(L, "__index");
        hs_get(L, m->p, o, -1);
        if (!lua_isnil(L, -1))
            m->info->classes++;
        lua_pop(L, 2);
    }
    lua_settop(L, bo - 1);
}

/* ---- pointing old references at the new functions ---- */

typedef struct sweep_walk {
    hs_walk w;
    hs_pending *p;
    int relink;
    int x; /* the table whose fields are being swept */
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

/* A field of the table s->x (key at -2, value at -1): a replaced function
 * becomes the new one; another value is queued. */
static void sweep_field(lua_State *L, void *ud)
{
    sweep_walk *s = (sweep_walk *)ud;
    s->w.nodes++;
    if (relinked(L, s, -1)) {
        hs_set(L, s->p, s->x, -3, -1);
        lua_pop(L, 1);
    } else {
        hs_walk_push(L, &s->w, -1);
    }
}

/* The table at x: its fields, and its metatable queued. */
static void sweep_table(lua_State *L, sweep_walk *s, int x)
{
    s->x = x;
    hs_fields(L, s->p, x, sweep_field, s);
    if (hs_getmetatable(L, s->p, x)) {
        hs_walk_push(L, &s->w, -1);
        lua_pop(L, 1);
    }
}

/* The Lua function at x: the same for its upvalues. */
static void sweep_function(lua_State *L, sweep_walk *s, int x)
{
    for (int i = 1; hs_getupvalue(L, s->p, x, i) != NULL; i++) {
        if (relinked(L, s, -1)) {
            hs_setupvalue(L, s->p, x, i, -1);
            lua_pop(L, 1);
        } else {
            hs_walk_push(L, &s->w, -1);
        }
        lua_pop(L, 1);
    }
}

static void sweep(lua_State *L, sweep_walk *s)
{
    while (s->w.nwork > 0) {
        int x = hs_pop_work(L, s->w.work, &s->w.nwork);
        if (!hs_has_key(L, s->w.seen, x) && hs_walk_visit(L, &s->w, x)) {
            if (lua_istable(L, x))
                sweep_table(L, s, x);
            else
                sweep_function(L, s, x);
        }
        lua_settop(L, x - 1);
    }
}

/* Queues every world's agents' self tables and world.user, and plans
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
        hs_walk_push(L, &s->w, -1);
        lua_pop(L, 1);
        lua_getiuservalue(L, w, SL_WUV_ONERROR);
        if (relinked(L, s, -1)) {
            hs_set_onerror(L, s->p, w, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (sw->brains == 0)
            continue;
        lua_getiuservalue(L, w, SL_WUV_AGENTS);
        int agents = lua_gettop(L);
        for (int i = 0; i < sw->brain_count; i++) {
            if (lua_rawgeti(L, agents, (lua_Integer)sw->brain_list[i].index + 1) == LUA_TUSERDATA) {
                lua_getiuservalue(L, -1, SL_AUV_SELF);
                hs_walk_push(L, &s->w, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, w);
    }
    lua_pop(L, 1);
}

/* ---- the plan's steps ---- */

/* Step 2: the merge, from the module tables (old at old_idx, new at
 * new_idx) through everything paired on the way. */
static void merge_versions(lua_State *L, merge_walk *m, const hs_track *t, int old_idx, int new_idx)
{
    m->base = t->base;
    m->fresh = t->w.seen;
    m->foreign = t->foreign;
    m->owner = t->owner;
    m->name = t->name;
    int *tables[] = {&m->pairs, &m->relink, &m->resolved, &m->work, &m->coded, &m->same};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        lua_newtable(L);
        *tables[i] = lua_gettop(L);
    }
    push_pair(L, m, old_idx, new_idx);
    while (m->nwork > 0) {
        int n = hs_pop_work(L, m->work, &m->nwork);
        int o = hs_pop_work(L, m->work, &m->nwork);
        if (lua_istable(L, n))
            merge_tables(L, m, o, n);
        else
            merge_functions(L, m, o, n);
        lua_settop(L, n - 1);
    }
}

/* Step 3: every new function (listed in t's funcs) that shares a decided
 * variable joins the old one. */
static void join_resolved(lua_State *L, hs_pending *p, const hs_track *t, int resolved)
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
                    hs_join(L, p, f, u, -1, j);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, f - 1);
    }
}

/* Step 4: old functions held elsewhere (package.loaded and what it
 * reaches, the worlds' agents and world.user) become the new ones. */
static void relink_old_functions(lua_State *L, hs_pending *p, int relink, steer_reload_info *info)
{
    lua_pushnil(L);
    if (lua_next(L, relink) == 0)
        return; /* no function was replaced */
    lua_pop(L, 2);
    sweep_walk s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.relink = relink;
    lua_newtable(L);
    s.w.seen = lua_gettop(L);
    lua_newtable(L);
    s.w.work = lua_gettop(L);
    s.w.limit = HS_SWEEP_LIMIT;
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    hs_walk_push(L, &s.w, -1);
    lua_pop(L, 1);
    sweep_worlds(L, &s);
    sweep(L, &s);
    info->truncated = info->truncated || s.w.truncated;
}

void hs_plan_merge(lua_State *L, hs_pending *p, const hs_track *t, int old_idx, int new_idx,
                   steer_reload_info *info)
{
    merge_walk m;
    memset(&m, 0, sizeof m);
    m.p = p;
    m.info = info;
    merge_versions(L, &m, t, old_idx, new_idx);
    join_resolved(L, p, t, m.resolved);
    relink_old_functions(L, p, m.relink, info);
}

#endif /* SL_NO_HOTSWAP */
