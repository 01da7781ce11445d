/*
 * kernel.h — the minimal flocking kernel steer's flock is measured against
 * (steer_bench's "flock kernel" rows). Not part of steer: no handles, no
 * behaviour lists, no checks, no API beyond what the benchmark needs.
 */
#ifndef STEER_BENCH_KERNEL_H
#define STEER_BENCH_KERNEL_H

#include <stdint.h>

typedef struct kflock kflock;

/// A wrap square of `side` with n agents, their state copied (rounded to
/// float) from the arrays (headings unit length), stepped with dt, cells of at least `cell`
/// (steer's default 50), on `threads` OpenMP threads. NULL when out of memory.
kflock *kflock_create(int n, double side, double cell, int threads, const double *px, const double *py,
                      const double *vx, const double *vy, const double *hx, const double *hy);
void kflock_destroy(kflock *k);

/// One step: the state re-sorted into cells, then the three rules and the
/// integration for every agent (float, see kernel.c).
void kflock_step(kflock *k, double dt);

/// Agent `orig`'s position (orig: its index in the arrays given to create).
void kflock_pos(const kflock *k, int orig, double *x, double *y);

/// Every agent's position, heading and speed, by original index.
void kflock_state(const kflock *k, double *x, double *y, double *hx, double *hy, double *speed);

/// An order-independent checksum of the state (for 1 vs 2 threads).
uint64_t kflock_checksum(const kflock *k);

#endif
