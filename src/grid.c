/*
 * grid.c — the uniform neighbour grid and the queries built on it.
 *
 * A counting sort of agents into cells, rebuilt from positions at the start
 * of every step: two linear passes and no allocation once the arrays have
 * grown to the agent count. In a wrap world the cells divide the world
 * evenly so a cell index wraps exactly like a position does; elsewhere
 * positions outside the rectangle fall into the border cells, which keeps
 * every query correct (a clamp is monotone) at some cost for stragglers.
 */
#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#ifdef STEER_HAVE_OPENMP
#include <omp.h>
#endif

#include "alloc.h"
#include "grid_iter.h"
#include "geom.h"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

// Bounds memory for absurd width/cell ratios; a query of any radius stays
// correct with bigger cells, only slower.
#define ST_MAX_CELLS (1 << 22)

void st__grid_free(st_grid *g)
{
    st__free(g->cell_start);
    st__free(g->items);
    st__free(g->hist);
    st__free(g->counts);
    st__free(g->lanes);
    st__free(g->ids);
    st__free(g->next_cells);
    g->next_cells = NULL;
    g->next_cells_cap = 0;
    g->pre_cells = 0;
    g->cell_start = NULL;
    g->items = NULL;
    g->hist = NULL;
    g->counts = NULL;
    g->lanes = NULL;
    g->ids = NULL;
    g->cell_cap = g->agent_cap = g->hist_cap = g->counts_cap = g->ids_cap = 0;
}

static void grid_dims_for(const st_world *w, st_grid *g, double cell)
{
    for (;;) {
        double fx = w->edges == ST_EDGES_WRAP ? floor(w->width / cell) : ceil(w->width / cell);
        double fy = w->edges == ST_EDGES_WRAP ? floor(w->height / cell) : ceil(w->height / cell);
        if (fx < 1.0) fx = 1.0;
        if (fy < 1.0) fy = 1.0;
        if (fx * fy <= (double)ST_MAX_CELLS) {
            g->nx = (int)fx;
            g->ny = (int)fy;
            break;
        }
        cell *= 2.0;
    }
    if (w->edges == ST_EDGES_WRAP) {
        g->cell_w = w->width / g->nx;
        g->cell_h = w->height / g->ny;
    } else {
        g->cell_w = g->cell_h = cell;
    }
}

static void grid_dims(const st_world *w, st_grid *g) { grid_dims_for(w, g, w->cell_size); }


static bool grow_i32(const st_mem *m, int32_t **p, int *cap, int need)
{
    if (need <= *cap) return true;
    int n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    int32_t *q = st__realloc(m, *p, (size_t)n * sizeof *q);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/// Zeroed counters for `cells` cells (g->counts, kept zero). False when
/// out of memory.
static bool counts_reserve(st_grid *g, int cells)
{
    if (cells <= g->counts_cap) return true;
    int n = g->counts_cap ? g->counts_cap : 64;
    while (n < cells) n *= 2;
    int32_t *q = st__calloc(&g->mem, (size_t)n, sizeof *q);
    if (!q) return false;
    st__free(g->counts);
    g->counts = q;
    g->counts_cap = n;
    return true;
}

/// Room in g for `cells` cells and `count` items. False when out of memory.
/// Room in g for `cells` cells and `count` items, and with `lanes` for the
/// grid lanes too. False when out of memory.
static bool grid_reserve(st_grid *g, int cells, int count, bool lanes)
{
    int cell_cap = g->cell_cap;
    if (!grow_i32(&g->mem, &g->cell_start, &cell_cap, cells + 1)) return false;
    g->cell_cap = cell_cap;
    if (count > g->agent_cap) {
        int n = g->agent_cap ? g->agent_cap : 64;
        while (n < count) n *= 2;
        st_grid_item *it = st__realloc(&g->mem, g->items, (size_t)n * sizeof *it);
        if (!it) return false;
        // Only the part in use: a huge page past it would count in full.
        st__advise_huge(it, (size_t)count * sizeof *it);
        g->items = it;
        g->agent_cap = n;
    }
    if (lanes && (!g->lanes || g->lanes->cap < g->agent_cap)) {
        // Six arrays of cap + pad four-byte values behind the header.
        size_t each = (size_t)g->agent_cap + ST_GRID_LANE_PAD;
        size_t head = (sizeof(st_grid_lanes) + 63) / 64 * 64;
        char *m = st__alloc(&g->mem, head + 6 * each * sizeof(float));
        if (!m) return false;
        st__advise_huge(m, head + 6 * each * sizeof(float));
        st_grid_lanes *l = (st_grid_lanes *)m;
        float *a = (float *)(m + head);
        l->x = a;
        l->y = a + each;
        l->hx = a + 2 * each;
        l->hy = a + 3 * each;
        l->index = (uint32_t *)(a + 4 * each);
        l->tag = (int32_t *)(a + 5 * each);
        l->cap = g->agent_cap;
        st__free(g->lanes);
        g->lanes = l;
    }
    return true;
}

// The build streams the bodies a line each: fetched this many ahead.
#define ST_BUILD_AHEAD 16

// Below this many agents one thread sorts faster than two can start.
#define ST_GRID_PARALLEL_MIN 32768

static inline bool counted(const st_world *w, int i)
{
    // Right after a compaction (every step begins with one) all are alive,
    // and the grid build need not stream the cold agent records to see it.
    return w->dead == 0 || w->agents[i].alive;
}

static inline void fill_item(const st_world *w, st_grid *g, int k, int cx, int cy, int i)
{
    st_grid_item *it = &g->items[k];
    const st_body *b = &w->bodies[i];
    st_vec2 p = b->pos;
    if (w->edges == ST_EDGES_WRAP) {
        p.x = st__wrap_coord(p.x, w->width);
        p.y = st__wrap_coord(p.y, w->height);
    }
    it->pos = p;
    it->index = (uint32_t)i;
    it->tag = w->tags[i];
    st_grid_lanes *l = g->lanes;
    if (l) {
        l->x[k] = (float)(p.x - st__block_x(g, cx));
        l->y[k] = (float)(p.y - st__block_y(g, cy));
        l->hx[k] = (float)b->heading.x;
        l->hy[k] = (float)b->heading.y;
        l->index[k] = (uint32_t)i;
        l->tag[k] = it->tag;
    }
}

/// The lanes' slack past the last item: read by whole vectors, masked off,
/// and defined all the same.
static void lanes_pad(st_grid *g)
{
    st_grid_lanes *l = g->lanes;
    if (!l) return;
    for (int k = g->item_count; k < g->item_count + ST_GRID_LANE_PAD; k++) {
        l->x[k] = l->y[k] = l->hx[k] = l->hy[k] = 0.0f;
        l->index[k] = UINT32_MAX;
        l->tag[k] = ST_TAG_ANY;
    }
}

/// Agent i's cell in the build: the one the step before kept for it
/// (st_grid.next_cells), else from its position. Counting and placing take
/// it from the same place, so each cell gets the slots it was counted.
static inline void build_cell(const st_world *w, const st_grid *g, int i, int *cx, int *cy)
{
    if (g->pre_cells > 0) {
        int c = g->next_cells[i];
        *cy = c / g->nx;
        *cx = c - *cy * g->nx;
        return;
    }
    st__cell_xy(w, g, w->bodies[i].pos, cx, cy);
}

/// Agent i into its cell at the cursor, which moves on (slices, in order).
static inline void place(st_world *w, st_grid *g, int i, int32_t *cursor)
{
    int cx, cy;
    build_cell(w, g, i, &cx, &cy);
    fill_item(w, g, cursor[cy * g->nx + cx]++, cx, cy, i);
}

/// Agent i into its cell just below the cursor, which moves down (the
/// serial sort, from the last agent to the first).
static inline void place_back(st_world *w, st_grid *g, int i, int32_t *cursor)
{
    int cx, cy;
    build_cell(w, g, i, &cx, &cy);
    fill_item(w, g, --cursor[cy * g->nx + cx], cx, cy, i);
}

/// Agents [i0, i1) counted into their cells' counters h (fetching bodies
/// ahead with `ahead`). A wrap world with every agent alive has a loop of
/// its own, as in place_agents.
ST__INLINE void count_agents(const st_world *w, const st_grid *g, int i0, int i1, int32_t *h, bool ahead)
{
    if (g->pre_cells > 0) { // every agent's cell kept by the step before (and all alive)
        const int32_t *cell = g->next_cells;
        for (int i = i0; i < i1; i++) h[cell[i]]++;
        return;
    }
    if (w->edges != ST_EDGES_WRAP || w->dead != 0) {
        for (int i = i0; i < i1; i++) {
            if (ahead) ST__PREFETCH(&w->bodies[i + ST_BUILD_AHEAD < i1 ? i + ST_BUILD_AHEAD : i]);
            if (counted(w, i)) h[st__cell_of(w, g, w->bodies[i].pos)]++;
        }
        return;
    }
    const st_body *bodies = w->bodies;
    const double W = w->width, H = w->height, cw = g->cell_w, ch = g->cell_h;
    const int nx = g->nx, ny = g->ny;
    for (int i = i0; i < i1; i++) {
        if (ahead) ST__PREFETCH(&bodies[i + ST_BUILD_AHEAD < i1 ? i + ST_BUILD_AHEAD : i]);
        int cx, cy; // st__cell_xy's
        st__folded_cell(st__wrap_coord(bodies[i].pos.x, W), st__wrap_coord(bodies[i].pos.y, H), cw, ch, nx, ny, &cx, &cy);
        h[cy * nx + cx]++;
    }
}

/// Agents [i0, i1) into their cells at the cursors: first to last, each
/// cursor moving on (place), or with `back` last to first, each moving down
/// (place_back). A wrap world with every agent alive (the common case) has
/// a loop of its own: place's arithmetic, with the world's settings and the
/// lanes' arrays in locals (the loop's stores could alias them for all the
/// compiler knows) and each position folded once.
ST__INLINE void place_agents(st_world *w, st_grid *g, int i0, int i1, int32_t *cursor, bool back)
{
    const st_grid_lanes *l = g->lanes;
    if (!l || w->edges != ST_EDGES_WRAP || w->dead != 0) {
        for (int n = 0; n < i1 - i0; n++) {
            int i = back ? i1 - 1 - n : i0 + n;
            if (!back) ST__PREFETCH(&w->bodies[i + ST_BUILD_AHEAD < i1 ? i + ST_BUILD_AHEAD : i]);
            if (!counted(w, i)) continue;
            if (back) place_back(w, g, i, cursor);
            else place(w, g, i, cursor);
        }
        return;
    }
    float *lx = l->x, *ly = l->y, *lhx = l->hx, *lhy = l->hy;
    uint32_t *lindex = l->index;
    int32_t *ltag = l->tag;
    st_grid_item *items = g->items;
    const st_body *bodies = w->bodies;
    const int32_t *tags = w->tags;
    const double W = w->width, H = w->height, cw = g->cell_w, ch = g->cell_h;
    const int nx = g->nx, ny = g->ny;
    const int32_t *kept = g->pre_cells > 0 ? g->next_cells : NULL; // as build_cell
    for (int n = 0; n < i1 - i0; n++) {
        int i = back ? i1 - 1 - n : i0 + n;
        if (!back) ST__PREFETCH(&bodies[i + ST_BUILD_AHEAD < i1 ? i + ST_BUILD_AHEAD : i]);
        const st_body *b = &bodies[i];
        // st__cell_xy's cell of the folded position, as fill_item keeps it.
        const st_vec2 p = st_v2(st__wrap_coord(b->pos.x, W), st__wrap_coord(b->pos.y, H));
        int cx, cy;
        if (kept) {
            cy = kept[i] / nx;
            cx = kept[i] - cy * nx;
        } else {
            st__folded_cell(p.x, p.y, cw, ch, nx, ny, &cx, &cy);
        }
        const int k = back ? --cursor[cy * nx + cx] : cursor[cy * nx + cx]++;
        const int32_t tag = tags[i];
        items[k] = (st_grid_item){p, (uint32_t)i, tag};
        // st__block_x, st__block_y: the corner of the cell's block.
        lx[k] = (float)(p.x - (double)(cx & ~(ST_GRID_BLOCK - 1)) * cw);
        ly[k] = (float)(p.y - (double)(cy & ~(ST_GRID_BLOCK - 1)) * ch);
        lhx[k] = (float)b->heading.x;
        lhy[k] = (float)b->heading.y;
        lindex[k] = (uint32_t)i;
        ltag[k] = tag;
    }
}

/// The counts (one a cell, in `counts`) become where each cell ends, in
/// start (start[cells]: the total), and the counts are cleared for the
/// next build. Placing then fills each cell from its end down, taking the
/// agents from the last to the first, so every cursor ends where its cell
/// begins and the cell lists them in order: no pass over the cells to
/// shift cursors back, nor one to clear the counters first (a world of
/// millions of mostly empty cells, as the RVO2 Circle's, spent much of its
/// build on such passes).
static void counts_to_ends(int32_t *counts, int32_t *start, int cells)
{
    int32_t run = 0;
    int c = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    // Four cells at a time: four empty ones (most of a sparse world's)
    // just take the running total; others add up within the register.
    const __m128i zero = _mm_setzero_si128();
    for (; c + 4 <= cells; c += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(counts + c));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(v, zero)) != 0xFFFF) {
            _mm_storeu_si128((__m128i *)(counts + c), zero);
            v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
            v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
            v = _mm_add_epi32(v, _mm_set1_epi32(run));
            run = _mm_cvtsi128_si32(_mm_shuffle_epi32(v, 0xFF));
            _mm_storeu_si128((__m128i *)(start + c), v);
        } else {
            _mm_storeu_si128((__m128i *)(start + c), _mm_set1_epi32(run));
        }
    }
#endif
    for (; c < cells; c++) {
        start[c] = run += counts[c];
        counts[c] = 0;
    }
    start[cells] = run;
}

// The counting sort, split into slices of the dense array: each slice is
// counted into its own histogram, the histograms are laid end to end per
// cell in slice order, and each slice is placed from its own cursors. Every
// cell lists its agents in spawn order whatever the thread count, so queries
// visit candidates in the same order and sums come out bit for bit the same.
static inline int32_t *slice_row(st_grid *g, int s, int cells)
{
    // Slice 0 counts straight into cell_start (shifted by one, as the
    // serial sort does); the others into the extra histograms.
    return s == 0 ? g->cell_start + 1 : g->hist + (size_t)(s - 1) * cells;
}

static inline void slice_range(int count, int s, int ns, int *i0, int *i1)
{
    *i0 = (int)((int64_t)count * s / ns);
    *i1 = (int)((int64_t)count * (s + 1) / ns);
}

/// counted_already: the slices' histograms hold the counts (the integrator
/// made them, see st__grid_slices).
static void sort_slices(st_world *w, st_grid *g, int count, int cells, int ns, bool counted_already)
{
#ifdef STEER_HAVE_OPENMP
#pragma omp parallel num_threads(ns)
#endif
    {
#ifdef STEER_HAVE_OPENMP
        int t0 = omp_get_thread_num(), nth = omp_get_num_threads();
#else
        int t0 = 0, nth = 1;
#endif
        // Slices, not threads, fix the layout: a team smaller than asked
        // for just takes more slices each.
        for (int s = t0; s < ns; s += nth) {
            if (counted_already) break;
            int i0, i1;
            slice_range(count, s, ns, &i0, &i1);
            int32_t *h = slice_row(g, s, cells);
            for (int c = 0; c < cells; c++) h[c] = 0;
            count_agents(w, g, i0, i1, h, true);
        }
#ifdef STEER_HAVE_OPENMP
#pragma omp barrier
#pragma omp single
#endif
        {
            // Counts become each slice's first slot in each cell.
            int32_t sum = 0;
            for (int c = 0; c < cells; c++) {
                for (int s = 0; s < ns; s++) {
                    int32_t *h = slice_row(g, s, cells);
                    int32_t n = h[c];
                    h[c] = sum;
                    sum += n;
                }
            }
        } // the single ends with a barrier: every cursor is ready
        for (int s = t0; s < ns; s += nth) {
            int i0, i1;
            slice_range(count, s, ns, &i0, &i1);
            place_agents(w, g, i0, i1, slice_row(g, s, cells), false);
        }
    }
}

void st__grid_build(st_world *w, int count)
{
    st_grid *g = &w->grid;
    const int was_nx = g->nx, was_ny = g->ny;
    const double was_w = g->cell_w, was_h = g->cell_h;
    grid_dims(w, g);
    int cells = g->nx * g->ny;
    // The cells the last step kept hold for this geometry alone (anything
    // that changes it clears them too: st__moved).
    if (g->pre_cells != count || count == 0 || w->dead != 0 || g->nx != was_nx || g->ny != was_ny ||
        g->cell_w != was_w || g->cell_h != was_h)
        g->pre_cells = 0;

    if (!grid_reserve(g, cells, count, true)) goto fail;
    if (g->next_cells_cap < g->agent_cap) {
        // For the next build (the step's fused pass fills it); without
        // it, that build only counts from the bodies.
        int32_t *c = st__realloc(&g->mem, g->next_cells, (size_t)g->agent_cap * sizeof *c);
        if (c) {
            g->next_cells = c;
            g->next_cells_cap = g->agent_cap;
        }
    }

    int32_t *start = g->cell_start;
    int nt = 1;
#ifdef STEER_HAVE_OPENMP
    if (w->threads > 1 && count >= ST_GRID_PARALLEL_MIN) nt = w->threads;
#endif
    if (nt > 1) {
        // One histogram per extra slice, kept from step to step.
        int hist_cap = g->hist_cap;
        if ((int64_t)(nt - 1) * cells > INT32_MAX || !grow_i32(&g->mem, &g->hist, &hist_cap, (nt - 1) * cells)) nt = 1;
        else g->hist_cap = hist_cap;
    }
    if (nt > 1) {
        bool pre = g->pre_slices == nt && g->pre_count == count && w->dead == 0;
        sort_slices(w, g, count, cells, nt, pre);
        // Placing advanced every cursor to the end of its share: the last
        // slice's cursor of cell c now sits where cell c + 1 begins.
        const int32_t *last = g->hist + (size_t)(nt - 2) * cells;
        for (int c = 0; c < cells; c++) start[c + 1] = last[c];
        start[0] = 0;
    } else {
        if (!counts_reserve(g, cells)) goto fail;
        int32_t *counts = g->counts;
        // Two passes, the cell computed in each rather than stored: 4 bytes an
        // agent saved for a division an axis.
        count_agents(w, g, 0, count, counts, false);
        counts_to_ends(counts, start, cells);
        // Each cell lists its agents in dense (spawn) order, so queries
        // visit candidates deterministically; start[c] is the cursor, and
        // ends where cell c begins.
        place_agents(w, g, 0, count, start, true);
    }
    g->item_count = start[cells];
    lanes_pad(g);
    g->pre_slices = 0; // the histograms now hold cursors
    g->pre_cells = 0;
    w->grid_dirty = false;
    w->grid_epoch++;
    return;

fail:
    // Out of memory: an empty grid answers every query with nothing rather
    // than reading freed cells.
    g->pre_slices = 0;
    g->pre_cells = 0;
    g->nx = g->ny = 1;
    if (g->cell_start && g->cell_cap >= 2) g->cell_start[0] = g->cell_start[1] = 0;
    g->item_count = 0;
    w->grid_epoch++;
}

// Agents a cell that a query may answer with (of its tag), on average,
// from which st_world_nearest's first disc is half a cell wide rather than
// one: 1.5 a cell put 1.2 on average in that disc, which then holds one
// seven times in ten, and it reads about 2 x 2 cells rather than 3 x 3 (a
// cell row is a run of its own, with its own line of cell starts: fewer
// rows are what saves). Below that the wider disc that follows a miss
// costs more than the narrow one saved.
#define ST_NEAREST_CROWDED 1.5

/// The radius of st_world_nearest's first disc on grid g, where `members`
/// of its items can be an answer: a cell, or half a crowded one.
static double nearest_step(const st_grid *g, int members)
{
    double step = g->cell_w > g->cell_h ? g->cell_w : g->cell_h;
    return (double)members >= ST_NEAREST_CROWDED * g->nx * g->ny ? 0.5 * step : step;
}

/* ---- tag grids (world_internal.h) ---- */

// Below this many agents the main grid is cheap enough for any query. (It
// was 1024: at 100 to 1,000 agents the hunt brains of steer_bench_hunt
// then took 1.5 to 3.5 times as long as with tag grids, same answers.)
#define ST_TAG_GRID_MIN 64
// A tag gets its own grid when at most this fraction of agents carry it.
#define ST_TAG_GRID_SHARE 4
// Its cells hold about one of its agents each on average, but are never
// coarser than this many main cells: a tag whose few agents gather in one
// spot then still splits into several cells.
#define ST_TAG_GRID_COARSEST 4.0

void st__tag_grids_free(st_world *w)
{
    for (int k = 0; k < ST_TAG_GRIDS; k++) {
        st__grid_free(&w->tag_grids[k].g);
        w->tag_grids[k].epoch = 0;
    }
}

/// Sorts the main grid's items of `tag` (count of them) into t's cells, in
/// main-grid order. False when out of memory.
static bool tag_grid_build(st_world *w, st_grid *t, int32_t tag, int count)
{
    const st_grid *g = &w->grid;
    double area = w->width * w->height;
    double cell = sqrt(area / (count > 0 ? count : 1));
    if (!(cell <= ST_TAG_GRID_COARSEST * w->cell_size)) cell = ST_TAG_GRID_COARSEST * w->cell_size;
    if (cell < w->cell_size) cell = w->cell_size;
    grid_dims_for(w, t, cell);
    int cells = t->nx * t->ny;
    if (!grid_reserve(t, cells, count, false)) return false;
    int32_t *start = t->cell_start;
    if (!counts_reserve(t, cells)) return false;
    // The tags from the lanes (4 bytes an item, not 24): a rare tag's items
    // are then the only ones read, in two passes over the grid.
    const st_grid_item *items = g->items;
    const int32_t *tags = g->lanes ? g->lanes->tag : NULL;
    for (int k = 0; k < g->item_count; k++)
        if ((tags ? tags[k] : items[k].tag) == tag) t->counts[st__cell_of(w, t, items[k].pos)]++;
    counts_to_ends(t->counts, start, cells);
    for (int k = g->item_count - 1; k >= 0; k--)
        if ((tags ? tags[k] : items[k].tag) == tag) t->items[--start[st__cell_of(w, t, items[k].pos)]] = items[k];
    t->item_count = start[cells];
    if (t->item_count > t->ids_cap) {
        int n = t->ids_cap ? t->ids_cap : 64;
        while (n < t->item_count) n *= 2;
        st_agent_id *ids = st__realloc(&g->mem, t->ids, (size_t)n * sizeof *ids);
        if (!ids) return false;
        t->ids = ids;
        t->ids_cap = n;
    }
    for (int k = 0; k < t->item_count; k++) {
        uint32_t slot = w->agents[t->items[k].index].slot;
        t->ids[k].index = slot;
        t->ids[k].generation = w->slots[slot].generation;
    }
    return true;
}

/// st__grid_for_tag's answer when it is the grid it gave last (thousands of
/// brains in a row ask for the same tag), else NULL. Inlined where the
/// call would cost more than the look.
static inline const st_grid *tag_grid_again(st_world *w, int32_t tag)
{
    const st_grid *g = &w->grid;
    if (tag == ST_TAG_ANY || g->item_count < ST_TAG_GRID_MIN || w->brute_force) return g;
    st_tag_grid *last = &w->tag_grids[w->tag_last];
    if (last->tag == tag && last->epoch == w->grid_epoch) {
        last->used = ++w->tag_clock;
        return last->rare ? &last->g : g;
    }
    return NULL;
}

const st_grid *st__grid_for_tag(st_world *w, int32_t tag)
{
    const st_grid *g = tag_grid_again(w, tag);
    if (g != NULL) return g;
    g = &w->grid;
    st_tag_grid *slot = NULL;
    for (int k = 0; k < ST_TAG_GRIDS; k++) {
        st_tag_grid *t = &w->tag_grids[k];
        if (t->tag == tag && t->epoch == w->grid_epoch) {
            t->used = ++w->tag_clock;
            w->tag_last = k;
            return t->rare ? &t->g : g;
        }
        if (t->tag == tag && t->epoch != 0) slot = t; // stale: rebuild in place
    }
    if (slot == NULL) {
        slot = &w->tag_grids[0];
        for (int k = 1; k < ST_TAG_GRIDS; k++)
            if (w->tag_grids[k].used < slot->used) slot = &w->tag_grids[k];
    }
    slot->used = ++w->tag_clock;
    slot->g.mem = w->mem;
    w->tag_last = (int)(slot - w->tag_grids);
    slot->tag = tag;
    slot->epoch = w->grid_epoch;
    int count = 0;
    if (g->lanes) {
        const int32_t *tags = g->lanes->tag;
        for (int k = 0; k < g->item_count; k++) count += tags[k] == tag;
    } else {
        for (int k = 0; k < g->item_count; k++) count += g->items[k].tag == tag;
    }
    slot->rare = (int64_t)count * ST_TAG_GRID_SHARE <= g->item_count && tag_grid_build(w, &slot->g, tag, count);
    // On the main grid only the tag's own agents count: a hunter's
    // "nearest prey" at one agent per 900 square units and cells of 50
    // finds 2.5 prey a cell, and starts with half a cell.
    slot->near_step = slot->rare ? nearest_step(&slot->g, slot->g.item_count) : nearest_step(g, count);
    return slot->rare ? &slot->g : g;
}

/// The grid that answers st_world_nearest's query filtered by `tag`
/// (st__grid_for_tag's), and the radius of its first disc there.
static inline const st_grid *nearest_grid(st_world *w, int32_t tag, double *step)
{
    const st_grid *g = &w->grid;
    if (tag == ST_TAG_ANY || g->item_count < ST_TAG_GRID_MIN || w->brute_force) {
        *step = nearest_step(g, g->item_count);
        return g;
    }
    g = tag_grid_again(w, tag);
    if (g == NULL) g = st__grid_for_tag(w, tag);
    // either made the slot of this tag the last one
    *step = w->tag_grids[w->tag_last].near_step;
    return g;
}

int st__grid_slices(st_world *w, int count)
{
    // Called at the end of a step, while the grid built at its start is
    // still in use: nothing here may move or resize it. The next build sorts
    // in the same slices when its geometry and thread count are this build's
    // and its histograms are already allocated; otherwise 1: it counts itself.
    const st_grid *g = &w->grid;
    st_grid d = *g;
    grid_dims(w, &d);
    int cells = d.nx * d.ny;
    int nt = 1;
#ifdef STEER_HAVE_OPENMP
    if (w->threads > 1 && count >= ST_GRID_PARALLEL_MIN) nt = w->threads;
#else
    (void)count;
#endif
    if (nt == 1 || d.nx != g->nx || d.ny != g->ny || d.cell_w != g->cell_w || d.cell_h != g->cell_h) return 1;
    if (!g->cell_start || g->cell_cap < cells + 1 || (int64_t)(nt - 1) * cells > g->hist_cap) return 1;
    return nt;
}

int32_t *st__grid_slice(st_world *w, int s, int ns, int count, int *i0, int *i1)
{
    slice_range(count, s, ns, i0, i1);
    return slice_row(&w->grid, s, w->grid.nx * w->grid.ny);
}

void st__grid_ensure(st_world *w)
{
    if (w->in_step || !w->grid_dirty) return;
    st__grid_build(w, w->count);
}

typedef struct visit_ctx {
    const st_world *w;
    const st_query *q;
    int exclude;
    bool cone;
    double cos_half;
    st__visit_fn fn;
    void *ctx;
} visit_ctx;

ST__INLINE void visit_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                      double r2, bool fold)
{
    const visit_ctx *v = ctx;
    const int32_t tag = v->q->tag;
    const bool any_tag = tag == ST_TAG_ANY;
    for (int k = k0; k < k1; k++) {
        const st_grid_item *it = &items[k];
        st_vec2 d = st__run_offset(v->w, it, sx, sy, c, fold);
        double d2 = d.x * d.x + d.y * d.y;
        // One branch for the common verdicts (most candidates fail): the
        // rare checks follow only for those that pass.
        if (!((d2 <= r2) & ((int)it->index != v->exclude) & (any_tag | (it->tag == tag)))) continue;
        if (d2 == INFINITY && !st__far_within(d, v->q->radius)) continue;
        if (v->w->removed_in_step && !v->w->agents[it->index].alive) continue;
        if (v->cone && d2 > 0.0 && !st__in_cone(d, d2, v->q->heading, v->cos_half)) continue;
        v->fn(v->ctx, it, d, d2);
    }
}

/// Visits every live agent within q (fov/tag applied, and not the one at
/// dense index `exclude`) on grid g (the main grid or q's tag grid) with
/// its offset and distance^2. Inlined into each query with its callback.
ST__INLINE void grid_visit_ex(const st_world *w, const st_grid *g, const st_query *q, int exclude, st__visit_fn fn,
                              void *ctx)
{
    visit_ctx v = {w, q, exclude, q->fov > 0.0 && q->fov < 2.0 * ST_PI, 0.0, fn, ctx};
    v.cos_half = v.cone ? st_cos(0.5 * q->fov) : -2.0;
    st__grid_runs(w, g, q->center, q->radius, visit_run, &v);
}

/// grid_visit_ex without q's exclude.
ST__INLINE void grid_visit_on(const st_world *w, const st_grid *g, const st_query *q, st__visit_fn fn, void *ctx)
{
    grid_visit_ex(w, g, q, st__dense(w, q->exclude), fn, ctx);
}

ST__INLINE void grid_visit(const st_world *w, const st_query *q, st__visit_fn fn, void *ctx)
{
    grid_visit_on(w, st__grid_for_tag((st_world *)w, q->tag), q, fn, ctx);
}

void st_world_set_brute_force(st_world *w, bool on) { w->brute_force = on; }

st_query st_default_query(st_vec2 center, double radius)
{
    st_query q;
    q.center = center;
    q.radius = radius;
    q.tag = ST_TAG_ANY;
    q.exclude = st_null_agent();
    q.fov = 0.0;
    q.heading = st_v2(1.0, 0.0);
    return q;
}

typedef struct collect_ctx {
    st_world *w;
    int n;
    bool oom;
} collect_ctx;

ST__INLINE void collect(void *ctx, const st_grid_item *item, st_vec2 offset, double dist2)
{
    (void)offset;
    uint32_t index = item->index;
    collect_ctx *c = ctx;
    st_world *w = c->w;
    if (c->n >= w->scratch_cap) {
        int cap = w->scratch_cap ? w->scratch_cap * 2 : 256;
        st_query_hit *s = st__realloc(&w->mem, w->scratch, (size_t)cap * sizeof *s);
        if (!s) {
            c->oom = true;
            return;
        }
        w->scratch = s;
        w->scratch_cap = cap;
    }
    w->scratch[c->n].dist2 = dist2;
    w->scratch[c->n].index = index;
    c->n++;
}

/// Nearer first; at the same distance the one spawned first (storage order
/// is spawn order only until a big world's first reorder).
static inline bool hit_less(const st_world *w, const st_query_hit *a, const st_query_hit *b)
{
    return a->dist2 < b->dist2 ||
           (a->dist2 == b->dist2 && w->agents[a->index].serial < w->agents[b->index].serial);
}

/// Nearest first, ties by spawn order. Keys are unique (no two hits share
/// an index), so any correct sort gives the same order. Insertion sort for
/// the short lists queries usually return, quicksort above that; no qsort,
/// whose call per comparison costs more than the comparison.
static void sort_hits(const st_world *w, st_query_hit *h, int n)
{
    while (n > 24) {
        // Median of three as the pivot, then Hoare partition.
        st_query_hit *a = &h[0], *m = &h[n / 2], *z = &h[n - 1], t;
        if (hit_less(w, m, a)) { t = *m; *m = *a; *a = t; }
        if (hit_less(w, z, m)) { t = *z; *z = *m; *m = t; }
        if (hit_less(w, m, a)) { t = *m; *m = *a; *a = t; }
        st_query_hit pivot = *m;
        int i = 0, j = n - 1;
        for (;;) {
            while (hit_less(w, &h[i], &pivot)) i++;
            while (hit_less(w, &pivot, &h[j])) j--;
            if (i >= j) break;
            t = h[i];
            h[i] = h[j];
            h[j] = t;
            i++;
            j--;
        }
        // Recurse into the smaller side, loop on the larger: O(log n) depth.
        int left = j + 1;
        if (left < n - left) {
            sort_hits(w, h, left);
            h += left;
            n -= left;
        } else {
            sort_hits(w, h + left, n - left);
            n = left;
        }
    }
    for (int i = 1; i < n; i++) {
        st_query_hit x = h[i];
        int j = i;
        for (; j > 0 && hit_less(w, &x, &h[j - 1]); j--) h[j] = h[j - 1];
        h[j] = x;
    }
}

static bool query_ok(const st_query *q)
{
    return q && st_v2_finite(q->center) && st_finite(q->radius) && q->radius >= 0.0 && !isnan(q->fov) &&
           st_v2_finite(q->heading);
}

int st_world_query(const st_world *cw, const st_query *q, st_agent_id *out, double *dist, int cap)
{
    // The grid and the scratch buffer are caches: refreshing them does not
    // change what the world is.
    st_world *w = (st_world *)cw;
    assert(query_ok(q));
    if (!query_ok(q)) return 0;
    st__grid_ensure(w);
    collect_ctx c = {w, 0, false};
    grid_visit(w, q, collect, &c);
    sort_hits(w, w->scratch, c.n);
    int m = c.n < cap ? c.n : cap;
    for (int k = 0; k < m; k++) {
        const st_agent *a = &w->agents[w->scratch[k].index];
        if (out) {
            out[k].index = a->slot;
            out[k].generation = w->slots[a->slot].generation;
        }
        if (dist) dist[k] = sqrt(w->scratch[k].dist2);
    }
    return c.n;
}

typedef struct nearest_ctx {
    double best;
    int64_t index;
    const st_grid_item *item;
    st_vec2 offset;
    const st_world *w;
} nearest_ctx;

ST__INLINE void nearest(void *ctx, const st_grid_item *item, st_vec2 offset, double dist2)
{
    nearest_ctx *c = ctx;
    uint32_t index = item->index;
    // The first candidate counts even when its dist2 overflowed to inf (a
    // radius near 1e308 admits it); a tie goes to the one spawned first.
    if (dist2 < c->best ||
        (dist2 == c->best && (c->index < 0 || c->w->agents[index].serial < c->w->agents[c->index].serial))) {
        c->best = dist2;
        c->index = index;
        c->item = item;
        c->offset = offset;
    }
}

/// Whether st__grid_runs folds the offsets of q's disc on grid g.
static inline bool nearest_folds(const st_world *w, const st_grid *g, const st_query *q)
{
    if (w->edges != ST_EDGES_WRAP) return false;
    // A disc narrower than the world by more than two cells spans fewer
    // columns and rows than the grid has, wherever it lies (the columns it
    // touches are at most 2 r / cell + 2): no fold, known without the
    // divisions below. The margin of a whole cell dwarfs any rounding.
    double span = 2.0 * q->radius;
    if (span + 3.0 * g->cell_w < g->nx * g->cell_w && span + 3.0 * g->cell_h < g->ny * g->cell_h) return false;
    double cx = st__wrap_coord(q->center.x, w->width), cy = st__wrap_coord(q->center.y, w->height);
    return st__grid_folds(g, floor((cx - q->radius) / g->cell_w), floor((cx + q->radius) / g->cell_w),
                          floor((cy - q->radius) / g->cell_h), floor((cy + q->radius) / g->cell_h));
}

/// One run of st_world_nearest's own search: nearest() for each item of
/// items[k0, k1) within r2 of c, not at dense index `exclude`, and of
/// `tag` unless that is ST_TAG_ANY. The offsets are st__run_offset's
/// without a fold, the tests visit_run's without a view cone: the answers
/// are those of the general visit, bit for bit.
ST__INLINE void near_run(nearest_ctx *n, const st_grid_item *items, int k0, int k1, double sx, double sy,
                         st_vec2 c, double r, double r2, int exclude, int32_t tag)
{
    for (int k = k0; k < k1; k++) {
        const st_grid_item *it = &items[k];
        st_vec2 d = st_v2(it->pos.x + sx - c.x, it->pos.y + sy - c.y);
        double d2 = d.x * d.x + d.y * d.y;
        // One branch for the common verdicts (outside the disc, the asker,
        // another tag, farther than the best so far: nearest() would keep
        // none of them), whose outcome no predictor can guess; the rare
        // checks follow for the rest.
        if (!((d2 <= r2) & ((int)it->index != exclude) & ((tag == ST_TAG_ANY) | (it->tag == tag)) &
              (d2 <= n->best)))
            continue;
        if (d2 == INFINITY && !st__far_within(d, r)) continue;
        if (n->w->removed_in_step && !n->w->agents[it->index].alive) continue;
        nearest(n, it, d, d2);
    }
}

/// near_run as an st__run_fn, for st__grid_wrap_rows (no fold: see near_disc).
typedef struct near_ctx {
    nearest_ctx *n;
    int exclude;
    int32_t tag;
    double r;
} near_ctx;

ST__INLINE void near_wrap_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                              double r2, bool fold)
{
    (void)fold;
    const near_ctx *q = ctx;
    near_run(q->n, items, k0, k1, sx, sy, c, q->r, r2, q->exclude, q->tag);
}

/// st_world_nearest's visit of the disc of radius r around c on g: the runs
/// st__grid_runs gives, for a centre already folded into a wrap world and a
/// disc that does not fold across it (the caller knows both). A brain's
/// query makes one or two such visits; the general visit would redo the
/// fold, the cone and the brute-force checks for each.
ST__INLINE void near_disc(nearest_ctx *n, const st_grid *g, st_vec2 c, double r, int exclude, int32_t tag)
{
    const st_world *w = n->w;
    const st_grid_item *items = g->items;
    const int32_t *start = g->cell_start;
    const int nx = g->nx, ny = g->ny;
    const double r2 = r * r;
    if (w->edges != ST_EDGES_WRAP) {
        int cx0 = st__clamp_cell(st__floor((c.x - r) / g->cell_w), nx);
        int cx1 = st__clamp_cell(st__floor((c.x + r) / g->cell_w), nx);
        int cy0 = st__clamp_cell(st__floor((c.y - r) / g->cell_h), ny);
        int cy1 = st__clamp_cell(st__floor((c.y + r) / g->cell_h), ny);
        for (int cy = cy0; cy <= cy1; cy++)
            near_run(n, items, start[cy * nx + cx0], start[cy * nx + cx1 + 1], 0.0, 0.0, c, r, r2, exclude, tag);
        return;
    }
    near_ctx q = {n, exclude, tag, r};
    st__grid_wrap_rows(w, g, (int)st__floor((c.x - r) / g->cell_w), (int)st__floor((c.x + r) / g->cell_w),
                       (int)st__floor((c.y - r) / g->cell_h), (int)st__floor((c.y + r) / g->cell_h), c, r2,
                       near_wrap_run, &q);
}

/// How far st_world_nearest's search around `center` must reach for the
/// agent whose handle slot is `slot`: no farther than its last answer lies
/// now (w->near_last), when that one is alive, of the tag asked for and
/// within q's radius; else q's radius. A bound found this way holds an
/// agent of the search, or the search runs again in full (the caller), so
/// the answer never depends on it.
static double near_bound(const st_world *w, const st_query *q, uint32_t slot, int exclude, st_vec2 center)
{
    if (slot >= w->near_cap) return q->radius;
    int j = st__dense(w, w->near_last[slot]);
    if (j < 0 || j == exclude || (q->tag != ST_TAG_ANY && w->tags[j] != q->tag)) return q->radius;
    st_vec2 d = st__offset(w, center, w->bodies[j].pos);
    double d2 = d.x * d.x + d.y * d.y;
    if (!(d2 <= q->radius * q->radius)) return q->radius; // also nan
    // A hair wider than the distance, whose rounding may differ from the
    // search's offsets by an ulp or two.
    double r = sqrt(d2) * (1.0 + 1e-9) + 1e-9;
    return r < q->radius ? r : q->radius;
}

/// Brains mostly ask in handle order (spawn order: each world's brain list
/// and a C loop over its agents), and an agent's answer is mostly its last
/// one: while the agent in `slot` asks, the lines the next askers' searches
/// will read first are fetched (the handle table's line of the answer of
/// the one after next; that answer's tag, position and record for the next
/// one: near_bound and the returned handle read them). Only a cache hint:
/// another order costs the hint, never an answer.
static inline void near_prefetch(const st_world *w, uint32_t slot)
{
    if (slot + 2 >= w->near_cap) return;
    st_agent_id later = w->near_last[slot + 2];
    if (later.index < w->slot_count) ST__PREFETCH(&w->slots[later.index]);
    st_agent_id next = w->near_last[slot + 1];
    if (next.index >= w->slot_count) return;
    uint32_t j = w->slots[next.index].dense; // a free slot's has its top bit: past count
    if (j >= (uint32_t)w->count) return;
    ST__PREFETCH(&w->tags[j]);
    ST__PREFETCH(&w->bodies[j].pos);
    ST__PREFETCH(&w->agents[j].slot);
}

/// Keeps `id` as the last answer to the agent in handle slot `slot`.
static void near_keep(st_world *w, uint32_t slot, st_agent_id id)
{
    if (slot >= w->near_cap) {
        uint32_t n = w->slot_cap > slot ? w->slot_cap : slot + 1;
        st_agent_id *p = st__realloc(&w->mem, w->near_last, (size_t)n * sizeof *p);
        if (!p) return; // no bound next time: only slower
        memset(p + w->near_cap, 0, (size_t)(n - w->near_cap) * sizeof *p);
        w->near_last = p;
        w->near_cap = n;
    }
    w->near_last[slot] = id;
}

st_agent_id st_world_nearest(const st_world *cw, const st_query *q, double *dist)
{
    st_world *w = (st_world *)cw;
    assert(query_ok(q));
    if (!query_ok(q)) return st_null_agent();
    if (w->grid_dirty && !w->in_step) st__grid_build(w, w->count); // st__grid_ensure, without its call
    nearest_ctx c = {INFINITY, -1, NULL, {0.0, 0.0}, w};
    double step;
    const st_grid *g = nearest_grid(w, q->tag, &step);
    int exclude = st__dense(w, q->exclude);
    // Nearest first: a radius many cells wide is searched in discs of one
    // cell, two, four ... cells first. Once a disc holds a candidate, the
    // nearest one there is the answer within the whole radius (anyone
    // nearer, or as near, lies in that disc too), found with the same
    // offsets and ties as the full search, so with every bit the same; a
    // crowd's "nearest prey within 150" reads 9 cells instead of 49. Not
    // when the full disc folds across a wrap world (other arithmetic for the
    // offsets) or the grid is bypassed.
    bool cone = q->fov > 0.0 && q->fov < 2.0 * ST_PI;
    if (g->item_count > 0 && g->cell_start && !w->brute_force && !cone && !nearest_folds(w, g, q)) {
        // The usual query (a brain's): no view cone, no fold, so every disc
        // is visited by near_disc around the one folded centre.
        st_vec2 center = q->center;
        if (w->edges == ST_EDGES_WRAP)
            center = st_v2(st__wrap_coord(center.x, w->width), st__wrap_coord(center.y, w->height));
        // a tag grid holds its tag alone: no tag test for its items
        const int32_t tag = g == &w->grid ? q->tag : ST_TAG_ANY;
        // An agent asking again (a brain, every step) mostly has the same
        // answer as before, or one nearer: the disc need only reach that far.
        if (exclude >= 0) near_prefetch(w, q->exclude.index);
        const double radius = exclude >= 0 ? near_bound(w, q, q->exclude.index, exclude, center) : q->radius;
        double r = step;
        for (int k = 0; k < 4 && r * 1.5 < radius && c.index < 0; k++, r *= 2.0)
            near_disc(&c, g, center, r, exclude, tag);
        if (c.index < 0) near_disc(&c, g, center, radius, exclude, tag);
        // Nobody within the bound (its agent moved, or is not in this
        // step's grid): the whole disc.
        if (c.index < 0 && radius < q->radius) near_disc(&c, g, center, q->radius, exclude, tag);
    } else {
        if (g->item_count > 0 && !w->brute_force && q->radius > 1.5 * step && !nearest_folds(w, g, q)) {
            st_query near = *q;
            near.radius = step;
            for (int k = 0; k < 4 && near.radius * 1.5 < q->radius && c.index < 0; k++, near.radius *= 2.0)
                grid_visit_ex(w, g, &near, exclude, nearest, &c);
        }
        if (c.index < 0) grid_visit_ex(w, g, q, exclude, nearest, &c);
    }
    if (c.index < 0) return st_null_agent();
    // A brain's next call is most often a behaviour toward the answer
    // (pursue, evade): its body is on its way meanwhile.
    ST__PREFETCH(&w->bodies[c.index]);
    if (dist) {
        // dist2 may have overflowed: the length of the offset, at most DBL_MAX
        double d = isfinite(c.best) ? sqrt(c.best) : st_hypot(c.offset.x, c.offset.y);
        *dist = d <= DBL_MAX ? d : DBL_MAX;
    }
    st_agent_id id;
    if (g->ids != NULL) {
        id = g->ids[c.item - g->items];
    } else {
        const st_agent *a = &w->agents[c.index];
        id.index = a->slot;
        id.generation = w->slots[a->slot].generation;
    }
    w->hint_id = id;
    w->hint_dense = (int)c.index;
    if (exclude >= 0) near_keep(w, q->exclude.index, id);
    return id;
}
