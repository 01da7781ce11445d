/*
 * test_util.h — the C tests' whole framework: CHECK, RUN and a summary.
 *
 *   CHECK(cond, fmt, ...)  counts a check; on failure prints file:line, the
 *                          condition and the printf-formatted values, counts
 *                          the failure and evaluates to false (so a test can
 *                          stop a loop early: `if (!CHECK(...)) break;`).
 *   RUN(fn)                runs one `static void fn(void)` and prints its name.
 *   STEER_TEST_ONLY=a,b    runs only the tests named (all when unset).
 *   return tu_summary();   at the end of main: non-zero when any check failed
 *                          or when no check ran at all.
 *
 * Header-only on purpose: one executable per test file, no library to link.
 */
#ifndef STEER_TEST_UTIL_H
#define STEER_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steer.h"

static int tu_checks;
static int tu_failures;
static const char *tu_current = "?";

#if defined(__GNUC__)
#ifdef __MINGW_PRINTF_FORMAT /* mingw-w64: C99's printf, as the build asks for */
__attribute__((format(__MINGW_PRINTF_FORMAT, 4, 5)))
#else
__attribute__((format(printf, 4, 5)))
#endif
#endif
static int
tu_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    tu_failures++;
    /* A broken loop can fail thousands of times: the first few say enough. */
    if (tu_failures <= 60) {
        va_list ap;
        fprintf(stderr, "%s:%d: [%s] CHECK(%s) failed: ", file, line, tu_current, cond);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    } else if (tu_failures == 61) {
        fprintf(stderr, "... further failures are counted, not printed\n");
    }
    return 0;
}

/// STEER_TEST_ONLY=name[,name...] runs only those tests (while tuning:
/// one test of a slow file); unset, every test runs.
static int tu_wanted(const char *name)
{
    const char *only = getenv("STEER_TEST_ONLY");
    if (!only || !*only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return 1;
    return 0;
}

#define CHECK(cond, ...) (tu_checks++, (cond) ? 1 : tu_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

#define RUN(fn)                                                                                                        \
    do {                                                                                                               \
        if (!tu_wanted(#fn)) break;                                                                                    \
        int tu_before_ = tu_failures;                                                                                  \
        tu_current = #fn;                                                                                              \
        fn();                                                                                                          \
        printf("%-44s %s\n", #fn, tu_failures == tu_before_ ? "ok" : "FAILED");                                        \
        fflush(stdout);                                                                                                \
    } while (0)

static int tu_summary(void)
{
    printf("%d checks, %d failed\n", tu_checks, tu_failures);
    if (tu_checks == 0) {
        fprintf(stderr, "no check ran\n");
        return 1;
    }
    return tu_failures ? 1 : 0;
}

/* ---- small helpers shared by the test files ---- */

/// |a - b| <= tol * max(1, |a|, |b|).
static inline int tu_close(double a, double b, double tol)
{
    double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (s < 1.0)
        s = 1.0;
    return fabs(a - b) <= tol * s;
}

static inline int tu_v2_close(st_vec2 a, st_vec2 b, double tol)
{
    return tu_close(a.x, b.x, tol) && tu_close(a.y, b.y, tol);
}

/// A world with the defaults except size and edges.
static inline st_world *tu_world(double width, double height, st_edges edges, uint64_t seed)
{
    st_world_def d = st_default_world_def();
    d.width = width;
    d.height = height;
    d.edges = edges;
    d.seed = seed;
    return st_world_create(&d);
}

/// An agent with the defaults at pos with velocity vel.
static inline st_agent_id tu_spawn(st_world *w, st_vec2 pos, st_vec2 vel)
{
    st_agent_def d = st_default_agent_def();
    d.pos = pos;
    d.vel = vel;
    return st_world_spawn(w, &d);
}

/// A tiny deterministic generator for the tests' own random scenes (xorshift64*),
/// independent of the world's stream so scene layout does not depend on the core.
typedef struct tu_rng {
    uint64_t s;
} tu_rng;

static inline double tu_rand(tu_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (double)((r->s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double tu_uniform(tu_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * tu_rand(r);
}

#define TU_PI 3.14159265358979323846

#endif /* STEER_TEST_UTIL_H */
