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
 * Cost: with the grid of st_world_raycast_prepare fresh (raycast_index.c),
 * only the obstacles and walls in the cells the ray crosses, up to the
 * first hit; without it, every obstacle and wall after a cheap bounding
 * test. Agents: outside a step, those in the neighbour grid's cells within
 * the largest agent radius of the ray (raycast_agents.c); in a step, every
 * one, the tag first. No allocation inside a step.
 */
#include <math.h>

#include "raycast_internal.h"
#include "obstacle.h"

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

/// Whether a disc of radius r about c may touch the ray (a bound, no more).
static bool near_disc(const st__ray *r, st_vec2 c, double rad)
{
    st_vec2 f = st_v2_sub(c, r->from);
    double t = st_v2_dot(f, r->d) / r->len2;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    st_vec2 q = st_v2_sub(f, st_v2_scale(r->d, t));
    return st_v2_len2(q) <= rad * rad * (1.0 + 1e-12) + 1e-12;
}

/// The ray against a circle: true with its fraction and normal when it enters
/// the circle within [0, 1]. A circle that holds the start is not hit.
static bool hit_circle(const st__ray *r, st_vec2 c, double rad, double *t_out, st_vec2 *n_out)
{
    if (!(rad > 0.0)) return false;
    st_vec2 f = st_v2_sub(r->from, c);
    double b = st_v2_dot(f, r->d);
    double cc = st_v2_len2(f) - rad * rad;
    if (!isfinite(b) || !isfinite(cc)) return false; // beyond double range: no answer rather than NaN
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
static bool hit_segment(const st__ray *r, st_vec2 a, st_vec2 b, double *t_out, st_vec2 *n_out)
{
    st_vec2 e = st_v2_sub(b, a);
    double el2 = st_v2_len2(e);
    if (!(el2 > 0.0) || !isfinite(el2)) return false; // a point, or beyond double range
    st_vec2 wv = st_v2_sub(a, r->from);
    if (!st_v2_finite(wv)) return false;
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
        if (!(t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0)) return false; // NaN too
        n = st_v2_scale(st_v2_perp(e), 1.0 / sqrt(el2));
        if (st_v2_dot(n, r->d) > 0.0) n = st_v2_neg(n);
    }
    *t_out = t;
    *n_out = n;
    return true;
}

/// Keeps (t, n) as the best hit when it is nearer, or as near with a lower
/// key: the same winner whatever order the shapes are tested in.
static bool take(st__ray_best *best, double t, st_vec2 n, st_raycast_kind kind, int group, uint64_t index, int seg)
{
    if (t > best->hit.fraction) return false;
    if (t == best->hit.fraction) {
        if (group != best->group) {
            if (group > best->group) return false;
        } else if (index != best->index) {
            if (index > best->index) return false;
        } else if (seg >= best->seg) {
            return false;
        }
    }
    best->hit.fraction = t;
    best->hit.normal = n;
    best->hit.kind = kind;
    best->hit.obstacle = 0;
    best->hit.wall = 0;
    best->hit.agent = st_null_agent();
    best->group = group;
    best->index = index;
    best->seg = seg;
    return true;
}

void st__ray_test_obstacle(const st_world *w, const st__ray *r, int i, int seg, st__ray_best *best)
{
    const st_obstacle *o = &w->obstacles[i];
    double t;
    st_vec2 n;
    st_raycast_kind kind;
    if (o->kind == ST_OBSTACLE_CIRCLE) {
        if (!hit_circle(r, o->center, o->radius, &t, &n)) return;
        kind = ST_RAY_CIRCLE;
    } else {
        st_vec2 a = st_v2_add(o->center, o->points[seg]);
        st_vec2 b = st_v2_add(o->center, o->points[(seg + 1) % o->point_count]);
        if (!hit_segment(r, a, b, &t, &n) || t > best->hit.fraction) return;
        if (o->kind == ST_OBSTACLE_POLYGON && st__polygon_holds(o, r->from)) return;
        kind = o->kind == ST_OBSTACLE_POLYGON ? ST_RAY_POLYGON : ST_RAY_POLYLINE;
    }
    if (take(best, t, n, kind, 0, (uint64_t)i, seg)) best->hit.obstacle = o->id;
}

void st__ray_test_wall(const st_world *w, const st__ray *r, int k, st__ray_best *best)
{
    double t;
    st_vec2 n;
    if (hit_segment(r, w->walls[k].from, w->walls[k].to, &t, &n) && take(best, t, n, ST_RAY_WALL, 1, (uint64_t)k, -1))
        best->hit.wall = k + 1;
}

/// Every obstacle and wall, each after a bounding test.
static void cast_all(const st_world *w, const st__ray *r, bool obstacles, bool walls, st__ray_best *best)
{
    for (int i = 0; i < w->obstacle_count && obstacles; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (!near_disc(r, o->center, o->radius)) continue;
        if (o->kind == ST_OBSTACLE_CIRCLE) {
            st__ray_test_obstacle(w, r, i, -1, best);
            continue;
        }
        int segs = o->kind == ST_OBSTACLE_POLYGON ? o->point_count : o->point_count - 1;
        for (int s = 0; s < segs; s++) st__ray_test_obstacle(w, r, i, s, best);
    }
    for (int k = 0; k < w->wall_count && walls; k++) st__ray_test_wall(w, r, k, best);
}

void st__ray_test_agent(const st_world *w, const st__ray *r, const st_raycast_opts *o, int i, st__ray_best *best)
{
    if (o->tag != ST_TAG_ANY && w->tags[i] != o->tag) return;
    const st_agent *a = &w->agents[i];
    if (!a->alive) return;
    const st_body *b = &w->bodies[i];
    if (!near_disc(r, b->pos, b->radius)) return;
    st_agent_id id = st__id_of(w, i);
    if (st_id_equal(id, o->ignore)) return;
    double t;
    st_vec2 n;
    // Keyed by spawn order (serial), not by where storage keeps it.
    if (hit_circle(r, b->pos, b->radius, &t, &n) && take(best, t, n, ST_RAY_AGENT, 2, a->serial, -1))
        best->hit.agent = id;
}

void st__ray_agents_all(const st_world *w, const st__ray *r, const st_raycast_opts *o, st__ray_best *best)
{
    for (int i = 0; i < w->count; i++) st__ray_test_agent(w, r, o, i, best);
}

bool st_world_raycast(const st_world *w, st_vec2 from, st_vec2 to, const st_raycast_opts *opts, st_raycast_hit *hit)
{
    st_raycast_opts def = st_raycast_default();
    const st_raycast_opts *o = opts ? opts : &def;
    if (!st_v2_finite(from) || !st_v2_finite(to)) return false;
    st__ray r;
    r.from = from;
    r.d = st_v2_sub(to, from);
    r.len2 = st_v2_len2(r.d);
    if (!(r.len2 > 0.0) || !isfinite(r.len2)) return false; // an empty (or unmeasurable) ray sees nothing
    r.dir = st_v2_scale(r.d, 1.0 / sqrt(r.len2));

    st__ray_best best = {.group = 3, .index = UINT64_MAX, .seg = INT32_MAX};
    best.hit.fraction = INFINITY;
    best.hit.kind = ST_RAY_NONE;
    if (o->obstacles || o->walls) {
        if (st__ray_index_fresh(w)) st__ray_index_cast(w, &r, o->obstacles, o->walls, &best);
        else cast_all(w, &r, o->obstacles, o->walls, &best);
    }
    if (o->agents) st__ray_agents(w, &r, o, &best);
    if (best.hit.kind == ST_RAY_NONE) return false;
    best.hit.point = st_v2_add(from, st_v2_scale(r.d, best.hit.fraction));
    best.hit.distance = best.hit.fraction * sqrt(r.len2);
    if (hit) *hit = best.hit;
    return true;
}
