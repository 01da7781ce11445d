/*
 * geom.h — small inline geometry the core's modules share: the closest
 * point of a segment, view cones.
 */
#ifndef STEER_GEOM_H
#define STEER_GEOM_H

#include <math.h>
#include "steer.h"

/// The point of segment a-b closest to p.
static inline st_vec2 st__closest_on_segment(st_vec2 p, st_vec2 a, st_vec2 b)
{
    st_vec2 e = st_v2_sub(b, a);
    double l2 = st_v2_len2(e);
    double t = l2 > 0.0 ? st_v2_dot(st_v2_sub(p, a), e) / l2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return st_v2_add(a, st_v2_scale(e, t));
}

/// Is `offset` (length^2 dist2) inside the cone of half-angle acos(cos_half)
/// around the unit `heading`? No square root: compares squares by sign.
static inline bool st__in_cone(st_vec2 offset, double dist2, st_vec2 heading, double cos_half)
{
    double dot = offset.x * heading.x + offset.y * heading.y;
    double c2 = cos_half * cos_half * dist2;
    if (cos_half >= 0.0) return dot >= 0.0 && dot * dot >= c2;
    return dot >= 0.0 || dot * dot <= c2;
}

static inline bool st__in_view(st_vec2 offset, double dist2, st_vec2 heading, double cos_half)
{
    // cos_half <= -1 means all around; an agent on top of us is always seen.
    if (cos_half <= -1.0 || dist2 <= 0.0) return true;
    return st_v2_dot(offset, heading) >= cos_half * sqrt(dist2);
}

#endif
