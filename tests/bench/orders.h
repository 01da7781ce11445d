/* orders.h — steer_bench's rows for orders (orders.c). */
#ifndef STEER_BENCH_ORDERS_H
#define STEER_BENCH_ORDERS_H

#include <stdbool.h>

/// 1,000-unit orders: steps to plan and to arrive, the worst step's
/// planning (work units and ms), the planning's total time.
void order_rows(bool quick);

#endif
