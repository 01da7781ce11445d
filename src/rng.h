/*
 * rng.h — splitmix64: one 64-bit word of state, good statistical quality,
 * cheap to seed per agent. Every random number of a world comes from its
 * seed through these streams; nothing reads a clock or rand().
 */
#ifndef STEER_RNG_H
#define STEER_RNG_H

#include <stdint.h>

static inline uint64_t st_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Uniform in [0, 1) with 53 random bits.
static inline double st_rng_double(uint64_t *state)
{
    return (double)(st_rng_next(state) >> 11) * 0x1.0p-53;
}

/// Uniform in (-1, 1).
static inline double st_rng_clamped(uint64_t *state)
{
    return st_rng_double(state) - st_rng_double(state);
}

/// Counter-based use of the same generator: the n-th draw of the stream
/// keyed `key`, so an agent needs only a 32-bit counter of state.
static inline double st_rng_draw(uint64_t key, uint32_t *count)
{
    uint64_t s = key + (uint64_t)(*count)++ * 0x9E3779B97F4A7C15ull;
    return (double)(st_rng_next(&s) >> 11) * 0x1.0p-53;
}

/// A stream seed for `salt` within the world seeded with `seed`.
static inline uint64_t st_rng_derive(uint64_t seed, uint64_t salt)
{
    uint64_t s = seed ^ (salt * 0xD1B54A32D192ED03ull);
    return st_rng_next(&s);
}

#endif
