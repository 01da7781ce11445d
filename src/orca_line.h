/*
 * orca_line.h — the half-plane an ORCA agent keeps against a disc (another
 * agent, or a circle obstacle), van den Berg et al. 2011, section 5.
 *
 * orca_line_plain is the one definition, in plain C with the paper's cases
 * named. The pass runs faster forms of it where SSE2 is there: one line in
 * a register pair (orca_line_sse2) and two lines at once, one in each lane
 * (orca_lines2_sse2). Each does exactly the definition's operations in the
 * same order, so all three give the same bits; tests/c/test_orca_line.c
 * checks them against the definition on random and edge-case inputs.
 */
#ifndef STEER_ORCA_LINE_H
#define STEER_ORCA_LINE_H

#include <math.h>
#include <string.h>

#include "grid_iter.h"
#include "orca.h"

#if ORCA_SSE2
#include <emmintrin.h>
#endif

/// The half-plane of two discs that already overlap: get apart within this
/// step (orca_solve.c). `first` (this agent's serial is the lower) picks a
/// side when the two are exactly on top of each other.
line orca_line_overlap(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share, double inv_dt,
                       bool first);

/// c ? a : b by bit masks: the compiler keeps `?:` on doubles as a
/// branch, which mispredicts where c comes in no order.
static inline st_vec2 pick2(bool c, st_vec2 a, st_vec2 b)
{
#if ORCA_SSE2
    __m128d m = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)c));
    __m128d r = _mm_or_pd(_mm_and_pd(m, _mm_set_pd(a.y, a.x)), _mm_andnot_pd(m, _mm_set_pd(b.y, b.x)));
    return st_v2(_mm_cvtsd_f64(r), _mm_cvtsd_f64(_mm_unpackhi_pd(r, r)));
#else
    uint64_t m = 0u - (uint64_t)c, ax, ay, bx, by;
    memcpy(&ax, &a.x, 8);
    memcpy(&ay, &a.y, 8);
    memcpy(&bx, &b.x, 8);
    memcpy(&by, &b.y, 8);
    ax = (ax & m) | (bx & ~m);
    ay = (ay & m) | (by & ~m);
    memcpy(&a.x, &ax, 8);
    memcpy(&a.y, &ay, 8);
    return a;
#endif
}

/// The half-plane for a disc of `rsum` at relative position `rel` moving at
/// `vel_other`, seen by an agent at velocity `vel` that takes `share` of the
/// avoiding, with horizon `inv_h` = 1 / horizon and step `inv_dt`.
///
/// The velocity obstacle is the cone of relative velocities that bring the
/// two within rsum before the horizon: its apex at the origin, its legs
/// tangent to the disc of rsum around rel, truncated by the cut-off circle
/// of rsum / horizon around rel / horizon. The relative velocity's nearest
/// point on that boundary gives u, the smallest change that leaves the
/// obstacle; this agent takes `share` of it. The paper's cases (RVO2's
/// "project on cut-off circle" and "project on legs"), worked out on w, the
/// relative velocity seen from the cut-off circle's centre:
///  - on the cut-off circle: w points back towards the apex (w . rel < 0)
///    and lies inside the cone's angle there ((w . rel)^2 > rsum^2 |w|^2);
///  - else on a leg: the left one when w turns left of rel, else the right
///    one, which is the left one's formula with -rsum, negated.
/// Which case comes in no order a predictor can learn: every case is worked
/// out and one kept by a mask, no branch. One square root and one division,
/// of the case it takes: sqrt(|w|^2) and 1 / |w| on the cut-off circle,
/// sqrt(d2 - rsum^2) (the leg's length) and 1 / d2 on a leg.
static inline line orca_line_plain(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share,
                                   double inv_h, double inv_dt, bool first)
{
    st_vec2 rv = st_v2_sub(vel, vel_other);
    double d2 = st_v2_len2(rel), r2 = rsum * rsum;
    if (!(d2 > r2)) return orca_line_overlap(rel, vel, vel_other, rsum, share, inv_dt, first);
    st_vec2 wv = st_v2_sub(rv, st_v2_scale(rel, inv_h));
    double wl2 = st_v2_len2(wv);
    double dot1 = st_v2_dot(wv, rel);
    bool on_cutoff = (dot1 < 0.0) & (dot1 * dot1 > r2 * wl2);
    double root = sqrt(on_cutoff ? wl2 : d2 - r2), recip = 1.0 / (on_cutoff ? root : d2);
    // Project on the cut-off circle: along w, out to its rim.
    st_vec2 uw = st_v2_scale(wv, recip);
    st_vec2 cut_dir = st_v2(uw.y, -uw.x);
    st_vec2 cut_u = st_v2_scale(uw, rsum * inv_h - root);
    // Project on a leg: the leg's direction, and the relative velocity's
    // projection on it.
    bool on_left_leg = det(rel, wv) > 0.0;
    double sign = 2 * (int)on_left_leg - 1, rs = rsum * sign, inv = recip * sign;
    st_vec2 leg_dir = st_v2_scale(st_v2(rel.x * root - rel.y * rs, rel.x * rs + rel.y * root), inv);
    st_vec2 leg_u = st_v2_sub(st_v2_scale(leg_dir, st_v2_dot(rv, leg_dir)), rv);
    line L;
    L.direction = pick2(on_cutoff, cut_dir, leg_dir);
    L.point = st_v2_add(vel, st_v2_scale(pick2(on_cutoff, cut_u, leg_u), share));
    return L;
}

#if ORCA_SSE2
/// The vector operations of steer.h on both lanes at once, each lane
/// rounded as the scalar code rounds it; sums of two lanes add x then y.
typedef __m128d v2d;
static inline v2d v2d_of(st_vec2 a) { return _mm_loadu_pd(&a.x); }
static inline st_vec2 st_of(v2d a)
{
    st_vec2 r;
    _mm_storeu_pd(&r.x, a);
    return r;
}
static inline v2d v2d_dot(v2d a, v2d b)
{
    v2d p = _mm_mul_pd(a, b);
    return _mm_add_sd(p, _mm_unpackhi_pd(p, p));
}
static inline v2d v2d_det(v2d a, v2d b)
{
    v2d p = _mm_mul_pd(a, _mm_shuffle_pd(b, b, 1));
    return _mm_sub_sd(p, _mm_unpackhi_pd(p, p));
}
static inline double lane0(v2d a) { return _mm_cvtsd_f64(a); }
static inline v2d v2d_pick(bool c, v2d a, v2d b)
{
    v2d m = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)c));
    return _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b));
}
static inline v2d v2d_blend(v2d mask, v2d a, v2d b) { return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b)); }

/// orca_line_plain with x and y in one register: the same cases, the same
/// operations.
ST__INLINE line orca_line_sse2(st_vec2 rel_, st_vec2 vel_, st_vec2 vel_other, double rsum, double share, double inv_h,
                               double inv_dt, bool first)
{
    const v2d rel = v2d_of(rel_), vel = v2d_of(vel_), rv = _mm_sub_pd(vel, v2d_of(vel_other));
    double d2 = lane0(v2d_dot(rel, rel)), r2 = rsum * rsum;
    if (!(d2 > r2)) return orca_line_overlap(rel_, vel_, vel_other, rsum, share, inv_dt, first);
    v2d wv = _mm_sub_pd(rv, _mm_mul_pd(rel, _mm_set1_pd(inv_h)));
    double wl2 = lane0(v2d_dot(wv, wv)), dot1 = lane0(v2d_dot(wv, rel));
    bool on_cutoff = (dot1 < 0.0) & (dot1 * dot1 > r2 * wl2);
    double root = sqrt(on_cutoff ? wl2 : d2 - r2), recip = 1.0 / (on_cutoff ? root : d2);
    v2d uw = _mm_mul_pd(wv, _mm_set1_pd(recip));
    v2d cut_dir = _mm_xor_pd(_mm_shuffle_pd(uw, uw, 1), _mm_set_pd(-0.0, 0.0)); // (uw.y, -uw.x)
    v2d cut_u = _mm_mul_pd(uw, _mm_set1_pd(rsum * inv_h - root));
    bool on_left_leg = lane0(v2d_det(rel, wv)) > 0.0;
    double sign = 2 * (int)on_left_leg - 1, rs = rsum * sign, inv = recip * sign;
    // (rel.x leg - rel.y rs, rel.x rs + rel.y leg) / d2: the x lane adds the
    // negated product, which is what subtracting it does.
    v2d a = _mm_mul_pd(_mm_unpacklo_pd(rel, rel), _mm_set_pd(rs, root));
    v2d b = _mm_mul_pd(_mm_unpackhi_pd(rel, rel), _mm_set_pd(root, rs));
    v2d leg_dir = _mm_mul_pd(_mm_add_pd(a, _mm_xor_pd(b, _mm_set_pd(0.0, -0.0))), _mm_set1_pd(inv));
    v2d dot2 = v2d_dot(rv, leg_dir);
    v2d leg_u = _mm_sub_pd(_mm_mul_pd(leg_dir, _mm_unpacklo_pd(dot2, dot2)), rv);
    line L;
    L.direction = st_of(v2d_pick(on_cutoff, cut_dir, leg_dir));
    L.point = st_of(_mm_add_pd(vel, _mm_mul_pd(v2d_pick(on_cutoff, cut_u, leg_u), _mm_set1_pd(share))));
    return L;
}

/// Two lines of orca_line_plain at once, one in each lane, x and y in
/// separate registers: (relx, rely) the relative positions, (rvx, rvy) the
/// relative velocities, (vx, vy) this agent's velocity in both lanes.
/// Writes the lines' points and directions; returns the lanes that overlap
/// (bit 0, bit 1), whose results are not the definition's: the caller makes
/// those with orca_line_overlap.
ST__INLINE int orca_lines2_sse2(v2d relx, v2d rely, v2d rvx, v2d rvy, v2d vx, v2d vy, v2d rsum, v2d share,
                                double inv_h, v2d *px, v2d *py, v2d *dirx, v2d *diry)
{
    const v2d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd(), ih = _mm_set1_pd(inv_h);
    v2d d2 = _mm_add_pd(_mm_mul_pd(relx, relx), _mm_mul_pd(rely, rely)), r2 = _mm_mul_pd(rsum, rsum);
    int over = _mm_movemask_pd(_mm_cmpngt_pd(d2, r2));
    v2d wvx = _mm_sub_pd(rvx, _mm_mul_pd(relx, ih)), wvy = _mm_sub_pd(rvy, _mm_mul_pd(rely, ih));
    v2d wl2 = _mm_add_pd(_mm_mul_pd(wvx, wvx), _mm_mul_pd(wvy, wvy));
    v2d dot1 = _mm_add_pd(_mm_mul_pd(wvx, relx), _mm_mul_pd(wvy, rely));
    v2d on_cutoff =
        _mm_and_pd(_mm_cmplt_pd(dot1, zero), _mm_cmpgt_pd(_mm_mul_pd(dot1, dot1), _mm_mul_pd(r2, wl2)));
    v2d root = _mm_sqrt_pd(v2d_blend(on_cutoff, wl2, _mm_sub_pd(d2, r2)));
    v2d recip = _mm_div_pd(one, v2d_blend(on_cutoff, root, d2));
    // Project on the cut-off circle.
    v2d uwx = _mm_mul_pd(wvx, recip), uwy = _mm_mul_pd(wvy, recip);
    v2d cc = _mm_sub_pd(_mm_mul_pd(rsum, ih), root);
    // Project on a leg: the left one, or the right one by sign.
    v2d on_left_leg = _mm_cmpgt_pd(_mm_sub_pd(_mm_mul_pd(relx, wvy), _mm_mul_pd(rely, wvx)), zero);
    v2d sign = v2d_blend(on_left_leg, one, _mm_set1_pd(-1.0));
    v2d rs = _mm_mul_pd(rsum, sign), inv = _mm_mul_pd(recip, sign);
    v2d ldx = _mm_mul_pd(_mm_sub_pd(_mm_mul_pd(relx, root), _mm_mul_pd(rely, rs)), inv);
    v2d ldy = _mm_mul_pd(_mm_add_pd(_mm_mul_pd(relx, rs), _mm_mul_pd(rely, root)), inv);
    v2d dot2 = _mm_add_pd(_mm_mul_pd(rvx, ldx), _mm_mul_pd(rvy, ldy));
    v2d lux = _mm_sub_pd(_mm_mul_pd(ldx, dot2), rvx), luy = _mm_sub_pd(_mm_mul_pd(ldy, dot2), rvy);
    *dirx = v2d_blend(on_cutoff, uwy, ldx);
    *diry = v2d_blend(on_cutoff, _mm_xor_pd(uwx, _mm_set1_pd(-0.0)), ldy);
    v2d ux = v2d_blend(on_cutoff, _mm_mul_pd(uwx, cc), lux), uy = v2d_blend(on_cutoff, _mm_mul_pd(uwy, cc), luy);
    *px = _mm_add_pd(vx, _mm_mul_pd(ux, share));
    *py = _mm_add_pd(vy, _mm_mul_pd(uy, share));
    return over;
}
#endif

/// The form of orca_line_plain the pass uses for one line.
ST__INLINE line orca_disc_line(st_vec2 rel, st_vec2 vel, st_vec2 vel_other, double rsum, double share, double inv_h,
                               double inv_dt, bool first)
{
#if ORCA_SSE2
    return orca_line_sse2(rel, vel, vel_other, rsum, share, inv_h, inv_dt, first);
#else
    return orca_line_plain(rel, vel, vel_other, rsum, share, inv_h, inv_dt, first);
#endif
}

#endif
