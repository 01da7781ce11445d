/*
 * nav_search.c — jump point search over a tile map (Harabor and Grastien
 * 2011), in the variant without corner cutting (a diagonal move needs both
 * tiles beside it free, as every path on the map does): straight runs stop
 * where a tile beside them opens up behind a blocked one (a forced
 * neighbour), diagonal runs stop where a straight run from them finds a
 * jump point, and only those tiles enter the open list. The paths are
 * optimal octile paths, found after a few hundred expansions where A*
 * would take tens of thousands.
 *
 * "Usable" is a tile whose clearance is at least the query's need, so one
 * map serves every agent radius. The search runs in slices (a budget of
 * expansions each) and keeps its whole state in the query: a mover can
 * spread one search over several steps.
 */
#include <math.h>
#include <stdlib.h>

#include "nav_tiles.h"
#include "portable.h"

#define SQRT2_1 0.41421356237309504880 // sqrt(2) - 1

typedef struct jps {
    const uint8_t *clr;
    int stride, goal, need;
    int gx, gy;          // the goal's padded column and row
    const nav_bits *bits;
    const nav_links *links; // NULL: none
    // The tile being expanded: its cost, parent, and whether a link led
    // there (copied out of its slot, which offers may move).
    double cg;
    int cparent;
    bool cvia;
} jps;

static inline bool ok(const jps *j, int c) { return j->clr[c] >= j->need; }

/// Whether a link starts at c: a jump stops there, as at the goal.
static inline bool link_start(const jps *j, int c)
{
    if (!j->links) return false;
    const uint64_t *w = j->links->stop_rows + (size_t)(c / j->stride) * j->links->row_words;
    int i = c % j->stride + 64;
    return (w[i >> 6] >> (i & 63)) & 1;
}

/// Octile distance between padded tiles a and b.
static inline double octile(int stride, int a, int b)
{
    int dx = abs(a % stride - b % stride), dy = abs(a / stride - b / stride);
    return dx > dy ? dx + SQRT2_1 * dy : dy + SQRT2_1 * dx;
}

/// Runs straight from c by d (±1 or ±stride; p: the perpendicular step)
/// to the next jump point: the goal, or a tile with a forced neighbour (a
/// usable tile beside it whose tile behind is not). -1 at a wall. The
/// readable definition, one tile at a time; jump_straight below reads 64
/// at a time, and test_nav_tiles checks that they agree.
static int jump_straight_ref(const jps *j, int c, int d, int p)
{
    for (;;) {
        c += d;
        if (!ok(j, c)) return -1;
        if (c == j->goal || link_start(j, c)) return c;
        if ((ok(j, c + p) && !ok(j, c - d + p)) || (ok(j, c - p) && !ok(j, c - d - p))) return c;
    }
}

/// 64 bits of w from bit `pos` on.
static inline uint64_t bits64(const uint64_t *w, int pos)
{
    int k = pos >> 6, off = pos & 63;
    return off ? (w[k] >> off) | (w[k + 1] << (64 - off)) : w[k];
}

/// A straight run along one line of bits (`mid`; `lo` and `hi` the lines
/// beside it) from bit pos, forwards or backwards: the bit of the next
/// jump point, -1 at a wall. goal: the goal's bit on this line, or -1.
/// Each block of 64: the events are a wall (~mid), a forced neighbour on
/// either side (beside usable, beside-and-behind not) and the goal; the
/// first event decides.
static int run_bits(const uint64_t *mid, const uint64_t *lo, const uint64_t *hi, const uint64_t *stop, int pos,
                    bool forward, int goal)
{
    for (;;) {
        int p = forward ? pos + 1 : pos - 64; // the block: bits p .. p + 63
        int behind = forward ? p - 1 : p + 1;
        uint64_t m = bits64(mid, p);
        uint64_t ev = ~m | (bits64(lo, p) & ~bits64(lo, behind)) | (bits64(hi, p) & ~bits64(hi, behind));
        if (goal >= p && goal < p + 64) ev |= 1ull << (goal - p);
        if (stop) ev |= bits64(stop, p);
        if (ev) {
            int i = forward ? st__ctz64(ev) : 63 - st__clz64(ev);
            return (m >> i) & 1 ? p + i : -1;
        }
        pos += forward ? 64 : -64;
    }
}

static int jump_straight(const jps *j, int c, int d, int p)
{
    (void)p;
    int s = j->stride, x = c % s, y = c / s;
    const nav_bits *b = j->bits;
    const nav_links *L = j->links;
    if (d == 1 || d == -1) {
        const uint64_t *mid = b->rows + (size_t)y * b->row_words;
        const uint64_t *stop = L ? L->stop_rows + (size_t)y * L->row_words : NULL;
        int r = run_bits(mid, mid - b->row_words, mid + b->row_words, stop, x + 64, d > 0,
                         y == j->gy ? j->gx + 64 : -1);
        return r < 0 ? -1 : y * s + (r - 64);
    }
    const uint64_t *mid = b->cols + (size_t)x * b->col_words;
    const uint64_t *stop = L ? L->stop_cols + (size_t)x * L->col_words : NULL;
    int r = run_bits(mid, mid - b->col_words, mid + b->col_words, stop, y + 64, d > 0, x == j->gx ? j->gy + 64 : -1);
    return r < 0 ? -1 : (r - 64) * s + x;
}

/// Runs diagonally from c by dx + dy (dx = ±1, dy = ±stride): stops at the
/// goal or where either straight run finds a jump point. -1 at a wall or
/// where the corner may not be cut.
static int jump_diagonal(const jps *j, int c, int dx, int dy)
{
    for (;;) {
        if (!ok(j, c + dx) || !ok(j, c + dy)) return -1;
        c += dx + dy;
        if (!ok(j, c)) return -1;
        if (c == j->goal || link_start(j, c)) return c;
        if (jump_straight(j, c, dx, dy) >= 0 || jump_straight(j, c, dy, dx) >= 0) return c;
    }
}

/// Offers jump point n, reached from c, to the open list. (When the list
/// cannot grow the offer is lost; the search then says FAILED through
/// q->state, set here.)
/// The heuristic: the octile distance to the goal, or when links may
/// shortcut it, the least of that and the way over any short link (the
/// octile distance to the nearest short link's start, plus q->link_k).
/// Admissible and consistent with links of any cost.
static inline double heuristic(const nav_query *q, const jps *j, int n)
{
    double h = octile(j->stride, n, j->goal);
    const nav_links *L = j->links;
    if (!L || L->nshort == 0) return h;
    double d = INFINITY;
    for (int k = 0; k < L->nshort; k++) d = fmin(d, octile(j->stride, n, L->e[L->shorts[k]].from));
    return fmin(h, d + q->link_k);
}

/// Offers tile n, reached from c at cost g, to the open list.
static void offer_at(nav_query *q, const jps *j, int c, int n, double g, bool via)
{
    nav_node *e = nav__query_touch(q, n);
    if (!e) {
        q->state = NAV_SEARCH_FAILED; // no memory for the tile
        return;
    }
    if (e->closed) return;
    if (g < e->g) {
        e->g = g;
        e->parent = c;
        e->via = via;
        if (!nav__query_push(q, n, g + heuristic(q, j, n), g)) q->state = NAV_SEARCH_FAILED;
    }
}

static void offer(nav_query *q, const jps *j, int c, int n)
{
    if (n < 0) return;
    offer_at(q, j, c, n, j->cg + octile(j->stride, c, n), false);
}

/// The links out of c whose two ends have room.
static void offer_links(nav_query *q, const jps *j, int c)
{
    const nav_links *L = j->links;
    for (int k = nav__links_first(L, c); k < L->ne && L->e[k].from == c; k++)
        if (ok(j, L->e[k].to)) offer_at(q, j, c, L->e[k].to, j->cg + L->e[k].cost, true);
}

static inline int sign(int v) { return (v > 0) - (v < 0); }

/// One straight direction d (perpendicular p) from c: the run ahead, and
/// for each side that opens behind a wall, the turn and the diagonal.
static void expand_straight(nav_query *q, const jps *j, int c, int d, int p)
{
    offer(q, j, c, jump_straight(j, c, d, p));
    for (int s = -1; s <= 1; s += 2) {
        int side = s * p;
        if (ok(j, c + side) && !ok(j, c - d + side)) {
            offer(q, j, c, jump_straight(j, c, side, d));
            offer(q, j, c, jump_diagonal(j, c, d, side));
        }
    }
}

/// Successors of c: every direction at the start, else the pruned ones.
static void expand(nav_query *q, const jps *j, int c)
{
    int s = j->stride;
    if (j->links && link_start(j, c)) offer_links(q, j, c);
    // The start, and a link's end (as a new start): every direction.
    if (c == q->start || j->cvia) {
        for (int k = -1; k <= 1; k += 2) {
            offer(q, j, c, jump_straight(j, c, k, s));
            offer(q, j, c, jump_straight(j, c, k * s, 1));
            offer(q, j, c, jump_diagonal(j, c, k, s));
            offer(q, j, c, jump_diagonal(j, c, k, -s));
        }
        return;
    }
    int p = j->cparent;
    int dx = sign(c % s - p % s), dy = sign(c / s - p / s) * s;
    if (dx && dy) {
        offer(q, j, c, jump_straight(j, c, dx, dy));
        offer(q, j, c, jump_straight(j, c, dy, dx));
        offer(q, j, c, jump_diagonal(j, c, dx, dy));
    } else if (dx) {
        expand_straight(q, j, c, dx, s);
    } else {
        expand_straight(q, j, c, dy, 1);
    }
}

bool nav__search_begin(nav_query *q, const nav_tiles *t, int s, int goal, int need)
{
    nav__query_reset(q);
    q->use = nav__query_bits(q, t, need);
    if (!q->use) {
        q->state = NAV_SEARCH_FAILED;
        return false;
    }
    q->start = s;
    q->goal = goal;
    q->need = need;
    q->state = NAV_SEARCH_RUNNING;
    const nav_links *L = q->links && q->links->ne > 0 ? q->links : NULL;
    q->link_k = INFINITY;
    if (L) { // the least cost of a short link and the least way on from its end
        double cost = INFINITY, on = INFINITY;
        for (int k = 0; k < L->nshort; k++) {
            cost = fmin(cost, L->e[L->shorts[k]].cost);
            on = fmin(on, octile(t->stride, L->e[L->shorts[k]].to, goal));
        }
        q->link_k = cost + on;
    }
    jps j = {t->clr, t->stride, goal, need, goal % t->stride, goal / t->stride, q->use, L, 0.0, 0, false};
    nav_node *n = nav__query_touch(q, s);
    if (!n) {
        q->state = NAV_SEARCH_FAILED;
        return false;
    }
    n->g = 0.0;
    n->parent = s;
    nav__query_push(q, s, heuristic(q, &j, s), 0.0);
    return true;
}

/// The jump points from the goal back to the start, into q->out.
static bool collect(nav_query *q)
{
    q->out_n = 0;
    for (int c = q->goal;; c = nav__query_find(q, c)->parent) {
        if (q->out_n == q->out_cap && !nav__query_grow_out(q)) return false;
        q->out[q->out_n++] = c;
        if (c == q->start) return true;
    }
}

int nav__search_run(nav_query *q, const nav_tiles *t, long budget)
{
    if (q->state != NAV_SEARCH_RUNNING) return q->state;
    const nav_links *L = q->links && q->links->ne > 0 ? q->links : NULL;
    jps j = {t->clr, t->stride, q->goal, q->need, q->goal % t->stride, q->goal / t->stride, q->use, L, 0.0, 0, false};
    for (long k = 0; k < budget && q->state == NAV_SEARCH_RUNNING; k++) {
        if (q->heap_n == 0) return q->state = NAV_SEARCH_FAILED;
        q->pops++;
        nav_open e = nav__query_pop(q);
        int c = e.c;
        nav_node *n = nav__query_find(q, c);
        if (n->closed || e.g != n->g) continue; // stale: a cheaper offer came later
        n->closed = 1;
        j.cg = n->g;
        j.cparent = n->parent;
        j.cvia = n->via;
        if (c == q->goal) {
            q->state = collect(q) ? NAV_SEARCH_FOUND : NAV_SEARCH_FAILED;
            return q->state;
        }
        q->expanded++;
        expand(q, &j, c);
    }
    return q->state;
}

double nav__search_cost(const nav_query *q) { return nav__query_find(q, q->goal)->g; }

int nav__search_cells_links(const nav_query *q, const nav_tiles *t, int32_t *out, uint8_t *link, int cap)
{
    int n = 0, s = t->stride;
    if (cap < 1) return -1;
    out[n++] = q->out[q->out_n - 1];
    for (int k = q->out_n - 1; k > 0; k--) {
        int a = q->out[k], b = q->out[k - 1];
        if (nav__query_find(q, b)->via) { // over a link: no tiles between
            if (n == cap) return -1;
            if (link) link[n - 1] = 1;
            out[n++] = b;
            continue;
        }
        int step = sign(b % s - a % s) + sign(b / s - a / s) * s;
        for (int c = a; c != b;) {
            c += step;
            if (n == cap) return -1;
            if (link) link[n - 1] = 0;
            out[n++] = c;
        }
    }
    if (link) link[n - 1] = 0;
    return n;
}

int nav__search_steps(const nav_query *q, const nav_tiles *t)
{
    long n = q->out_n > 0 ? 1 : 0;
    int s = t->stride;
    for (int k = q->out_n - 1; k > 0; k--) {
        int a = q->out[k], b = q->out[k - 1], dx = abs(b % s - a % s), dy = abs(b / s - a / s);
        n += nav__query_find(q, b)->via ? 1 : dx > dy ? dx : dy;
        if (n > INT32_MAX / 2) return -1;
    }
    return (int)n;
}

int nav__search_cells(const nav_query *q, const nav_tiles *t, int32_t *out, int cap)
{
    return nav__search_cells_links(q, t, out, NULL, cap);
}

int nav__jump_check(const nav_query *q, const nav_tiles *t, int c, int d)
{
    jps j = {t->clr, t->stride, q->goal, q->need, q->goal % t->stride, q->goal / t->stride, q->use, NULL, 0.0, 0, false};
    int p = d == 1 || d == -1 ? t->stride : 1;
    int a = jump_straight_ref(&j, c, d, p), b = jump_straight(&j, c, d, p);
    return a == b ? a : -2;
}
