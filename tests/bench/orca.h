/* orca.h — steer_bench's ORCA rows (orca.c). */
#ifndef STEER_BENCH_ORCA_H
#define STEER_BENCH_ORCA_H

#include <stdbool.h>

/// RVO2's Circle at two sizes, the random-goal crowd at five sizes and densities.
void orca_rows(bool quick);

/// Issue 26's goal crowd (orca.c): the tuned row on 1 and 2 threads, then
/// (unless quick) the same crowd at sizes and densities it was not tuned for.
void goals_rows(bool quick);

#endif
