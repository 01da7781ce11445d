/*
 * raycast.c — exact line of sight against the world's real geometry:
 * circles, closed polygons, polylines, walls and (on request) agents.
 *
 * The ray is the segment from -> to, in plain world coordinates (it does not
 * cross a wrap world's edges). Every shape is tested exactly; the nearest
 * hit wins. A shape that contains the ray's start (a circle, a closed
 * polygon, an agent) is not hit at all, as in Box2D: a guard standing in a
 * doorway's pillar still sees out of it, and a caster never sees itself.
 * Segments (walls, polyline segments, polygon edges) are solid on both
 * sides. Shapes of zero size (radius 0, edges of length 0) are never hit.
 *
 * Ties (two shapes hit at the same fraction) go to obstacles in the order
 * they were added, then walls in the order added, then agents by spawn
 * order, so a result never depends on storage order or thread count.
 *
 * Cost: one pass over the obstacles, walls and (when asked) agents, with a
 * cheap bounding test before the exact one; no allocation, reads only.
 */
#include <math.h>

#include "world_internal.h"

st_raycast_opts st_raycast_default(void)
{
    st_raycast_opts o;
    o.obstacles = true;
    o.walls = true;
    o.agents = false;
    o.tag = ST_TAG_ANY;
    o.ignore = st_null_agent();
    return o;
}

typedef struct ray {
    st_vec2 from, d;  // d = to - from
    double len2;      // |d|^2 > 0
    st_vec2 dir;      // unit
} ray;

/// Whether a disc of radius r about c may touch the ray (a bound, no more).
static bool near_disc(const ray *r, st_vec2 c, double rad)
{
    st_vec2 f = st_v2_sub(c, r->from);
    double t = st_v2_dot(f, r->d) / r->len2;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    st_vec2 q = st_v2_sub(f, st_v2_scale(r->d, t));
    return st_v2_len2(q) <= rad * rad * (1.0 + 1e-12) + 1e-12;
}

/// The ray against a circle: true with its fraction and normal when it enters
/// the circle within [0, 1]. A circle that holds the start is not hit.
static bool hit_circle(const ray *r, st_vec2 c, double rad, double *t_out, st_vec2 *n_out)
{
    if (!(rad > 0.0)) return false;
    st_vec2 f = st_v2_sub(r->from, c);
    double b = st_v2_dot(f, r->d);
    double cc = st_v2_len2(f) - rad * rad;
    if (cc < 0.0) return false;          // the start is inside
    if (b > 0.0) return false;           // moving away from the centre
    double disc = b * b - r->len2 * cc;
    if (disc < 0.0) return false;
    double t = (-b - sqrt(disc)) / r->len2;
    if (t < 0.0) t = 0.0;
    if (t > 1.0) return false;
    st_vec2 p = st_v2_add(r->from, st_v2_scale(r->d, t));
    st_vec2 n = st_v2_sub(p, c);
    double nl = st_v2_len(n);
    *n_out = nl > 0.0 ? st_v2_scale(n, 1.0 / nl) : st_v2_neg(r->dir);
    *t_out = t;
    return true;
}

/// The ray against the segment a-b (solid on both sides): true with the
/// fraction and a unit normal facing the ray. A segment lying along the ray
/// is hit where the ray first meets it.
static bool hit_segment(const ray *r, st_vec2 a, st_vec2 b, double *t_out, st_vec2 *n_out)
{
    st_vec2 e = st_v2_sub(b, a);
    double el2 = st_v2_len2(e);
    if (!(el2 > 0.0)) return false;
    st_vec2 wv = st_v2_sub(a, r->from);
    double denom = st_v2_cross(r->d, e);
    double t;
    st_vec2 n;
    if (denom == 0.0) {
        if (st_v2_cross(wv, r->d) != 0.0) return false; // parallel, apart
        // Collinear: the first point of the segment along the ray.
        double ta = st_v2_dot(wv, r->d) / r->len2;
        double tb = st_v2_dot(st_v2_sub(b, r->from), r->d) / r->len2;
        double lo = fmin(ta, tb), hi = fmax(ta, tb);
        if (hi < 0.0 || lo > 1.0) return false;
        t = fmax(lo, 0.0);
        n = st_v2_neg(r->dir);
    } else {
        t = st_v2_cross(wv, e) / denom;
        double u = st_v2_cross(wv, r->d) / denom;
        if (t < 0.0 || t > 1.0 || u < 0.0 || u > 1.0) return false;
        n = st_v2_scale(st_v2_perp(e), 1.0 / sqrt(el2));
        if (st_v2_dot(n, r->d) > 0.0) n = st_v2_neg(n);
    }
    *t_out = t;
    *n_out = n;
    return true;
}

/// Whether p lies inside the closed polygon o (crossing count).
static bool polygon_holds(const st_obstacle *o, st_vec2 p)
{
    bool in = false;
    st_vec2 q = st_v2_sub(p, o->center);
    for (int k = 0, n = o->point_count; k < n; k++) {
        st_vec2 a = o->points[k], b = o->points[(k + 1) % n];
        if ((a.y > q.y) != (b.y > q.y)) {
            double x = a.x + (q.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if (x > q.x) in = !in;
        }
    }
    return in;
}

/// The ray against a polygon's edges or a polyline's segments.
static bool hit_outline(const ray *r, const st_obstacle *o, double *t_out, st_vec2 *n_out)
{
    bool closed = o->kind == ST_OBSTACLE_POLYGON;
    int segs = closed ? o->point_count : o->point_count - 1;
    double best = INFINITY;
    st_vec2 bn = {0.0, 0.0};
    for (int k = 0; k < segs; k++) {
        st_vec2 a = st_v2_add(o->center, o->points[k]);
        st_vec2 b = st_v2_add(o->center, o->points[(k + 1) % o->point_count]);
        double t;
        st_vec2 n;
        if (hit_segment(r, a, b, &t, &n) && t < best) {
            best = t;
            bn = n;
        }
    }
    if (best == INFINITY) return false;
    if (closed && polygon_holds(o, r->from)) return false;
    *t_out = best;
    *n_out = bn;
    return true;
}

/// Keeps (t, n) as the best hit when it is strictly nearer.
static bool take(st_raycast_hit *best, double t, st_vec2 n, st_raycast_kind kind)
{
    if (!(t < best->fraction)) return false;
    best->fraction = t;
    best->normal = n;
    best->kind = kind;
    best->obstacle = 0;
    best->wall = 0;
    best->agent = st_null_agent();
    return true;
}

static void cast_obstacles(const st_world *w, const ray *r, st_raycast_hit *best)
{
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (!near_disc(r, o->center, o->radius)) continue;
        double t;
        st_vec2 n;
        bool hit;
        st_raycast_kind kind;
        if (o->kind == ST_OBSTACLE_CIRCLE) {
            hit = hit_circle(r, o->center, o->radius, &t, &n);
            kind = ST_RAY_CIRCLE;
        } else {
            hit = hit_outline(r, o, &t, &n);
            kind = o->kind == ST_OBSTACLE_POLYGON ? ST_RAY_POLYGON : ST_RAY_POLYLINE;
        }
        if (hit && take(best, t, n, kind)) best->obstacle = o->id;
    }
}

static void cast_walls(const st_world *w, const ray *r, st_raycast_hit *best)
{
    for (int k = 0; k < w->wall_count; k++) {
        double t;
        st_vec2 n;
        if (hit_segment(r, w->walls[k].from, w->walls[k].to, &t, &n) && take(best, t, n, ST_RAY_WALL))
            best->wall = k + 1;
    }
}

static void cast_agents(const st_world *w, const ray *r, const st_raycast_opts *o, st_raycast_hit *best)
{
    uint64_t best_serial = UINT64_MAX;
    for (int i = 0; i < w->count; i++) {
        const st_agent *a = &w->agents[i];
        if (!a->alive) continue;
        if (o->tag != ST_TAG_ANY && w->tags[i] != o->tag) continue;
        const st_body *b = &w->bodies[i];
        if (!near_disc(r, b->pos, b->radius)) continue;
        st_agent_id id = st__id_of(w, i);
        if (st_id_equal(id, o->ignore)) continue;
        double t;
        st_vec2 n;
        if (!hit_circle(r, b->pos, b->radius, &t, &n)) continue;
        // Storage order is not spawn order: a tie goes to the earlier spawn.
        if (best->kind == ST_RAY_AGENT && t == best->fraction && a->serial < best_serial) best->fraction = INFINITY;
        if (take(best, t, n, ST_RAY_AGENT)) {
            best->agent = id;
            best_serial = a->serial;
        }
    }
}

bool st_world_raycast(const st_world *w, st_vec2 from, st_vec2 to, const st_raycast_opts *opts, st_raycast_hit *hit)
{
    st_raycast_opts def = st_raycast_default();
    const st_raycast_opts *o = opts ? opts : &def;
    if (!st_v2_finite(from) || !st_v2_finite(to)) return false;
    ray r;
    r.from = from;
    r.d = st_v2_sub(to, from);
    r.len2 = st_v2_len2(r.d);
    if (!(r.len2 > 0.0) || !isfinite(r.len2)) return false; // an empty (or unmeasurable) ray sees nothing
    r.dir = st_v2_scale(r.d, 1.0 / sqrt(r.len2));

    st_raycast_hit best = {0};
    best.fraction = INFINITY;
    best.kind = ST_RAY_NONE;
    if (o->obstacles) cast_obstacles(w, &r, &best);
    if (o->walls) cast_walls(w, &r, &best);
    if (o->agents) cast_agents(w, &r, o, &best);
    if (best.kind == ST_RAY_NONE) return false;
    best.point = st_v2_add(from, st_v2_scale(r.d, best.fraction));
    best.distance = best.fraction * sqrt(r.len2);
    if (hit) *hit = best;
    return true;
}
