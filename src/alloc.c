/*
 * alloc.c — the core's blocks, counted against a host's budget (st_mem).
 *
 * Each block starts with a header: its size, where the system's block
 * begins (aligned blocks), and a copy of the budget it was counted against,
 * so whoever frees it gives the bytes back to the right budget. A budget is
 * asked before the system: a refused block costs nothing. The header is
 * ST_MEM_OVERHEAD bytes, which keeps malloc's 16-byte alignment.
 */
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct block_head {
    size_t size;  ///< bytes the caller asked for
    size_t cost;  ///< bytes counted: the system's block
    void *base;   ///< what malloc or sys_aligned gave
    st_mem mem;   ///< the budget counted against (zero: none)
} block_head;

_Static_assert(sizeof(block_head) <= ST_MEM_OVERHEAD, "the header fits its overhead");
_Static_assert(ST_MEM_OVERHEAD % 16 == 0, "the header keeps malloc's alignment");

static block_head *head_of(void *p) { return (block_head *)((char *)p - ST_MEM_OVERHEAD); }

static size_t cost(size_t n) { return n + ST_MEM_OVERHEAD; }

static bool take(const st_mem *m, size_t n)
{
    return m == NULL || m->reserve == NULL || m->reserve(m->ud, n);
}

static void give(const st_mem *m, size_t n)
{
    if (m->release != NULL)
        m->release(m->ud, n);
}

/*
 * The system's aligned block. C11's aligned_alloc where the C runtime has
 * it; Windows' has not (its _aligned_malloc needs a free of its own), so
 * there, and in the portable build, a malloc block with room to align by
 * hand (ST__ALIGN_SLACK more bytes). Either way free() gives it back, and
 * the caller's block starts at align_up(base).
 */
#if defined(_WIN32) || defined(STEER_PORTABLE)
#define ST__ALIGN_SLACK(align) (align)
static char *sys_aligned(size_t align, size_t total)
{
    (void)align;
    return malloc(total);
}
#else
#define ST__ALIGN_SLACK(align) 0
static char *sys_aligned(size_t align, size_t total) { return aligned_alloc(align, total); }
#endif

static char *align_up(char *p, size_t align)
{
    return p + ((align - (uintptr_t)p % align) % align);
}

static void *finish(void *base, void *user, const st_mem *m, size_t n, size_t total)
{
    block_head *h = head_of(user);
    h->size = n;
    h->cost = total;
    h->base = base;
    memset(&h->mem, 0, sizeof h->mem);
    if (m != NULL)
        h->mem = *m;
    return user;
}

void *st__alloc(const st_mem *m, size_t n)
{
    if (n > SIZE_MAX / 2 || !take(m, cost(n)))
        return NULL;
    char *base = malloc(cost(n));
    if (base == NULL) {
        if (m != NULL)
            give(m, cost(n));
        return NULL;
    }
    return finish(base, base + ST_MEM_OVERHEAD, m, n, cost(n));
}

void *st__calloc(const st_mem *m, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / 2 / size)
        return NULL;
    void *p = st__alloc(m, count * size);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

void *st__alloc_aligned(const st_mem *m, size_t align, size_t n)
{
    /* the header sits in the lead: ST_MEM_OVERHEAD rounded up to align */
    size_t lead = (ST_MEM_OVERHEAD + align - 1) / align * align;
    if (n > SIZE_MAX / 2)
        return NULL;
    size_t total = (lead + n + align - 1) / align * align + ST__ALIGN_SLACK(align);
    if (!take(m, total))
        return NULL;
    char *base = sys_aligned(align, total);
    if (base == NULL) {
        if (m != NULL)
            give(m, total);
        return NULL;
    }
    return finish(base, align_up(base, align) + lead, m, n, total);
}

void st__free(void *p)
{
    if (p == NULL)
        return;
    block_head *h = head_of(p);
    size_t c = h->cost;
    st_mem m = h->mem;
    free(h->base);
    give(&m, c);
}

void *st__realloc(const st_mem *m, void *p, size_t n)
{
    if (p == NULL)
        return st__alloc(m, n);
    block_head *h = head_of(p);
    if ((char *)p - (char *)h->base != ST_MEM_OVERHEAD || n > SIZE_MAX / 2) {
        /* an aligned block: a new one, as st__alloc would make, and a copy */
        void *q = n > SIZE_MAX / 2 ? NULL : st__alloc(&h->mem, n);
        if (q != NULL) {
            memcpy(q, p, h->size < n ? h->size : n);
            st__free(p);
        }
        return q;
    }
    size_t old = h->size;
    st_mem mem = h->mem;
    if (n > old && !take(&mem, n - old))
        return NULL;
    char *base = realloc(h->base, cost(n));
    if (base == NULL) {
        if (n > old)
            give(&mem, n - old);
        return NULL;
    }
    if (n < old)
        give(&mem, old - n);
    return finish(base, base + ST_MEM_OVERHEAD, &mem, n, cost(n));
}
