/*
 * avoid.c — ORCA: Optimal Reciprocal Collision Avoidance (van den Berg, Guy,
 * Lin and Manocha, "Reciprocal n-body collision avoidance", 2011).
 *
 * Each agent with ORCA turns every neighbour and every obstacle edge near it
 * into a half-plane of velocities that stay collision free for a time
 * horizon, and takes the velocity inside all of them closest to the one its
 * steering asked for (a 2D linear program over a disc of radius max_speed).
 * When the half-planes leave nothing, a 3D linear program finds the velocity
 * that violates the agent half-planes least, keeping the obstacle ones.
 *
 * Neighbours come from the world's grid, nearest first (ties by serial), so
 * the result never depends on grid order or thread count. The pass reads the
 * positions and velocities at the start of the step and writes only the
 * agent's own entry of the preferred-velocity buffer.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifdef STEER_HAVE_OPENMP
#include <omp.h>
#endif

#include "grid_iter.h"
#include "rng.h"

#define ORCA_EPS 1e-9
/// Obstacle half-planes an agent takes at most (the nearest edges).
#define ORCA_MAX_OBSTACLE_LINES 32
#define ORCA_MAX_LINES (ST_AVOID_MAX_NEIGHBORS_CAP + 16 + ORCA_MAX_OBSTACLE_LINES)

/// One vertex of the obstacle outlines ORCA sees (RVO2's representation):
/// closed polygons counter-clockwise, and every open segment as a
/// two-vertex loop, solid on both sides.
typedef struct overt {
    st_vec2 p;
    st_vec2 dir;   // unit, towards next
    int next, prev;
    bool convex;
} overt;

/// One outline's vertices [first, first + count) and its bounding box.
typedef struct ogroup {
    int first, count;
    st_vec2 lo, hi;
} ogroup;

/// What an agent's neighbours read of it, copied once per pass into one
/// cache line per agent (dense index): the gathering and the half-planes
/// otherwise touch both lines of its body, its record and its settings.
typedef struct orca_peer {
    st_vec2 vel;
    double radius, max_speed, priority;
    uint64_t serial;
    uint32_t layer, mask; // st__avoid_layer; the mask of its settings (ORCA agents only)
    uint8_t avoid;        // st_body.avoid
    uint8_t pad_[7];
} orca_peer;

_Static_assert(sizeof(orca_peer) == 64, "orca_peer is one cache line");

struct st_avoid_state {
    orca_peer *peer;   // [pref_cap], 64-byte aligned
    st_vec2 *pref;     // preferred velocities; the chosen ones after the pass
    st_vec2 *out;      // the first round's choices
    uint8_t *flag;     // AV_STUCK, AV_REVISIT
    int pref_cap;
    int stuck;         // agents stuck in the first round
    uint64_t epoch;    // obstacle_epoch the outlines were made at (+1; 0: never)
    overt *verts;
    int vert_count, vert_cap;
    ogroup *groups;
    int group_count, group_cap;
    st_orca_trace trace;
};

st_avoid_def st_default_avoid_def(void)
{
    st_avoid_def d;
    memset(&d, 0, sizeof d);
    d.mode = ST_AVOIDANCE_NONE;
    d.range = ST_AVOID_AUTO;
    d.max_neighbors = ST_AVOID_MAX_NEIGHBORS;
    d.horizon = ST_AVOID_AUTO;
    d.horizon_obstacles = ST_AVOID_AUTO;
    d.priority = 1.0;
    d.layer = 1u;
    d.mask = UINT32_MAX;
    d.locked = false;
    return d;
}

void st__avoid_free(st_world *w)
{
    free(w->avoid_defs);
    if (w->avoid) {
        free(w->avoid->pref);
        free(w->avoid->peer);
        free(w->avoid->out);
        free(w->avoid->flag);
        free(w->avoid->verts);
        free(w->avoid->groups);
        free(w->avoid);
    }
}

static struct st_avoid_state *state_of(st_world *w)
{
    if (!w->avoid) w->avoid = calloc(1, sizeof *w->avoid);
    return w->avoid;
}

static bool auto_or_positive(double v) { return v == ST_AVOID_AUTO || (st_finite(v) && v > 0.0); }

bool st_agent_set_avoidance(st_world *w, st_agent_id id, const st_avoid_def *d)
{
    int i = st__dense(w, id);
    if (i < 0 || !d) return false;
    if (d->mode != ST_AVOIDANCE_NONE && d->mode != ST_AVOIDANCE_ORCA) return false;
    if (!(d->range == ST_AVOID_AUTO || (st_finite(d->range) && d->range >= 0.0))) return false;
    if (!auto_or_positive(d->horizon) || !auto_or_positive(d->horizon_obstacles)) return false;
    if (!(st_finite(d->priority) && d->priority >= 0.0)) return false;
    if (d->max_neighbors < 0 || d->max_neighbors > ST_AVOID_MAX_NEIGHBORS_CAP) return false;
    if (id.index >= w->avoid_def_cap) {
        uint32_t n = w->avoid_def_cap ? w->avoid_def_cap : 64;
        while (n <= id.index) n *= 2;
        st_avoid_def *q = realloc(w->avoid_defs, (size_t)n * sizeof *q);
        if (!q) return false;
        w->avoid_defs = q;
        w->avoid_def_cap = n;
    }
    if (d->mode == ST_AVOIDANCE_ORCA && !state_of(w)) return false;
    w->avoid_defs[id.index] = *d;
    st_body *b = &w->bodies[i];
    b->avoid = (uint8_t)(ST__AV_DEF | (d->mode == ST_AVOIDANCE_ORCA ? ST__AV_ORCA : 0u) |
                         (d->locked ? ST__AV_LOCKED : 0u));
    if (d->mode == ST_AVOIDANCE_ORCA) w->avoid_active = true;
    return true;
}

/// The settings with every automatic value worked out for this body.
static st_avoid_def effective(const st_avoid_def *d, const st_body *b)
{
    st_avoid_def e = *d;
    if (e.range == ST_AVOID_AUTO) e.range = fmax(10.0 * b->radius, b->max_speed * 1.0);
    if (e.horizon == ST_AVOID_AUTO) {
        double h = b->max_speed > 0.0 ? e.range / b->max_speed : 10.0;
        e.horizon = h < 0.5 ? 0.5 : h > 10.0 ? 10.0 : h;
    }
    if (e.horizon_obstacles == ST_AVOID_AUTO) e.horizon_obstacles = e.horizon;
    return e;
}

st_avoid_def st__avoid_effective(const st_world *w, int i) { return effective(st__avoid_def(w, i), &w->bodies[i]); }

const st_avoid_def *st__avoid_def(const st_world *w, int i)
{
    static const st_avoid_def none = {ST_AVOIDANCE_NONE, ST_AVOID_AUTO, ST_AVOID_MAX_NEIGHBORS, ST_AVOID_AUTO,
                                      ST_AVOID_AUTO,     1.0,           1u,                    UINT32_MAX,
                                      false};
    if (!(w->bodies[i].avoid & ST__AV_DEF)) return &none;
    return &w->avoid_defs[w->agents[i].slot];
}

bool st_agent_avoidance(const st_world *w, st_agent_id id, st_avoid_def *out, bool eff)
{
    int i = st__dense(w, id);
    if (i < 0 || !out) return false;
    *out = eff ? effective(st__avoid_def(w, i), &w->bodies[i]) : *st__avoid_def(w, i);
    return true;
}

const st_orca_trace *st_world_orca_trace(const st_world *w)
{
    static const st_orca_trace empty;
    return w->avoid ? &w->avoid->trace : &empty;
}

/* ------------------------------------------------------------------------ */
/* obstacle outlines                                                        */
/* ------------------------------------------------------------------------ */

/// Appends one outline of n points (closed: a polygon, else one segment).
static bool add_outline(struct st_avoid_state *s, const st_vec2 *pts, int n)
{
    if (!st__grow((void **)&s->verts, &s->vert_cap, s->vert_count + n, sizeof(overt)) ||
        !st__grow((void **)&s->groups, &s->group_cap, s->group_count + 1, sizeof(ogroup)))
        return false;
    int first = s->vert_count;
    s->vert_count += n;
    ogroup *g = &s->groups[s->group_count++];
    g->first = first;
    g->count = n;
    g->lo = g->hi = pts[0];
    for (int k = 0; k < n; k++) {
        overt *v = &s->verts[first + k];
        v->p = pts[k];
        v->next = first + (k + 1) % n;
        v->prev = first + (k + n - 1) % n;
        g->lo = st_v2(fmin(g->lo.x, pts[k].x), fmin(g->lo.y, pts[k].y));
        g->hi = st_v2(fmax(g->hi.x, pts[k].x), fmax(g->hi.y, pts[k].y));
    }
    for (int k = 0; k < n; k++) {
        overt *v = &s->verts[first + k];
        const overt *nx = &s->verts[v->next], *pv = &s->verts[v->prev];
        v->dir = st_v2_normalize(st_v2_sub(nx->p, v->p));
        // Convex where the outline turns left (counter-clockwise); a
        // segment's two ends always are.
        v->convex = n == 2 || st_v2_cross(st_v2_sub(v->p, pv->p), st_v2_sub(nx->p, v->p)) >= 0.0;
    }
    return true;
}

static bool add_segment(struct st_avoid_state *s, st_vec2 a, st_vec2 b)
{
    if (a.x == b.x && a.y == b.y) return true; // no length: nothing to avoid
    st_vec2 pts[2] = {a, b};
    return add_outline(s, pts, 2);
}

/// A polygon's outline, or a polyline's there and back: a loop of no area
/// whose joints are convex on one side and concave on the other, as a solid
/// chain's are.
static bool add_obstacle_outline(struct st_avoid_state *s, const st_obstacle *o)
{
    int n = o->point_count, m = o->kind == ST_OBSTACLE_POLYGON ? n : 2 * n - 2;
    st_vec2 stack[64];
    st_vec2 *pts = m <= 64 ? stack : malloc((size_t)m * sizeof *pts);
    if (!pts) return false;
    for (int k = 0; k < n; k++) pts[k] = st_v2_add(o->center, o->points[k]);
    for (int k = n; k < m; k++) pts[k] = pts[2 * n - 2 - k];
    bool ok = add_outline(s, pts, m);
    if (pts != stack) free(pts);
    return ok;
}

/// Remakes the outlines after the obstacles or walls changed.
static void build_outlines(st_world *w, struct st_avoid_state *s)
{
    if (s->epoch == w->obstacle_epoch + 1) return;
    s->vert_count = s->group_count = 0;
    bool ok = true;
    for (int k = 0; k < w->wall_count && ok; k++) ok = add_segment(s, w->walls[k].from, w->walls[k].to);
    for (int i = 0; i < w->obstacle_count && ok; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (o->kind != ST_OBSTACLE_CIRCLE) ok = add_obstacle_outline(s, o);
    }
    if (!ok) s->vert_count = s->group_count = 0; // out of memory: no outlines rather than half of them
    s->epoch = w->obstacle_epoch + 1;
}

st_vec2 *st__avoid_buffer(st_world *w, int count)
{
    struct st_avoid_state *s = state_of(w);
    if (!s) return NULL;
    if (count > s->pref_cap) {
        int n = s->pref_cap ? s->pref_cap : 256;
        while (n < count) n *= 2;
        st_vec2 *p = realloc(s->pref, (size_t)n * sizeof *p);
        if (p) s->pref = p;
        st_vec2 *o = realloc(s->out, (size_t)n * sizeof *o);
        if (o) s->out = o;
        uint8_t *f = realloc(s->flag, (size_t)n);
        if (f) s->flag = f;
        orca_peer *q = aligned_alloc(64, (size_t)n * sizeof *q); // rewritten every pass: nothing to keep
        if (q) {
            free(s->peer);
            s->peer = q;
        }
        if (!p || !o || !f || !q) return NULL;
        s->pref_cap = n;
    }
    return s->pref;
}

st_vec2 *st__avoid_begin(st_world *w, int count)
{
    st_vec2 *buf = st__avoid_buffer(w, count);
    if (!buf) return NULL;
    build_outlines(w, w->avoid);
    w->avoid->trace.valid = false;
    w->avoid->stuck = 0; // counted in the pass's first round
    return buf;
}

/* ------------------------------------------------------------------------ */
/* linear programs                                                          */
/* ------------------------------------------------------------------------ */

typedef st_orca_line line;

static inline double det(st_vec2 a, st_vec2 b) { return a.x * b.y - a.y * b.x; }

/// The best velocity on line `k` that satisfies lines [0, k) within the disc
/// of radius r: closest to `opt`, or farthest along the unit `opt` when
/// `dir_opt`. False when none exists.
static bool lp1(const line *lines, int k, double r, st_vec2 opt, bool dir_opt, st_vec2 *result)
{
    const line *L = &lines[k];
    double dot = st_v2_dot(L->point, L->direction);
    double disc = dot * dot + r * r - st_v2_len2(L->point);
    if (disc < 0.0) return false; // the line misses the speed disc
    double sq = sqrt(disc);
    double t_left = -dot - sq, t_right = -dot + sq;
    for (int j = 0; j < k; j++) {
        double den = det(L->direction, lines[j].direction);
        double num = det(lines[j].direction, st_v2_sub(L->point, lines[j].point));
        if (fabs(den) <= ORCA_EPS) {
            if (num < 0.0) return false; // parallel and on the wrong side
            continue;
        }
        double t = num / den;
        if (den >= 0.0) t_right = fmin(t_right, t);
        else t_left = fmax(t_left, t);
        if (t_left > t_right) return false;
    }
    double t;
    if (dir_opt) {
        t = st_v2_dot(opt, L->direction) > 0.0 ? t_right : t_left;
    } else {
        t = st_v2_dot(L->direction, st_v2_sub(opt, L->point));
        t = t < t_left ? t_left : t > t_right ? t_right : t;
    }
    *result = st_v2_add(L->point, st_v2_scale(L->direction, t));
    return true;
}

/// The velocity within the disc of radius r that satisfies every line and
/// lies closest to `opt` (or farthest along it when dir_opt). Returns n on
/// success, else the index of the line that could not be satisfied, with
/// *result the best velocity for the lines before it.
static int lp2(const line *lines, int n, double r, st_vec2 opt, bool dir_opt, st_vec2 *result)
{
    if (dir_opt) *result = st_v2_scale(opt, r);
    else if (st_v2_len2(opt) > r * r) *result = st_v2_scale(st_v2_normalize(opt), r);
    else *result = opt;
    for (int k = 0; k < n; k++) {
        if (det(lines[k].direction, st_v2_sub(lines[k].point, *result)) > 0.0) {
            st_vec2 keep = *result;
            if (!lp1(lines, k, r, opt, dir_opt, result)) {
                *result = keep;
                return k;
            }
        }
    }
    return n;
}

/// When lp2 fails at line `begin`: the velocity that minimises the largest
/// violation of the agent lines [n_obst, n), keeping the obstacle lines
/// [0, n_obst) (a 3D linear program, solved as 2D ones on each line's
/// boundary).
static void lp3(const line *lines, int n, int n_obst, int begin, double r, st_vec2 *result)
{
    double distance = 0.0;
    line proj[ORCA_MAX_LINES];
    for (int i = begin; i < n; i++) {
        if (det(lines[i].direction, st_v2_sub(lines[i].point, *result)) <= distance) continue;
        int m = 0;
        for (int k = 0; k < n_obst; k++) proj[m++] = lines[k];
        for (int j = n_obst; j < i; j++) {
            line p;
            double d = det(lines[i].direction, lines[j].direction);
            if (fabs(d) <= ORCA_EPS) {
                if (st_v2_dot(lines[i].direction, lines[j].direction) > 0.0) continue; // same direction
                p.point = st_v2_scale(st_v2_add(lines[i].point, lines[j].point), 0.5);
            } else {
                double t = det(lines[j].direction, st_v2_sub(lines[i].point, lines[j].point)) / d;
                p.point = st_v2_add(lines[i].point, st_v2_scale(lines[i].direction, t));
            }
            p.direction = st_v2_normalize(st_v2_sub(lines[j].direction, lines[i].direction));
            proj[m++] = p;
        }
        st_vec2 keep = *result;
        st_vec2 towards = st_v2(-lines[i].direction.y, lines[i].direction.x);
        // In theory this cannot fail; rounding can make it, and then the
        // last result stands.
        if (lp2(proj, m, r, towards, true, result) < m) *result = keep;
        distance = det(lines[i].direction, st_v2_sub(lines[i].point, *result));
    }
}

/* ------------------------------------------------------------------------ */
/* half-planes                                                              */
/* ------------------------------------------------------------------------ */

/// The half-plane for a disc of `rsum` at relative position `rel` moving at
/// `vel_other`, seen by an agent at velocity `vel` that takes `share` of the
/// avoiding, with horizon `inv_h` = 1 / horizon and step `inv_dt`.
/// `tie` picks a side when the two are exactly on top of each other.
ST__INLINE line disc_line(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share, double inv_h,
                      double inv_dt, double tie)
{
    st_vec2 rv = st_v2_sub(vel, vel_other);
    double d2 = st_v2_len2(rel), r2 = rsum * rsum;
    line L;
    st_vec2 u;
    if (d2 > r2) {
        // No collision yet: the velocity obstacle is a truncated cone.
        st_vec2 wv = st_v2_sub(rv, st_v2_scale(rel, inv_h));
        double wl2 = st_v2_len2(wv);
        double dot1 = st_v2_dot(wv, rel);
        if (dot1 < 0.0 && dot1 * dot1 > r2 * wl2) {
            // Nearest the cut-off circle.
            double wl = sqrt(wl2);
            st_vec2 uw = st_v2_scale(wv, 1.0 / wl);
            L.direction = st_v2(uw.y, -uw.x);
            u = st_v2_scale(uw, rsum * inv_h - wl);
        } else {
            // Nearest a leg.
            double leg = sqrt(d2 - r2);
            if (det(rel, wv) > 0.0) {
                L.direction = st_v2_scale(st_v2(rel.x * leg - rel.y * rsum, rel.x * rsum + rel.y * leg), 1.0 / d2);
            } else {
                L.direction =
                    st_v2_scale(st_v2(rel.x * leg + rel.y * rsum, -rel.x * rsum + rel.y * leg), -1.0 / d2);
            }
            double dot2 = st_v2_dot(rv, L.direction);
            u = st_v2_sub(st_v2_scale(L.direction, dot2), rv);
        }
    } else {
        // Already overlapping: get apart within this step.
        st_vec2 wv = st_v2_sub(rv, st_v2_scale(rel, inv_dt));
        double wl = st_v2_len(wv);
        st_vec2 uw = wl > ORCA_EPS ? st_v2_scale(wv, 1.0 / wl) : st_v2(tie, 0.0);
        L.direction = st_v2(uw.y, -uw.x);
        u = st_v2_scale(uw, rsum * inv_dt - wl);
    }
    L.point = st_v2_add(vel, st_v2_scale(u, share));
    return L;
}

/// Is the obstacle edge's velocity obstacle already inside a line made so far?
static bool covered(const line *lines, int n, st_vec2 rel1, st_vec2 rel2, double inv_h, double radius)
{
    for (int j = 0; j < n; j++) {
        if (det(st_v2_sub(st_v2_scale(rel1, inv_h), lines[j].point), lines[j].direction) - inv_h * radius >=
                -ORCA_EPS &&
            det(st_v2_sub(st_v2_scale(rel2, inv_h), lines[j].point), lines[j].direction) - inv_h * radius >=
                -ORCA_EPS)
            return true;
    }
    return false;
}

static inline st_vec2 leg_left(st_vec2 rel, double d2, double leg, double r)
{
    return st_v2_scale(st_v2(rel.x * leg - rel.y * r, rel.x * r + rel.y * leg), 1.0 / d2);
}

static inline st_vec2 leg_right(st_vec2 rel, double d2, double leg, double r)
{
    return st_v2_scale(st_v2(rel.x * leg + rel.y * r, -rel.x * r + rel.y * leg), 1.0 / d2);
}

/// The half-plane for the obstacle edge from vertex a (rel1 from the agent)
/// to its next (rel2); false when the edge adds none.
static bool edge_line(const overt *verts, int ia, st_vec2 rel1, st_vec2 rel2, st_vec2 vel, double radius,
                      double inv_h, line *out)
{
    const overt *o1 = &verts[ia], *o2 = &verts[o1->next];
    double r2 = radius * radius;
    double d1 = st_v2_len2(rel1), d2 = st_v2_len2(rel2);
    st_vec2 ov = st_v2_sub(o2->p, o1->p);
    double s = st_v2_dot(st_v2_neg(rel1), ov) / st_v2_len2(ov);
    double dline = st_v2_len2(st_v2_sub(st_v2_neg(rel1), st_v2_scale(ov, s)));
    const st_vec2 zero = {0.0, 0.0};

    // Touching: keep out along the shortest way.
    if (s < 0.0 && d1 <= r2) {
        if (!o1->convex) return false;
        out->point = zero;
        out->direction = st_v2_normalize(st_v2(-rel1.y, rel1.x));
        return true;
    }
    if (s > 1.0 && d2 <= r2) {
        // The next edge deals with a concave vertex, or with this one from its side.
        if (!o2->convex || det(rel2, o2->dir) < 0.0) return false;
        out->point = zero;
        out->direction = st_v2_normalize(st_v2(-rel2.y, rel2.x));
        return true;
    }
    if (s >= 0.0 && s < 1.0 && dline <= r2) {
        out->point = zero;
        out->direction = st_v2_neg(o1->dir);
        return true;
    }

    // Not touching: a cone between two legs, cut off at the horizon.
    st_vec2 left, right;
    bool one_vertex = false;
    if (s < 0.0 && dline <= r2) {
        // Seen end-on: the near vertex alone makes the cone.
        if (!o1->convex) return false;
        o2 = o1;
        one_vertex = true;
        double leg = sqrt(d1 - r2);
        left = leg_left(rel1, d1, leg, radius);
        right = leg_right(rel1, d1, leg, radius);
    } else if (s > 1.0 && dline <= r2) {
        if (!o2->convex) return false;
        o1 = o2;
        rel1 = rel2;
        one_vertex = true;
        double leg = sqrt(d2 - r2);
        left = leg_left(rel2, d2, leg, radius);
        right = leg_right(rel2, d2, leg, radius);
    } else {
        left = o1->convex ? leg_left(rel1, d1, sqrt(d1 - r2), radius) : st_v2_neg(o1->dir);
        right = o2->convex ? leg_right(rel2, d2, sqrt(d2 - r2), radius) : o1->dir;
    }
    if (one_vertex) rel2 = rel1;

    // A leg that points into the neighbouring edge is replaced by that
    // edge's cut-off, and a velocity projected onto it adds no constraint.
    const overt *left_nb = &verts[o1->prev];
    bool left_foreign = false, right_foreign = false;
    if (o1->convex && det(left, st_v2_neg(left_nb->dir)) >= 0.0) {
        left = st_v2_neg(left_nb->dir);
        left_foreign = true;
    }
    if (o2->convex && det(right, o2->dir) <= 0.0) {
        right = o2->dir;
        right_foreign = true;
    }

    st_vec2 lc = st_v2_scale(rel1, inv_h), rc = st_v2_scale(rel2, inv_h);
    st_vec2 cv = st_v2_sub(rc, lc);
    double t = one_vertex ? 0.5 : st_v2_dot(st_v2_sub(vel, lc), cv) / st_v2_len2(cv);
    double tl = st_v2_dot(st_v2_sub(vel, lc), left), tr = st_v2_dot(st_v2_sub(vel, rc), right);

    if ((t < 0.0 && tl < 0.0) || (one_vertex && tl < 0.0 && tr < 0.0)) {
        st_vec2 uw = st_v2_normalize(st_v2_sub(vel, lc));
        out->direction = st_v2(uw.y, -uw.x);
        out->point = st_v2_add(lc, st_v2_scale(uw, radius * inv_h));
        return true;
    }
    if (t > 1.0 && tr < 0.0) {
        st_vec2 uw = st_v2_normalize(st_v2_sub(vel, rc));
        out->direction = st_v2(uw.y, -uw.x);
        out->point = st_v2_add(rc, st_v2_scale(uw, radius * inv_h));
        return true;
    }
    double dcut = (t < 0.0 || t > 1.0 || one_vertex) ? INFINITY
                                                     : st_v2_len2(st_v2_sub(vel, st_v2_add(lc, st_v2_scale(cv, t))));
    double dleft = tl < 0.0 ? INFINITY : st_v2_len2(st_v2_sub(vel, st_v2_add(lc, st_v2_scale(left, tl))));
    double dright = tr < 0.0 ? INFINITY : st_v2_len2(st_v2_sub(vel, st_v2_add(rc, st_v2_scale(right, tr))));
    if (dcut <= dleft && dcut <= dright) {
        out->direction = st_v2_neg(o1->dir);
        out->point = st_v2_add(lc, st_v2_scale(st_v2(-out->direction.y, out->direction.x), radius * inv_h));
        return true;
    }
    if (dleft <= dright) {
        if (left_foreign) return false;
        out->direction = left;
        out->point = st_v2_add(lc, st_v2_scale(st_v2(-left.y, left.x), radius * inv_h));
        return true;
    }
    if (right_foreign) return false;
    out->direction = st_v2_neg(right);
    out->point = st_v2_add(rc, st_v2_scale(st_v2(-out->direction.y, out->direction.x), radius * inv_h));
    return true;
}

/* ------------------------------------------------------------------------ */
/* one agent                                                                */
/* ------------------------------------------------------------------------ */

/// 32 bytes: the sorted inserts move these; a tie on d2 reads the serials
/// from the peers.
typedef struct near_agent {
    double d2;
    uint32_t index;
    st_vec2 rel;
} near_agent;

static inline bool near_less(const orca_peer *peer, const near_agent *a, const near_agent *b)
{
    return a->d2 < b->d2 || (a->d2 == b->d2 && peer[a->index].serial < peer[b->index].serial);
}

typedef struct near_edge {
    double d2;
    int vert;
    st_vec2 rel1;
} near_edge;

#define ORCA_MAX_CLOSE 16
/// How far a blocked agent's aim turns to its side: this times its
/// preferred velocity, at right angles (about 27 degrees).
#define ORCA_SIDE_BIAS 0.5
/// And how far (radians, either way) it wavers from that aim, differently
/// for every agent and step (a hash of world seed, serial and tick): agents
/// placed in perfect symmetry otherwise make the same choice forever.
#define ORCA_WAVER 0.2
/// Bodies as ORCA plans them: 2% larger than they are, so what a squeeze
/// forces through comes out of this margin before the bodies touch.
#define ORCA_SKIN 1.02
/// A blocked agent going slower than this share of its preferred speed
/// (and chosen to stay so) sidesteps instead: a ring of agents pressing
/// on one point turns instead of waiting for ever.
#define ORCA_STALL 0.1

typedef struct gather {
    const st_world *w;
    const orca_peer *peer;
    int self;
    uint32_t mask;
    int cap, n;
    near_agent *best; // sorted by (d2, serial), at most cap
    // Everyone who could touch this agent within the step, whether or not
    // among the nearest `cap`: the same pairs seen from both sides.
    double radius, reach_speed, dt;
    int n_close;
    near_agent close[ORCA_MAX_CLOSE];
} gather;

/// Everything but the close list, which fills from n_close = 0 (zeroing
/// its 16 entries cost as much as a neighbour's half-plane).
static inline void gather_init(gather *g, const st_world *w, int self, uint32_t mask, int cap, near_agent *best,
                               const st_body *b, double dt)
{
    g->w = w;
    g->peer = w->avoid->peer;
    g->self = self;
    g->mask = mask;
    g->cap = cap;
    g->n = 0;
    g->best = best;
    g->radius = b->radius;
    g->reach_speed = b->max_speed;
    g->dt = dt;
    g->n_close = 0;
}

ST__INLINE void keep_sorted(const orca_peer *peer, near_agent *list, int *n, int cap, const near_agent *ap)
{
    const near_agent a = *ap;
    int pos = *n < cap ? *n : cap - 1;
    if (*n == cap && !near_less(peer, &a, &list[pos])) return;
    while (pos > 0 && near_less(peer, &a, &list[pos - 1])) {
        list[pos] = list[pos - 1];
        pos--;
    }
    list[pos] = a;
    if (*n < cap) (*n)++;
}


/// Candidates a run's distance test passes, a block at a time (below).
#define ORCA_SCAN_BLOCK 64

ST__INLINE void gather_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                       double r2, bool fold)
{
    gather *g = ctx;
    const st_world *w = g->w;
    // The distance test first, without a branch: about two thirds of a
    // run's items fail it, in no order a predictor can learn. The survivors
    // (the same ones the test would pass, NaN included) go on in run order.
    int pass[ORCA_SCAN_BLOCK];
    double pd2[ORCA_SCAN_BLOCK];
    st_vec2 poff[ORCA_SCAN_BLOCK];
    for (int b0 = k0; b0 < k1; b0 += ORCA_SCAN_BLOCK) {
        int b1 = k1 - b0 > ORCA_SCAN_BLOCK ? b0 + ORCA_SCAN_BLOCK : k1, m = 0;
        for (int k = b0; k < b1; k++) {
            st_vec2 off = st__run_offset(w, &items[k], sx, sy, c, fold);
            double d2 = off.x * off.x + off.y * off.y;
            pass[m] = k;
            pd2[m] = d2;
            poff[m] = off;
            m += !(d2 > r2);
        }
        for (int q = 0; q < m; q++) {
            const st_grid_item *it = &items[pass[q]];
            double d2 = pd2[q];
            if ((int)it->index == g->self) continue;
            if (w->removed_in_step && !w->agents[it->index].alive) continue;
            const orca_peer *o = &g->peer[it->index];
            if (!(g->mask & o->layer)) continue;
            double touch = g->radius + o->radius + (g->reach_speed + o->max_speed) * g->dt;
            bool close = d2 < touch * touch;
            if (!close && (g->cap == 0 || (g->n == g->cap && d2 > g->best[g->cap - 1].d2))) continue;
            near_agent a = {d2, it->index, poff[q]};
            if (close) keep_sorted(g->peer, g->close, &g->n_close, ORCA_MAX_CLOSE, &a);
            if (g->cap > 0) keep_sorted(g->peer, g->best, &g->n, g->cap, &a);
        }
    }
}

/// The nearest obstacle edges within reach, nearest first.
static int gather_edges(const st_world *w, const struct st_avoid_state *s, st_vec2 pos, double range,
                        near_edge *out)
{
    int n = 0;
    double r2 = range * range;
    for (int gi = 0; gi < s->group_count; gi++) {
        const ogroup *g = &s->groups[gi];
        st_vec2 c = st_v2_scale(st_v2_add(g->lo, g->hi), 0.5);
        st_vec2 half = st_v2_scale(st_v2_sub(g->hi, g->lo), 0.5);
        st_vec2 oc = st_world_offset(w, pos, c);
        if (fabs(oc.x) > half.x + range || fabs(oc.y) > half.y + range) continue;
        st_vec2 base = st_v2_sub(oc, c); // add to an absolute point: its offset from pos
        for (int k = g->first; k < g->first + g->count; k++) {
            const overt *a = &s->verts[k], *b = &s->verts[a->next];
            st_vec2 r1 = st_v2_add(base, a->p), r2v = st_v2_add(base, b->p);
            // Only edges the agent sees from outside (to their right); a
            // segment shows one of its two edges to each side.
            st_vec2 e = st_v2_sub(r2v, r1);
            if (det(r1, e) >= 0.0) continue;
            double l2 = st_v2_len2(e);
            double t = l2 > 0.0 ? -st_v2_dot(r1, e) / l2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double d2 = st_v2_len2(st_v2_add(r1, st_v2_scale(e, t)));
            if (d2 >= r2) continue;
            int pos_i = n < ORCA_MAX_OBSTACLE_LINES ? n : ORCA_MAX_OBSTACLE_LINES - 1;
            if (n == ORCA_MAX_OBSTACLE_LINES && d2 >= out[pos_i].d2) continue;
            while (pos_i > 0 && d2 < out[pos_i - 1].d2) {
                out[pos_i] = out[pos_i - 1];
                pos_i--;
            }
            out[pos_i] = (near_edge){d2, k, r1};
            if (n < ORCA_MAX_OBSTACLE_LINES) n++;
        }
    }
    return n;
}

/// Does agent j yield to agent i? Then they share by priority; else i takes all.
static double share_of(const orca_peer *pj_, const st_avoid_def *di)
{
    uint8_t fj = pj_->avoid;
    if (!(fj & ST__AV_ORCA) || (fj & ST__AV_LOCKED)) return 1.0;
    if (!(pj_->mask & di->layer)) return 1.0;
    double pi = di->priority, pj = pj_->priority;
    if (pi + pj <= 0.0) return 0.5;
    return pj / (pi + pj);
}

static bool is_traced(const st_world *w, int i)
{
    const st_agent *a = &w->agents[i];
    return w->trace_id.generation != 0 && a->slot == w->trace_id.index &&
           w->slots[a->slot].generation == w->trace_id.generation;
}

#define AV_STUCK 1u
#define AV_REVISIT 2u

/// Agent i's velocity: closest to pref in every half-plane. *stuck: even
/// this step's half-planes left nothing. In the second round (`flag`
/// non-NULL) a neighbour stuck in the first keeps the velocity it chose
/// there (`out`), and this agent avoids all of it this step.
static st_vec2 orca_agent(st_world *w, int i, st_vec2 pref, double dt, const uint8_t *flag, const st_vec2 *out,
                          bool *stuck)
{
    const st_body *b = &w->bodies[i];
    const st_avoid_def *raw = &w->avoid_defs[w->agents[i].slot];
    const st_avoid_def d = effective(raw, b);
    struct st_avoid_state *s = w->avoid;
    const double inv_h = 1.0 / d.horizon, inv_ho = 1.0 / d.horizon_obstacles, inv_dt = 1.0 / dt;
    line lines[ORCA_MAX_LINES];
    int n = 0;

    // Obstacle edges, nearest first, each unless an earlier line covers it.
    double reach = d.horizon_obstacles * b->max_speed + b->radius;
    near_edge edges[ORCA_MAX_OBSTACLE_LINES];
    int ne = s->vert_count > 0 ? gather_edges(w, s, b->pos, reach, edges) : 0;
    for (int k = 0; k < ne; k++) {
        const overt *a = &s->verts[edges[k].vert];
        st_vec2 r1 = edges[k].rel1, r2 = st_v2_add(r1, st_v2_sub(s->verts[a->next].p, a->p));
        if (covered(lines, n, r1, r2, inv_ho, b->radius)) continue;
        if (edge_line(s->verts, edges[k].vert, r1, r2, b->vel, b->radius, inv_ho, &lines[n])) n++;
    }
    // Circle obstacles: discs that never yield, moving as they last moved.
    for (int k = 0; k < w->obstacle_count && n < ORCA_MAX_OBSTACLE_LINES; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) continue;
        st_vec2 rel = st_world_offset(w, b->pos, o->center);
        double r = reach + o->radius;
        if (st_v2_len2(rel) > r * r) continue;
        st_vec2 ov = st_v2_scale(st_v2_sub(o->center, o->prev_center), inv_dt);
        if (!st_v2_finite(ov)) ov = st_v2(0.0, 0.0);
        lines[n++] = disc_line(rel, b->vel, ov, b->radius + o->radius, 1.0, inv_ho, inv_dt, 1.0);
    }
    const int n_obst = n;

    // Agents: the max_neighbors nearest within range on the layers it avoids.
    near_agent best[ST_AVOID_MAX_NEIGHBORS_CAP];
    const orca_peer *peer = s->peer;
    gather g;
    gather_init(&g, w, i, d.mask, d.max_neighbors, best, b, dt);
    if (d.max_neighbors > 0 && d.range > 0.0)
        st__grid_runs(w, &w->grid, b->pos, d.range, gather_run, &g);
    uint64_t serial = w->agents[i].serial;
    double shares[ORCA_MAX_CLOSE + ST_AVOID_MAX_NEIGHBORS_CAP]; // of the agent lines, from n_obst on
    // Neighbours close enough to touch within this step also get the
    // half-plane for a horizon of one step, kept hard like the obstacles':
    // when the crowd is too dense for every long-horizon half-plane, the
    // fallback gives up some foresight, never a collision this step.
    for (int k = 0; k < g.n_close; k++) {
        const near_agent *a = &g.close[k];
        const orca_peer *o = &peer[a->index];
        double share = share_of(o, &d);
        double tie = serial < o->serial ? 1.0 : -1.0;
        st_vec2 ov = o->vel;
        if (flag && (flag[a->index] & AV_STUCK)) {
            ov = out[a->index];
            share = 1.0;
        }
        shares[n - n_obst] = share;
        lines[n++] = disc_line(a->rel, b->vel, ov, (b->radius + o->radius) * ORCA_SKIN, share, inv_dt, inv_dt, tie);
    }
    const int n_hard = n;
    for (int k = 0; k < g.n; k++) {
        const orca_peer *o = &peer[best[k].index];
        double share = shares[n - n_obst] = share_of(o, &d);
        double tie = serial < o->serial ? 1.0 : -1.0;
        lines[n++] = disc_line(best[k].rel, b->vel, o->vel, (b->radius + o->radius) * ORCA_SKIN, share, inv_h,
                               inv_dt, tie);
    }

    st_vec2 v;
    // Blocked by a neighbour: prefer passing on one side, the same side for
    // everyone, as pedestrians keep to one side, wavering a little; the
    // more of the avoiding this agent must do, the more (an even share:
    // ORCA_SIDE_BIAS). Plain ORCA lets symmetric crowds (a circle, a
    // four-way crossing) stall face to face, each waiting for the others,
    // and squeezes them into overlaps there.
    st_vec2 aim = pref;
    bool walled = false; // by an obstacle
    double blocked = 0.0; // the largest share of a neighbour's that blocks
    for (int k = 0; k < n; k++) {
        if (det(lines[k].direction, st_v2_sub(lines[k].point, pref)) <= 0.0) continue;
        if (k < n_obst) walled = true;
        else blocked = fmax(blocked, fmin(1.0, 2.0 * shares[k - n_obst]));
    }
    if (blocked > 0.0) {
        uint64_t key = w->seed ^ (serial * 0x9E3779B97F4A7C15ull) ^ (w->tick * 0xD1B54A32D192ED03ull);
        double u = 2.0 * (double)(st_rng_next(&key) >> 11) * 0x1.0p-53 - 1.0;
        st_vec2 side = st_v2_scale(st_v2(pref.y, -pref.x), ORCA_SIDE_BIAS * blocked);
        aim = st_v2_rotate(st_v2_add(pref, side), u * ORCA_WAVER * blocked);
    }
    int fail = lp2(lines, n, b->max_speed, aim, false, &v);
    if (fail >= n_hard && fail < n) {
        lp3(lines, n, n_hard, fail, b->max_speed, &v);
    } else if (fail < n_hard) {
        // Even this step's half-planes leave nothing: the least violation of
        // them, keeping the obstacles'.
        fail = lp2(lines, n_hard, b->max_speed, aim, false, &v);
        if (fail < n_hard) {
            lp3(lines, n_hard, n_obst, fail, b->max_speed, &v);
            *stuck = true;
        }
    }
    double stall2 = ORCA_STALL * ORCA_STALL * st_v2_len2(pref);
    if ((blocked > 0.0 || walled) && !*stuck && st_v2_len2(v) < stall2 && st_v2_len2(b->vel) < stall2) {
        st_vec2 side;
        if (lp2(lines, n, b->max_speed, st_v2(pref.y, -pref.x), false, &side) >= n) v = side;
    }
    if (!st_v2_finite(v)) v = pref;
    v = st_v2_truncate(v, b->max_speed);

    if (is_traced(w, i)) {
        st_orca_trace *t = &s->trace;
        t->valid = true;
        t->preferred = pref;
        t->chosen = v;
        t->line_count = n;
        t->obstacle_lines = n_obst;
        t->hard_lines = n_hard;
        memcpy(t->lines, lines, (size_t)n * sizeof *lines);
    }
    return v;
}

/// Marks the ORCA agents that could touch stuck agent i within the step.
static void mark_revisits(st_world *w, int i, uint8_t *flag)
{
    const st_body *b = &w->bodies[i];
    st_avoid_def d = effective(&w->avoid_defs[w->agents[i].slot], b);
    // The close list alone (no nearest-k list), over the same range as the
    // agent's own round.
    gather g;
    gather_init(&g, w, i, UINT32_MAX, 0, NULL, b, w->step_dt);
    st__grid_runs(w, &w->grid, b->pos, d.range, gather_run, &g);
    for (int k = 0; k < g.n_close; k++) {
        uint32_t j = g.close[k].index;
        if ((w->bodies[j].avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA && !(flag[j] & AV_STUCK))
            flag[j] |= AV_REVISIT;
    }
}

void st__avoid_peer(st_world *w, int i)
{
    const st_body *b = &w->bodies[i];
    orca_peer *p = &w->avoid->peer[i];
    p->vel = b->vel;
    p->radius = b->radius;
    p->max_speed = b->max_speed;
    p->serial = w->agents[i].serial;
    p->avoid = b->avoid;
    if (b->avoid & ST__AV_DEF) {
        const st_avoid_def *d = &w->avoid_defs[w->agents[i].slot];
        p->layer = d->layer;
        p->mask = d->mask;
        p->priority = d->priority;
    } else {
        p->layer = 1u;
        p->mask = UINT32_MAX;
        p->priority = 1.0;
    }
}

st_vec2 st__avoid_velocity(const st_world *w, const st_vec2 *pref, int i)
{
    const struct st_avoid_state *s = w->avoid;
    return (s->flag[i] & AV_REVISIT) ? pref[i] : s->out[i];
}

void st__avoid_pass(st_world *w, st_vec2 *pref)
{
    struct st_avoid_state *s = w->avoid;
    const int n = w->step_count;
    const bool all_alive = !w->removed_in_step && w->dead == 0;
    const double dt = w->step_dt;
    st_vec2 *out = s->out;
    uint8_t *flag = s->flag;
    // Round one: every ORCA agent from the state at the start of the step.
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int i = 0; i < n; i++) {
        const st_body *b = &w->bodies[i];
        flag[i] = 0;
        out[i] = pref[i];
        if ((b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) != ST__AV_ORCA) continue;
        if (!all_alive && !w->agents[i].alive) continue;
        bool stuck = false;
        out[i] = orca_agent(w, i, pref[i], dt, NULL, NULL, &stuck);
        if (stuck) {
            flag[i] = AV_STUCK;
#ifdef STEER_HAVE_OPENMP
#pragma omp atomic
#endif
            s->stuck++;
        }
    }
    // An agent stuck in a squeeze cannot do its share of avoiding: its
    // neighbours take all of it, against the velocity it chose (round two).
    // (The barrier after round one makes s->stuck the same for every thread.)
    if (s->stuck > 0) {
#ifdef STEER_HAVE_OPENMP
#pragma omp single
#endif
        for (int i = 0; i < n; i++)
            if (flag[i] & AV_STUCK) mark_revisits(w, i, flag);
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
        for (int i = 0; i < n; i++) {
            if (!(flag[i] & AV_REVISIT)) continue;
            bool stuck = false;
            pref[i] = orca_agent(w, i, pref[i], dt, flag, out, &stuck);
        }
    }
    // Now pref[i] for the agents revisited, out[i] for the others
    // (st__avoid_velocity): the move reads them, after the last barrier.
}
