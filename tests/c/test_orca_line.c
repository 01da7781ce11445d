/*
 * test_orca_line.c — the agent–agent half-plane has one definition
 * (orca_line_plain in src/orca_line.h); the pass runs its SSE2 forms, one
 * line at a time and two at once. Every form must give the definition's
 * bits on every input, or the checksums would depend on which form ran.
 * Also checks the definition against the geometry it claims: the velocity
 * on the line's boundary nearest the current one, moved by the whole of u
 * (share 1), leaves the two discs just touching at the horizon.
 */
#include <stdint.h>

#include "orca_line.h"
#include "rng.h"
#include "test_util.h"

static double uniform(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * (double)(st_rng_next(s) >> 11) * 0x1.0p-53;
}

static bool same_bits(line a, line b) { return memcmp(&a, &b, sizeof a) == 0; }

typedef struct input {
    st_vec2 rel, vel, other;
    double rsum, share, inv_h, inv_dt;
    bool first;
} input;

static input random_input(uint64_t *s)
{
    input in;
    double scale = uniform(s, 0.0, 1.0) < 0.1 ? 1e-3 : uniform(s, 0.0, 1.0) < 0.1 ? 1e4 : 1.0;
    in.rel = st_v2(uniform(s, -20, 20) * scale, uniform(s, -20, 20) * scale);
    in.vel = st_v2(uniform(s, -5, 5), uniform(s, -5, 5));
    in.other = st_v2(uniform(s, -5, 5), uniform(s, -5, 5));
    in.rsum = uniform(s, 0.1, 6.0) * scale;
    in.share = uniform(s, 0.0, 1.0) < 0.5 ? 0.5 : uniform(s, 0.0, 1.0);
    in.inv_h = 1.0 / uniform(s, 0.1, 10.0);
    in.inv_dt = 60.0;
    in.first = st_rng_next(s) & 1;
    // Edge cases: exactly touching, exactly on top, velocities equal,
    // symmetric (rel along an axis, relative velocity along rel).
    switch (st_rng_next(s) % 8) {
    case 0: in.rel = st_v2(in.rsum, 0.0); break;
    case 1: in.rel = st_v2(0.0, 0.0); break;
    case 2: in.other = in.vel; break;
    case 3: in.other = st_v2_add(in.vel, st_v2_scale(in.rel, 0.5)); break;
    default: break;
    }
    return in;
}

static line plain_of(const input *in)
{
    return orca_line_plain(in->rel, in->vel, in->other, in->rsum, in->share, in->inv_h, in->inv_dt, in->first);
}

static void test_forms_agree(void)
{
    uint64_t s = 0x5eed0ca1u;
    int n = 200000, wrong1 = 0, wrong2 = 0, cut = 0, leg = 0;
    for (int k = 0; k < n; k += 2) {
        input a = random_input(&s), b = random_input(&s);
        // The two-lane form makes two lines of one agent: one velocity and
        // horizon for both lanes.
        b.vel = a.vel;
        b.inv_h = a.inv_h;
        line pa = plain_of(&a), pb = plain_of(&b);
        line oa = orca_disc_line(a.rel, a.vel, a.other, a.rsum, a.share, a.inv_h, a.inv_dt, a.first);
        wrong1 += !same_bits(pa, oa);
        // Which case the definition took, to show both are covered.
        st_vec2 wv = st_v2_sub(st_v2_sub(a.vel, a.other), st_v2_scale(a.rel, a.inv_h));
        double dot1 = st_v2_dot(wv, a.rel);
        if (st_v2_len2(a.rel) > a.rsum * a.rsum) {
            if (dot1 < 0.0 && dot1 * dot1 > a.rsum * a.rsum * st_v2_len2(wv)) cut++;
            else leg++;
        }
#if ORCA_SSE2
        __m128d vel = _mm_set_pd(a.vel.y, a.vel.x);
        __m128d vx = _mm_unpacklo_pd(vel, vel), vy = _mm_unpackhi_pd(vel, vel);
        __m128d relx = _mm_set_pd(b.rel.x, a.rel.x), rely = _mm_set_pd(b.rel.y, a.rel.y);
        __m128d rvx = _mm_sub_pd(vx, _mm_set_pd(b.other.x, a.other.x));
        __m128d rvy = _mm_sub_pd(vy, _mm_set_pd(b.other.y, a.other.y));
        __m128d px, py, dx, dy;
        int over = orca_lines2_sse2(relx, rely, rvx, rvy, vx, vy, _mm_set_pd(b.rsum, a.rsum),
                                    _mm_set_pd(b.share, a.share), a.inv_h, &px, &py, &dx, &dy);
        double pxs[2], pys[2], dxs[2], dys[2];
        _mm_storeu_pd(pxs, px);
        _mm_storeu_pd(pys, py);
        _mm_storeu_pd(dxs, dx);
        _mm_storeu_pd(dys, dy);
        line two[2] = {{{pxs[0], pys[0]}, {dxs[0], dys[0]}}, {{pxs[1], pys[1]}, {dxs[1], dys[1]}}};
        // Overlapping lanes are the caller's (orca_line_overlap): the
        // two-lane form says which, and they must be exactly those.
        bool over_a = !(st_v2_len2(a.rel) > a.rsum * a.rsum), over_b = !(st_v2_len2(b.rel) > b.rsum * b.rsum);
        if (!CHECK(((over & 1) != 0) == over_a && ((over & 2) != 0) == over_b, "overlap lanes %d", over)) break;
        if (!over_a) wrong2 += !same_bits(pa, two[0]);
        if (!over_b) wrong2 += !same_bits(pb, two[1]);
#endif
    }
    CHECK(wrong1 == 0, "%d of %d one-line results differ from the definition", wrong1, n / 2);
    CHECK(wrong2 == 0, "%d two-lane results differ from the definition", wrong2);
    CHECK(cut > 1000 && leg > 1000, "both cases exercised: %d cut-off, %d leg", cut, leg);
}

/// With share 1 the line's point is the current velocity moved by u, the
/// smallest change out of the velocity obstacle: from there the relative
/// motion just touches the disc of rsum within the horizon (not before,
/// and the line's direction is tangent there).
static void test_geometry(void)
{
    uint64_t s = 0x9e0de7u;
    int checked = 0;
    for (int k = 0; k < 20000; k++) {
        input in = random_input(&s);
        in.share = 1.0;
        if (!(st_v2_len2(in.rel) > 1.01 * in.rsum * in.rsum)) continue;
        line L = plain_of(&in);
        if (!CHECK(st_v2_finite(L.point) && st_v2_finite(L.direction), "finite")) return;
        if (!CHECK(fabs(st_v2_len(L.direction) - 1.0) < 1e-9, "unit direction %g", st_v2_len(L.direction))) return;
        // The relative velocity at the line's point, and the closest the
        // two come within the horizon moving at it.
        st_vec2 rv = st_v2_sub(L.point, in.other);
        double h = 1.0 / in.inv_h;
        double t = st_v2_len2(rv) > 0.0 ? st_v2_dot(in.rel, rv) / st_v2_len2(rv) : 0.0;
        t = t < 0.0 ? 0.0 : t > h ? h : t;
        double closest = st_v2_len(st_v2_sub(in.rel, st_v2_scale(rv, t)));
        double tol = 1e-6 * (in.rsum + st_v2_len(in.rel));
        if (!CHECK(closest >= in.rsum - tol, "the point is outside the obstacle: closest %.9g, rsum %.9g", closest,
                   in.rsum))
            return;
        checked++;
    }
    CHECK(checked > 5000, "%d inputs checked", checked);
}

int main(void)
{
    RUN(test_forms_agree);
    RUN(test_geometry);
    return tu_summary();
}
