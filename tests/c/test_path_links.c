/*
 * test_path_links.c — agents following a path that takes an off-mesh
 * link: each records one event at the link's start (both follow_path
 * modes), walks straight across when nobody moves it, carries on from the
 * link's end when the host teleports it there, and the events and the
 * world's checksum are the same on 1 and 2 threads. Snapshots: a world
 * restored from bytes has paths with the same link marks and records the
 * same events as the world it was taken from; a restore keeps navgrid
 * link ids from coming round again.
 */
#include <stdlib.h>
#include <string.h>

#include "../../tools/movingai.h"
#include "test_util.h"

#define TILE 4.0
#define DT (1.0 / 30.0)

typedef struct run_out {
    uint64_t checksum;
    int events, steps, arrived, walked_link;
    uint64_t event_hash;
} run_out;

/// A U-shaped map: the wall splits the top, the way round is long; a link
/// across the wall (a, b). The path from s to t takes it.
static st_path *link_path(st_world *w, st_vec2 *a, st_vec2 *b, int *link)
{
    mai_map m = mai_new(30, 30, 0);
    mai_fill(&m, 14, 0, 16, 26, 1);
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = TILE;
    d.clearance = 0.0;
    d.tiles = m.blocked;
    d.tile_cols = m.w;
    d.tile_rows = m.h;
    st_navgrid *g = st_navgrid_create(w, &d);
    *a = st_v2(13.5 * TILE, 5.5 * TILE);
    *b = st_v2(16.5 * TILE, 5.5 * TILE);
    *link = st_navgrid_link(g, *a, *b, NULL);
    const st_vec2 *p;
    int n;
    st_path *path = NULL;
    if (CHECK(st_navgrid_path(g, st_v2(3.5 * TILE, 5.5 * TILE), st_v2(26.5 * TILE, 5.5 * TILE), &p, &n) == ST_NAV_OK,
              "path")) {
        path = st_path_create(p, n, false, TILE);
        for (int i = 0; i + 1 < n; i++) st_path_set_link(path, i, st_navgrid_path_link(g, i));
    }
    st_navgrid_destroy(g);
    mai_free(&m);
    return path;
}

static double seg_dist(st_vec2 p, st_vec2 a, st_vec2 b)
{
    st_vec2 ab = st_v2_sub(b, a);
    double t = st_v2_dot(st_v2_sub(p, a), ab) / st_v2_dot(ab, ab);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return st_v2_dist(p, st_v2_add(a, st_v2_scale(ab, t)));
}

/// n agents near the start follow the path (every third in predict mode);
/// teleport: the host moves each agent to the link's end at its event.
static run_out run(int n, int threads, bool teleport)
{
    run_out o = {0};
    st_world_def wd = st_default_world_def();
    wd.width = 30 * TILE;
    wd.height = 30 * TILE;
    wd.threads = threads;
    st_world *w = st_world_create(&wd);
    st_vec2 a, b;
    int link;
    st_path *path = link_path(w, &a, &b, &link);
    if (!path) return o;
    int seg = -1;
    for (int i = 0; i + 1 < st_path_count(path); i++)
        if (st_path_link(path, i)) seg = i;
    CHECK(seg >= 0 && st_path_link(path, seg) == link, "the path takes link %d at %d", link, seg);
    CHECK(!st_path_set_link(path, st_path_count(path) - 1, 1) && !st_path_set_link(path, 0, -1), "bad marks");
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    int *seen = calloc((size_t)n, sizeof *seen);
    bool *near_mid = calloc((size_t)n, sizeof *near_mid);
    uint64_t r = 3;
    for (int i = 0; i < n; i++) {
        st_agent_def ad = st_default_agent_def();
        ad.pos = st_v2((2.0 + (double)(mai_next(&r) % 1000) / 250.0) * TILE, (4.0 + (double)(mai_next(&r) % 1000) / 333.0) * TILE);
        ad.max_speed = 40;
        ad.radius = 1;
        ids[i] = st_world_spawn(w, &ad);
        st_behavior f = st_default_behavior(ST_FOLLOW_PATH);
        f.path = path;
        if (i % 3 == 2) f.path_mode = ST_PATH_PREDICT;
        st_agent_set_behaviors(w, ids[i], &f, 1);
    }
    st_vec2 mid = st_v2_lerp(a, b, 0.5), goal = st_path_point(path, st_path_count(path) - 1);
    o.event_hash = 1469598103934665603ull;
    for (o.steps = 0; o.steps < 1500; o.steps++) {
        st_world_step(w, DT);
        int ne = st_world_link_event_count(w);
        for (int k = 0; k < ne; k++) {
            st_link_event e = st_world_link_event(w, k);
            if (k > 0) CHECK(st_world_link_event(w, k - 1).serial < e.serial, "spawn order");
            CHECK(e.link == link && e.index == seg && e.path == path, "event %d: link %d at %d", k, e.link, e.index);
            int i = (int)e.serial - 1;
            if (i >= 0 && i < n) seen[i]++;
            o.event_hash = (o.event_hash ^ e.serial ^ (uint64_t)o.steps << 32) * 1099511628211ull;
            if (teleport) st_agent_set_pos(w, e.agent, b);
        }
        o.events += ne;
        int arrived = 0;
        for (int i = 0; i < n; i++) {
            st_vec2 p = st_agent_pos(w, ids[i]);
            if (st_v2_dist(p, mid) < 0.5 * TILE) near_mid[i] = true;
            arrived += st_v2_dist(p, goal) < 2.0 * TILE;
            CHECK(p.x < 14 * TILE || p.x > 16 * TILE || seg_dist(p, a, b) < 2.0 * TILE || p.y > 26 * TILE,
                  "agent %d in the wall away from the link: (%g, %g)", i, p.x, p.y);
        }
        o.arrived = arrived;
        if (arrived == n) break;
    }
    for (int i = 0; i < n; i++) {
        CHECK(seen[i] == 1, "agent %d: %d events", i, seen[i]);
        o.walked_link += near_mid[i];
    }
    o.checksum = st_world_checksum(w);
    free(ids);
    free(seen);
    free(near_mid);
    st_world_destroy(w);
    st_path_destroy(path);
    return o;
}

static int crowd(void) { return getenv("STEER_TEST_LIGHT") ? 60 : 2400; }

/// Nobody moves them: every agent walks straight across the link.
static void test_walk_across(void)
{
    int n = crowd();
    run_out o = run(n, 1, false);
    CHECK(o.arrived == n, "%d of %d arrived in %d steps", o.arrived, n, o.steps);
    CHECK(o.events == n, "%d events", o.events);
    CHECK(o.walked_link == n, "%d of %d walked over the link's middle", o.walked_link, n);
}

/// The host teleports them at the event: they carry on from the link's end.
static void test_teleport(void)
{
    int n = crowd();
    run_out walk = run(n, 1, false), o = run(n, 1, true);
    printf("walk: %d steps, %d events; teleport: %d steps, %d walked the link\n", walk.steps, walk.events, o.steps, o.walked_link);
    CHECK(o.arrived == n && o.events == n, "%d arrived, %d events", o.arrived, o.events);
    CHECK(o.walked_link < n / 10 + 1, "%d crossed the middle though teleported", o.walked_link);
    CHECK(o.steps < walk.steps, "teleporting is quicker: %d steps vs %d", o.steps, walk.steps);
}

static void test_threads_agree(void)
{
    int n = crowd();
    for (int t = 0; t < 2; t++) {
        run_out one = run(n, 1, t), two = run(n, 2, t);
        CHECK(one.checksum == two.checksum && one.steps == two.steps, "checksum %llx vs %llx",
              (unsigned long long)one.checksum, (unsigned long long)two.checksum);
        CHECK(one.event_hash == two.event_hash && one.events == two.events, "events %d vs %d", one.events,
              two.events);
    }
}

/// Steps w until its agent's link event (at most 600 steps): the step it
/// came in, -1 when none did; *hash: the checksum then.
static int step_to_event(st_world *w, uint64_t *hash)
{
    for (int k = 0; k < 600; k++) {
        st_world_step(w, DT);
        if (st_world_link_event_count(w) > 0) {
            *hash = st_world_checksum(w);
            return k;
        }
    }
    return -1;
}

static void test_snapshot_bytes_keep_links(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 30 * TILE;
    st_world *w = st_world_create(&wd), *v = st_world_create(&wd);
    st_vec2 a, b;
    int link;
    st_path *path = link_path(w, &a, &b, &link);
    if (!path) return;
    st_agent_def ad = st_default_agent_def();
    ad.pos = st_v2(3.5 * TILE, 5.5 * TILE);
    ad.max_speed = 40;
    st_agent_id id = st_world_spawn(w, &ad);
    st_behavior f = st_default_behavior(ST_FOLLOW_PATH);
    f.path = path;
    st_agent_set_behaviors(w, id, &f, 1);
    for (int k = 0; k < 10; k++) st_world_step(w, DT);
    st_snapshot *s = st_world_snapshot(w);
    size_t size = 0;
    void *bytes = s ? st_snapshot_encode(s, &size) : NULL;
    char err[128] = "";
    st_snapshot *d = bytes ? st_snapshot_decode(bytes, size, err, sizeof err) : NULL;
    if (CHECK(d != NULL && st_world_restore(v, d), "decode and restore: %s", err)) {
        uint64_t hw = 0, hv = 0;
        int sw = step_to_event(w, &hw), sv = step_to_event(v, &hv);
        CHECK(sw >= 0 && sv == sw && hv == hw, "the event at step %d and %d, checksums %llx %llx", sw, sv,
              (unsigned long long)hw, (unsigned long long)hv);
        if (sv >= 0) {
            st_link_event e = st_world_link_event(v, 0);
            CHECK(e.link == link && st_path_link(e.path, e.index) == link && e.path != path,
                  "the restored path (the snapshot's own) marks link %d at %d", e.link, e.index);
        }
    }
    free(bytes);
    st_snapshot_destroy(d);
    st_snapshot_destroy(s);
    st_world_destroy(v);
    st_world_destroy(w);
    st_path_destroy(path);
}

static void test_restore_keeps_link_ids(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 30 * TILE;
    st_world *w = st_world_create(&wd);
    st_vec2 a, b;
    int first;
    st_path *path = link_path(w, &a, &b, &first); // its grid is gone; its link took id `first`
    st_snapshot *s = st_world_snapshot(w);
    size_t size = 0;
    void *bytes = s ? st_snapshot_encode(s, &size) : NULL;
    st_snapshot *d = bytes ? st_snapshot_decode(bytes, size, NULL, 0) : NULL;
    st_navgrid_def nd = st_default_navgrid_def();
    nd.cell = TILE;
    st_navgrid *g = st_navgrid_create(w, &nd);
    int later = g ? st_navgrid_link(g, a, b, NULL) : 0;
    CHECK(later > first, "ids %d then %d", first, later);
    // Restored from memory and from bytes (which hold no link ids): the
    // grid's link stays, and a new one never takes its id.
    int after = 0;
    if (CHECK(s && st_world_restore(w, s), "restore")) after = st_navgrid_link(g, b, a, NULL);
    CHECK(after > later && st_navgrid_link_count(g) == 2, "after a restore: id %d (the grid's last %d)", after, later);
    if (CHECK(d && st_world_restore(w, d), "restore from bytes")) {
        int again = st_navgrid_link(g, a, st_v2_lerp(a, b, 0.5), NULL);
        CHECK(again > after, "after a restore from bytes: id %d (the grid's last %d)", again, after);
    }
    free(bytes);
    st_snapshot_destroy(d);
    st_snapshot_destroy(s);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    st_path_destroy(path);
}

int main(void)
{
    RUN(test_walk_across);
    RUN(test_teleport);
    RUN(test_threads_agree);
    RUN(test_snapshot_bytes_keep_links);
    RUN(test_restore_keeps_link_ids);
    return tu_summary();
}
