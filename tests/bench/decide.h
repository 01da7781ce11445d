/* decide.h — steer_bench's perception and brain scheduling rows (decide.c). */
#ifndef STEER_BENCH_DECIDE_H
#define STEER_BENCH_DECIDE_H

#include <stdbool.h>

/// Prints perceive calls (core and Lua) among 10,000 agents, and 10,000 Lua
/// brains with think_every = 1 and = 4.
void decide_rows(bool quick);

#endif
