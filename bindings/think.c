/*
 * think.c — brain scheduling: a.think_every = n runs the agent's
 * brain.update every n ticks instead of every tick.
 *
 * Staggered by spawn serial: the update runs at the steps whose tick (as
 * the step begins) satisfies (tick + a.id) % n == 0, so agents spawned one
 * after another spread over the n phases and each tick carries about 1/n
 * of them. The update's dt is the time since its last update: the dts of
 * the steps it covers, summed (n * world.dt at a fixed dt; the first
 * update after a change of phase may cover fewer). n = 1, the default, is
 * the every-tick brain, bit for bit: dt is the step's own. a.think_age
 * reads the steps since the update last ran (inside the update: the steps
 * it covers). Messages, arrivals and links still reach the brain at once.
 * Snapshots keep n, the steps and their dt (the phase follows from the
 * tick and the id, which they keep too).
 */
#include "bind.h"

#define MAX_THINK_EVERY 1000000

void sl_think_push_field(lua_State *L, sl_agent *a, bool age)
{
    lua_pushinteger(L, age ? (lua_Integer)a->think_steps : (lua_Integer)a->think_every);
}

void sl_think_assign(lua_State *L, sl_agent *a, int idx, const sl_src *src)
{
    int isnum = 0;
    lua_Integer n = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isnum) : 0;
    if (!isnum)
        sl_raise_type(L, src, idx, "integer");
    if (n < 1 || n > MAX_THINK_EVERY)
        sl_raise(L, src, "must be in [1, %d]", MAX_THINK_EVERY);
    a->think_every = (uint32_t)n;
}

bool sl_think_due(sl_agent *a, uint64_t tick, double *dt)
{
    a->think_steps++;
    if (a->think_every > 1) {
        a->think_dt += *dt;
        if ((tick + a->serial) % a->think_every != 0)
            return false;
        *dt = a->think_dt;
    } else if (a->think_dt != 0.0) {
        *dt += a->think_dt; /* just set back to 1: the steps it skipped too */
    }
    return true;
}
