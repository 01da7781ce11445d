/*
 * nav_heap.c — the binary min-heap the grid searches and flow fields pop
 * their cells from (nav_heap.h).
 */
#include "nav_heap.h"

static inline bool heap_less(const double *key, int32_t a, int32_t b)
{
    return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static void heap_up(nav_heap *h, const double *key, int i)
{
    int32_t c = h->items[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!heap_less(key, c, h->items[p])) break;
        h->items[i] = h->items[p];
        h->pos[h->items[i]] = i;
        i = p;
    }
    h->items[i] = c;
    h->pos[c] = i;
}

bool nav__heap_push(nav_heap *h, const double *key, int32_t c)
{
    h->items[h->n] = c;
    h->pos[c] = h->n;
    heap_up(h, key, h->n++);
    return true;
}

void nav__heap_decrease(nav_heap *h, const double *key, int32_t c)
{
    heap_up(h, key, h->pos[c]);
}

int32_t nav__heap_pop(nav_heap *h, const double *key)
{
    int32_t top = h->items[0];
    h->pos[top] = -1;
    int32_t last = h->items[--h->n];
    int i = 0, n = h->n;
    if (n > 0) {
        for (;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            int32_t best = last;
            if (l < n && heap_less(key, h->items[l], best)) { m = l; best = h->items[l]; }
            if (r < n && heap_less(key, h->items[r], best)) { m = r; best = h->items[r]; }
            if (m == i) break;
            h->items[i] = h->items[m];
            h->pos[h->items[i]] = i;
            i = m;
        }
        h->items[i] = last;
        h->pos[last] = i;
    }
    return top;
}
