/* tiles.h — steer_bench's tile-map rows (tiles.c). */
#ifndef STEER_BENCH_TILES_H
#define STEER_BENCH_TILES_H

#include <stdbool.h>

/// Prints a row for each generated map, and for map/scen (MovingAI .map
/// and .scen files) when given.
void tile_rows(bool quick, const char *map, const char *scen);

#endif
