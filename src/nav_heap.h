/*
 * nav_heap.h — a binary min-heap of cell indices keyed by key[cell], with
 * each cell's place in it (pos) so a key can decrease in place. Ties go to
 * the lower cell index, so every search pops in one fixed order. The grid
 * searches (nav.c, nav_search.c) and the flow fields (flowfield.c) use it.
 */
#ifndef STEER_NAV_HEAP_H
#define STEER_NAV_HEAP_H

#include <stdbool.h>
#include <stdint.h>

/// The caller gives items and pos room for every cell, pos all -1.
typedef struct nav_heap {
    int32_t *items;
    int32_t *pos;     // -1: not in the heap
    int n;
} nav_heap;

bool nav__heap_push(nav_heap *h, const double *key, int32_t c);
/// The cell of the least key (n > 0), taken out.
int32_t nav__heap_pop(nav_heap *h, const double *key);
/// key[c] just decreased: move c up.
void nav__heap_decrease(nav_heap *h, const double *key, int32_t c);

#endif
