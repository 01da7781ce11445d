/*
 * portable.h — the core's compiler-specific features, each behind a macro
 * with a plain-C fallback that gives the same bits.
 *
 *   ST__GNU_VECTORS     GCC/Clang vector extensions (group.c's float lanes);
 *                       the fallback does the same IEEE operations lane by
 *                       lane, in the same order
 *   ST__FORCE_INLINE    an inlining hint (GCC/Clang, MSVC); never changes a result
 *   ST__NEVER_INLINE    the opposite hint
 *   ST__PREFETCH(p)     a cache hint; nothing in the fallback
 *   st__ctz64, st__clz64  the lowest and highest set bit of a nonzero word
 *
 * STEER_PORTABLE (cmake -DSTEER_PORTABLE=ON) takes every fallback on any
 * compiler: no vector extensions, no SSE2 intrinsics in the ORCA pass, no
 * per-CPU clones, no OpenMP. It is what MSVC or an unknown compiler builds,
 * and what an arm64 Mac runs; make test-portable shows it gives the checksums
 * of the default build. Results never depend on which side of a macro a
 * build takes: the build has -ffp-contract=off (no fused multiply-add) on
 * every compiler that knows the flag (MSVC: /fp:precise, its default).
 */
#ifndef STEER_PORTABLE_H
#define STEER_PORTABLE_H

#include <stdint.h>

#if defined(__GNUC__) && !defined(STEER_PORTABLE)
#define ST__GNU_VECTORS 1
#define ST__PREFETCH(p) __builtin_prefetch(p)
#else
#define ST__GNU_VECTORS 0
#define ST__PREFETCH(p) ((void)(p))
#endif

#if defined(__GNUC__)
#define ST__FORCE_INLINE inline __attribute__((always_inline))
#define ST__NEVER_INLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define ST__FORCE_INLINE __forceinline
#define ST__NEVER_INLINE __declspec(noinline)
#else
#define ST__FORCE_INLINE inline
#define ST__NEVER_INLINE
#endif

/// The index of the lowest set bit of v (v != 0).
static inline int st__ctz64(uint64_t v)
{
#if defined(__GNUC__) && !defined(STEER_PORTABLE)
    return __builtin_ctzll(v);
#else
    int n = 0;
    for (int s = 32; s > 0; s >>= 1)
        if ((v & ((1ull << s) - 1)) == 0) v >>= s, n += s;
    return n;
#endif
}

/// The number of zero bits above the highest set bit of v (v != 0).
static inline int st__clz64(uint64_t v)
{
#if defined(__GNUC__) && !defined(STEER_PORTABLE)
    return __builtin_clzll(v);
#else
    int n = 0;
    for (int s = 32; s > 0; s >>= 1)
        if ((v >> (64 - s)) == 0) v <<= s, n += s;
    return n;
#endif
}

#endif
