/*
 * rewind.c — checkpoints for rewinds: world:snapshot() every K ticks
 * (--rewind-every, default 30) in a ring bounded by --rewind-mb (default
 * 64), so going back restores the newest usable checkpoint at or before the
 * tick wanted and re-simulates at most K - 1 ticks from it with the
 * journal's inputs (record.c), instead of re-running the whole session from
 * a fresh start.
 *
 * A checkpoint holds the world and every `self` but not the code: it is
 * usable only while the brains and scene run the code they ran when it was
 * taken. Each reload (and each restart, which makes a new world) starts a
 * new code epoch, and only checkpoints of the current epoch are restored;
 * going back past a reload re-runs the session from the start (which loads
 * the code of the time and takes its checkpoints again). Snapshots live in
 * the Lua state, so a fresh start empties the ring.
 *
 * The snapshot API is looked up at run time (world.snapshot): with a steer
 * that lacks it, or a scene whose `self` cannot be saved (a function in it),
 * rewinds still work, by re-running from the start; the first failure is
 * reported once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "app.h"
#include "steer_host.h"
#include "steer_lua.h"

typedef struct checkpoint {
    long tick;
    long epoch;
    int ref;       ///< registry ref of the snapshot
    size_t bytes;  ///< snap.memory plus the Lua memory the capture took
} checkpoint;

struct rewinder {
    checkpoint *c; ///< oldest first
    int n, cap;
    size_t bytes, budget;
    long every;
    long epoch;
    bool unavailable; ///< the snapshot API is missing or failed: journal-only rewinds
    long taken, dropped;
    unsigned lua_gen; ///< the Lua state the refs belong to (a->lua_gen at capture)
    char why[256];    ///< why snapshots failed (told at the first rewind that needs them)
    bool told;
};

/* Refs of another Lua state (a fresh start, a scene switch) are gone: forget them. */
static void same_state(app *a, rewinder *r)
{
    if (r->lua_gen == a->lua_gen)
        return;
    r->lua_gen = a->lua_gen;
    r->n = 0;
    r->bytes = 0;
    r->epoch++;
}

rewinder *rewind_new(size_t budget_mb, long every)
{
    rewinder *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->budget = budget_mb * 1024u * 1024u;
    r->every = every > 0 ? every : 30;
    r->unavailable = budget_mb == 0;
    if (r->unavailable) /* said at the first rewind, as a failed snapshot is */
        snprintf(r->why, sizeof r->why, "--rewind-mb 0");
    return r;
}

static void drop_oldest(app *a, rewinder *r)
{
    if (r->n == 0)
        return;
    if (a->L != NULL)
        luaL_unref(a->L, LUA_REGISTRYINDEX, r->c[0].ref);
    r->bytes -= r->c[0].bytes;
    memmove(&r->c[0], &r->c[1], (size_t)(r->n - 1) * sizeof r->c[0]);
    r->n--;
    r->dropped++;
}

static void clear(app *a, rewinder *r)
{
    same_state(a, r);
    for (int i = 0; i < r->n; i++)
        if (a->L != NULL)
            luaL_unref(a->L, LUA_REGISTRYINDEX, r->c[i].ref);
    r->n = 0;
    r->bytes = 0;
    r->epoch++;
}

void rewind_branch(app *a, long tick)
{
    rewinder *r = a->rewind;
    if (r == NULL)
        return;
    same_state(a, r);
    int keep = 0;
    for (int i = 0; i < r->n; i++) {
        if (r->c[i].tick > tick) {
            luaL_unref(a->L, LUA_REGISTRYINDEX, r->c[i].ref);
            r->bytes -= r->c[i].bytes;
        } else {
            r->c[keep++] = r->c[i];
        }
    }
    r->n = keep;
}

void rewind_new_epoch(app *a)
{
    if (a->rewind != NULL)
        a->rewind->epoch++;
}

void rewind_free(app *a)
{
    /* the refs go with the Lua state */
    free(a->rewind != NULL ? a->rewind->c : NULL);
    free(a->rewind);
    a->rewind = NULL;
}

size_t rewind_bytes(const app *a)
{
    return a->rewind != NULL ? a->rewind->bytes : 0;
}

int rewind_count(const app *a)
{
    return a->rewind != NULL ? a->rewind->n : 0;
}

/* ------------------------------------------------------------------ capture */

/* Snapshots failed (a `self` or world.user holding what cannot be saved):
 * rewinds go on without checkpoints. Said when a rewind first needs them,
 * not on every run of such a scene. */
static void unavailable(app *a, const char *why)
{
    rewinder *r = a->rewind;
    r->unavailable = true;
    clear(a, r);
    app_format(r->why, sizeof r->why, "%s", why);
    char *nl = strchr(r->why, '\n'); /* the message, not its traceback */
    if (nl != NULL)
        *nl = '\0';
}

/* What capture_fn and restore_fn are handed. */
typedef struct snap_call {
    app *a;
    int ref;       ///< the snapshot's registry ref: capture_fn's result, restore_fn's input
    size_t memory; ///< capture_fn: snap.memory
    bool missing;  ///< capture_fn: the world has no snapshot method
} snap_call;

/* Runs fn with c under lua_pcall. On an error snapshots are unavailable
 * from then on, for the reason given (prefix, then the message). */
static bool run_snap(app *a, lua_CFunction fn, snap_call *c, const char *prefix)
{
    int top = lua_gettop(a->L);
    lua_pushcfunction(a->L, fn);
    lua_pushlightuserdata(a->L, c);
    if (lua_pcall(a->L, 1, 0, 0) != LUA_OK) {
        char why[300];
        const char *m = lua_tostring(a->L, -1);
        app_format(why, sizeof why, "%s%s", prefix, m ? m : "error");
        lua_settop(a->L, top);
        unavailable(a, why);
        return false;
    }
    lua_settop(a->L, top);
    return true;
}

/* snap = world:snapshot(scene.save and scene.save()) */
static int capture_fn(lua_State *L)
{
    snap_call *c = lua_touserdata(L, 1);
    app *a = c->a;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref);
    int world = lua_gettop(L);
    lua_getfield(L, world, "snapshot");
    if (!lua_isfunction(L, -1)) {
        c->missing = true;
        return 0;
    }
    lua_pushvalue(L, world);
    int nargs = 1;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->scene_ref);
    lua_getfield(L, -1, "save");
    lua_remove(L, -2);
    if (lua_isfunction(L, -1)) {
        if (steer_lua_pcall(L, 0, 1) != LUA_OK)
            return lua_error(L);
        nargs = 2;
    } else {
        lua_pop(L, 1);
    }
    if (steer_lua_pcall(L, nargs, 1) != LUA_OK)
        return lua_error(L);
    lua_getfield(L, -1, "memory");
    c->memory = lua_isinteger(L, -1) ? (size_t)lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

void rewind_after_step(app *a)
{
    rewinder *r = a->rewind;
    if (r == NULL || r->unavailable || a->world == NULL || a->L == NULL || a->scene_ref == LUA_NOREF ||
        a->steps_run % r->every != 0)
        return;
    same_state(a, r);
    for (int i = 0; i < r->n; i++)
        if (r->c[i].tick == a->steps_run && r->c[i].epoch == r->epoch)
            return; /* stepping forward over a tick it has already */
    size_t before = steer_host_memory(a->L);
    snap_call c = {a, LUA_NOREF, 0, false};
    if (!run_snap(a, capture_fn, &c, ""))
        return;
    if (c.missing) {
        /* a steer without snapshots: journal-only rewinds, nothing to report */
        r->unavailable = true;
        return;
    }
    size_t after = steer_host_memory(a->L);
    /* The host's count holds the snapshot's C memory as well as its Lua
     * part (one budget): the growth is the checkpoint's cost. */
    size_t grew = after > before ? after - before : 0;
    checkpoint cp = {a->steps_run, r->epoch, c.ref, grew > c.memory ? grew : c.memory};
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 64;
        checkpoint *nc = realloc(r->c, (size_t)cap * sizeof *nc);
        if (nc == NULL) {
            luaL_unref(a->L, LUA_REGISTRYINDEX, c.ref);
            return;
        }
        r->c = nc;
        r->cap = cap;
    }
    r->c[r->n++] = cp;
    r->bytes += cp.bytes;
    r->taken++;
    while (r->bytes > r->budget && r->n > 1)
        drop_oldest(a, r);
}

/* ------------------------------------------------------------------ restore */

/* local d = world:restore(snap); if scene.restore then scene.restore(d) end */
static int restore_fn(lua_State *L)
{
    snap_call *c = lua_touserdata(L, 1);
    app *a = c->a;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref);
    lua_getfield(L, -1, "restore");
    lua_insert(L, -2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
    if (steer_lua_pcall(L, 2, 1) != LUA_OK)
        return lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->scene_ref);
    lua_getfield(L, -1, "restore");
    lua_remove(L, -2);
    if (lua_isfunction(L, -1)) {
        lua_insert(L, -2);
        if (steer_lua_pcall(L, 1, 0) != LUA_OK)
            return lua_error(L);
    }
    return 0;
}

long rewind_restore(app *a, long target)
{
    rewinder *r = a->rewind;
    if (r != NULL && r->unavailable && r->why[0] && !r->told) {
        r->told = true;
        fprintf(stderr, "steer: rewind: no checkpoints (%s); going back re-runs the session from the start\n",
                r->why);
        app_flash(a, FLASH_BAD, 4.0, "rewind without checkpoints: %s", r->why);
    }
    if (r == NULL || r->unavailable || a->L == NULL || a->world == NULL)
        return -1;
    same_state(a, r);
    int best = -1;
    for (int i = 0; i < r->n; i++)
        if (r->c[i].epoch == r->epoch && r->c[i].tick <= target && r->c[i].tick <= a->steps_run &&
            (best < 0 || r->c[i].tick > r->c[best].tick))
            best = i;
    if (best < 0)
        return -1;
    snap_call c = {a, r->c[best].ref, 0, false};
    if (!run_snap(a, restore_fn, &c, "restore: "))
        return -1;
    return r->c[best].tick;
}
