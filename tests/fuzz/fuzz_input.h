/*
 * fuzz_input.h — the byte reader both fuzz targets share.
 *
 * The fuzzer's input is read front to back as a little program: each draw
 * takes a few bytes and returns a choice, an integer or a double. Running out
 * of bytes yields zeroes, so every input, however short, is a whole program.
 *
 * Doubles come mostly from a table of the values that break numeric code
 * (0, -0, denormals, 1e308, DBL_MAX, inf, nan, values whose square
 * overflows ...), sometimes raw from eight input bytes.
 */
#ifndef STEER_FUZZ_INPUT_H
#define STEER_FUZZ_INPUT_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static inline uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}

static inline uint16_t fz_u16(fz_in *in)
{
    uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)fz_u8(in) << 8);
}

static inline uint64_t fz_u64(fz_in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)fz_u8(in) << (8 * i);
    return v;
}

/* 0 .. n-1 */
static inline unsigned fz_pick(fz_in *in, unsigned n) { return n ? fz_u8(in) % n : 0; }
static inline int fz_more(const fz_in *in) { return in->n > 0; }

static const double fz_specials[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 100.0, 800.0, 600.0, -100.0, 1e-9, 1e-300,
    5e-324 /* smallest denormal */, DBL_MIN, 1e154, 1.4e154 /* square overflows */, 1e200, 1e300,
    1e308, -1e308, DBL_MAX, -DBL_MAX, 9007199254740993.0, 3.14159265358979, 6.283185307179586,
    4.7123889803846897, 1e-160, 1.0 / 60.0, 3e9,
};
#define FZ_N_SPECIALS (sizeof fz_specials / sizeof fz_specials[0])

static inline double fz_raw_double(fz_in *in)
{
    uint64_t bits = fz_u64(in);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Any double, non-finite ones included. */
static inline double fz_double(fz_in *in)
{
    uint8_t k = fz_u8(in);
    if (k < 160) return fz_specials[k % FZ_N_SPECIALS];
    if (k < 176) return NAN;
    if (k < 188) return INFINITY;
    if (k < 200) return -INFINITY;
    if (k < 230) return (double)(int16_t)fz_u16(in);          /* small integers */
    if (k < 245) return (double)(int16_t)fz_u16(in) / 64.0;   /* small fractions */
    return fz_raw_double(in);
}

/* A finite double (non-finite draws become 0). */
static inline double fz_finite(fz_in *in)
{
    double d = fz_double(in);
    return isfinite(d) ? d : 0.0;
}

/* A finite double >= 0. */
static inline double fz_nonneg(fz_in *in)
{
    return fabs(fz_finite(in));
}

#endif
