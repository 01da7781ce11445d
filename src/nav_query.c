/*
 * nav_query.c — the search state of one query on a tile map, apart from
 * the map (Detour's dtNavMeshQuery beside its dtNavMesh): costs, parents,
 * stamps and the open list. The map stays read-only, so several queries
 * can search it at once, and a query can stop between slices.
 *
 * Its memory is allocated here, and grows with the searches, never with
 * the map: a table of the tiles a search touched (hashed by tile index,
 * half full at most, doubled when it would be more), the open list and the
 * result, each grown (rarely, and only here) when a search needs more
 * than any before it on this query. A stamp per slot stands for
 * "cleared": a new search bumps the query's id instead of wiping.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_tiles.h"

/// The table's first size (slots) and the open list's.
#define NAV_QUERY_SLOTS 4096
#define NAV_QUERY_OPEN 1024

/// A table of `slots` (a power of two) empty slots (stamp 0: ids start
/// at 1), or NULL.
static nav_node *new_table(const st_mem *mem, uint32_t slots) { return st__calloc(mem, slots, sizeof(nav_node)); }

/// q's table made t (of `slots`).
static void use_table(nav_query *q, nav_node *t, uint32_t slots)
{
    q->node = t;
    q->node_mask = slots - 1;
    int bits = 0;
    while ((1u << bits) < slots) bits++;
    q->node_shift = 32 - bits;
}

nav_query *nav__query_create(const st_mem *mem, int cells)
{
    nav_query *q = st__calloc(mem, 1, sizeof *q);
    if (!q) return NULL;
    q->mem = mem;
    q->cells = cells;
    q->heap_cap = NAV_QUERY_OPEN;
    q->heap = st__alloc(mem, (size_t)q->heap_cap * sizeof *q->heap);
    q->out_cap = 64;
    q->out = st__alloc(mem, (size_t)q->out_cap * sizeof *q->out);
    nav_node *t = new_table(mem, NAV_QUERY_SLOTS);
    if (t) use_table(q, t, NAV_QUERY_SLOTS);
    if (!q->heap || !q->out || !t) {
        nav__query_destroy(q);
        return NULL;
    }
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
        for (uint32_t i = 0; i <= q->node_mask; i++) q->node[i].stamp = 0;
        q->id = 1;
    }
    q->node_n = 0;
    q->heap_n = 0;
    q->out_n = 0;
    q->expanded = 0;
    q->state = NAV_SEARCH_IDLE;
}

/// The empty slot tile c goes in (c is not in the table).
static nav_node *home(const nav_query *q, int32_t c)
{
    uint32_t i = ((uint32_t)c * 2654435761u) >> q->node_shift;
    while (q->node[i].stamp == q->id) i = (i + 1) & q->node_mask;
    return &q->node[i];
}

/// Twice the slots, this search's moved over (in slot order, so the new
/// table is the same on every run).
static bool grow_table(nav_query *q)
{
    uint32_t slots = q->node_mask + 1;
    nav_node *old = q->node, *t = slots < 1u << 30 ? new_table(q->mem, 2 * slots) : NULL;
    if (!t) return false;
    use_table(q, t, 2 * slots);
    for (uint32_t i = 0; i < slots; i++)
        if (old[i].stamp == q->id) *home(q, old[i].cell) = old[i];
    st__free(old);
    return true;
}

nav_node *nav__query_touch(nav_query *q, int32_t c)
{
    nav_node *n = nav__query_find(q, c);
    if (n) return n;
    if (2 * (uint32_t)(q->node_n + 1) > q->node_mask + 1 && !grow_table(q)) return NULL;
    n = home(q, c);
    *n = (nav_node){.g = INFINITY, .cell = c, .parent = -1, .stamp = q->id};
    q->node_n++;
    return n;
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
