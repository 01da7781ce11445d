/*
 * dmath.c — sine, cosine, atan2 and hypot with the same bits on every
 * platform (st_sin, st_cos, st_sincos, st_atan2, st_hypot in steer.h).
 *
 * Each C library computes these its own way: glibc, mingw-w64's runtime and
 * Apple's libm differ in the last bits, and one bit in a heading is a
 * different checksum a few hundred steps later. These use only +, -, *, /,
 * floor, fmod and sqrt, which IEEE 754 rounds the same everywhere (the build
 * has -ffp-contract=off: no fused multiply-add), in a fixed order, so a
 * world steps to the same checksum on Linux, Windows and macOS.
 *
 * Accuracy (tests/c/test_dmath.c measures it against the C library): within
 * 2 ulp for sin and cos where |x| < 1.6e6 (Cody-Waite reduction by pi/2 in
 * three parts, then the Taylor series on [-pi/4, pi/4]); past that the angle
 * is first taken modulo the double nearest 2 pi, exactly (fmod), so the
 * result stays a function of x alone. atan2 within 4 ulp, hypot within 2.
 * Special values follow C: NaN in, NaN out; sin(+-0) = +-0; atan2 of
 * zeros and infinities as C99 Annex F lists them; hypot(inf, NaN) = inf.
 */
#include <math.h>
#include <stdint.h>

#include "steer.h"

#define PI_4 0.7853981633974483
#define PI_2 1.5707963267948966
#define PI_1 3.141592653589793
#define TWO_OVER_PI 0.6366197723675814
#define TWO_PI 6.283185307179586
/// pi/2 in three parts, the first two of 33 significant bits, so k times
/// either is exact for |k| < 2^20.
#define PIO2_1 1.5707963267341256
#define PIO2_2 6.077100506303966e-11
#define PIO2_3 2.0222662487959506e-21
/// Past this |x| the quadrant count k could reach 2^20.
#define REDUCE_MAX 1647099.0
/// tan(pi/8): above it atan takes the pi/4 step.
#define TAN_PI_8 0.41421356237309503

/// sin and cos of r, |r| <= pi/4 (a hair more after rounding): the Taylor
/// series to r^17 and r^18 (the next terms are below 1e-19).
static void kernel(double r, double *s, double *c)
{
    double z = r * r;
    double ps = -2.505210838544172e-08 + z * (1.6059043836821613e-10 +
                z * (-7.647163731819816e-13 + z * 2.8114572543455206e-15));
    ps = -0.16666666666666666 + z * (0.008333333333333333 + z * (-0.0001984126984126984 +
         z * (2.7557319223985893e-06 + z * ps)));
    *s = r + r * z * ps;
    double pc = 2.08767569878681e-09 + z * (-1.1470745597729725e-11 +
                z * (4.779477332387385e-14 + z * -1.5619206968586225e-16));
    pc = 0.041666666666666664 + z * (-0.001388888888888889 + z * (2.48015873015873e-05 +
         z * (-2.755731922398589e-07 + z * pc)));
    // 1 - z/2 loses the low bits of z/2: they are put back (w's error).
    double hz = 0.5 * z, w = 1.0 - hz;
    *c = w + (((1.0 - w) - hz) + z * z * pc);
}

void st_sincos(double x, double *s, double *c)
{
    if (!isfinite(x)) {
        *s = *c = x - x; // NaN
        return;
    }
    if (x == 0.0) { // keeps the zero's sign
        *s = x, *c = 1.0;
        return;
    }
    if (fabs(x) <= PI_4) {
        kernel(x, s, c);
        return;
    }
    if (fabs(x) > REDUCE_MAX) x = fmod(x, TWO_PI);
    double k = floor(x * TWO_OVER_PI + 0.5);
    double r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    double sr, cr;
    kernel(r, &sr, &cr);
    switch ((int64_t)k & 3) { // x = k pi/2 + r
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
    }
}

double st_sin(double x)
{
    double s, c;
    st_sincos(x, &s, &c);
    return s;
}

double st_cos(double x)
{
    double s, c;
    st_sincos(x, &s, &c);
    return c;
}

/// atan(t) for 0 <= t <= 1: a step of pi/4 above tan(pi/8), the argument
/// halved (atan t = 2 atan(t / (1 + sqrt(1 + t^2)))) to |u| < 0.2, then the
/// series to u^27 (the next term is below 1e-20).
static double atan_unit(double t)
{
    double base = 0.0;
    if (t > TAN_PI_8) {
        t = (t - 1.0) / (t + 1.0);
        base = PI_4;
    }
    double u = t / (1.0 + sqrt(1.0 + t * t));
    double z = u * u;
    double p = -0.05263157894736842 + z * (0.047619047619047616 + z * (-0.043478260869565216 +
               z * (0.04 + z * -0.037037037037037035)));
    p = -0.09090909090909091 + z * (0.07692307692307693 + z * (-0.06666666666666667 +
        z * (0.058823529411764705 + z * p)));
    p = -0.3333333333333333 + z * (0.2 + z * (-0.14285714285714285 + z * (0.1111111111111111 + z * p)));
    return base + 2.0 * (u + u * z * p);
}

double st_atan2(double y, double x)
{
    if (isnan(x) || isnan(y)) return x + y;
    double ax = fabs(x), ay = fabs(y), a;
    if (isinf(ax) && isinf(ay)) a = signbit(x) ? 2.356194490192345 : PI_4; // 3 pi/4, pi/4
    else if (ay <= ax) a = ay == 0.0 ? (signbit(x) ? PI_1 : 0.0) : signbit(x) ? PI_1 - atan_unit(ay / ax)
                                                                              : atan_unit(ay / ax);
    else a = signbit(x) ? PI_2 + atan_unit(ax / ay) : PI_2 - atan_unit(ax / ay);
    return copysign(a, y);
}

double st_hypot(double x, double y)
{
    double a = fabs(x), b = fabs(y);
    if (isinf(a) || isinf(b)) return INFINITY;
    if (isnan(a) || isnan(b)) return a + b;
    if (a < b) {
        double t = a;
        a = b, b = t;
    }
    if (b == 0.0) return a;
    double r = b / a;
    return a * sqrt(1.0 + r * r);
}
