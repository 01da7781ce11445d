/*
 * orca_gather.c — an ORCA agent's neighbours, nearest first (ties by
 * serial), so that its half-planes never depend on grid order or thread
 * count; and the obstacle edges near it.
 *
 * The scan appends every grid item within range without a branch on the
 * distance, one pass classifies them, and they are ranked by their
 * distances as float keys without a branch on the data; only keys that tie
 * are put in exact order.
 */
#include <string.h>

#include "grid_iter.h"
#include "orca_gather.h"

#if ORCA_SSE2
#include <emmintrin.h>
#endif

static inline void gather_init(gather *g, const st_world *w, int self, uint32_t mask, int cap, const st_body *b,
                               double dt)
{
    g->w = w;
    g->peer = w->avoid->peer;
    g->items = w->grid.items;
    g->self = (uint32_t)self;
    g->mask = mask;
    g->cap = cap;
    g->radius = b->radius;
    g->reach_speed = b->max_speed;
    g->dt = dt;
    g->n = 0;
}

/// Candidate q: its dense index, whether it is someone to avoid (not
/// itself, alive, on a layer the mask takes) and whether it is close. No
/// branch on any of it.
static inline bool near_classify(gather *g, int q)
{
    uint32_t j = g->items[g->item[q]].index;
    const orca_peer *o = &g->peer[j];
    bool valid = (j != g->self) & ((g->mask & o->layer) != 0);
    if (g->w->removed_in_step) valid = valid && g->w->agents[j].alive;
    double touch = g->radius + o->radius + (g->reach_speed + o->max_speed) * g->dt;
    g->index[q] = j;
    g->close[q] = g->d2[q] < touch * touch;
    g->valid[q] = valid;
    return valid;
}

/// Candidate q's sort key: its d2 as a float (rounding keeps the order,
/// ties aside) with q in the low 8 bits, so keys are distinct integers;
/// one not to avoid sorts after everyone.
static inline int32_t near_key(const gather *g, int q)
{
    // As an integer a float's bits keep its order; infinity and NaN stay
    // below the marks of the invalid (0x7FFFFFqq), as no number is.
    float f = (float)g->d2[q];
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (int32_t)((bits & ~0xFFu) | ((0u - (uint32_t)!g->valid[q]) & 0x7FFFFF00u) | (uint32_t)q);
}

/// rank[q] = how many of the keys [0, n) lie below key[q]. Up to 16 keys
/// sit in four registers and each key in turn is compared with all of them
/// at once; more take a pass over the keys each.
static void near_ranks(int32_t *key, int n, int32_t *rank)
{
#if ORCA_SSE2
    const __m128i pad = _mm_set1_epi32(INT32_MAX);
    if (n <= 16) {
        for (int v = 0; v < 4; v++) _mm_storeu_si128((__m128i *)(key + n + 4 * v), pad);
        __m128i k0 = _mm_load_si128((const __m128i *)key), k1 = _mm_load_si128((const __m128i *)(key + 4));
        __m128i k2 = _mm_load_si128((const __m128i *)(key + 8)), k3 = _mm_load_si128((const __m128i *)(key + 12));
        __m128i r0 = _mm_setzero_si128(), r1 = r0, r2 = r0, r3 = r0;
        for (int p = 0; p < n; p++) {
            __m128i b = _mm_set1_epi32(key[p]);
            r0 = _mm_sub_epi32(r0, _mm_cmpgt_epi32(k0, b));
            r1 = _mm_sub_epi32(r1, _mm_cmpgt_epi32(k1, b));
            r2 = _mm_sub_epi32(r2, _mm_cmpgt_epi32(k2, b));
            r3 = _mm_sub_epi32(r3, _mm_cmpgt_epi32(k3, b));
        }
        _mm_storeu_si128((__m128i *)rank, r0);
        _mm_storeu_si128((__m128i *)(rank + 4), r1);
        _mm_storeu_si128((__m128i *)(rank + 8), r2);
        _mm_storeu_si128((__m128i *)(rank + 12), r3);
        return;
    }
    for (int v = 0; v < 4; v++) _mm_storeu_si128((__m128i *)(key + n + 4 * v), pad);
    int padded = (n + 3) & ~3;
    for (int q = 0; q < n; q++) {
        __m128i x = _mm_set1_epi32(key[q]), acc = _mm_setzero_si128();
        for (int p = 0; p < padded; p += 4)
            acc = _mm_sub_epi32(acc, _mm_cmpgt_epi32(x, _mm_load_si128((const __m128i *)(key + p))));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0x4E));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0xB1));
        rank[q] = _mm_cvtsi128_si32(acc);
    }
#else
    for (int q = 0; q < n; q++) {
        int r = 0;
        for (int p = 0; p < n; p++) r += key[p] < key[q];
        rank[q] = r;
    }
#endif
}

static inline bool near_less(const gather *g, int a, int b)
{
    return g->d2[a] < g->d2[b] ||
           (g->d2[a] == g->d2[b] && g->peer[g->index[a]].serial < g->peer[g->index[b]].serial);
}

/// Puts ord[0, n) (sorted by float key) in exact order: only those whose
/// float keys agree move (rare outside symmetric scenes).
static ST__NOINLINE void near_exact(const gather *g, uint8_t *ord, int n)
{
    for (int k = 1; k < n; k++) {
        uint8_t a = ord[k];
        if ((g->key[a] >> 8) != (g->key[ord[k - 1]] >> 8)) continue;
        int pos = k;
        while (pos > 0 && near_less(g, a, ord[pos - 1])) {
            ord[pos] = ord[pos - 1];
            pos--;
        }
        ord[pos] = a;
    }
}

/// At most this many neighbours are sorted by plain insertion (near_few):
/// few comparisons, and no fix-up for the ties of the float keys, which
/// symmetric scenes (a circle) have at every agent. Its branches
/// mispredict in a random crowd, but at this size there are few of them.
#define ORCA_FEW 6

/// The few valid candidates in exact order (d2, then serial); then the
/// close ones.
static ST__NOINLINE void near_few(const gather *g, near_set *s)
{
    int m = 0;
    for (int q = 0; q < g->n; q++) {
        if (!g->valid[q]) continue;
        int pos = m++;
        while (pos > 0 && near_less(g, q, s->ord[pos - 1])) {
            s->ord[pos] = s->ord[pos - 1];
            pos--;
        }
        s->ord[pos] = (uint8_t)q;
    }
    int nc = 0;
    for (int k = 0; k < m; k++) {
        s->close[nc] = s->ord[k];
        nc += g->close[s->ord[k]];
    }
    s->n_close = nc < ORCA_MAX_CLOSE ? nc : ORCA_MAX_CLOSE;
}

/// Whether two of the first `valid` sorted float keys (>> 8) agree;
/// sorted[valid, valid + 4) are overwritten.
static inline bool near_tied(int32_t *sorted, int valid)
{
    for (int t = 0; t < 4; t++) sorted[valid + t] = -1; // equal to no key >> 8
#if ORCA_SSE2
    __m128i any = _mm_setzero_si128();
    const __m128i lane = _mm_set_epi32(3, 2, 1, 0), end = _mm_set1_epi32(valid);
    for (int k = 0; k < valid; k += 4) {
        __m128i a = _mm_loadu_si128((const __m128i *)(sorted + k));
        __m128i b = _mm_loadu_si128((const __m128i *)(sorted + k + 1));
        __m128i in = _mm_cmplt_epi32(_mm_add_epi32(_mm_set1_epi32(k), lane), end);
        any = _mm_or_si128(any, _mm_and_si128(_mm_cmpeq_epi32(a, b), in));
    }
    return _mm_movemask_epi8(any) != 0;
#else
    bool tie = false;
    for (int k = 0; k < valid; k++) tie |= sorted[k] == sorted[k + 1];
    return tie;
#endif
}

/// The candidates in the order their lines are made, which decides every
/// rounding after it: nearest first, ties by serial. Each goes to its
/// rank among the keys (a permutation: they are distinct), then those
/// whose float keys agree are put in exact order. Of them, the nearest cap
/// and the nearest ORCA_MAX_CLOSE close enough to touch within the step.
static void near_select(gather *g, near_set *s)
{
    const int n = g->n;
    int valid = 0;
    // The keys with the classes (a few wasted when near_few takes them).
    for (int q = 0; q < n; q++) {
        valid += near_classify(g, q);
        g->key[q] = near_key(g, q);
    }
    s->n_valid = valid;
    s->n_best = valid < g->cap ? valid : g->cap;
    if (valid <= ORCA_FEW) {
        near_few(g, s);
        return;
    }
    int32_t rank[ORCA_CAND_MAX + 16];
    int32_t sorted[ORCA_CAND_MAX + 4];
    uint8_t closes[ORCA_CAND_MAX + 1];
    near_ranks(g->key, n, rank);
    for (int q = 0; q < n; q++) {
        s->ord[rank[q]] = (uint8_t)q;
        sorted[rank[q]] = g->key[q] >> 8;
        closes[rank[q]] = g->close[q];
    }
    // The close ones in order, no branch (the nearest ORCA_MAX_CLOSE of
    // them count).
    int nc = 0;
    for (int k = 0; k < valid; k++) {
        s->close[nc] = s->ord[k];
        nc += closes[k];
    }
    if (near_tied(sorted, valid)) {
        near_exact(g, s->ord, valid);
        nc = 0;
        for (int k = 0; k < valid; k++) {
            s->close[nc] = s->ord[k];
            nc += g->close[s->ord[k]];
        }
    }
    s->n_close = nc < ORCA_MAX_CLOSE ? nc : ORCA_MAX_CLOSE;
}

/// The buffer is nearly full: keeps only what can still make either list
/// (the nearest cap, the nearest close ones), at most cap + ORCA_MAX_CLOSE.
static ST__NOINLINE void gather_compact(gather *g)
{
    near_set s;
    near_select(g, &s);
    bool keep[ORCA_CAND_MAX] = {false};
    for (int k = 0; k < s.n_best; k++) keep[s.ord[k]] = true;
    for (int k = 0; k < s.n_close; k++) keep[s.close[k]] = true;
    int m = 0;
    for (int q = 0; q < g->n; q++) {
        if (!keep[q]) continue;
        g->d2[m] = g->d2[q];
        g->item[m] = g->item[q];
        g->rel[m] = g->rel[q];
        m++;
    }
    g->n = m;
}

/// Items [k0, k1) of a run: each one's offset and d2 go to the end of the
/// candidates, which grow by one when it is within range (NaN too, as the
/// test `!(d2 > r2)` has it). About two thirds of a run fail, in no order
/// a predictor can learn: no branch on it. Two lanes at once where SSE2 is
/// there, with the scalar code's roundings (the same operations in each).
ST__INLINE int scan_items(gather *g, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                          double r2, bool fold, int n)
{
    const st_world *w = g->w;
#if ORCA_SSE2
    if (!fold) {
        const __m128d shift = _mm_set_pd(sy, sx), centre = _mm_set_pd(c.y, c.x), lim = _mm_set_sd(r2);
        for (int k = k0; k < k1; k++) {
            __m128d off = _mm_sub_pd(_mm_add_pd(_mm_loadu_pd(&items[k].pos.x), shift), centre);
            __m128d sq = _mm_mul_pd(off, off);
            __m128d d2 = _mm_add_sd(sq, _mm_unpackhi_pd(sq, sq));
            _mm_store_pd(&g->rel[n].x, off);
            _mm_store_sd(&g->d2[n], d2);
            g->item[n] = k;
            n += !_mm_comigt_sd(d2, lim);
        }
        return n;
    }
#endif
    for (int k = k0; k < k1; k++) {
        st_vec2 off = st__run_offset(w, &items[k], sx, sy, c, fold);
        double d2 = off.x * off.x + off.y * off.y;
        g->rel[n] = off;
        g->d2[n] = d2;
        g->item[n] = k;
        n += !(d2 > r2);
    }
    return n;
}

ST__INLINE void gather_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                           double r2, bool fold)
{
    gather *g = ctx;
    while (k0 < k1) {
        if (ORCA_CAND_MAX - g->n < ORCA_CAND_ROOM) gather_compact(g);
        int room = ORCA_CAND_MAX - g->n;
        int k = k1 - k0 > room ? k0 + room : k1;
        g->n = scan_items(g, items, k0, k, sx, sy, c, r2, fold, g->n);
        k0 = k;
    }
}

/// Agent i's neighbours within range on the layers `mask` takes.
ORCA_PER_CPU void orca_gather_agents(gather *g, const st_world *w, int i, uint32_t mask, int cap, double range,
                                     double dt, near_set *s)
{
    const st_body *b = &w->bodies[i];
    gather_init(g, w, i, mask, cap, b, dt);
    st__grid_runs(w, &w->grid, b->pos, range, gather_run, g);
    near_select(g, s);
}

/* ------------------------------------------------------------------------ */
/* obstacle edges                                                           */
/* ------------------------------------------------------------------------ */

/// The nearest obstacle edges within reach, nearest first.
int orca_gather_edges(const st_world *w, const struct st_avoid_state *s, st_vec2 pos, double range, near_edge *out)
{
    int n = 0;
    double r2 = range * range;
    for (int gi = 0; gi < s->group_count; gi++) {
        const ogroup *g = &s->groups[gi];
        st_vec2 c = st_v2_scale(st_v2_add(g->lo, g->hi), 0.5);
        st_vec2 half = st_v2_scale(st_v2_sub(g->hi, g->lo), 0.5);
        st_vec2 oc = st_world_offset(w, pos, c);
        if (fabs(oc.x) > half.x + range || fabs(oc.y) > half.y + range) continue;
        st_vec2 base = st_v2_sub(oc, c); // add to an absolute point: its offset from pos
        for (int k = g->first; k < g->first + g->count; k++) {
            const overt *a = &s->verts[k], *b = &s->verts[a->next];
            st_vec2 r1 = st_v2_add(base, a->p), r2v = st_v2_add(base, b->p);
            // Only edges the agent sees from outside (to their right); a
            // segment shows one of its two edges to each side.
            st_vec2 e = st_v2_sub(r2v, r1);
            if (det(r1, e) >= 0.0) continue;
            double l2 = st_v2_len2(e);
            double t = l2 > 0.0 ? -st_v2_dot(r1, e) / l2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double d2 = st_v2_len2(st_v2_add(r1, st_v2_scale(e, t)));
            if (d2 >= r2) continue;
            int pos_i = n < ORCA_MAX_OBSTACLE_LINES ? n : ORCA_MAX_OBSTACLE_LINES - 1;
            if (n == ORCA_MAX_OBSTACLE_LINES && d2 >= out[pos_i].d2) continue;
            while (pos_i > 0 && d2 < out[pos_i - 1].d2) {
                out[pos_i] = out[pos_i - 1];
                pos_i--;
            }
            out[pos_i] = (near_edge){d2, k, r1};
            if (n < ORCA_MAX_OBSTACLE_LINES) n++;
        }
    }
    return n;
}

/// Does agent j yield to agent i? Then they share by priority; else i takes all.
