/*
 * path_follow.c — Reynolds' path following (follow_path in ST_PATH_PREDICT
 * mode) and the path geometry it needs.
 *
 * Each step: predict where the agent will be `predict` seconds ahead at its
 * velocity, project that point onto the path; while it lies within the
 * path's radius the agent keeps going as it is (speeding up to max speed
 * along its velocity), and once it would leave the corridor it seeks the
 * point `ahead` units further along the path than the projection. So the
 * agent corrects before it is out, cuts corners smoothly instead of
 * visiting every waypoint, and steers back to the path from anywhere. The
 * end of an open path is arrived at.
 *
 * Projection looks at a window of segments from the one the agent was last
 * nearest (one back, then forward for as far as it can get this step and
 * its look-ahead), never the whole path: a path that doubles back on itself
 * does not pull the agent onto the wrong leg, and progress is kept in the
 * agent's path index (the waypoint at the end of the segment it is on).
 *
 * A segment that takes a navgrid link (st_path_set_link) is a wall for the
 * windows: the agent is led to the link's start, records the event there
 * (st__link_reached), then seeks the link's end straight and carries on
 * from there once within the path's radius of it.
 */
#include "world_internal.h"
#include "behavior_internal.h"
#include "geom.h"

static const st_vec2 ZERO = {0.0, 0.0};

static int seg_count(const st_path *p) { return p->loop ? p->count : p->count - 1; }
static st_vec2 seg_a(const st_path *p, int k) { return p->points[k]; }
static st_vec2 seg_b(const st_path *p, int k) { return p->points[(k + 1) % p->count]; }

/// The segment that ends at waypoint `next` (a loop's first point: its
/// closing segment; an open path's first point: its first segment).
static int seg_into(const st_path *p, int next)
{
    if (p->loop) return (next + p->count - 1) % p->count;
    return next > 0 ? next - 1 : 0;
}

typedef struct projection {
    int seg;       // segment index
    double t;      // along it, in world units from its start
    double dist2;  // squared distance from the point projected
    st_vec2 point; // the closest point
} projection;

static void project_seg(const st_path *p, int k, st_vec2 q, projection *best)
{
    st_vec2 a = seg_a(p, k), b = seg_b(p, k);
    st_vec2 c = st__closest_on_segment(q, a, b);
    double d2 = st_v2_dist2(q, c);
    if (best->seg < 0 || d2 < best->dist2) {
        best->seg = k;
        best->t = st_v2_dist(a, c);
        best->dist2 = d2;
        best->point = c;
    }
}

/// The first segment from s on that takes a link; seg_count when none.
static int next_link(const st_path *p, int s)
{
    int n = seg_count(p);
    if (!p->links) return n;
    while (s < n && !p->links[s]) s++;
    return s;
}

/// The closest point to q on the segments from s0 - 1 up to as far as
/// `reach` world units of path past the start of s0 (at least two segments),
/// and before segment `stop` (a link; seg_count: none).
static projection project_window(const st_path *p, int s0, st_vec2 q, double reach, int stop)
{
    int n = seg_count(p);
    projection best = {-1, 0.0, 0.0, ZERO};
    if (s0 > 0 && !st__path_link(p, s0 - 1)) project_seg(p, s0 - 1, q, &best);
    else if (s0 == 0 && p->loop && n > 2) project_seg(p, n - 1, q, &best);
    double walked = 0.0;
    for (int m = 0; m < n; m++) {
        int k = p->loop ? (s0 + m) % n : s0 + m;
        if (k >= n || (k >= stop && best.seg >= 0)) break;
        project_seg(p, k, q, &best);
        walked += st_v2_dist(seg_a(p, k), seg_b(p, k));
        if (m >= 1 && walked > reach) break;
    }
    return best;
}

/// The point `dist` further along the path than (seg, t); *end is set when
/// an open path ran out first (the result is then its last point), *link
/// when the walk met segment `stop` (a link; the result is its start).
static st_vec2 walk(const st_path *p, int seg, double t, double dist, int stop, bool *end, bool *link)
{
    int n = seg_count(p);
    *end = *link = false;
    double left = t + dist;
    for (int m = 0; m <= n; m++) {
        int k = p->loop ? (seg + m) % n : seg + m;
        if (k >= n) break;
        if (k >= stop) {
            *link = true;
            return p->points[stop];
        }
        st_vec2 a = seg_a(p, k), b = seg_b(p, k);
        double len = st_v2_dist(a, b);
        if (left <= len) return len > 0.0 ? st_v2_lerp(a, b, left / len) : a;
        left -= len;
    }
    if (p->loop) return seg_b(p, (seg + n - 1) % n); // dist longer than the loop: any point will do
    *end = true;
    return p->points[p->count - 1];
}

st_vec2 st__follow_path_predict(st_world *w, int i, const st_path *p, double predict, double ahead, double dt)
{
    if (!p || p->count < 1) return ZERO;
    const st_body *b = &w->bodies[i];
    st_agent *a = &w->agents[i];
    int n = seg_count(p);
    if (n < 1) return st__arrive(w, b, p->points[0], ST_ARRIVE_SLOWING_RADIUS, dt);
    // The progress kept is the waypoint at the end of the segment the agent
    // is on, as in "waypoints" mode (path_progress.c); seg is that segment.
    int seg;
    if (a->path != p) {
        // A new path: start from the segment nearest the agent (before any link).
        projection best = project_window(p, 0, b->pos, INFINITY, next_link(p, 0));
        if (st__path_link(p, best.seg) &&
            (st_world_distance(w, b->pos, p->points[0]) > p->radius || !st__link_reached(w, i, p, 0))) {
            a->path = NULL; // a path that begins with a link: to its start first
            return st__seek(w, b, p->points[0], dt);
        }
        a->path = p;
        seg = best.seg;
        a->path_index = (seg + 1) % p->count;
    } else {
        seg = seg_into(p, st_path_wrap_index(p, a->path_index));
    }
    if (st__path_link(p, seg)) {
        // On a link (links are on open paths): straight for its end, then on along the path.
        if (st_world_distance(w, b->pos, p->points[seg + 1]) > p->radius) return st__seek(w, b, p->points[seg + 1], dt);
        seg++;
        a->path_index = seg < n ? seg + 1 : seg;
        if (seg >= n) return st__arrive(w, b, p->points[seg], ST_ARRIVE_SLOWING_RADIUS, dt);
    }
    int stop = next_link(p, seg);
    if (stop < n && st_world_distance(w, b->pos, p->points[stop]) <= p->radius) {
        // At a link's start: across it once the event is recorded.
        if (!st__link_reached(w, i, p, stop)) return st__seek(w, b, p->points[stop], dt);
        a->path_index = stop + 1;
        return st__seek(w, b, p->points[stop + 1], dt);
    }
    double speed = st_v2_len(b->vel);
    double reach = (speed + b->max_speed) * fmax(predict, 0.0) + ahead + 2.0 * p->radius + b->max_speed * dt;
    if (!isfinite(reach)) reach = INFINITY;
    projection now = project_window(p, seg, b->pos, reach, stop);
    a->path_index = (now.seg + 1) % p->count;

    st_vec2 future = st_v2_add(b->pos, st_v2_scale(b->vel, predict));
    if (!st_v2_finite(future)) future = b->pos;
    projection fut = project_window(p, now.seg, future, reach, stop);
    bool end, link;
    st_vec2 target = walk(p, fut.seg, fut.t, ahead, stop, &end, &link);
    if (link) return st__seek(w, b, target, dt); // the link's start: no cutting across
    if (end) {
        // The end of an open path is in reach: arrive there.
        return st__arrive(w, b, target, ST_ARRIVE_SLOWING_RADIUS, dt);
    }
    if (fut.dist2 > p->radius * p->radius) return st__seek(w, b, target, dt);
    // Inside the corridor: carry on, up to max speed.
    st_vec2 dir = speed > 0.0 ? st_v2_scale(b->vel, 1.0 / speed) : st_v2_normalize_safe(st_v2_sub(target, b->pos));
    return st__steer_velocity(b, st_v2_scale(dir, b->max_speed), dt);
}
