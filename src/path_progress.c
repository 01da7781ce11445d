/*
 * path_progress.c — where an agent is along the path it follows: the
 * waypoint it heads for next (read and written) and the distance left.
 *
 * An agent's progress is one number, the index of the waypoint it heads for
 * next, in both follow_path modes: "waypoints" seeks that point; "predict"
 * is on the segment that ends at it (path_follow.c). The path itself is
 * named by the pointer follow_path last saw, which is only ever compared
 * (the caller owns paths and may have freed that one): the distance left is
 * asked of a path the caller hands in.
 */
#include <math.h>

#include "world_internal.h"
#include "geom.h"

const st_path *st_agent_path(const st_world *w, st_agent_id id)
{
    int i = st__dense(w, id);
    return i < 0 ? NULL : w->agents[i].path;
}

bool st_agent_set_path_index(st_world *w, st_agent_id id, int index)
{
    int i = st__dense(w, id);
    if (i < 0 || index < 0 || !w->agents[i].path) return false;
    w->agents[i].path_index = index;
    return true;
}

int st_path_wrap_index(const st_path *p, int index)
{
    if (index < 0) return 0;
    if (index < p->count) return index;
    return p->loop ? index % p->count : p->count - 1;
}

/// The waypoint after the point of the path nearest to pos (first of equals).
static int nearest_next(const st_path *p, st_vec2 pos)
{
    int segs = p->loop ? p->count : p->count - 1;
    if (segs < 1) return 0;
    int best = 0;
    double best_d2 = INFINITY;
    for (int k = 0; k < segs; k++) {
        st_vec2 a = p->points[k], b = p->points[(k + 1) % p->count];
        double d2 = st_v2_dist2(pos, st__closest_on_segment(pos, a, b));
        if (d2 < best_d2) {
            best_d2 = d2;
            best = k;
        }
    }
    return (best + 1) % p->count;
}

double st_path_remaining(const st_path *p, st_vec2 pos, int next)
{
    int n = p->count;
    next = next < 0 ? nearest_next(p, pos) : st_path_wrap_index(p, next);
    // The straight way to the waypoint it heads for (what "waypoints" mode
    // travels; on the path, the same as along it), then waypoint to
    // waypoint: to the last of an open path, round to the first of a loop.
    double rest = st_v2_dist(pos, p->points[next]);
    if (p->loop && next == 0) return rest;
    int last = p->loop ? n : n - 1;
    for (int k = next; k < last; k++) rest += st_v2_dist(p->points[k], p->points[(k + 1) % n]);
    return rest;
}
