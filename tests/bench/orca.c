/*
 * orca.c — steer_bench's ORCA rows (--only orca, and --only goals for the
 * goal crowd alone). Prints figures, asserts nothing.
 *
 *   orca circle   RVO2's Circle at 250 and 10,000 agents
 *   orca crowd    a random-goal crowd of 100,000 agents at ~10 neighbours
 *                 (goals anywhere, max speed 2), and at sizes and densities
 *                 it was not tuned for
 *   orca goals    issue 26's crowd: 10,000 agents at 56.25 square units
 *                 each, each walking to a goal 20-60 units away at speed 1
 *                 and taking the next within its radius; goals per agent
 *                 per 1,000 steps, collisions and the closest approach
 *
 * 1 and 2 threads, collisions counted outside the timed steps.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orca.h"
#include "steer.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct result {
    double ms_per_step;
    unsigned long long checksum;
    int steps;
} result;

/// One row, in bench.c's columns.
static void row(const char *what, int n, int threads, const result *r, const char *extra)
{
    double ns = r->ms_per_step * 1e6 / n;
    printf("%-22s %9d %7d %10.3f %12.0f %12.1f  %s\n", what, n, threads, r->ms_per_step, ns,
           r->ms_per_step > 0 ? 1000.0 / r->ms_per_step : 0.0, extra ? extra : "");
}

/* RVO2's example parameters (tests/c/test_avoid.c): radius 1.5, max speed 2,
 * neighbour distance 15, 10 neighbours, horizons 10 s, dt 0.25. */
#define RVO_RADIUS 1.5
#define RVO_SPEED 2.0
#define RVO_RANGE 15.0
#define RVO_DT 0.25

static st_avoid_def rvo_def(void)
{
    st_avoid_def d = st_default_avoid_def();
    d.mode = ST_AVOIDANCE_ORCA;
    d.range = RVO_RANGE;
    d.max_neighbors = 10;
    d.horizon = 10.0;
    d.horizon_obstacles = 10.0;
    return d;
}

static st_agent_id rvo_agent(st_world *w, st_vec2 p, const st_avoid_def *d)
{
    st_agent_def ad = st_default_agent_def();
    ad.pos = p;
    ad.radius = RVO_RADIUS;
    ad.max_speed = RVO_SPEED;
    ad.max_force = 1e3;
    st_agent_id id = st_world_spawn(w, &ad);
    st_agent_set_avoidance(w, id, d);
    return id;
}

/// test_avoid's drive(): RVO2's preferred velocity (towards the goal at
/// speed 1, the goal vector itself within one unit) as the force that makes
/// it this step's velocity.
static void drive(st_world *w, st_agent_id id, st_vec2 goal)
{
    st_vec2 g = st_v2_sub(goal, st_agent_pos(w, id));
    if (st_v2_len2(g) > 1.0) g = st_v2_normalize(g);
    double gain = st_agent_mass(w, id) / RVO_DT;
    st_agent_apply(w, id, st_v2_scale(st_v2_sub(g, st_agent_vel(w, id)), gain), 1.0);
}

/// Collision counter: pair-steps closer than 0.99 x the sum of the radii
/// (every agent has radius RVO_RADIUS), and the closest approach (min2, the
/// squared distance of the closest pair over every step counted). Sort and sweep along x, the order
/// kept from step to step (insertion sort: nearly sorted already); on a wrap
/// world the first 2r along x are swept once more at x + width, and y
/// offsets fold. Runs outside the timed steps.
typedef struct sweeper {
    int n;
    bool primed;
    double min2;
    int *order;
    st_vec2 *pos, *sorted;
} sweeper;

static void sweeper_init(sweeper *s, int n)
{
    s->n = n;
    s->primed = false;
    s->min2 = DBL_MAX;
    s->order = malloc((size_t)n * sizeof *s->order);
    s->pos = malloc((size_t)n * sizeof *s->pos);
    s->sorted = malloc((size_t)n * sizeof *s->sorted);
    for (int i = 0; i < n; i++) s->order[i] = i;
}

static void sweeper_free(sweeper *s)
{
    free(s->order);
    free(s->pos);
    free(s->sorted);
}

static long count_collisions(sweeper *s, const st_world *w, const st_agent_id *ids, bool wrap, double width,
                             double height)
{
    const int n = s->n;
    int *order = s->order;
    st_vec2 *pos = s->pos;
    const double reach = 2.0 * RVO_RADIUS, lim2 = (0.99 * reach) * (0.99 * reach);
    for (int i = 0; i < n; i++) pos[i] = st_agent_pos(w, ids[i]);
    if (!s->primed) { // the first time from scratch: spawn order can be far from x order
        for (int i = 0; i < n; i++) s->sorted[i] = st_v2(pos[i].x, (double)i);
        qsort(s->sorted, (size_t)n, sizeof *s->sorted, cmp_double); // by x (the first member)
        for (int i = 0; i < n; i++) order[i] = (int)s->sorted[i].y;
        s->primed = true;
    }
    for (int i = 1; i < n; i++) {
        int k = order[i], j = i - 1;
        while (j >= 0 && pos[order[j]].x > pos[k].x) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = k;
    }
    st_vec2 *sp = s->sorted; // the positions in x order: the sweep reads them in a row
    for (int a = 0; a < n; a++) sp[a] = pos[order[a]];
    long hits = 0;
    for (int a = 0; a < n; a++) {
        for (int pass = 0; pass < (wrap ? 2 : 1); pass++) {
            // pass 1: the agents at the start of the axis, seen past its end
            int b0 = pass == 0 ? a + 1 : 0;
            double shift = pass == 0 ? 0.0 : width;
            for (int b = b0; b < n; b++) {
                if (pass == 1 && b >= a) break;
                double dx = sp[b].x + shift - sp[a].x;
                if (dx >= reach) break;
                if (pass == 1 && dx < 0.0) continue;
                double dy = sp[b].y - sp[a].y;
                if (wrap && fabs(dy) > 0.5 * height) dy -= copysign(height, dy);
                if (fabs(dy) >= reach) continue;
                st_vec2 off = wrap ? st_world_offset(w, sp[a], sp[b]) : st_v2_sub(sp[b], sp[a]);
                if (pass == 1 && fabs(off.x - dx) > 1e-6 * width) continue; // seen the other way in pass 0
                double d2 = st_v2_len2(off);
                if (d2 < s->min2) s->min2 = d2;
                if (d2 < lim2) hits++;
            }
        }
    }
    return hits;
}

typedef struct orca_result {
    result r;
    int arrived, steps;
    long collisions;
    double neighbours, ms_min, ms_max;
} orca_result;

/// RVO2's Circle: n agents evenly on a circle of radius n * 5.03 / (2 pi)
/// (250 on 200), each driven to the antipodal point until all arrive or
/// `cap` steps. The whole step is timed (begin, drive, end); counting the
/// collisions is not.
static orca_result run_orca_circle(int n, int threads, int cap)
{
    orca_result o = {0};
    double R = n * 5.03 / (2.0 * ST_PI);
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 4 * R;
    wd.edges = ST_EDGES_NONE;
    wd.dt = RVO_DT;
    wd.cell_size = RVO_RANGE;
    wd.threads = threads;
    wd.capacity = n;
    st_world *w = st_world_create(&wd);
    if (!w) return o;
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    st_vec2 *goals = malloc((size_t)n * sizeof *goals);
    st_avoid_def d = rvo_def();
    st_vec2 c = {2 * R, 2 * R};
    for (int i = 0; i < n; i++) {
        double a = i * 2.0 * ST_PI / n;
        goals[i] = st_v2_sub(c, st_v2_from_angle(a, R));
        ids[i] = rvo_agent(w, st_v2_add(c, st_v2_from_angle(a, R)), &d);
    }
    sweeper sw;
    sweeper_init(&sw, n);
    double timed = 0.0;
    for (int s = 0; s < cap; s++) {
        double t0 = now();
        st_world_step_begin(w, RVO_DT);
        for (int i = 0; i < n; i++) drive(w, ids[i], goals[i]);
        st_world_step_end(w);
        timed += now() - t0;
        o.steps = s + 1;
        o.collisions += count_collisions(&sw, w, ids, false, wd.width, wd.height);
        int arrived = 0;
        for (int i = 0; i < n; i++)
            if (st_v2_dist(sw.pos[i], goals[i]) <= RVO_RADIUS) arrived++;
        o.arrived = arrived;
        if (arrived == n) break;
    }
    o.r.ms_per_step = timed / o.steps * 1e3;
    o.r.checksum = (unsigned long long)st_world_checksum(w);
    o.r.steps = o.steps;
    sweeper_free(&sw);
    free(ids);
    free(goals);
    st_world_destroy(w);
    return o;
}

/// A wrap square of this side for a crowd of n with RVO2's settings (dt
/// 0.25, grid cell = avoid_range, seed 42).
static st_world *rvo_square(double side, int threads, int n)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = side;
    wd.edges = ST_EDGES_WRAP;
    wd.dt = RVO_DT;
    wd.cell_size = RVO_RANGE;
    wd.seed = 42;
    wd.threads = threads;
    wd.capacity = n;
    return st_world_create(&wd);
}

/// Agent i of n on a jittered lattice over the square (no two overlap): x
/// then y drawn from the world's stream.
static st_vec2 lattice_point(st_world *w, int i, int n, double side)
{
    int m = (int)ceil(sqrt((double)n));
    double cell = side / m, jit = cell - 2.0 * RVO_RADIUS - 0.1;
    if (jit < 0.0) jit = 0.0;
    double x = (i % m + 0.5) * cell + (st_world_random(w) - 0.5) * jit;
    double y = (i / m + 0.5) * cell + (st_world_random(w) - 0.5) * jit;
    return st_v2(x, y);
}

/// The random-goal crowd: n agents (RVO2's parameters) on a wrap square at
/// `nb` agents per disc of avoid_range 15 on average, on a jittered lattice
/// (no overlap at the start), each arriving (standing ST_ARRIVE, slowing
/// radius 4) at a random goal from the world's RNG and given a new one
/// within 2 radii of it. Grid cell = avoid_range. `warm` steps, then
/// `blocks` blocks of `steps` timed steps (the median block's ms per step).
/// Collisions are counted over every step, the goals changed between steps,
/// both untimed. o.neighbours: the mean number of others within 15 of an
/// agent after the last step (st_world_query over every agent, or a sample
/// of 20,000 in bigger crowds).
enum { ORCA_BLOCKS_MAX = 15 };
static orca_result run_orca_crowd(int n, double nb, int threads, int warm, int blocks, int steps)
{
    orca_result o = {0};
    double dens = nb / (ST_PI * RVO_RANGE * RVO_RANGE), side = sqrt(n / dens);
    st_world *w = rvo_square(side, threads, n);
    if (!w) return o;
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    st_vec2 *goals = malloc((size_t)n * sizeof *goals);
    st_avoid_def d = rvo_def();
    st_behavior b = st_default_behavior(ST_ARRIVE);
    b.radius = 2.0 * RVO_SPEED;
    for (int i = 0; i < n; i++) {
        st_vec2 at = lattice_point(w, i, n, side);
        ids[i] = rvo_agent(w, at, &d);
        goals[i] = st_v2(st_world_random(w) * side, st_world_random(w) * side);
        b.target = st_target_point(goals[i]);
        st_agent_set_behaviors(w, ids[i], &b, 1);
    }
    sweeper sw;
    sweeper_init(&sw, n);
    double block[ORCA_BLOCKS_MAX];
    if (blocks > ORCA_BLOCKS_MAX) blocks = ORCA_BLOCKS_MAX;
    for (int k = -1; k < blocks; k++) {
        int ks = k < 0 ? warm : steps;
        double el = 0.0;
        for (int s = 0; s < ks; s++) {
            double t0 = now();
            st_world_step(w, RVO_DT);
            el += now() - t0;
            o.steps++;
            o.collisions += count_collisions(&sw, w, ids, true, side, side);
            for (int i = 0; i < n; i++)
                if (st_world_distance(w, sw.pos[i], goals[i]) <= 2.0 * RVO_RADIUS) {
                    o.arrived++;
                    goals[i] = st_v2(st_world_random(w) * side, st_world_random(w) * side);
                    b.target = st_target_point(goals[i]);
                    st_agent_set_behaviors(w, ids[i], &b, 1);
                }
        }
        if (k >= 0) block[k] = el / steps * 1e3;
    }
    qsort(block, (size_t)blocks, sizeof block[0], cmp_double);
    o.r.ms_per_step = block[blocks / 2];
    o.ms_min = block[0];
    o.ms_max = block[blocks - 1];
    o.r.checksum = (unsigned long long)st_world_checksum(w);
    o.r.steps = o.steps;
    int every = n > 20000 ? n / 20000 : 1, counted = 0;
    long total = 0;
    st_agent_id near[256];
    for (int i = 0; i < n; i += every) {
        st_query q = st_default_query(sw.pos[i], RVO_RANGE);
        q.exclude = ids[i];
        total += st_world_query(w, &q, near, NULL, 256);
        counted++;
    }
    o.neighbours = counted ? (double)total / counted : 0.0;
    sweeper_free(&sw);
    free(ids);
    free(goals);
    st_world_destroy(w);
    return o;
}

void orca_rows(bool quick)
{
    printf("\nORCA: RVO2's parameters (radius 1.5, max speed 2, avoid_range 15, 10 neighbours, horizons 10 s,\n"
           "dt 0.25), cell_size 15; collisions: pair-steps closer than 0.99 x the sum of the radii\n");
    printf("%-22s %9s %7s %10s %12s %12s\n", "case", "N", "threads", "ms/step", "ns/agent", "steps/s");
    // Circle: 250 on radius 200, 10,000 on a circle scaled for the same spacing.
    int circle_n[2] = {250, 10000};
    int circle_cap[2] = {4800, quick ? 400 : 4000};
    for (int c = 0; c < 2; c++) {
        orca_result one = {0};
        for (int t = 1; t <= 2; t++) {
            orca_result o = run_orca_circle(circle_n[c], t, circle_cap[c]);
            if (t == 1) one = o;
            char extra[200];
            snprintf(extra, sizeof extra, "%d/%d arrived in %d steps%s, %ld collisions%s", o.arrived, circle_n[c],
                     o.steps, o.arrived < circle_n[c] ? " (the cap)" : "", o.collisions,
                     t == 1 ? "" : o.r.checksum == one.r.checksum ? ", checksum == 1 thread" : ", checksum != 1 thread");
            row("orca circle", circle_n[c], t, &o.r, extra);
        }
    }
    // The random-goal crowd: tuned for 100,000 agents at ~10 neighbours;
    // the others are the same crowd at sizes and densities it was not tuned for.
    struct {
        int n;
        double nb;
        int warm, blocks, steps;
    } crowd[] = {
        {100000, 10, 10, 7, 5}, {10000, 10, 20, 9, 20}, {100000, 5, 10, 7, 5},
        {100000, 20, 10, 7, 5}, {1000000, 10, 3, 3, 2},
    };
    int ncrowd = quick ? 1 : (int)(sizeof crowd / sizeof crowd[0]);
    for (int c = 0; c < ncrowd; c++) {
        orca_result one = {0};
        for (int t = 1; t <= 2; t++) {
            orca_result o = run_orca_crowd(crowd[c].n, crowd[c].nb, t, crowd[c].warm,
                                           quick ? 3 : crowd[c].blocks, crowd[c].steps);
            if (t == 1) one = o;
            char what[40], extra[240];
            snprintf(what, sizeof what, "orca crowd (%g nb)", crowd[c].nb);
            snprintf(extra, sizeof extra,
                     "%.1f within 15; median of %d blocks (%.1f..%.1f); %d steps, %ld collisions, %d goals "
                     "reached%s",
                     o.neighbours, quick ? 3 : crowd[c].blocks, o.ms_min, o.ms_max, o.steps, o.collisions, o.arrived,
                     t == 1 ? "" : o.r.checksum == one.r.checksum ? "; checksum == 1 thread" : "; checksum != 1 thread");
            row(what, crowd[c].n, t, &o.r, extra);
        }
    }
}


/* ---- issue 26's goal crowd ---- */

/// The goal crowd's walkers: RVO2's radius, preferred and max speed 1.
#define GOAL_SPEED 1.0
/// Goals lie this far from the agent taking them, uniform in distance and angle.
#define GOAL_NEAR 20.0
#define GOAL_FAR 60.0
/// The slowing radius of each walker's arrive: RVO2's preferred velocity
/// (the goal vector, cut to unit length) is a linear arrive with a slowing
/// radius of 1 at speed 1.
#define GOAL_SLOWING 1.0
enum { GOAL_BLOCKS = 8 };

typedef struct goals_result {
    result r;
    long goals, collisions;
    double min_ratio, ms_min, ms_max;
} goals_result;

/// A new goal for agent i: GOAL_NEAR..GOAL_FAR from where it stands, in a
/// direction uniform around it, folded into the wrap square.
static st_vec2 next_goal(st_world *w, st_vec2 from, double side)
{
    double a = st_world_random(w) * 2.0 * ST_PI;
    double d = GOAL_NEAR + st_world_random(w) * (GOAL_FAR - GOAL_NEAR);
    st_vec2 g = st_v2_add(from, st_v2_from_angle(a, d));
    g.x = fmod(g.x, side);
    g.y = fmod(g.y, side);
    if (g.x < 0.0) g.x += side;
    if (g.y < 0.0) g.y += side;
    return g;
}

/// Issue 26's random-goal crowd: n agents (radius 1.5, preferred and max
/// speed 1, avoid_range 15, 10 neighbours, horizons 10 s, dt 0.25), `area`
/// square units each on a wrap square (the same density everywhere: RVO2's
/// example has no walls), on a jittered lattice. Each arrives (standing
/// ST_ARRIVE, linear, slowing radius GOAL_SLOWING) at a goal from
/// next_goal and takes the next once within its radius of it. `steps`
/// steps, timed in GOAL_BLOCKS blocks (the median block's ms per step);
/// collisions, the closest approach and the goals are counted between
/// steps, untimed.
static goals_result run_orca_goals(int n, double area, int threads, int steps)
{
    goals_result o = {0};
    double side = sqrt(n * area);
    st_world *w = rvo_square(side, threads, n);
    if (!w) return o;
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    st_vec2 *goals = malloc((size_t)n * sizeof *goals);
    st_avoid_def d = rvo_def();
    st_behavior b = st_default_behavior(ST_ARRIVE);
    b.radius = GOAL_SLOWING;
    b.decel = ST_DECEL_LINEAR;
    for (int i = 0; i < n; i++) {
        st_vec2 at = lattice_point(w, i, n, side);
        ids[i] = rvo_agent(w, at, &d);
        st_agent_set_max_speed(w, ids[i], GOAL_SPEED);
        goals[i] = next_goal(w, at, side);
        b.target = st_target_point(goals[i]);
        st_agent_set_behaviors(w, ids[i], &b, 1);
    }
    sweeper sw;
    sweeper_init(&sw, n);
    double block[GOAL_BLOCKS] = {0};
    int per = steps / GOAL_BLOCKS > 0 ? steps / GOAL_BLOCKS : 1;
    for (int s = 0; s < steps; s++) {
        double t0 = now();
        st_world_step(w, RVO_DT);
        double el = now() - t0;
        if (s / per < GOAL_BLOCKS) block[s / per] += el;
        o.r.steps++;
        o.collisions += count_collisions(&sw, w, ids, true, side, side);
        for (int i = 0; i < n; i++)
            if (st_world_distance(w, sw.pos[i], goals[i]) <= RVO_RADIUS) {
                o.goals++;
                goals[i] = next_goal(w, sw.pos[i], side);
                b.target = st_target_point(goals[i]);
                st_agent_set_behaviors(w, ids[i], &b, 1);
            }
    }
    int nb = steps / per < GOAL_BLOCKS ? steps / per : GOAL_BLOCKS;
    for (int k = 0; k < nb; k++) block[k] = block[k] / per * 1e3;
    qsort(block, (size_t)nb, sizeof block[0], cmp_double);
    o.r.ms_per_step = nb ? block[nb / 2] : 0.0;
    o.ms_min = nb ? block[0] : 0.0;
    o.ms_max = nb ? block[nb - 1] : 0.0;
    o.r.checksum = (unsigned long long)st_world_checksum(w);
    o.min_ratio = sqrt(sw.min2) / (2.0 * RVO_RADIUS);
    sweeper_free(&sw);
    free(ids);
    free(goals);
    st_world_destroy(w);
    return o;
}

void goals_rows(bool quick)
{
    printf("\nORCA goal crowd (issue 26): radius 1.5, preferred = max speed %g, avoid_range 15, 10 neighbours,\n"
           "horizons 10 s, dt 0.25, wrap square, goals %g-%g away (arrive, slowing radius %g), the next one\n"
           "within 1.5 of it; goals per agent per 1,000 steps; collisions: pair-steps closer than 0.99 x the\n"
           "sum of the radii; min: the closest approach over the sum of the radii\n",
           GOAL_SPEED, GOAL_NEAR, GOAL_FAR, GOAL_SLOWING);
    printf("%-22s %9s %7s %10s %12s %12s\n", "case", "N", "threads", "ms/step", "ns/agent", "steps/s");
    // The first is the crowd tuned for; the others are sizes and densities it was not.
    struct {
        int n;
        double area;
    } crowd[] = {{10000, 56.25}, {2000, 56.25}, {40000, 56.25}, {10000, 30.0}, {10000, 100.0}};
    int ncrowd = quick ? 1 : (int)(sizeof crowd / sizeof crowd[0]);
    const int steps = 400;
    for (int c = 0; c < ncrowd; c++) {
        goals_result one = {0};
        for (int t = 1; t <= (quick ? 1 : 2); t++) {
            goals_result o = run_orca_goals(crowd[c].n, crowd[c].area, t, steps);
            if (t == 1) one = o;
            char what[40], extra[240];
            snprintf(what, sizeof what, "orca goals (%g u2)", crowd[c].area);
            snprintf(extra, sizeof extra,
                     "%.2f goals/agent/1000 steps, %ld collisions, min %.3f; median of %d blocks (%.1f..%.1f)%s",
                     1000.0 * (double)o.goals / ((double)crowd[c].n * o.r.steps), o.collisions, o.min_ratio,
                     GOAL_BLOCKS, o.ms_min, o.ms_max,
                     t == 1 ? "" : o.r.checksum == one.r.checksum ? "; checksum == 1 thread" : "; checksum != 1 thread");
            row(what, crowd[c].n, t, &o.r, extra);
        }
    }
}
