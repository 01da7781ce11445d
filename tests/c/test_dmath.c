/*
 * test_dmath.c — src/dmath.c (st_sin, st_cos, st_sincos, st_atan2,
 * st_hypot): close to glibc's results, which are accurate but not the
 * same bits on every platform, and C's answers at the special values.
 * That they are the same bits on every platform is make test-windows' and
 * make test-portable's business (tests/platform/checksums.c, line "math").
 */
#include <float.h>
#include <string.h>

#include "test_util.h"

/// Units in the last place between a and b (both finite).
static double ulps(double got, double want)
{
    double u = nextafter(fabs(want), INFINITY) - fabs(want);
    if (want == 0.0) u = DBL_TRUE_MIN;
    return fabs(got - want) / u;
}

static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

#if defined(__GLIBC__)
static void close_to_the_c_library(void)
{
    tu_rng r = {7};
    double worst[5] = {0};
    for (int i = 0; i < 200000; i++) {
        double scale = i % 4 == 0 ? 1.0 : i % 4 == 1 ? 10.0 : i % 4 == 2 ? 1000.0 : 1.5e6;
        double x = (tu_rand(&r) - 0.5) * 2.0 * scale, y = (tu_rand(&r) - 0.5) * 2.0 * scale;
        double s, c;
        st_sincos(x, &s, &c);
        /* near a zero of sin or cos the absolute error is what matters */
        worst[0] = fmax(worst[0], fabs(sin(x)) > 1e-3 ? ulps(s, sin(x)) : fabs(s - sin(x)) / DBL_EPSILON);
        worst[1] = fmax(worst[1], fabs(cos(x)) > 1e-3 ? ulps(c, cos(x)) : fabs(c - cos(x)) / DBL_EPSILON);
        worst[2] = fmax(worst[2], ulps(st_atan2(y, x), atan2(y, x)));
        worst[3] = fmax(worst[3], ulps(st_hypot(x, y), hypot(x, y)));
        if (!CHECK(same(st_sin(x), s) && same(st_cos(x), c), "sincos(%.17g) is not sin and cos", x)) break;
    }
    CHECK(worst[0] <= 2.0, "sin: %.2f ulp from the C library's", worst[0]);
    CHECK(worst[1] <= 2.0, "cos: %.2f ulp from the C library's", worst[1]);
    CHECK(worst[2] <= 4.0, "atan2: %.2f ulp from the C library's", worst[2]);
    CHECK(worst[3] <= 2.0, "hypot: %.2f ulp from the C library's", worst[3]);
    printf("  worst: sin %.2f, cos %.2f, atan2 %.2f, hypot %.2f ulp\n", worst[0], worst[1], worst[2], worst[3]);
}

static void small_and_huge_angles(void)
{
    const double xs[] = {1e-300, -1e-300, 1e-9, 0.5, ST_PI / 4, ST_PI / 2, ST_PI, 2 * ST_PI, 100.0, 1e5, -1e5};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double x = xs[i];
        CHECK(fabs(st_sin(x) - sin(x)) <= 2 * DBL_EPSILON * fmax(fabs(sin(x)), 1e-300) || ulps(st_sin(x), sin(x)) <= 2,
              "sin(%.17g) = %.17g, the C library %.17g", x, st_sin(x), sin(x));
        CHECK(fabs(st_cos(x) - cos(x)) <= 2 * DBL_EPSILON, "cos(%.17g) = %.17g, the C library %.17g", x, st_cos(x),
              cos(x));
    }
    /* past the reduction's range: still a unit vector, and a function of x */
    for (double x = 1e7; x < 1e300; x *= 123.456) {
        double s, c;
        st_sincos(x, &s, &c);
        CHECK(fabs(s * s + c * c - 1.0) < 1e-15, "sin^2 + cos^2 of %g is %.17g", x, s * s + c * c);
        CHECK(same(st_sin(-x), -s), "sin(-%g) is not -sin(%g)", x, x);
    }
}

#endif

static void special_values(void)
{
    const double inf = INFINITY, nan = NAN;
    CHECK(same(st_sin(0.0), 0.0) && same(st_sin(-0.0), -0.0), "sin of signed zeros");
    CHECK(st_cos(0.0) == 1.0 && st_cos(-0.0) == 1.0, "cos(0) is 1");
    CHECK(isnan(st_sin(inf)) && isnan(st_cos(-inf)) && isnan(st_sin(nan)), "sin, cos of inf or NaN are NaN");
    const double pairs[][2] = {{0.0, 0.0},  {-0.0, 0.0}, {0.0, -0.0}, {-0.0, -0.0}, {1.0, 0.0},   {1.0, -0.0},
                               {-1.0, 0.0}, {0.0, 1.0},  {0.0, -1.0}, {inf, 1.0},   {1.0, inf},   {1.0, -inf},
                               {inf, inf},  {inf, -inf}, {-inf, inf}, {-inf, -inf}, {-2.0, -3.0}, {3.0, -2.0}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        double y = pairs[i][0], x = pairs[i][1];
        CHECK(same(st_atan2(y, x), atan2(y, x)) || ulps(st_atan2(y, x), atan2(y, x)) <= 1.0,
              "atan2(%g, %g) = %.17g, C says %.17g", y, x, st_atan2(y, x), atan2(y, x));
    }
    CHECK(isnan(st_atan2(nan, 1.0)) && isnan(st_atan2(1.0, nan)), "atan2 with a NaN is NaN");
    CHECK(st_hypot(inf, nan) == inf && st_hypot(nan, -inf) == inf, "hypot(inf, NaN) is inf, as in C");
    CHECK(isnan(st_hypot(nan, 1.0)), "hypot(NaN, 1) is NaN");
    CHECK(st_hypot(3.0, -4.0) == 5.0 && st_hypot(-0.0, 0.0) == 0.0, "hypot(3, -4) = 5, hypot(-0, 0) = 0");
    CHECK(st_hypot(1e300, 1e300) == hypot(1e300, 1e300), "hypot does not overflow: %g", st_hypot(1e300, 1e300));
    CHECK(st_hypot(3e-320, 4e-320) == hypot(3e-320, 4e-320), "hypot of subnormals: %g", st_hypot(3e-320, 4e-320));
}

int main(void)
{
    /* glibc's sin, cos, atan2 and hypot are within an ulp of the truth;
     * mingw-w64's sin and cos are not (x87 fsin: its sin(pi) is off in the
     * fifth digit), so accuracy is measured on glibc only. */
#if defined(__GLIBC__)
    RUN(close_to_the_c_library);
    RUN(small_and_huge_angles);
#else
    printf("  accuracy is measured against glibc's libm, not this C library's\n");
#endif
    RUN(special_values);
    return tu_summary();
}
