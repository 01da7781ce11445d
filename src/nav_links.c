/*
 * nav_links.c — off-mesh links: adding and removing them, the edges the
 * searches read (nav_links.h), and finishing a path section by section so
 * that string pulling never pulls across a link.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_internal.h"

st_nav_link_def st_default_nav_link_def(void) { return (st_nav_link_def){.both = false, .cost = -1.0}; }

/// The rectangle a grid's points live in: a tile grid's map, else the world.
static bool inside(const st_navgrid *g, st_vec2 p)
{
    double w = g->tiles ? g->cols * g->cell : st_world_width(g->w);
    double h = g->tiles ? g->rows * g->cell : st_world_height(g->w);
    return st_v2_finite(p) && p.x >= 0.0 && p.y >= 0.0 && p.x <= w && p.y <= h;
}

/// Room for the path points a search over n links can make: every link
/// adds at most its two ends to the cells a path visits.
static bool grow_out(st_navgrid *g, int links)
{
    int cap = g->cells + 4 + 2 * links;
    if (cap <= g->out_cap && g->out_link) return true;
    if (cap < g->out_cap) cap = g->out_cap;
    st_vec2 *o = st__realloc(&g->w->mem, g->out, (size_t)cap * sizeof *o);
    if (!o) return false;
    g->out = o;
    int32_t *lk = st__realloc(&g->w->mem, g->out_link, (size_t)cap * sizeof *lk);
    if (!lk) return false;
    g->out_link = lk;
    g->out_cap = cap;
    return true;
}

int st_navgrid_link(st_navgrid *g, st_vec2 a, st_vec2 b, const st_nav_link_def *def)
{
    st_nav_link_def d = def ? *def : st_default_nav_link_def();
    if (!g || !inside(g, a) || !inside(g, b) || !(d.cost < 0.0 || st_finite(d.cost)) || isnan(d.cost)) return 0;
    if (d.cost < 0.0) d.cost = st_v2_dist(a, b);
    nav_links *L = &g->links;
    if (L->n == INT32_MAX / 4 || g->w->link_serial == INT32_MAX) return -1;
    if (!st__grow(&g->w->mem, (void **)&L->v, &L->cap, L->n + 1, sizeof *L->v)) return -1;
    // Obstacle grids: room for a path through every cell and its links;
    // tile grids grow theirs with their paths (nav_tilepath.c).
    if (!g->tiles && !grow_out(g, L->n + 1)) return -1;
    if (!g->tiles && !L->via) {
        L->via = st__calloc(&g->w->mem, (size_t)g->cells, 1);
        if (!L->via) return -1;
    }
    int32_t id = ++g->w->link_serial;
    L->v[L->n++] = (nav_link){id, a, b, d.cost, d.both};
    L->dirty = true;
    g->map++;
    return id;
}

bool st_navgrid_unlink(st_navgrid *g, int id)
{
    nav_links *L = &g->links;
    for (int i = 0; i < L->n; i++)
        if (L->v[i].id == id) {
            memmove(L->v + i, L->v + i + 1, (size_t)(L->n - i - 1) * sizeof *L->v);
            L->n--;
            L->dirty = true;
            g->map++;
            return true;
        }
    return false;
}

int st_navgrid_link_count(const st_navgrid *g) { return g->links.n; }

int st_navgrid_path_link(const st_navgrid *g, int i)
{
    if (!g->out_link || i < 0 || i >= g->out_count) return 0;
    return g->out_link[i];
}

void nav__links_free(nav_links *L)
{
    st__free(L->v);
    st__free(L->e);
    st__free(L->shorts);
    st__free(L->stop_rows);
    st__free(L->stop_cols);
    st__free(L->via);
    st__free(L->step_link);
    memset(L, 0, sizeof *L);
}

static int edge_order(const void *pa, const void *pb)
{
    const nav_edge *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->cost != b->cost) return a->cost < b->cost ? -1 : 1;
    return (a->link > b->link) - (a->link < b->link);
}

/// The search cell of point p: a padded tile, or an obstacle-grid cell
/// (the nearest free one within the snap radius when p's is blocked; -1
/// when none is).
static int search_cell(st_navgrid *g, st_vec2 p)
{
    int x, y, c = nav__cell_of(g, p, &x, &y);
    if (g->tiles) return nav__tile_index(g->tiles, x, y);
    return nav__blocked(g, c) ? nav__snap(g, p, -1) : c;
}

/// The distance the search's own metric gives between two cells' centres
/// (octile tiles, or straight world units).
static double metric(const st_navgrid *g, int a, int b)
{
    if (g->tiles) {
        int s = g->tiles->stride, dx = abs(a % s - b % s), dy = abs(a / s - b / s);
        return dx > dy ? dx + 0.41421356237309504880 * dy : dy + 0.41421356237309504880 * dx;
    }
    return st_v2_dist(nav__center(g, a), nav__center(g, b));
}

static inline void set_bit(uint64_t *w, int i) { w[i >> 6] |= 1ull << (i & 63); }

/// The link starts of a tile grid as bits (rows and columns).
static bool stop_bits(st_navgrid *g)
{
    nav_links *L = &g->links;
    const nav_tiles *t = g->tiles;
    int h = t->rows + 2, w = t->stride;
    int rw = (w + 128) / 64 + 2, cw = (h + 128) / 64 + 2;
    if (!L->stop_rows) {
        L->stop_rows = st__alloc(&g->w->mem, (size_t)rw * h * sizeof *L->stop_rows);
        L->stop_cols = st__alloc(&g->w->mem, (size_t)cw * w * sizeof *L->stop_cols);
        if (!L->stop_rows || !L->stop_cols) {
            st__free(L->stop_rows);
            st__free(L->stop_cols);
            L->stop_rows = L->stop_cols = NULL;
            return false;
        }
        L->row_words = rw;
        L->col_words = cw;
    }
    memset(L->stop_rows, 0, (size_t)rw * h * sizeof *L->stop_rows);
    memset(L->stop_cols, 0, (size_t)cw * w * sizeof *L->stop_cols);
    for (int k = 0; k < L->ne; k++) {
        int c = L->e[k].from;
        set_bit(L->stop_rows + (size_t)(c / w) * rw, c % w + 64);
        set_bit(L->stop_cols + (size_t)(c % w) * cw, c / w + 64);
    }
    return true;
}

bool nav__links_view(st_navgrid *g)
{
    nav_links *L = &g->links;
    if (!L->dirty) return true;
    if (!st__grow(&g->w->mem, (void **)&L->e, &L->ecap, 2 * L->n + 1, sizeof *L->e)) return false;
    st__free(L->shorts);
    L->shorts = st__alloc(&g->w->mem, (size_t)(2 * L->n + 1) * sizeof *L->shorts);
    if (!L->shorts) return false;
    double unit = g->tiles ? 1.0 / g->cell : 1.0;
    L->ne = 0;
    for (int i = 0; i < L->n; i++) {
        const nav_link *k = &L->v[i];
        int ca = search_cell(g, k->a), cb = search_cell(g, k->b);
        if (ca == cb || ca < 0 || cb < 0) continue; // within one cell, or an end with no free cell near
        L->e[L->ne++] = (nav_edge){ca, cb, i, 0, k->cost * unit};
        if (k->both) L->e[L->ne++] = (nav_edge){cb, ca, i, 1, k->cost * unit};
    }
    qsort(L->e, (size_t)L->ne, sizeof *L->e, edge_order);
    L->nshort = 0;
    for (int k = 0; k < L->ne; k++) // obstacle grids: every edge (their ends are not always centres)
        if (!g->tiles || L->e[k].cost < metric(g, L->e[k].from, L->e[k].to)) L->shorts[L->nshort++] = k;
    if (g->tiles && L->ne > 0 && !stop_bits(g)) return false;
    L->dirty = false;
    return true;
}

int nav__links_edge(const nav_links *L, int from, int to, int32_t id)
{
    for (int k = nav__links_first(L, from); k < L->ne && L->e[k].from == from; k++)
        if (L->e[k].to == to && L->v[L->e[k].link].id == id) return k;
    return -1;
}

int nav__links_between(const nav_links *L, int from, int to)
{
    for (int k = nav__links_first(L, from); k < L->ne && L->e[k].from == from; k++)
        if (L->e[k].to == to) return L->e[k].link; // the cheapest first
    return -1;
}

/// n points from src copied to o + at and fixed there (cap: the room).
static int fix_section(st_vec2 *o, int at, const st_vec2 *src, int n, int cap, nav_fix_fn fix, void *ctx)
{
    memmove(o + at, src, (size_t)n * sizeof *o);
    return n < 3 ? n : fix(ctx, o + at, n, cap);
}

int nav__links_sections(st_vec2 *o, int32_t *lk, int m, int cap, nav_fix_fn fix, void *ctx)
{
    // The path moves to the end of the room; sections come back one by one.
    int tail = cap - m;
    if (tail < 0) return -1;
    memmove(o + tail, o, (size_t)m * sizeof *o);
    memmove(lk + tail, lk, (size_t)m * sizeof *lk);
    int w = 0, i = 0;
    while (i < m) {
        int j = i;
        while (j < m - 1 && !lk[tail + j]) j++; // section i..j; j starts a link (or ends the path)
        int32_t link = lk[tail + j];
        int n = fix_section(o, w, o + tail + i, j - i + 1, tail + j + 1 - w, fix, ctx);
        if (n < 0) return -1;
        for (int k = 0; k < n; k++) lk[w + k] = 0;
        w += n;
        lk[w - 1] = link;
        i = j + 1; // the link's end starts the next section
    }
    lk[w - 1] = 0;
    return w;
}
