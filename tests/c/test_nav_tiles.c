/*
 * test_nav_tiles.c — navgrids made from tiles: paths for point agents and
 * for agents of radius 0.5, 1.5 and 3 tiles on generated maps (random 33%,
 * mazes with corridors of width 1 and 8, rooms).
 *
 * Everything a path is held to is decided here, independently of the
 * planner: which tiles an agent of radius r may stand on (each tile's
 * distance to every blocked tile, by brute force), whether two tiles are
 * connected and the octile optimum between them (tools/movingai.h's
 * Dijkstra), and whether a segment touches or comes within r of a blocked
 * tile (every tile of the segment's box, widened by r, with a clip test
 * for r = 0 and a ternary search of the convex distance for r > 0).
 */
#include <limits.h>
#include <string.h>


#include "../../tools/movingai.h"
#include "nav_internal.h"
#include "test_util.h"

#define TILE 2.0 // world units per tile: paths come back in world units

static st_world *world_for(const mai_map *m)
{
    st_world_def d = st_default_world_def();
    d.width = m->w * TILE;
    d.height = m->h * TILE;
    return st_world_create(&d);
}

static st_navgrid *tile_grid(st_world *w, const mai_map *m, double clearance)
{
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = TILE;
    d.clearance = clearance;
    d.tiles = m->blocked;
    d.tile_cols = m->w;
    d.tile_rows = m->h;
    return st_navgrid_create(w, &d);
}

static bool blocked_at(const mai_map *m, int x, int y)
{
    return x < 0 || y < 0 || x >= m->w || y >= m->h || m->blocked[(size_t)y * m->w + x];
}

/* ---- independent geometry (tile units) ---- */

/// Whether segment a-b meets the closed box [x, x+1] x [y, y+1], by
/// clipping the segment's parameter range against each slab.
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
        if (t0 > t1) { double t = t0; t0 = t1; t1 = t; }
        lo = fmax(lo, t0);
        hi = fmin(hi, t1);
    }
    return lo <= hi;
}

static double point_tile(st_vec2 p, int x, int y)
{
    double dx = fmax(fmax(x - p.x, 0.0), p.x - (x + 1)), dy = fmax(fmax(y - p.y, 0.0), p.y - (y + 1));
    return sqrt(dx * dx + dy * dy);
}

/// Least distance from segment a-b to tile (x, y): ternary search of the
/// (convex) distance along the segment.
static double segment_tile(st_vec2 a, st_vec2 b, int x, int y)
{
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 200; it++) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (point_tile(st_v2_lerp(a, b, m1), x, y) < point_tile(st_v2_lerp(a, b, m2), x, y)) hi = m2;
        else lo = m1;
    }
    return point_tile(st_v2_lerp(a, b, 0.5 * (lo + hi)), x, y);
}

/// The least distance from segment a-b to a blocked tile (or outside), 0
/// when it touches one; only tiles within `reach` of the segment's box.
static double segment_room(const mai_map *m, st_vec2 a, st_vec2 b, double reach)
{
    int x0 = (int)floor(fmin(a.x, b.x) - reach) - 1, x1 = (int)floor(fmax(a.x, b.x) + reach) + 1;
    int y0 = (int)floor(fmin(a.y, b.y) - reach) - 1, y1 = (int)floor(fmax(a.y, b.y) + reach) + 1;
    double best = INFINITY;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (!blocked_at(m, x, y)) continue;
            if (touches_tile(a, b, x, y)) return 0.0;
            if (reach > 0.0) best = fmin(best, segment_tile(a, b, x, y));
        }
    return best;
}

/// usable[i]: tile i's centre is at least r from every blocked tile and
/// from outside the map (brute force over the tiles around it).
static uint8_t *usable_for(const mai_map *m, double r)
{
    uint8_t *u = malloc((size_t)m->w * m->h);
    int reach = (int)ceil(r) + 1;
    for (int y = 0; y < m->h; y++)
        for (int x = 0; x < m->w; x++) {
            bool ok = !blocked_at(m, x, y);
            for (int j = y - reach; ok && j <= y + reach; j++)
                for (int i = x - reach; ok && i <= x + reach; i++)
                    if (blocked_at(m, i, j) && point_tile(st_v2(x + 0.5, y + 0.5), i, j) < r) ok = false;
            u[(size_t)y * m->w + x] = ok;
        }
    return u;
}

static double path_len(const st_vec2 *p, int n)
{
    double l = 0.0;
    for (int i = 1; i < n; i++) l += st_v2_dist(p[i - 1], p[i]);
    return l;
}

/* ---- the sweep ---- */

typedef struct sweep {
    int tried, solved, unsolvable, refused, crossed, longer, suboptimal;
    double ratio_sum;
} sweep;

/// `pairs` random pairs of usable tiles on m for radius r (tiles): every
/// pair the Dijkstra connects gets a path that keeps r (touches nothing
/// for r = 0), ends where asked, and is no longer than the octile optimum;
/// every pair it does not connect gets no path.
static sweep run_pairs(const mai_map *m, double r, int pairs, uint64_t seed)
{
    sweep s = {0};
    st_world *w = world_for(m);
    st_navgrid *g = tile_grid(w, m, 0.0);
    uint8_t *u = usable_for(m, r);
    double *dist = malloc((size_t)m->w * m->h * sizeof *dist);
    if (!CHECK(g && u && dist, "set-up")) goto out;
    for (int src = 0; src < pairs / 10; src++) {
        int sx, sy;
        do {
            sx = (int)(mai_next(&seed) % (uint64_t)m->w);
            sy = (int)(mai_next(&seed) % (uint64_t)m->h);
        } while (!u[(size_t)sy * m->w + sx]);
        mai_dijkstra(m->w, m->h, u, sx, sy, dist);
        for (int k = 0; k < 10; k++) {
            int gx, gy;
            do {
                gx = (int)(mai_next(&seed) % (uint64_t)m->w);
                gy = (int)(mai_next(&seed) % (uint64_t)m->h);
            } while (!u[(size_t)gy * m->w + gx] || (gx == sx && gy == sy));
            st_vec2 from = st_v2((sx + 0.5) * TILE, (sy + 0.5) * TILE);
            st_vec2 to = st_v2((gx + 0.5) * TILE, (gy + 0.5) * TILE);
            const st_vec2 *p;
            int n;
            st_nav_result res = st_navgrid_path_radius(g, from, to, r * TILE, &p, &n);
            double opt = dist[(size_t)gy * m->w + gx];
            s.tried++;
            if (!isfinite(opt)) {
                s.unsolvable++;
                if (res == ST_NAV_OK) s.refused += 0 * CHECK(false, "a path where Dijkstra finds none");
                continue;
            }
            if (!CHECK(res == ST_NAV_OK, "(%d,%d)->(%d,%d) r %.1f: %s", sx, sy, gx, gy, r, st_nav_result_name(res))) {
                s.refused++;
                continue;
            }
            s.solved++;
            double cost = nav__search_cost(g->query); // white-box: the search itself is optimal
            if (fabs(cost - opt) > 1e-9) s.suboptimal++;
            CHECK(n >= 2 && st_v2_dist(p[0], from) == 0 && st_v2_dist(p[n - 1], to) == 0, "ends where asked");
            for (int i = 1; i < n; i++) {
                st_vec2 a = st_v2_scale(p[i - 1], 1.0 / TILE), b = st_v2_scale(p[i], 1.0 / TILE);
                double room = segment_room(m, a, b, r);
                if (r == 0.0 ? room == 0.0 : room < r - 1e-9) {
                    s.crossed++;
                    CHECK(false, "r %.1f: segment (%.4f,%.4f)-(%.4f,%.4f) has room %.6f", r, a.x, a.y, b.x, b.y, room);
                }
            }
            double len = path_len(p, n) / TILE;
            if (len > opt + 1e-9) {
                s.longer++;
                CHECK(false, "longer than the octile optimum: %.6f > %.6f", len, opt);
            }
            s.ratio_sum += len / opt;
        }
    }
out:
    free(u);
    free(dist);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    return s;
}

static void report(const char *name, double r, sweep s)
{
    printf("  %-10s r %.1f: %d pairs, %d solved, %d with no route, length / octile optimum %.4f\n", name, r, s.tried,
           s.solved, s.unsolvable, s.solved ? s.ratio_sum / s.solved : 0.0);
    CHECK(s.refused == 0 && s.crossed == 0 && s.longer == 0 && s.suboptimal == 0,
          "%s r %.1f: %d refused, %d crossing, %d longer, %d searches not octile-optimal", name, r, s.refused,
          s.crossed, s.longer, s.suboptimal);
}

static void test_point_agents(void)
{
    int pairs = getenv("STEER_TEST_LIGHT") ? 20 : 200;
    mai_map maps[4] = {mai_random(96, 96, 33, 1), mai_maze(97, 97, 1, 2), mai_maze(200, 200, 8, 3),
                       mai_rooms(97, 97, 15, 4)};
    const char *names[4] = {"random33", "maze1", "maze8", "rooms"};
    for (int i = 0; i < 4; i++) {
        sweep s = run_pairs(&maps[i], 0.0, pairs, 10 + i);
        report(names[i], 0.0, s);
        CHECK(s.solved > s.tried / 3, "%s: most pairs have a route", names[i]);
        mai_free(&maps[i]);
    }
}

static void test_radii(void)
{
    int pairs = getenv("STEER_TEST_LIGHT") ? 10 : 100;
    static const double R[3] = {0.5, 1.5, 3.0};
    mai_map maps[3] = {mai_random(80, 80, 5, 5), mai_maze(200, 200, 8, 6), mai_rooms(97, 97, 15, 7)};
    const char *names[3] = {"random5", "maze8", "rooms"};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) report(names[i], R[k], run_pairs(&maps[i], R[k], pairs, 20 + i * 3 + k));
        mai_free(&maps[i]);
    }
}

/// A point one unit into a random tile (free or not: snapping is compared too).
static st_vec2 random_spot(const mai_map *m, uint64_t *seed)
{
    double x = (double)(mai_next(seed) % (uint64_t)m->w), y = (double)(mai_next(seed) % (uint64_t)m->h);
    return st_v2(x * TILE + 1, y * TILE + 1);
}

/* Blocking and freeing tiles one at a time leaves the grid equal to one
 * built from the changed map: every tile's clearance byte, and the paths. */
static void test_set_tile_equals_rebuild(void)
{
    mai_map m = mai_caves(150, 120, 9);
    st_world *w = world_for(&m);
    st_navgrid *g = tile_grid(w, &m, 0.0);
    uint64_t seed = 77;
    int changes = getenv("STEER_TEST_LIGHT") ? 60 : 400;
    for (int k = 0; k < changes; k++) {
        int x = (int)(mai_next(&seed) % (uint64_t)m.w), y = (int)(mai_next(&seed) % (uint64_t)m.h);
        bool b = mai_next(&seed) % 2;
        m.blocked[(size_t)y * m.w + x] = b;
        CHECK(st_navgrid_set_tile(g, x, y, b), "set_tile");
        if (k % 50 != 49) continue;
        st_navgrid *fresh = tile_grid(w, &m, 0.0);
        int differ = memcmp(g->tiles->clr, fresh->tiles->clr, (size_t)g->tiles->cells);
        CHECK(differ == 0, "after %d changes the clearance differs from a rebuild", k + 1);
        for (int q = 0; q < 20; q++) {
            st_vec2 a = random_spot(&m, &seed), b2 = random_spot(&m, &seed);
            double r = (q % 3) * 1.5 * TILE;
            const st_vec2 *p1, *p2;
            int n1, n2;
            st_nav_result r1 = st_navgrid_path_radius(g, a, b2, r, &p1, &n1);
            st_vec2 keep[4096];
            int nk = r1 == ST_NAV_OK && n1 <= 4096 ? n1 : 0;
            if (nk > 0) memcpy(keep, p1, (size_t)nk * sizeof *keep);
            st_nav_result r2 = st_navgrid_path_radius(fresh, a, b2, r, &p2, &n2);
            bool same = r1 == r2 &&
                        (r1 != ST_NAV_OK || (n1 == n2 && memcmp(keep, p2, (size_t)nk * sizeof *keep) == 0));
            CHECK(same, "path %d differs from the rebuilt grid's (%s / %s)", q, st_nav_result_name(r1),
                  st_nav_result_name(r2));
        }
        st_navgrid_destroy(fresh);
    }
    CHECK(!st_navgrid_set_tile(g, -1, 0, true) && !st_navgrid_set_tile(g, m.w, 0, true), "outside the map");
    st_navgrid_destroy(g);
    st_world_destroy(w);
    mai_free(&m);
}

/* A search run in slices (a budget of one expansion at a time, as a mover
 * would spread it over steps) ends with the same jump points and cost as
 * the same search run at once; both are the octile optimum. */
static void test_sliced_search(void)
{
    mai_map m = mai_rooms(130, 130, 15, 3);
    nav_tiles *t = nav__tiles_create(NULL, m.w, m.h, m.blocked);
    nav_query *whole = nav__query_create(NULL, t->cells), *sliced = nav__query_create(NULL, t->cells);
    uint8_t *u = usable_for(&m, 0.0);
    double *dist = malloc((size_t)m.w * m.h * sizeof *dist);
    uint64_t seed = 41;
    int compared = 0, slices_total = 0;
    for (int k = 0; k < 30; k++) {
        int sx, sy, gx, gy;
        do {
            sx = (int)(mai_next(&seed) % (uint64_t)m.w);
            sy = (int)(mai_next(&seed) % (uint64_t)m.h);
            gx = (int)(mai_next(&seed) % (uint64_t)m.w);
            gy = (int)(mai_next(&seed) % (uint64_t)m.h);
        } while (!u[sy * m.w + sx] || !u[gy * m.w + gx]);
        int s = nav__tile_index(t, sx, sy), g = nav__tile_index(t, gx, gy);
        nav__search_begin(whole, t, s, g, 1);
        int a = nav__search_run(whole, t, LONG_MAX);
        nav__search_begin(sliced, t, s, g, 1);
        int b, slices = 0;
        while ((b = nav__search_run(sliced, t, 1)) == NAV_SEARCH_RUNNING) slices++;
        slices_total += slices;
        mai_dijkstra(m.w, m.h, u, sx, sy, dist);
        double opt = dist[gy * m.w + gx];
        CHECK(a == b && (a == NAV_SEARCH_FOUND) == isfinite(opt), "same outcome, as Dijkstra says");
        if (a != NAV_SEARCH_FOUND || b != NAV_SEARCH_FOUND) continue;
        compared++;
        CHECK(whole->out_n == sliced->out_n &&
                  memcmp(whole->out, sliced->out, (size_t)whole->out_n * sizeof *whole->out) == 0,
              "same jump points");
        CHECK(nav__search_cost(whole) == nav__search_cost(sliced) && fabs(nav__search_cost(whole) - opt) < 1e-9,
              "same cost, the optimum (%.6f, %.6f, %.6f)", nav__search_cost(whole), nav__search_cost(sliced), opt);
    }
    printf("  %d searches compared, %d slices in all\n", compared, slices_total);
    CHECK(compared > 10 && slices_total > compared, "the slices did run");
    free(u);
    free(dist);
    nav__query_destroy(whole);
    nav__query_destroy(sliced);
    nav__tiles_destroy(t);
    mai_free(&m);
}

int main(void)
{
    RUN(test_sliced_search);
    RUN(test_set_tile_equals_rebuild);
    RUN(test_point_agents);
    RUN(test_radii);
    return tu_summary();
}
