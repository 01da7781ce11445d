/*
 * behaviors.c — every steering behaviour, the force combiner and the
 * standing-behaviour pass.
 *
 * Velocity-matching behaviours (seek, flee, arrive, wander, the flocking
 * rules ...) pick a desired velocity and return the force that would reach it
 * within this step, capped at max_force: `(desired - vel) * mass / dt`,
 * truncated. This is Reynolds' "desired minus current" with the gain that
 * makes max_force the meaningful limit (the seeds' demos get the same effect
 * from a force tweaker of 200), and it lets arrive land exactly. Every force a
 * behaviour returns is at most max_force long and always finite.
 *
 * Geometry goes through st_world_offset, so in a wrap world every distance
 * and direction is the shortest one across the edges.
 */
#include <assert.h>
#include <float.h>
#include <stdlib.h>

#include "integrate.h"
#include "request.h"
#include "avoid.h"
#include "behavior_internal.h"
#include "geom.h"
#include "motion.h"
#include "obstacle.h"

/// Room left between a hiding spot and its obstacle, beyond the agent's radius.
#define ST_HIDE_CLEARANCE 20.0
/// Buckland's test for a quarry coming straight at the pursuer (about 18 degrees).
#define ST_HEAD_ON_COS (-0.95)
/// Share of max_force arrive counts on for braking: the margin that keeps it
/// from overshooting while it also corrects sideways drift.
#define ST_BRAKE_SHARE 0.5

static const st_vec2 ZERO = {0.0, 0.0};

/* ------------------------------------------------------------------------ */
/* names and defaults                                                       */
/* ------------------------------------------------------------------------ */

static const char *const names[ST_BEHAVIOR_COUNT + 1] = {
    "seek",  "flee",     "arrive", "pursue",          "evade",       "intercept",   "wander",
    "separate", "align", "cohere", "flock",           "avoid_obstacles", "avoid_walls", "contain",
    "follow_path", "offset_pursue", "interpose", "hide", "avoid_agents",
    "follow_flow",
    "face", "look_where_going", "match_velocity", "follow_leader", "queue",
    "stop", "graze", "apply",
};

const char *st_behavior_name(st_behavior_type type)
{
    if ((int)type < 0 || type > ST_BEHAVIOR_COUNT) return "?";
    return names[type];
}

st_flock_params st_default_flock_params(void)
{
    st_flock_params p;
    p.radius = 50.0;
    p.fov = 270.0 * ST_PI / 180.0;
    p.separation = 1.5;
    p.alignment = 1.0;
    p.cohesion = 1.0;
    p.separation_radius = -1.0;
    p.tag = ST_TAG_ANY;
    return p;
}

// st_default_behavior's fields for any type, as one constant: the call
// copies it whole and then sets the few fields that depend on the type. A
// brain makes one a call; built field by field on the stack, each of its
// 16-byte copies to the caller waited on narrower stores (about a tenth of
// the hunt workload's C time, tests/bench/hunt_c.c).
static const st_behavior DEFAULT_BEHAVIOR = {
    .type = ST_SEEK,
    .weight = 1.0,
    .target = {false, {0, 0}, {0.0, 0.0}},
    .target2 = {false, {0, 0}, {0.0, 0.0}},
    .radius = INFINITY,
    .decel = ST_DECEL_LINEAR,
    .offset = {0.0, 0.0},
    .path = NULL,
    .flock = {50.0, 270.0 * ST_PI / 180.0, 1.5, 1.0, 1.0, -1.0, ST_TAG_ANY}, // st_default_flock_params
    .rect = {0.0, 0.0, 0.0, 0.0},
    .field = NULL,
    .path_mode = ST_PATH_WAYPOINTS,
    .predict = ST_PATH_PREDICT_TIME,
    .ahead = ST_PATH_OFFSET,
    .zone = -1.0,
};

st_behavior st_default_behavior(st_behavior_type type)
{
    st_behavior b = DEFAULT_BEHAVIOR;
    b.type = type;
    if (type == ST_ARRIVE) b.radius = ST_ARRIVE_SLOWING_RADIUS;
    if (type == ST_MATCH_VELOCITY) b.predict = ST_MATCH_TIME;
    if (type == ST_FOLLOW_LEADER) b.ahead = ST_LEADER_DISTANCE;
    if (type == ST_QUEUE) b.ahead = -1.0;
    if (type == ST_GRAZE) {
        b.predict = ST_GRAZE_REST;
        b.ahead = ST_GRAZE_BOUT;
        b.zone = ST_GRAZE_PACE;
    }
    return b;
}

/* ------------------------------------------------------------------------ */
/* safe vector helpers: no input may put a NaN or an infinity into a world  */
/* ------------------------------------------------------------------------ */

/// Direction of v, also for huge or infinite components. The common case is
/// a multiply by one reciprocal (the flocking kernel calls this three times
/// an agent); the rare rest goes to st_v2_normalize_safe.
static inline st_vec2 dir_safe(st_vec2 v)
{
    double l2 = v.x * v.x + v.y * v.y;
    if (l2 > 1e-290 && l2 < 1e290) {
        double inv = 1.0 / sqrt(l2);
        return st_v2(v.x * inv, v.y * inv);
    }
    return st_v2_normalize_safe(v);
}

/// What steer_velocity needs of a body and a step, worked out once per agent:
/// the gain that turns a velocity change into a force, and the largest change
/// that force can make (compared before multiplying, so a huge mass cannot
/// overflow the product).
typedef struct steer_gain {
    double gain;  // mass / dt
    double limit; // max_force / gain
} steer_gain;

static inline steer_gain gain_of(const st_body *b, double dt)
{
    steer_gain k;
    k.gain = b->mass / dt;
    k.limit = b->max_force / k.gain;
    return k;
}

/// |dv|, also where its square underflows (below about 1e-154): a huge
/// mass makes the limit it is compared with that small, and a length lost
/// to zero there would let dv * gain past max_force.
static inline double need_of(st_vec2 dv)
{
    double need = st_v2_len(dv);
    return need < 1e-150 ? st_v2_len_safe(dv) : need;
}

/// The force that brings the body to `desired` velocity this step, within max_force.
static inline st_vec2 steer_velocity_k(const st_body *b, st_vec2 desired, steer_gain k)
{
    st_vec2 dv = st_v2_sub(desired, b->vel);
    // A non-finite dv has a non-finite length: one test covers both.
    double need = need_of(dv);
    // >=, not >: with a mass so large that the gain overflows, limit is 0
    // and a zero dv must not be multiplied by an infinite gain (0 * inf).
    if (!isfinite(need) || need >= k.limit) return st_v2_scale(dir_safe(dv), b->max_force);
    return st_v2_scale(dv, k.gain);
}

static st_vec2 steer_velocity(const st_body *b, st_vec2 desired, double dt)
{
    return steer_velocity_k(b, desired, gain_of(b, dt));
}

/* ------------------------------------------------------------------------ */
/* targets                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct kin {
    st_vec2 pos, vel, heading;
    double speed;
} kin;

static bool target_kin(const st_world *w, const st_target *t, kin *k)
{
    if (!t->is_agent) {
        k->pos = t->point;
        k->vel = ZERO;
        k->heading = st_v2(1.0, 0.0);
        k->speed = 0.0;
        return true;
    }
    int j = st__dense_hint(w, t->agent);
    if (j < 0) return false;
    const st_body *o = &w->bodies[j];
    k->pos = o->pos;
    k->vel = o->vel;
    k->heading = o->heading;
    k->speed = st_v2_len(o->vel);
    return true;
}

/* ------------------------------------------------------------------------ */
/* the behaviours                                                           */
/* ------------------------------------------------------------------------ */

static st_vec2 seek(const st_world *w, const st_body *b, st_vec2 target, double dt)
{
    st_vec2 desired = st_v2_scale(dir_safe(st__offset(w, b->pos, target)), b->max_speed);
    return steer_velocity(b, desired, dt);
}

static st_vec2 flee(const st_world *w, const st_body *b, st_vec2 from, double panic, double dt)
{
    st_vec2 away = st__offset(w, from, b->pos);
    double d2 = st_v2_len2(away);
    if (d2 > panic * panic) return ZERO;
    // On top of the threat there is no "away": keep going the way we face.
    st_vec2 dir = d2 > 0.0 ? dir_safe(away) : b->heading;
    return steer_velocity(b, st_v2_scale(dir, b->max_speed), dt);
}

/// The fastest approach speed from which the body still stops at distance d.
static double approach_speed(const st_body *b, double d, double slowing, st_deceleration decel, double dt)
{
    double speed = b->max_speed;
    if (decel == ST_DECEL_LINEAR) {
        if (d < slowing) speed *= d / slowing;
    } else {
        // seed 000: reach the target in (k * 0.3) seconds' worth of distance.
        double s = d / ((double)decel * 0.3);
        if (s < speed) speed = s;
    }
    double brake = sqrt(2.0 * ST_BRAKE_SHARE * (b->max_force / b->mass) * d);
    if (brake < speed) speed = brake;
    // Never more than lands exactly on the target in this step.
    if (d / dt < speed) speed = d / dt;
    return speed;
}

static st_vec2 arrive(const st_world *w, const st_body *b, st_vec2 target, double slowing, st_deceleration decel,
                      double dt)
{
    st_vec2 to = st__offset(w, b->pos, target);
    double d = st_v2_len(to);
    if (!(d > 0.0)) return steer_velocity(b, ZERO, dt);
    double speed = approach_speed(b, d, slowing, decel, dt);
    return steer_velocity(b, st_v2_scale(to, speed / d), dt);
}

static st_vec2 pursue(const st_world *w, const st_body *b, const kin *q, double dt)
{
    st_vec2 to = st__offset(w, b->pos, q->pos);
    // A quarry ahead and coming straight at us: go for where it is.
    if (st_v2_dot(to, b->heading) > 0.0 && st_v2_dot(b->heading, q->heading) < ST_HEAD_ON_COS)
        return seek(w, b, q->pos, dt);
    double closing = b->max_speed + q->speed;
    double lookahead = closing > 0.0 ? st_v2_len(to) / closing : 0.0;
    return seek(w, b, st_v2_add(q->pos, st_v2_scale(q->vel, lookahead)), dt);
}

static st_vec2 evade(const st_world *w, const st_body *b, const kin *p, double threat, double dt)
{
    st_vec2 to = st__offset(w, p->pos, b->pos);
    double d = st_v2_len(to);
    if (d > threat) return ZERO;
    double closing = b->max_speed + p->speed;
    double lookahead = closing > 0.0 ? d / closing : 0.0;
    return flee(w, b, st_v2_add(p->pos, st_v2_scale(p->vel, lookahead)), INFINITY, dt);
}

/// Earliest time t > 0 at which a body leaving now at full speed can be where
/// the target will be: |r + v t| = s t. Negative when it cannot.
static double intercept_time(st_vec2 r, st_vec2 v, double s)
{
    double a = st_v2_dot(v, v) - s * s;
    double bq = 2.0 * st_v2_dot(r, v);
    double c = st_v2_dot(r, r);
    if (c == 0.0) return 0.0;
    if (fabs(a) < 1e-9 * (s * s + 1.0)) return bq < 0.0 ? -c / bq : -1.0;
    double disc = bq * bq - 4.0 * a * c;
    if (disc < 0.0) return -1.0;
    double sq = sqrt(disc);
    double t1 = (-bq - sq) / (2.0 * a), t2 = (-bq + sq) / (2.0 * a);
    double lo = fmin(t1, t2), hi = fmax(t1, t2);
    if (lo > 0.0) return lo;
    if (hi > 0.0) return hi;
    return -1.0;
}

static st_vec2 intercept(const st_world *w, const st_body *b, const kin *q, double dt)
{
    st_vec2 r = st__offset(w, b->pos, q->pos);
    double t = intercept_time(r, q->vel, b->max_speed);
    if (!(t >= 0.0) || !isfinite(t)) {
        // No meeting point at our top speed (the target is faster and moving
        // away): seed 003's estimate, range over closing speed, bounded by
        // pursuit's look-ahead so a near-zero closing speed cannot aim at
        // infinity.
        double closing = st_v2_len(st_v2_sub(q->vel, b->vel));
        double bound = st_v2_len(r) / fmax(b->max_speed + q->speed, 1e-9);
        t = closing > 0.0 ? fmin(st_v2_len(r) / closing, bound) : bound;
    }
    return seek(w, b, st_v2_add(q->pos, st_v2_scale(q->vel, t)), dt);
}

st_vec2 st__wander_dir(const st_world *w, const st_body *b, st_agent *a, double dt)
{
    double jitter = a->wander_jitter * dt;
    if (!(jitter <= DBL_MAX)) jitter = DBL_MAX; // a huge jitter times a huge dt: 0 * inf is nan
    st_vec2 t = a->wander_target;
    uint64_t key = st_rng_derive(w->seed, a->serial);
    t.x += (st_rng_draw(key, &a->rng_count) - st_rng_draw(key, &a->rng_count)) * jitter;
    t.y += (st_rng_draw(key, &a->rng_count) - st_rng_draw(key, &a->rng_count)) * jitter;
    t = isfinite(st_v2_len2(t)) ? st_v2_normalize(t) : dir_safe(t); // t may overflow
    if (t.x == 0.0 && t.y == 0.0) t = st_v2(1.0, 0.0);
    t = st_v2_scale(t, a->wander_radius);
    a->wander_target = t;
    st_vec2 local = st_v2(t.x + a->wander_distance, t.y);
    st_vec2 h = b->heading, s = st_v2_perp(b->heading);
    st_vec2 ahead = st_v2_add(st_v2_scale(h, local.x), st_v2_scale(s, local.y));
    return dir_safe(ahead);
}

static st_vec2 wander(const st_world *w, st_body *b, st_agent *a, double dt)
{
    return steer_velocity(b, st_v2_scale(st__wander_dir(w, b, a, dt), b->max_speed), dt);
}

/* ---- group rules ---- */

// The sums over the neighbours come from group.c (st__group_query); a
// list of agents given by a brain is summed here.
typedef st__group group;

static inline void group_add(group *g, const st_world *w, uint32_t j, st_vec2 offset, double d2)
{
    g->n++;
    g->heading_sum = st_v2_add(g->heading_sum, w->bodies[j].heading);
    g->offset_sum = st_v2_add(g->offset_sum, offset);
    if (d2 < g->sep_r2) {
        if (d2 > 0.0) {
            // away / |away|^2 = unit away / distance: nearer pushes harder.
            g->sep = st_v2_sub(g->sep, st_v2_scale(offset, 1.0 / d2));
        } else {
            uint64_t self = w->agents[g->self].serial;
            g->sep = st_v2_add(g->sep, st_v2_scale(st__coincident_dir(self, w->agents[j].serial), 1e6));
        }
    }
}

static inline st_vec2 separation_force(const st_body *b, const group *g, steer_gain k)
{
    if (g->sep.x == 0.0 && g->sep.y == 0.0) return ZERO;
    return steer_velocity_k(b, st_v2_scale(dir_safe(g->sep), b->max_speed), k);
}

static inline st_vec2 alignment_force(const st_body *b, const group *g, steer_gain k)
{
    if (g->n == 0) return ZERO;
    st_vec2 h = dir_safe(g->heading_sum);
    if (h.x == 0.0 && h.y == 0.0) return ZERO;
    return steer_velocity_k(b, st_v2_scale(h, b->max_speed), k);
}

static inline st_vec2 cohesion_force(const st_body *b, const group *g, steer_gain k)
{
    if (g->n == 0) return ZERO;
    st_vec2 c = st_v2_scale(g->offset_sum, 1.0 / g->n);
    if (c.x == 0.0 && c.y == 0.0) return ZERO;
    return steer_velocity_k(b, st_v2_scale(dir_safe(c), b->max_speed), k);
}

static inline void group_query(const st_world *w, int i, const st_flock_params *p, double cos_half,
                               double sep_radius, group *g)
{
    st__group_query(w, i, p, cos_half, sep_radius, g, NULL);
}

/// Cosine of half the view cone, or -2 when the cone is all around.
static double view_cos(double fov)
{
    return fov > 0.0 && fov < 2.0 * ST_PI ? st_cos(0.5 * fov) : -2.0;
}

static double flock_sep_radius(const st_flock_params *p)
{
    return p->separation_radius >= 0.0 ? p->separation_radius : 0.5 * p->radius;
}

/// steer_velocity_k toward `dir` (unit or zero) at max speed, for the
/// flock's three rules: past the limit the force is dv scaled by
/// max_force / |dv|, the length already at hand (no second square root).
static inline st_vec2 flock_steer(const st_body *b, st_vec2 dir, steer_gain k)
{
    st_vec2 dv = st_v2_sub(st_v2_scale(dir, b->max_speed), b->vel);
    double need = need_of(dv);
    if (need < k.limit) return st_v2_scale(dv, k.gain);
    double share = b->max_force / need; // past DBL_MAX when need is tiny and the limit 0
    if (need > 0.0 && need <= DBL_MAX && share <= DBL_MAX) return st_v2_scale(dv, share);
    return st_v2_scale(dir_safe(dv), b->max_force); // inf or nan: as steer_velocity_k
}

/// The flock's force in double, from its sums g: for the bodies and sums
/// st__flock_batch leaves to it.
static st_vec2 flock_force_double(const st_body *b, const group *g, const st_flock_params *p, steer_gain k)
{
    st_vec2 f = ZERO;
    if (g->sep.x != 0.0 || g->sep.y != 0.0) f = st_v2_scale(flock_steer(b, dir_safe(g->sep), k), p->separation);
    if (g->n > 0) {
        st_vec2 h = dir_safe(g->heading_sum);
        if (h.x != 0.0 || h.y != 0.0) f = st_v2_add(f, st_v2_scale(flock_steer(b, h, k), p->alignment));
        // The mean offset's direction is the offset sum's.
        st_vec2 c = dir_safe(g->offset_sum);
        if (c.x != 0.0 || c.y != 0.0) f = st_v2_add(f, st_v2_scale(flock_steer(b, c, k), p->cohesion));
    }
    return st_v2_truncate_safe(f, b->max_force);
}

/// The flock's forces of agents index[0..n) (n <= ST_FLOCK_BATCH) with
/// parameters p: float lanes (st__flock_batch), double where float will not do.
static void flock_forces(const st_world *w, const int *index, int n, const st_flock_params *p, double cos_half,
                         double dt, st_vec2 *force, st__runs_memo *runs)
{
    group g[ST_FLOCK_BATCH];
    bool ok[ST_FLOCK_BATCH];
    st__flock_batch(w, p, cos_half, flock_sep_radius(p), index, n, dt, force, ok, g, runs);
    for (int m = 0; m < n; m++) {
        if (ok[m]) continue;
        const st_body *b = &w->bodies[index[m]];
        force[m] = flock_force_double(b, &g[m], p, gain_of(b, dt));
    }
}

static st_vec2 flock(const st_world *w, int i, const st_flock_params *p, double cos_half, double dt)
{
    st_vec2 f;
    flock_forces(w, &i, 1, p, cos_half, dt, &f, NULL);
    return f;
}

/* ---- paths, formations, hiding ---- */

static st_vec2 follow_path(const st_world *w, const st_body *b, st_agent *a, const st_path *p, double dt)
{
    if (!p || p->count < 1) return ZERO;
    if (a->path != p) {
        a->path = p;
        a->path_index = 0;
    }
    int idx = st_path_wrap_index(p, a->path_index);
    int last = p->count - 1;
    // Advance past every waypoint already reached (several when they crowd).
    // A link's start is passed once its event is recorded; the agent then
    // heads straight for the link's end (the next waypoint).
    for (int guard = 0; guard < p->count; guard++) {
        if (st_world_distance(w, b->pos, p->points[idx]) > p->radius) break;
        if (idx < last) {
            if (st__path_link(p, idx) && !st__link_reached(w, (int)(a - w->agents), p, idx)) break;
            idx++;
        } else if (p->loop) {
            idx = 0;
        } else {
            break;
        }
    }
    a->path_index = idx;
    if (!p->loop && idx == last) return arrive(w, b, p->points[idx], ST_ARRIVE_SLOWING_RADIUS, ST_DECEL_LINEAR, dt);
    return seek(w, b, p->points[idx], dt);
}

static st_vec2 offset_pursue(const st_world *w, const st_body *b, const kin *l, st_vec2 offset, double dt)
{
    st_vec2 side = st_v2_perp(l->heading);
    st_vec2 spot = st_v2_add(l->pos, st_v2_add(st_v2_scale(l->heading, offset.x), st_v2_scale(side, offset.y)));
    st_vec2 to = st__offset(w, b->pos, spot);
    double d = st_v2_len(to);
    // Match the leader's velocity and close the gap on top of it, slowing
    // into the slot so the follower settles there instead of orbiting it.
    st_vec2 desired = l->vel;
    if (d > 0.0) {
        double speed = approach_speed(b, d, ST_ARRIVE_SLOWING_RADIUS, ST_DECEL_LINEAR, dt);
        desired = st_v2_add(desired, st_v2_scale(to, speed / d));
    }
    return steer_velocity(b, st_v2_truncate_safe(desired, b->max_speed), dt);
}

static st_vec2 midpoint(const st_world *w, st_vec2 a, st_vec2 b)
{
    return st_v2_add(a, st_v2_scale(st__offset(w, a, b), 0.5));
}

static st_vec2 interpose(const st_world *w, const st_body *b, const kin *ka, const kin *kb, double dt)
{
    st_vec2 mid = midpoint(w, ka->pos, kb->pos);
    double t = b->max_speed > 0.0 ? st_world_distance(w, b->pos, mid) / b->max_speed : 0.0;
    st_vec2 pa = st_v2_add(ka->pos, st_v2_scale(ka->vel, t));
    st_vec2 pb = st_v2_add(kb->pos, st_v2_scale(kb->vel, t));
    return arrive(w, b, midpoint(w, pa, pb), ST_ARRIVE_SLOWING_RADIUS, ST_DECEL_FAST, dt);
}

static st_vec2 hide(const st_world *w, const st_body *b, const kin *threat, double dt)
{
    double best = INFINITY;
    st_vec2 spot = ZERO;
    for (int k = 0; k < w->obstacle_count; k++) {
        const st_obstacle *o = &w->obstacles[k];
        st_vec2 dir = dir_safe(st__offset(w, threat->pos, o->center));
        if (dir.x == 0.0 && dir.y == 0.0) continue; // the threat sits on it
        st_vec2 p = st_v2_add(o->center, st_v2_scale(dir, o->radius + b->radius + ST_HIDE_CLEARANCE));
        double d2 = st_v2_len2(st__offset(w, b->pos, p));
        if (d2 < best) {
            best = d2;
            spot = p;
        }
    }
    if (best == INFINITY) return evade(w, b, threat, INFINITY, dt);
    return arrive(w, b, spot, ST_ARRIVE_SLOWING_RADIUS, ST_DECEL_FAST, dt);
}

/* ------------------------------------------------------------------------ */
/* dispatch and accumulation                                                */
/* ------------------------------------------------------------------------ */

/// The last view cone's cosine, kept by a pass over many agents that share
/// a flock's parameters: one cos() a pass instead of one an agent.
typedef struct view_memo {
    double fov, cos_half;
} view_memo;

static inline double view_cos_memo(view_memo *m, double fov)
{
    if (!m) return view_cos(fov);
    if (fov != m->fov) {
        m->fov = fov;
        m->cos_half = view_cos(fov);
    }
    return m->cos_half;
}

/// memo: NULL, or the pass's view_memo.
static st_vec2 force_of(st_world *w, int i, const st_behavior *bh, view_memo *memo)
{
    st_body *b = &w->bodies[i];
    st_agent *a = &w->agents[i];
    double dt = st_world_step_dt(w);
    kin k, k2;
    switch (bh->type) {
    case ST_SEEK:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return seek(w, b, k.pos, dt);
    case ST_FLEE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return flee(w, b, k.pos, bh->radius, dt);
    case ST_ARRIVE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return arrive(w, b, k.pos, bh->radius, bh->decel, dt);
    case ST_PURSUE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return pursue(w, b, &k, dt);
    case ST_EVADE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return evade(w, b, &k, bh->radius, dt);
    case ST_INTERCEPT:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return intercept(w, b, &k, dt);
    case ST_WANDER:
        return wander(w, b, a, dt);
    case ST_SEPARATE: {
        group g;
        group_query(w, i, &bh->flock, view_cos(bh->flock.fov), bh->flock.radius, &g);
        return separation_force(b, &g, gain_of(b, dt));
    }
    case ST_ALIGN: {
        group g;
        group_query(w, i, &bh->flock, view_cos(bh->flock.fov), 0.0, &g);
        return alignment_force(b, &g, gain_of(b, dt));
    }
    case ST_COHERE: {
        group g;
        group_query(w, i, &bh->flock, view_cos(bh->flock.fov), 0.0, &g);
        return cohesion_force(b, &g, gain_of(b, dt));
    }
    case ST_FLOCK:
        return flock(w, i, &bh->flock, view_cos_memo(memo, bh->flock.fov), dt);
    case ST_AVOID_OBSTACLES:
        return st__avoid_obstacles_force(w, b, dt);
    case ST_AVOID_WALLS:
        return st__avoid_walls_force(w, b, dt);
    case ST_CONTAIN:
        return st__contain_force(w, b, bh->rect, dt);
    case ST_AVOID_AGENTS:
        return st__avoid_agents_force(w, i, dt);
    case ST_FOLLOW_PATH:
        if (bh->path_mode == ST_PATH_PREDICT) return st__follow_path_predict(w, i, bh->path, bh->predict, bh->ahead, dt);
        return follow_path(w, b, a, bh->path, dt);
    case ST_OFFSET_PURSUE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return offset_pursue(w, b, &k, bh->offset, dt);
    case ST_INTERPOSE:
        if (!target_kin(w, &bh->target, &k) || !target_kin(w, &bh->target2, &k2)) return ZERO;
        return interpose(w, b, &k, &k2, dt);
    case ST_HIDE:
        if (!target_kin(w, &bh->target, &k)) return ZERO;
        return hide(w, b, &k, dt);
    case ST_FOLLOW_FLOW:
        return steer_velocity(b, st__flow_desired(bh->field, b->pos, b->max_speed), dt);
    case ST_FACE:
    case ST_LOOK_WHERE_GOING:
    case ST_MATCH_VELOCITY:
    case ST_FOLLOW_LEADER:
    case ST_QUEUE:
        return st__motion_force(w, i, bh, dt);
    case ST_STOP:
    case ST_GRAZE:
        return st__rest_force(w, i, bh, dt);
    case ST_BEHAVIOR_COUNT:
        break;
    }
    assert(!"unknown behaviour type");
    return ZERO;
}

static bool traced(const st_world *w, int i)
{
    const st_agent *a = &w->agents[i];
    return w->trace_id.generation != 0 && a->slot == w->trace_id.index &&
           w->slots[a->slot].generation == w->trace_id.generation;
}

ST__INLINE void accumulate(st_world *w, int i, st_vec2 force, double weight, st_behavior_type type)
{
    st_body *b = &w->bodies[i];
    if (traced(w, i)) {
        int c = w->trace_cur;
        if (w->trace_count[c] < ST_TRACE_CAP) {
            st_trace_entry *e = &w->trace[c][w->trace_count[c]++];
            e->type = type;
            e->force = force;
            e->weight = weight;
        }
    }
    st_vec2 f = st_v2_scale(force, weight);
    if (!st_v2_finite(f)) f = st_v2_scale(dir_safe(f), DBL_MAX / 4.0);
    if (b->combine == ST_COMBINE_PRIORITY) {
        // Buckland's running sum: each force gets only what is left of max_force.
        double used = st_v2_len(b->accum);
        double left = b->max_force - used;
        if (!(left > 0.0)) return;
        f = st_v2_truncate_safe(f, left);
    }
    st_vec2 sum = st_v2_add(b->accum, f);
    // The sum is truncated to max_force at integration anyway: keep it finite.
    b->accum = st_v2_finite(sum) ? sum : st_v2_scale(dir_safe(sum), DBL_MAX / 4.0);
}

void st__accumulate(st_world *w, int i, st_vec2 force, double weight, st_behavior_type type)
{
    accumulate(w, i, force, weight, type);
}

st_vec2 st_agent_force_of(st_world *w, st_agent_id id, const st_behavior *b)
{
    int i = st__dense(w, id);
    if (i < 0 || !b) return ZERO;
    st__grid_ensure(w);
    if (b->type == ST_FACE && !st__orient_ensure(w, i)) return ZERO; // its request needs a record
    return force_of(w, i, b, NULL);
}

st_vec2 st__force_of(st_world *w, int i, const st_behavior *b) { return force_of(w, i, b, NULL); }

/// Outside a step: r kept for the step that applies it (request.c), and
/// its preview returned. Out of memory, the call is lost (as a force
/// that could not be added) and reads zero.
static st_vec2 request(st_world *w, int i, st__request *r, const st_agent_id *ids, int n)
{
    r->id = st__id_of(w, i);
    r->list_n = n;
    st_vec2 f = st__request_preview(w, i, r, ids);
    return st__request_push(w, r, ids, n) ? f : ZERO;
}

st_vec2 st_agent_steer(st_world *w, st_agent_id id, const st_behavior *b)
{
    int i = st__dense(w, id);
    if (i < 0 || !b) return ZERO;
    st__grid_ensure(w);
    if (b->type == ST_FACE && !st__orient_ensure(w, i)) return ZERO; // its request needs a record
    // Facing requests are no forces: they hold for the next step as they are.
    if (!w->in_step && b->type != ST_FACE && b->type != ST_LOOK_WHERE_GOING) {
        st__request r = {.kind = ST__REQ_BEHAVIOR, .bh = *b};
        return request(w, i, &r, NULL, 0);
    }
    st_vec2 f = force_of(w, i, b, NULL);
    // Inlined, so the force stays in registers: through st__accumulate's
    // call it went to the stack as two halves read back as one vector,
    // which waits for both (a brain's every behaviour call).
    accumulate(w, i, f, b->weight, b->type);
    return f;
}

void st_agent_apply(st_world *w, st_agent_id id, st_vec2 force, double weight)
{
    int i = st__dense(w, id);
    assert(st_v2_finite(force) && st_finite(weight));
    if (i < 0 || !st_v2_finite(force) || !st_finite(weight)) return;
    if (!w->in_step) {
        // No dt in it, but its place among the agent's other calls counts
        // under "priority".
        st__request r = {.kind = ST__REQ_APPLY, .bh = st_default_behavior(ST_SEEK)};
        r.bh.offset = force;
        r.bh.weight = weight;
        request(w, i, &r, NULL, 0);
        return;
    }
    st__accumulate(w, i, force, weight, ST_BEHAVIOR_COUNT);
}

st_vec2 st__list_force(st_world *w, int i, const st_agent_id *list, int n, st_behavior_type type)
{
    const st_body *b = &w->bodies[i];
    group g = {ZERO, ZERO, ZERO, 0, INFINITY, (uint32_t)i};
    for (int k = 0; k < n; k++) {
        int j = st__dense(w, list[k]);
        if (j < 0 || j == i) continue;
        st_vec2 off = st__offset(w, b->pos, w->bodies[j].pos);
        group_add(&g, w, (uint32_t)j, off, st_v2_len2(off));
    }
    steer_gain k = gain_of(b, st_world_step_dt(w));
    if (type == ST_SEPARATE) return separation_force(b, &g, k);
    if (type == ST_ALIGN) return alignment_force(b, &g, k);
    return cohesion_force(b, &g, k);
}

static st_vec2 list_rule_force(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight,
                               st_behavior_type type)
{
    int i = st__dense(w, id);
    if (i < 0) return ZERO;
    if (!w->in_step) {
        st__request r = {.kind = ST__REQ_LIST, .bh = st_default_behavior(type)};
        r.bh.weight = weight;
        return request(w, i, &r, list, n);
    }
    st_vec2 f = st__list_force(w, i, list, n, type);
    st__accumulate(w, i, f, weight, type);
    return f;
}

st_vec2 st_agent_separate_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight)
{
    return list_rule_force(w, id, list, n, weight, ST_SEPARATE);
}

st_vec2 st_agent_align_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight)
{
    return list_rule_force(w, id, list, n, weight, ST_ALIGN);
}

st_vec2 st_agent_cohere_list(st_world *w, st_agent_id id, const st_agent_id *list, int n, double weight)
{
    return list_rule_force(w, id, list, n, weight, ST_COHERE);
}

/* ---- the shared pieces, for behaviour modules of their own ---- */

st_vec2 st__steer_velocity(const st_body *b, st_vec2 desired, double dt) { return steer_velocity(b, desired, dt); }
double st__approach_speed(const st_body *b, double d, double slowing, double dt)
{
    return approach_speed(b, d, slowing, ST_DECEL_LINEAR, dt);
}
st_vec2 st__seek(const st_world *w, const st_body *b, st_vec2 target, double dt) { return seek(w, b, target, dt); }
st_vec2 st__arrive(const st_world *w, const st_body *b, st_vec2 target, double slowing, double dt)
{
    return arrive(w, b, target, slowing, ST_DECEL_LINEAR, dt);
}

/// Agents whose one standing behaviour is a flock are gathered (up to
/// ST_FLOCK_BATCH, the same list) and done together: their sums, then their
/// forces, then their moves. The forces are a chain of square roots and
/// divisions an agent, which the processor overlaps when several
/// independent ones come in a row rather than each between two neighbour
/// loops.
typedef struct flock_batch {
    int n;
    const st_behavior *bh;  // the one standing behaviour they share
    int index[ST_FLOCK_BATCH];
} flock_batch;

/// What the standing pass does once an agent's forces are in: when it
/// moves the agents, it queues them and moves a group at a time
/// (st__move_group, step.c). Nothing in the pass reads another agent's body
/// (st_world_step_end fuses the moves into it only then), so an agent may
/// move after the next ones' behaviours.
typedef struct mover {
    bool integrate; // it moves the agents (st__standing_pass)
    bool all_alive;
    double dt;
    int32_t *cells; // NULL, or where each agent's new cell is kept (st_grid.next_cells)
    int n;          // agents queued
    int queue[ST_INTEGRATE_GROUP];
} mover;

/// Moves the queued agents.
static void move_queued(st_world *w, mover *mv)
{
    st__move_group(w, mv->queue, mv->n, mv->dt, mv->cells);
    mv->n = 0;
}

/// Queues agent i to move when the pass moves agents and it is alive.
ST__INLINE void move_agent(st_world *w, int i, mover *mv)
{
    if (!mv->integrate || !(mv->all_alive || w->agents[i].alive)) return;
    mv->queue[mv->n++] = i;
    if (mv->n == ST_INTEGRATE_GROUP) move_queued(w, mv);
}

static void flock_batch_finish(st_world *w, flock_batch *fb, mover *mv, view_memo *memo,
                               st__runs_memo *runs)
{
    if (fb->n == 0) return;
    const st_behavior *bh = fb->bh;
    st_vec2 f[ST_FLOCK_BATCH];
    flock_forces(w, fb->index, fb->n, &bh->flock, view_cos_memo(memo, bh->flock.fov), mv->dt, f, runs);
    // Each agent's force in, then its move: neither reads another's body.
    for (int m = 0; m < fb->n; m++) {
        accumulate(w, fb->index[m], f[m], bh->weight, ST_FLOCK);
        move_agent(w, fb->index[m], mv);
    }
    fb->n = 0;
}

/// How many agents in grid order a thread of the standing pass takes at a time.
#define ST_STANDING_CHUNK 512

void st__standing_pass(st_world *w, bool integrate)
{
    // Grid order: the agents of one cell run one after another, so the
    // neighbour cells each reads are still in cache from the agent before
    // (in spawn order every agent fetches its cells afresh, which at a
    // million agents means from memory). The agents' own bodies are then
    // fetched at random instead, which is cheap to hide: their indices are
    // known ahead, so they are prefetched a few agents early (and huge pages
    // keep those reads from missing the TLB as well).
    // Each agent reads only start-of-step state of the others and writes
    // only its own accumulator, wander and path state, so neither the order
    // nor the thread count changes a single bit of the result.
    int n = w->step_count;
    // The grid's order, from its lanes' index (4 bytes an agent to stream,
    // not an item's 24). The grid lists every agent of the step unless
    // building it ran out of memory; then spawn order it is.
    const uint32_t *order = w->grid.lanes ? w->grid.lanes->index : NULL;
    bool by_grid = w->grid.item_count == n && order;
    const double dt = w->step_dt;
    // Integrating along: agents removed during this step are in the grid
    // but must not move.
    const bool all_alive = w->dead == 0;
    const int chunks = (n + ST_STANDING_CHUNK - 1) / ST_STANDING_CHUNK;
    // Called by every thread of st_world_step_end's team (or by one, with
    // no team): the loop below is shared out among them.
    {
        mover mv = {integrate, all_alive, dt, integrate && w->grid.keep_cells ? w->grid.next_cells : NULL, 0, {0}};
        view_memo memo = {-1.0, view_cos(-1.0)}; // each thread its own
        flock_batch fb;
        fb.n = 0;
        st__runs_memo runs;
        runs.epoch = 0;
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int c = 0; c < chunks; c++) {
            int k1 = (c + 1) * ST_STANDING_CHUNK < n ? (c + 1) * ST_STANDING_CHUNK : n;
            for (int k = c * ST_STANDING_CHUNK; k < k1; k++) {
                int i = by_grid ? (int)order[k] : k;
                if (by_grid && k + ST_PREFETCH_AHEAD < n) {
                    int j = (int)order[k + ST_PREFETCH_AHEAD];
                    // Its body's two lines: all the pass reads of the agent
                    // unless a behaviour keeps state (wander, paths).
                    const char *bj = (const char *)&w->bodies[j];
                    ST__PREFETCH(bj);
                    ST__PREFETCH(bj + ST_BODY_ALIGN);
                    // And the list of an agent half as far ahead, whose body
                    // came in by now: a crowd's agents each have a list of
                    // their own (an arrive to their own goal), one more trip
                    // to memory an agent that nothing else hides.
                    const st_blist *lh = w->bodies[order[k + ST_PREFETCH_AHEAD / 2]].behaviors;
                    if (lh) {
                        ST__PREFETCH(lh);
                        ST__PREFETCH((const char *)lh + 64);
                    }
                }
                // A removed agent's list is gone: no need to look at `alive`.
                const st_blist *l = w->bodies[i].behaviors;
                if (l && l->count == 1 && l->items[0].type == ST_FLOCK) {
                    // Batched with the agents before it that share its list.
                    if (fb.n > 0 && fb.bh != &l->items[0]) flock_batch_finish(w, &fb, &mv, &memo, &runs);
                    fb.bh = &l->items[0];
                    fb.index[fb.n] = i;
                    if (++fb.n == ST_FLOCK_BATCH) flock_batch_finish(w, &fb, &mv, &memo, &runs);
                    continue;
                }
                if (l) {
                    for (int m = 0; m < l->count; m++) {
                        const st_behavior *bh = &l->items[m];
                        accumulate(w, i, force_of(w, i, bh, &memo), bh->weight, bh->type);
                    }
                }
                move_agent(w, i, &mv);
            }
            flock_batch_finish(w, &fb, &mv, &memo, &runs);
            move_queued(w, &mv);
        }
    }
}
