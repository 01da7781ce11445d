/*
 * brain.c — the brain host: calling brain callbacks safely, instruction
 * budgets, routing runtime errors, and hot reload.
 *
 * A brain is a module table of optional functions (spawn, update, reload,
 * draw). Agents keep a reference to the module table itself, so a reload
 * that rewrites that table's fields in place changes the functions of every
 * agent at once while their `self` tables stay untouched.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 and realpath (sys.h) */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bind.h"
#include "slots.h"
#include "sys.h"

/* The budget is checked every this many VM instructions: coarse enough to
 * cost nothing measurable, fine enough to stop a runaway loop at once. */
#define SL_HOOK_EVERY 1000

/* ---- per-state data ---- */

sl_state *sl_getstate(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_state) == LUA_TUSERDATA) {
        sl_state *st = (sl_state *)lua_touserdata(L, -1);
        lua_pop(L, 1);
        return st;
    }
    lua_pop(L, 1);
    sl_state *st = (sl_state *)lua_newuserdatauv(L, sizeof *st, 0);
    memset(st, 0, sizeof *st);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sl_key_state);
    return st;
}

/* The wall clock is read at budget points only, coarsely (a few ms of
 * resolution is plenty for a limit in seconds). A scene callback's time
 * starts at its call; a brain update's at its first budget point, so that
 * the hot loop of a step (thousands of short updates) reads no clock at
 * all: an update that never reaches a budget point ran under SL_HOOK_EVERY
 * instructions. */
static double wall_now(void)
{
    return sl_wall_seconds(); /* never 0 */
}

/* Counts n more units of work for the running callback; raises when the
 * budget or the wall-time limit is exceeded. what names the C function for
 * the message (NULL: Lua code, the hook). */
static void charge(lua_State *L, sl_state *st, long n, const char *what)
{
    if (st->depth == 0 || st->budget <= 0)
        return;
    st->used = n > st->budget - st->used ? st->budget + 1 : st->used + n;
    /* used stays over the budget, so a script that catches this error with
     * pcall and loops on is stopped again at its next check */
    if (st->used > st->budget) {
        if (what != NULL)
            luaL_error(L, "instruction budget exceeded (in %s)", what);
        luaL_error(L, "instruction budget exceeded");
    }
    if (st->time_limit > 0) {
        double now = wall_now();
        if (st->started == 0) {
            st->started = now;
        } else if (now - st->started > st->time_limit) {
            st->used = st->budget + 1;
            char secs[32];
            snprintf(secs, sizeof secs, "%g", st->time_limit);
            luaL_error(L, "instruction budget exceeded (over %s s of wall time%s%s)", secs,
                       what ? " in " : "", what ? what : "");
        }
    }
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    charge(L, sl_getstate(L), SL_HOOK_EVERY, NULL);
}

void steer_lua_charge(lua_State *L, long units, const char *what)
{
    if (units > 0)
        charge(L, sl_getstate(L), units, what);
}

void steer_lua_set_time_limit(lua_State *L, double seconds)
{
    sl_state *st = sl_getstate(L);
    st->time_limit = seconds > 0 ? seconds : -1; /* -1: none, chosen */
}

void steer_lua_set_budget(lua_State *L, long instructions)
{
    sl_state *st = sl_getstate(L);
    st->budget = instructions > 0 ? instructions : 0;
    if (st->time_limit == 0) /* never chosen */
        st->time_limit = STEER_LUA_TIME_LIMIT;
    if (st->budget > 0)
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, SL_HOOK_EVERY);
    else if (lua_gethook(L) == budget_hook)
        lua_sethook(L, NULL, 0, 0);
}

void steer_lua_set_error_sink(lua_State *L, steer_lua_error_fn fn, void *ud)
{
    sl_state *st = sl_getstate(L);
    st->sink = fn;
    st->sink_ud = ud;
}

/* lua.c's message handler: the error with a traceback. */
static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* A budgeted pcall. Each callback gets the whole budget to itself; a nested
 * one (a brain inside a scene's update) does not eat its caller's. */
/* Callbacks nested deeper than this (a brain.spawn that spawns, ...) fail
 * with a stack overflow. Lua 5.x stops such C-Lua-C recursion itself at
 * about 200 C levels; LuaJIT does not count C levels and would run off the
 * C stack. */
#define SL_MAX_CALLBACK_DEPTH 200

static int budgeted_pcall(lua_State *L, int nargs, int nresults, bool traceback)
{
    int base = lua_gettop(L) - nargs;
    sl_state *st = sl_getstate(L);
    if (st->depth >= SL_MAX_CALLBACK_DEPTH) {
        lua_settop(L, base - 1);
        lua_pushliteral(L, "stack overflow (brain callbacks nested too deep)");
        return LUA_ERRRUN;
    }
    if (traceback) {
        lua_pushcfunction(L, msghandler);
        lua_insert(L, base);
    }
    if (st->budget > 0 && lua_gethook(L) != budget_hook)
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, SL_HOOK_EVERY);
    long saved = st->used;
    double saved_started = st->started;
    st->used = 0;
    st->started = st->budget > 0 && st->time_limit > 0 ? wall_now() : 0;
    st->depth++;
    int status = lua_pcall(L, nargs, nresults, traceback ? base : 0);
    st->depth--;
    st->used = saved;
    st->started = saved_started;
    if (traceback)
        lua_remove(L, base);
    return status;
}

int steer_lua_pcall(lua_State *L, int nargs, int nresults)
{
    return budgeted_pcall(L, nargs, nresults, true);
}

/* ---- errors of brain callbacks ---- */

static void set_pending(lua_State *L, int world_idx, int msg_idx)
{
    if (lua_getiuservalue(L, world_idx, SL_WUV_PENDING) == LUA_TNIL) {
        lua_pushvalue(L, msg_idx);
        lua_setiuservalue(L, world_idx, SL_WUV_PENDING);
    }
    lua_pop(L, 1);
}

bool sl_take_pending(lua_State *L, int world_idx)
{
    if (lua_getiuservalue(L, world_idx, SL_WUV_PENDING) == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushnil(L);
    lua_setiuservalue(L, world_idx, SL_WUV_PENDING);
    return true;
}

static void pause_agent(sl_agent *a)
{
    if (!a->paused && !a->removed) {
        a->paused = true;
        a->sw->paused++;
    }
}

void sl_brain_failed(lua_State *L, int world_idx, int agent_idx)
{
    int msg = lua_gettop(L);
    if (lua_type(L, msg) != LUA_TSTRING) {
        /* the message handler made a string; anything else came from a
         * failure inside it (memory): say so rather than lose the error */
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, msg));
        lua_replace(L, msg);
    }
    pause_agent((sl_agent *)lua_touserdata(L, agent_idx));
    sl_state *st = sl_getstate(L);
    if (lua_getiuservalue(L, world_idx, SL_WUV_ONERROR) == LUA_TFUNCTION) {
        lua_pushvalue(L, agent_idx);
        lua_pushvalue(L, msg);
        if (steer_lua_pcall(L, 2, 0) != LUA_OK) {
            /* a failing handler cannot handle itself: the step raises it */
            set_pending(L, world_idx, lua_gettop(L));
            lua_pop(L, 1);
        }
    } else {
        lua_pop(L, 1);
        if (st->sink != NULL)
            st->sink(st->sink_ud, lua_tostring(L, msg));
        else
            set_pending(L, world_idx, msg);
    }
    lua_settop(L, msg - 1);
}

static int index_body(lua_State *L)
{
    lua_gettable(L, 1);
    return 1;
}

static int reraise(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return lua_error(L);
}

/* brain[name] for the brain table on top, replacing it. Raw first, the
 * common case; a brain that inherits through __index works too. That
 * __index is the brain's own code: it runs protected and budgeted, and when
 * it fails the callback becomes a function raising its error, so that the
 * failure pauses this brain like any other instead of escaping the step. */
static int get_callback(lua_State *L, int name_idx)
{
    lua_pushvalue(L, name_idx);
    int ty = lua_rawget(L, -2);
    if (ty == LUA_TNIL && lua_getmetatable(L, -2)) {
        lua_pop(L, 2);
        lua_pushcfunction(L, index_body);
        lua_pushvalue(L, -2);
        lua_pushvalue(L, name_idx);
        if (budgeted_pcall(L, 2, 1, false) != LUA_OK)
            lua_pushcclosure(L, reraise, 1);
        ty = lua_type(L, -1);
    }
    lua_remove(L, -2);
    return ty;
}

/* get_callback for the loop of a step, whose settop clears the stack: a
 * raw hit (the common case) stays above the brain table instead of being
 * moved down over it. */
static int get_callback_keep(lua_State *L, int name_idx)
{
    lua_pushvalue(L, name_idx);
    int ty = lua_rawget(L, -2);
    if (ty != LUA_TNIL)
        return ty;
    lua_pop(L, 1);
    return get_callback(L, name_idx);
}

/* Pushes the agent's brain[name] when it is a function and returns true;
 * pushes nothing otherwise. agent_idx absolute. */
static bool push_callback(lua_State *L, int agent_idx, int name_idx)
{
    if (lua_getiuservalue(L, agent_idx, SL_AUV_BRAIN) != LUA_TTABLE) {
        lua_pop(L, 1);
        return false;
    }
    if (get_callback(L, name_idx) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return false;
    }
    return true;
}

/* Calls brain[name](self, agent, extra...) for the agent at agent_idx (of the
 * world at world_idx) with nextra values on top as extra arguments, which
 * are consumed. Errors pause the brain and are routed. Returns whether it ran
 * cleanly (true as well when there was nothing to call). */
static bool call_brain(lua_State *L, int world_idx, int agent_idx, int name_idx, int nextra)
{
    if (!push_callback(L, agent_idx, name_idx)) {
        lua_pop(L, nextra);
        return true;
    }
    lua_insert(L, -1 - nextra);
    sl_pushself(L, agent_idx);
    lua_insert(L, -1 - nextra);
    lua_pushvalue(L, agent_idx);
    lua_insert(L, -1 - nextra);
    if (steer_lua_pcall(L, 2 + nextra, 0) == LUA_OK)
        return true;
    sl_brain_failed(L, world_idx, agent_idx);
    return false;
}

bool sl_call_brain(lua_State *L, int world_idx, int agent_idx, const char *name, int nextra)
{
    world_idx = lua_absindex(L, world_idx);
    agent_idx = lua_absindex(L, agent_idx);
    lua_pushstring(L, name);
    int name_idx = lua_gettop(L);
    lua_insert(L, name_idx - nextra); /* below the extra values */
    bool ok = call_brain(L, world_idx, agent_idx, name_idx - nextra, nextra);
    lua_remove(L, name_idx - nextra);
    return ok;
}

void sl_brain_spawn(lua_State *L, int agent_idx)
{
    agent_idx = lua_absindex(L, agent_idx);
    sl_agent *a = (sl_agent *)lua_touserdata(L, agent_idx);
    lua_getiuservalue(L, agent_idx, SL_AUV_WORLD);
    int world_idx = lua_gettop(L);
    lua_pushliteral(L, "spawn");
    int name_idx = lua_gettop(L);
    if (!push_callback(L, agent_idx, name_idx)) {
        lua_settop(L, world_idx - 1);
        return;
    }
    sl_pushself(L, agent_idx);
    lua_pushvalue(L, agent_idx);
    if (steer_lua_pcall(L, 2, 0) != LUA_OK) {
        sl_state *st = sl_getstate(L);
        lua_getiuservalue(L, world_idx, SL_WUV_ONERROR);
        bool handled = lua_isfunction(L, -1) || st->sink != NULL || a->sw->stepping;
        lua_pop(L, 1);
        if (!handled) {
            /* spawned by plain code with nobody listening: the caller of
             * world:spawn hears it now (the agent exists, its brain paused) */
            pause_agent(a);
            lua_error(L);
        }
        sl_brain_failed(L, world_idx, agent_idx);
    }
    lua_settop(L, world_idx - 1);
}

/* ---- one step's brains ---- */

/* Drops the entries of removed agents from the brain list, unless a walk
 * is under way (its indices must stay put). */
static void compact_brains(sl_world *sw)
{
    if (sw->brain_dead == 0 || sw->walking > 0)
        return;
    int j = 0;
    for (int i = 0; i < sw->brain_count; i++)
        if (st_agent_alive(sw->w, sw->brain_list[i]))
            sw->brain_list[j++] = sw->brain_list[i];
    sw->brain_count = j;
    sw->brain_dead = 0;
}

/* Pushes the userdata of brain_list[i] and returns it when that agent is
 * alive with a running brain; otherwise pushes nothing, returns NULL. */
static sl_agent *push_brain_agent(lua_State *L, int agents, sl_world *sw, int i)
{
    st_agent_id id = sw->brain_list[i];
    if (lua_rawgeti(L, agents, (lua_Integer)id.index + 1) == LUA_TUSERDATA) {
        sl_agent *a = (sl_agent *)lua_touserdata(L, -1);
        if (st_id_equal(a->id, id) && !a->removed && !a->paused)
            return a;
    }
    lua_pop(L, 1);
    return NULL;
}

/* One brain pass, shared by its protected parts. */
typedef struct brain_run {
    sl_world *sw;
    sl_state *st;
    double dt;
    uint64_t tick;      /* the world's tick as the step began (think.c's phase) */
    int next, n;        /* next index of brain_list to run; agents past n were
                         * spawned by brains during this step */
    sl_agent *cur;      /* the agent whose update is running */
    bool calling;       /* inside that update: an error is the brain's */
    long saved;         /* st->used around the update */
    double saved_started; /* and st->started */
    st_agent_id ffi_id; /* the FFI loop's agent (sl_ffi_brain_next) */
} brain_run;

/* The state around one agent's update, the same for the C loop below and
 * the FFI backend's (sl_ffi_brain_begin / _end): the agent being run, and
 * a fresh instruction count for it (the caller's kept and put back). */
static inline void brain_enter(brain_run *r, sl_agent *a)
{
    sl_state *st = r->st;
    r->cur = a;
    r->saved = st->used;
    r->saved_started = st->started;
    st->used = 0;
    st->started = 0;
    st->depth++;
    r->calling = true;
}

static inline void brain_leave(brain_run *r)
{
    sl_state *st = r->st;
    r->calling = false;
    r->cur->think_steps = 0;
    r->cur->think_dt = 0.0;
    st->depth--;
    st->used = r->saved;
    st->started = r->saved_started;
}

/* The hot loop of a step: one protected call runs the updates one after
 * another with lua_call, rather than one lua_pcall each (a setjmp and the
 * pcall bookkeeping per agent). An update's error unwinds this loop; the
 * caller routes it and calls this again for the agents after it. It keeps
 * the place of the protected function the updates always ran in, so a
 * traceback reads as before. 1: world, 2: the brain_run. */
static int run_brains(lua_State *L)
{
    brain_run *r = (brain_run *)lua_touserdata(L, 2);
    sl_world *sw = r->sw;
    sl_state *st = r->st;
    if (st->budget > 0 && lua_gethook(L) != budget_hook)
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, SL_HOOK_EVERY);
    lua_getiuservalue(L, 1, SL_WUV_AGENTS);
    const int agents = 3;
    lua_pushliteral(L, "update");
    const int name = 4, agent = 5;
    while (r->next < r->n) {
        sl_agent *a = push_brain_agent(L, agents, sw, r->next++);
        if (a == NULL)
            continue;
        double dt = r->dt;
        if (!sl_think_due(a, r->tick, &dt)) {
            lua_settop(L, name);
            continue;
        }
        if (lua_getiuservalue(L, agent, SL_AUV_BRAIN) == LUA_TTABLE
            && get_callback_keep(L, name) == LUA_TFUNCTION) {
            if (lua_getiuservalue(L, agent, SL_AUV_SELF) != LUA_TTABLE) {
                lua_pop(L, 1);
                sl_pushself(L, agent);
            }
            lua_pushvalue(L, agent);
            lua_pushnumber(L, dt);
            brain_enter(r, a);
            lua_call(L, 3, 0);
            brain_leave(r);
        }
        lua_settop(L, name);
    }
    return 0;
}

#ifdef STEER_LUA_JIT
/* The FFI backend's brain loop (run_brains in bindings/ffi.lua): the loop
 * above with its Lua parts in Lua, so that one trace runs through many
 * agents' updates, and its bookkeeping here, called through the FFI. The
 * same order, the same checks, the same state around each update, so an
 * error is routed by fail_brain exactly as the C loop's. */

/* How far ahead of the pass sl_ffi_brain_next asks for agents' userdata:
 * a brain's update takes a few hundred nanoseconds, a line from memory
 * about one hundred. */
#define FFI_PREFETCH_AHEAD 4

/* The next agent of the pass that thinks this step: its slot in the
 * agents table (index + 1; a double, exact, which the FFI hands over as a
 * plain number), its dt in *dt; or minus its slot when the C side cannot
 * tell (an agent slots.h does not know: ffi.lua then asks
 * sl_ffi_brain_due about the userdata it finds there); 0 when the pass is
 * done. The agents the C loop would skip (gone, paused, not due: think.c's
 * count still kept) are skipped here, without a return to Lua. */
double sl_ffi_brain_next(void *rp, double *dt)
{
    brain_run *r = (brain_run *)rp;
    sl_world *sw = r->sw;
    while (r->next < r->n) {
        if (r->next + FFI_PREFETCH_AHEAD < r->n) {
            /* the userdata lie in Lua's heap, in no order the pass knows of */
            const sl_agent *ahead = sl_slots_get(sw, sw->brain_list[r->next + FFI_PREFETCH_AHEAD]);
            if (ahead != NULL)
                sl_slots_prefetch(ahead);
        }
        st_agent_id id = sw->brain_list[r->next++];
        r->ffi_id = id;
        sl_agent *a = sl_slots_get(sw, id);
        if (a == NULL) {
            if (!sw->slots_lost)
                continue; /* not in the agents table, or removed: push_brain_agent skips it */
            return -((double)id.index + 1);
        }
        double d = sl_ffi_brain_due(rp, a);
        if (d >= 0.0) {
            *dt = d;
            return (double)id.index + 1;
        }
    }
    return 0;
}

/* For the userdata payload ap at that slot: whether it is that agent,
 * alive and running (push_brain_agent's test), and then whether it thinks
 * this step (a.think_every: think.c), as the C loop asks before its
 * update: the dt to pass it, or -1. */
double sl_ffi_brain_due(void *rp, void *ap)
{
    const brain_run *r = (const brain_run *)rp;
    sl_agent *a = (sl_agent *)ap;
    if (a == NULL || a->mark != &sl_key_agent || !st_id_equal(a->id, r->ffi_id) || a->removed || a->paused)
        return -1.0;
    double dt = r->dt;
    return sl_think_due(a, r->tick, &dt) ? dt : -1.0;
}

/* The update of that agent (ap, live) starts: the state the C loop sets
 * around lua_call. */
void sl_ffi_brain_begin(void *rp, void *ap)
{
    brain_enter((brain_run *)rp, (sl_agent *)ap);
}

/* The update returned. */
void sl_ffi_brain_end(void *rp)
{
    brain_leave((brain_run *)rp);
}


/* brain_update(agent) -> its brain's update function, or nil: the
 * callback lookup of run_brains (get_callback_keep), for a brain table
 * that has no raw "update" (ffi.lua reads the raw one itself). */
int sl_ffi_brain_update(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushliteral(L, "update"); /* 2 */
    if (lua_getiuservalue(L, 1, SL_AUV_BRAIN) != LUA_TTABLE || get_callback_keep(L, 2) != LUA_TFUNCTION)
        lua_pushnil(L);
    return 1;
}

/* The registered Lua loop, pushed, when the FFI backend runs and no
 * instruction budget is set (the budget hook is the C loop's); else the
 * C loop. */
static void push_brain_loop(lua_State *L, const sl_state *st)
{
    if (st->budget <= 0) {
        lua_getfield(L, LUA_REGISTRYINDEX, "steer.ffi.brains");
        if (lua_type(L, -1) == LUA_TFUNCTION)
            return;
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, run_brains);
}
#else
static void push_brain_loop(lua_State *L, const sl_state *st)
{
    (void)st;
    lua_pushcfunction(L, run_brains);
}
#endif

/* Routes the error of r->cur's update. 1: world, 2: the brain_run, 3: the
 * message (with its traceback). */
static int fail_brain(lua_State *L)
{
    brain_run *r = (brain_run *)lua_touserdata(L, 2);
    lua_getiuservalue(L, 1, SL_WUV_AGENTS); /* 4 */
    /* the agent's userdata: in the agents table, or, when its update
     * removed it, among those world:remove kept for the rest of the step */
    if (lua_rawgeti(L, 4, (lua_Integer)r->cur->id.index + 1) != LUA_TUSERDATA
        || lua_touserdata(L, -1) != (void *)r->cur) {
        lua_pop(L, 1);
        if (lua_getiuservalue(L, 1, SL_WUV_REMOVED) == LUA_TTABLE)
            lua_rawgetp(L, -1, r->cur);
        else
            lua_pushnil(L);
        lua_remove(L, -2);
    }
    if (lua_type(L, 5) != LUA_TUSERDATA)
        return luaL_error(L, "internal error: lost the agent of a failed brain");
    lua_pushvalue(L, 3);
    sl_brain_failed(L, 1, 5);
    return 0;
}

/* For each link event of the step (in the agents' spawn order): the
 * agent's brain.traverse_link(self, agent, link), link being the table
 * nav:link returned. An agent without the callback, or paused, or gone,
 * or at a link the world no longer knows, needs nothing: the core walks it
 * straight across. Errors pause the brain
 * and are routed, as an update's are. */
void sl_brains_links(lua_State *L, int world_idx, sl_world *sw)
{
    int n = st_world_link_event_count(sw->w);
    if (n == 0)
        return;
    world_idx = lua_absindex(L, world_idx);
    int top = lua_gettop(L);
    sl_push_uvtable(L, world_idx, SL_WUV_LINKS); /* top + 1 */
    lua_pushliteral(L, "traverse_link");          /* top + 2 */
    for (int k = 0; k < n; k++) {
        st_link_event e = st_world_link_event(sw->w, k);
        if (!st_agent_alive(sw->w, e.agent))
            continue;
        sl_pushagent(L, world_idx, e.agent); /* top + 3 */
        sl_agent *a = sl_agent_at(L, top + 3);
        // A link this world has no table for (a snapshot file restored
        // without its navgrid and links made again): no call; the agent
        // walks straight across as without the callback.
        if (a != NULL && a->has_brain && !a->paused && !a->removed && lua_rawgeti(L, top + 1, e.link) != LUA_TNIL)
            call_brain(L, world_idx, top + 3, top + 2, 1);
        lua_settop(L, top + 2);
    }
    lua_settop(L, top);
}

int sl_brains_step(lua_State *L, int world_idx, sl_world *sw, double dt)
{
    world_idx = lua_absindex(L, world_idx);
    compact_brains(sw);
    brain_run r;
    memset(&r, 0, sizeof r);
    r.sw = sw;
    r.st = sl_getstate(L);
    r.dt = dt;
    r.tick = st_world_tick(sw->w);
    r.n = sw->brain_count;
    sw->walking++;
    lua_pushcfunction(L, msghandler);
    int handler = lua_gettop(L);
    int status;
    for (;;) {
        push_brain_loop(L, r.st);
        lua_pushvalue(L, world_idx);
        lua_pushlightuserdata(L, &r);
        status = lua_pcall(L, 2, 0, handler);
        if (status == LUA_OK || !r.calling)
            break; /* done, or not a brain's error (memory): the step raises it */
        r.calling = false;
        r.st->depth--;
        r.st->used = r.saved;
        r.st->started = r.saved_started;
        lua_pushcfunction(L, fail_brain);
        lua_pushvalue(L, world_idx);
        lua_pushlightuserdata(L, &r);
        lua_rotate(L, -4, -1); /* the message last */
        status = lua_pcall(L, 3, 0, 0);
        if (status != LUA_OK)
            break;
    }
    sw->walking--;
    /* agents removed during the pass need no keeping any more */
    lua_pushnil(L);
    lua_setiuservalue(L, world_idx, SL_WUV_REMOVED);
    lua_remove(L, handler); /* the message, if any, stays on top */
    return status;
}

/* ---- drawing ---- */

static int draw_body(lua_State *L)
{
    /* 1: world, 2: gfx */
    sl_world *sw = (sl_world *)lua_touserdata(L, 1);
    lua_getiuservalue(L, 1, SL_WUV_AGENTS); /* 3 */
    lua_pushliteral(L, "draw");             /* 4 */
    int n = sw->brain_count;
    sw->walking++;
    for (int i = 0; i < n; i++) {
        if (push_brain_agent(L, 3, sw, i) != NULL) { /* 5 */
            lua_pushvalue(L, 2);
            call_brain(L, 1, 5, 4, 1);
        }
        lua_settop(L, 4);
    }
    sw->walking--;
    return 0;
}

void steer_lua_draw_brains(lua_State *L, int world_idx, int gfx_idx)
{
    world_idx = lua_absindex(L, world_idx);
    gfx_idx = lua_absindex(L, gfx_idx);
    sl_world *sw = sl_toworld(L, world_idx);
    if (sw == NULL || sw->w == NULL || sw->brains == 0)
        return;
    lua_pushcfunction(L, draw_body);
    lua_pushvalue(L, world_idx);
    lua_pushvalue(L, gfx_idx);
    /* brain errors are handled inside; only a memory error can land here */
    int walking = sw->walking;
    int status = lua_pcall(L, 2, 0, 0);
    sw->walking = walking;
    if (status != LUA_OK) {
        sl_state *st = sl_getstate(L);
        if (st->sink != NULL)
            st->sink(st->sink_ud, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
}

int steer_lua_paused_count(lua_State *L, int world_idx)
{
    sl_world *sw = sl_toworld(L, world_idx);
    return sw != NULL ? sw->paused : 0;
}

/* ---- hot reload ---- */

/* Pushes a list of the worlds (a snapshot: reload callbacks may create
 * worlds, and adding keys to a table under lua_next is undefined) and the
 * callback's name; returns the list's index. Taken before the merge, so
 * that running out of memory here leaves the module as it was. */
static int snapshot_worlds(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_worlds);
    lua_newtable(L);
    int worlds = lua_gettop(L);
    lua_Integer nworlds = 0;
    lua_pushnil(L);
    while (lua_next(L, worlds - 1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, worlds, ++nworlds);
    }
    lua_remove(L, worlds - 1);
    lua_pushliteral(L, "reload");
    return worlds - 1;
}

/* Resumes and calls brain.reload for every agent of every world (in the
 * snapshot at worlds, the name "reload" above it) whose brain is the
 * module table at mod. */
static void reload_agents(lua_State *L, int mod, int worlds, steer_reload_info *info)
{
    lua_Integer nworlds = (lua_Integer)lua_rawlen(L, worlds);
    int name = worlds + 1;
    lua_settop(L, name);
    for (lua_Integer wi = 1; wi <= nworlds; wi++) {
        lua_rawgeti(L, worlds, wi);
        int world_idx = lua_gettop(L);
        sl_world *sw = (sl_world *)lua_touserdata(L, world_idx);
        if (sw == NULL || sw->w == NULL || sw->brains == 0) {
            lua_settop(L, name);
            continue;
        }
        lua_getiuservalue(L, world_idx, SL_WUV_AGENTS);
        int agents = lua_gettop(L);
        int n = sw->brain_count;
        sw->walking++;
        for (int i = 0; i < n; i++) {
            /* paused agents too: a reload is what resumes them */
            st_agent_id id = sw->brain_list[i];
            if (lua_rawgeti(L, agents, (lua_Integer)id.index + 1) != LUA_TUSERDATA) {
                lua_settop(L, agents);
                continue;
            }
            int agent_idx = lua_gettop(L);
            sl_agent *a = (sl_agent *)lua_touserdata(L, agent_idx);
            lua_getiuservalue(L, agent_idx, SL_AUV_BRAIN);
            bool uses = st_id_equal(a->id, id) && !a->removed && lua_rawequal(L, -1, mod);
            lua_pop(L, 1);
            if (uses) {
                info->agents++;
                if (a->paused) {
                    a->paused = false;
                    sw->paused--;
                }
                call_brain(L, world_idx, agent_idx, name, 0);
            }
            lua_settop(L, agents);
        }
        /* not restored if a reload callback's error escapes (only memory or
         * a failing __index can): the list then merely stops compacting */
        sw->walking--;
        lua_settop(L, name);
    }
    lua_settop(L, worlds - 1);
}

/* The searchers report a compile error as "error loading module 'm' from
 * file 'f':\n\tf:3: message"; a reload reports just "f:3: message". */
static void push_load_error(lua_State *L, const char *msg)
{
    const char *p = msg != NULL ? strstr(msg, ":\n\t") : NULL;
    if (msg != NULL && strncmp(msg, "error loading module", 20) == 0 && p != NULL)
        lua_pushstring(L, p + 3);
    else
        lua_pushstring(L, msg != NULL ? msg : "(error object is not a string)");
}

/* Finds the loader of module `name` (at 1) the way require does, through
 * package.searchers, so a host's own searcher (the app's sandbox) is used
 * too. Pushes loader and its extra value (the file name), or false and the
 * message. */
static void find_loader(lua_State *L, int package, const char *name)
{
    int base = lua_gettop(L);
    if (lua_getfield(L, package, SL_PACKAGE_SEARCHERS) != LUA_TTABLE) /* base + 1 */
        luaL_error(L, "package." SL_PACKAGE_SEARCHERS " must be a table");
    int searchers = base + 1;
    lua_pushfstring(L, "module '%s' not found:", name); /* base + 2: what each searcher said */
    int said = base + 2;
    for (lua_Integer i = 1;; i++) {
        if (lua_rawgeti(L, searchers, i) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushboolean(L, 0);
            lua_pushvalue(L, said);
            break;
        }
        lua_pushstring(L, name);
        /* a searcher that raises found the file and failed to compile it */
        if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
            lua_pushboolean(L, 0);
            push_load_error(L, lua_tostring(L, -2));
            break;
        }
        if (lua_isfunction(L, -2))
            break;
        if (lua_isstring(L, -2)) {
            lua_pushvalue(L, said);
            lua_pushliteral(L, "\n\t");
            lua_pushvalue(L, -4);
            lua_concat(L, 3);
            lua_replace(L, said);
        }
        lua_pop(L, 2);
    }
    lua_copy(L, -2, base + 1);
    lua_copy(L, -1, base + 2);
    lua_settop(L, base + 2);
}

/* Protected body of a reload. 1: module name, 2: the steer_reload_info to
 * fill. Returns true, or false and the message, for failures of the script;
 * raises only for the unexpected. */
static int reload_body(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    steer_reload_info *info = (steer_reload_info *)lua_touserdata(L, 2);
    lua_settop(L, 1);
    sl_push_package(L);
    if (!lua_istable(L, 2))
        return luaL_error(L, "no package library to find module '%s'", name);
    lua_getfield(L, 2, "preload");
    if (lua_istable(L, -1) && lua_getfield(L, -1, name) != LUA_TNIL) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, "module '%s' is built in: nothing to reload", name);
        return 2;
    }
    lua_settop(L, 2);
    find_loader(L, 2, name); /* 3: loader or false, 4: file name or message */
    if (!lua_toboolean(L, 3))
        return 2;
    const char *file = lua_isstring(L, 4) ? lua_tostring(L, 4) : name;
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 4);
    if (budgeted_pcall(L, 2, 1, false) != LUA_OK) { /* 5: new module or message */
        lua_pushboolean(L, 0);
        push_load_error(L, lua_tostring(L, 5));
        return 2;
    }
    if (!lua_istable(L, 5)) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, "%s: module '%s' did not return a table", file, name);
        return 2;
    }
    lua_getfield(L, 2, "loaded"); /* 6 */
    if (!lua_istable(L, 6))
        return luaL_error(L, "package.loaded must be a table");
    if (lua_getfield(L, 6, name) != LUA_TTABLE) { /* 7: the old module */
        /* never loaded (or not a table): this load is the first */
        lua_pushnil(L);
        lua_setfield(L, 6, name); /* an absent key: package.loaded's __newindex records it */
        lua_pushvalue(L, 5);
        lua_setfield(L, 6, name);
        info->first = info->changed = true;
        lua_pushboolean(L, 1);
        return 1;
    }
    int worlds = snapshot_worlds(L);
    if (!lua_rawequal(L, 5, 7))
        sl_hotswap(L, name, 7, 5, info); /* whole, or raises with the module as it was */
    else
        info->changed = true; /* the module reused its table: it changed it itself */
    reload_agents(L, 7, worlds, info);
    lua_pushboolean(L, 1);
    return 1;
}

bool steer_lua_reload(lua_State *L, const char *name)
{
    return steer_lua_reload_info(L, name, NULL);
}

bool steer_lua_reload_info(lua_State *L, const char *name, steer_reload_info *info)
{
    steer_reload_info scratch;
    if (info == NULL)
        info = &scratch;
    memset(info, 0, sizeof *info);
    /* A reload callback that reloads (its own module, or one whose callback
     * reloads it back) would recurse once per agent at every level: an
     * exponential hang no budget stops, as each callback has its own. */
    sl_state *st = sl_getstate(L);
    if (st->reloading) {
        lua_pushfstring(L, "cannot reload '%s' from a reload callback", name);
        return false;
    }
    st->reloading = true;
    lua_pushcfunction(L, reload_body);
    lua_pushstring(L, name);
    lua_pushlightuserdata(L, info);
    int status = lua_pcall(L, 2, 2, 0);
    st->reloading = false;
    if (status != LUA_OK)
        return false; /* the message is on top */
    if (lua_toboolean(L, -2)) {
        lua_pop(L, 2);
        return true;
    }
    lua_remove(L, -2);
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushstring(L, "reload failed");
    }
    return false;
}

/* steer.reload(name) -> true, report | nil, message */
int sl_reload(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    steer_reload_info info;
    if (steer_lua_reload_info(L, name, &info)) {
        lua_pushboolean(L, 1);
        lua_createtable(L, 0, 10);
        const struct { const char *k; int v; } counts[] = {
            {"functions", info.functions}, {"unchanged", info.unchanged}, {"added", info.added},
            {"removed", info.removed}, {"classes", info.classes}, {"values", info.values},
            {"agents", info.agents},
        };
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            lua_pushinteger(L, counts[i].v);
            lua_setfield(L, -2, counts[i].k);
        }
        lua_pushboolean(L, info.first);
        lua_setfield(L, -2, "first");
        lua_pushboolean(L, info.changed);
        lua_setfield(L, -2, "changed");
        lua_pushboolean(L, info.truncated);
        lua_setfield(L, -2, "truncated");
        return 2;
    }
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}
