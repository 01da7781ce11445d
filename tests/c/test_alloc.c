/*
 * test_alloc.c — memory budgets (st_mem, src/alloc.c): every block a world
 * and the objects made from it take is counted and given back when they
 * go; a budget that says no makes spawns, obstacles, navgrids, flow
 * fields, snapshots, restores, paths and formations fail cleanly, the world
 * unchanged and still stepping; and a budget changes no result: the same
 * world with and without one gives the same checksums on 1 and 2 threads.
 */
#include <string.h>

#include "test_util.h"

typedef struct budget {
    size_t used, limit, peak;
    long refused;
} budget;

static bool take(void *ud, size_t n)
{
    budget *b = ud;
    if (b->limit && b->used + n > b->limit) {
        b->refused++;
        return false;
    }
    b->used += n;
    if (b->used > b->peak)
        b->peak = b->used;
    return true;
}

static void give(void *ud, size_t n)
{
    budget *b = ud;
    b->used -= n;
}

static st_mem mem_of(budget *b)
{
    st_mem m = {take, give, b};
    return m;
}

/// A world of n wanderers with a budget (b NULL: none), two obstacles, a wall.
static st_world *make_world(budget *b, int n, int threads)
{
    st_world_def wd = st_default_world_def();
    wd.seed = 7;
    wd.threads = threads;
    if (b)
        wd.mem = mem_of(b);
    st_world *w = st_world_create(&wd);
    if (!w)
        return NULL;
    st_behavior wander = st_default_behavior(ST_WANDER);
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * wd.width, st_world_random(w) * wd.height);
        st_agent_id id = st_world_spawn(w, &a);
        if (st_id_is_null(id) || !st_agent_set_behaviors(w, id, &wander, 1))
            break;
    }
    st_world_add_obstacle(w, st_v2(200, 200), 30);
    st_world_add_wall(w, st_v2(500, 100), st_v2(500, 400));
    return w;
}

static void test_counted_and_given_back(void)
{
    budget b = {0};
    st_world *w = make_world(&b, 2000, 1);
    CHECK(w != NULL, "world");
    size_t world_bytes = b.used;
    CHECK(world_bytes > 2000 * 128, "2000 agents cost %zu bytes: their bodies alone take 256000", world_bytes);
    st_navgrid_def nd = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &nd);
    CHECK(g && b.used > world_bytes + (size_t)st_navgrid_cols(g) * st_navgrid_rows(g) * 20,
          "a navgrid of %d cells counted %zu bytes", g ? st_navgrid_cols(g) * st_navgrid_rows(g) : 0,
          b.used - world_bytes);
    st_nav_result why;
    st_flowfield *f = st_flowfield_create(g, st_v2(700, 500), &why);
    st_snapshot *s = st_world_snapshot(w);
    st_vec2 pts[3] = {{0, 0}, {100, 0}, {100, 100}};
    st_mem m = mem_of(&b);
    size_t before_path = b.used;
    st_path *p = st_path_create_in(&m, pts, 3, false, 10);
    CHECK(p && b.used > before_path, "a path is counted");
    st_formation_def fd = st_default_formation_def();
    fd.mem = m;
    size_t before_formation = b.used;
    st_formation *fo = st_formation_create(&fd);
    CHECK(fo && b.used > before_formation, "a formation is counted");
    size_t n = 0;
    void *bytes = st_snapshot_encode(s, &n);
    size_t before_decode = b.used;
    st_snapshot *d = st_snapshot_decode_in(&m, bytes, n, NULL, 0);
    CHECK(d && b.used - before_decode >= st_snapshot_memory(s) / 2, "a decoded snapshot is counted (%zu bytes)",
          b.used - before_decode);
    free(bytes); /* the encoder's bytes are the caller's, on malloc */
    for (int k = 0; k < 30; k++)
        st_world_step(w, 1.0 / 60.0);
    CHECK(st_world_restore(w, d), "restore");
    st_snapshot_destroy(d);
    st_formation_destroy(fo);
    st_path_destroy(p);
    st_snapshot_destroy(s);
    st_flowfield_destroy(f);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    CHECK(b.used == 0, "%zu bytes not given back", b.used);
}

/// Fills a world under a cap: spawns fail at the cap, each failure leaves
/// the world as it was, and it steps on.
static void test_cap_refuses_cleanly(void)
{
    budget b = {0};
    b.limit = (size_t)4 << 20;
    st_world *w = make_world(&b, 0, 1);
    CHECK(w != NULL, "world");
    int spawned = 0;
    for (; spawned < 1000000; spawned++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(spawned % 800, (spawned / 800) % 600);
        /* storage grows (and so can be refused) when the count reaches a power of two */
        bool grows = (spawned & (spawned - 1)) == 0;
        uint64_t sum = grows ? st_world_checksum(w) : 0;
        if (st_id_is_null(st_world_spawn(w, &a))) {
            CHECK(grows && st_world_checksum(w) == sum && st_world_count(w, ST_TAG_ANY) == spawned,
                  "a refused spawn changed the world (or failed where nothing grows)");
            break;
        }
    }
    CHECK(spawned > 1000 && spawned < 1000000 && b.used <= b.limit, "%d agents in 4 MiB, %zu bytes used", spawned,
          b.used);
    for (int k = 0; k < 10; k++)
        st_world_step(w, 1.0 / 60.0);
    CHECK(st_world_count(w, ST_TAG_ANY) == spawned, "the world steps on with its %d agents", spawned);

    uint64_t sum = st_world_checksum(w);
    st_navgrid_def nd = st_default_navgrid_def();
    nd.cell = 1.0; /* 480,000 cells: far past what is left */
    CHECK(st_navgrid_create(w, &nd) == NULL, "a navgrid past the cap");
    CHECK(st_world_snapshot(w) == NULL, "a snapshot past the cap");
    CHECK(st_world_checksum(w) == sum && b.used <= b.limit, "refusals left the world as it was");
    st_world_destroy(w);
    CHECK(b.used == 0, "%zu bytes not given back", b.used);
}

/// A restore that needs more than the budget allows fails with the world unchanged.
static void test_restore_past_cap(void)
{
    budget big = {0};
    st_world *src = make_world(&big, 5000, 1);
    st_snapshot *s = st_world_snapshot(src);
    budget b = {0};
    b.limit = (size_t)1 << 20;
    st_world *w = make_world(&b, 100, 1);
    uint64_t sum = st_world_checksum(w);
    CHECK(s && w && !st_world_restore(w, s), "a restore of 5000 agents into 1 MiB");
    CHECK(st_world_checksum(w) == sum && st_world_count(w, ST_TAG_ANY) == 100, "the world is as it was");
    st_world_step(w, 1.0 / 60.0);
    st_world_destroy(w);
    st_snapshot_destroy(s);
    st_world_destroy(src);
    CHECK(b.used == 0 && big.used == 0, "bytes not given back: %zu, %zu", b.used, big.used);
}

/// Counting changes nothing: the same checksums with and without a budget,
/// on 1 and 2 threads.
static void test_budget_keeps_determinism(void)
{
    uint64_t sums[3][60];
    for (int run = 0; run < 3; run++) {
        budget b = {0};
        st_world *w = make_world(run == 0 ? NULL : &b, 3000, run == 2 ? 2 : 1);
        for (int k = 0; k < 60; k++) {
            st_world_step(w, 1.0 / 60.0);
            sums[run][k] = st_world_checksum(w);
        }
        st_world_destroy(w);
        CHECK(b.used == 0, "run %d: %zu bytes not given back", run, b.used);
    }
    CHECK(memcmp(sums[0], sums[1], sizeof sums[0]) == 0, "a budget changed the checksums");
    CHECK(memcmp(sums[0], sums[2], sizeof sums[0]) == 0, "a budget changed the checksums on 2 threads");
}

int main(void)
{
    RUN(test_counted_and_given_back);
    RUN(test_cap_refuses_cleanly);
    RUN(test_restore_past_cap);
    RUN(test_budget_keeps_determinism);
    return tu_summary();
}
