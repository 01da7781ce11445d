/*
 * behavior_obstacles.c — the behaviours that keep an agent off the world's
 * geometry: avoid_obstacles (a detection box ahead), avoid_walls (three
 * feelers), contain (a rectangle), and the sensors they read, which the
 * app draws (st_agent_sensors).
 */
#include <float.h>
#include <math.h>

#include "behavior_internal.h"
#include "geom.h"
#include "obstacle.h"

/// Look-ahead (seconds of travel) used by contain.
#define ST_CONTAIN_LOOKAHEAD 0.5
/// Clearance kept from the world's edge by contain, beyond the agent's radius.
#define ST_CONTAIN_MARGIN 20.0
/// Shortest detection box of avoid_obstacles, beyond the agent's radius; it
/// doubles at max speed.
#define ST_OBSTACLE_BOX 50.0
/// Feeler length of avoid_walls at rest, beyond the agent's radius, and how
/// much it grows per unit of speed (seconds of travel).
#define ST_FEELER_LENGTH 30.0
#define ST_FEELER_LOOKAHEAD 0.4

static const st_vec2 ZERO = {0.0, 0.0};

/// Length of avoid_obstacles' detection box: grows with speed.
static double detection_box(const st_body *b)
{
    double speed = st_v2_len(b->vel);
    double min_box = ST_OBSTACLE_BOX + b->radius;
    return min_box * (1.0 + (b->max_speed > 0.0 ? fmin(speed / b->max_speed, 1.0) : 0.0));
}

/// Air kept around obstacles: the box is this much wider than the agent,
/// and inside this ring around an obstacle the agent is pushed straight out.
static double obstacle_margin(const st_body *b) { return 0.5 * b->radius + 2.0; }

/// avoid_walls' feelers, relative to the agent: ahead, and +-45 degrees at half length.
static void feelers_of(const st_body *b, st_vec2 out[3])
{
    double len = ST_FEELER_LENGTH + b->radius + st_v2_len(b->vel) * ST_FEELER_LOOKAHEAD;
    out[0] = st_v2_scale(b->heading, len);
    out[1] = st_v2_scale(st_v2_rotate(b->heading, 0.25 * ST_PI), 0.5 * len);
    out[2] = st_v2_scale(st_v2_rotate(b->heading, -0.25 * ST_PI), 0.5 * len);
}

bool st_agent_sensors(const st_world *w, st_agent_id id, st_sensors *out)
{
    int i = st__dense(w, id);
    if (i < 0 || !out) return false;
    const st_body *b = &w->bodies[i];
    out->box_length = detection_box(b);
    out->box_half_width = b->radius + obstacle_margin(b);
    feelers_of(b, out->feelers);
    for (int k = 0; k < 3; k++) out->feelers[k] = st_v2_add(b->pos, out->feelers[k]);
    return true;
}

/// avoid_obstacles for a polygon or polyline: inside the ring of air around
/// its outline (or inside a closed one) the agent is pushed straight out;
/// ahead in the box it counts as a hit like a circle's, at the nearest point.
static void poly_sense(const st_world *w, const st_obstacle *o, const st_body *b, double box, double margin,
                       st_vec2 *ring, double *closest_x, st_vec2 *closest_local, int *closest, int k)
{
    if (st_world_distance(w, b->pos, o->center) > o->radius + box + b->radius + margin) return;
    double r = b->radius + margin;
    bool inside;
    st_vec2 c = st__polygon_closest(w, o, b->pos, &inside);
    st_vec2 off = st__offset(w, b->pos, c);
    double d = st_v2_len(off);
    if (inside || d < r) {
        st_vec2 out = d > 0.0 ? st_v2_scale(off, (inside ? 1.0 : -1.0) / d) : st_v2_neg(b->heading);
        double depth = inside ? 1.0 : fmin(1.0, (r - d) / margin);
        *ring = st_v2_add(*ring, st_v2_scale(out, b->max_force * (0.5 + 0.5 * depth)));
    }
    double hx, hy;
    if (st__polygon_box_hit(w, o, b->pos, b->heading, box, r, &hx, &hy) && hx < *closest_x) {
        *closest_x = hx;
        *closest_local = st_v2(hx, hy);
        *closest = k;
    }
}

/// An avoidance's force f raised ST_AVOID_URGENCY times, at most that many
/// max_force long, and finite even for a max_force near DBL_MAX (where the
/// sum behind f may already have overflowed: no force then).
static st_vec2 shout(const st_body *b, st_vec2 f)
{
    st_vec2 g = st_v2_truncate_safe(st_v2_scale(f, ST_AVOID_URGENCY), fmin(ST_AVOID_URGENCY * b->max_force, DBL_MAX));
    return st_v2_finite(g) ? g : ZERO;
}

st_vec2 st__avoid_obstacles_force(const st_world *w, const st_body *b, double dt)
{
    (void)dt;
    if (w->obstacle_count == 0) return ZERO;
    double box = detection_box(b);
    double margin = obstacle_margin(b);
    st_vec2 h = b->heading, s = st_v2_perp(b->heading);

    int closest = -1;
    double closest_x = INFINITY;
    st_vec2 closest_local = ZERO;
    st_vec2 ring = ZERO;
    for (int k = 0; k < w->obstacle_count; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) {
            poly_sense(w, o, b, box, margin, &ring, &closest_x, &closest_local, &closest, k);
            continue;
        }
        double r = o->radius + b->radius + margin;
        st_vec2 off = st__offset(w, b->pos, o->center);
        double d2 = st_v2_len2(off);
        if (d2 < r * r) {
            // In the ring (or inside): out along the shortest way, harder the deeper.
            double d = sqrt(d2);
            st_vec2 out = d > 0.0 ? st_v2_scale(off, -1.0 / d) : st_v2_neg(h);
            double depth = fmin(1.0, (r - d) / margin);
            ring = st_v2_add(ring, st_v2_scale(out, b->max_force * (0.5 + 0.5 * depth)));
        }
        st_vec2 local = st_v2(st_v2_dot(off, h), st_v2_dot(off, s));
        // Obstacles alongside still count until they are behind us.
        if (local.x < -r || local.x - r > box || fabs(local.y) >= r) continue;
        // Where the path of our (expanded) body first touches the circle.
        double ix = local.x - sqrt(r * r - local.y * local.y);
        if (ix < closest_x) {
            closest_x = ix;
            closest = k;
            closest_local = local;
        }
    }
    st_vec2 f = ring;
    if (closest >= 0) {
        const st_obstacle *o = &w->obstacles[closest];
        double r = (o->kind == ST_OBSTACLE_CIRCLE ? o->radius : 0.0) + b->radius + margin;
        double urgency = 1.0 - fmax(closest_x, 0.0) / box; // 0 at the box's end, 1 at contact
        // Push sideways, away from the centre; dead centre goes to the +side
        // so the choice is stable from step to step.
        double away = closest_local.y > 0.0 ? -1.0 : 1.0;
        double overlap = (r - fabs(closest_local.y)) / r; // 1 dead centre, 0 grazing
        double lateral = away * b->max_force * fmin(1.0, 0.25 + urgency * (0.5 + overlap));
        double braking = closest_local.x > 0.0 ? -b->max_force * 0.5 * urgency * urgency * overlap : 0.0;
        f = st_v2_add(f, st_v2_add(st_v2_scale(h, braking), st_v2_scale(s, lateral)));
    }
    return shout(b, f);
}

/// Where segment p->p+d crosses segment a->b: fraction along p->p+d, or -1.
static double segment_hit(st_vec2 p, st_vec2 d, st_vec2 a, st_vec2 b)
{
    st_vec2 e = st_v2_sub(b, a);
    double den = st_v2_cross(d, e);
    if (den == 0.0) return -1.0;
    st_vec2 ap = st_v2_sub(a, p);
    double t = st_v2_cross(ap, e) / den;
    double u = st_v2_cross(ap, d) / den;
    if (t < 0.0 || t > 1.0 || u < 0.0 || u > 1.0) return -1.0;
    return t;
}

/// avoid_walls' look at one segment: the touch push, and the nearest hit of
/// each feeler.
typedef struct wall_sense {
    const st_body *b;
    st_vec2 feelers[3];
    st_vec2 touch;
    double best[3];
    st_vec2 from[3], normal[3];
} wall_sense;

static void wall_sense_segment(void *ctx, st_vec2 from, st_vec2 to)
{
    wall_sense *ws = ctx;
    const st_body *b = ws->b;
    st_vec2 normal = st_v2_perp(st_v2_normalize(st_v2_sub(to, from)));
    // Touching a wall: straight out, at full force.
    st_vec2 c = st__closest_on_segment(b->pos, from, to);
    st_vec2 out = st_v2_sub(b->pos, c);
    double d = st_v2_len(out);
    if (d < b->radius + 1.0) {
        st_vec2 n = d > 0.0 ? st_v2_scale(out, 1.0 / d) : normal;
        ws->touch = st_v2_add(ws->touch, st_v2_scale(n, b->max_force));
    }
    for (int fi = 0; fi < 3; fi++) {
        double t = segment_hit(b->pos, ws->feelers[fi], from, to);
        if (t >= 0.0 && t < ws->best[fi]) {
            ws->best[fi] = t;
            ws->from[fi] = from;
            ws->normal[fi] = normal;
        }
    }
}

st_vec2 st__avoid_walls_force(const st_world *w, const st_body *b, double dt)
{
    (void)dt;
    if (w->wall_count == 0 && w->obstacle_count == 0) return ZERO;
    wall_sense ws = {.b = b, .touch = ZERO, .best = {INFINITY, INFINITY, INFINITY}};
    feelers_of(b, ws.feelers);
    st__each_segment(w, wall_sense_segment, &ws);
    st_vec2 f = ws.touch;
    for (int fi = 0; fi < 3; fi++) {
        if (ws.best[fi] == INFINITY) continue;
        st_vec2 n = ws.normal[fi];
        if (st_v2_dot(n, st_v2_sub(b->pos, ws.from[fi])) < 0.0) n = st_v2_neg(n);
        double depth = 1.0 - ws.best[fi]; // share of the feeler past the wall
        double strength = fmin(1.0, 2.0 * depth) * (fi == 0 ? 1.0 : 0.75);
        f = st_v2_add(f, st_v2_scale(n, b->max_force * strength));
    }
    return shout(b, f);
}

/// Keeps the agent inside the rectangle rect = {x, y, w, h} (w <= 0 or
/// h <= 0, or anything not finite: the world's): when its position a look-ahead from now lies within
/// a margin of a side, it steers back in at full speed across that side.
st_vec2 st__contain_force(const st_world *w, const st_body *b, const double rect[4], double dt)
{
    double x0 = 0.0, y0 = 0.0, x1 = w->width, y1 = w->height;
    if (rect && rect[2] > 0.0 && rect[3] > 0.0 && st_finite(rect[0]) && st_finite(rect[1]) && st_finite(rect[2]) &&
        st_finite(rect[3]) && st_finite(rect[0] + rect[2]) && st_finite(rect[1] + rect[3])) {
        x0 = rect[0];
        y0 = rect[1];
        x1 = rect[0] + rect[2];
        y1 = rect[1] + rect[3];
    }
    // A margin no wider than half the rectangle, so a small pen still has an inside.
    double m = fmin(b->radius + ST_CONTAIN_MARGIN, 0.5 * fmin(x1 - x0, y1 - y0));
    st_vec2 pred = st_v2_add(b->pos, st_v2_scale(b->vel, ST_CONTAIN_LOOKAHEAD));
    st_vec2 desired = b->vel;
    bool out = false;
    if (pred.x < x0 + m) { desired.x = b->max_speed; out = true; }
    else if (pred.x > x1 - m) { desired.x = -b->max_speed; out = true; }
    if (pred.y < y0 + m) { desired.y = b->max_speed; out = true; }
    else if (pred.y > y1 - m) { desired.y = -b->max_speed; out = true; }
    if (!out) return ZERO;
    return st__steer_velocity(b, st_v2_truncate(desired, b->max_speed), dt);
}
