/*
 * hunt_c.c — steer_bench_hunt: issue 30's hunter/prey workload with its
 * brains written in C against the core (no Lua at all): the "C work alone"
 * row of tests/bench/hunt.sh, the floor any Lua backend can reach (the
 * step, the searches and the behaviour arithmetic).
 *
 *   steer_bench_hunt [--quick] [--agents N] [--area A]
 *
 * --agents and --area (units^2 an agent; 900 by default) run the same
 * brains at other sizes and densities, for figures away from the one
 * workload the core was tuned on; the defaults are issue 30's.
 *
 * The world, the spawns and the brains are tests/bench/hunt.lua's and
 * tests/bench/hunt/'s, call for call: the same core calls in the same order,
 * so the same checksum as the Lua rows. 3 warm-up steps, then 9 blocks of 20
 * steps (5 with --quick); prints the median block's ms per step, the fastest
 * and the slowest, in hunt.lua's columns. CPU time (clock): one thread.
 * Prints figures, asserts nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "steer.h"

enum { EVERY = 14, BLOCKS = 9 };
static int N = 10000; /* --agents */
enum { TAG_PREY = 1, TAG_HUNTER = 2 }; /* interned in spawn order, as the bindings do */

typedef struct brain {
    bool hunter, resting;
    double stamina;
} brain;

static double cpu_now(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* agent.world:nearest(agent, radius, tag) */
static st_agent_id nearest(st_world *w, st_agent_id self, double radius, int32_t tag)
{
    st_query q = st_default_query(st_agent_pos(w, self), radius);
    q.exclude = self;
    q.tag = tag;
    double d = 0.0;
    return st_world_nearest(w, &q, &d);
}

/* agent:<behaviour>(target [, radius]) with weight 1 */
static void steer_at(st_world *w, st_agent_id self, st_behavior_type type, st_agent_id target, double radius)
{
    st_behavior b = st_default_behavior(type);
    b.weight = 1.0;
    if (type != ST_WANDER)
        b.target = st_target_agent(target);
    if (radius >= 0.0)
        b.radius = radius;
    st_agent_steer(w, self, &b);
}

/* hunt_hunter.lua and hunt_prey.lua's update */
static void update(st_world *w, st_agent_id id, brain *b, double dt)
{
    if (!b->hunter) {
        st_agent_id h = nearest(w, id, 100, TAG_HUNTER);
        if (!st_id_is_null(h))
            steer_at(w, id, ST_EVADE, h, 100);
        else
            steer_at(w, id, ST_WANDER, h, -1);
        return;
    }
    if (b->resting) {
        steer_at(w, id, ST_WANDER, id, -1);
        b->stamina = b->stamina + 40 * dt;
        if (b->stamina >= 100)
            b->resting = false;
        return;
    }
    st_agent_id p = nearest(w, id, 120, TAG_PREY);
    if (!st_id_is_null(p)) {
        steer_at(w, id, ST_PURSUE, p, -1);
        b->stamina = b->stamina - 30 * dt;
        if (b->stamina <= 0)
            b->resting = true;
    } else {
        steer_at(w, id, ST_WANDER, p, -1);
    }
}

static void step(st_world *w, const st_agent_id *ids, brain *brains)
{
    double dt = st_world_dt(w);
    st_world_step_begin(w, dt);
    for (int i = 0; i < N; i++)
        update(w, ids[i], &brains[i], dt);
    st_world_step_end(w);
}

int main(int argc, char **argv)
{
    bool quick = false;
    double area = 900;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[k], "--agents") == 0 && k + 1 < argc && atoi(argv[k + 1]) >= EVERY) {
            N = atoi(argv[++k]);
        } else if (strcmp(argv[k], "--area") == 0 && k + 1 < argc && atof(argv[k + 1]) > 0) {
            area = atof(argv[++k]);
        } else {
            fprintf(stderr, "usage: steer_bench_hunt [--quick] [--agents N >= %d] [--area A > 0]\n", EVERY);
            return 2;
        }
    }
    int steps = quick ? 5 : 20;
    double side = sqrt((double)N * area);
    st_world_def def = st_default_world_def();
    def.width = def.height = side;
    def.edges = ST_EDGES_WRAP;
    def.seed = 7;
    def.threads = 1;
    def.cell_size = 50;
    st_world *w = st_world_create(&def);
    st_agent_id *ids = malloc((size_t)N * sizeof *ids);
    brain *brains = calloc((size_t)N, sizeof *brains);
    if (w == NULL || ids == NULL || brains == NULL)
        return 1;
    st_world_set_resort(w, false); /* every agent has a brain: spawn order, as the bindings keep it */
    for (int i = 1; i <= N; i++) {
        bool hunter = i % EVERY == 0;
        st_agent_def a = st_default_agent_def();
        a.pos.x = st_world_random(w) * side;
        a.pos.y = st_world_random(w) * side;
        a.tag = hunter ? TAG_HUNTER : TAG_PREY;
        a.max_speed = hunter ? 160 : 150;
        ids[i - 1] = st_world_spawn(w, &a);
        brains[i - 1] = (brain){hunter, false, 100};
    }
    for (int k = 0; k < 3; k++)
        step(w, ids, brains);
    double ms[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        double t0 = cpu_now();
        for (int k = 0; k < steps; k++)
            step(w, ids, brains);
        ms[b] = (cpu_now() - t0) / steps * 1e3;
    }
    qsort(ms, BLOCKS, sizeof ms[0], cmp_double);
    double med = ms[BLOCKS / 2];
    printf("%-22s %9d %7d %10.3f %12.0f %12.1f  median of %d blocks (%.2f..%.2f); C alone; checksum %016llx\n",
           "hunt (C work alone)", N, 1, med, med * 1e6 / N, 1000 / med, BLOCKS, ms[0], ms[BLOCKS - 1],
           (unsigned long long)st_world_checksum(w));
    st_world_destroy(w);
    free(ids);
    free(brains);
    return 0;
}
