/*
 * test_raycast_agents.c — rays against agents through the neighbour grid
 * (raycast_agents.c) and the largest agent radius it relies on.
 *
 * What a user relies on: a ray that asks for agents sees the agent it
 * would see if every agent were tested, bit for bit (point, normal, which
 * agent, ties by spawn order), on random worlds with agents of every size,
 * some outside the world's rectangle, filtered by tag or not, and after
 * agents are removed, shrunk, grown or spawned between rays; a large
 * agent grown after the grid was built is still seen. White box: the
 * largest radius is the live agents' largest after each of those changes.
 */
#include <string.h>

#include "test_util.h"
#include "world_internal.h" /* white box: the largest radius */

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int same(bool ha, const st_raycast_hit *a, bool hb, const st_raycast_hit *b)
{
    if (ha != hb) return 0;
    if (!ha) return 1;
    return a->fraction == b->fraction && a->kind == b->kind && st_id_equal(a->agent, b->agent) &&
           a->normal.x == b->normal.x && a->normal.y == b->normal.y && a->point.x == b->point.x &&
           a->point.y == b->point.y;
}

/// n random rays, each cast through the grid and with every agent tested
/// (the world's brute-force switch); returns how many differ, counts hits.
static int compare_rays(st_world *w, int n, double side, int tag, int *hits)
{
    int differ = 0;
    st_raycast_opts o = st_raycast_default();
    o.obstacles = o.walls = false;
    o.agents = true;
    o.tag = tag;
    for (int k = 0; k < n; k++) {
        st_vec2 a = st_v2(urand() * 1.2 * side - 0.1 * side, urand() * 1.2 * side - 0.1 * side);
        double len = k % 4 == 0 ? side : 10 + urand() * 100;
        st_vec2 b = st_v2_add(a, st_v2_from_angle(urand() * 6.283185307179586, len));
        st_raycast_hit g, f;
        memset(&g, 0, sizeof g);
        memset(&f, 0, sizeof f);
        bool hg = st_world_raycast(w, a, b, &o, &g);
        st_world_set_brute_force(w, true);
        bool hf = st_world_raycast(w, a, b, &o, &f);
        st_world_set_brute_force(w, false);
        *hits += hf;
        if (!same(hg, &g, hf, &f) && differ++ < 3)
            fprintf(stderr, "  ray %d: grid %d fraction %.17g, every agent %d fraction %.17g\n", k, hg, g.fraction,
                    hf, f.fraction);
    }
    return differ;
}

static double live_max(const st_world *w)
{
    double m = 0.0;
    for (int i = 0; i < w->count; i++)
        if (w->agents[i].alive) m = fmax(m, w->bodies[i].radius);
    return m;
}

static void test_grid_agrees_with_every_agent(void)
{
    for (int world = 0; world < 6; world++) {
        double side = 300 + 400 * world;
        st_world_def d = st_default_world_def();
        d.width = d.height = side;
        d.edges = ST_EDGES_NONE;
        st_world *w = st_world_create(&d);
        int n = 200 + 300 * world;
        for (int i = 0; i < n; i++) {
            st_agent_def a = st_default_agent_def();
            // a tenth outside the rectangle; radii 0 .. 12, one in fifty up to 60
            a.pos = st_v2(urand() * 1.4 * side - 0.2 * side, urand() * 1.4 * side - 0.2 * side);
            a.radius = i % 50 == 0 ? 20 + urand() * 40 : urand() * 12;
            a.tag = 1 + i % 3;
            a.vel = st_v2(urand() * 20 - 10, urand() * 20 - 10);
            st_world_spawn(w, &a);
        }
        for (int s = 0; s < 3; s++) st_world_step(w, 1.0 / 60);
        int hits = 0;
        int differ = compare_rays(w, 1500, side, ST_TAG_ANY, &hits) + compare_rays(w, 500, side, 2, &hits);
        CHECK(differ == 0 && hits > 200, "world %d: %d of 2000 rays differ (%d hits)", world, differ, hits);
        CHECK(st__radius_max(w) == live_max(w), "world %d: largest radius %g, live %g", world, st__radius_max(w),
              live_max(w));
        st_world_destroy(w);
    }
}

/* The largest radius follows removals, shrinking, growth and spawns, and
 * the rays stay right after each (no step between: the grid is not rebuilt
 * for a size change). */
static void test_changes_between_rays(void)
{
    st_world_def d = st_default_world_def();
    d.width = d.height = 1000;
    d.edges = ST_EDGES_NONE;
    st_world *w = st_world_create(&d);
    st_agent_id ids[400];
    for (int i = 0; i < 400; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(urand() * 1000, urand() * 1000);
        a.radius = 2 + urand() * 6;
        ids[i] = st_world_spawn(w, &a);
    }
    st_agent_set_radius(w, ids[7], 50);
    int hits = 0;
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ with one large agent");
    CHECK(st__radius_max(w) == 50, "largest radius %g, not 50", st__radius_max(w));
    st_world_remove(w, ids[7]);
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ after the large one is removed");
    CHECK(st__radius_max(w) == live_max(w) && live_max(w) < 8.0, "largest %g after removal, live %g",
          st__radius_max(w), live_max(w));
    // grown far past the others after the grid was built: still seen from afar
    st_vec2 p = st_agent_pos(w, ids[9]);
    st_agent_set_radius(w, ids[9], 120);
    st_raycast_opts o = st_raycast_default();
    o.agents = true;
    o.obstacles = o.walls = false;
    st_raycast_hit h;
    bool seen = st_world_raycast(w, st_v2(p.x - 110, p.y + 300), st_v2(p.x - 110, p.y - 300), &o, &h) &&
                st_id_equal(h.agent, ids[9]);
    CHECK(seen, "an agent grown to 120 is not seen 110 from its centre");
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ after growth");
    st_agent_set_radius(w, ids[9], 1);
    CHECK(st__radius_max(w) == live_max(w), "largest %g after shrinking, live %g", st__radius_max(w), live_max(w));
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ after shrinking");
    st_agent_def big = st_default_agent_def();
    big.pos = st_v2(-300, 500); /* outside the rectangle */
    big.radius = 350;
    big.tag = 9;
    st_agent_id b = st_world_spawn(w, &big);
    o.tag = 9; /* its edge reaches x 50 at y 500: a ray down x 40 enters it at y 583 */
    seen = st_world_raycast(w, st_v2(40, 700), st_v2(40, 300), &o, &h) && st_id_equal(h.agent, b);
    CHECK(seen && fabs(h.point.y - (500 + sqrt(350.0 * 350 - 340.0 * 340))) < 1e-9,
          "a large agent outside the rectangle is not seen where it reaches in (%d, y %g)", seen, h.point.y);
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ after a large spawn outside");
    CHECK(st__radius_max(w) == 350, "largest %g after the spawn", st__radius_max(w));
    // a snapshot of other sizes, restored: counted again
    st_snapshot *snap = st_world_snapshot(w);
    st_world_remove(w, b);
    CHECK(st__radius_max(w) == live_max(w), "largest %g after removing the spawn", st__radius_max(w));
    CHECK(st_world_restore(w, snap), "restore failed");
    CHECK(st__radius_max(w) == 350, "largest %g after the restore", st__radius_max(w));
    CHECK(compare_rays(w, 400, 1000, ST_TAG_ANY, &hits) == 0, "rays differ after the restore");
    st_snapshot_destroy(snap);
    st_world_destroy(w);
}

int main(void)
{
    RUN(test_grid_agrees_with_every_agent);
    RUN(test_changes_between_rays);
    return tu_summary();
}
