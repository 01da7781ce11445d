/* cores.h — how fast each core is right now (cores.c). */
#ifndef STEER_BENCH_CORES_H
#define STEER_BENCH_CORES_H

/// Prints one line: the time a fixed piece of work takes pinned to each core
/// this process may run on, and how far apart they are. `when`: "start" or
/// "end". Prints nothing where pinning is not available.
void cores_line(const char *when);

#endif
