/*
 * checksums.c — the core's worlds, one checksum a line, for comparing
 * builds: make test-portable runs it from the default, the portable and the
 * Clang builds, make test-windows from the mingw-w64 build under Wine, and
 * tools/same_checksums.sh wants every line equal (tools/ is where the
 * comparison lives: this program only prints).
 *
 * Each world takes a different compiler-specific path of the core: the
 * flock's float lanes (GNU vectors, or their scalar fallback), the ORCA
 * pass (SSE2 intrinsics and per-CPU clones, or plain C) with obstacles, the
 * parallel grid sort of a big crowd, jump point search on a tile map
 * (count-zero builtins, or their fallback) with agents following the paths,
 * a flow field, and a snapshot restored mid-run; before them the math
 * functions every platform must round alike (st_sin ...). Each runs on 1 and 2
 * threads; the program fails (exit 1) when the two differ or a restored
 * run does not repeat itself.
 *
 *   checksums [--light]     --light: smaller worlds (valgrind, Wine)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <steer.h>

#define DT (1.0 / 60.0)

static int failures;

/// A seeded stream of its own for laying worlds out (st_world_random would
/// do as well; this one also serves the tile map, which has no world yet).
static double next01(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/// A point in [x0, x0 + sx) x [y0, y0 + sy), x drawn first. Two draws in
/// one call's arguments would be drawn in an order each compiler picks
/// (GCC right to left, Clang left to right): a different world.
static st_vec2 world_point(st_world *w, double sx, double sy)
{
    double x = st_world_random(w) * sx;
    double y = st_world_random(w) * sy;
    return st_v2(x, y);
}

static st_vec2 next_point(uint64_t *s, double x0, double sx, double y0, double sy)
{
    double x = x0 + next01(s) * sx;
    double y = y0 + next01(s) * sy;
    return st_v2(x, y);
}

static st_world *world_of(double width, double height, uint64_t seed, int threads)
{
    st_world_def d = st_default_world_def();
    d.width = width;
    d.height = height;
    d.seed = seed;
    d.threads = threads;
    return st_world_create(&d);
}

/// Flocking and wandering with a few pursuers: the float lanes.
static st_world *crowd_world(int threads, int n)
{
    st_world *w = world_of(800, 600, 42, threads);
    st_behavior flock = st_default_behavior(ST_FLOCK), wander = st_default_behavior(ST_WANDER);
    wander.weight = 0.3;
    st_agent_id first = st_null_agent();
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = world_point(w, 800, 600);
        double heading = st_world_random(w) * 2 * ST_PI;
        a.vel = st_v2_from_angle(heading, 20 + st_world_random(w) * 130);
        st_agent_id id = st_world_spawn(w, &a);
        if (i == 0) first = id;
        st_behavior list[2] = {flock, wander};
        if (i % 25 == 5) {
            list[0] = st_default_behavior(ST_PURSUE);
            list[0].target = st_target_agent(first);
        }
        st_agent_set_behaviors(w, id, list, 2);
    }
    return w;
}

static uint64_t crowd(int threads, int n, int steps)
{
    st_world *w = crowd_world(threads, n);
    for (int s = 0; s < steps; s++) st_world_step(w, DT);
    uint64_t h = st_world_checksum(w);
    st_world_destroy(w);
    return h;
}

/// Two groups crossing through each other with ORCA, past a square and a
/// round obstacle, at mixed priorities.
static uint64_t orca(int threads, int n, int steps)
{
    st_world *w = world_of(1000, 1000, 7, threads);
    st_vec2 square[4] = {{450, 450}, {550, 450}, {550, 550}, {450, 550}};
    st_world_add_polygon(w, square, 4, true);
    st_world_add_obstacle(w, st_v2(300, 700), 40);
    for (int i = 0; i < n; i++) {
        double ang = 2 * ST_PI * i / n;
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(500 + 420 * st_cos(ang), 500 + 420 * st_sin(ang)); // not libm: same bits everywhere
        a.radius = 6;
        a.max_speed = 80;
        st_agent_id id = st_world_spawn(w, &a);
        st_behavior arrive = st_default_behavior(ST_ARRIVE);
        arrive.target = st_target_point(st_v2(1000 - a.pos.x, 1000 - a.pos.y));
        st_agent_set_behaviors(w, id, &arrive, 1);
        st_avoid_def av = st_default_avoid_def();
        av.mode = ST_AVOIDANCE_ORCA;
        av.priority = i % 3;
        st_agent_set_avoidance(w, id, &av);
    }
    for (int s = 0; s < steps; s++) st_world_step(w, DT);
    uint64_t h = st_world_checksum(w);
    st_world_destroy(w);
    return h;
}

/// A crowd big enough for the grid to sort in parallel slices.
static uint64_t big(int threads, int n, int steps)
{
    double side = sqrt(n / (15.0 / (ST_PI * 50.0 * 50.0)));
    st_world *w = world_of(side, side, 11, threads);
    st_behavior list[2] = {st_default_behavior(ST_FLOCK), st_default_behavior(ST_WANDER)};
    list[1].weight = 0.3;
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = world_point(w, side, side);
        a.vel = st_v2_from_angle(st_world_random(w) * 2 * ST_PI, 100);
        st_agent_id id = st_world_spawn(w, &a);
        st_agent_set_behaviors(w, id, list, i % 3 == 0 ? 2 : 1);
    }
    for (int s = 0; s < steps; s++) st_world_step(w, DT);
    uint64_t h = st_world_checksum(w);
    st_world_destroy(w);
    return h;
}

static uint64_t mix(uint64_t h, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return (h ^ b) * 0x100000001b3ULL;
}

enum { TCOLS = 64, TROWS = 48, TCELL = 10, WALKERS = 24 };

/// Jump point search on a random tile map: every path's points go into the
/// checksum, then agents follow the paths.
static uint64_t tiles(int threads, int steps)
{
    static uint8_t map[TCOLS * TROWS];
    uint64_t rng = 5;
    for (int i = 0; i < TCOLS * TROWS; i++) map[i] = next01(&rng) < 0.22;
    st_world *w = world_of(TCOLS * TCELL, TROWS * TCELL, 3, threads);
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = TCELL;
    d.tiles = map;
    d.tile_cols = TCOLS;
    d.tile_rows = TROWS;
    st_navgrid *g = st_navgrid_create(w, &d);
    st_path *paths[WALKERS] = {0};
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < WALKERS; i++) {
        st_vec2 from = next_point(&rng, 0, TCOLS * TCELL, 0, TROWS * TCELL);
        st_vec2 to = next_point(&rng, 0, TCOLS * TCELL, 0, TROWS * TCELL);
        const st_vec2 *pts;
        int n = 0;
        st_nav_result r = st_navgrid_path(g, from, to, &pts, &n);
        h = mix(h, (double)r);
        if (r != ST_NAV_OK) continue;
        for (int k = 0; k < n; k++) h = mix(mix(h, pts[k].x), pts[k].y);
        paths[i] = st_path_create(pts, n, false, 4);
        st_agent_def a = st_default_agent_def();
        a.pos = pts[0];
        a.radius = 3;
        st_agent_id id = st_world_spawn(w, &a);
        st_behavior follow = st_default_behavior(ST_FOLLOW_PATH);
        follow.path = paths[i];
        st_agent_set_behaviors(w, id, &follow, 1);
    }
    for (int s = 0; s < steps; s++) st_world_step(w, DT);
    h = mix(h, (double)st_world_checksum(w));
    st_world_destroy(w);
    st_navgrid_destroy(g);
    for (int i = 0; i < WALKERS; i++) st_path_destroy(paths[i]);
    return h;
}

/// A crowd down a flow field around a wall with a gap, pushing apart.
static uint64_t flow(int threads, int n, int steps)
{
    st_world *w = world_of(480, 320, 9, threads);
    st_vec2 wall[4] = {{230, 0}, {250, 0}, {250, 240}, {230, 240}};
    st_world_add_polygon(w, wall, 4, true);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    st_nav_result why;
    st_flowfield *f = st_flowfield_create(g, st_v2(440, 40), &why);
    uint64_t rng = 17;
    for (int i = 0; f != NULL && i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = next_point(&rng, 20, 190, 20, 280);
        a.max_speed = 60;
        a.radius = 3;
        st_agent_id id = st_world_spawn(w, &a);
        st_behavior bh[2] = {st_default_behavior(ST_FOLLOW_FLOW), st_default_behavior(ST_SEPARATE)};
        bh[0].field = f;
        bh[1].flock.radius = 8;
        bh[1].weight = 0.5;
        st_agent_set_behaviors(w, id, bh, 2);
    }
    for (int s = 0; s < steps; s++) st_world_step(w, DT);
    uint64_t h = f != NULL ? st_world_checksum(w) : (uint64_t)why;
    st_flowfield_destroy(f);
    st_navgrid_destroy(g);
    st_world_destroy(w);
    return h;
}

/// The crowd captured half-way, run on, put back and run on again: both
/// runs must end on the same checksum.
static uint64_t restored(int threads, int n, int steps)
{
    st_world *w = crowd_world(threads, n);
    for (int s = 0; s < steps / 2; s++) st_world_step(w, DT);
    st_snapshot *snap = st_world_snapshot(w);
    for (int s = steps / 2; s < steps; s++) st_world_step(w, DT);
    uint64_t first = st_world_checksum(w);
    bool back = snap != NULL && st_world_restore(w, snap);
    for (int s = steps / 2; s < steps; s++) st_world_step(w, DT);
    uint64_t again = st_world_checksum(w);
    if (!back || first != again) {
        fprintf(stderr, "checksums: restored run ended on %016" PRIx64 ", the first on %016" PRIx64 "\n", again,
                first);
        failures++;
    }
    st_snapshot_destroy(snap);
    st_world_destroy(w);
    return first;
}

/// st_sin, st_cos, st_atan2 and st_hypot themselves, over 100000 inputs
/// each of several sizes (the worlds above use them too, fewer times).
static uint64_t math(int threads, int n, int steps)
{
    (void)threads, (void)steps;
    uint64_t rng = 23, h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < n; i++) {
        double scale = i % 3 == 0 ? 1.0 : i % 3 == 1 ? 100.0 : 1e7;
        double x = (next01(&rng) - 0.5) * scale, y = (next01(&rng) - 0.5) * scale;
        double s, c;
        st_sincos(x, &s, &c);
        h = mix(mix(mix(mix(h, s), c), st_atan2(y, x)), st_hypot(x, y));
    }
    return h;
}

typedef struct world_run {
    const char *name;
    uint64_t (*run)(int threads, int n, int steps);
    int n, steps, light_n, light_steps;
} world_run;

static uint64_t tiles_run(int threads, int n, int steps)
{
    (void)n;
    return tiles(threads, steps);
}

static const world_run RUNS[] = {
    {"math", math, 100000, 0, 100000, 0},
    {"crowd", crowd, 300, 300, 120, 120},
    {"orca", orca, 400, 240, 120, 120},
    {"big", big, 20000, 6, 5000, 3},
    {"tiles", tiles_run, 0, 400, 0, 200},
    {"flow", flow, 120, 300, 60, 150},
    {"restored", restored, 200, 200, 80, 80},
};

int main(int argc, char **argv)
{
    bool light = argc > 1 && strcmp(argv[1], "--light") == 0;
    if (argc > 2 || (argc == 2 && !light)) {
        fprintf(stderr, "usage: checksums [--light]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof RUNS / sizeof RUNS[0]; i++) {
        const world_run *r = &RUNS[i];
        int n = light ? r->light_n : r->n, steps = light ? r->light_steps : r->steps;
        uint64_t one = r->run(1, n, steps), two = r->run(2, n, steps);
        printf("%-9s checksum=%016" PRIx64 "\n", r->name, one);
        if (one != two) {
            fprintf(stderr, "checksums: %s gave %016" PRIx64 " on 1 thread, %016" PRIx64 " on 2\n", r->name, one,
                    two);
            failures++;
        }
    }
    return failures ? 1 : 0;
}
