/*
 * alloc.h — private to the core: every block the core takes for a world or
 * an object a host made goes through here, so a host's budget (st_mem)
 * sees it (alloc.c).
 *
 * Blocks carry a header with their size and the budget they were counted
 * against, so st__free and st__realloc need no budget of their own and a
 * block may move between objects (a snapshot's arrays into a world). Never
 * hand a block to a caller who frees it with free(): encoded bytes and the
 * like stay on plain malloc.
 */
#ifndef STEER_ALLOC_H
#define STEER_ALLOC_H

#include <stddef.h>

#include "steer.h"

/// malloc, calloc and realloc counted against m (NULL or zero: uncounted);
/// NULL when the budget or the system says no (realloc's block then stays).
void *st__alloc(const st_mem *m, size_t n);
void *st__calloc(const st_mem *m, size_t count, size_t size);
/// p NULL: st__alloc(m, n). Otherwise counted against p's own budget.
void *st__realloc(const st_mem *m, void *p, size_t n);
/// align a power of two in [16, 4096]; freed with st__free.
void *st__alloc_aligned(const st_mem *m, size_t align, size_t n);
void st__free(void *p);

#endif
