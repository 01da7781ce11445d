/*
 * raycast.c — steer_bench's raycast rows (--only raycast).
 *
 * A square world at a fixed density of geometry (one obstacle per 160 x 160
 * units: circles, boxes and polylines in turn, radius 5..30, and a wall for
 * every five obstacles), sized for 100 .. 10,000 obstacles, and random rays
 * of two lengths: short (60 units, a guard's glance across a room) and long
 * (a quarter of the world's side). Then the same with 10,000 agents, asked
 * for by tag, through the neighbour grid and (rows "(every agent)") testing
 * every agent. The hits are counted and printed: the work is real.
 * Wall clock on one core; rays per second. Rows use the grid of
 * st_world_raycast_prepare (as world:raycast does), except "(no grid)":
 * every obstacle and wall tested, for the comparison.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "raycast.h"
#include "steer.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void add_geometry(st_world *w, int n, double side)
{
    for (int i = 0; i < n; i++) {
        st_vec2 c = st_v2(urand() * side, urand() * side);
        double r = 5 + urand() * 25;
        if (i % 3 == 0) {
            st_world_add_obstacle(w, c, r);
        } else if (i % 3 == 1) {
            st_vec2 box[4] = {{c.x - r, c.y - r}, {c.x + r, c.y - r}, {c.x + r, c.y + r}, {c.x - r, c.y + r}};
            st_world_add_polygon(w, box, 4, true);
        } else {
            st_vec2 line[3] = {{c.x - r, c.y}, {c.x, c.y + r}, {c.x + r, c.y - r}};
            st_world_add_polygon(w, line, 3, false);
        }
        if (i % 5 == 0) {
            double a = urand() * 6.283185307179586;
            st_world_add_wall(w, c, st_v2_add(c, st_v2_from_angle(a, 20 + urand() * 60)));
        }
    }
}

static void spawn_agents(st_world *w, int n, double side)
{
    for (int i = 0; i < n; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(urand() * side, urand() * side);
        d.radius = 4;
        d.tag = 1 + i % 4;
        st_world_spawn(w, &d);
    }
}

/// rays random rays of length len; prints a row.
static void cast_row(const char *what, st_world *w, int nobs, double side, double len, int rays,
                     const st_raycast_opts *o)
{
    int hits = 0;
    double t0 = now();
    for (int i = 0; i < rays; i++) {
        st_vec2 a = st_v2(urand() * side, urand() * side);
        st_vec2 b = st_v2_add(a, st_v2_from_angle(urand() * 6.283185307179586, len));
        st_raycast_hit h;
        hits += st_world_raycast(w, a, b, o, &h);
    }
    double s = now() - t0;
    printf("%-22s %9d %9d %8.0f %12.0f %9.2f  hits %d of %d\n", what, nobs, st_world_wall_count(w), len,
           rays / s, 1e6 * s / rays, hits, rays);
    fflush(stdout);
}

void raycast_rows(bool quick)
{
    printf("\nraycasts: random rays, one core (wall clock); a world of one obstacle per 160 x 160 units\n"
           "(circles, boxes, polylines) and a wall per five obstacles\n");
    printf("%-22s %9s %9s %8s %12s %9s\n", "case", "obstacles", "walls", "length", "rays/s", "us/ray");
    int sizes[] = {100, 1000, 10000};
    int count = quick ? 2 : 3;
    for (int s = 0; s < count; s++) {
        int n = sizes[s];
        double side = 160.0 * sqrt((double)n);
        st_world_def d = st_default_world_def();
        d.width = side;
        d.height = side;
        d.edges = ST_EDGES_NONE;
        st_world *w = st_world_create(&d);
        add_geometry(w, n, side);
        int rays = quick ? 20000 : 200000;
        if (n >= 1000) {
            int few = rays / (n >= 10000 ? 100 : 10);
            cast_row("raycast (no grid)", w, n, side, 60, few, NULL);
            cast_row("raycast (no grid)", w, n, side, side / 4, few, NULL);
        }
        double t0 = now();
        st_world_raycast_prepare(w);
        double build_ms = (now() - t0) * 1e3;
        cast_row("raycast (short)", w, n, side, 60, rays, NULL);
        cast_row("raycast (long)", w, n, side, side / 4, rays, NULL);
        printf("%-22s %9d %9d   grid built in %.2f ms\n", "", n, st_world_wall_count(w), build_ms);
        if (n == 1000) {
            spawn_agents(w, 10000, side);
            st_world_step(w, d.dt);
            st_raycast_opts o = st_raycast_default();
            o.agents = true;
            o.tag = 2;
            cast_row("raycast +10k agents", w, n, side, 60, rays / 4, &o);
            o.tag = ST_TAG_ANY;
            cast_row("raycast +10k agents", w, n, side, side / 4, rays / 4, &o);
            // The same rays testing every agent (as before the neighbour
            // grid answered them, raycast_agents.c): the comparison.
            st_world_set_brute_force(w, true);
            o.tag = 2;
            cast_row("  (every agent)", w, n, side, 60, rays / 40, &o);
            o.tag = ST_TAG_ANY;
            cast_row("  (every agent)", w, n, side, side / 4, rays / 40, &o);
            st_world_set_brute_force(w, false);
        }
        st_world_destroy(w);
    }
}
