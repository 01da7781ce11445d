/*
 * test_gameloop.c — a world stepped by a game's loop through the C API:
 * behaviours asked for between steps hold for the step that applies them
 * (request.c), at any dt; RVO2's Circle written that way (its doStep loop
 * at dt 0.25 in a world made with 1/60) brings everyone home with no
 * overlap and comes to rest; st_world_advance's fixed steps.
 */
#include <string.h>

#include "test_util.h"

static st_world *open_world(double side, int threads)
{
    st_world_def d = st_default_world_def();
    d.width = d.height = side;
    d.edges = ST_EDGES_NONE;
    d.threads = threads;
    d.seed = 3;
    return st_world_create(&d); // dt: the default 1/60
}

/// One agent arriving 36 away; arrive asked for before every step of dt.
static void arrive_at(double dt, int steps, double *dist, double *speed)
{
    st_world *w = open_world(1000.0, 1);
    st_agent_def a = st_default_agent_def();
    a.pos = st_v2(100, 100);
    a.max_speed = 2;
    a.max_force = 100;
    a.radius = 1.5;
    st_agent_id id = st_world_spawn(w, &a);
    st_vec2 goal = st_v2(130, 120);
    st_behavior b = st_default_behavior(ST_ARRIVE);
    b.target = st_target_point(goal);
    b.radius = 10;
    for (int k = 0; k < steps; k++) {
        st_agent_steer(w, id, &b);
        CHECK(st_world_requests(w) == 1, "one request waits, not %d", st_world_requests(w));
        st_world_step(w, dt);
        CHECK(st_world_requests(w) == 0, "the step took it");
    }
    *dist = st_v2_dist(st_agent_pos(w, id), goal);
    *speed = st_agent_speed(w, id);
    st_world_destroy(w);
}

static void arrive_any_dt(void)
{
    const double dts[] = {0.25, 0.1, 1.0 / 30.0, 1.0 / 144.0};
    for (int k = 0; k < 4; k++) {
        double d, v;
        arrive_at(dts[k], (int)(60.0 / dts[k]), &d, &v);
        CHECK(d < 0.05 && v < 0.01, "dt %g: %g from the goal at speed %g", dts[k], d, v);
    }
}

/// RVO2's Circle (250 agents, radius 1.5, max speed 2, neighbour distance
/// 15, 10 neighbours, horizons 10 s) written as a game writes it: each
/// agent's arrive asked for, then st_world_step(w, 0.25), in a world made
/// with the default dt of 1/60.
static void circle_at_quarter_second(void)
{
    const int n = 250;
    const double dt = 0.25;
    st_world *w = open_world(800.0, 1);
    st_agent_id ids[250];
    st_vec2 goals[250];
    st_avoid_def av = st_default_avoid_def();
    av.mode = ST_AVOIDANCE_ORCA;
    av.range = 15;
    av.max_neighbors = 10;
    av.horizon = av.horizon_obstacles = 10;
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        st_vec2 off = st_v2_from_angle(i * 2.0 * ST_PI / n, 200.0);
        a.pos = st_v2_add(st_v2(400, 400), off);
        a.max_speed = 2;
        a.max_force = 100;
        a.radius = 1.5;
        ids[i] = st_world_spawn(w, &a);
        goals[i] = st_v2_sub(st_v2(400, 400), off);
        st_agent_set_avoidance(w, ids[i], &av);
    }
    st_behavior b = st_default_behavior(ST_ARRIVE);
    b.radius = 10;
    double worst = INFINITY, tail_speed = 0.0, tail_turn = 0.0;
    int tail_n = 0, home_at = -1;
    const int steps = 1800, tail = (int)(10.0 / dt);
    st_vec2 last_h[250];
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++) {
            b.target = st_target_point(goals[i]);
            st_agent_steer(w, ids[i], &b);
        }
        st_world_step(w, dt);
        int home = 0;
        for (int i = 0; i < n; i++) {
            st_vec2 p = st_agent_pos(w, ids[i]);
            if (st_v2_dist(p, goals[i]) < 0.05 && st_agent_speed(w, ids[i]) < 0.01) home++;
            for (int j = i + 1; j < n; j++) {
                double r = st_v2_dist(p, st_agent_pos(w, ids[j])) / 3.0;
                if (r < worst) worst = r;
            }
            if (s >= steps - tail) {
                st_vec2 h = st_agent_heading(w, ids[i]);
                if (s > steps - tail) tail_turn += fabs(atan2(st_v2_cross(last_h[i], h), st_v2_dot(last_h[i], h))) / dt;
                last_h[i] = h;
                tail_speed += st_agent_speed(w, ids[i]);
                tail_n++;
            }
        }
        if (home == n && home_at < 0) home_at = s + 1;
    }
    CHECK(home_at > 0, "not everyone came home in %d steps", steps);
    CHECK(worst >= 0.99, "two agents came to %.4f x the sum of their radii", worst);
    double mean_speed = tail_speed / tail_n, turn = tail_turn / (tail_n - n);
    CHECK(mean_speed < 0.001 * 2, "home, they still move at %g on average (max speed 2)", mean_speed);
    CHECK(turn < 0.01, "home, their facings turn at %g rad/s on average", turn);
    printf("  circle of 250 at step(0.25): home after %d steps, closest %.4f x radii, at rest %.3g units/s, "
           "%.3g rad/s\n", home_at, worst, mean_speed, turn);
    st_world_destroy(w);
}

/// The same requests on one and two threads give the same world, and the
/// same as the behaviours asked for inside each step.
static uint64_t crowd_run(int threads, bool inside)
{
    st_world *w = open_world(600.0, threads);
    st_agent_id ids[400];
    for (int i = 0; i < 400; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(50 + (i % 20) * 25, 50 + (i / 20) * 25);
        a.max_speed = 70;
        a.max_force = 250;
        ids[i] = st_world_spawn(w, &a);
    }
    st_behavior wander = st_default_behavior(ST_WANDER), seek = st_default_behavior(ST_SEEK),
                sep = st_default_behavior(ST_SEPARATE);
    seek.target = st_target_point(st_v2(300, 300));
    seek.weight = 0.4;
    sep.flock.radius = 30;
    for (int s = 0; s < 90; s++) {
        double dt = s % 3 == 0 ? 1.0 / 20.0 : 1.0 / 50.0;
        if (inside) st_world_step_begin(w, dt);
        for (int i = 0; i < 400; i++) {
            st_agent_steer(w, ids[i], &wander);
            st_agent_steer(w, ids[i], &seek);
            st_agent_steer(w, ids[i], &sep);
        }
        if (inside) st_world_step_end(w);
        else st_world_step(w, dt);
    }
    uint64_t sum = st_world_checksum(w);
    st_world_destroy(w);
    return sum;
}

static void requests_equal_inside_calls(void)
{
    uint64_t in1 = crowd_run(1, true);
    CHECK(crowd_run(1, false) == in1, "between steps != inside, 1 thread");
    CHECK(crowd_run(2, false) == in1, "between steps on 2 threads != inside on 1");
}

static void advance_fixed_steps(void)
{
    const double frames[] = {1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0};
    const int counts[] = {60, 120, 288};
    uint64_t sums[3];
    for (int k = 0; k < 3; k++) {
        st_world *w = open_world(500.0, 1);
        for (int i = 0; i < 50; i++) {
            st_agent_def a = st_default_agent_def();
            a.pos = st_v2(10 + i * 9, 250);
            st_agent_id id = st_world_spawn(w, &a);
            st_behavior b = st_default_behavior(ST_WANDER);
            st_agent_set_behaviors(w, id, &b, 1);
        }
        int steps = 0;
        for (int f = 0; f < counts[k]; f++) steps += st_world_advance(w, frames[k]);
        CHECK(steps == 120 && st_world_tick(w) == 120, "%g s frames: %d steps", frames[k], steps);
        sums[k] = st_world_checksum(w);
        CHECK(st_world_advance(w, 1.0) == ST_ADVANCE_MAX_DEFAULT, "a stalled frame runs the cap");
        CHECK(st_world_advance_dropped(w) == 60 - ST_ADVANCE_MAX_DEFAULT, "and drops the rest: %llu",
              (unsigned long long)st_world_advance_dropped(w));
        CHECK(st_world_advance(w, -1.0) == 0 && st_world_advance(w, NAN) == 0, "bad frame times do nothing");
        st_world_destroy(w);
    }
    CHECK(sums[0] == sums[1] && sums[1] == sums[2], "the same world at 30, 60 and 144 FPS");
}

/// Past ST_WORLD_REQUESTS_MAX a call adds nothing (the binding raises);
/// a step takes them all and the world takes calls again.
static void requests_capped(void)
{
    if (getenv("STEER_TEST_LIGHT")) {
        printf("  (skipped under valgrind: a million requests)\n");
        return;
    }
    st_world *w = open_world(100.0, 1);
    st_agent_def a = st_default_agent_def();
    st_agent_id id = st_world_spawn(w, &a);
    st_behavior b = st_default_behavior(ST_SEEK);
    b.target = st_target_point(st_v2(90, 50));
    for (int k = 0; k < ST_WORLD_REQUESTS_MAX; k++) st_agent_steer(w, id, &b);
    CHECK(st_world_requests(w) == ST_WORLD_REQUESTS_MAX, "%d kept", st_world_requests(w));
    st_vec2 f = st_agent_steer(w, id, &b);
    CHECK(st_world_requests(w) == ST_WORLD_REQUESTS_MAX && f.x == 0.0 && f.y == 0.0, "one more is refused");
    st_world_step(w, 1.0 / 60.0);
    CHECK(st_world_requests(w) == 0 && st_agent_speed(w, id) > 0.0, "the step took them");
    st_agent_steer(w, id, &b);
    CHECK(st_world_requests(w) == 1, "and calls are kept again");
    st_world_destroy(w);
}

int main(void)
{
    RUN(arrive_any_dt);
    RUN(requests_equal_inside_calls);
    RUN(advance_fixed_steps);
    RUN(circle_at_quarter_second);
    RUN(requests_capped);
    return tu_summary();
}
