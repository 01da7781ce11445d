/*
 * nav_tilepath.c — paths on a tile grid, for an agent of any radius.
 *
 * 1. The ends: the tile under each, or when it has too little room for
 *    the radius, the nearest tile that has it within the snap radius.
 * 2. Jump point search over the tiles with room (nav_search.c): an optimal
 *    octile path.
 * 3. That path walked tile by tile, then pulled straight: from each kept
 *    point, the farthest later point the exact line walk (nav_tiles.c)
 *    sees, found by doubling and halving the step.
 * 4. Each corner slid towards the straight line between its neighbours as
 *    far as the line walk allows (with a hair of margin), so the path
 *    wraps the blocked tiles' corners rather than the centres beside them.
 *
 * Every step only ever shortens the octile path, so the result is never
 * longer than the octile optimum, and every segment was checked by the
 * line walk with the agent's radius. Coordinates are in tiles until the
 * end.
 */
#include "alloc.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nav_internal.h"
#include "geom.h"

/// Margin (tiles) the corner slides keep beyond the radius.
#define NAV_TILE_MARGIN 1e-3
/// Bisection steps of one slide (the first tries the whole way), and the
/// passes over the corners: a slide stops within 1/128 of its length of
/// the best, which costs the path well under a thousandth of a tile.
#define NAV_SLIDE_STEPS 8
#define NAV_SLIDE_PASSES 2


/// The usable tile nearest p (tile coordinates) within `reach` tiles, in
/// connected part `comp` unless comp < 0; -1 when none. Ties: lower index.
static int snap_tile(const st_navgrid *g, const tile_job *k, st_vec2 p, double reach, int32_t comp)
{
    const nav_tiles *t = k->t;
    int x0 = (int)floor(p.x - reach), x1 = (int)floor(p.x + reach);
    int y0 = (int)floor(p.y - reach), y1 = (int)floor(p.y + reach);
    int best = -1;
    double best_d2 = reach * reach;
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < t->rows; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < t->cols; x++) {
            int c = nav__tile_index(t, x, y);
            if (t->clr[c] < k->need || (comp >= 0 && g->comp[y * g->cols + x] != comp)) continue;
            double dx = x + 0.5 - p.x, dy = y + 0.5 - p.y, d2 = dx * dx + dy * dy;
            if (d2 < best_d2) {
                best_d2 = d2;
                best = c;
            }
        }
    return best;
}

static inline st_vec2 tile_center(const nav_tiles *t, int c)
{
    return st_v2(nav__tile_x(t, c) + 0.5, nav__tile_y(t, c) + 0.5);
}

/// Pulls p[0..n) straight in place: from each kept point, the farthest
/// later point in sight (probing 1, 2, 4, ... ahead, then halving back).
/// Returns the new count.
static int pull(const tile_job *k, st_vec2 *p, int n)
{
    int m = 1, i = 0;
    while (i < n - 1) {
        int good = i + 1, step = 1, bad = n;
        while (good + step < n) {
            if (nav__tiles_clear(k->t, p[i], p[good + step], k->r)) {
                good += step;
                step *= 2;
            } else {
                bad = good + step;
                break;
            }
        }
        if (bad == n && good < n - 1 && nav__tiles_clear(k->t, p[i], p[n - 1], k->r)) good = n - 1;
        while (bad - good > 1) {
            int mid = good + (bad - good) / 2;
            if (nav__tiles_clear(k->t, p[i], p[mid], k->r)) good = mid;
            else bad = mid;
        }
        p[m++] = p[good];
        i = good;
    }
    return m;
}

/// Whether q keeps the radius (and the margin) on both legs, from a and to b.
static inline bool legs_clear(const tile_job *k, st_vec2 a, st_vec2 q, st_vec2 b)
{
    double r = k->r + NAV_TILE_MARGIN;
    return nav__tiles_clear(k->t, q, a, r) && nav__tiles_clear(k->t, q, b, r); // walked from q
}

/// How far (0..1) p may slide towards `to` with both legs clear, by
/// bisection; first the whole way, then the smallest step (a point held
/// in a corner, the common case, costs two probes).
static double slide(const tile_job *k, st_vec2 a, st_vec2 p, st_vec2 b, st_vec2 to)
{
    if (legs_clear(k, a, st_v2_lerp(p, to, 1.0), b)) return 1.0;
    double lo = 0.0, hi = 1.0, least = ldexp(1.0, -(NAV_SLIDE_STEPS - 1));
    if (!legs_clear(k, a, st_v2_lerp(p, to, least), b)) return 0.0;
    lo = least;
    for (int it = 1; it < NAV_SLIDE_STEPS; it++) {
        double s = 0.5 * (lo + hi);
        if (legs_clear(k, a, st_v2_lerp(p, to, s), b)) lo = s;
        else hi = s;
    }
    return lo;
}

/// A point agent's taut path turns at the corners of blocked tiles: p moves
/// to the corner of its own tile (a hair inside the tile) that shortens
/// a-p-b the most with both legs clear, if one does. Two line walks a
/// corner, where sliding takes up to eighteen. Whether p moved.
static bool to_corner(const tile_job *k, st_vec2 a, st_vec2 *p, st_vec2 b)
{
    double cx = floor(p->x), cy = floor(p->y), now = st_v2_dist(a, *p) + st_v2_dist(*p, b) - 1e-9;
    st_vec2 centre = st_v2(cx + 0.5, cy + 0.5), q[4];
    double len[4];
    for (int c = 0; c < 4; c++) {
        q[c] = st_v2_lerp(st_v2(cx + (c & 1), cy + (c >> 1)), centre, 2.0 * NAV_TILE_MARGIN); // 1.4e-3 in
        len[c] = st_v2_dist(a, q[c]) + st_v2_dist(q[c], b);
    }
    for (;;) { // the shortest first: the first with clear legs is the one
        int c = 0;
        for (int d = 1; d < 4; d++)
            if (len[d] < len[c]) c = d;
        if (!(len[c] < now)) return false;
        if (nav__tiles_clear(k->t, q[c], a, NAV_TILE_MARGIN) && nav__tiles_clear(k->t, q[c], b, NAV_TILE_MARGIN)) {
            *p = q[c];
            return true;
        }
        len[c] = INFINITY;
    }
}

/// Slides each inner point towards the chord of its neighbours, a few
/// passes or until nothing moves, then drops points the slides made
/// redundant. (Point agents: to a corner first, when one serves.)
static int tighten(const tile_job *k, st_vec2 *p, int n)
{
    for (int pass = 0; pass < NAV_SLIDE_PASSES; pass++) {
        double moved = 0.0;
        for (int i = 1; i < n - 1; i++) {
            st_vec2 was = p[i];
            if (k->r == 0.0 && to_corner(k, p[i - 1], &p[i], p[i + 1])) {
                moved = fmax(moved, st_v2_dist(was, p[i]));
                continue;
            }
            st_vec2 chord = st__closest_on_segment(p[i], p[i - 1], p[i + 1]);
            double s = slide(k, p[i - 1], p[i], p[i + 1], chord);
            st_vec2 q = st_v2_lerp(p[i], chord, s);
            moved = fmax(moved, st_v2_dist(p[i], q));
            p[i] = q;
        }
        if (moved < 1e-3) break;
    }
    return pull(k, p, n);
}

st_nav_result nav__tile_begin(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, nav_tile_ends *e)
{
    e->k = (tile_job){g->tiles, radius / g->cell, nav__tiles_need(radius / g->cell)};
    const tile_job *k = &e->k;
    if (k->need > NAV_CLR_MAX) return ST_NAV_RADIUS;
    const nav_tiles *t = k->t;
    double w = t->cols * g->cell, h = t->rows * g->cell;
    if (!st_v2_finite(from) || !st_v2_finite(to) || from.x < 0 || from.y < 0 || to.x < 0 || to.y < 0 ||
        from.x > w || from.y > h || to.x > w || to.y > h)
        return ST_NAV_OUTSIDE;
    e->from = from;
    e->to = to;
    st_vec2 a = e->a = st_v2_scale(from, 1.0 / g->cell), b = e->b = st_v2_scale(to, 1.0 / g->cell);
    int sx = (int)fmin(floor(a.x), t->cols - 1), sy = (int)fmin(floor(a.y), t->rows - 1);
    int gx = (int)fmin(floor(b.x), t->cols - 1), gy = (int)fmin(floor(b.y), t->rows - 1);
    int s = nav__tile_index(t, sx, sy), goal = e->goal_tile = nav__tile_index(t, gx, gy);
    double reach = fmax(2.0, k->r + 1.0);
    if (!nav__links_view(g)) return ST_NAV_NO_MEMORY;
    const nav_links *L = g->links.ne > 0 ? &g->links : NULL;
    // The free tiles' own connected parts apply (not when links join them).
    bool point = k->need <= NAV_CLR_FREE && !L;
    if (point) nav__label_parts(g);
    if (t->clr[s] < k->need && (s = snap_tile(g, k, a, reach, -1)) < 0) return ST_NAV_START_BLOCKED;
    int32_t part = point ? g->comp[nav__tile_y(t, s) * g->cols + nav__tile_x(t, s)] : -1;
    if (t->clr[goal] < k->need && (goal = snap_tile(g, k, b, reach, part)) < 0) return ST_NAV_GOAL_BLOCKED;
    if (point && g->comp[nav__tile_y(t, goal) * g->cols + nav__tile_x(t, goal)] != part) return ST_NAV_NO_ROUTE;
    e->s = s;
    e->goal = goal;
    g->query->links = L;
    if (!nav__search_begin(g->query, t, s, goal, k->need)) return ST_NAV_NO_MEMORY;
    return ST_NAV_OK;
}

/// Room for the last search's path in g->dense, g->out, g->out_link and
/// the links' step marks: its tiles, its ends, and two points for each
/// link. They grow to the longest path yet (never to the map's size).
static bool tile_room(st_navgrid *g)
{
    int steps = nav__search_steps(g->query, g->tiles);
    if (steps < 0 || steps > INT_MAX / 4 - 2 * g->links.n - 8) return false;
    int need = steps + 4 + 2 * g->links.n;
    if (need <= g->dense_cap) return true;
    int cap = need > INT_MAX / 4 - g->dense_cap ? need : need + g->dense_cap; // at least doubles
    const st_mem *m = &g->w->mem;
    int32_t *d = st__realloc(m, g->dense, (size_t)cap * sizeof *d);
    if (!d) return false;
    g->dense = d;
    st_vec2 *o = st__realloc(m, g->out, (size_t)cap * sizeof *o);
    if (!o) return false;
    g->out = o;
    int32_t *lk = st__realloc(m, g->out_link, (size_t)cap * sizeof *lk);
    if (!lk) return false;
    g->out_link = lk;
    g->out_cap = cap;
    uint8_t *sl = st__realloc(m, g->links.step_link, (size_t)cap);
    if (!sl) return false;
    g->links.step_link = sl;
    g->dense_cap = cap;
    return true;
}

/// The search's tiles as tile-space points in g->out, with the ends.
static int tile_points(st_navgrid *g, const nav_tile_ends *e)
{
    const nav_tiles *t = e->k.t;
    if (!tile_room(g)) return -1;
    int m = nav__search_cells(g->query, t, g->dense, g->dense_cap);
    if (m < 0) return -1;
    st_vec2 a = e->a, b = e->b, *o = g->out;
    int c = 0;
    o[c++] = a;
    for (int i = 0; i < m; i++) o[c++] = tile_center(t, g->dense[i]);
    if (st_v2_dist2(a, o[1]) == 0.0) memmove(o, o + 1, (size_t)--c * sizeof *o); // on the centre
    bool goal_kept = e->goal == e->goal_tile || (nav__tiles_clear(t, b, b, e->k.r) &&
                                                 nav__tiles_clear(t, o[c - 1], b, e->k.r));
    if (goal_kept && st_v2_dist2(o[c - 1], b) > 0.0) o[c++] = b;
    if (c == 1) o[c++] = o[0];
    return c;
}

/// Appends tile-space point p with link mark `link` to o/lk (at *c),
/// unless it repeats the last point.
static void put(st_vec2 *o, int32_t *lk, int *c, st_vec2 p, int32_t link)
{
    if (*c > 0 && st_v2_dist2(o[*c - 1], p) == 0.0) {
        lk[*c - 1] |= link;
        return;
    }
    lk[*c] = link;
    o[(*c)++] = p;
}

/// tile_points for a path that may take links: each link's own ends in
/// the path, the segment between them marked with its id in g->out_link.
static int tile_points_links(st_navgrid *g, const nav_tile_ends *e)
{
    const nav_tiles *t = e->k.t;
    const nav_links *L = &g->links;
    if (!tile_room(g)) return -1;
    int m = nav__search_cells_links(g->query, t, g->dense, L->step_link, g->dense_cap);
    if (m < 0) return -1;
    st_vec2 *o = g->out, b = e->b;
    int32_t *lk = g->out_link;
    int c = 0;
    put(o, lk, &c, e->a, 0);
    for (int i = 0; i < m; i++) {
        put(o, lk, &c, tile_center(t, g->dense[i]), 0);
        if (!L->step_link[i]) continue;
        const nav_link *k = &L->v[nav__links_between(L, g->dense[i], g->dense[i + 1])];
        int x, y;
        nav__cell_of(g, k->a, &x, &y);
        bool fwd = g->dense[i] == nav__tile_index(t, x, y); // else the way back of a two-way link
        put(o, lk, &c, st_v2_scale(fwd ? k->a : k->b, 1.0 / g->cell), 0);
        put(o, lk, &c, st_v2_scale(fwd ? k->b : k->a, 1.0 / g->cell), 0);
        lk[c - 2] = k->id;
    }
    bool goal_kept = e->goal == e->goal_tile || (nav__tiles_clear(t, b, b, e->k.r) &&
                                                 nav__tiles_clear(t, o[c - 1], b, e->k.r));
    if (goal_kept) put(o, lk, &c, b, 0);
    if (c == 1) {
        lk[c] = 0;
        o[c++] = o[0];
    }
    return c;
}

/// One section of a path between links: pulled and tightened (nav_fix_fn).
static int fix_tiles(void *ctx, st_vec2 *o, int m, int cap)
{
    (void)cap;
    const tile_job *k = ctx;
    int first = 0; // a leg off the grid's room (a snapped end, a link's end) stays as it is
    if (!nav__tiles_clear(k->t, o[0], o[1], k->r)) first = 1;
    m = first + pull(k, o + first, m - first);
    return first + tighten(k, o + first, m - first);
}

/// nav__tile_finish for a grid with links.
static int tile_finish_links(st_navgrid *g, const nav_tile_ends *e)
{
    int m = tile_points_links(g, e);
    if (m < 0) return -1;
    tile_job k = e->k;
    st_vec2 *o = g->out;
    int32_t *lk = g->out_link;
    m = nav__links_sections(o, lk, m, g->out_cap, fix_tiles, &k);
    if (m < 0) return -1;
    for (int i = 0; i < m; i++) o[i] = st_v2_scale(o[i], g->cell);
    for (int i = 0; i + 1 < m; i++)
        if (lk[i]) { // the link's own ends, exactly
            for (int j = 0; j < g->links.n; j++)
                if (g->links.v[j].id == lk[i]) {
                    bool fwd = st_v2_dist2(o[i], g->links.v[j].a) <= st_v2_dist2(o[i], g->links.v[j].b);
                    o[i] = fwd ? g->links.v[j].a : g->links.v[j].b;
                    o[i + 1] = fwd ? g->links.v[j].b : g->links.v[j].a;
                }
        }
    if (!lk[0]) o[0] = e->from;
    if (!lk[m - 2] && st_v2_dist2(o[m - 1], st_v2_scale(e->b, g->cell)) < 1e-18) o[m - 1] = e->to;
    g->out_count = m;
    return m;
}

int nav__tile_finish(st_navgrid *g, const nav_tile_ends *e)
{
    if (g->links.ne > 0) return tile_finish_links(g, e);
    int m = tile_points(g, e);
    if (m < 0) return -1;
    const tile_job *k = &e->k;
    st_vec2 *o = g->out;
    if (m > 2) {
        int first = 0; // a snapped start keeps its leg out unpulled
        if (!nav__tiles_clear(g->tiles, o[0], o[1], k->r)) first = 1;
        m = first + pull(k, o + first, m - first);
        m = first + tighten(k, o + first, m - first);
    }
    for (int i = 0; i < m; i++) o[i] = st_v2_scale(o[i], g->cell);
    o[0] = e->from;
    if (st_v2_dist2(o[m - 1], st_v2_scale(e->b, g->cell)) < 1e-18) o[m - 1] = e->to;
    g->out_count = m;
    if (g->out_link) memset(g->out_link, 0, (size_t)m * sizeof *g->out_link);
    return m;
}

st_nav_result nav__tile_path(st_navgrid *g, st_vec2 from, st_vec2 to, double radius, const st_vec2 **points,
                             int *n)
{
    *points = NULL;
    *n = 0;
    g->queries++;
    nav_tile_ends e;
    st_nav_result r = nav__tile_begin(g, from, to, radius, &e);
    if (r != ST_NAV_OK) return r;
    if (nav__search_run(g->query, e.k.t, LONG_MAX) != NAV_SEARCH_FOUND)
        return g->query->out_n == 0 && g->query->heap_n == 0 ? ST_NAV_NO_ROUTE : ST_NAV_NO_MEMORY;
    int m = nav__tile_finish(g, &e);
    if (m < 0) return ST_NAV_NO_MEMORY;
    *points = g->out;
    *n = m;
    return ST_NAV_OK;
}

st_flowfield *st_flowfield_create_radius(st_navgrid *g, st_vec2 goal, double radius, st_nav_result *why)
{
    st_nav_result dummy;
    if (!why) why = &dummy;
    *why = ST_NAV_RADIUS;
    if (!st_finite(radius) || radius < 0.0) return NULL;
    if (!g->tiles) return radius > g->clearance ? NULL : st_flowfield_create(g, goal, why);
    int need = nav__tiles_need(radius / g->cell);
    if (need > NAV_CLR_MAX) return NULL;
    if (need <= NAV_CLR_FREE) return st_flowfield_create(g, goal, why); // every free tile
    if (!nav__cell_buffers(g)) {
        *why = ST_NAV_NO_MEMORY;
        return NULL;
    }
    // While the field is made, the tiles without room for the radius count
    // as blocked: the field's cells are the grid's.
    uint32_t *room = st__alloc(&g->w->mem, (size_t)g->cells * sizeof *room), *own = g->count;
    if (!room) {
        *why = ST_NAV_NO_MEMORY;
        return NULL;
    }
    for (int y = 0; y < g->rows; y++)
        for (int x = 0; x < g->cols; x++) room[y * g->cols + x] = g->tiles->clr[nav__tile_index(g->tiles, x, y)] < need;
    double clearance = g->clearance; // the goal snaps as far as the radius needs
    g->count = room;
    g->clearance = radius;
    st_flowfield *f = st_flowfield_create(g, goal, why);
    g->count = own;
    g->clearance = clearance;
    st__free(room);
    return f;
}

bool st_navgrid_set_tile(st_navgrid *g, int x, int y, bool blocked)
{
    if (!g->tiles || x < 0 || y < 0 || x >= g->cols || y >= g->rows) return false;
    if (nav__tile_blocked(g->tiles, x, y) == blocked) return true;
    nav__tiles_set(g->tiles, x, y, blocked);
    if (g->count) g->count[y * g->cols + x] = blocked;
    nav__parts_tile_changed(g, x, y, blocked);
    return true;
}
