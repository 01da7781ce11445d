/*
 * rest.c — behaviours for coming to rest and staying there: stop, and
 * graze (wander in bouts, some of them stood still).
 */
#include <math.h>

#include "world_internal.h"
#include "rng.h"
#include "behavior_internal.h"

static const st_vec2 ZERO = {0.0, 0.0};

/// Salt of the stream that picks graze's bouts (apart from wander's draws).
#define ST_GRAZE_SALT 0x6772617a65ull

/// Wander in bouts of `bout` seconds: a share `rest` of them stood still,
/// the others at a speed between pace and 1 times max_speed. Which bout an
/// agent is in, and what it does in it, come from the world's seed and time
/// and the agent's serial alone (each agent's bouts start at a phase of its
/// own), so the behaviour keeps no state and every thread count, brain and
/// standing list agrees.
static st_vec2 graze(const st_world *w, const st_body *b, st_agent *a, const st_behavior *bh, double dt)
{
    double bout = bh->ahead > 0.0 && isfinite(bh->ahead) ? bh->ahead : ST_GRAZE_BOUT;
    uint64_t key = st_rng_derive(w->seed ^ ST_GRAZE_SALT, a->serial);
    uint64_t s = key;
    double phase = st_rng_double(&s) * bout;
    double k = floor((w->time + phase) / bout);
    s = key + (uint64_t)fmod(k, 9007199254740992.0) * 0x9E3779B97F4A7C15ull;
    double stand = st_rng_double(&s), pace = st_rng_double(&s);
    if (stand < bh->predict) return st__steer_velocity(b, ZERO, dt);
    double slowest = bh->zone >= 0.0 && bh->zone <= 1.0 ? bh->zone : 1.0; // a decoded file's may be anything
    double share = slowest + (1.0 - slowest) * pace;
    return st__steer_velocity(b, st_v2_scale(st__wander_dir(w, b, a, dt), b->max_speed * share), dt);
}

st_vec2 st__rest_force(st_world *w, int i, const st_behavior *bh, double dt)
{
    const st_body *b = &w->bodies[i];
    // stop: zero velocity, reached within this step where max_force allows.
    if (bh->type == ST_STOP) return st__steer_velocity(b, ZERO, dt);
    return graze(w, b, &w->agents[i], bh, dt);
}
