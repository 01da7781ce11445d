/*
 * cores.c — steer_bench's probe of each core's speed.
 *
 * A 2-thread row is only as fast as its slower thread allows wherever work
 * is split evenly, and cores are not always equal: a laptop's efficiency
 * cores, a virtual machine whose host is busy (on the machine these figures
 * were first taken on, one of the two virtual CPUs ran the same loop 1.4 to
 * 1.65 times slower than the other, and which one changed from minute to
 * minute). The benchmark prints this line before and after its rows so a
 * reader can tell a slow run from a slow machine.
 *
 * The work is a pointer chase over 1 MB plus integer arithmetic: it touches
 * the caches and memory the way the steps do, in about 20 ms on a desktop
 * core. Best of three on each core. The line ends with the load average,
 * which says whether other programs shared the cores.
 */
#define _GNU_SOURCE
#include "cores.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__linux__)
#include <sched.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum { PROBE_WORDS = 1 << 18 }; // 1 MB of indices

/// ms for one pass of the probe's work over `next` (a single cycle).
static double probe_once(const uint32_t *next)
{
    double t0 = now();
    uint32_t k = 0;
    uint64_t acc = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 2 * PROBE_WORDS; i++) {
        k = next[k];
        acc = (acc ^ k) * 0xBF58476D1CE4E5B9u;
    }
    volatile uint64_t sink = acc;
    (void)sink;
    return (now() - t0) * 1e3;
}

/// A random single cycle through all the words (Sattolo's shuffle), from a
/// fixed seed so every run probes the same pattern.
static uint32_t *probe_cycle(void)
{
    uint32_t *next = malloc(PROBE_WORDS * sizeof *next);
    if (!next) return NULL;
    for (uint32_t i = 0; i < PROBE_WORDS; i++) next[i] = i;
    uint64_t s = 12345;
    for (uint32_t i = PROBE_WORDS - 1; i > 0; i--) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t j = (uint32_t)((s >> 33) % i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    return next;
}

void cores_line(const char *when)
{
#if defined(__linux__)
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) return;
    uint32_t *next = probe_cycle();
    if (!next) return;
    double ms[64];
    int cpu[64], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 64; c++) {
        if (!CPU_ISSET(c, &mask)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
        double best = probe_once(next);
        for (int r = 0; r < 2; r++) {
            double t = probe_once(next);
            if (t < best) best = t;
        }
        cpu[n] = c;
        ms[n++] = best;
    }
    sched_setaffinity(0, sizeof mask, &mask);
    free(next);
    if (n == 0) return;
    double lo = ms[0], hi = ms[0];
    printf("cores at the %s (the same work pinned to each, ms):", when);
    for (int k = 0; k < n; k++) {
        printf(" cpu%d %.1f", cpu[k], ms[k]);
        if (ms[k] < lo) lo = ms[k];
        if (ms[k] > hi) hi = ms[k];
    }
    if (n > 1) printf("; the slowest takes %.2fx the fastest", hi / lo);
    // Other programs running share the cores too: the load says whether
    // they did.
    double load[1];
    if (getloadavg(load, 1) == 1) printf("; load average %.2f", load[0]);
    printf("\n");
#else
    (void)when;
#endif
}
