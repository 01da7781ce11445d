/* raycast.h — steer_bench's raycast rows (raycast.c). */
#ifndef STEER_BENCH_RAYCAST_H
#define STEER_BENCH_RAYCAST_H

#include <stdbool.h>

/// Prints raycasts per second against worlds of 100 .. 10,000 obstacles
/// with walls, short and long rays, and with agents.
void raycast_rows(bool quick);

#endif
