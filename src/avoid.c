/*
 * avoid.c — avoidance settings and state: each agent's st_avoid_def, the
 * buffers of the ORCA pass and the obstacle outlines it sees (RVO2's
 * representation). The pass is avoid_pass.c; orca.h lists the other files.
 */
#include <math.h>
#include <string.h>

#include "orca.h"
#include "avoid.h"
#include "obstacle.h"

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
