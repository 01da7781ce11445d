/*
 * obstacle.c — the world's static geometry: circles, polygons, polylines and
 * walls, which avoid_obstacles, avoid_walls, hide and ORCA all see.
 *
 * Obstacles keep the order they were added in (ids increase, never reused),
 * so every pass over them visits them in the same order. A polygon keeps its
 * points relative to its mean point, so moving it is one assignment, and a
 * closed one is stored counter-clockwise (positive area), which is what the
 * ORCA construction expects: outside lies to the right of every edge.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "world_internal.h"
#include "geom.h"
#include "obstacle.h"

void st__obstacles_free(st_world *w)
{
    for (int i = 0; i < w->obstacle_count; i++) st__free(w->obstacles[i].points);
    st__free(w->obstacles);
    st__free(w->walls);
}

static st_obstacle *push_obstacle(st_world *w)
{
    if (!st__grow(&w->mem, (void **)&w->obstacles, &w->obstacle_cap, w->obstacle_count + 1, sizeof(st_obstacle)))
        return NULL;
    st_obstacle *o = &w->obstacles[w->obstacle_count];
    memset(o, 0, sizeof *o);
    return o;
}

static void commit_obstacle(st_world *w, st_obstacle *o)
{
    o->id = ++w->next_obstacle_id;
    o->prev_center = o->center;
    w->obstacle_count++;
    w->obstacle_epoch++;
}

int st_world_add_obstacle(st_world *w, st_vec2 center, double radius)
{
    assert(st_v2_finite(center) && st_finite(radius) && radius >= 0.0);
    if (!st_v2_finite(center) || !st_finite(radius) || radius < 0.0) return 0;
    st_obstacle *o = push_obstacle(w);
    if (!o) return 0;
    o->kind = ST_OBSTACLE_CIRCLE;
    o->center = center;
    o->radius = radius;
    commit_obstacle(w, o);
    return o->id;
}

/// Twice the signed area: > 0 for counter-clockwise points (y up).
static double signed_area2(const st_vec2 *p, int n)
{
    double a = 0.0;
    for (int i = 0; i < n; i++) a += st_v2_cross(p[i], p[(i + 1) % n]);
    return a;
}

int st_world_add_polygon(st_world *w, const st_vec2 *points, int n, bool closed)
{
    if (!points || n < (closed ? 3 : 2)) return 0;
    st_vec2 mean = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        if (!st_v2_finite(points[i])) return 0;
        mean = st_v2_add(mean, st_v2_scale(points[i], 1.0 / n));
    }
    if (!st_v2_finite(mean)) return 0;
    st_vec2 *rel = st__alloc(&w->mem, (size_t)n * sizeof *rel);
    if (!rel) return 0;
    double radius = 0.0;
    for (int i = 0; i < n; i++) {
        rel[i] = st_v2_sub(points[i], mean);
        radius = fmax(radius, st_v2_len_safe(rel[i]));
    }
    if (!isfinite(radius)) {
        st__free(rel);
        return 0;
    }
    if (closed && signed_area2(rel, n) < 0.0) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            st_vec2 t = rel[i];
            rel[i] = rel[j];
            rel[j] = t;
        }
    }
    st_obstacle *o = push_obstacle(w);
    if (!o) {
        st__free(rel);
        return 0;
    }
    o->kind = closed ? ST_OBSTACLE_POLYGON : ST_OBSTACLE_POLYLINE;
    o->center = mean;
    o->radius = radius;
    o->points = rel;
    o->point_count = n;
    commit_obstacle(w, o);
    return o->id;
}

int st_world_obstacle_index(const st_world *w, int id)
{
    // Ids increase with the index: binary search.
    int lo = 0, hi = w->obstacle_count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int m = w->obstacles[mid].id;
        if (m == id) return mid;
        if (m < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

bool st_world_remove_obstacle(st_world *w, int id)
{
    int i = st_world_obstacle_index(w, id);
    if (i < 0) return false;
    st__free(w->obstacles[i].points);
    memmove(&w->obstacles[i], &w->obstacles[i + 1], (size_t)(w->obstacle_count - i - 1) * sizeof(st_obstacle));
    w->obstacle_count--;
    w->obstacle_epoch++;
    return true;
}

bool st_world_set_obstacle_pos(st_world *w, int id, st_vec2 pos)
{
    assert(st_v2_finite(pos));
    int i = st_world_obstacle_index(w, id);
    if (i < 0 || !st_v2_finite(pos)) return false;
    w->obstacles[i].center = pos;
    w->obstacle_epoch++;
    return true;
}

void st__obstacles_settle(st_world *w)
{
    for (int i = 0; i < w->obstacle_count; i++) w->obstacles[i].prev_center = w->obstacles[i].center;
}

int st_world_add_wall(st_world *w, st_vec2 from, st_vec2 to)
{
    assert(st_v2_finite(from) && st_v2_finite(to));
    if (!st_v2_finite(from) || !st_v2_finite(to)) return 0;
    if (!st__grow(&w->mem, (void **)&w->walls, &w->wall_cap, w->wall_count + 1, sizeof(st_wall))) return 0;
    st_wall *wl = &w->walls[w->wall_count];
    wl->from = from;
    wl->to = to;
    wl->normal = st_v2_perp(st_v2_normalize(st_v2_sub(to, from)));
    w->obstacle_epoch++;
    return ++w->wall_count;
}

int st_world_obstacle_count(const st_world *w) { return w->obstacle_count; }
int st_world_wall_count(const st_world *w) { return w->wall_count; }

void st_world_obstacle(const st_world *w, int i, st_vec2 *center, double *radius)
{
    assert(i >= 0 && i < w->obstacle_count);
    if (center) *center = w->obstacles[i].center;
    if (radius) *radius = w->obstacles[i].radius;
}

void st_world_obstacle_get(const st_world *w, int i, st_obstacle_info *out)
{
    assert(i >= 0 && i < w->obstacle_count);
    const st_obstacle *o = &w->obstacles[i];
    out->id = o->id;
    out->kind = o->kind;
    out->pos = o->center;
    out->radius = o->radius;
    out->point_count = o->point_count;
    out->points = o->points;
}

void st_world_wall(const st_world *w, int i, st_vec2 *from, st_vec2 *to)
{
    assert(i >= 0 && i < w->wall_count);
    if (from) *from = w->walls[i].from;
    if (to) *to = w->walls[i].to;
}

/* ---- geometry for the behaviours ---- */

static int segment_count(const st_obstacle *o)
{
    return o->kind == ST_OBSTACLE_POLYGON ? o->point_count : o->point_count - 1;
}

/// Segment k of a polygon or polyline, as offsets from `pos` (the shortest
/// way across wrap edges to the obstacle's centre).
static void segment_rel(const st_world *w, const st_obstacle *o, st_vec2 pos, int k, st_vec2 *a, st_vec2 *b)
{
    st_vec2 c = st_world_offset(w, pos, o->center);
    *a = st_v2_add(c, o->points[k]);
    *b = st_v2_add(c, o->points[(k + 1) % o->point_count]);
}

st_vec2 st__polygon_closest(const st_world *w, const st_obstacle *o, st_vec2 p, bool *inside)
{
    double best = INFINITY;
    st_vec2 out = p;
    bool in = false;
    const st_vec2 zero = {0.0, 0.0};
    for (int k = 0, n = segment_count(o); k < n; k++) {
        st_vec2 a, b;
        segment_rel(w, o, p, k, &a, &b);
        st_vec2 c = st__closest_on_segment(zero, a, b);
        double d2 = st_v2_len2(c);
        if (d2 < best) {
            best = d2;
            out = st_v2_add(p, c);
        }
        // Crossing count of a ray from p along +x.
        if ((a.y > 0.0) != (b.y > 0.0)) {
            double x = a.x + (0.0 - a.y) * (b.x - a.x) / (b.y - a.y);
            if (x > 0.0) in = !in;
        }
    }
    if (inside) *inside = o->kind == ST_OBSTACLE_POLYGON && in;
    return out;
}

/// Clips the segment a-b (local frame) to the band |y| <= r and returns the
/// point of least x inside it: false when the segment misses the band.
static bool clip_band(st_vec2 a, st_vec2 b, double r, st_vec2 *nearest)
{
    double t0 = 0.0, t1 = 1.0;
    double dy = b.y - a.y;
    if (dy == 0.0) {
        if (fabs(a.y) > r) return false;
    } else {
        double ta = (-r - a.y) / dy, tb = (r - a.y) / dy;
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb);
        if (t0 > t1) return false;
    }
    st_vec2 p0 = st_v2_lerp(a, b, t0), p1 = st_v2_lerp(a, b, t1);
    *nearest = p0.x <= p1.x ? p0 : p1;
    return true;
}

bool st__polygon_box_hit(const st_world *w, const st_obstacle *o, st_vec2 pos, st_vec2 h, double box, double r,
                         double *hit_x, double *hit_y)
{
    st_vec2 s = st_v2_perp(h);
    double best = INFINITY, best_y = 0.0;
    for (int k = 0, n = segment_count(o); k < n; k++) {
        st_vec2 a, b;
        segment_rel(w, o, pos, k, &a, &b);
        st_vec2 la = {st_v2_dot(a, h), st_v2_dot(a, s)}, lb = {st_v2_dot(b, h), st_v2_dot(b, s)};
        st_vec2 p;
        if (!clip_band(la, lb, r, &p)) continue;
        if (p.x < -r || p.x > box) continue;
        if (p.x < best) {
            best = p.x;
            best_y = p.y;
        }
    }
    if (best == INFINITY) return false;
    // Which side to pass on: away from where the bulk of the obstacle lies
    // across the box, so a wall met square on is rounded by its nearer end.
    double cy = st_v2_dot(st_world_offset(w, pos, o->center), s);
    *hit_x = best;
    *hit_y = cy != 0.0 ? copysign(fmax(fabs(best_y), 1e-9), cy) : best_y;
    return true;
}

void st__each_segment(const st_world *w, void (*fn)(void *ctx, st_vec2 a, st_vec2 b), void *ctx)
{
    for (int k = 0; k < w->wall_count; k++) fn(ctx, w->walls[k].from, w->walls[k].to);
    for (int i = 0; i < w->obstacle_count; i++) {
        const st_obstacle *o = &w->obstacles[i];
        if (o->kind == ST_OBSTACLE_CIRCLE) continue;
        for (int k = 0, n = segment_count(o); k < n; k++)
            fn(ctx, st_v2_add(o->center, o->points[k]), st_v2_add(o->center, o->points[(k + 1) % o->point_count]));
    }
}

bool st__polygon_holds(const st_obstacle *o, st_vec2 p)
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
