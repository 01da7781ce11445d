/*
 * orca_solve.c — ORCA's linear programs and the half-planes of obstacle
 * edges (van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision
 * avoidance", 2011, sections 5.2 and 6; RVO2's representation of
 * obstacles). The agent–agent half-plane is orca_line.h's.
 */
#include <math.h>

#include "orca_line.h"
#include "orca_solve.h"

/* ------------------------------------------------------------------------ */
/* linear programs                                                          */
/* ------------------------------------------------------------------------ */

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

// The pass calls these: each built for plain x86-64 and for AVX (ORCA_PER_CPU).
ORCA_PER_CPU int orca_lp2(const line *lines, int n, double r, st_vec2 opt, bool dir_opt, st_vec2 *result)
{
    return lp2(lines, n, r, opt, dir_opt, result);
}

ORCA_PER_CPU void orca_lp3(const line *lines, int n, int n_obst, int begin, double r, st_vec2 *result)
{
    lp3(lines, n, n_obst, begin, r, result);
}

/* ------------------------------------------------------------------------ */
/* half-planes                                                              */
/* ------------------------------------------------------------------------ */

/// Two discs that already overlap: the half-plane that gets them apart
/// within this step, this agent taking `share` of it.
line orca_line_overlap(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share, double inv_dt,
                       bool first)
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

/// Is the obstacle edge's velocity obstacle already inside a line made so far?
bool orca_covered(const line *lines, int n, st_vec2 rel1, st_vec2 rel2, double inv_h, double radius)
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
bool orca_edge_line(const overt *verts, int ia, st_vec2 rel1, st_vec2 rel2, st_vec2 vel, double radius, double inv_h,
                    line *out)
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
