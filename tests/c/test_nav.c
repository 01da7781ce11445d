/*
 * test_nav.c — the navigation grid, any-angle paths and flow fields.
 *
 * The properties a user relies on: a path never comes closer than the
 * clearance to anything (checked by sampling every segment against the
 * geometry, with this file's own distance code); it is about as short as
 * the true shortest path (a visibility graph over the inflated corners,
 * built here independently, with Dijkstra); a goal nobody can reach gives a
 * reason, not a path; the grid follows obstacles that move or go; and a
 * crowd on a flow field gets out of a maze without anyone stuck, with the
 * same checksum on 1 and 2 threads.
 */
#include <string.h>

#include "test_util.h"

typedef struct rect { double x0, y0, x1, y1; } rect;

/* A fixed maze in a 480 x 320 world: an outer frame and inner walls, all
 * axis-aligned rectangles (so the optimum is easy to build independently). */
static const rect MAZE[] = {
    {0, 0, 480, 8},      {0, 312, 480, 320},  {0, 0, 8, 320},      {472, 0, 480, 320},   // frame
    {100, 8, 116, 220},  {200, 100, 216, 312}, {300, 8, 316, 180}, {300, 240, 316, 312}, // vertical walls
    {316, 160, 400, 176}, {380, 230, 472, 246}, {116, 260, 160, 276},
};
#define NMAZE ((int)(sizeof MAZE / sizeof MAZE[0]))
#define CLEAR 6.0

static st_world *maze_world(int threads)
{
    st_world_def d = st_default_world_def();
    d.width = 480;
    d.height = 320;
    d.edges = ST_EDGES_BOUNCE;
    d.threads = threads;
    st_world *w = st_world_create(&d);
    for (int i = 0; i < NMAZE; i++) {
        const rect *r = &MAZE[i];
        st_vec2 p[4] = {{r->x0, r->y0}, {r->x1, r->y0}, {r->x1, r->y1}, {r->x0, r->y1}};
        st_world_add_polygon(w, p, 4, true);
    }
    return w;
}

/* ---- independent geometry ---- */

static double rect_dist(const rect *r, st_vec2 p)
{
    double dx = fmax(fmax(r->x0 - p.x, 0.0), p.x - r->x1);
    double dy = fmax(fmax(r->y0 - p.y, 0.0), p.y - r->y1);
    return sqrt(dx * dx + dy * dy);
}

static double maze_dist(st_vec2 p)
{
    double d = INFINITY;
    for (int i = 0; i < NMAZE; i++) d = fmin(d, rect_dist(&MAZE[i], p));
    return d;
}

/* The least distance from segment a-b to the maze, by sampling every 0.05
 * units (the distance is 1-Lipschitz, so a sampled minimum is within 0.025). */
static double segment_maze_dist(st_vec2 a, st_vec2 b)
{
    double len = st_v2_dist(a, b), d = INFINITY;
    int n = (int)(len / 0.05) + 1;
    for (int i = 0; i <= n; i++) d = fmin(d, maze_dist(st_v2_lerp(a, b, (double)i / n)));
    return d;
}

static double path_length(const st_vec2 *p, int n)
{
    double l = 0.0;
    for (int i = 1; i < n; i++) l += st_v2_dist(p[i - 1], p[i]);
    return l;
}

/* Exact: whether segment a-b keeps distance >= c from rectangle r (the
 * distance between a segment and a box is reached at an endpoint or where
 * the segment meets the box's edges; test crossing, then endpoints). */
static double seg_seg(st_vec2 a, st_vec2 b, st_vec2 c, st_vec2 d)
{
    st_vec2 r = st_v2_sub(b, a), s = st_v2_sub(d, c);
    double den = st_v2_cross(r, s);
    if (den != 0.0) {
        double t = st_v2_cross(st_v2_sub(c, a), s) / den, u = st_v2_cross(st_v2_sub(c, a), r) / den;
        if (t >= 0 && t <= 1 && u >= 0 && u <= 1) return 0.0;
    }
    double best = INFINITY;
    st_vec2 pts[4] = {a, b, c, d};
    for (int k = 0; k < 4; k++) {
        st_vec2 p = pts[k], e0 = k < 2 ? c : a, e1 = k < 2 ? d : b;
        st_vec2 e = st_v2_sub(e1, e0);
        double l2 = st_v2_len2(e), t = l2 > 0 ? st_v2_dot(st_v2_sub(p, e0), e) / l2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        best = fmin(best, st_v2_dist(p, st_v2_add(e0, st_v2_scale(e, t))));
    }
    return best;
}

static bool seg_clear(st_vec2 a, st_vec2 b, double c)
{
    for (int i = 0; i < NMAZE; i++) {
        const rect *r = &MAZE[i];
        if (rect_dist(r, a) < c || rect_dist(r, b) < c) return false;
        st_vec2 q[4] = {{r->x0, r->y0}, {r->x1, r->y0}, {r->x1, r->y1}, {r->x0, r->y1}};
        for (int k = 0; k < 4; k++)
            if (seg_seg(a, b, q[k], q[(k + 1) % 4]) < c) return false;
    }
    return true;
}

/* The optimal any-angle path: Dijkstra over a visibility graph whose nodes
 * are the start, the goal and points on each rectangle's rounded corner
 * (radius c / cos(step / 2), so the chords between them stay outside). */
#define ARC 7
#define MAXV (NMAZE * 4 * ARC + 2)
static double optimal_length(st_vec2 s, st_vec2 t, double c)
{
    static st_vec2 v[MAXV];
    int n = 0;
    v[n++] = s;
    v[n++] = t;
    double step = (ST_PI / 2) / (ARC - 1), R = c / cos(step / 2) * 1.0001;
    for (int i = 0; i < NMAZE; i++) {
        const rect *r = &MAZE[i];
        st_vec2 corner[4] = {{r->x1, r->y1}, {r->x0, r->y1}, {r->x0, r->y0}, {r->x1, r->y0}};
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < ARC; j++) {
                st_vec2 p = st_v2_add(corner[k], st_v2_from_angle(k * ST_PI / 2 + j * step, R));
                if (p.x > 0 && p.y > 0 && p.x < 480 && p.y < 320 && maze_dist(p) >= c) v[n++] = p;
            }
    }
    static double dist[MAXV];
    static bool done[MAXV];
    for (int i = 0; i < n; i++) {
        dist[i] = INFINITY;
        done[i] = false;
    }
    dist[0] = 0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] && (u < 0 || dist[i] < dist[u])) u = i;
        if (u < 0 || !isfinite(dist[u])) break;
        if (u == 1) return dist[1];
        done[u] = true;
        for (int i = 0; i < n; i++) {
            if (done[i]) continue;
            double l = dist[u] + st_v2_dist(v[u], v[i]);
            if (l < dist[i] && seg_clear(v[u], v[i], c)) dist[i] = l;
        }
    }
    return INFINITY;
}

/* ---- tests ---- */

/* A cell is blocked exactly when some point of it comes within the
 * clearance (up to the half-diagonal margin the grid keeps). */
static void test_raster_matches_geometry(void)
{
    st_world *w = maze_world(1);
    st_world_add_obstacle(w, st_v2(60, 160), 20);
    st_world_add_wall(w, st_v2(400, 40), st_v2(440, 120));
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    CHECK(g != NULL, "create");
    int bad = 0;
    double reach = CLEAR + 0.5 * sqrt(2.0) * d.cell;
    for (int y = 0; y < st_navgrid_rows(g); y++)
        for (int x = 0; x < st_navgrid_cols(g); x++) {
            st_vec2 c = st_v2((x + 0.5) * d.cell, (y + 0.5) * d.cell);
            double dist = fmin(maze_dist(c), st_v2_dist(c, st_v2(60, 160)) - 20);
            st_vec2 q = st_v2(400, 40), e = st_v2(40, 80);
            double t = fmin(1, fmax(0, st_v2_dot(st_v2_sub(c, q), e) / st_v2_len2(e)));
            dist = fmin(dist, st_v2_dist(c, st_v2_add(q, st_v2_scale(e, t))));
            bool want = dist < reach - 1e-9;
            bool near = fabs(dist - reach) < 1e-6;
            if (!near && want != st_navgrid_blocked(g, x, y)) bad++;
        }
    CHECK(bad == 0, "%d cells disagree with the geometry", bad);
    CHECK(st_navgrid_blocked(g, -1, 0) && st_navgrid_blocked(g, 0, st_navgrid_rows(g)), "outside is blocked");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* Random start/goal pairs in the maze: every path keeps the clearance and
 * is within 2% of the optimum. */
static void test_paths_clear_and_short(void)
{
    st_world *w = maze_world(1);
    st_navgrid_def d = st_default_navgrid_def();
    d.clearance = CLEAR;
    st_navgrid *g = st_navgrid_create(w, &d);
    uint64_t rng = 12345;
    int tried = 0, ok = 0, cross = 0, long_ = 0;
    double worst = 0.0, sum = 0.0;
    // Memcheck runs about 50x slower: a dozen pairs there (tests.cmake).
    int pairs = getenv("STEER_TEST_LIGHT") ? 12 : 60;
    while (tried < pairs) {
        st_vec2 pt[2];
        for (int k = 0; k < 2; k++) {
            do {
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                double x = (double)(rng >> 11) / 9007199254740992.0 * 480;
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                double y = (double)(rng >> 11) / 9007199254740992.0 * 320;
                pt[k] = st_v2(x, y);
            } while (maze_dist(pt[k]) < CLEAR + 8.0);
        }
        tried++;
        const st_vec2 *p;
        int n;
        st_nav_result r = st_navgrid_path(g, pt[0], pt[1], &p, &n);
        if (!CHECK(r == ST_NAV_OK, "pair %d: %s", tried, st_nav_result_name(r))) continue;
        ok++;
        CHECK(st_v2_dist(p[0], pt[0]) == 0 && st_v2_dist(p[n - 1], pt[1]) == 0, "ends where asked");
        for (int i = 1; i < n; i++) {
            double m = segment_maze_dist(p[i - 1], p[i]);
            if (m < CLEAR - 0.03) {
                cross++;
                CHECK(false, "pair %d segment %d comes %.3f from a wall", tried, i, m);
            }
        }
        double len = path_length(p, n), opt = optimal_length(pt[0], pt[1], CLEAR);
        double ratio = len / opt;
        worst = fmax(worst, ratio);
        sum += ratio;
        if (ratio > 1.02 || ratio < 0.995) {
            long_++;
            CHECK(false, "pair %d: length %.2f, optimum %.2f (ratio %.4f)", tried, len, opt, ratio);
        }
    }
    printf("  %d paths: none within the clearance (%d), length / optimum: mean %.4f, worst %.4f\n", ok, cross,
           sum / ok, worst);
    CHECK(ok == tried && cross == 0 && long_ == 0, "all good");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

static void test_failures_have_reasons(void)
{
    st_world *w = maze_world(1);
    // A closed box around (60, 60): nobody gets in or out.
    st_world_add_wall(w, st_v2(30, 30), st_v2(90, 30));
    st_world_add_wall(w, st_v2(90, 30), st_v2(90, 90));
    st_world_add_wall(w, st_v2(90, 90), st_v2(30, 90));
    st_world_add_wall(w, st_v2(30, 90), st_v2(30, 30));
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    const st_vec2 *p;
    int n;
    CHECK(st_navgrid_path(g, st_v2(60, 60), st_v2(400, 100), &p, &n) == ST_NAV_NO_ROUTE && p == NULL && n == 0,
          "no way out of the box");
    CHECK(st_navgrid_path(g, st_v2(400, 100), st_v2(60, 60), &p, &n) == ST_NAV_NO_ROUTE, "no way in");
    CHECK(st_navgrid_path(g, st_v2(-5, 60), st_v2(400, 100), &p, &n) == ST_NAV_OUTSIDE, "outside");
    CHECK(st_navgrid_path(g, st_v2(NAN, 60), st_v2(400, 100), &p, &n) == ST_NAV_OUTSIDE, "NaN");
    CHECK(st_navgrid_path(g, st_v2(208, 200), st_v2(400, 100), &p, &n) == ST_NAV_START_BLOCKED,
          "start in the middle of a wall");
    CHECK(st_navgrid_path(g, st_v2(400, 100), st_v2(208, 200), &p, &n) == ST_NAV_GOAL_BLOCKED,
          "goal in the middle of a wall");
    CHECK(strcmp(st_nav_result_name(ST_NAV_NO_ROUTE), "no route") == 0, "names");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* A start or goal just inside the clearance is snapped, not refused. */
static void test_snap_near_walls(void)
{
    st_world *w = maze_world(1);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    const st_vec2 *p;
    int n;
    st_vec2 from = st_v2(120, 150), to = st_v2(196, 200); // 4 units off the walls
    CHECK(st_navgrid_blocked_at(g, from) && st_navgrid_blocked_at(g, to), "both in blocked cells");
    st_nav_result r = st_navgrid_path(g, from, to, &p, &n);
    CHECK(r == ST_NAV_OK, "%s", st_nav_result_name(r));
    if (r == ST_NAV_OK) {
        CHECK(st_v2_dist(p[0], from) == 0, "starts at the start");
        CHECK(!st_navgrid_blocked_at(g, p[1]) || maze_dist(p[1]) >= CLEAR, "then out to clear ground");
        CHECK(maze_dist(p[n - 1]) >= CLEAR && st_v2_dist(p[n - 1], to) < st_navgrid_snap_radius(g),
              "ends clear, near the goal (%.1f away)", st_v2_dist(p[n - 1], to));
        for (int i = 2; i < n - 1; i++) CHECK(segment_maze_dist(p[i - 1], p[i]) >= CLEAR - 0.03, "middle clear");
    }
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* Moving or removing an obstacle recomputes its cells alone, and the grid
 * then equals one built from scratch. */
static void test_incremental_update(void)
{
    st_world *w = maze_world(1);
    // A circle closing the corridor between the first two walls.
    int a = st_world_add_obstacle(w, st_v2(158, 150), 15);
    st_vec2 tri[3] = {{250, 40}, {280, 40}, {265, 70}};
    int b = st_world_add_polygon(w, tri, 3, true);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    CHECK(st_navgrid_update(g) == 0, "nothing changed");
    const st_vec2 *p;
    int n;
    st_vec2 s = st_v2(158, 60), t = st_v2(158, 240);
    CHECK(st_navgrid_path(g, s, t, &p, &n) == ST_NAV_NO_ROUTE, "the circle closes the corridor");
    st_world_set_obstacle_pos(w, a, st_v2(60, 200));
    st_world_remove_obstacle(w, b);
    st_world_add_wall(w, st_v2(20, 300), st_v2(60, 300));
    int touched = st_navgrid_update(g);
    int cells = st_navgrid_cols(g) * st_navgrid_rows(g);
    CHECK(touched > 0 && touched < cells / 10, "%d of %d cells recomputed", touched, cells);
    printf("  moving a circle, removing a triangle, adding a wall: %d of %d cells recomputed\n", touched, cells);
    st_navgrid *fresh = st_navgrid_create(w, &d);
    int diff = 0;
    for (int y = 0; y < st_navgrid_rows(g); y++)
        for (int x = 0; x < st_navgrid_cols(g); x++)
            diff += st_navgrid_blocked(g, x, y) != st_navgrid_blocked(fresh, x, y);
    CHECK(diff == 0, "%d cells differ from a fresh grid", diff);
    CHECK(st_navgrid_path(g, s, t, &p, &n) == ST_NAV_OK && fabs(path_length(p, n) - 180.0) < 1e-9,
          "straight down the open corridor");
    st_navgrid_destroy(fresh);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* Line of sight: exact against the inflated geometry. */
static void test_visible(void)
{
    st_world *w = maze_world(1);
    st_world_add_obstacle(w, st_v2(400, 100), 20);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    CHECK(!st_navgrid_visible(g, st_v2(50, 100), st_v2(150, 100)), "through a wall");
    CHECK(st_navgrid_visible(g, st_v2(50, 250), st_v2(150, 240)), "under the wall's end");
    CHECK(!st_navgrid_visible(g, st_v2(360, 100), st_v2(440, 100)), "through the circle");
    CHECK(st_navgrid_visible(g, st_v2(360, 130), st_v2(440, 130)), "26.9+ clear of the circle passes? (%g)",
          26.0);
    CHECK(!st_navgrid_visible(g, st_v2(360, 125), st_v2(440, 125)), "25 from its centre: inside r + clearance");
    uint64_t rng = 7;
    int bad = 0;
    for (int i = 0; i < 400; i++) {
        st_vec2 q[2];
        for (int k = 0; k < 2; k++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            q[k].x = 8 + (double)(rng >> 11) / 9007199254740992.0 * 464;
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            q[k].y = 8 + (double)(rng >> 11) / 9007199254740992.0 * 304;
        }
        double m = segment_maze_dist(q[0], q[1]);
        m = fmin(m, segment_maze_dist(q[0], q[1]));
        st_vec2 c = st_v2(400, 100);
        st_vec2 e = st_v2_sub(q[1], q[0]);
        double t = fmin(1, fmax(0, st_v2_dot(st_v2_sub(c, q[0]), e) / st_v2_len2(e)));
        m = fmin(m, st_v2_dist(c, st_v2_add(q[0], st_v2_scale(e, t))) - 20);
        if (fabs(m - CLEAR) < 0.05) continue; // too close to call by sampling
        if (st_navgrid_visible(g, q[0], q[1]) != (m >= CLEAR)) bad++;
    }
    CHECK(bad == 0, "%d random segments judged wrongly", bad);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

static void test_deterministic_no_growth(void)
{
    st_world *w = maze_world(1);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    const st_vec2 *p1, *p2;
    int n1, n2;
    st_navgrid_path(g, st_v2(40, 40), st_v2(440, 280), &p1, &n1);
    st_vec2 copy[64];
    memcpy(copy, p1, (size_t)n1 * sizeof *p1);
    for (int i = 0; i < 50; i++) st_navgrid_path(g, st_v2(40 + i, 280), st_v2(440, 40 + i), &p2, &n2);
    st_navgrid_path(g, st_v2(40, 40), st_v2(440, 280), &p2, &n2);
    CHECK(n1 == n2 && memcmp(copy, p2, (size_t)n1 * sizeof *p2) == 0, "same query, same path, bit for bit");
    CHECK(p1 == p2, "the result buffer is reused");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* A crowd spread over the maze follows one flow field to the exit; each is
 * removed on arrival. Nobody may go 5 s without getting 5 units closer. */
static uint64_t evacuate(int threads, int *left, double *worst_stall, double *seconds)
{
    st_world *w = maze_world(threads);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    st_vec2 exit = st_v2(440, 290);
    st_nav_result why;
    st_flowfield *f = st_flowfield_create(g, exit, &why);
    CHECK(f != NULL, "field: %s", st_nav_result_name(why));
    enum { N = 120 };
    st_agent_id ids[N];
    double best[N], since[N];
    uint64_t rng = 99;
    for (int i = 0; i < N; i++) {
        st_agent_def a = st_default_agent_def();
        do {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            a.pos.x = 20 + (double)(rng >> 11) / 9007199254740992.0 * 440;
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            a.pos.y = 20 + (double)(rng >> 11) / 9007199254740992.0 * 280;
        } while (maze_dist(a.pos) < 8);
        a.max_speed = 60;
        a.max_force = 200;
        a.radius = 3;
        ids[i] = st_world_spawn(w, &a);
        st_behavior bh[2] = {st_default_behavior(ST_FOLLOW_FLOW), st_default_behavior(ST_SEPARATE)};
        bh[0].field = f;
        bh[1].flock.radius = 8;
        bh[1].weight = 0.5;
        st_agent_set_behaviors(w, ids[i], bh, 2);
        best[i] = st_flowfield_distance(f, a.pos);
        since[i] = 0;
    }
    *worst_stall = 0;
    int alive = N;
    double t = 0;
    uint64_t sum = 0;
    while (alive > 0 && t < 60) {
        st_world_step(w, 1.0 / 60);
        t += 1.0 / 60;
        sum = sum * 31 + st_world_checksum(w);
        for (int i = 0; i < N; i++) {
            if (!st_agent_alive(w, ids[i])) continue;
            st_vec2 p = st_agent_pos(w, ids[i]);
            if (st_v2_dist(p, exit) < 12) {
                st_world_remove(w, ids[i]);
                alive--;
                continue;
            }
            double dd = st_flowfield_distance(f, p);
            if (dd < best[i] - 5) {
                best[i] = dd;
                since[i] = 0;
            } else {
                since[i] += 1.0 / 60;
                *worst_stall = fmax(*worst_stall, since[i]);
            }
        }
    }
    *left = alive;
    *seconds = t;
    st_flowfield_destroy(f);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    return sum;
}

static void test_flow_field_evacuates(void)
{
    int left1, left2;
    double stall1, stall2, t1, t2;
    uint64_t c1 = evacuate(1, &left1, &stall1, &t1);
    uint64_t c2 = evacuate(2, &left2, &stall2, &t2);
    printf("  120 agents out in %.1f s, longest stall %.2f s; checksums 1 thread %016llx, 2 threads %016llx\n", t1,
           stall1, (unsigned long long)c1, (unsigned long long)c2);
    CHECK(left1 == 0, "%d agents still in the maze after %.0f s", left1, t1);
    CHECK(stall1 <= 5.0, "an agent made no progress for %.2f s", stall1);
    CHECK(c1 == c2 && left1 == left2, "1 and 2 threads agree");
}

/* The field's directions lead downhill: following them cell to cell from
 * every reachable cell arrives at the goal. */
static void test_flow_field_directions(void)
{
    st_world *w = maze_world(1);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    st_vec2 goal = st_v2(40, 290);
    st_flowfield *f = st_flowfield_create(g, goal, NULL);
    int reach = 0, fail = 0;
    for (int y = 0; y < st_navgrid_rows(g); y++)
        for (int x = 0; x < st_navgrid_cols(g); x++) {
            st_vec2 p = st_v2((x + 0.5) * d.cell, (y + 0.5) * d.cell);
            if (!isfinite(st_flowfield_distance(f, p))) continue;
            reach++;
            int k = 0;
            for (; k < 4000 && st_v2_dist(p, goal) > 5; k++) p = st_v2_add(p, st_v2_scale(st_flowfield_dir(f, p), 1.0));
            if (st_v2_dist(p, goal) > 5) fail++;
        }
    CHECK(reach > 500 && fail == 0, "%d of %d cells do not lead to the goal", fail, reach);
    st_nav_result why;
    CHECK(st_flowfield_create(g, st_v2(208, 200), &why) == NULL && why == ST_NAV_GOAL_BLOCKED, "blocked goal");
    CHECK(st_flowfield_create(g, st_v2(900, 200), &why) == NULL && why == ST_NAV_OUTSIDE, "outside");
    // The straight way across open ground: the direction at a point in the
    // open bottom-left room points at the goal, not along 8 headings.
    st_vec2 q = st_v2(80, 240), dir = st_flowfield_dir(f, q), want = st_v2_normalize(st_v2_sub(goal, q));
    CHECK(st_v2_dot(dir, want) > 0.99, "open ground: (%.3f, %.3f) vs (%.3f, %.3f)", dir.x, dir.y, want.x, want.y);
    st_flowfield_destroy(f);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

int main(void)
{
    RUN(test_raster_matches_geometry);
    RUN(test_paths_clear_and_short);
    RUN(test_failures_have_reasons);
    RUN(test_snap_near_walls);
    RUN(test_incremental_update);
    RUN(test_visible);
    RUN(test_deterministic_no_growth);
    RUN(test_flow_field_directions);
    RUN(test_flow_field_evacuates);
    return tu_summary();
}
