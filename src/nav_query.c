/*
 * nav_query.c — the search state of one query on a tile map, apart from
 * the map (Detour's dtNavMeshQuery beside its dtNavMesh): costs, parents,
 * stamps and the open list. The map stays read-only, so several queries
 * can search it at once, and a query can stop between slices.
 *
 * Its memory is allocated here: a node for every tile of the map at
 * creation, and the open list, which grows (rarely, and only here) when a
 * search offers more tiles than it has ever held. A stamp per tile stands
 * for "cleared": a new search bumps the query's id instead of wiping.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_tiles.h"

static void prefault(void *p, size_t bytes)
{
    volatile unsigned char *c = p;
    for (size_t i = 0; i < bytes; i += 4096) c[i] = c[i];
}

nav_query *nav__query_create(const st_mem *mem, int cells)
{
    nav_query *q = st__calloc(mem, 1, sizeof *q);
    if (!q) return NULL;
    q->mem = mem;
    size_t n = (size_t)cells;
    q->cells = cells;
    q->node = st__alloc(mem, n * sizeof *q->node);
    q->heap_cap = cells < 4096 ? cells + 16 : cells / 4;
    q->heap = st__alloc(mem, (size_t)q->heap_cap * sizeof *q->heap);
    q->out_cap = 64;
    q->out = st__alloc(mem, (size_t)q->out_cap * sizeof *q->out);
    if (!q->node || !q->heap || !q->out) {
        nav__query_destroy(q);
        return NULL;
    }
    // Every node stamped "never" now, so the first searches do not pay
    // for faulting the pages in (prefault: the compiler may have turned
    // malloc + memset 0 into calloc, which touches nothing).
    memset(q->node, 0, n * sizeof *q->node);
    prefault(q->node, n * sizeof *q->node);
    prefault(q->heap, (size_t)q->heap_cap * sizeof *q->heap);
    return q;
}

void nav__query_destroy(nav_query *q)
{
    if (!q) return;
    st__free(q->node);
    st__free(q->heap);
    st__free(q->out);
    for (int k = 0; k < 2; k++) {
        st__free(q->bits[k].rows);
        st__free(q->bits[k].cols);
    }
    st__free(q);
}

void nav__query_reset(nav_query *q)
{
    if (++q->id == 0) { // wrapped: forget every stamp
        for (int c = 0; c < q->cells; c++) q->node[c].stamp = 0;
        q->id = 1;
    }
    q->heap_n = 0;
    q->out_n = 0;
    q->expanded = 0;
    q->state = NAV_SEARCH_IDLE;
}

/// Pops first: the lower f; on a tie the larger g (deeper, nearer the
/// goal); then the lower index. One fixed order, so every run agrees.
static inline bool before(const nav_open *a, const nav_open *b)
{
    if (a->f != b->f) return a->f < b->f;
    if (a->g != b->g) return a->g > b->g;
    return a->c < b->c;
}

bool nav__query_push(nav_query *q, int32_t c, double f, double g)
{
    if (q->heap_n == q->heap_cap) {
        int cap = q->heap_cap * 2;
        nav_open *h = st__realloc(q->mem, q->heap, (size_t)cap * sizeof *h);
        if (!h) return false;
        q->heap = h;
        q->heap_cap = cap;
    }
    nav_open e = {f, g, c};
    int i = q->heap_n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!before(&e, &q->heap[p])) break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
    return true;
}

nav_open nav__query_pop(nav_query *q)
{
    nav_open top = q->heap[0], last = q->heap[--q->heap_n];
    int i = 0, n = q->heap_n;
    if (n == 0) return top;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        const nav_open *best = &last;
        if (l < n && before(&q->heap[l], best)) { m = l; best = &q->heap[l]; }
        if (r < n && before(&q->heap[r], best)) { m = r; best = &q->heap[r]; }
        if (m == i) break;
        q->heap[i] = q->heap[m];
        i = m;
    }
    q->heap[i] = last;
    return top;
}

/// Room for twice as many result points (a path with more turns than any
/// before it on this query).
bool nav__query_grow_out(nav_query *q)
{
    int cap = q->out_cap * 2;
    int32_t *o = st__realloc(q->mem, q->out, (size_t)cap * sizeof *o);
    if (!o) return false;
    q->out = o;
    q->out_cap = cap;
    return true;
}

static inline void set_bit(uint64_t *w, int i) { w[i >> 6] |= 1ull << (i & 63); }

const nav_bits *nav__query_bits(nav_query *q, const nav_tiles *t, int need)
{
    for (int k = 0; k < 2; k++)
        if (q->bits[k].need == need && q->bits[k].version == t->version && q->bits[k].rows) return &q->bits[k];
    nav_bits *b = &q->bits[q->bits_next];
    q->bits_next ^= 1;
    int h = t->rows + 2, w = t->stride;
    int rw = (w + 128) / 64 + 2, cw = (h + 128) / 64 + 2;
    if (!b->rows || b->row_words != rw || b->col_words != cw) {
        st__free(b->rows);
        st__free(b->cols);
        b->rows = st__alloc(q->mem, (size_t)rw * h * sizeof *b->rows);
        b->cols = st__alloc(q->mem, (size_t)cw * w * sizeof *b->cols);
        b->need = 0;
        if (!b->rows || !b->cols) {
            st__free(b->rows);
            st__free(b->cols);
            b->rows = b->cols = NULL;
            return NULL;
        }
        b->row_words = rw;
        b->col_words = cw;
    }
    memset(b->rows, 0, (size_t)rw * h * sizeof *b->rows);
    memset(b->cols, 0, (size_t)cw * w * sizeof *b->cols);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (t->clr[y * w + x] >= need) {
                set_bit(b->rows + (size_t)y * rw, x + 64);
                set_bit(b->cols + (size_t)x * cw, y + 64);
            }
    b->need = need;
    b->version = t->version;
    return b;
}
