/*
 * sys.h — the few operating-system calls the bindings make, the same on
 * every platform: a real path, an aligned block, a coarse wall clock.
 * POSIX has them; Windows gets the equivalents of its C runtime and kernel
 * (mingw-w64 and MSVC alike). Header-only: each is a line or two.
 */
#ifndef STEER_BINDINGS_SYS_H
#define STEER_BINDINGS_SYS_H

#include <limits.h>
#include <stdlib.h>

#ifdef _WIN32
#include <io.h>
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#ifndef PATH_MAX
#define PATH_MAX 260
#endif
#else
#include <time.h>
#endif

/// The absolute, resolved path of an existing file or folder into out
/// (PATH_MAX bytes), or NULL when there is none (realpath's contract).
static inline char *sl_realpath(const char *path, char *out)
{
#ifdef _WIN32
    if (_access(path, 0) != 0) return NULL;
    return _fullpath(out, path, PATH_MAX);
#else
    return realpath(path, out);
#endif
}

/// n bytes aligned to align (a power of two, n a multiple of it); given
/// back with sl_aligned_free only (Windows' aligned blocks need a free of
/// their own).
static inline void *sl_aligned_alloc(size_t align, size_t n)
{
#ifdef _WIN32
    return _aligned_malloc(n, align);
#else
    return aligned_alloc(align, n);
#endif
}

static inline void sl_aligned_free(void *p)
{
#ifdef _WIN32
    _aligned_free(p);
#else
    free(p);
#endif
}

/// Seconds on a monotonic clock, coarse (a few ms) where that is cheaper;
/// never 0.
static inline double sl_wall_seconds(void)
{
#ifdef _WIN32
    return (double)GetTickCount64() * 1e-3 + 1.0;
#else
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + 1.0;
#endif
}

#endif
