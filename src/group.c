/*
 * group.c — the neighbour sums behind separate, align, cohere and flock:
 * the hot loop of a standing flock.
 *
 * One pass over the runs of grid cells around the agent, read from the
 * grid lanes (st_grid_lanes: float copies of the items, one array a
 * field). Four candidates at a time go through every test and add their
 * share under a mask, without a branch: about a third of a run's
 * candidates lie in the disc, in no order a predictor could learn, so
 * branching on each would mispredict most of the time.
 *
 * Same bits on any thread count, with or without vector instructions: lane
 * l of a run takes the run's candidates l, l + 4, l + 8 ... in order, and
 * the four lanes are added in one fixed order at the end. The sums depend on
 * nothing but the runs' contents. The scalar loop (compilers without GNU
 * vectors, worlds narrower than a disc, the all-pairs mode) does the same
 * arithmetic lane by lane.
 *
 * Precision: float. Positions are kept relative to their block of cells
 * (st_grid_lanes) and each run's offset to the agent is worked out in
 * double before it is rounded, so an offset is good to about 1e-4 wherever
 * the world lies. The flock's three rules are float too, four agents a
 * vector (st__flock_batch, for the standing pass's batches and for one
 * agent alike); separate, align and cohere make their forces in double
 * (behaviors.c), as does the flock where float will not hold its numbers.
 * Two rare cases take a second, careful pass over the same candidates:
 * neighbours on the agent's own spot (they push apart in a direction of
 * their own, see st__coincident_dir) and distances so small that the
 * separation overflows float; both show as a sum that is not finite.
 */
#include <assert.h>
#include <float.h>
#include <string.h>

#include "grid_iter.h"
#include "behavior_internal.h"

#if ST__GNU_VECTORS
#define ST__LANE_VECTORS 1
typedef float f4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));
#else
typedef float f4[4];
typedef int32_t i4[4];
#endif

/// A function kept out of its callers: walk, so that an agent whose runs
/// the memo holds costs a short call, and walk_cells, so that walk is short.
#define ST__OUT_OF_LINE static ST__NEVER_INLINE

/// View cones, as a constant of each specialised loop.
enum { CONE_NONE, CONE_WIDE, CONE_NARROW }; // all around; half-angle >= 90 degrees; < 90 degrees

/// In the cone (c2: cos^2 of its half-angle times d^2), without a branch,
/// for scalars or vectors alike. An agent on top of us is seen: its offset
/// and so its dot product are 0, and 0 >= 0 passes either test.
#define IN_CONE(cone, dot, c2, zero)                                                                       \
    ((cone) == CONE_NARROW ? ((dot) >= (zero)) & ((dot) * (dot) >= (c2))                                   \
                           : ((dot) >= (zero)) | ((dot) * (dot) <= (c2)))

/// Runs gathered before they are summed: one loop does them all.
#define SPANS 32

/// An agent's sums, lane by lane, as a walk leaves them.
typedef struct lsums {
    f4 sx, sy; // separation: the sum of -offset / distance^2 (float)
    f4 hx, hy; // headings
    f4 ox, oy; // offsets
    i4 n;
} lsums;

typedef struct lanes {
    // Where the walk adds up: own, or a batch's (batch4).
    lsums *sum;
    lsums own;
    // The careful pass: separation in double, coincident neighbours.
    double csx[4], csy[4];
    st_vec2 push;  // the coincident neighbours' pushes, in candidate order
    bool careful;
    // The agent and the rules.
    const st_world *w;
    const st_grid *g;
    uint32_t self;
    int32_t tag;     // ST_TAG_ANY or the one tag to count
    bool filtered;   // a tag, or agents removed during this step: look at each candidate
    int cone;
    bool scalar;            // the vector loop's wide cone would differ (see four)
    float r2, sep2, cos2, hx0, hy0;
    f4 r2v, sep2v, c2v;     // r2, sep2, cos2 in every lane (-cos2 for a wide cone, see four)
    int m;                  // runs gathered in spans
    bool spilled;           // spans filled up and were summed before the last
    st__run spans[SPANS];
    double cx, cy;          // the centre (folded into a wrap world)
} lanes;

/// Whether candidate k passes the checks that rarely fail (tag, removal).
static inline bool kept(const lanes *q, int k)
{
    const st_grid_item *it = &q->g->items[k];
    if (q->tag != ST_TAG_ANY && it->tag != q->tag) return false;
    return !q->w->removed_in_step || q->w->agents[it->index].alive;
}

/// One candidate in lane l, at offset (dx, dy) with heading (ghx, ghy):
/// what the vector loop does to each of its lanes.
static inline void one(lanes *q, int l, float dx, float dy, float ghx, float ghy, uint32_t index, int k)
{
    float d2 = dx * dx + dy * dy;
    int in = (index != q->self) & (d2 <= q->r2);
    if (q->cone != CONE_NONE) {
        float dot = dx * q->hx0 + dy * q->hy0;
        float c2 = q->cos2 * d2;
        in &= IN_CONE(q->cone, dot, c2, 0.0f);
    }
    if (in && q->filtered) in = kept(q, k);
    lsums *S = q->sum;
    S->n[l] += in;
    S->hx[l] += in ? ghx : 0.0f;
    S->hy[l] += in ? ghy : 0.0f;
    S->ox[l] += in ? dx : 0.0f;
    S->oy[l] += in ? dy : 0.0f;
    int close = in & (d2 < q->sep2);
    if (!q->careful) {
        float r = 1.0f / d2;
        S->sx[l] -= close ? dx * r : 0.0f;
        S->sy[l] -= close ? dy * r : 0.0f;
    } else if (close && d2 > 0.0f) {
        // In double: 1 / d2 cannot overflow there.
        double r = 1.0 / (double)d2;
        q->csx[l] -= (double)dx * r;
        q->csy[l] -= (double)dy * r;
    } else if (close) {
        // The serials are read only here: a pair on one spot is rare.
        const st_world *w = q->w;
        st_vec2 d = st__coincident_dir(w->agents[q->self].serial, w->agents[index].serial);
        q->push = st_v2_add(q->push, st_v2_scale(d, 1e6));
    }
}

/// Runs r[0..m), one candidate at a time.
static void spans_scalar(lanes *q, const st__run *r, int m)
{
    const st_grid_lanes *L = q->g->lanes;
    for (int s = 0; s < m; s++) {
        const float kx = (float)(r[s].bx - q->cx), ky = (float)(r[s].by - q->cy);
        for (int k = r[s].k0; k < r[s].k1; k++)
            one(q, (k - r[s].k0) & 3, L->x[k] + kx, L->y[k] + ky, L->hx[k], L->hy[k], L->index[k], k);
    }
}

/// Candidates [k0, k1) of the items, their offsets from c in double (folded
/// across the wrap edges with `fold`): a world narrower than the disc, or
/// the all-pairs mode.
static void run_exact(lanes *q, int k0, int k1, st_vec2 c, bool fold)
{
    const st_grid_lanes *L = q->g->lanes;
    const st_grid_item *items = q->g->items;
    for (int k = k0; k < k1; k++) {
        st_vec2 d = st__run_offset(q->w, &items[k], 0.0, 0.0, c, fold);
        one(q, (k - k0) & 3, (float)d.x, (float)d.y, L->hx[k], L->hy[k], items[k].index, k);
    }
}

#ifdef ST__LANE_VECTORS
static inline f4 load_f4(const float *p)
{
    f4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline i4 load_i4(const uint32_t *p)
{
    i4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// The filter of four candidates from k on (k1: the run's end): their tag,
/// a vector compare; agents removed during this step, one by one (rare).
static inline i4 kept4(const lanes *q, int k, int k1)
{
    i4 m = {-1, -1, -1, -1};
    if (q->tag != ST_TAG_ANY) m = load_i4((const uint32_t *)q->g->lanes->tag + k) == q->tag;
    if (q->w->removed_in_step)
        for (int l = 0; l < 4 && k + l < k1; l++)
            if (m[l] && !q->w->agents[q->g->lanes->index[k + l]].alive) m[l] = 0;
    return m;
}

/// The vector loop's sums, in registers while it runs.
typedef lsums acc4;

/// The vector loop's constants. c2 is negated for a wide cone (see four).
typedef struct con4 {
    f4 kx, ky, hx, hy, c2, r2, sep2;
} con4;

/// Four candidates from k on: those of `live` in the disc and the cone
/// added to the sums.
ST__INLINE void four(acc4 *a, const con4 *c, const st_grid_lanes *L, int k, i4 live, int cone)
{
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    f4 DX = load_f4(L->x + k) + c->kx, DY = load_f4(L->y + k) + c->ky;
    f4 D2 = DX * DX + DY * DY;
    i4 in = live & (D2 <= c->r2);
    if (cone == CONE_WIDE) {
        // IN_CONE's wide test in one compare: dot |dot| >= -c2 d^2 is
        // dot >= 0 or dot^2 <= c2 d^2, bit for bit (rounding is symmetric
        // in sign; a dot^2 that underflows to 0 passes both). They part
        // only where c2 d^2 is nan (c2 0, d^2 inf), which setup sends to
        // the scalar loop.
        f4 DOT = DX * c->hx + DY * c->hy;
        f4 ADOT = (f4)((i4)DOT & 0x7fffffff);
        in &= DOT * ADOT >= c->c2 * D2;
    } else if (cone != CONE_NONE) {
        f4 DOT = DX * c->hx + DY * c->hy;
        f4 C = c->c2 * D2;
        in &= IN_CONE(cone, DOT, C, Z);
    }
    a->n -= in;
    a->hx += (f4)((i4)load_f4(L->hx + k) & in);
    a->hy += (f4)((i4)load_f4(L->hy + k) & in);
    a->ox += (f4)((i4)DX & in);
    a->oy += (f4)((i4)DY & in);
    i4 close = in & (D2 < c->sep2);
    f4 R = (Z + 1.0f) / D2;
    a->sx -= (f4)((i4)(DX * R) & close);
    a->sy -= (f4)((i4)(DY * R) & close);
}

/// Runs r[0..m), four candidates at a time: spans_scalar's arithmetic,
/// lane by lane. Whole vectors, then the run's last few under a mask.
ST__INLINE void spans_vec(lanes *q, const st__run *r, int m, int cone, bool filtered)
{
    static const i4 tail[4] = {{0, 0, 0, 0}, {-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}};
    const st_grid_lanes *L = q->g->lanes;
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    con4 c;
    c.hx = Z + q->hx0, c.hy = Z + q->hy0, c.r2 = q->r2v, c.sep2 = q->sep2v;
    c.c2 = q->c2v;
    const i4 SELF = (i4){0, 0, 0, 0} + (int32_t)q->self;
    acc4 a = *q->sum;
    for (int s = 0; s < m; s++) {
        const int k0 = r[s].k0, k1 = r[s].k1;
        c.kx = Z + (float)(r[s].bx - q->cx), c.ky = Z + (float)(r[s].by - q->cy);
        int k = k0;
        for (; k + 4 <= k1; k += 4) {
            i4 live = load_i4(L->index + k) != SELF;
            if (filtered) live &= kept4(q, k, k1);
            four(&a, &c, L, k, live, cone);
        }
        if (k < k1) {
            i4 live = (load_i4(L->index + k) != SELF) & tail[k1 - k];
            if (filtered) live &= kept4(q, k, k1);
            four(&a, &c, L, k, live, cone);
        }
    }
    *q->sum = a;
}
#endif

/// Sums runs r[0..m), in the loop specialised for the cone and the filter
/// (the tests they drop cost every candidate).
static void sum_runs(lanes *q, const st__run *r, int m)
{
#ifdef ST__LANE_VECTORS
    if (!q->careful && !q->scalar) {
        switch (q->cone + 3 * q->filtered) {
        case CONE_NONE: spans_vec(q, r, m, CONE_NONE, false); break;
        case CONE_WIDE: spans_vec(q, r, m, CONE_WIDE, false); break;
        case CONE_NARROW: spans_vec(q, r, m, CONE_NARROW, false); break;
        case 3 + CONE_NONE: spans_vec(q, r, m, CONE_NONE, true); break;
        case 3 + CONE_WIDE: spans_vec(q, r, m, CONE_WIDE, true); break;
        default: spans_vec(q, r, m, CONE_NARROW, true); break;
        }
        return;
    }
#endif
    spans_scalar(q, r, m);
}

/// Run [k0, k1) of items relative to (bx, by), gathered (the list summed
/// when full).
static inline void add_span(lanes *q, int k0, int k1, double bx, double by)
{
    if (k0 >= k1) return;
    if (q->m == SPANS) {
        sum_runs(q, q->spans, q->m);
        q->m = 0;
        q->spilled = true;
    }
    st__run *s = &q->spans[q->m++];
    s->k0 = k0;
    s->k1 = k1;
    s->bx = bx;
    s->by = by;
}

/// Columns a..b of one row (start: the row's cell starts), shifted by sx
/// across the wrap edge, by: the row's block corner (shifted): a run per
/// block of cells, each from its own corner.
static inline void row_runs(lanes *q, const int32_t *start, int a, int b, double sx, double by)
{
    if ((a >> ST_GRID_BLOCK_SHIFT) == (b >> ST_GRID_BLOCK_SHIFT)) { // nearly always
        add_span(q, start[a], start[b + 1], st__block_x(q->g, a) + sx, by);
        return;
    }
    while (a <= b) {
        int e = a | (ST_GRID_BLOCK - 1);
        if (e > b) e = b;
        add_span(q, start[a], start[e + 1], st__block_x(q->g, a) + sx, by);
        a = e + 1;
    }
}

/// Whether the memo holds the runs of a disc of `radius` around the centre
/// q->(cx, cy) in this grid: the centre lies where every disc covers the
/// memo's cells. If so they are summed.
static inline bool recall(lanes *q, const st__runs_memo *memo, double radius)
{
    if (!memo || memo->epoch != q->w->grid_epoch || memo->radius != radius || !(q->cx >= memo->lo[0]) ||
        !(q->cx < memo->hi[0]) || !(q->cy >= memo->lo[1]) || !(q->cy < memo->hi[1]))
        return false;
    sum_runs(q, memo->runs, memo->m);
    return true;
}

/// Where the centre of a disc of radius r may lie for its cells to be
/// first..first + span - 1 on an axis of cells of `cell`: [lo, hi), narrowed
/// by far more than the rounding of the division that finds them.
static inline void box_axis(double first, double last, double cell, double r, double *lo, double *hi)
{
    double a = fmax(first * cell + r, last * cell - r), b = fmin((first + 1.0) * cell + r, (last + 1.0) * cell - r);
    double margin = 1e-9 * (fabs(a) + fabs(b) + cell + r);
    *lo = a + margin;
    *hi = b - margin;
}

/// The runs just gathered for the disc of `radius` whose cells (before any
/// clamping) are f[0..3] = first and last column and row: summed, and kept
/// in the memo when they fit.
static void finish_walk(lanes *q, st__runs_memo *memo, const double f[4], double radius)
{
    sum_runs(q, q->spans, q->m);
    if (!memo) return;
    memo->epoch = 0;
    if (q->spilled || q->m > ST_RUNS_MEMO) return;
    memcpy(memo->runs, q->spans, (size_t)q->m * sizeof *q->spans);
    memo->m = q->m;
    memo->radius = radius;
    box_axis(f[0], f[1], q->g->cell_w, radius, &memo->lo[0], &memo->hi[0]);
    box_axis(f[2], f[3], q->g->cell_h, radius, &memo->lo[1], &memo->hi[1]);
    memo->epoch = q->w->grid_epoch;
}

/// walk's cells when the memo does not hold them (c folded into a wrap
/// world already): every run gathered and summed, and kept in the memo.
ST__OUT_OF_LINE void walk_cells(lanes *q, st_vec2 c, double radius, st__runs_memo *memo)
{
    const st_world *w = q->w;
    const st_grid *g = q->g;
    const int32_t *start = g->cell_start;
    const int nx = g->nx, ny = g->ny;
    const double f[4] = {st__floor((c.x - radius) / g->cell_w), st__floor((c.x + radius) / g->cell_w),
                         st__floor((c.y - radius) / g->cell_h), st__floor((c.y + radius) / g->cell_h)};
    if (w->edges != ST_EDGES_WRAP) {
        const int cx0 = st__clamp_cell(f[0], nx), cx1 = st__clamp_cell(f[1], nx);
        const int cy0 = st__clamp_cell(f[2], ny), cy1 = st__clamp_cell(f[3], ny);
        for (int cy = cy0; cy <= cy1; cy++) row_runs(q, start + cy * nx, cx0, cx1, 0.0, st__block_y(g, cy));
        finish_walk(q, memo, f, radius);
        return;
    }
    const double W = w->width, H = w->height;
    if (w->brute_force || st__grid_folds(g, f[0], f[1], f[2], f[3])) {
        run_exact(q, 0, g->item_count, c, true);
        return;
    }
    const int cx0 = (int)f[0], cx1 = (int)f[1]; // -nx < cx0 <= cx1 < 2 nx
    for (int cy = (int)f[2]; cy <= (int)f[3]; cy++) {
        int row = cy < 0 ? cy + ny : cy >= ny ? cy - ny : cy;
        double sy = cy < 0 ? -H : cy >= ny ? H : 0.0;
        const int32_t *rs = start + row * nx;
        double by = st__block_y(g, row) + sy;
        if (cx0 < 0) {
            row_runs(q, rs, cx0 + nx, nx - 1, -W, by);
            row_runs(q, rs, 0, cx1, 0.0, by);
        } else if (cx1 >= nx) {
            row_runs(q, rs, cx0, nx - 1, 0.0, by);
            row_runs(q, rs, 0, cx1 - nx, W, by);
        } else {
            row_runs(q, rs, cx0, cx1, 0.0, by);
        }
    }
    finish_walk(q, memo, f, radius);
}

/// Every run of the disc of `radius` around c (st__grid_runs' geometry),
/// summed; with a memo, the runs of the agent before when they are the
/// same (most agents: a short function, the rest in walk_cells).
ST__OUT_OF_LINE void walk(lanes *q, st_vec2 c, double radius, st__runs_memo *memo)
{
    const st_world *w = q->w;
    q->m = 0;
    q->spilled = false;
    if (w->edges != ST_EDGES_WRAP) {
        if (w->brute_force) {
            run_exact(q, 0, q->g->item_count, c, false);
            return;
        }
    } else {
        c = st_v2(st__wrap_coord(c.x, w->width), st__wrap_coord(c.y, w->height));
    }
    q->cx = c.x, q->cy = c.y;
    if (!recall(q, memo, radius)) walk_cells(q, c, radius, memo);
}

static void clear(lanes *q)
{
#ifdef ST__LANE_VECTORS
    // Seven vector stores (a memset of them is a string instruction).
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    lsums *S = q->sum;
    S->sx = S->sy = S->hx = S->hy = S->ox = S->oy = Z;
    S->n = (i4){0, 0, 0, 0};
#else
    memset(q->sum, 0, sizeof *q->sum);
#endif
    if (q->careful) {
        memset(q->csx, 0, sizeof q->csx);
        memset(q->csy, 0, sizeof q->csy);
        q->push = st_v2(0.0, 0.0);
    }
}

static inline float sum4(const f4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

/// The rules' settings, shared by every agent of a query or a batch.
static void setup(lanes *q, const st_world *w, const st_flock_params *p, double cos_half, double sep_radius)
{
    q->w = w;
    q->g = &w->grid;
    q->tag = p->tag;
    q->filtered = p->tag != ST_TAG_ANY || w->removed_in_step;
    q->cone = cos_half <= -2.0 ? CONE_NONE : cos_half < 0.0 ? CONE_WIDE : CONE_NARROW;
    // A radius past float's range counts every agent, as a double one would.
    q->r2 = (float)(p->radius * p->radius);
    q->sep2 = (float)(sep_radius * sep_radius);
    q->cos2 = (float)(cos_half * cos_half);
    q->scalar = q->cone == CONE_WIDE && q->cos2 == 0.0f && !(q->r2 <= FLT_MAX);
#ifdef ST__LANE_VECTORS
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    q->r2v = Z + q->r2, q->sep2v = Z + q->sep2, q->c2v = Z + (q->cone == CONE_WIDE ? -q->cos2 : q->cos2);
#endif
}

/// An agent's sums as the lanes left them (float): separation x, y,
/// heading sum x, y, offset sum x, y; or, after a careful pass, none.
typedef struct fsums {
    float v[6];
    int n;
    bool careful; // the sums are in the st__group instead
} fsums;

/// The float sums f as the group's (double) sums.
static inline void fsums_to(const fsums *f, st__group *out)
{
    out->sep = st_v2(f->v[0], f->v[1]);
    out->heading_sum = st_v2(f->v[2], f->v[3]);
    out->offset_sum = st_v2(f->v[4], f->v[5]);
    out->n = f->n;
}

/// Agent i as the agent the walks are for (q set up).
static inline void aim(lanes *q, int i)
{
    const st_body *b = &q->w->bodies[i];
    q->self = (uint32_t)i;
    q->hx0 = (float)b->heading.x;
    q->hy0 = (float)b->heading.y;
}

/// Agent i's walk (q set up): its sums left in q's lanes, not yet added.
ST__INLINE void lanes_of(lanes *q, int i, double radius, st__runs_memo *memo)
{
    aim(q, i);
    q->careful = false;
    clear(q);
    walk(q, q->w->bodies[i].pos, radius, memo);
}

/// Agent i's float sums f with a separation that is not finite: a
/// neighbour on the agent's own spot (0 / 0) or nearly (1 / d2 past
/// float). Its walk once more, with the separation in double: the sums
/// into out.
static void careful_of(lanes *q, int i, double radius, const fsums *f, st__group *out, st__runs_memo *memo)
{
    aim(q, i);
    q->sum = &q->own;
    q->careful = true;
    clear(q);
    walk(q, q->w->bodies[i].pos, radius, memo);
    fsums_to(f, out);
    out->sep.x = (q->csx[0] + q->csx[1]) + (q->csx[2] + q->csx[3]) + q->push.x;
    out->sep.y = (q->csy[0] + q->csy[1]) + (q->csy[2] + q->csy[3]) + q->push.y;
}

/// Agent i's sums (q set up): in f, or after a careful pass in out
/// (double; f->careful set).
static void sums_of(lanes *q, int i, double radius, fsums *f, st__group *out, st__runs_memo *memo)
{
    const lsums *S = q->sum = &q->own;
    lanes_of(q, i, radius, memo);
    f->v[0] = sum4(S->sx), f->v[1] = sum4(S->sy);
    f->v[2] = sum4(S->hx), f->v[3] = sum4(S->hy);
    f->v[4] = sum4(S->ox), f->v[5] = sum4(S->oy);
    f->n = (S->n[0] + S->n[1]) + (S->n[2] + S->n[3]);
    f->careful = !isfinite(f->v[0]) || !isfinite(f->v[1]);
    if (f->careful) careful_of(q, i, radius, f, out, memo);
}

/// No grid to read (none yet, or it ran out of memory): no neighbours.
static bool no_grid(const st_grid *g) { return !g->cell_start || g->item_count == 0 || !g->lanes; }

void st__group_query(const st_world *w, int i, const st_flock_params *p, double cos_half, double sep_radius,
                     st__group *out, st__runs_memo *memo)
{
    *out = (st__group){{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, 0, sep_radius * sep_radius, (uint32_t)i};
    if (no_grid(&w->grid)) return;
    lanes q;
    setup(&q, w, p, cos_half, sep_radius);
    fsums f;
    sums_of(&q, i, p->radius, &f, out, memo);
    if (!f.careful) fsums_to(&f, out);
}

#ifdef ST__LANE_VECTORS
/// sqrt of each lane: one instruction with SSE, else lane by lane; correctly
/// rounded either way, so the same bits.
static inline f4 sqrt4(f4 v)
{
#if defined(__SSE__)
    return __builtin_ia32_sqrtps(v);
#else
    f4 r;
    for (int l = 0; l < 4; l++) r[l] = sqrtf(v[l]);
    return r;
#endif
}
#endif

/// Below this the square root's reciprocal of a squared length leaves float.
#define TINY2 1e-30f
/// Above this a number has no room to be squared in float.
#define HUGE1 1e18f
/// Below this a limit (max_force / gain) is too small for float: a length
/// near it squares to nothing.
#define TINY_LIMIT 1e-18f
/// A saturated force is scaled to this share of max_force: short of it by
/// more than float's rounding, so that double's truncation finds nothing
/// to do (and costs no square root).
#define UNDER_MAX (1.0f - 1e-6f)

#ifdef ST__LANE_VECTORS
/// Lanes that are numbers within +-HUGE1 (a double past float's range
/// converts to inf, a nan stays one: both fail).
static inline i4 in_range(f4 v)
{
    const f4 H = {HUGE1, HUGE1, HUGE1, HUGE1};
    return (f4)((i4)v & 0x7fffffff) <= H;
}

static inline i4 out_of_range(f4 v) { return ~in_range(v); }
#endif

#ifdef ST__LANE_VECTORS
/// One rule for four agents, a lane each: toward max speed along (X, Y)
/// where `on` and the sum is not zero, weighted, added to (FX, FY).
static inline void rule4(f4 X, f4 Y, i4 on, const f4 *body, float weight, f4 *FX, f4 *FY, i4 *bad)
{
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    const f4 VX = body[0], VY = body[1], SPEED = body[2], MOST = body[3], GAIN = body[4], LIMIT = body[5];
    f4 L2 = X * X + Y * Y;
    i4 live = on & (L2 > Z);
    *bad |= live & (L2 < TINY2);
    f4 INV = (Z + 1.0f) / sqrt4(L2);
    f4 DX = X * INV * SPEED - VX, DY = Y * INV * SPEED - VY;
    f4 NEED = sqrt4(DX * DX + DY * DY);
    // steer_velocity: (desired - vel) * gain, or max_force along it past the limit.
    i4 past = NEED >= LIMIT;
    f4 G = (f4)(((i4)(MOST / NEED) & past) | ((i4)GAIN & ~past));
    *FX += (f4)((i4)(DX * G * weight) & live);
    *FY += (f4)((i4)(DY * G * weight) & live);
}
#endif

#ifdef ST__LANE_VECTORS
typedef double d4 __attribute__((vector_size(32)));
_Static_assert(sizeof(st_vec2) == 2 * sizeof(double), "batch4 stores forces two at a time");

// The even and the odd lanes of a and b together (__builtin_shufflevector:
// GCC 12 and clang both have it; GCC's __builtin_shuffle clang has not).
#define ST__EVEN(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6)
#define ST__ODD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7)

/// Lane l: the sum of the four lanes of the l-th of a, b, c, d, added as
/// sum4 adds them ((0 + 1) + (2 + 3)), so to the same bits. Pairs first:
/// (a0 + a1, a2 + a3, b0 + b1, b2 + b3) and the same of c, d.
static inline f4 across(f4 a, f4 b, f4 c, f4 d)
{
    f4 ab = ST__EVEN(a, b) + ST__ODD(a, b);
    f4 cd = ST__EVEN(c, d) + ST__ODD(c, d);
    return ST__EVEN(ab, cd) + ST__ODD(ab, cd);
}

static inline i4 across_i(i4 a, i4 b, i4 c, i4 d)
{
    i4 ab = ST__EVEN(a, b) + ST__ODD(a, b);
    i4 cd = ST__EVEN(c, d) + ST__ODD(c, d);
    return ST__EVEN(ab, cd) + ST__ODD(ab, cd);
}

/// Whether any lane of a mask is set.
static inline bool any4(i4 m)
{
#if defined(__SSE__)
    return __builtin_ia32_movmskps((f4)m) != 0;
#else
    return (m[0] | m[1]) | (m[2] | m[3]);
#endif
}

/// The bodies' inputs to the rules, a lane each (lanes past n zero):
/// velocity x, y, max speed, max force, and behaviors.c's gain_of: the
/// gain that turns a velocity change into a force, and the largest change
/// max_force makes. Converted to float two lanes an instruction.
static void body4(const st_body *const *b, int n, double dt, f4 B[6])
{
    double c[6][4];
    for (int l = 0; l < 4; l++) {
        if (l >= n) {
            for (int k = 0; k < 6; k++) c[k][l] = 0.0;
            continue;
        }
        double gain = b[l]->mass / dt;
        c[0][l] = b[l]->vel.x, c[1][l] = b[l]->vel.y;
        c[2][l] = b[l]->max_speed, c[3][l] = b[l]->max_force;
        c[4][l] = gain, c[5][l] = b[l]->max_force / gain;
    }
    for (int k = 0; k < 6; k++) B[k] = __builtin_convertvector(((d4){c[k][0], c[k][1], c[k][2], c[k][3]}), f4);
}

/// The three rules for four agents, a vector lane each, from their sums I
/// (HAS: the lanes with neighbours) and bodies B: the forces, and bad where
/// float will not do.
static void rules4(const f4 I[6], i4 HAS, const f4 B[6], const float weight[3], f4 *fx, f4 *fy, i4 *bad)
{
    const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
    i4 IN = in_range(I[0]) & in_range(B[0]);
    for (int k = 1; k < 6; k++) IN &= in_range(I[k]) & in_range(B[k]);
    const f4 TL = {TINY_LIMIT, TINY_LIMIT, TINY_LIMIT, TINY_LIMIT};
    i4 BAD = ~IN | (B[5] < TL);
    const i4 ALL = {-1, -1, -1, -1};
    f4 FX = Z, FY = Z;
    rule4(I[0], I[1], ALL, B, weight[0], &FX, &FY, &BAD);
    rule4(I[2], I[3], HAS, B, weight[1], &FX, &FY, &BAD);
    rule4(I[4], I[5], HAS, B, weight[2], &FX, &FY, &BAD);
    // Truncated to max_force here, in float, just under it: every force
    // past UNDER_MAX of it, so that one a rounding of L2 short of max_force
    // cannot pass above it.
    f4 L2 = FX * FX + FY * FY;
    const f4 MOST = B[3] * UNDER_MAX;
    i4 over = L2 > MOST * MOST;
    f4 R = (f4)(((i4)(B[3] / sqrt4(L2) * UNDER_MAX) & over) | ((i4)(Z + 1.0f) & ~over));
    FX *= R;
    FY *= R;
    // Degenerate bodies (no max force, a limit of 0 ...) can make 0 / 0:
    // double sorts those out.
    BAD |= out_of_range(FX) | out_of_range(FY);
    *fx = FX, *fy = FY, *bad = BAD;
}

/// The flock's forces of n <= 4 agents index[0..n) (st__flock_batch; q
/// set up, or NULL with no grid): their walks, their sums added across the
/// lanes four agents at once, the rules in float. ok[l] false where float
/// will not do or `wide`; then g[l] holds the sums (double).
static void batch4(const st_world *w, lanes *q, double radius, double sep_radius, const int *index, int n,
                   double dt, const float weight[3], bool wide, st_vec2 *force, bool *ok, st__group *g,
                   st__runs_memo *memo)
{
    lsums s[4];
    const st_body *b[4];
    for (int l = 0; l < 4; l++) {
        if (l < n && q) {
            q->sum = &s[l]; // the walk adds up right there
            lanes_of(q, index[l], radius, memo);
        } else {
            const f4 Z = {0.0f, 0.0f, 0.0f, 0.0f};
            s[l] = (lsums){Z, Z, Z, Z, Z, Z, {0, 0, 0, 0}};
        }
    }
    const f4 I[6] = {across(s[0].sx, s[1].sx, s[2].sx, s[3].sx), across(s[0].sy, s[1].sy, s[2].sy, s[3].sy),
                     across(s[0].hx, s[1].hx, s[2].hx, s[3].hx), across(s[0].hy, s[1].hy, s[2].hy, s[3].hy),
                     across(s[0].ox, s[1].ox, s[2].ox, s[3].ox), across(s[0].oy, s[1].oy, s[2].oy, s[3].oy)};
    const i4 N = across_i(s[0].n, s[1].n, s[2].n, s[3].n);
    for (int l = 0; l < n; l++) b[l] = &w->bodies[index[l]];
    f4 B[6], FX, FY;
    i4 BAD;
    body4(b, n, dt, B);
    rules4(I, N > 0, B, weight, &FX, &FY, &BAD);
    // Not finite: the separation overflowed float (see careful_of).
    const f4 FMAX = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
    const i4 CAREFUL = ~((f4)((i4)I[0] & 0x7fffffff) <= FMAX) | ~((f4)((i4)I[1] & 0x7fffffff) <= FMAX);
    const i4 OFF = BAD | CAREFUL | ((i4){0, 0, 0, 0} - (int32_t)wide); // lanes left to double
    if (n == 4 && !any4(OFF)) {
        // The forces in double, two agents (x, y, x, y) a conversion.
        const d4 F01 = __builtin_convertvector(__builtin_shufflevector(FX, FY, 0, 4, 1, 5), d4);
        const d4 F23 = __builtin_convertvector(__builtin_shufflevector(FX, FY, 2, 6, 3, 7), d4);
        memcpy(force, &F01, sizeof F01);
        memcpy(force + 2, &F23, sizeof F23);
        ok[0] = ok[1] = ok[2] = ok[3] = true;
        return;
    }
    for (int l = 0; l < n; l++) {
        force[l] = st_v2((double)FX[l], (double)FY[l]);
        ok[l] = !OFF[l];
        if (ok[l]) continue;
        const fsums f = {{I[0][l], I[1][l], I[2][l], I[3][l], I[4][l], I[5][l]}, N[l], CAREFUL[l] != 0};
        g[l].sep_r2 = sep_radius * sep_radius, g[l].self = (uint32_t)index[l];
        if (f.careful) careful_of(q, index[l], radius, &f, &g[l], memo);
        else fsums_to(&f, &g[l]);
    }
}
#else
/// rule4, one lane.
static inline void rule1(float x, float y, bool on, const float *body, float weight, float *fx, float *fy, bool *bad)
{
    float l2 = x * x + y * y;
    bool live = on && l2 > 0.0f;
    if (live && l2 < TINY2) *bad = true;
    float inv = 1.0f / sqrtf(l2);
    float dx = x * inv * body[2] - body[0], dy = y * inv * body[2] - body[1];
    float need = sqrtf(dx * dx + dy * dy);
    float gl = need >= body[5] ? body[3] / need : body[4];
    *fx += live ? dx * gl * weight : 0.0f;
    *fy += live ? dy * gl * weight : 0.0f;
}

/// batch4 one agent at a time: the same arithmetic.
static void batch4(const st_world *w, lanes *q, double radius, double sep_radius, const int *index, int n,
                   double dt, const float weight[3], bool wide, st_vec2 *force, bool *ok, st__group *g,
                   st__runs_memo *memo)
{
    for (int l = 0; l < n; l++) {
        fsums f = {{0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, 0, false};
        g[l].sep_r2 = sep_radius * sep_radius, g[l].self = (uint32_t)index[l];
        if (q) sums_of(q, index[l], radius, &f, &g[l], memo);
        const st_body *b = &w->bodies[index[l]];
        double gain = b->mass / dt, limit = b->max_force / gain;
        const float bl[6] = {(float)b->vel.x, (float)b->vel.y, (float)b->max_speed, (float)b->max_force, (float)gain,
                             (float)limit};
        bool bad = false;
        for (int k = 0; k < 6; k++) bad |= !(fabsf(f.v[k]) <= HUGE1) || !(fabsf(bl[k]) <= HUGE1);
        bad |= bl[5] < TINY_LIMIT;
        float fx = 0.0f, fy = 0.0f;
        rule1(f.v[0], f.v[1], true, bl, weight[0], &fx, &fy, &bad);
        rule1(f.v[2], f.v[3], f.n > 0, bl, weight[1], &fx, &fy, &bad);
        rule1(f.v[4], f.v[5], f.n > 0, bl, weight[2], &fx, &fy, &bad);
        float l2 = fx * fx + fy * fy;
        const float most = bl[3] * UNDER_MAX;
        float r = l2 > most * most ? bl[3] / sqrtf(l2) * UNDER_MAX : 1.0f;
        fx *= r;
        fy *= r;
        bad |= !(fabsf(fx) <= HUGE1) || !(fabsf(fy) <= HUGE1);
        force[l] = st_v2((double)fx, (double)fy);
        ok[l] = !bad && !f.careful && !wide;
        if (!ok[l] && !f.careful) fsums_to(&f, &g[l]);
    }
}
#endif

void st__flock_batch(const st_world *w, const st_flock_params *p, double cos_half, double sep_radius,
                     const int *index, int n, double dt, st_vec2 *force, bool *ok, st__group *g,
                     st__runs_memo *memo)
{
    assert(n <= ST_FLOCK_BATCH);
    lanes q;
    const bool grid = !no_grid(&w->grid);
    if (grid) setup(&q, w, p, cos_half, sep_radius);
    // A weight past float's range: all in double.
    const bool wide = !(fabs(p->separation) <= (double)HUGE1 && fabs(p->alignment) <= (double)HUGE1 &&
                        fabs(p->cohesion) <= (double)HUGE1);
    const float weight[3] = {(float)p->separation, (float)p->alignment, (float)p->cohesion};
    for (int m = 0; m < n; m += 4) {
        int k = n - m < 4 ? n - m : 4;
        batch4(w, grid ? &q : NULL, p->radius, sep_radius, index + m, k, dt, weight, wide, force + m, ok + m, g + m,
               memo);
    }
}

st_vec2 st__coincident_dir(uint64_t self, uint64_t other)
{
    uint64_t lo = self < other ? self : other, hi = self < other ? other : self;
    uint64_t s = lo * 0x9E3779B97F4A7C15ull ^ hi;
    double angle = st_rng_double(&s) * 2.0 * ST_PI;
    st_vec2 d = st_v2_from_angle(angle, 1.0);
    return self < other ? d : st_v2_neg(d);
}
