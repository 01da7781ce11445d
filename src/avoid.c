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
#include <float.h>
#include <stdlib.h>
#include <string.h>

// SSE2 (every x86-64) for the scan, the ranking and the half-planes; the
// plain C beside it gives the same bits (-DORCA_SSE2=0 builds it there).
#ifndef ORCA_SSE2
#if defined(__SSE2__) && defined(__x86_64__) && !defined(STEER_PORTABLE)
#define ORCA_SSE2 1
#else
#define ORCA_SSE2 0
#endif
#endif
#if ORCA_SSE2
#include <emmintrin.h>
#endif

#ifdef STEER_HAVE_OPENMP
#include <omp.h>
#endif

// One agent's pass (orca_agent, with all it calls inlined) is built twice,
// for plain x86-64 and for AVX, and the loader picks the one the CPU
// runs. The arithmetic is the same operations either way (no fused
// multiply-add: the build has -ffp-contract=off), so the results are the
// same bits; AVX's three-operand forms only spare the register copies the
// two-operand SSE2 ones need (about an eighth of a step's instructions).
// -DORCA_CLONES=0 builds the plain one alone.
#ifndef ORCA_CLONES
#if ORCA_SSE2 && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define ORCA_CLONES 1
#else
#define ORCA_CLONES 0
#endif
#endif
#if ORCA_CLONES
#define ORCA_PER_CPU __attribute__((target_clones("avx", "default"), flatten))
#else
#define ORCA_PER_CPU
#endif

#include "alloc.h"
#include "avoid_ref.h"
#include "grid_iter.h"
#include "rng.h"

#define ORCA_EPS 1e-9

#if defined(__GNUC__)
#define ST__NOINLINE __attribute__((noinline))
#else
#define ST__NOINLINE
#endif
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
    uint32_t layer;       // st__avoid_layer
    // The layers it yields to (shares the avoiding with): its mask when it
    // runs ORCA unlocked, else none (it leaves all of it to the other).
    uint32_t yields;
    uint8_t pad_[8];
} orca_peer;

_Static_assert(sizeof(orca_peer) == 64, "orca_peer is one cache line");

/// An ORCA agent's own settings as its pass needs them, worked out each
/// step beside its peer record (st__avoid_peer reads its settings anyway):
/// the pass then reads neither its agent record nor its settings, which
/// sit in handle order, far apart once storage follows the grid.
/// (Its layer and priority are in its peer record.)
typedef struct orca_self {
    double range, horizon_obstacles;
    double inv_h, inv_ho; // 1 / horizon, 1 / horizon_obstacles
    uint32_t mask;
    int max_neighbors;
} orca_self;

struct st_avoid_state {
    st_mem mem; // the world's budget
    orca_peer *peer;   // [pref_cap], 64-byte aligned
    orca_self *self;   // [pref_cap]
    st_vec2 *pref;     // preferred velocities; the chosen ones after the pass
    st_vec2 *out;      // the first round's choices
    st_vec2 *ref;      // reference velocities of the long-horizon lines (avoid_ref.c)
    bool use_ref;      // this step's lines use them (every agent plain)
    double ref_radius, ref_speed; // the largest radius and max speed (reference_pass)
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
    st__free(w->avoid_defs);
    if (w->avoid) {
        st__free(w->avoid->pref);
        st__free(w->avoid->peer);
        st__free(w->avoid->self);
        st__free(w->avoid->out);
        st__free(w->avoid->ref);
        st__free(w->avoid->flag);
        st__free(w->avoid->verts);
        st__free(w->avoid->groups);
        st__free(w->avoid);
    }
}

static struct st_avoid_state *state_of(st_world *w)
{
    if (!w->avoid) {
        w->avoid = st__calloc(&w->mem, 1, sizeof *w->avoid);
        if (w->avoid) w->avoid->mem = w->mem;
    }
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
        st_avoid_def *q = st__realloc(&w->mem, w->avoid_defs, (size_t)n * sizeof *q);
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
    if (!st__grow(&s->mem, (void **)&s->verts, &s->vert_cap, s->vert_count + n, sizeof(overt)) ||
        !st__grow(&s->mem, (void **)&s->groups, &s->group_cap, s->group_count + 1, sizeof(ogroup)))
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
    st_vec2 *pts = m <= 64 ? stack : st__alloc(&s->mem, (size_t)m * sizeof *pts);
    if (!pts) return false;
    for (int k = 0; k < n; k++) pts[k] = st_v2_add(o->center, o->points[k]);
    for (int k = n; k < m; k++) pts[k] = pts[2 * n - 2 - k];
    bool ok = add_outline(s, pts, m);
    if (pts != stack) st__free(pts);
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
        st_vec2 *p = st__realloc(&w->mem, s->pref, (size_t)n * sizeof *p);
        if (p) s->pref = p;
        st_vec2 *o = st__realloc(&w->mem, s->out, (size_t)n * sizeof *o);
        if (o) s->out = o;
        st_vec2 *rf = st__realloc(&w->mem, s->ref, (size_t)n * sizeof *rf);
        if (rf) s->ref = rf;
        uint8_t *f = st__realloc(&w->mem, s->flag, (size_t)n);
        if (f) s->flag = f;
        orca_peer *q = st__alloc_aligned(&w->mem, 64, (size_t)n * sizeof *q); // rewritten every pass: nothing to keep
        if (q) {
            st__free(s->peer);
            s->peer = q;
        }
        orca_self *me = st__alloc(&w->mem, (size_t)n * sizeof *me);
        if (me) {
            st__free(s->self);
            s->self = me;
        }
        if (!p || !o || !f || !rf || !q || !me) return NULL;
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
    w->avoid->use_ref = false; // reference_pass sets it
    return buf;
}

/* ------------------------------------------------------------------------ */
/* linear programs                                                          */
/* ------------------------------------------------------------------------ */

typedef st_orca_line line;

static inline double det(st_vec2 a, st_vec2 b) { return a.x * b.y - a.y * b.x; }

/// c ? a : b by bit masks: the compiler keeps `?:` on doubles as a
/// branch, which mispredicts where c comes in no order.
static inline st_vec2 pick2(bool c, st_vec2 a, st_vec2 b)
{
#if ORCA_SSE2
    __m128d m = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)c));
    __m128d r = _mm_or_pd(_mm_and_pd(m, _mm_set_pd(a.y, a.x)), _mm_andnot_pd(m, _mm_set_pd(b.y, b.x)));
    return st_v2(_mm_cvtsd_f64(r), _mm_cvtsd_f64(_mm_unpackhi_pd(r, r)));
#else
    uint64_t m = 0u - (uint64_t)c, ax, ay, bx, by;
    memcpy(&ax, &a.x, 8);
    memcpy(&ay, &a.y, 8);
    memcpy(&bx, &b.x, 8);
    memcpy(&by, &b.y, 8);
    ax = (ax & m) | (bx & ~m);
    ay = (ay & m) | (by & ~m);
    memcpy(&a.x, &ax, 8);
    memcpy(&a.y, &ay, 8);
    return a;
#endif
}

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
        // Which bound the line moves depends on the data, in no order a
        // predictor can learn: both worked out, one kept, no branch.
        double t = num / den;
        bool right = den >= 0.0;
        double tr = t_right < t ? t_right : t, tl = t_left > t ? t_left : t; // fmin, fmax for numbers
        t_right = right ? tr : t_right;
        t_left = right ? t_left : tl;
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
/// `first` (this agent's serial is the lower) picks a side when the two are
/// exactly on top of each other.
///
/// Not overlapping, the velocity obstacle is a truncated cone, and the
/// velocity lies nearest its cut-off circle or one of its legs. Which, and
/// which leg, come in no order a predictor can learn: all three are worked
/// out, one kept by a mask, no branch. The right leg is the left one with
/// -rsum, negated: the same roundings, only signs differ.
static ST__NOINLINE line disc_line_overlap(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share,
                                           double inv_dt, bool first)
{
    // Already overlapping: get apart within this step.
    st_vec2 rv = st_v2_sub(vel, vel_other);
    st_vec2 wv = st_v2_sub(rv, st_v2_scale(rel, inv_dt));
    double wl = st_v2_len(wv);
    st_vec2 uw = wl > ORCA_EPS ? st_v2_scale(wv, 1.0 / wl) : st_v2(first ? 1.0 : -1.0, 0.0);
    line L;
    L.direction = st_v2(uw.y, -uw.x);
    L.point = st_v2_add(vel, st_v2_scale(st_v2_scale(uw, rsum * inv_dt - wl), share));
    return L;
}

#if ORCA_SSE2
/// The vector operations of steer.h on both lanes at once, each lane
/// rounded as the scalar code rounds it; sums of two lanes add x then y.
typedef __m128d v2d;
static inline v2d v2d_of(st_vec2 a) { return _mm_loadu_pd(&a.x); }
static inline st_vec2 st_of(v2d a)
{
    st_vec2 r;
    _mm_storeu_pd(&r.x, a);
    return r;
}
static inline v2d v2d_dot(v2d a, v2d b)
{
    v2d p = _mm_mul_pd(a, b);
    return _mm_add_sd(p, _mm_unpackhi_pd(p, p));
}
static inline v2d v2d_det(v2d a, v2d b)
{
    v2d p = _mm_mul_pd(a, _mm_shuffle_pd(b, b, 1));
    return _mm_sub_sd(p, _mm_unpackhi_pd(p, p));
}
static inline double lane0(v2d a) { return _mm_cvtsd_f64(a); }
static inline v2d v2d_pick(bool c, v2d a, v2d b)
{
    v2d m = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)c));
    return _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b));
}

ST__INLINE line disc_line(st_vec2 rel_, st_vec2 vel_, st_vec2 vel_other, double rsum, double share, double inv_h,
                          double inv_dt, bool first)
{
    const v2d rel = v2d_of(rel_), vel = v2d_of(vel_), rv = _mm_sub_pd(vel, v2d_of(vel_other));
    double d2 = lane0(v2d_dot(rel, rel)), r2 = rsum * rsum;
    if (!(d2 > r2)) return disc_line_overlap(rel_, vel_, vel_other, rsum, share, inv_dt, first);
    v2d wv = _mm_sub_pd(rv, _mm_mul_pd(rel, _mm_set1_pd(inv_h)));
    double wl2 = lane0(v2d_dot(wv, wv)), dot1 = lane0(v2d_dot(wv, rel));
    bool cut = (dot1 < 0.0) & (dot1 * dot1 > r2 * wl2);
    // One square root and one division, of the case it takes: sqrt(wl2)
    // and 1 / wl for the cut-off, sqrt(d2 - r2) and 1 / d2 for a leg.
    double root = sqrt(cut ? wl2 : d2 - r2), recip = 1.0 / (cut ? root : d2);
    v2d uw = _mm_mul_pd(wv, _mm_set1_pd(recip));
    v2d cut_dir = _mm_xor_pd(_mm_shuffle_pd(uw, uw, 1), _mm_set_pd(-0.0, 0.0)); // (uw.y, -uw.x)
    v2d cut_u = _mm_mul_pd(uw, _mm_set1_pd(rsum * inv_h - root));
    bool left = lane0(v2d_det(rel, wv)) > 0.0;
    double sign = 2 * (int)left - 1, rs = rsum * sign, inv = recip * sign;
    // (rel.x leg - rel.y rs, rel.x rs + rel.y leg) / d2: the x lane adds the
    // negated product, which is what subtracting it does.
    v2d a = _mm_mul_pd(_mm_unpacklo_pd(rel, rel), _mm_set_pd(rs, root));
    v2d b = _mm_mul_pd(_mm_unpackhi_pd(rel, rel), _mm_set_pd(root, rs));
    v2d leg_dir = _mm_mul_pd(_mm_add_pd(a, _mm_xor_pd(b, _mm_set_pd(0.0, -0.0))), _mm_set1_pd(inv));
    v2d dot2 = v2d_dot(rv, leg_dir);
    v2d leg_u = _mm_sub_pd(_mm_mul_pd(leg_dir, _mm_unpacklo_pd(dot2, dot2)), rv);
    line L;
    L.direction = st_of(v2d_pick(cut, cut_dir, leg_dir));
    L.point = st_of(_mm_add_pd(vel, _mm_mul_pd(v2d_pick(cut, cut_u, leg_u), _mm_set1_pd(share))));
    return L;
}
#else
ST__INLINE line disc_line(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share, double inv_h,
                          double inv_dt, bool first)
{
    st_vec2 rv = st_v2_sub(vel, vel_other);
    double d2 = st_v2_len2(rel), r2 = rsum * rsum;
    if (!(d2 > r2)) return disc_line_overlap(rel, vel, vel_other, rsum, share, inv_dt, first);
    st_vec2 wv = st_v2_sub(rv, st_v2_scale(rel, inv_h));
    double wl2 = st_v2_len2(wv);
    double dot1 = st_v2_dot(wv, rel);
    bool cut = (dot1 < 0.0) & (dot1 * dot1 > r2 * wl2);
    // One square root and one division, of the case it takes: sqrt(wl2)
    // and 1 / wl for the cut-off, sqrt(d2 - r2) and 1 / d2 for a leg.
    double root = sqrt(cut ? wl2 : d2 - r2), recip = 1.0 / (cut ? root : d2);
    st_vec2 uw = st_v2_scale(wv, recip);
    st_vec2 cut_dir = st_v2(uw.y, -uw.x);
    st_vec2 cut_u = st_v2_scale(uw, rsum * inv_h - root);
    bool left = det(rel, wv) > 0.0;
    double sign = 2 * (int)left - 1, rs = rsum * sign, inv = recip * sign;
    st_vec2 leg_dir = st_v2_scale(st_v2(rel.x * root - rel.y * rs, rel.x * rs + rel.y * root), inv);
    st_vec2 leg_u = st_v2_sub(st_v2_scale(leg_dir, st_v2_dot(rv, leg_dir)), rv);
    line L;
    L.direction = pick2(cut, cut_dir, leg_dir);
    L.point = st_v2_add(vel, st_v2_scale(pick2(cut, cut_u, leg_u), share));
    return L;
}
#endif

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

/// The touching cases of edge_line: 1 with *out set, 0 for no line, -1
/// when the agent is clear of the edge (the cone cases follow).
static int edge_touching(const overt *o1, const overt *o2, st_vec2 rel1, st_vec2 rel2, double d1, double d2,
                         double s, double dline, double r2, line *out)
{
    const st_vec2 zero = {0.0, 0.0};
    // Touching: keep out along the shortest way.
    if (s < 0.0 && d1 <= r2) {
        if (!o1->convex) return 0;
        out->point = zero;
        out->direction = st_v2_normalize(st_v2(-rel1.y, rel1.x));
        return 1;
    }
    if (s > 1.0 && d2 <= r2) {
        // The next edge deals with a concave vertex, or with this one from its side.
        if (!o2->convex || det(rel2, o2->dir) < 0.0) return 0;
        out->point = zero;
        out->direction = st_v2_normalize(st_v2(-rel2.y, rel2.x));
        return 1;
    }
    if (s >= 0.0 && s < 1.0 && dline <= r2) {
        out->point = zero;
        out->direction = st_v2_neg(o1->dir);
        return 1;
    }
    return -1;
}

/// The velocity obstacle of an edge the agent is clear of: a cone between
/// two legs, cut off at the horizon.
typedef struct edge_cone {
    const overt *o1, *o2;
    st_vec2 rel1, rel2, left, right;
    bool one_vertex, left_foreign, right_foreign;
} edge_cone;

/// The legs of the cone (false: the edge adds no line).
static bool edge_legs(const overt *verts, edge_cone *c, double d1, double d2, double s, double dline,
                      double r2, double radius)
{
    c->one_vertex = false;
    if (s < 0.0 && dline <= r2) {
        // Seen end-on: the near vertex alone makes the cone.
        if (!c->o1->convex) return false;
        c->o2 = c->o1;
        c->one_vertex = true;
        double leg = sqrt(d1 - r2);
        c->left = leg_left(c->rel1, d1, leg, radius);
        c->right = leg_right(c->rel1, d1, leg, radius);
    } else if (s > 1.0 && dline <= r2) {
        if (!c->o2->convex) return false;
        c->o1 = c->o2;
        c->rel1 = c->rel2;
        c->one_vertex = true;
        double leg = sqrt(d2 - r2);
        c->left = leg_left(c->rel2, d2, leg, radius);
        c->right = leg_right(c->rel2, d2, leg, radius);
    } else {
        c->left = c->o1->convex ? leg_left(c->rel1, d1, sqrt(d1 - r2), radius) : st_v2_neg(c->o1->dir);
        c->right = c->o2->convex ? leg_right(c->rel2, d2, sqrt(d2 - r2), radius) : c->o1->dir;
    }
    if (c->one_vertex) c->rel2 = c->rel1;

    // A leg that points into the neighbouring edge is replaced by that
    // edge's cut-off, and a velocity projected onto it adds no constraint.
    const overt *left_nb = &verts[c->o1->prev];
    c->left_foreign = c->right_foreign = false;
    if (c->o1->convex && det(c->left, st_v2_neg(left_nb->dir)) >= 0.0) {
        c->left = st_v2_neg(left_nb->dir);
        c->left_foreign = true;
    }
    if (c->o2->convex && det(c->right, c->o2->dir) <= 0.0) {
        c->right = c->o2->dir;
        c->right_foreign = true;
    }
    return true;
}

/// The line from the nearest point of the cut-off cone to the velocity
/// (false: the nearest point lies on a leg another edge owns).
static bool edge_project(const edge_cone *c, st_vec2 vel, double radius, double inv_h, line *out)
{
    st_vec2 lc = st_v2_scale(c->rel1, inv_h), rc = st_v2_scale(c->rel2, inv_h);
    st_vec2 cv = st_v2_sub(rc, lc);
    st_vec2 left = c->left, right = c->right;
    double t = c->one_vertex ? 0.5 : st_v2_dot(st_v2_sub(vel, lc), cv) / st_v2_len2(cv);
    double tl = st_v2_dot(st_v2_sub(vel, lc), left), tr = st_v2_dot(st_v2_sub(vel, rc), right);

    if ((t < 0.0 && tl < 0.0) || (c->one_vertex && tl < 0.0 && tr < 0.0)) {
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
    double dcut = (t < 0.0 || t > 1.0 || c->one_vertex) ? INFINITY
                                                        : st_v2_len2(st_v2_sub(vel, st_v2_add(lc, st_v2_scale(cv, t))));
    double dleft = tl < 0.0 ? INFINITY : st_v2_len2(st_v2_sub(vel, st_v2_add(lc, st_v2_scale(left, tl))));
    double dright = tr < 0.0 ? INFINITY : st_v2_len2(st_v2_sub(vel, st_v2_add(rc, st_v2_scale(right, tr))));
    if (dcut <= dleft && dcut <= dright) {
        out->direction = st_v2_neg(c->o1->dir);
        out->point = st_v2_add(lc, st_v2_scale(st_v2(-out->direction.y, out->direction.x), radius * inv_h));
        return true;
    }
    if (dleft <= dright) {
        if (c->left_foreign) return false;
        out->direction = left;
        out->point = st_v2_add(lc, st_v2_scale(st_v2(-left.y, left.x), radius * inv_h));
        return true;
    }
    if (c->right_foreign) return false;
    out->direction = st_v2_neg(right);
    out->point = st_v2_add(rc, st_v2_scale(st_v2(-out->direction.y, out->direction.x), radius * inv_h));
    return true;
}

/// The half-plane for the obstacle edge from vertex a (rel1 from the agent)
/// to its next (rel2); false when the edge adds none.
static bool edge_line(const overt *verts, int ia, st_vec2 rel1, st_vec2 rel2, st_vec2 vel, double radius,
                      double inv_h, line *out)
{
    edge_cone c = {.o1 = &verts[ia], .rel1 = rel1, .rel2 = rel2};
    c.o2 = &verts[c.o1->next];
    double r2 = radius * radius;
    double d1 = st_v2_len2(rel1), d2 = st_v2_len2(rel2);
    st_vec2 ov = st_v2_sub(c.o2->p, c.o1->p);
    double s = st_v2_dot(st_v2_neg(rel1), ov) / st_v2_len2(ov);
    double dline = st_v2_len2(st_v2_sub(st_v2_neg(rel1), st_v2_scale(ov, s)));

    int touching = edge_touching(c.o1, c.o2, rel1, rel2, d1, d2, s, dline, r2, out);
    if (touching >= 0) return touching == 1;
    return edge_legs(verts, &c, d1, d2, s, dline, r2, radius) && edge_project(&c, vel, radius, inv_h, out);
}

/* ------------------------------------------------------------------------ */
/* one agent's neighbours                                                   */
/* ------------------------------------------------------------------------ */

#define ORCA_MAX_CLOSE 16
/// How far a crowded agent's aim turns to its side when blocked: this
/// times its preferred velocity, at right angles (about 27 degrees).
#define ORCA_SIDE_BIAS 0.5
/// How far (radians, either way) a blocked agent wavers from its aim, differently
/// for every agent and step (a hash of world seed, serial and tick): agents
/// placed in perfect symmetry otherwise make the same choice forever.
#define ORCA_WAVER 0.2
/// In the open (not crowded, see ORCA_CROWDED) it wavers more, and the
/// more the slower it goes than it wants: this plus ORCA_WAVER_SLOW times
/// the share of its preferred speed it lacks. A walker held up in an open
/// crowd tries other ways round sooner (issue 26's goal crowd: 3.80 goals
/// per agent per 1,000 steps with ORCA_WAVER everywhere, 3.90 with this;
/// 30 square units an agent: 2.33, 2.53). A crowded squeeze (a circle, a
/// crossing) keeps ORCA_WAVER.
#define ORCA_WAVER_OPEN 0.4
#define ORCA_WAVER_SLOW 1.0
/// An agent counts as crowded (and keeps to ORCA_SIDE_BIAS's side) with at
/// least this many neighbours close enough to touch it within the step, or
/// with an obstacle's half-plane in reach. In an open crowd an agent
/// passing one other at a time walks straight for its goal instead: turning
/// every blocked walker cost issue 26's random-goal crowd nearly a fifth of
/// its goals (3.22 goals per agent per 1,000 steps against 3.94; 3.80 with
/// ORCA_HARD_SKIN).
#define ORCA_CROWDED 2
/// Bodies as ORCA plans them: 2% larger than they are, so what a squeeze
/// forces through comes out of this margin before the bodies touch.
#define ORCA_SKIN 1.02
/// And 5% larger in the hard one-step half-planes of the neighbours close
/// enough to touch within the step: a crowd that flows faster presses
/// harder (issue 26's goal crowd at 30 square units an agent came within
/// 0.967 of the radii with 2% there, 1.009 with 5%).
#define ORCA_HARD_SKIN 1.05
/// A blocked agent going slower than this share of its preferred speed
/// (and chosen to stay so) sidesteps instead: a ring of agents pressing
/// on one point turns instead of waiting for ever.
#define ORCA_STALL 0.1
/// A blocked agent in the open (not crowded: see ORCA_CROWDED) does not
/// take the velocity closest to its aim, which slows it to the projection
/// of its aim on the line that blocks it, but goes this share of the way
/// from there to the velocity, no faster than it wants to go, that gets it
/// farthest along its aim (both satisfy every line, and so does any point
/// between). Issue 26's goal crowd: 4.02 goals per agent per 1,000 steps
/// with 0, 4.12 with 0.5, 3.88 with 1 (all the way: it sweeps round at
/// full speed and meets the next neighbour head on).
#define ORCA_ONWARD 0.5
/// With one neighbour close enough to touch it within the step, less: at
/// 30 square units an agent 0.5 there brought one pair-step to 0.989 of
/// the radii; 0.4 none on five seeds, the goal crowd 4.07-4.10 on four.
#define ORCA_ONWARD_CLOSE 0.4
/// Grid items within range an agent holds at once (itself included); when
/// a disc holds more, the farthest that can make neither list are dropped
/// (gather_compact) once fewer than ORCA_CAND_ROOM places are left.
#define ORCA_CAND_MAX 192
#define ORCA_CAND_ROOM 48

/// The grid items within range of one agent, in scan order. Sorting them as
/// they come costs a mispredicted branch or more a candidate; here the scan
/// only appends (no branch on the distance), one pass classifies them, and
/// they are ranked nearest first without a branch on the data (near_order).
typedef struct gather {
    const st_world *w;
    const orca_peer *peer;
    const st_grid_item *items;
    uint32_t self, mask;
    // The nearest `cap` make the neighbour lines; 0: only the close list
    // matters (mark_revisits).
    int cap;
    // Everyone who could touch this agent within the step, whether or not
    // among the nearest `cap`: the same pairs seen from both sides.
    double radius, reach_speed, dt;
    int n;
    _Alignas(16) st_vec2 rel[ORCA_CAND_MAX];
    double d2[ORCA_CAND_MAX];
    int32_t item[ORCA_CAND_MAX];     // grid item
    uint32_t index[ORCA_CAND_MAX];   // dense index (near_classify)
    uint8_t close[ORCA_CAND_MAX];    // could touch within the step (near_classify)
    uint8_t valid[ORCA_CAND_MAX];    // someone to avoid (near_classify)
    _Alignas(16) int32_t key[ORCA_CAND_MAX + 16]; // near_classify; 16 past the last for near_ranks
} gather;

/// What the gathering found: the positions of the neighbours in range,
/// nearest first (ties by serial; the first n_best of them make the
/// neighbour lines), and of the nearest ORCA_MAX_CLOSE that could touch
/// within the step.
typedef struct near_set {
    int n_valid, n_best, n_close;
    uint8_t ord[ORCA_CAND_MAX];
    uint8_t close[ORCA_CAND_MAX]; // the first n_close of them
} near_set;

static inline void gather_init(gather *g, const st_world *w, int self, uint32_t mask, int cap, const st_body *b,
                               double dt)
{
    g->w = w;
    g->peer = w->avoid->peer;
    g->items = w->grid.items;
    g->self = (uint32_t)self;
    g->mask = mask;
    g->cap = cap;
    g->radius = b->radius;
    g->reach_speed = b->max_speed;
    g->dt = dt;
    g->n = 0;
}

/// Candidate q: its dense index, whether it is someone to avoid (not
/// itself, alive, on a layer the mask takes) and whether it is close. No
/// branch on any of it.
static inline bool near_classify(gather *g, int q)
{
    uint32_t j = g->items[g->item[q]].index;
    const orca_peer *o = &g->peer[j];
    bool valid = (j != g->self) & ((g->mask & o->layer) != 0);
    if (g->w->removed_in_step) valid = valid && g->w->agents[j].alive;
    double touch = g->radius + o->radius + (g->reach_speed + o->max_speed) * g->dt;
    g->index[q] = j;
    g->close[q] = g->d2[q] < touch * touch;
    g->valid[q] = valid;
    return valid;
}

/// Candidate q's sort key: its d2 as a float (rounding keeps the order,
/// ties aside) with q in the low 8 bits, so keys are distinct integers;
/// one not to avoid sorts after everyone.
static inline int32_t near_key(const gather *g, int q)
{
    // As an integer a float's bits keep its order; infinity and NaN stay
    // below the marks of the invalid (0x7FFFFFqq), as no number is.
    float f = (float)g->d2[q];
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (int32_t)((bits & ~0xFFu) | ((0u - (uint32_t)!g->valid[q]) & 0x7FFFFF00u) | (uint32_t)q);
}

/// rank[q] = how many of the keys [0, n) lie below key[q]. Up to 16 keys
/// sit in four registers and each key in turn is compared with all of them
/// at once; more take a pass over the keys each.
static void near_ranks(int32_t *key, int n, int32_t *rank)
{
#if ORCA_SSE2
    const __m128i pad = _mm_set1_epi32(INT32_MAX);
    if (n <= 16) {
        for (int v = 0; v < 4; v++) _mm_storeu_si128((__m128i *)(key + n + 4 * v), pad);
        __m128i k0 = _mm_load_si128((const __m128i *)key), k1 = _mm_load_si128((const __m128i *)(key + 4));
        __m128i k2 = _mm_load_si128((const __m128i *)(key + 8)), k3 = _mm_load_si128((const __m128i *)(key + 12));
        __m128i r0 = _mm_setzero_si128(), r1 = r0, r2 = r0, r3 = r0;
        for (int p = 0; p < n; p++) {
            __m128i b = _mm_set1_epi32(key[p]);
            r0 = _mm_sub_epi32(r0, _mm_cmpgt_epi32(k0, b));
            r1 = _mm_sub_epi32(r1, _mm_cmpgt_epi32(k1, b));
            r2 = _mm_sub_epi32(r2, _mm_cmpgt_epi32(k2, b));
            r3 = _mm_sub_epi32(r3, _mm_cmpgt_epi32(k3, b));
        }
        _mm_storeu_si128((__m128i *)rank, r0);
        _mm_storeu_si128((__m128i *)(rank + 4), r1);
        _mm_storeu_si128((__m128i *)(rank + 8), r2);
        _mm_storeu_si128((__m128i *)(rank + 12), r3);
        return;
    }
    for (int v = 0; v < 4; v++) _mm_storeu_si128((__m128i *)(key + n + 4 * v), pad);
    int padded = (n + 3) & ~3;
    for (int q = 0; q < n; q++) {
        __m128i x = _mm_set1_epi32(key[q]), acc = _mm_setzero_si128();
        for (int p = 0; p < padded; p += 4)
            acc = _mm_sub_epi32(acc, _mm_cmpgt_epi32(x, _mm_load_si128((const __m128i *)(key + p))));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0x4E));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0xB1));
        rank[q] = _mm_cvtsi128_si32(acc);
    }
#else
    for (int q = 0; q < n; q++) {
        int r = 0;
        for (int p = 0; p < n; p++) r += key[p] < key[q];
        rank[q] = r;
    }
#endif
}

static inline bool near_less(const gather *g, int a, int b)
{
    return g->d2[a] < g->d2[b] ||
           (g->d2[a] == g->d2[b] && g->peer[g->index[a]].serial < g->peer[g->index[b]].serial);
}

/// Puts ord[0, n) (sorted by float key) in exact order: only those whose
/// float keys agree move (rare outside symmetric scenes).
static ST__NOINLINE void near_exact(const gather *g, uint8_t *ord, int n)
{
    for (int k = 1; k < n; k++) {
        uint8_t a = ord[k];
        if ((g->key[a] >> 8) != (g->key[ord[k - 1]] >> 8)) continue;
        int pos = k;
        while (pos > 0 && near_less(g, a, ord[pos - 1])) {
            ord[pos] = ord[pos - 1];
            pos--;
        }
        ord[pos] = a;
    }
}

/// At most this many neighbours are sorted by plain insertion (near_few):
/// few comparisons, and no fix-up for the ties of the float keys, which
/// symmetric scenes (a circle) have at every agent. Its branches
/// mispredict in a random crowd, but at this size there are few of them.
#define ORCA_FEW 6

/// The few valid candidates in exact order (d2, then serial); then the
/// close ones.
static ST__NOINLINE void near_few(const gather *g, near_set *s)
{
    int m = 0;
    for (int q = 0; q < g->n; q++) {
        if (!g->valid[q]) continue;
        int pos = m++;
        while (pos > 0 && near_less(g, q, s->ord[pos - 1])) {
            s->ord[pos] = s->ord[pos - 1];
            pos--;
        }
        s->ord[pos] = (uint8_t)q;
    }
    int nc = 0;
    for (int k = 0; k < m; k++) {
        s->close[nc] = s->ord[k];
        nc += g->close[s->ord[k]];
    }
    s->n_close = nc < ORCA_MAX_CLOSE ? nc : ORCA_MAX_CLOSE;
}

/// Whether two of the first `valid` sorted float keys (>> 8) agree;
/// sorted[valid, valid + 4) are overwritten.
static inline bool near_tied(int32_t *sorted, int valid)
{
    for (int t = 0; t < 4; t++) sorted[valid + t] = -1; // equal to no key >> 8
#if ORCA_SSE2
    __m128i any = _mm_setzero_si128();
    const __m128i lane = _mm_set_epi32(3, 2, 1, 0), end = _mm_set1_epi32(valid);
    for (int k = 0; k < valid; k += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(sorted + k));
        __m128i b = _mm_loadu_si128((const __m128i *)(sorted + k + 1));
        __m128i in = _mm_cmplt_epi32(_mm_add_epi32(_mm_set1_epi32(k), lane), end);
        any = _mm_or_si128(any, _mm_and_si128(_mm_cmpeq_epi32(a, b), in));
    }
    return _mm_movemask_epi8(any) != 0;
#else
    bool tie = false;
    for (int k = 0; k < valid; k++) tie |= sorted[k] == sorted[k + 1];
    return tie;
#endif
}

/// The candidates in the order their lines are made, which decides every
/// rounding after it: nearest first, ties by serial. Each goes to its
/// rank among the keys (a permutation: they are distinct), then those
/// whose float keys agree are put in exact order. Of them, the nearest cap
/// and the nearest ORCA_MAX_CLOSE close enough to touch within the step.
static void near_select(gather *g, near_set *s)
{
    const int n = g->n;
    int valid = 0;
    // The keys with the classes (a few wasted when near_few takes them).
    for (int q = 0; q < n; q++) {
        valid += near_classify(g, q);
        g->key[q] = near_key(g, q);
    }
    s->n_valid = valid;
    s->n_best = valid < g->cap ? valid : g->cap;
    if (valid <= ORCA_FEW) {
        near_few(g, s);
        return;
    }
    int32_t rank[ORCA_CAND_MAX + 16];
    int32_t sorted[ORCA_CAND_MAX + 4];
    uint8_t closes[ORCA_CAND_MAX + 1];
    near_ranks(g->key, n, rank);
    for (int q = 0; q < n; q++) {
        s->ord[rank[q]] = (uint8_t)q;
        sorted[rank[q]] = g->key[q] >> 8;
        closes[rank[q]] = g->close[q];
    }
    // The close ones in order, no branch (the nearest ORCA_MAX_CLOSE of
    // them count).
    int nc = 0;
    for (int k = 0; k < valid; k++) {
        s->close[nc] = s->ord[k];
        nc += closes[k];
    }
    if (near_tied(sorted, valid)) {
        near_exact(g, s->ord, valid);
        nc = 0;
        for (int k = 0; k < valid; k++) {
            s->close[nc] = s->ord[k];
            nc += g->close[s->ord[k]];
        }
    }
    s->n_close = nc < ORCA_MAX_CLOSE ? nc : ORCA_MAX_CLOSE;
}

/// The buffer is nearly full: keeps only what can still make either list
/// (the nearest cap, the nearest close ones), at most cap + ORCA_MAX_CLOSE.
static ST__NOINLINE void gather_compact(gather *g)
{
    near_set s;
    near_select(g, &s);
    bool keep[ORCA_CAND_MAX] = {false};
    for (int k = 0; k < s.n_best; k++) keep[s.ord[k]] = true;
    for (int k = 0; k < s.n_close; k++) keep[s.close[k]] = true;
    int m = 0;
    for (int q = 0; q < g->n; q++) {
        if (!keep[q]) continue;
        g->d2[m] = g->d2[q];
        g->item[m] = g->item[q];
        g->rel[m] = g->rel[q];
        m++;
    }
    g->n = m;
}

/// Items [k0, k1) of a run: each one's offset and d2 go to the end of the
/// candidates, which grow by one when it is within range (NaN too, as the
/// test `!(d2 > r2)` has it). About two thirds of a run fail, in no order
/// a predictor can learn: no branch on it. Two lanes at once where SSE2 is
/// there, with the scalar code's roundings (the same operations in each).
ST__INLINE int scan_items(gather *g, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                          double r2, bool fold, int n)
{
    const st_world *w = g->w;
#if ORCA_SSE2
    if (!fold) {
        const __m128d shift = _mm_set_pd(sy, sx), centre = _mm_set_pd(c.y, c.x), lim = _mm_set_sd(r2);
        for (int k = k0; k < k1; k++) {
            __m128d off = _mm_sub_pd(_mm_add_pd(_mm_loadu_pd(&items[k].pos.x), shift), centre);
            __m128d sq = _mm_mul_pd(off, off);
            __m128d d2 = _mm_add_sd(sq, _mm_unpackhi_pd(sq, sq));
            _mm_store_pd(&g->rel[n].x, off);
            _mm_store_sd(&g->d2[n], d2);
            g->item[n] = k;
            n += !_mm_comigt_sd(d2, lim);
        }
        return n;
    }
#endif
    for (int k = k0; k < k1; k++) {
        st_vec2 off = st__run_offset(w, &items[k], sx, sy, c, fold);
        double d2 = off.x * off.x + off.y * off.y;
        g->rel[n] = off;
        g->d2[n] = d2;
        g->item[n] = k;
        n += !(d2 > r2);
    }
    return n;
}

ST__INLINE void gather_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                           double r2, bool fold)
{
    gather *g = ctx;
    while (k0 < k1) {
        if (ORCA_CAND_MAX - g->n < ORCA_CAND_ROOM) gather_compact(g);
        int room = ORCA_CAND_MAX - g->n;
        int k = k1 - k0 > room ? k0 + room : k1;
        g->n = scan_items(g, items, k0, k, sx, sy, c, r2, fold, g->n);
        k0 = k;
    }
}

/// Agent i's neighbours within range on the layers `mask` takes.
static void gather_agents(gather *g, const st_world *w, int i, uint32_t mask, int cap, double range, double dt,
                          near_set *s)
{
    const st_body *b = &w->bodies[i];
    gather_init(g, w, i, mask, cap, b, dt);
    st__grid_runs(w, &w->grid, b->pos, range, gather_run, g);
    near_select(g, s);
}

/* ------------------------------------------------------------------------ */
/* one agent                                                                */
/* ------------------------------------------------------------------------ */

typedef struct near_edge {
    double d2;
    int vert;
    st_vec2 rel1;
} near_edge;

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
static inline double share_of(const orca_peer *pj_, const orca_peer *pi_)
{
    if (!(pj_->yields & pi_->layer)) return 1.0;
    double pi = pi_->priority, pj = pj_->priority;
    if (pi + pj <= 0.0) return 0.5;
    // Equal priorities (most crowds) share evenly: pj / (pj + pj) is 0.5
    // exactly unless the sum overflows, so no division (the divider is
    // the slow unit, and every half-plane needs it for its own roots).
    if (pi == pj && pj <= DBL_MAX / 2) return 0.5;
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

/// What one agent's pass works with: its body, settings and preferred
/// velocity, and the lines made so far ([0, n_obst) obstacles', [n_obst,
/// n_hard) the close agents' for one step, then the neighbours').
/// `blocked`: the largest share of the avoiding among the neighbour lines
/// that keep pref out (note_block). `skin`: the factor on the sums of the
/// radii of the lines being made (ORCA_HARD_SKIN, then ORCA_SKIN). `own`
/// and `refs`: the velocities the lines being made are built around, its
/// own and its neighbours' (NULL: their peer records' velocities).
typedef struct orca_ctx {
    const st_world *w;
    // Every agent of the step is a plain one (st__avoid_peer): any two
    // share the avoiding evenly, and no pair needs share_of.
    bool plain;
    const st_body *b;
    const orca_self *me;
    const orca_peer *peer; // its own
    uint64_t serial;
    st_vec2 pref;
    double dt, inv_h, inv_ho, inv_dt;
    double blocked, skin;
    const st_vec2 *own;
    const st_vec2 *refs;
    int n, n_obst, n_hard;
    line lines[ORCA_MAX_LINES];
} orca_ctx;

/// A neighbour's line that keeps pref out blocks the agent by its share
/// of the avoiding (doubled, at most 1: an even share blocks fully). Which
/// lines do is in no order: no branch on it.
ST__INLINE void note_block(orca_ctx *x, const line *L, double share)
{
    double v = det(L->direction, st_v2_sub(L->point, x->pref)) > 0.0;
    double m = 2.0 * share;
    m = v * (1.0 < m ? 1.0 : m); // fmin(1, m) for numbers
    x->blocked = x->blocked > m ? x->blocked : m;
}

/// Obstacle edges, nearest first, each unless an earlier line covers it;
/// then circle obstacles: discs that never yield, moving as they last moved.
static void obstacle_lines(orca_ctx *x)
{
    const st_world *w = x->w;
    const st_body *b = x->b;
    const struct st_avoid_state *s = w->avoid;
    double reach = x->me->horizon_obstacles * b->max_speed + b->radius;
    if (s->vert_count > 0) {
        near_edge edges[ORCA_MAX_OBSTACLE_LINES];
        int ne = gather_edges(w, s, b->pos, reach, edges);
        for (int k = 0; k < ne; k++) {
            const overt *a = &s->verts[edges[k].vert];
            st_vec2 r1 = edges[k].rel1, r2 = st_v2_add(r1, st_v2_sub(s->verts[a->next].p, a->p));
            if (covered(x->lines, x->n, r1, r2, x->inv_ho, b->radius)) continue;
            if (edge_line(s->verts, edges[k].vert, r1, r2, b->vel, b->radius, x->inv_ho, &x->lines[x->n])) x->n++;
        }
    }
    for (int k = 0; k < w->obstacle_count && x->n < ORCA_MAX_OBSTACLE_LINES; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) continue;
        st_vec2 rel = st_world_offset(w, b->pos, o->center);
        double r = reach + o->radius;
        if (st_v2_len2(rel) > r * r) continue;
        st_vec2 ov = st_v2_scale(st_v2_sub(o->center, o->prev_center), x->inv_dt);
        if (!st_v2_finite(ov)) ov = st_v2(0.0, 0.0);
        x->lines[x->n++] = disc_line(rel, b->vel, ov, b->radius + o->radius, 1.0, x->inv_ho, x->inv_dt, true);
    }
    x->n_obst = x->n;
}

/// Candidate q's neighbour: the velocity it is avoided at (a close one
/// stuck in the first round, `flag` non-NULL: the one it chose there,
/// `out`, and then wholly: *share 1), and its share of the avoiding.
static inline const st_vec2 *near_vel(const orca_ctx *x, const gather *g, int q, const uint8_t *flag,
                                      const st_vec2 *out, double *share)
{
    uint32_t j = g->index[q];
    const orca_peer *o = &g->peer[j];
    *share = x->plain ? 0.5 : share_of(o, x->peer);
    if (flag && (flag[j] & AV_STUCK)) {
        *share = 1.0;
        return &out[j];
    }
    return x->refs ? &x->refs[j] : &o->vel;
}

static inline double near_rsum(const orca_ctx *x, const gather *g, int q)
{
    return (x->b->radius + g->peer[g->index[q]].radius) * x->skin;
}

/// The line for candidate q alone, by the scalar code.
static inline line near_line(const orca_ctx *x, const gather *g, int q, double inv_h, const uint8_t *flag,
                             const st_vec2 *out, double *share)
{
    const st_vec2 *vo = near_vel(x, g, q, flag, out, share);
    return disc_line(g->rel[q], *x->own, *vo, near_rsum(x, g, q), *share, inv_h, x->inv_dt,
                     x->serial < g->peer[g->index[q]].serial);
}

#if ORCA_SSE2
static inline v2d v2d_blend(v2d mask, v2d a, v2d b) { return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b)); }

/// disc_line and note_block for candidates qa and qb at once, one in each
/// lane (x and y apart): each lane does exactly the scalar arithmetic, so
/// the lines are the same bits, and its long chain of square roots and
/// divisions serves two lines. `two`: qb is another candidate, not qa
/// again. A lane that overlaps is made again by the scalar code. (Inputs
/// go from memory or registers straight into lanes: a vector loaded from
/// two halves just stored on the stack waits for them.)
static void disc_lines2(orca_ctx *x, const gather *g, int qa, int qb, double inv_h, const uint8_t *flag,
                        const st_vec2 *out, bool two, v2d *blocked)
{
    double sa, sb;
    const st_vec2 *va = near_vel(x, g, qa, flag, out, &sa), *vb = near_vel(x, g, qb, flag, out, &sb);
    const v2d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd(), ih = _mm_set1_pd(inv_h);
    const v2d vel = _mm_loadu_pd(&x->own->x), vx = _mm_unpacklo_pd(vel, vel), vy = _mm_unpackhi_pd(vel, vel);
    const v2d ra = _mm_loadu_pd(&g->rel[qa].x), rb = _mm_loadu_pd(&g->rel[qb].x);
    const v2d oa = _mm_loadu_pd(&va->x), ob = _mm_loadu_pd(&vb->x);
    const v2d relx = _mm_unpacklo_pd(ra, rb), rely = _mm_unpackhi_pd(ra, rb);
    const v2d rvx = _mm_sub_pd(vx, _mm_unpacklo_pd(oa, ob)), rvy = _mm_sub_pd(vy, _mm_unpackhi_pd(oa, ob));
    const v2d rsum = _mm_set_pd(near_rsum(x, g, qb), near_rsum(x, g, qa));
    v2d d2 = _mm_add_pd(_mm_mul_pd(relx, relx), _mm_mul_pd(rely, rely)), r2 = _mm_mul_pd(rsum, rsum);
    int over = _mm_movemask_pd(_mm_cmpngt_pd(d2, r2));
    v2d wvx = _mm_sub_pd(rvx, _mm_mul_pd(relx, ih)), wvy = _mm_sub_pd(rvy, _mm_mul_pd(rely, ih));
    v2d wl2 = _mm_add_pd(_mm_mul_pd(wvx, wvx), _mm_mul_pd(wvy, wvy));
    v2d dot1 = _mm_add_pd(_mm_mul_pd(wvx, relx), _mm_mul_pd(wvy, rely));
    v2d cut = _mm_and_pd(_mm_cmplt_pd(dot1, zero), _mm_cmpgt_pd(_mm_mul_pd(dot1, dot1), _mm_mul_pd(r2, wl2)));
    // One square root and one division a lane, of the case it takes (the
    // divider is the slow unit): sqrt(wl2) and 1 / wl for the cut-off,
    // sqrt(d2 - r2) and 1 / d2 for a leg.
    v2d root = _mm_sqrt_pd(v2d_blend(cut, wl2, _mm_sub_pd(d2, r2)));
    v2d recip = _mm_div_pd(one, v2d_blend(cut, root, d2));
    // The cut-off circle.
    v2d uwx = _mm_mul_pd(wvx, recip), uwy = _mm_mul_pd(wvy, recip);
    v2d cc = _mm_sub_pd(_mm_mul_pd(rsum, ih), root);
    // The leg: the left one, or the right one by sign.
    v2d left = _mm_cmpgt_pd(_mm_sub_pd(_mm_mul_pd(relx, wvy), _mm_mul_pd(rely, wvx)), zero);
    v2d sign = v2d_blend(left, one, _mm_set1_pd(-1.0));
    v2d rs = _mm_mul_pd(rsum, sign), inv = _mm_mul_pd(recip, sign);
    v2d ldx = _mm_mul_pd(_mm_sub_pd(_mm_mul_pd(relx, root), _mm_mul_pd(rely, rs)), inv);
    v2d ldy = _mm_mul_pd(_mm_add_pd(_mm_mul_pd(relx, rs), _mm_mul_pd(rely, root)), inv);
    v2d dot2 = _mm_add_pd(_mm_mul_pd(rvx, ldx), _mm_mul_pd(rvy, ldy));
    v2d lux = _mm_sub_pd(_mm_mul_pd(ldx, dot2), rvx), luy = _mm_sub_pd(_mm_mul_pd(ldy, dot2), rvy);
    v2d dirx = v2d_blend(cut, uwy, ldx), diry = v2d_blend(cut, _mm_xor_pd(uwx, _mm_set1_pd(-0.0)), ldy);
    v2d ux = v2d_blend(cut, _mm_mul_pd(uwx, cc), lux), uy = v2d_blend(cut, _mm_mul_pd(uwy, cc), luy);
    const v2d share = _mm_set_pd(sb, sa);
    v2d px = _mm_add_pd(vx, _mm_mul_pd(ux, share)), py = _mm_add_pd(vy, _mm_mul_pd(uy, share));
    line *L = &x->lines[x->n];
    if (over) { // rare: the scalar lines for the lanes that overlap
        double s;
        line la = (over & 1) ? near_line(x, g, qa, inv_h, flag, out, &s) : (line){{0, 0}, {0, 0}};
        line lb = (over & 2) ? near_line(x, g, qb, inv_h, flag, out, &s) : la;
        v2d m0 = _mm_castsi128_pd(_mm_set_epi64x(-(long long)((over >> 1) & 1), -(long long)(over & 1)));
        px = v2d_blend(m0, _mm_set_pd(lb.point.x, la.point.x), px);
        py = v2d_blend(m0, _mm_set_pd(lb.point.y, la.point.y), py);
        dirx = v2d_blend(m0, _mm_set_pd(lb.direction.x, la.direction.x), dirx);
        diry = v2d_blend(m0, _mm_set_pd(lb.direction.y, la.direction.y), diry);
    }
    _mm_storeu_pd(&L[0].point.x, _mm_unpacklo_pd(px, py));
    _mm_storeu_pd(&L[0].direction.x, _mm_unpacklo_pd(dirx, diry));
    if (two) {
        _mm_storeu_pd(&L[1].point.x, _mm_unpackhi_pd(px, py));
        _mm_storeu_pd(&L[1].direction.x, _mm_unpackhi_pd(dirx, diry));
    }
    // note_block for both: det(direction, point - pref) > 0 blocks by
    // min(1, 2 share); the largest is the same whatever the order.
    v2d det = _mm_sub_pd(_mm_mul_pd(dirx, _mm_sub_pd(py, _mm_set1_pd(x->pref.y))),
                         _mm_mul_pd(diry, _mm_sub_pd(px, _mm_set1_pd(x->pref.x))));
    v2d m = _mm_min_pd(one, _mm_mul_pd(_mm_set1_pd(2.0), share));
    *blocked = _mm_max_pd(*blocked, _mm_and_pd(_mm_cmpgt_pd(det, zero), m));
    x->n += 1 + two;
}
#endif

/// The lines for candidates which[0, m), their horizon 1 / inv_h.
static void lines_of(orca_ctx *x, const gather *g, const uint8_t *which, int m, double inv_h, const uint8_t *flag,
                     const st_vec2 *out)
{
#if ORCA_SSE2
    v2d blocked = _mm_set1_pd(x->blocked);
    for (int k = 0; k < m; k += 2) {
        bool two = k + 1 < m;
        disc_lines2(x, g, which[k], which[k + two], inv_h, flag, out, two, &blocked);
    }
    double b0 = _mm_cvtsd_f64(blocked), b1 = _mm_cvtsd_f64(_mm_unpackhi_pd(blocked, blocked));
    x->blocked = b0 > b1 ? b0 : b1;
#else
    for (int k = 0; k < m; k++) {
        double share;
        x->lines[x->n] = near_line(x, g, which[k], inv_h, flag, out, &share);
        note_block(x, &x->lines[x->n++], share);
    }
#endif
}

/// The long-horizon lines for candidates which[0, m) when the step has
/// reference velocities and some pair may share unevenly: a pair that
/// shares evenly (each yields to the other, equal priorities) plans around
/// both references, any other around both velocities (the share decides
/// who avoids how much; the references would move that). Both of a pair
/// come to the same choice, so their two lines still fit together.
static void mixed_lines(orca_ctx *x, const gather *g, const uint8_t *which, int m, double inv_h, int i)
{
    const st_vec2 *refs = x->refs;
    for (int k = 0; k < m; k++) {
        const orca_peer *o = &g->peer[g->index[which[k]]];
        bool even = share_of(o, x->peer) == 0.5 && share_of(x->peer, o) == 0.5;
        x->refs = even ? refs : NULL;
        x->own = even ? &refs[i] : &x->b->vel;
        double share;
        x->lines[x->n] = near_line(x, g, which[k], inv_h, NULL, NULL, &share);
        note_block(x, &x->lines[x->n++], share);
    }
    x->refs = refs;
    x->own = &refs[i];
}

/// Neighbours close enough to touch within this step get the half-plane
/// for a horizon of one step, kept hard like the obstacles': when the crowd
/// is too dense for every long-horizon half-plane, the fallback gives up
/// some foresight, never a collision this step. Then the nearest
/// max_neighbors get theirs for the full horizon, around the reference
/// velocities when the step has them (avoid_ref.c). In the second round
/// (`flag` non-NULL) a close neighbour stuck in the first keeps the
/// velocity it chose there (`out`), and this agent avoids all of it.
ST__INLINE void agent_lines(orca_ctx *x, const gather *g, const near_set *s, const uint8_t *flag,
                            const st_vec2 *out, int i)
{
    x->skin = ORCA_HARD_SKIN;
    x->own = &x->b->vel;
    x->refs = NULL;
    lines_of(x, g, s->close, s->n_close, x->inv_dt, flag, out);
    x->n_hard = x->n;
    x->skin = ORCA_SKIN;
    const struct st_avoid_state *st = x->w->avoid;
    if (st->use_ref) {
        x->refs = st->ref;
        x->own = &st->ref[i];
        if (!x->plain) {
            mixed_lines(x, g, s->ord, s->n_best, x->inv_h, i);
            return;
        }
    }
    lines_of(x, g, s->ord, s->n_best, x->inv_h, NULL, NULL);
}

/// Whether the agent counts as crowded (ORCA_CROWDED).
static inline bool crowded_of(const orca_ctx *x) { return x->n_hard - x->n_obst >= ORCA_CROWDED || x->n_obst > 0; }

/// The velocity the agent aims at. Blocked by a neighbour: waver a little;
/// and when crowded (ORCA_CROWDED), prefer passing on one side, the same
/// side for everyone, as pedestrians keep to one side; the more of the
/// avoiding this agent must do, the more (an even share: ORCA_SIDE_BIAS).
/// Plain ORCA lets symmetric crowds (a circle, a four-way crossing, groups
/// crossing between obstacles) stall face to face, each waiting for the
/// others, and squeezes them into overlaps there; an open crowd, where
/// each meets one other at a time, flows best straight at its goals.
/// *walled: an obstacle's line keeps pref out.
static st_vec2 aim_of(const orca_ctx *x, bool *walled)
{
    const st_vec2 pref = x->pref;
    bool wall = false;
    for (int k = 0; k < x->n_obst; k++) wall |= det(x->lines[k].direction, st_v2_sub(x->lines[k].point, pref)) > 0.0;
    *walled = wall;
    const double most = x->blocked;
    if (most <= 0.0) return pref;
    const st_world *w = x->w;
    uint64_t key = w->seed ^ (x->serial * 0x9E3779B97F4A7C15ull) ^ (w->tick * 0xD1B54A32D192ED03ull);
    double u = 2.0 * (double)(st_rng_next(&key) >> 11) * 0x1.0p-53 - 1.0;
    bool crowded = crowded_of(x);
    st_vec2 side = st_v2_scale(st_v2(pref.y, -pref.x), crowded ? ORCA_SIDE_BIAS * most : 0.0);
    double waver = ORCA_WAVER;
    if (!crowded) {
        double p2 = st_v2_len2(pref), v2 = st_v2_len2(x->b->vel);
        double lack = p2 > 0.0 ? 1.0 - sqrt(v2 / p2) : 0.0;
        waver = ORCA_WAVER_OPEN + ORCA_WAVER_SLOW * (lack > 0.0 ? lack : 0.0);
    }
    return st_v2_rotate(st_v2_add(pref, side), u * waver * most);
}

/// ORCA_ONWARD's velocity for a blocked agent in the open whose lines
/// leave room: from `v`, the one closest to its aim, part of the way to
/// the one farthest along its aim within its preferred speed.
static st_vec2 onward(const orca_ctx *x, st_vec2 pref, st_vec2 aim, st_vec2 v)
{
    double speed = sqrt(st_v2_len2(pref)), len = sqrt(st_v2_len2(aim));
    if (!(speed > 0.0) || !(len > 0.0)) return v;
    st_vec2 far;
    if (lp2(x->lines, x->n, speed, st_v2_scale(aim, 1.0 / len), true, &far) < x->n) return v;
    double share = x->n_hard - x->n_obst == 0 ? ORCA_ONWARD : ORCA_ONWARD_CLOSE;
    return st_v2_add(v, st_v2_scale(st_v2_sub(far, v), share));
}

/// The velocity closest to `aim` in every half-plane; when they leave
/// nothing, the least violation of the neighbour lines keeping the hard
/// ones, or when even the hard ones leave nothing, of those keeping the
/// obstacles' (*stuck). A blocked agent that would all but stop sidesteps.
static st_vec2 solve(const orca_ctx *x, st_vec2 pref, st_vec2 aim, double blocked, bool walled, bool *stuck)
{
    const line *lines = x->lines;
    const int n = x->n, n_hard = x->n_hard;
    const double r = x->b->max_speed;
    st_vec2 v;
    int fail = lp2(lines, n, r, aim, false, &v);
    if (fail >= n_hard && fail < n) {
        lp3(lines, n, n_hard, fail, r, &v);
    } else if (fail < n_hard) {
        fail = lp2(lines, n_hard, r, aim, false, &v);
        if (fail < n_hard) {
            lp3(lines, n_hard, x->n_obst, fail, r, &v);
            *stuck = true;
        }
    }
    if (fail >= n && blocked > 0.0 && !crowded_of(x)) v = onward(x, pref, aim, v);
    double stall2 = ORCA_STALL * ORCA_STALL * st_v2_len2(pref);
    if ((blocked > 0.0 || walled) && !*stuck && st_v2_len2(v) < stall2 && st_v2_len2(x->b->vel) < stall2) {
        st_vec2 side;
        if (lp2(lines, n, r, st_v2(pref.y, -pref.x), false, &side) >= n) v = side;
    }
    if (!st_v2_finite(v)) v = pref;
    return st_v2_truncate_safe(v, r); // r * r overflows past 1.3e154: the plain one would not cut
}

static void trace_agent(struct st_avoid_state *s, const orca_ctx *x, st_vec2 pref, st_vec2 v)
{
    st_orca_trace *t = &s->trace;
    t->valid = true;
    t->preferred = pref;
    t->chosen = v;
    t->line_count = x->n;
    t->obstacle_lines = x->n_obst;
    t->hard_lines = x->n_hard;
    memcpy(t->lines, x->lines, (size_t)x->n * sizeof *x->lines);
}

/// Agent i's velocity: closest to pref in every half-plane. *stuck: even
/// this step's half-planes left nothing. In the second round (`flag`
/// non-NULL) a neighbour stuck in the first keeps the velocity it chose
/// there (`out`), and this agent avoids all of it this step.
ORCA_PER_CPU static st_vec2 orca_agent(st_world *w, int i, st_vec2 pref, double dt, const uint8_t *flag,
                                       const st_vec2 *out, bool plain, bool *stuck)
{
    const struct st_avoid_state *st = w->avoid;
    orca_ctx x;
    x.w = w;
    x.plain = plain;
    x.b = &w->bodies[i];
    x.me = &st->self[i];
    x.peer = &st->peer[i];
    x.serial = st->peer[i].serial;
    x.dt = dt;
    x.inv_h = x.me->inv_h;
    x.inv_ho = x.me->inv_ho;
    x.inv_dt = 1.0 / dt;
    x.pref = pref;
    x.blocked = 0.0;
    x.n = 0;
    obstacle_lines(&x);

    // Agents: the max_neighbors nearest within range on the layers it avoids.
    gather g;
    near_set s;
    g.peer = st->peer;
    s.n_best = s.n_close = 0;
    if (x.me->max_neighbors > 0 && x.me->range > 0.0)
        gather_agents(&g, w, i, x.me->mask, x.me->max_neighbors, x.me->range, dt, &s);
    agent_lines(&x, &g, &s, flag, out, i);

    bool walled;
    st_vec2 aim = aim_of(&x, &walled);
    st_vec2 v = solve(&x, pref, aim, x.blocked, walled, stuck);
    if (is_traced(w, i)) trace_agent(w->avoid, &x, pref, v);
    return v;
}

/// Marks the ORCA agents that could touch stuck agent i within the step.
static void mark_revisits(st_world *w, int i, uint8_t *flag)
{
    // The close list alone (no nearest-k list), over the same range as the
    // agent's own round.
    gather g;
    near_set s;
    gather_agents(&g, w, i, UINT32_MAX, 0, w->avoid->self[i].range, w->step_dt, &s);
    for (int k = 0; k < s.n_close; k++) {
        uint32_t j = g.index[s.close[k]];
        if ((w->bodies[j].avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA && !(flag[j] & AV_STUCK))
            flag[j] |= AV_REVISIT;
    }
}

bool st__avoid_peer(st_world *w, int i)
{
    // A stream over four arrays, one of them (the settings) in handle
    // order: ask for the lines a few agents ahead.
    if (i + 16 < w->step_count) {
        ST__PREFETCH(&w->agents[i + 16]);
        const st_agent *a = &w->agents[i + 8];
        if (w->bodies[i + 8].avoid & ST__AV_DEF) ST__PREFETCH(&w->avoid_defs[a->slot]);
    }
    const st_body *b = &w->bodies[i];
    orca_peer *p = &w->avoid->peer[i];
    p->vel = b->vel;
    p->radius = b->radius;
    p->max_speed = b->max_speed;
    p->serial = w->agents[i].serial;
    bool yields = (b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA, plain = false;
    if (b->avoid & ST__AV_DEF) {
        const st_avoid_def *d = &w->avoid_defs[w->agents[i].slot];
        p->layer = d->layer;
        p->yields = yields ? d->mask : 0u;
        p->priority = d->priority;
        plain = yields && d->mask == UINT32_MAX && d->layer != 0u && d->priority == 1.0;
        if (yields) {
            st_avoid_def e = effective(d, b);
            orca_self *me = &w->avoid->self[i];
            me->range = e.range;
            me->horizon_obstacles = e.horizon_obstacles;
            me->inv_h = 1.0 / e.horizon;
            me->inv_ho = 1.0 / e.horizon_obstacles;
            me->mask = e.mask;
            me->max_neighbors = e.max_neighbors;
        }
    } else {
        p->layer = 1u;
        p->yields = yields ? UINT32_MAX : 0u;
        p->priority = 1.0;
    }
    return plain;
}

st_vec2 st__avoid_velocity(const st_world *w, const st_vec2 *pref, int i)
{
    const struct st_avoid_state *s = w->avoid;
    return (s->flag[i] & AV_REVISIT) ? pref[i] : s->out[i];
}

/// Whether ORCA agent i has an obstacle in the reach its obstacle lines
/// look at (obstacle_lines).
static bool walls_near(const st_world *w, int i)
{
    const struct st_avoid_state *s = w->avoid;
    const st_body *b = &w->bodies[i];
    double reach = s->self[i].horizon_obstacles * b->max_speed + b->radius;
    for (int k = 0; k < w->obstacle_count; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) continue;
        double r = reach + o->radius;
        if (!(st_v2_len2(st_world_offset(w, b->pos, o->center)) > r * r)) return true;
    }
    if (s->vert_count == 0) return false;
    near_edge e[ORCA_MAX_OBSTACLE_LINES];
    return gather_edges(w, s, b->pos, reach, e) > 0;
}

/// Before round one: each agent's reference velocity for the long-horizon
/// lines (avoid_ref.c: an unlocked ORCA agent in the open plans part of the
/// way to its preferred velocity; anyone else, its velocity), and first the
/// largest radius and max speed, which bound its search for someone close.
/// Any pair's two lines are built around the same two references, however
/// the pair shares the avoiding, so the guarantee holds.
static void reference_pass(st_world *w, const st_vec2 *pref, int n, double dt)
{
    struct st_avoid_state *s = w->avoid;
    const bool all_alive = !w->removed_in_step && w->dead == 0;
#ifdef STEER_HAVE_OPENMP
#pragma omp single
#endif
    {
        // One thread (a sweep of the peer records); the others wait.
        double max_r = 0.0, max_v = 0.0;
        for (int i = 0; i < n; i++) {
            if (!all_alive && !w->agents[i].alive) continue;
            max_r = s->peer[i].radius > max_r ? s->peer[i].radius : max_r;
            max_v = s->peer[i].max_speed > max_v ? s->peer[i].max_speed : max_v;
        }
        s->ref_radius = max_r;
        s->ref_speed = max_v;
        s->use_ref = true; // false since st__avoid_begin
    }
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1024)
#endif
    for (int i = 0; i < n; i++) {
        const st_body *b = &w->bodies[i];
        bool open = (b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA &&
                    (all_alive || w->agents[i].alive) && !walls_near(w, i);
        s->ref[i] = st__avoid_ref(w, pref, i, dt, open, s->ref_radius, s->ref_speed);
    }
}

void st__avoid_pass(st_world *w, st_vec2 *pref, bool plain)
{
    struct st_avoid_state *s = w->avoid;
    const int n = w->step_count;
    const bool all_alive = !w->removed_in_step && w->dead == 0;
    const double dt = w->step_dt;
    st_vec2 *out = s->out;
    uint8_t *flag = s->flag;
    reference_pass(w, pref, n, dt);
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
        out[i] = orca_agent(w, i, pref[i], dt, NULL, NULL, plain, &stuck);
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
            pref[i] = orca_agent(w, i, pref[i], dt, flag, out, plain, &stuck);
        }
    }
    // Now pref[i] for the agents revisited, out[i] for the others
    // (st__avoid_velocity): the move reads them, after the last barrier.
}
