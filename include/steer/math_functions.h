/*
 * steer/math_functions.h — the core's math: sine, cosine, atan2 and hypot
 * with the same bits on every platform, and the 2D vector type with its
 * operations (all inline). Part of steer.h.
 */
#ifndef STEER_MATH_FUNCTIONS_H
#define STEER_MATH_FUNCTIONS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ST_PI 3.14159265358979323846

/* ------------------------------------------------------------------------ */
/* math with the same bits everywhere                                       */
/* ------------------------------------------------------------------------ */

/// Sine, cosine, atan2 and hypot from +, -, *, / and sqrt alone, which every
/// platform rounds alike: the same bits on Linux, Windows and macOS, where
/// each C library's own functions differ in the last bits (src/dmath.c).
/// The core and the vec2 functions below use only these, so a world steps
/// to the same checksum on every platform; a game in lockstep uses them too.
/// Within 2 ulp of the true sin and cos for |x| < 1.6e6, 4 ulp for atan2,
/// 2 for hypot; special values (NaN, infinities, signed zeros) as C's.
ST_API double st_sin(double x);
ST_API double st_cos(double x);
ST_API void st_sincos(double x, double *s, double *c);
ST_API double st_atan2(double y, double x);
ST_API double st_hypot(double x, double y);

/* ------------------------------------------------------------------------ */
/* vec2                                                                     */
/* ------------------------------------------------------------------------ */

/// A 2D vector in world units. Plain value type.
typedef struct st_vec2 {
    double x, y;
} st_vec2;

static inline st_vec2 st_v2(double x, double y) { st_vec2 v = {x, y}; return v; }
static inline st_vec2 st_v2_add(st_vec2 a, st_vec2 b) { return st_v2(a.x + b.x, a.y + b.y); }
static inline st_vec2 st_v2_sub(st_vec2 a, st_vec2 b) { return st_v2(a.x - b.x, a.y - b.y); }
static inline st_vec2 st_v2_scale(st_vec2 a, double s) { return st_v2(a.x * s, a.y * s); }
static inline st_vec2 st_v2_neg(st_vec2 a) { return st_v2(-a.x, -a.y); }
static inline double st_v2_dot(st_vec2 a, st_vec2 b) { return a.x * b.x + a.y * b.y; }
/// z of the 3D cross product: > 0 when b lies counter-clockwise of a (towards +y).
static inline double st_v2_cross(st_vec2 a, st_vec2 b) { return a.x * b.y - a.y * b.x; }
static inline double st_v2_len2(st_vec2 a) { return a.x * a.x + a.y * a.y; }
static inline double st_v2_len(st_vec2 a) { return sqrt(st_v2_len2(a)); }
static inline double st_v2_dist(st_vec2 a, st_vec2 b) { return st_v2_len(st_v2_sub(a, b)); }
static inline double st_v2_dist2(st_vec2 a, st_vec2 b) { return st_v2_len2(st_v2_sub(a, b)); }
/// (-y, x): the vector turned +90 degrees.
static inline st_vec2 st_v2_perp(st_vec2 a) { return st_v2(-a.y, a.x); }
static inline double st_v2_angle(st_vec2 a) { return st_atan2(a.y, a.x); }
/// Unit vector in the direction of a; the zero vector normalises to zero, never NaN.
static inline st_vec2 st_v2_normalize(st_vec2 a)
{
    double l = st_v2_len(a);
    return l > 0.0 ? st_v2(a.x / l, a.y / l) : st_v2(0.0, 0.0);
}
/// a shortened to at most max (max >= 0); shorter vectors are returned unchanged.
static inline st_vec2 st_v2_truncate(st_vec2 a, double max)
{
    double l2 = st_v2_len2(a);
    if (l2 > max * max && l2 > 0.0) {
        double s = max / sqrt(l2);
        return st_v2(a.x * s, a.y * s);
    }
    return a;
}
static inline st_vec2 st_v2_rotate(st_vec2 a, double rad)
{
    double c, s;
    st_sincos(rad, &s, &c);
    return st_v2(a.x * c - a.y * s, a.x * s + a.y * c);
}
static inline st_vec2 st_v2_from_angle(double rad, double len)
{
    double c, s;
    st_sincos(rad, &s, &c);
    return st_v2(c * len, s * len);
}
static inline st_vec2 st_v2_lerp(st_vec2 a, st_vec2 b, double t)
{
    return st_v2(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}
static inline bool st_finite(double d) { return isfinite(d) != 0; }
static inline bool st_v2_finite(st_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

/* Overflow- and underflow-safe forms: right for finite vectors of any size
 * (components past 1e154, whose squared length overflows, or below 1e-145,
 * whose squared length loses precision) and, for the direction, for infinite
 * components too. They agree with the plain forms everywhere else. */

/// |a| for any finite a.
static inline double st_v2_len_safe(st_vec2 a)
{
    double l2 = st_v2_len2(a);
    return l2 > 1e-290 && isfinite(l2) ? sqrt(l2) : st_hypot(a.x, a.y);
}

/// Unit vector along a (zero for zero); infinite components count as +-1
/// and the finite ones beside them as 0.
static inline st_vec2 st_v2_normalize_safe(st_vec2 a)
{
    double l2 = st_v2_len2(a);
    if (l2 > 1e-290 && isfinite(l2)) return st_v2_normalize(a);
    if (isinf(a.x) || isinf(a.y))
        return st_v2_normalize(st_v2(isinf(a.x) ? copysign(1.0, a.x) : 0.0, isinf(a.y) ? copysign(1.0, a.y) : 0.0));
    double m = fmax(fabs(a.x), fabs(a.y)); // scale first: the squared length lost precision or overflowed
    return m > 0.0 && isfinite(m) ? st_v2_normalize(st_v2(a.x / m, a.y / m)) : st_v2(0.0, 0.0);
}

/// a shortened to at most max (max >= 0), for any a without NaN.
static inline st_vec2 st_v2_truncate_safe(st_vec2 a, double max)
{
    double l2 = st_v2_len2(a);
    if (l2 > 1e-290 && isfinite(l2)) return st_v2_truncate(a, max);
    return st_v2_len_safe(a) <= max ? a : st_v2_scale(st_v2_normalize_safe(a), max);
}

#ifdef __cplusplus
}
#endif

#endif /* STEER_MATH_FUNCTIONS_H */
