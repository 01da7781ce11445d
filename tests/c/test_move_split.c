/*
 * test_move_split.c — a group order split across doors (move_split.c):
 * forty units before a wall with three doors take more than one door, and
 * all arrive; with one door they all take it and none fails (the search
 * for another way finds none); the routes are the same with any budget
 * and the steps the same on 1 and 2 threads; a snapshot taken while the
 * later routes are still being searched gives the same steps after a
 * restore; a grid queried between the slices keeps its cells (the kept-out
 * regions come off).
 */
#include <string.h>

#include "test_util.h"

enum { UNITS = 40 };

/// issue 28's map (scripts/rts.lua): 1200 x 800, a wall down x = 590..610
/// with three doors (y 130..180, 375..425, 620..670), or only the middle one.
static st_world *map(int threads, bool three)
{
    st_world_def d = st_default_world_def();
    d.width = 1200;
    d.height = 800;
    d.edges = ST_EDGES_NONE;
    d.threads = threads;
    d.seed = 4;
    d.contacts = true;
    st_world *w = st_world_create(&d);
    const double three_ys[][2] = {{10, 130}, {180, 375}, {425, 620}, {670, 790}};
    const double one_ys[][2] = {{10, 375}, {425, 790}};
    int n = three ? 4 : 2;
    for (int k = 0; k < n; k++) {
        const double *y = three ? three_ys[k] : one_ys[k];
        st_vec2 p[4] = {{590, y[0]}, {610, y[0]}, {610, y[1]}, {590, y[1]}};
        st_world_add_polygon(w, p, 4, true);
    }
    return w;
}

static st_navgrid *grid(st_world *w)
{
    st_navgrid_def g = st_default_navgrid_def();
    g.cell = 8;
    g.clearance = 9;
    return st_navgrid_create(w, &g);
}

/// The group in rts.lua's block, ordered to (1000, 400) (with ORCA unless
/// `ghosts`: then they pass through one another).
static int order_as(st_world *w, st_navgrid *g, st_agent_id *ids, bool ghosts)
{
    for (int i = 0; i < UNITS; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(110 + (i / 8) * 22, 310 + (i % 8) * 22);
        a.radius = 6;
        a.max_speed = 60;
        a.max_force = 240;
        ids[i] = st_world_spawn(w, &a);
        if (ghosts) continue;
        st_avoid_def av = st_default_avoid_def();
        av.mode = ST_AVOIDANCE_ORCA;
        st_agent_set_avoidance(w, ids[i], &av);
    }
    st_group_def gd = st_default_group_def();
    gd.move.nav = g;
    gd.spacing = 18;
    return st_world_move_group(w, ids, UNITS, st_v2(1000, 400), &gd);
}

static int order(st_world *w, st_navgrid *g, st_agent_id *ids) { return order_as(w, g, ids, false); }

/// Which door (0 top, 1 middle, 2 bottom; -1 none) the route crosses x = 600 at.
static int door_of(const st_world *w, st_agent_id id)
{
    const st_vec2 *p;
    int next;
    int n = st_agent_move_route(w, id, &p, &next);
    for (int k = 0; k + 1 < n; k++) {
        if ((p[k].x - 600) * (p[k + 1].x - 600) > 0 || p[k].x == p[k + 1].x) continue;
        double y = p[k].y + (p[k + 1].y - p[k].y) * (600 - p[k].x) / (p[k + 1].x - p[k].x);
        return y < 300 ? 0 : y < 550 ? 1 : 2;
    }
    return -1;
}

/// Steps until every route is laid (at most `cap`), counting doors taken.
static int until_routed(st_world *w, const st_agent_id *ids, int cap, int doors[3])
{
    int k = 0;
    for (; k < cap; k++) {
        int moving = 0;
        for (int i = 0; i < UNITS; i++) moving += st_agent_move_state(w, ids[i]) == ST_MOVE_MOVING;
        if (moving == UNITS) break;
        st_world_step(w, st_world_dt(w));
    }
    doors[0] = doors[1] = doors[2] = 0;
    for (int i = 0; i < UNITS; i++) {
        int d = door_of(w, ids[i]);
        if (d >= 0) doors[d]++;
    }
    return k;
}

static void splits_across_doors(void)
{
    st_world *w = map(1, true);
    st_navgrid *g = grid(w);
    st_agent_id ids[UNITS];
    st_navgrid_update(g);
    static bool before[100][150];
    for (int cy = 0; cy < 100; cy++)
        for (int cx = 0; cx < 150; cx++) before[cy][cx] = st_navgrid_blocked(g, cx, cy);
    CHECK(order(w, g, ids) > 0, "ordered");
    int doors[3];
    int steps = until_routed(w, ids, 120, doors);
    CHECK(steps < 120, "every member has its route after %d steps", steps);
    CHECK(doors[0] + doors[1] + doors[2] == UNITS, "every route crosses the wall at a door: %d %d %d", doors[0],
          doors[1], doors[2]);
    CHECK(doors[1] < UNITS && doors[1] > 0, "the middle door and another: %d %d %d", doors[0], doors[1], doors[2]);
    CHECK(doors[1] >= doors[0] && doors[1] >= doors[2], "the shortest way takes the most: %d %d %d", doors[0], doors[1],
          doors[2]);
    // Members sharing a door are neighbours across the group: the top door's
    // are the group's top rows (y of their starts below every middle one's).
    double top_max = -1, mid_min = 1e9;
    for (int i = 0; i < UNITS; i++) {
        double y = 310 + (i % 8) * 22;
        int d = door_of(w, ids[i]);
        if (d == 0) top_max = top_max > y ? top_max : y;
        if (d == 1) mid_min = mid_min < y ? mid_min : y;
    }
    CHECK(doors[0] == 0 || top_max <= mid_min, "no crossing between sub-groups: top door's lowest start %g, middle's highest %g",
          top_max, mid_min);
    // The grid's cells are as before: the kept-out regions came off.
    int changed = 0;
    for (int cy = 0; cy < 100; cy++)
        for (int cx = 0; cx < 150; cx++) changed += before[cy][cx] != st_navgrid_blocked(g, cx, cy);
    CHECK(changed == 0, "no cell changed by the searches: %d", changed);
    int home = 0;
    for (int k = 0; k < 60 * 60 && home < UNITS; k++) {
        st_world_step(w, st_world_dt(w));
        home = 0;
        for (int i = 0; i < UNITS; i++) home += st_agent_move_state(w, ids[i]) == ST_MOVE_ARRIVED;
    }
    CHECK(home == UNITS, "all home within a minute: %d", home);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

static void one_door_no_split(void)
{
    st_world *w = map(1, false);
    st_navgrid *g = grid(w);
    st_agent_id ids[UNITS];
    CHECK(order(w, g, ids) > 0, "ordered");
    int doors[3];
    int steps = until_routed(w, ids, 120, doors);
    CHECK(steps < 120, "every member has its route after %d steps (the search for another way failed)", steps);
    CHECK(doors[1] == UNITS, "all through the one door: %d", doors[1]);
    int failed = 0;
    for (int i = 0; i < UNITS; i++) failed += st_agent_move_state(w, ids[i]) == ST_MOVE_FAILED;
    CHECK(failed == 0, "no member failed: %d", failed);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// The map changes just before a search with its only door kept out: the
/// grid's connected parts are labelled before the marks go on, so once
/// they are off a path through the door is still found.
static void keepout_leaves_no_trace(void)
{
    st_world *w = map(1, false);
    st_navgrid *g = grid(w);
    st_agent_id ids[UNITS];
    order(w, g, ids);
    st_world_step(w, st_world_dt(w)); // the first route; the next one asked for
    st_world_add_obstacle(w, st_v2(1000, 700), 10);
    int doors[3];
    until_routed(w, ids, 120, doors);
    const st_vec2 *pts;
    int n = 0;
    st_nav_result r = st_navgrid_path(g, st_v2(100, 400), st_v2(1100, 400), &pts, &n);
    CHECK(r == ST_NAV_OK && n >= 2, "a path through the door after the split search: result %d, %d points", (int)r, n);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// Members that pass through one another (no ORCA, no contacts) never
/// queue at a door: one route.
static void ghosts_do_not_split(void)
{
    st_world *w = map(1, true);
    st_world_set_contacts(w, false);
    st_navgrid *g = grid(w);
    st_agent_id ids[UNITS];
    CHECK(order_as(w, g, ids, true) > 0, "ordered");
    int doors[3];
    until_routed(w, ids, 120, doors);
    CHECK(doors[1] == UNITS, "all through the middle door: %d %d %d", doors[0], doors[1], doors[2]);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// Routes are the same whatever the budget: members hold still until the
/// last route is in, so only the step it comes in at differs.
static void same_routes_any_budget(void)
{
    st_world *a = map(1, true), *b = map(1, true);
    st_navgrid *ga = grid(a), *gb = grid(b);
    st_world_set_path_budget(b, 150);
    st_agent_id ia[UNITS], ib[UNITS];
    order(a, ga, ia);
    order(b, gb, ib);
    int da[3], db[3];
    int sa = until_routed(a, ia, 400, da), sb = until_routed(b, ib, 400, db);
    CHECK(sb > sa, "a small budget takes more steps: %d vs %d", sb, sa);
    int same = 0;
    for (int i = 0; i < UNITS; i++) {
        const st_vec2 *pa, *pb;
        int next;
        int na = st_agent_move_route(a, ia[i], &pa, &next), nb = st_agent_move_route(b, ib[i], &pb, &next);
        same += na == nb && na > 0 && memcmp(pa, pb, (size_t)na * sizeof *pa) == 0;
    }
    CHECK(same == UNITS, "the same routes with budget 150: %d of %d", same, UNITS);
    st_navgrid_destroy(ga);
    st_navgrid_destroy(gb);
    st_world_destroy(a);
    st_world_destroy(b);
}

static uint64_t run(int threads, int steps)
{
    st_world *w = map(threads, true);
    st_navgrid *g = grid(w);
    st_agent_id ids[UNITS];
    order(w, g, ids);
    for (int k = 0; k < steps; k++) st_world_step(w, st_world_dt(w));
    uint64_t sum = st_world_checksum(w);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    return sum;
}

static void same_on_two_threads(void)
{
    uint64_t one = run(1, 900), two = run(2, 900);
    CHECK(one == two, "1 and 2 threads: %016llx vs %016llx", (unsigned long long)one, (unsigned long long)two);
}

/// A snapshot while the later routes are searched (a region kept out).
static void snapshot_while_splitting(void)
{
    st_world *w = map(1, true);
    st_navgrid *g = grid(w);
    st_world_set_path_budget(w, 200);
    st_agent_id ids[UNITS];
    order(w, g, ids);
    int k = 0;
    while (k < 200 && st_agent_move_state(w, ids[0]) == ST_MOVE_WAITING && st_world_path_pending(w) > 0) {
        st_world_step(w, st_world_dt(w));
        k++;
        // Capture once the first route is in and another is being searched.
        if (k >= 12) break;
    }
    CHECK(st_world_path_pending(w) > 0, "a later route is still being searched at step %d", k);
    st_snapshot *s = st_world_snapshot(w);
    enum { AFTER = 600 };
    static uint64_t sums[AFTER];
    for (int q = 0; q < AFTER; q++) {
        st_world_step(w, st_world_dt(w));
        sums[q] = st_world_checksum(w);
    }
    const st_vec2 *pts;
    int n;
    st_navgrid_path(g, st_v2(20, 20), st_v2(1180, 780), &pts, &n); // the buffers change meanwhile
    CHECK(st_world_restore(w, s), "restored");
    int same = 0;
    for (int q = 0; q < AFTER; q++) {
        st_world_step(w, st_world_dt(w));
        same += st_world_checksum(w) == sums[q];
    }
    CHECK(same == AFTER, "the same steps after the restore: %d of %d", same, AFTER);
    st_snapshot_destroy(s);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

int main(void)
{
    RUN(splits_across_doors);
    RUN(one_door_no_split);
    RUN(ghosts_do_not_split);
    RUN(keepout_leaves_no_trace);
    RUN(same_routes_any_budget);
    RUN(same_on_two_threads);
    RUN(snapshot_while_splitting);
    return tu_summary();
}
