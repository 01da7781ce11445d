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

#define SQRT2_1 0.41421356237309504880 // sqrt(2) - 1

typedef struct jps {
    const uint8_t *clr;
    int stride, goal, need;
} jps;

static inline bool ok(const jps *j, int c) { return j->clr[c] >= j->need; }

/// Octile distance between padded tiles a and b.
static inline double octile(int stride, int a, int b)
{
    int dx = abs(a % stride - b % stride), dy = abs(a / stride - b / stride);
    return dx > dy ? dx + SQRT2_1 * dy : dy + SQRT2_1 * dx;
}

/// Runs straight from c by d (±1 or ±stride; p: the perpendicular step)
/// to the next jump point: the goal, or a tile with a forced neighbour (a
/// usable tile beside it whose tile behind is not). -1 at a wall.
static int jump_straight(const jps *j, int c, int d, int p)
{
    for (;;) {
        c += d;
        if (!ok(j, c)) return -1;
        if (c == j->goal) return c;
        if ((ok(j, c + p) && !ok(j, c - d + p)) || (ok(j, c - p) && !ok(j, c - d - p))) return c;
    }
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
        if (c == j->goal) return c;
        if (jump_straight(j, c, dx, dy) >= 0 || jump_straight(j, c, dy, dx) >= 0) return c;
    }
}

static void touch(nav_query *q, int c)
{
    if (q->stamp[c] == q->id) return;
    q->stamp[c] = q->id;
    q->g[c] = INFINITY;
    q->closed[c] = 0;
    q->pos[c] = -1;
}

/// Offers jump point n, reached from c, to the open list.
static void offer(nav_query *q, const jps *j, int c, int n)
{
    if (n < 0) return;
    touch(q, n);
    if (q->closed[n]) return;
    double g = q->g[c] + octile(j->stride, c, n);
    if (g < q->g[n]) {
        q->g[n] = g;
        q->parent[n] = c;
        nav__query_push(q, n, g + octile(j->stride, n, j->goal));
    }
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
    if (c == q->start) {
        for (int k = -1; k <= 1; k += 2) {
            offer(q, j, c, jump_straight(j, c, k, s));
            offer(q, j, c, jump_straight(j, c, k * s, 1));
            offer(q, j, c, jump_diagonal(j, c, k, s));
            offer(q, j, c, jump_diagonal(j, c, k, -s));
        }
        return;
    }
    int p = q->parent[c];
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

void nav__search_begin(nav_query *q, const nav_tiles *t, int s, int goal, int need)
{
    nav__query_reset(q);
    q->start = s;
    q->goal = goal;
    q->need = need;
    q->state = NAV_SEARCH_RUNNING;
    touch(q, s);
    q->g[s] = 0.0;
    q->parent[s] = s;
    nav__query_push(q, s, octile(t->stride, s, goal));
}

/// The jump points from the goal back to the start, into q->out.
static bool collect(nav_query *q)
{
    q->out_n = 0;
    for (int c = q->goal;; c = q->parent[c]) {
        if (q->out_n == q->out_cap && !nav__query_grow_out(q)) return false;
        q->out[q->out_n++] = c;
        if (c == q->start) return true;
    }
}

int nav__search_run(nav_query *q, const nav_tiles *t, long budget)
{
    if (q->state != NAV_SEARCH_RUNNING) return q->state;
    jps j = {t->clr, t->stride, q->goal, q->need};
    for (long k = 0; k < budget; k++) {
        if (q->heap_n == 0) return q->state = NAV_SEARCH_FAILED;
        int c = nav__query_pop(q);
        q->closed[c] = 1;
        if (c == q->goal) {
            q->state = collect(q) ? NAV_SEARCH_FOUND : NAV_SEARCH_FAILED;
            return q->state;
        }
        q->expanded++;
        expand(q, &j, c);
    }
    return q->state;
}

double nav__search_cost(const nav_query *q) { return q->g[q->goal]; }

int nav__search_cells(const nav_query *q, const nav_tiles *t, int32_t *out, int cap)
{
    int n = 0, s = t->stride;
    if (cap < 1) return -1;
    out[n++] = q->out[q->out_n - 1];
    for (int k = q->out_n - 1; k > 0; k--) {
        int a = q->out[k], b = q->out[k - 1];
        int step = sign(b % s - a % s) + sign(b / s - a / s) * s;
        for (int c = a; c != b;) {
            c += step;
            if (n == cap) return -1;
            out[n++] = c;
        }
    }
    return n;
}
