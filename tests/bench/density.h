/* density.h — steer_bench's lean-brain rows at four densities (density.c). */
#ifndef STEER_BENCH_DENSITY_H
#define STEER_BENCH_DENSITY_H

#include <stdbool.h>

/// Prints the rows; scripts: the scripts folder (the brains are found beside it).
void density_rows(const char *scripts, bool quick);

#endif
