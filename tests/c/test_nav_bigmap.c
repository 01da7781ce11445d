/*
 * test_nav_bigmap.c — big tile maps: a 4096 x 4096 map builds, a long path
 * across it is found and walked tile by tile (independently of the
 * planner's own line test), and the world, the grid and its search
 * buffers stay within 128 MB (7.6 bytes a tile), counted by the world's
 * own memory budget (every block the core allocates asks it first), at
 * the peak as well as after; a query asked again gives the same bytes.
 * And the connected parts a tile change keeps up to date locally are the
 * parts a fresh labelling finds.
 *
 * Under valgrind (STEER_TEST_LIGHT) the map is 1024 x 1024, with the same
 * limit a tile.
 */
#include <string.h>

#include "../../tools/movingai.h"
#include "nav_internal.h"
#include "test_util.h"

/// A budget that counts: the bytes held now and the most ever held.
typedef struct counter {
    size_t now, peak;
} counter;

static bool count_reserve(void *ud, size_t n)
{
    counter *c = ud;
    c->now += n;
    if (c->now > c->peak) c->peak = c->now;
    return true;
}

static void count_release(void *ud, size_t n) { ((counter *)ud)->now -= n; }

static bool blocked_at(const mai_map *m, int x, int y)
{
    return x < 0 || y < 0 || x >= m->w || y >= m->h || m->blocked[(size_t)y * m->w + x];
}

/// Whether segment a-b meets the closed tile [x, x+1] x [y, y+1] (slab
/// clipping of the segment's parameter).
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

/// The blocked tiles segment a-b (tile units) touches, walked column by
/// column: in each column the rows the segment spans there, one more on
/// each side, each tested exactly. How many it touches.
static int blocked_touched(const mai_map *m, st_vec2 a, st_vec2 b)
{
    if (a.x > b.x) {
        st_vec2 t = a;
        a = b;
        b = t;
    }
    int hits = 0;
    for (int i = (int)floor(a.x) - 1; i <= (int)floor(b.x); i++) {
        double xa = fmax(a.x, i), xb = fmin(b.x, i + 1.0);
        if (xa > xb) continue;
        double ya = a.y, yb = b.y;
        if (b.x > a.x) {
            ya = a.y + (xa - a.x) * (b.y - a.y) / (b.x - a.x);
            yb = a.y + (xb - a.x) * (b.y - a.y) / (b.x - a.x);
        }
        for (int j = (int)floor(fmin(ya, yb)) - 1; j <= (int)floor(fmax(ya, yb)) + 1; j++)
            if (blocked_at(m, i, j) && touches_tile(a, b, i, j)) hits++;
    }
    return hits;
}

/// The free tile nearest (x, y) in scan order from there.
static st_vec2 free_near(const mai_map *m, int x, int y)
{
    for (int r = 0;; r++)
        for (int j = y - r; j <= y + r; j++)
            for (int i = x - r; i <= x + r; i++)
                if (!blocked_at(m, i, j)) return st_v2(i + 0.5, j + 0.5);
}

static void big_map(void)
{
    bool light = getenv("STEER_TEST_LIGHT") != NULL;
    int side = light ? 1024 : 4096;
    if (light) printf("STEER_TEST_LIGHT: a %d x %d map (4096 x 4096 in the other builds)\n", side, side);
    mai_map m = mai_rooms(side, side, 31, 29);
    counter use = {0, 0};
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = side;
    wd.mem = (st_mem){count_reserve, count_release, &use};
    st_world *w = st_world_create(&wd);
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = 1.0;
    d.clearance = 0.0;
    d.tiles = m.blocked;
    d.tile_cols = d.tile_rows = side;
    st_navgrid *g = w ? st_navgrid_create(w, &d) : NULL;
    if (!CHECK(g != NULL, "a %d x %d tile grid", side, side)) goto done;
    // Corner to corner, and for an agent of radius 0.5 tiles along the
    // other diagonal: every segment touches no blocked tile.
    st_vec2 ends[2][2] = {{free_near(&m, 1, 1), free_near(&m, side - 2, side - 2)},
                          {free_near(&m, side - 16, 16), free_near(&m, 16, side - 16)}}; // mid-room
    double radius[2] = {0.0, 0.5};
    for (int k = 0; k < 2; k++) {
        const st_vec2 *p;
        int n;
        st_nav_result r = st_navgrid_path_radius(g, ends[k][0], ends[k][1], radius[k], &p, &n);
        if (!CHECK(r == ST_NAV_OK && n >= 2, "path %d: result %d", k, (int)r)) continue;
        double len = 0.0;
        int touched = 0;
        for (int i = 1; i < n; i++) {
            len += st_v2_dist(p[i - 1], p[i]);
            touched += blocked_touched(&m, p[i - 1], p[i]);
        }
        CHECK(touched == 0, "path %d touches %d blocked tiles", k, touched);
        CHECK(st_v2_dist(p[0], ends[k][0]) < 1e-9 && st_v2_dist(p[n - 1], ends[k][1]) < 1e-9, "path %d's ends", k);
        // Across the map through doors: longer than the straight line.
        CHECK(len >= st_v2_dist(ends[k][0], ends[k][1]) && len > 0.9 * side, "path %d: %.1f tiles", k, len);
    }
    // Radius 1.5 needs doors 3 wide: a search that finds no way has
    // searched every tile it could reach, the most a search touches.
    const st_vec2 *p;
    int n;
    st_nav_result r = st_navgrid_path_radius(g, ends[1][0], ends[1][1], 1.5, &p, &n);
    CHECK(r == ST_NAV_OK || r == ST_NAV_NO_ROUTE, "radius 1.5: result %d", (int)r);
    // The same query again, its table now grown and full of other
    // searches' stale slots: the same bytes (results never depend on it).
    st_vec2 *first = NULL;
    int first_n = 0;
    if (st_navgrid_path_radius(g, ends[0][0], ends[0][1], 0.0, &p, &n) == ST_NAV_OK) {
        first = malloc((size_t)n * sizeof *first);
        if (first) memcpy(first, p, (size_t)n * sizeof *first);
        first_n = n;
    }
    st_navgrid_path_radius(g, ends[1][0], ends[1][1], 0.5, &p, &n);
    r = st_navgrid_path_radius(g, ends[0][0], ends[0][1], 0.0, &p, &n);
    CHECK(first && r == ST_NAV_OK && n == first_n && memcmp(p, first, (size_t)n * sizeof *p) == 0,
          "the same path again: %d points, then %d", first_n, n);
    free(first);
    const double limit = 7.6 * side * side; // 128 MB at 4096 x 4096
    CHECK(use.now <= limit, "%zu bytes held after the paths, limit %.0f", use.now, limit);
    CHECK(use.peak <= limit, "%zu bytes at the peak, limit %.0f", use.peak, limit);
    printf("  %d x %d: %.1f MB held, %.1f MB at the peak (%.2f bytes a tile)\n", side, side, use.now / 1048576.0,
           use.peak / 1048576.0, (double)use.peak / ((double)side * side));
    // A change is local: a tile in a room's middle blocked and freed
    // again keeps the parts without labelling the map again.
    int x = 16, y = 16;
    CHECK(!blocked_at(&m, x, y), "a free tile mid-room");
    st_navgrid_set_tile(g, x, y, true);
    CHECK(!g->comp_dirty && g->comp[y * side + x] < 0, "blocking a tile mid-room keeps the labels");
    st_navgrid_set_tile(g, x, y, false);
    CHECK(!g->comp_dirty && g->comp[y * side + x] == g->comp[y * side + x + 1], "freeing it joins its room's part");
done:
    st_navgrid_destroy(g);
    st_world_destroy(w);
    CHECK(use.now == 0, "%zu bytes still held after destroy", use.now);
    mai_free(&m);
}

/// comp after local updates and comp labelled afresh name the same parts:
/// the labels map one to one.
static bool same_parts(const int32_t *a, const int32_t *b, int n, int parts_a, int parts_b)
{
    int32_t *ab = malloc((size_t)(parts_a + 1) * sizeof *ab), *ba = malloc((size_t)(parts_b + 1) * sizeof *ba);
    bool same = ab && ba;
    for (int i = 0; same && i <= parts_a; i++) ab[i] = -1;
    for (int i = 0; same && i <= parts_b; i++) ba[i] = -1;
    for (int c = 0; same && c < n; c++) {
        if ((a[c] < 0) != (b[c] < 0)) same = false;
        if (!same || a[c] < 0) continue;
        if (ab[a[c]] < 0) ab[a[c]] = b[c];
        if (ba[b[c]] < 0) ba[b[c]] = a[c];
        same = ab[a[c]] == b[c] && ba[b[c]] == a[c];
    }
    free(ab);
    free(ba);
    return same;
}

static void local_parts_match_fresh(void)
{
    const int side = 48;
    mai_map m = mai_random(side, side, 30, 5);
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = side;
    st_world *w = st_world_create(&wd);
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = 1.0;
    d.clearance = 0.0;
    d.tiles = m.blocked;
    d.tile_cols = d.tile_rows = side;
    st_navgrid *g = st_navgrid_create(w, &d);
    int32_t *kept = malloc((size_t)side * side * sizeof *kept);
    uint64_t seed = 11;
    int local = 0, relabelled = 0;
    for (int it = 0; g && kept && it < 4000; it++) {
        int x = (int)(mai_next(&seed) % side), y = (int)(mai_next(&seed) % side);
        st_navgrid_set_tile(g, x, y, mai_next(&seed) % 3 == 0);
        if (g->comp_dirty) {
            relabelled++;
            nav__label_parts(g);
            continue;
        }
        local++;
        memcpy(kept, g->comp, (size_t)side * side * sizeof *kept);
        int32_t parts = g->parts;
        g->comp_dirty = true;
        nav__label_parts(g);
        if (!CHECK(same_parts(kept, g->comp, side * side, parts, g->parts), "change %d at (%d, %d)", it, x, y))
            break;
    }
    // Both ways were taken, many times.
    CHECK(local > 500 && relabelled > 50, "%d local updates, %d labellings", local, relabelled);
    free(kept);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    mai_free(&m);
}

int main(void)
{
    RUN(big_map);
    RUN(local_parts_match_fresh);
    return tu_summary();
}
