/*
 * test_vec2.c — the vector maths every behaviour stands on: zero normalises to
 * zero (never NaN), truncate caps length and keeps direction, rotation turns
 * from +x towards +y, from_angle and angle are inverses.
 */
#include "test_util.h"

static void normalize_zero_is_zero(void)
{
    st_vec2 z = st_v2_normalize(st_v2(0.0, 0.0));
    CHECK(z.x == 0.0 && z.y == 0.0, "normalize(0,0) = (%g, %g)", z.x, z.y);
    st_vec2 nz = st_v2_normalize(st_v2(-0.0, -0.0));
    CHECK(st_v2_finite(nz) && nz.x == 0.0 && nz.y == 0.0, "normalize(-0,-0) = (%g, %g)", nz.x, nz.y);
    /* A denormal-sized vector still gives a finite unit vector or zero. */
    st_vec2 tiny = st_v2_normalize(st_v2(4.9e-324, 0.0));
    CHECK(st_v2_finite(tiny), "normalize(denormal) = (%g, %g)", tiny.x, tiny.y);
}

static void normalize_gives_unit_length(void)
{
    st_vec2 n = st_v2_normalize(st_v2(3.0, 4.0));
    CHECK(tu_close(n.x, 0.6, 1e-15) && tu_close(n.y, 0.8, 1e-15), "normalize(3,4) = (%.17g, %.17g)", n.x, n.y);
    tu_rng r = {42};
    for (int i = 0; i < 1000; i++) {
        double scale = pow(10.0, tu_uniform(&r, -100, 100));
        st_vec2 v = st_v2(tu_uniform(&r, -1, 1) * scale, tu_uniform(&r, -1, 1) * scale);
        st_vec2 u = st_v2_normalize(v);
        if (!CHECK(fabs(st_v2_len(u) - 1.0) < 1e-12, "|normalize(%g, %g)| = %.17g", v.x, v.y, st_v2_len(u)))
            break;
        /* same direction */
        if (!CHECK(st_v2_dot(u, v) > 0.0 && fabs(st_v2_cross(u, st_v2_scale(v, 1.0 / scale))) < 1e-12,
                   "normalize(%g, %g) = (%g, %g) changed direction", v.x, v.y, u.x, u.y))
            break;
    }
}

static void truncate_caps_length(void)
{
    st_vec2 t = st_v2_truncate(st_v2(30.0, 40.0), 10.0);
    CHECK(tu_close(t.x, 6.0, 1e-15) && tu_close(t.y, 8.0, 1e-15), "truncate((30,40), 10) = (%.17g, %.17g)", t.x, t.y);
    st_vec2 s = st_v2_truncate(st_v2(3.0, 4.0), 10.0);
    CHECK(s.x == 3.0 && s.y == 4.0, "shorter vector changed: (%g, %g)", s.x, s.y);
    st_vec2 e = st_v2_truncate(st_v2(3.0, 4.0), 5.0);
    CHECK(e.x == 3.0 && e.y == 4.0, "vector of exactly max length changed: (%g, %g)", e.x, e.y);
    st_vec2 zmax = st_v2_truncate(st_v2(3.0, 4.0), 0.0);
    CHECK(zmax.x == 0.0 && zmax.y == 0.0, "truncate(v, 0) = (%g, %g)", zmax.x, zmax.y);
    st_vec2 zz = st_v2_truncate(st_v2(0.0, 0.0), 0.0);
    CHECK(zz.x == 0.0 && zz.y == 0.0, "truncate(0, 0) = (%g, %g)", zz.x, zz.y);

    tu_rng r = {7};
    for (int i = 0; i < 1000; i++) {
        st_vec2 v = st_v2(tu_uniform(&r, -500, 500), tu_uniform(&r, -500, 500));
        double max = tu_uniform(&r, 0, 400);
        st_vec2 u = st_v2_truncate(v, max);
        double lv = st_v2_len(v), lu = st_v2_len(u);
        if (!CHECK(lu <= max * (1 + 1e-12) && tu_close(lu, lv < max ? lv : max, 1e-12),
                   "|truncate(%g,%g ; %g)| = %.17g", v.x, v.y, max, lu))
            break;
        if (max > 0 && !CHECK(fabs(st_v2_cross(st_v2_normalize(u), st_v2_normalize(v))) < 1e-12 && st_v2_dot(u, v) > 0,
                              "truncate turned (%g,%g) into (%g,%g)", v.x, v.y, u.x, u.y))
            break;
    }
}

static void rotate_turns_towards_plus_y(void)
{
    st_vec2 q = st_v2_rotate(st_v2(1.0, 0.0), TU_PI / 2);
    CHECK(fabs(q.x) < 1e-15 && tu_close(q.y, 1.0, 1e-15), "rotate((1,0), pi/2) = (%g, %g)", q.x, q.y);
    st_vec2 h = st_v2_rotate(st_v2(2.0, 0.0), TU_PI);
    CHECK(tu_close(h.x, -2.0, 1e-15) && fabs(h.y) < 1e-15, "rotate((2,0), pi) = (%g, %g)", h.x, h.y);
    st_vec2 p = st_v2_perp(st_v2(3.0, 4.0));
    st_vec2 pr = st_v2_rotate(st_v2(3.0, 4.0), TU_PI / 2);
    CHECK(tu_v2_close(p, pr, 1e-14), "perp (%g,%g) != rotate +90 (%g,%g)", p.x, p.y, pr.x, pr.y);
    CHECK(st_v2_cross(st_v2(1, 0), st_v2(0, 1)) > 0, "cross((1,0),(0,1)) = %g", st_v2_cross(st_v2(1, 0), st_v2(0, 1)));

    tu_rng r = {99};
    for (int i = 0; i < 1000; i++) {
        st_vec2 v = st_v2(tu_uniform(&r, -100, 100), tu_uniform(&r, -100, 100));
        double a = tu_uniform(&r, -10, 10);
        st_vec2 u = st_v2_rotate(v, a);
        st_vec2 back = st_v2_rotate(u, -a);
        if (!CHECK(tu_close(st_v2_len(u), st_v2_len(v), 1e-12), "rotate changed length %g -> %g", st_v2_len(v),
                   st_v2_len(u)))
            break;
        if (!CHECK(tu_v2_close(back, v, 1e-11), "rotate(rotate(v, a), -a) = (%g,%g), v = (%g,%g)", back.x, back.y, v.x,
                   v.y))
            break;
        /* the angle turned is a (mod 2 pi) */
        double turned = remainder(st_v2_angle(u) - st_v2_angle(v) - a, 2 * TU_PI);
        if (!CHECK(fabs(turned) < 1e-9, "rotate by %g turned by %g more", a, turned))
            break;
    }
}

static void from_angle_and_angle_are_inverse(void)
{
    st_vec2 a = st_v2_from_angle(0.0, 2.0);
    CHECK(a.x == 2.0 && a.y == 0.0, "from_angle(0, 2) = (%g, %g)", a.x, a.y);
    st_vec2 b = st_v2_from_angle(TU_PI / 2, 1.0);
    CHECK(fabs(b.x) < 1e-15 && tu_close(b.y, 1.0, 1e-15), "from_angle(pi/2) = (%g, %g)", b.x, b.y);
    for (int i = -179; i <= 180; i++) {
        double ang = i * TU_PI / 180.0;
        double len = 0.5 + (i + 180) * 0.1;
        st_vec2 v = st_v2_from_angle(ang, len);
        if (!CHECK(fabs(st_v2_angle(v) - ang) < 1e-12 && tu_close(st_v2_len(v), len, 1e-12),
                   "from_angle(%g, %g) has angle %g, len %g", ang, len, st_v2_angle(v), st_v2_len(v)))
            break;
    }
}

static void lerp_dist_dot(void)
{
    st_vec2 a = st_v2(1, 2), b = st_v2(5, -6);
    st_vec2 m = st_v2_lerp(a, b, 0.5);
    CHECK(m.x == 3 && m.y == -2, "lerp mid = (%g, %g)", m.x, m.y);
    st_vec2 l0 = st_v2_lerp(a, b, 0.0), l1 = st_v2_lerp(a, b, 1.0);
    CHECK(l0.x == a.x && l0.y == a.y && l1.x == b.x && l1.y == b.y, "lerp ends (%g,%g) (%g,%g)", l0.x, l0.y, l1.x,
          l1.y);
    CHECK(st_v2_dist(st_v2(0, 0), st_v2(3, 4)) == 5.0, "dist = %g", st_v2_dist(st_v2(0, 0), st_v2(3, 4)));
    CHECK(st_v2_dist2(st_v2(1, 1), st_v2(4, 5)) == 25.0, "dist2 = %g", st_v2_dist2(st_v2(1, 1), st_v2(4, 5)));
    CHECK(st_v2_dot(st_v2(1, 2), st_v2(3, 4)) == 11.0, "dot = %g", st_v2_dot(st_v2(1, 2), st_v2(3, 4)));
    CHECK(!st_v2_finite(st_v2(NAN, 0)) && !st_v2_finite(st_v2(0, INFINITY)) && st_v2_finite(st_v2(1e308, -1e308)),
          "st_v2_finite wrong");
}

int main(void)
{
    RUN(normalize_zero_is_zero);
    RUN(normalize_gives_unit_length);
    RUN(truncate_caps_length);
    RUN(rotate_turns_towards_plus_y);
    RUN(from_angle_and_angle_are_inverse);
    RUN(lerp_dist_dot);
    return tu_summary();
}
