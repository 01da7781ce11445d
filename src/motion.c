/*
 * motion.c — orientation apart from velocity, and the behaviours that are
 * about how an agent moves among others rather than where it goes: face,
 * look_where_going, match_velocity (gdx-ai), follow_leader and queue
 * (Reynolds 1999).
 *
 * Orientation. The heading is the facing. Most agents never have anything
 * but "facing = direction of travel", so that stays the integrator's plain
 * path and costs them nothing: an agent gets an orientation record (by
 * handle slot, like avoidance settings) only when it is given a finite turn
 * rate or asked to face something, and a flag byte in its body sends the
 * integrator here. The record holds the turn rate and this step's request
 * (a direction, or none = the velocity's), which the integrator consumes:
 * a request lasts one step, as a force does.
 */
#include <stdlib.h>

#include "alloc.h"
#include "grid_iter.h"
#include "behavior_internal.h"
#include "motion.h"

static const st_vec2 ZERO = {0.0, 0.0};

/// Below this speed an agent counts as standing still (as in step.c).
#define ST_MOVING_SPEED2 1e-12
/// queue's braking box beyond the two radii when not given: this many
/// seconds of travel at max speed, plus one radius.
#define ST_QUEUE_LOOKAHEAD 0.25
/// follow_leader's zone ahead of the leader when not given: distance plus
/// this many seconds of the leader's travel.
#define ST_LEADER_ZONE_TIME 1.0

/* ------------------------------------------------------------------------ */
/* orientation records                                                      */
/* ------------------------------------------------------------------------ */

st_orient *st__orient_ensure(st_world *w, int i)
{
    st_body *b = &w->bodies[i];
    uint32_t slot = w->agents[i].slot;
    if (b->orient) return &w->orients[slot];
    if (slot >= w->orient_cap) {
        uint32_t n = w->orient_cap ? w->orient_cap : 64;
        while (n <= slot) n *= 2;
        st_orient *q = st__realloc(&w->mem, w->orients, (size_t)n * sizeof *q);
        if (!q) return NULL;
        w->orients = q;
        w->orient_cap = n;
    }
    st_orient *o = &w->orients[slot];
    o->turn_rate = INFINITY;
    o->face = ZERO;
    b->orient = 1;
    return o;
}

void st__orient_free(st_world *w)
{
    st__free(w->orients);
    w->orients = NULL;
    w->orient_cap = 0;
}

bool st__orient_list_needs(const st_behavior *list, int n)
{
    for (int k = 0; list && k < n; k++)
        if (list[k].type == ST_FACE) return true;
    return false;
}

bool st_agent_set_turn_rate(st_world *w, st_agent_id id, double rate)
{
    int i = st__dense(w, id);
    if (i < 0 || !(rate >= 0.0)) return false;
    if (rate == INFINITY && !w->bodies[i].orient) return true; // the default already
    st_orient *o = st__orient_ensure(w, i);
    if (!o) return false;
    o->turn_rate = rate;
    return true;
}

double st_agent_turn_rate(const st_world *w, st_agent_id id)
{
    int i = st__dense(w, id);
    if (i < 0) return 0.0;
    return w->bodies[i].orient ? w->orients[w->agents[i].slot].turn_rate : INFINITY;
}

void st__orient_turn(st_world *w, int i, st_vec2 v, double dt)
{
    st_body *b = &w->bodies[i];
    st_orient *o = &w->orients[w->agents[i].slot];
    st_vec2 want = o->face;
    o->face = ZERO;
    if (want.x == 0.0 && want.y == 0.0) {
        if (!(st_v2_len2(v) > ST_MOVING_SPEED2)) return;
        // The same arithmetic as the integrator's plain path, so an
        // unlimited agent with a record moves bit for bit like one without.
        double m = fmax(fabs(v.x), fabs(v.y));
        want = st_v2_normalize(st_v2(v.x / m, v.y / m));
        if (want.x == 0.0 && want.y == 0.0) return;
    }
    double max = o->turn_rate * dt;
    if (o->turn_rate == INFINITY || !(max < ST_PI)) {
        b->heading = want;
        return;
    }
    st_vec2 h = b->heading;
    double ang = st_atan2(st_v2_cross(h, want), st_v2_dot(h, want));
    if (fabs(ang) <= max) {
        b->heading = want;
        return;
    }
    st_vec2 r = st_v2_normalize(st_v2_rotate(h, ang > 0.0 ? max : -max));
    if (r.x != 0.0 || r.y != 0.0) b->heading = r;
}

/* ------------------------------------------------------------------------ */
/* the behaviours                                                           */
/* ------------------------------------------------------------------------ */

/// A target agent's body, or NULL when it is dead.
static const st_body *target_body(const st_world *w, const st_target *t)
{
    if (!t->is_agent) return NULL;
    int j = st__dense_hint(w, t->agent);
    return j < 0 ? NULL : &w->bodies[j];
}

static st_vec2 face(st_world *w, int i, const st_target *t)
{
    st_body *b = &w->bodies[i];
    // Without a record (a standing list always has one) there is nowhere
    // to keep the request: nothing to do.
    if (!b->orient) return ZERO;
    st_vec2 p = t->point;
    if (t->is_agent) {
        const st_body *o = target_body(w, t);
        if (!o) return ZERO;
        p = o->pos;
    }
    st_vec2 d = st_v2_normalize_safe(st_world_offset(w, b->pos, p));
    w->orients[w->agents[i].slot].face = d; // zero (on top of it): the velocity's
    return ZERO;
}

static st_vec2 look_where_going(st_world *w, int i)
{
    if (w->bodies[i].orient) w->orients[w->agents[i].slot].face = ZERO;
    return ZERO;
}

/// gdx-ai's MatchVelocity: the acceleration that would reach v in
/// time_to_target, capped at max_force (and never more than reaches it
/// within this step).
static st_vec2 match_velocity(const st_world *w, const st_body *b, const st_target *t, double time, double dt)
{
    st_vec2 v = t->point;
    if (t->is_agent) {
        const st_body *o = target_body(w, t);
        if (!o) return ZERO;
        v = o->vel;
    }
    double tt = time > dt ? time : dt;
    st_vec2 dv = st_v2_sub(v, b->vel);
    st_vec2 f = st_v2_scale(dv, b->mass / tt);
    if (!st_v2_finite(f)) return st_v2_scale(st_v2_normalize_safe(dv), b->max_force);
    return st_v2_truncate_safe(f, b->max_force);
}

/// Reynolds' leader following: arrive at a point `distance` behind the
/// leader, at its velocity; a follower inside the zone ahead of the leader
/// (zone long, as wide as the two of them and a follower more) first steps
/// sideways out of it, away from the leader's line.
static st_vec2 follow_leader(const st_world *w, int i, const st_behavior *bh, double dt)
{
    const st_body *b = &w->bodies[i];
    const st_body *l = target_body(w, &bh->target);
    if (!l || l == b) return ZERO;
    st_vec2 lh = l->heading, ls = st_v2_perp(l->heading);
    double distance = bh->ahead;
    st_vec2 rel = st_world_offset(w, l->pos, b->pos);
    double along = st_v2_dot(rel, lh), across = st_v2_dot(rel, ls);
    double zone = bh->zone >= 0.0 ? bh->zone : distance + st_v2_len(l->vel) * ST_LEADER_ZONE_TIME;
    double half = l->radius + 2.0 * b->radius;
    if (along > 0.0 && along < zone + b->radius && fabs(across) < half) {
        // In the way: out sideways, to whichever side we already lean.
        st_vec2 out = across >= 0.0 ? ls : st_v2_neg(ls);
        return st__steer_velocity(b, st_v2_scale(out, b->max_speed), dt);
    }
    st_vec2 behind = st_v2_sub(l->pos, st_v2_scale(lh, distance));
    st_vec2 to = st_world_offset(w, b->pos, behind);
    double d = st_v2_len(to);
    st_vec2 desired = l->vel;
    if (d > 0.0) desired = st_v2_add(desired, st_v2_scale(to, st__approach_speed(b, d, ST_ARRIVE_SLOWING_RADIUS, dt) / d));
    return st__steer_velocity(b, st_v2_truncate_safe(desired, b->max_speed), dt);
}

typedef struct queue_scan {
    const st_world *w;
    int self;
    int32_t tag;
    st_vec2 h;          // direction of travel
    double box, radius; // box beyond the radii; own radius
    double gap;         // smallest free distance to someone in the box
    bool found;
} queue_scan;

static void queue_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                      double r2, bool fold)
{
    queue_scan *q = ctx;
    const st_world *w = q->w;
    for (int k = k0; k < k1; k++) {
        const st_grid_item *it = &items[k];
        if ((int)it->index == q->self || (q->tag != ST_TAG_ANY && it->tag != q->tag)) continue;
        st_vec2 rel = st__run_offset(w, it, sx, sy, c, fold);
        if (st_v2_len2(rel) > r2) continue;
        if (w->removed_in_step && !w->agents[it->index].alive) continue;
        double rsum = q->radius + w->bodies[it->index].radius;
        double along = st_v2_dot(rel, q->h), across = st_v2_cross(q->h, rel);
        if (!(along > 0.0) || fabs(across) >= rsum) continue;
        double gap = along - rsum;
        if (gap >= q->box) continue;
        if (!q->found || gap < q->gap) {
            q->found = true;
            q->gap = gap;
        }
    }
}

/// Reynolds' queueing: while someone sits in the short box ahead (along
/// the direction of travel, as wide as the two of them), brake: the
/// desired velocity shrinks with the free gap, to a stop at contact.
static st_vec2 queue(const st_world *w, int i, const st_behavior *bh, double dt)
{
    const st_body *b = &w->bodies[i];
    double box = bh->ahead >= 0.0 ? bh->ahead : b->radius + b->max_speed * ST_QUEUE_LOOKAHEAD;
    st_vec2 h = st_v2_len2(b->vel) > ST_MOVING_SPEED2 ? st_v2_normalize_safe(b->vel) : b->heading;
    if (!(box > 0.0) || !isfinite(box)) return ZERO;
    // Neighbours of any radius up to the box's far end: the grid items
    // carry no radius, so reach a little past it (4 own radii).
    double reach = box + 4.0 * b->radius + 2.0 * b->radius;
    queue_scan q = {w, i, bh->flock.tag, h, box, b->radius, 0.0, false};
    st__grid_runs(w, &w->grid, b->pos, reach, queue_run, &q);
    if (!q.found) return ZERO;
    double keep = q.gap > 0.0 ? q.gap / box : 0.0;
    return st__steer_velocity(b, st_v2_scale(b->vel, 0.5 * keep), dt);
}

st_vec2 st__motion_force(st_world *w, int i, const st_behavior *bh, double dt)
{
    switch (bh->type) {
    case ST_FACE: return face(w, i, &bh->target);
    case ST_LOOK_WHERE_GOING: return look_where_going(w, i);
    case ST_MATCH_VELOCITY: return match_velocity(w, &w->bodies[i], &bh->target, bh->predict, dt);
    case ST_FOLLOW_LEADER: return follow_leader(w, i, bh, dt);
    case ST_QUEUE: return queue(w, i, bh, dt);
    default: return ZERO;
    }
}
