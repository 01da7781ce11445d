/*
 * test_nav_links.c — off-mesh links (st_navgrid_link): paths take them
 * when they are the only way or the cheaper one, one-way links work one
 * way, the path names its link segments and never pulls across them, and
 * on random maps with random links the jump point search's cost equals an
 * independent Dijkstra over the tiles and the links' edges.
 */
#include <string.h>

#include "../../tools/movingai.h"
#include "nav_internal.h"
#include "test_util.h"

#define TILE 2.0

static st_world *world_for(int w, int h)
{
    st_world_def d = st_default_world_def();
    d.width = w * TILE;
    d.height = h * TILE;
    return st_world_create(&d);
}

static st_navgrid *tile_grid(st_world *w, const mai_map *m)
{
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = TILE;
    d.clearance = 0.0;
    d.tiles = m->blocked;
    d.tile_cols = m->w;
    d.tile_rows = m->h;
    return st_navgrid_create(w, &d);
}

static st_vec2 at(double x, double y) { return st_v2(x * TILE, y * TILE); }

static double length(const st_vec2 *p, int n)
{
    double s = 0.0;
    for (int i = 0; i + 1 < n; i++) s += st_v2_dist(p[i], p[i + 1]);
    return s;
}

/// The links the last path names, and whether their segments are exactly
/// the links' ends.
static int link_segments(const st_navgrid *g, const st_vec2 *p, int n, int id, st_vec2 a, st_vec2 b)
{
    int found = 0;
    for (int i = 0; i + 1 < n; i++) {
        int l = st_navgrid_path_link(g, i);
        if (!l) continue;
        CHECK(l == id, "segment %d takes link %d, not %d", i, l, id);
        CHECK(st_v2_dist(p[i], a) == 0.0 && st_v2_dist(p[i + 1], b) == 0.0, "link segment %d: (%g,%g)-(%g,%g)", i,
              p[i].x, p[i].y, p[i + 1].x, p[i + 1].y);
        found++;
    }
    CHECK(st_navgrid_path_link(g, n - 1) == 0 && st_navgrid_path_link(g, -1) == 0, "out of range");
    return found;
}

/// Two rooms a full wall apart: the link is the only way.
static void test_link_only_way(void)
{
    mai_map m = mai_new(20, 10, 0);
    mai_fill(&m, 10, 0, 11, 10, 1);
    st_world *w = world_for(20, 10);
    st_navgrid *g = tile_grid(w, &m);
    const st_vec2 *p;
    int n;
    CHECK(st_navgrid_path(g, at(2.5, 5.5), at(17.5, 5.5), &p, &n) == ST_NAV_NO_ROUTE, "no link: no route");
    st_vec2 a = at(9.5, 2.5), b = at(11.5, 2.5);
    int id = st_navgrid_link(g, a, b, NULL);
    CHECK(id > 0 && st_navgrid_link_count(g) == 1, "id %d", id);
    CHECK(st_navgrid_path(g, at(2.5, 5.5), at(17.5, 5.5), &p, &n) == ST_NAV_OK, "over the link");
    CHECK(link_segments(g, p, n, id, a, b) == 1, "one link segment");
    CHECK(st_v2_dist(p[0], at(2.5, 5.5)) == 0.0 && st_v2_dist(p[n - 1], at(17.5, 5.5)) == 0.0, "ends");
    // A search in slices (the orders' queue) finds the same path and names
    // the same link on the same segment.
    st_nav_job *job = st_nav_job_create(g);
    CHECK(job && st_nav_job_start(job, at(2.5, 5.5), at(17.5, 5.5), 0.0) == ST_NAV_OK, "job started");
    long used = 0;
    while (job && st_nav_job_run(job, 64, &used) == ST_NAV_JOB_RUNNING) used = 0;
    int jn = 0, marked = 0, right = 0;
    const st_vec2 *jp = job ? st_nav_job_points(job, &jn) : NULL;
    for (int k = 0; jp && k + 1 < jn; k++) {
        int l = st_nav_job_link(job, k);
        marked += l != 0;
        right += l == id && st_v2_dist(jp[k], a) == 0.0 && st_v2_dist(jp[k + 1], b) == 0.0;
    }
    CHECK(jn == n && marked == 1 && right == 1, "the job's path (%d points) names the link once, on a-b: %d, %d", jn,
          marked, right);
    CHECK(job && st_nav_job_link(job, -1) == 0 && st_nav_job_link(job, n - 1) == 0, "no segment: no link");
    st_nav_job_destroy(job);
    // One-way: not back.
    CHECK(st_navgrid_path(g, at(17.5, 5.5), at(2.5, 5.5), &p, &n) == ST_NAV_NO_ROUTE, "one way");
    st_nav_link_def d = st_default_nav_link_def();
    d.both = true;
    int back = st_navgrid_link(g, at(11.5, 8.5), at(9.5, 8.5), &d);
    CHECK(back > id, "ids grow: %d", back);
    CHECK(st_navgrid_path(g, at(17.5, 5.5), at(2.5, 5.5), &p, &n) == ST_NAV_OK, "back over the two-way link");
    CHECK(link_segments(g, p, n, back, at(11.5, 8.5), at(9.5, 8.5)) == 1, "the two-way link, forwards");
    // Its way back (b to a) is named too, with its ends in that order.
    CHECK(st_navgrid_unlink(g, id) && !st_navgrid_unlink(g, id), "unlink once");
    CHECK(st_navgrid_path(g, at(2.5, 8.5), at(17.5, 8.5), &p, &n) == ST_NAV_OK, "forwards over the two-way link");
    CHECK(link_segments(g, p, n, back, at(9.5, 8.5), at(11.5, 8.5)) == 1, "the two-way link, backwards");
    CHECK(st_navgrid_unlink(g, back) && st_navgrid_link_count(g) == 0, "all gone");
    CHECK(st_navgrid_path(g, at(2.5, 5.5), at(17.5, 5.5), &p, &n) == ST_NAV_NO_ROUTE, "no links: no route");
    // Bad input.
    CHECK(st_navgrid_link(g, at(-1, 0), b, NULL) == 0, "outside");
    CHECK(st_navgrid_link(g, st_v2(NAN, 0), b, NULL) == 0, "NaN");
    d.cost = INFINITY;
    CHECK(st_navgrid_link(g, a, b, &d) == 0, "infinite cost");
    d.cost = NAN;
    CHECK(st_navgrid_link(g, a, b, &d) == 0, "NaN cost");
    st_navgrid_destroy(g);
    st_world_destroy(w);
    mai_free(&m);
}

/// A U-shaped map: a link across the U's wall is taken only when it is
/// cheaper than the way round.
static void test_link_shortcut(void)
{
    mai_map m = mai_new(20, 20, 0);
    mai_fill(&m, 9, 0, 11, 17, 1); // wall from the top, open at the bottom
    st_world *w = world_for(20, 20);
    st_navgrid *g = tile_grid(w, &m);
    const st_vec2 *p;
    int n;
    st_vec2 s = at(4.5, 2.5), t = at(15.5, 2.5);
    CHECK(st_navgrid_path(g, s, t, &p, &n) == ST_NAV_OK, "round the wall");
    double round = length(p, n);
    CHECK(round > 30.0 * TILE, "the long way: %g", round);
    st_nav_link_def d = st_default_nav_link_def();
    d.cost = 5.0 * TILE;
    st_vec2 a = at(8.5, 2.5), b = at(11.5, 2.5);
    int id = st_navgrid_link(g, a, b, &d);
    CHECK(st_navgrid_path(g, s, t, &p, &n) == ST_NAV_OK, "over the link");
    CHECK(link_segments(g, p, n, id, a, b) == 1, "cheap: taken");
    CHECK(fabs(length(p, n) - 11.0 * TILE) < 1e-9, "straight to the link, over it and on: %g", length(p, n));
    CHECK(st_navgrid_unlink(g, id), "unlink");
    d.cost = 60.0 * TILE;
    id = st_navgrid_link(g, a, b, &d);
    CHECK(st_navgrid_path(g, s, t, &p, &n) == ST_NAV_OK, "round again");
    CHECK(link_segments(g, p, n, id, a, b) == 0, "dear: not taken");
    CHECK(fabs(length(p, n) - round) < 1e-9, "the same way round: %g vs %g", length(p, n), round);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    mai_free(&m);
}

/// Whether segment a-b (tile units) meets the closed box of tile (x, y), by
/// clipping its parameter range against each slab.
static bool touches_tile(st_vec2 a, st_vec2 b, int x, int y)
{
    double lo = 0.0, hi = 1.0;
    double o[2] = {a.x, a.y}, d[2] = {b.x - a.x, b.y - a.y}, mn[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        if (d[k] == 0.0) {
            if (o[k] < mn[k] || o[k] > mn[k] + 1) return false;
            continue;
        }
        double t0 = (mn[k] - o[k]) / d[k], t1 = (mn[k] + 1 - o[k]) / d[k];
        if (t0 > t1) {
            double t = t0;
            t0 = t1;
            t1 = t;
        }
        lo = fmax(lo, t0);
        hi = fmin(hi, t1);
    }
    return lo <= hi;
}

/// Whether world segment a-b touches no blocked tile (every tile of its box).
static bool crosses_none(const mai_map *m, st_vec2 a, st_vec2 b)
{
    a = st_v2_scale(a, 1.0 / TILE);
    b = st_v2_scale(b, 1.0 / TILE);
    for (int y = (int)floor(fmin(a.y, b.y)) - 1; y <= (int)floor(fmax(a.y, b.y)) + 1; y++)
        for (int x = (int)floor(fmin(a.x, b.x)) - 1; x <= (int)floor(fmax(a.x, b.x)) + 1; x++) {
            bool blocked = x < 0 || y < 0 || x >= m->w || y >= m->h || m->blocked[y * m->w + x];
            if (blocked && touches_tile(a, b, x, y)) return false;
        }
    return true;
}

/* ---- independent Dijkstra over tiles and link edges ---- */

typedef struct edge {
    int from, to;
    double cost; // tiles
} edge;

typedef struct heap_item {
    double d;
    int c;
} heap_item;

static void hpush(heap_item *h, int *n, heap_item e)
{
    int i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d > e.d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static heap_item hpop(heap_item *h, int *n)
{
    heap_item top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        double best = last.d;
        if (l < *n && h[l].d < best) { m = l; best = h[l].d; }
        if (r < *n && h[r].d < best) m = r;
        if (m == i) break;
        h[i] = h[m];
        i = m;
    }
    h[i] = last;
    return top;
}

/// The least cost from tile s to tile t (row-major indices) over 8-connected
/// moves without corner cutting and the edges; INFINITY when none.
static double dijkstra(const mai_map *m, const edge *e, int ne, int s, int t)
{
    int N = m->w * m->h;
    double *d = malloc((size_t)N * sizeof *d);
    heap_item *h = malloc((size_t)(8 * N + 8 * ne + 8) * sizeof *h);
    for (int i = 0; i < N; i++) d[i] = INFINITY;
    int hn = 0;
    d[s] = 0.0;
    hpush(h, &hn, (heap_item){0.0, s});
    double out = INFINITY;
    while (hn > 0) {
        heap_item it = hpop(h, &hn);
        if (it.d > d[it.c]) continue;
        if (it.c == t) {
            out = it.d;
            break;
        }
        int x = it.c % m->w, y = it.c / m->w;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int nx = x + dx, ny = y + dy;
                if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= m->w || ny >= m->h) continue;
                if (m->blocked[ny * m->w + nx]) continue;
                if (dx && dy && (m->blocked[y * m->w + nx] || m->blocked[ny * m->w + x])) continue;
                double v = it.d + (dx && dy ? 1.4142135623730951 : 1.0);
                if (v < d[ny * m->w + nx]) {
                    d[ny * m->w + nx] = v;
                    hpush(h, &hn, (heap_item){v, ny * m->w + nx});
                }
            }
        for (int k = 0; k < ne; k++)
            if (e[k].from == it.c && !m->blocked[e[k].to] && it.d + e[k].cost < d[e[k].to]) {
                d[e[k].to] = it.d + e[k].cost;
                hpush(h, &hn, (heap_item){d[e[k].to], e[k].to});
            }
    }
    free(d);
    free(h);
    return out;
}

/// Random 33% maps with random links (one-way and two-way, costs from 0 to
/// well over the way round): the search's cost is Dijkstra's every time.
static void test_link_optimal(void)
{
    uint64_t seed = 29;
    int queries = 0, used = 0;
    for (int map = 0; map < 6; map++) {
        mai_map m = mai_random(48, 40, 33, 100 + map);
        st_world *w = world_for(m.w, m.h);
        st_navgrid *g = tile_grid(w, &m);
        edge e[16];
        int ne = 0, nl = map == 0 ? 0 : 2 + map;
        for (int k = 0; k < nl; k++) {
            int a, b;
            do a = (int)(mai_next(&seed) % (uint64_t)(m.w * m.h)); while (m.blocked[a]);
            do b = (int)(mai_next(&seed) % (uint64_t)(m.w * m.h)); while (m.blocked[b] || b == a);
            st_nav_link_def d = st_default_nav_link_def();
            d.both = k % 2 == 1;
            d.cost = (double)(mai_next(&seed) % 40) * TILE * (k % 3 == 0 ? 0.1 : 1.0);
            CHECK(st_navgrid_link(g, at(a % m.w + 0.5, a / m.w + 0.5), at(b % m.w + 0.5, b / m.w + 0.5), &d) > 0,
                  "link");
            e[ne++] = (edge){a, b, d.cost / TILE};
            if (d.both) e[ne++] = (edge){b, a, d.cost / TILE};
        }
        for (int q = 0; q < 60; q++) {
            int s, t;
            do s = (int)(mai_next(&seed) % (uint64_t)(m.w * m.h)); while (m.blocked[s]);
            do t = (int)(mai_next(&seed) % (uint64_t)(m.w * m.h)); while (m.blocked[t]);
            double want = dijkstra(&m, e, ne, s, t);
            const st_vec2 *p;
            int n;
            st_nav_result r = st_navgrid_path(g, at(s % m.w + 0.5, s / m.w + 0.5), at(t % m.w + 0.5, t / m.w + 0.5),
                                              &p, &n);
            if (!CHECK((r == ST_NAV_OK) == isfinite(want), "map %d %d->%d: %s, Dijkstra %g", map, s, t,
                       st_nav_result_name(r), want))
                continue;
            if (r != ST_NAV_OK) continue;
            queries++;
            double got = s == t ? 0.0 : nav__search_cost(g->query);
            CHECK(fabs(got - want) < 1e-9, "map %d %d->%d: search %.6f, Dijkstra %.6f", map, s, t, got, want);
            for (int i = 0; i + 1 < n; i++) {
                used += st_navgrid_path_link(g, i) != 0;
                CHECK(st_navgrid_path_link(g, i) || crosses_none(&m, p[i], p[i + 1]),
                      "map %d %d->%d: segment %d crosses a blocked tile", map, s, t, i);
            }
        }
        st_navgrid_destroy(g);
        st_world_destroy(w);
        mai_free(&m);
    }
    CHECK(queries > 250 && used > 20, "%d queries, %d link segments", queries, used);
}

/// An obstacle grid split by a wall: the link is the only way, one way.
static void test_link_obstacle_grid(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = 200;
    wd.height = 100;
    st_world *w = st_world_create(&wd);
    st_world_add_wall(w, st_v2(100, 0), st_v2(100, 100));
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = 5;
    d.clearance = 4;
    st_navgrid *g = st_navgrid_create(w, &d);
    const st_vec2 *p;
    int n;
    CHECK(st_navgrid_path(g, st_v2(20, 80), st_v2(180, 80), &p, &n) == ST_NAV_NO_ROUTE, "no link: no route");
    st_vec2 a = st_v2(86, 30), b = st_v2(114, 30);
    int id = st_navgrid_link(g, a, b, NULL);
    CHECK(st_navgrid_path(g, st_v2(20, 80), st_v2(180, 80), &p, &n) == ST_NAV_OK, "over the link");
    CHECK(link_segments(g, p, n, id, a, b) == 1, "one link segment");
    // Straight to the link and on: any-angle legs (no string pulled across).
    double want = st_v2_dist(st_v2(20, 80), a) + 28.0 + st_v2_dist(b, st_v2(180, 80));
    CHECK(fabs(length(p, n) - want) < 0.05 * want, "length %g, straight legs %g", length(p, n), want);
    CHECK(st_navgrid_path(g, st_v2(180, 80), st_v2(20, 80), &p, &n) == ST_NAV_NO_ROUTE, "one way");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// A link whose ends lie in blocked cells (a ledge on each side of a wall,
/// within the clearance): the search leaves from and lands on the nearest
/// free cells, and the path still holds the link's own ends. Both ways; an
/// end inside a big obstacle, with no free cell near, leaves the link out
/// until the obstacle goes.
static void test_link_ends_snap(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = 200;
    wd.height = 100;
    st_world *w = st_world_create(&wd);
    st_world_add_wall(w, st_v2(100, 0), st_v2(100, 100));
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = 5;
    d.clearance = 4;
    st_navgrid *g = st_navgrid_create(w, &d);
    st_vec2 a = st_v2(96, 30), b = st_v2(104, 30); // free cells: 8.9 away, within the snap radius (10)
    CHECK(st_navgrid_blocked_at(g, a) && st_navgrid_blocked_at(g, b), "both ends in blocked cells");
    st_nav_link_def ld = st_default_nav_link_def();
    ld.both = true;
    int id = st_navgrid_link(g, a, b, &ld);
    const st_vec2 *p;
    int n;
    for (int way = 0; way < 2; way++) {
        st_vec2 from = way ? st_v2(180, 80) : st_v2(20, 80), to = way ? st_v2(20, 80) : st_v2(180, 80);
        st_nav_result res = st_navgrid_path(g, from, to, &p, &n);
        if (!CHECK(res == ST_NAV_OK, "way %d over the link: %d", way, (int)res)) continue;
        CHECK(link_segments(g, p, n, id, way ? b : a, way ? a : b) == 1, "way %d: one link segment, its ends", way);
    }
    // A link into a big obstacle's middle: nowhere to land, until it goes.
    int blob = st_world_add_obstacle(w, st_v2(150, 50), 30);
    st_nav_link_def cheap = st_default_nav_link_def();
    cheap.cost = 10; // the shortest way, when it can land
    int lost = st_navgrid_link(g, st_v2(60, 50), st_v2(150, 50), &cheap);
    for (int gone = 0; gone < 2; gone++) {
        if (gone) st_world_remove_obstacle(w, blob);
        int over = 0;
        if (CHECK(st_navgrid_path(g, st_v2(20, 50), st_v2(150, 90), &p, &n) == ST_NAV_OK, "a path (%d)", gone))
            for (int i = 0; i + 1 < n; i++)
                if (st_navgrid_path_link(g, i) == lost) {
                    over++;
                    CHECK(st_v2_dist(p[i], st_v2(60, 50)) == 0.0 && st_v2_dist(p[i + 1], st_v2(150, 50)) == 0.0,
                          "the link's own ends");
                }
        CHECK(over == gone, "over the link to the obstacle's middle %d times (obstacle gone: %d)", over, gone);
    }
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// The same queries on two grids made alike give the same bytes.
static void test_link_deterministic(void)
{
    mai_map m = mai_random(40, 40, 30, 7);
    st_vec2 pts[2][64];
    int counts[2] = {0, 0}, ids[2][64];
    for (int run = 0; run < 2; run++) {
        st_world *w = world_for(m.w, m.h);
        st_navgrid *g = tile_grid(w, &m);
        uint64_t seed = 5;
        for (int k = 0; k < 4; k++) {
            int a, b;
            do a = (int)(mai_next(&seed) % 1600); while (m.blocked[a]);
            do b = (int)(mai_next(&seed) % 1600); while (m.blocked[b]);
            st_navgrid_link(g, at(a % 40 + 0.3, a / 40 + 0.6), at(b % 40 + 0.7, b / 40 + 0.2), NULL);
        }
        const st_vec2 *p;
        int n;
        if (st_navgrid_path(g, at(1.5, 1.5), at(38.5, 38.5), &p, &n) == ST_NAV_OK && n <= 64) {
            memcpy(pts[run], p, (size_t)n * sizeof *p);
            for (int i = 0; i < n; i++) ids[run][i] = st_navgrid_path_link(g, i);
            counts[run] = n;
        }
        st_navgrid_destroy(g);
        st_world_destroy(w);
    }
    CHECK(counts[0] > 1 && counts[0] == counts[1], "%d vs %d points", counts[0], counts[1]);
    CHECK(memcmp(pts[0], pts[1], (size_t)counts[0] * sizeof pts[0][0]) == 0, "same points");
    CHECK(memcmp(ids[0], ids[1], (size_t)counts[0] * sizeof ids[0][0]) == 0, "same links");
    mai_free(&m);
}

int main(void)
{
    RUN(test_link_only_way);
    RUN(test_link_shortcut);
    RUN(test_link_optimal);
    RUN(test_link_obstacle_grid);
    RUN(test_link_ends_snap);
    RUN(test_link_deterministic);
    return tu_summary();
}
