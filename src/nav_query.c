/*
 * nav_query.c — the search state of one query on a tile map, apart from
 * the map (Detour's dtNavMeshQuery beside its dtNavMesh): costs, parents,
 * stamps and the open list. The map stays read-only, so several queries
 * can search it at once, and a query can stop between slices.
 *
 * Its memory is allocated once, here, for every tile of the map; a search
 * allocates nothing. A stamp per tile stands for "cleared": a new search
 * bumps the query's id instead of wiping the arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "nav_tiles.h"

static void prefault(void *p, size_t bytes)
{
    volatile unsigned char *c = p;
    for (size_t i = 0; i < bytes; i += 4096) c[i] = c[i];
}

nav_query *nav__query_create(int cells)
{
    nav_query *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    size_t n = (size_t)cells;
    q->cells = cells;
    q->g = malloc(n * sizeof *q->g);
    q->key = malloc(n * sizeof *q->key);
    q->parent = malloc(n * sizeof *q->parent);
    q->stamp = malloc(n * sizeof *q->stamp);
    q->heap = malloc(n * sizeof *q->heap);
    q->pos = malloc(n * sizeof *q->pos);
    q->closed = malloc(n);
    q->out_cap = 64;
    q->out = malloc((size_t)q->out_cap * sizeof *q->out);
    if (!q->g || !q->key || !q->parent || !q->stamp || !q->heap || !q->pos || !q->closed || !q->out) {
        nav__query_destroy(q);
        return NULL;
    }
    // Every page touched once here, so the first searches do not pay for
    // faulting them in (the compiler may turn malloc + memset 0 into calloc,
    // which touches nothing: hence the volatile writes).
    memset(q->stamp, 0, n * sizeof *q->stamp);
    memset(q->pos, 0xff, n * sizeof *q->pos); // -1: not on the open list
    prefault(q->g, n * sizeof *q->g);
    prefault(q->key, n * sizeof *q->key);
    prefault(q->parent, n * sizeof *q->parent);
    prefault(q->stamp, n * sizeof *q->stamp);
    prefault(q->heap, n * sizeof *q->heap);
    prefault(q->closed, n);
    return q;
}

void nav__query_destroy(nav_query *q)
{
    if (!q) return;
    free(q->g);
    free(q->key);
    free(q->parent);
    free(q->stamp);
    free(q->heap);
    free(q->pos);
    free(q->closed);
    free(q->out);
    free(q);
}

void nav__query_reset(nav_query *q)
{
    if (++q->id == 0) { // wrapped: forget every stamp
        memset(q->stamp, 0, (size_t)q->cells * sizeof *q->stamp);
        q->id = 1;
    }
    q->heap_n = 0;
    q->out_n = 0;
    q->expanded = 0;
    q->state = NAV_SEARCH_IDLE;
}

double nav__query_key(const nav_query *q, int32_t c) { return q->key[c]; }

/// Pops first: the lower key; on a tie the larger g (deeper, nearer the
/// goal); then the lower index. One fixed order, so every run agrees.
static inline bool before(const nav_query *q, int32_t a, int32_t b)
{
    if (q->key[a] != q->key[b]) return q->key[a] < q->key[b];
    if (q->g[a] != q->g[b]) return q->g[a] > q->g[b];
    return a < b;
}

static void sift_up(nav_query *q, int i)
{
    int32_t c = q->heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(q, c, q->heap[p])) break;
        q->heap[i] = q->heap[p];
        q->pos[q->heap[i]] = i;
        i = p;
    }
    q->heap[i] = c;
    q->pos[c] = i;
}

/// Puts c on the open list with key f, or lowers its key when it is there
/// (the caller stamps c first, with pos -1, and skips closed tiles).
void nav__query_push(nav_query *q, int32_t c, double f)
{
    q->key[c] = f;
    if (q->pos[c] >= 0) {
        sift_up(q, q->pos[c]);
        return;
    }
    q->heap[q->heap_n] = c;
    sift_up(q, q->heap_n++);
}

int32_t nav__query_pop(nav_query *q)
{
    int32_t top = q->heap[0];
    q->pos[top] = -1;
    int32_t last = q->heap[--q->heap_n];
    int i = 0, n = q->heap_n;
    if (n == 0) return top;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        int32_t best = last;
        if (l < n && before(q, q->heap[l], best)) { m = l; best = q->heap[l]; }
        if (r < n && before(q, q->heap[r], best)) { m = r; best = q->heap[r]; }
        if (m == i) break;
        q->heap[i] = q->heap[m];
        q->pos[q->heap[i]] = i;
        i = m;
    }
    q->heap[i] = last;
    q->pos[last] = i;
    return top;
}

/// Room for twice as many result points (the one allocation a search may
/// make: a path with more turns than any before it on this query).
bool nav__query_grow_out(nav_query *q)
{
    int cap = q->out_cap * 2;
    int32_t *o = realloc(q->out, (size_t)cap * sizeof *o);
    if (!o) return false;
    q->out = o;
    q->out_cap = cap;
    return true;
}
