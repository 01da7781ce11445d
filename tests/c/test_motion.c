/*
 * test_motion.c — orientation, Reynolds path following, formations,
 * leader following and queueing, as a user relies on them: the facing
 * never turns faster than the turn rate (checked every step), face and
 * look_where_going turn it where asked, match_velocity reaches the
 * velocity, a predicting path follower stays inside a winding path at full
 * speed and finds its way back to it, formation slots are assigned with the
 * least total distance (checked against every permutation) when members
 * join, leave, die or the leader turns around, members reach their slots,
 * followers stay out of the leader's way, a queue does not pile up, and all
 * of it gives the same checksum on 1 and 2 threads.
 */
#include <string.h>

#include "test_util.h"

#define DT (1.0 / 60.0)

/// Under valgrind (STEER_TEST_LIGHT) the big runs shrink.
static bool light(void)
{
    const char *e = getenv("STEER_TEST_LIGHT");
    return e && *e && *e != '0';
}

static double angle_between(st_vec2 a, st_vec2 b) { return fabs(atan2(st_v2_cross(a, b), st_v2_dot(a, b))); }

static st_agent_id spawn_turning(st_world *w, st_vec2 pos, st_vec2 vel, double turn_rate)
{
    st_agent_def d = st_default_agent_def();
    d.pos = pos;
    d.vel = vel;
    d.turn_rate = turn_rate;
    return st_world_spawn(w, &d);
}

/* ---- orientation ---- */

static void turn_rate_is_never_exceeded(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_BOUNCE, 7);
    tu_rng r = {99};
    enum { N = 300 };
    st_agent_id ids[N];
    double rate[N];
    for (int k = 0; k < N; k++) {
        rate[k] = k % 10 == 0 ? 0.0 : tu_uniform(&r, 0.3, 8.0);
        ids[k] = spawn_turning(w, st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600)),
                               st_v2(tu_uniform(&r, -150, 150), tu_uniform(&r, -150, 150)), rate[k]);
        st_behavior list[3] = {st_default_behavior(ST_WANDER), st_default_behavior(ST_SEEK),
                               st_default_behavior(ST_FACE)};
        list[1].target = st_target_point(st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600)));
        list[1].weight = 0.5;
        list[2].target = k % 3 == 0 ? st_target_agent(ids[0]) : st_target_point(st_v2(400, 300));
        // a third face a point, a third only look where they go, a third face the first agent
        int n = k % 3 == 1 ? 2 : 3;
        CHECK(st_agent_set_behaviors(w, ids[k], list, n), "set behaviours");
    }
    st_vec2 before[N];
    double worst = 0.0;
    int violations = 0;
    const int steps = light() ? 120 : 600;
    for (int step = 0; step < steps; step++) {
        for (int k = 0; k < N; k++) before[k] = st_agent_heading(w, ids[k]);
        // brains too: every 7th agent asks to look where it goes, which must obey the limit as well
        st_world_step_begin(w, DT);
        for (int k = 0; k < N; k += 7) {
            st_behavior b = st_default_behavior(k % 2 ? ST_LOOK_WHERE_GOING : ST_FACE);
            b.target = st_target_point(st_v2(0, 0));
            st_agent_steer(w, ids[k], &b);
        }
        st_world_step_end(w);
        for (int k = 0; k < N; k++) {
            double turned = angle_between(before[k], st_agent_heading(w, ids[k]));
            double over = turned - rate[k] * DT;
            if (over > worst) worst = over;
            if (over > 1e-9) violations++;
            if (!CHECK(fabs(st_v2_len(st_agent_heading(w, ids[k])) - 1.0) < 1e-12, "heading not unit")) break;
        }
    }
    CHECK(violations == 0, "%d steps turned faster than the turn rate (worst by %g rad)", violations, worst);
    printf("  turn rate: 300 agents x %d steps, worst excess %.3g rad\n", steps, worst);
    for (int k = 0; k < N; k++)
        CHECK(rate[k] == st_agent_turn_rate(w, ids[k]), "turn rate reads back %g", st_agent_turn_rate(w, ids[k]));
    st_world_destroy(w);
}

static void facing_follows_velocity_under_the_limit(void)
{
    st_world *w = tu_world(4000, 4000, ST_EDGES_NONE, 1);
    // Heading east, moving north at constant velocity: the facing needs
    // (pi/2) / rate seconds to line up, no less and no more.
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(100, 100);
    d.vel = st_v2(0, 100);
    d.heading = st_v2(1, 0);
    d.has_heading = true;
    d.turn_rate = TU_PI; // 90 degrees in 0.5 s = 30 steps
    st_agent_id a = st_world_spawn(w, &d);
    CHECK(tu_v2_close(st_agent_heading(w, a), st_v2(1, 0), 1e-12), "spawn heading kept");
    int steps = 0;
    while (angle_between(st_agent_heading(w, a), st_v2(0, 1)) > 1e-9 && steps < 1000) {
        st_world_step(w, DT);
        steps++;
    }
    CHECK(steps == 30, "facing lined up with the velocity after %d steps, expected 30", steps);
    // set_vel does not snap a limited agent's facing
    st_agent_set_vel(w, a, st_v2(-100, 0));
    CHECK(tu_v2_close(st_agent_heading(w, a), st_v2(0, 1), 1e-12), "set_vel turned a limited facing at once");
    // and an unlimited agent (the default) keeps facing = direction of travel
    st_agent_id b = tu_spawn(w, st_v2(300, 300), st_v2(10, 10));
    CHECK(st_agent_turn_rate(w, b) == INFINITY, "default turn rate %g", st_agent_turn_rate(w, b));
    st_agent_set_vel(w, b, st_v2(0, -5));
    CHECK(tu_v2_close(st_agent_heading(w, b), st_v2(0, -1), 1e-12), "unlimited facing follows set_vel");
    CHECK(!st_agent_set_turn_rate(w, b, -1.0) && !st_agent_set_turn_rate(w, b, NAN), "bad turn rates refused");
    st_agent_def bad = st_default_agent_def();
    bad.turn_rate = NAN;
    CHECK(st_id_is_null(st_world_spawn(w, &bad)), "NaN turn rate spawned");
    st_world_destroy(w);
}

static void face_turns_toward_the_target_while_moving(void)
{
    st_world *w = tu_world(4000, 4000, ST_EDGES_NONE, 1);
    st_agent_id a = spawn_turning(w, st_v2(100, 100), st_v2(150, 0), 2.0);
    st_agent_id t = tu_spawn(w, st_v2(100, 1000), st_v2(0, 0));
    st_behavior list[2] = {st_default_behavior(ST_SEEK), st_default_behavior(ST_FACE)};
    list[0].target = st_target_point(st_v2(3000, 100)); // goes east
    list[1].target = st_target_agent(t);                // looks at t (south)
    CHECK(st_agent_set_behaviors(w, a, list, 2), "set");
    for (int s = 0; s < 120; s++) st_world_step(w, DT);
    // the request is made at the start of a step: from where the agent was then
    st_vec2 was = st_agent_pos(w, a);
    st_world_step(w, DT);
    st_vec2 to_t = st_v2_normalize(st_v2_sub(st_agent_pos(w, t), was));
    CHECK(angle_between(st_agent_heading(w, a), to_t) < 1e-9, "facing %g rad off the target",
          angle_between(st_agent_heading(w, a), to_t));
    CHECK(st_agent_vel(w, a).x > 140.0, "moves east regardless (vel.x %g)", st_agent_vel(w, a).x);
    // drop the face entry: it looks where it goes again
    CHECK(st_agent_set_behaviors(w, a, list, 1), "set");
    for (int s = 0; s < 120; s++) st_world_step(w, DT);
    CHECK(angle_between(st_agent_heading(w, a), st_v2_normalize(st_agent_vel(w, a))) < 1e-6, "looks where it goes");
    // an unlimited agent facing a point snaps to it
    st_agent_id u = tu_spawn(w, st_v2(500, 500), st_v2(100, 0));
    st_behavior f = st_default_behavior(ST_FACE);
    f.target = st_target_point(st_v2(500, 400));
    st_world_step_begin(w, DT);
    CHECK(st_v2_len(st_agent_steer(w, u, &f)) == 0.0, "face is no force");
    st_world_step_end(w);
    CHECK(tu_v2_close(st_agent_heading(w, u), st_v2(0, -1), 1e-12), "unlimited face snaps");
    st_world_step(w, DT);
    CHECK(tu_v2_close(st_agent_heading(w, u), st_v2(1, 0), 1e-12), "a request lasts one step");
    st_world_destroy(w);
}

static void match_velocity_reaches_the_velocity(void)
{
    st_world *w = tu_world(4000, 4000, ST_EDGES_NONE, 1);
    st_agent_id a = tu_spawn(w, st_v2(1000, 1000), st_v2(0, 0));
    st_agent_id m = tu_spawn(w, st_v2(0, 0), st_v2(-60, 80));
    st_behavior b = st_default_behavior(ST_MATCH_VELOCITY);
    b.target = st_target_point(st_v2(100, -50));
    double maxf = 0;
    for (int s = 0; s < 120; s++) {
        st_world_step_begin(w, DT);
        st_vec2 f = st_agent_steer(w, a, &b);
        if (st_v2_len(f) > maxf) maxf = st_v2_len(f);
        st_world_step_end(w);
    }
    CHECK(tu_v2_close(st_agent_vel(w, a), st_v2(100, -50), 1e-6), "velocity (%g, %g)", st_agent_vel(w, a).x,
          st_agent_vel(w, a).y);
    CHECK(maxf <= 400.0 + 1e-9, "force %g over max_force", maxf);
    b.target = st_target_agent(m); // an agent: its velocity
    for (int s = 0; s < 120; s++) {
        st_world_step_begin(w, DT);
        st_agent_steer(w, a, &b);
        st_world_step_end(w);
    }
    CHECK(tu_v2_close(st_agent_vel(w, a), st_v2(-60, 80), 1e-6), "matched the agent's velocity");
    st_world_destroy(w);
}

/* ---- path following ---- */

static double dist_to_path(const st_vec2 *pts, int n, st_vec2 p)
{
    double best = INFINITY;
    for (int k = 0; k + 1 < n; k++) {
        st_vec2 a = pts[k], e = st_v2_sub(pts[k + 1], a);
        double t = st_v2_dot(st_v2_sub(p, a), e) / st_v2_len2(e);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double d = st_v2_dist(p, st_v2_add(a, st_v2_scale(e, t)));
        if (d < best) best = d;
    }
    return best;
}

static void predictive_following_stays_inside_a_winding_path(void)
{
    // A winding road: a sine of amplitude 80 and wavelength 500, sampled
    // every 10 units; its tightest bend (radius 79) is wider than the
    // agent's turning circle at full speed (150^2 / 400 = 56).
    enum { NP = 301 };
    st_vec2 pts[NP];
    for (int k = 0; k < NP; k++) pts[k] = st_v2(100 + 10.0 * k, 1000 + 80.0 * sin(2 * TU_PI * 10.0 * k / 500.0));
    double radius = 20.0;
    st_path *p = st_path_create(pts, NP, false, radius);
    st_world *w = tu_world(4000, 4000, ST_EDGES_NONE, 1);
    st_vec2 dir0 = st_v2_normalize(st_v2_sub(pts[1], pts[0]));
    st_agent_id a = tu_spawn(w, pts[0], st_v2_scale(dir0, 150));
    st_behavior b = st_default_behavior(ST_FOLLOW_PATH);
    b.path = p;
    b.path_mode = ST_PATH_PREDICT;
    CHECK(st_agent_set_behaviors(w, a, &b, 1), "set");
    double worst = 0, slowest = INFINITY;
    int steps = 0;
    for (; steps < 60 * 60; steps++) {
        st_world_step(w, DT);
        double d = dist_to_path(pts, NP, st_agent_pos(w, a));
        if (d > worst) worst = d;
        double to_end = st_v2_dist(st_agent_pos(w, a), pts[NP - 1]);
        if (to_end > 200 && st_agent_speed(w, a) < slowest) slowest = st_agent_speed(w, a);
        if (to_end < 1.0 && st_agent_speed(w, a) < 1.0) break;
    }
    CHECK(worst <= radius, "left the path: %.2f units from it (radius %g)", worst, radius);
    CHECK(slowest > 0.95 * 150, "slowed to %g on the way", slowest);
    CHECK(steps < 60 * 60, "did not arrive at the end (%g away)", st_v2_dist(st_agent_pos(w, a), pts[NP - 1]));
    printf("  winding path at %.0f+ u/s: farthest %.2f units from it (radius %g), arrived after %.2f s\n", slowest,
           worst, radius, steps * DT);

    // The waypoint mode on the same road (dense waypoints: it does well
    // here too, and also ends at the last point), for the figures.
    st_agent_id c = tu_spawn(w, pts[0], st_v2_scale(dir0, 150));
    st_behavior bw = b;
    bw.path_mode = ST_PATH_WAYPOINTS;
    CHECK(st_agent_set_behaviors(w, c, &bw, 1), "set");
    double worst_w = 0;
    for (int s = 0; s < 60 * 60; s++) {
        st_world_step(w, DT);
        double d = dist_to_path(pts, NP, st_agent_pos(w, c));
        if (d > worst_w) worst_w = d;
    }
    printf("  waypoint mode on the same road: farthest %.2f units\n", worst_w);
    CHECK(st_v2_dist(st_agent_pos(w, c), pts[NP - 1]) < 5.0, "waypoint mode reaches the end");

    // Started 300 units off the path, it comes back and then stays inside.
    st_agent_id o = tu_spawn(w, st_v2(600, 1400), st_v2(0, 0));
    CHECK(st_agent_set_behaviors(w, o, &b, 1), "set");
    int back = -1;
    double after = 0;
    for (int s = 0; s < 60 * 20; s++) {
        st_world_step(w, DT);
        double d = dist_to_path(pts, NP, st_agent_pos(w, o));
        if (back < 0 && d <= radius) back = s;
        if (back >= 0 && s > back + 60 && d > after) after = d; // a second to settle in
    }
    CHECK(back >= 0 && back < 5 * 60, "came back to the path after %d steps", back);
    CHECK(after <= radius, "strayed %.2f units after returning", after);
    st_path_destroy(p);
    st_world_destroy(w);
}

static void predictive_following_loops_a_closed_path(void)
{
    st_vec2 sq[4] = {{200, 200}, {600, 200}, {600, 600}, {200, 600}};
    st_path *p = st_path_create(sq, 4, true, 30);
    st_world *w = tu_world(800, 800, ST_EDGES_NONE, 1);
    st_agent_id a = tu_spawn(w, st_v2(200, 200), st_v2(0, 0));
    st_behavior b = st_default_behavior(ST_FOLLOW_PATH);
    b.path = p;
    b.path_mode = ST_PATH_PREDICT;
    b.ahead = 40;
    CHECK(st_agent_set_behaviors(w, a, &b, 1), "set");
    int corners = 0, next = 1;
    for (int s = 0; s < 60 * 40; s++) {
        st_world_step(w, DT);
        if (st_v2_dist(st_agent_pos(w, a), sq[next]) < 80) {
            corners++;
            next = (next + 1) % 4;
        }
    }
    // 1600 units a lap at up to 150 u/s: 40 s is over three laps
    CHECK(corners >= 10, "rounded %d corners in order in 40 s", corners);
    st_path_destroy(p);
    st_world_destroy(w);
}

/* ---- formations ---- */

static double total_cost(st_world *w, st_formation *f)
{
    double t = 0;
    for (int k = 0; k < st_formation_count(f); k++)
        t += st_v2_dist(st_agent_pos(w, st_formation_member(f, k)),
                        st_formation_slot_pos(w, f, st_formation_slot_of(f, k)));
    return t;
}

/* Least total distance over every permutation (n <= 7). */
static double brute_force(st_world *w, st_formation *f)
{
    int n = st_formation_count(f);
    int perm[8];
    for (int k = 0; k < n; k++) perm[k] = k;
    double best = INFINITY;
    for (;;) {
        double t = 0;
        for (int k = 0; k < n; k++)
            t += st_v2_dist(st_agent_pos(w, st_formation_member(f, k)), st_formation_slot_pos(w, f, perm[k]));
        if (t < best) best = t;
        // next permutation
        int i = n - 2;
        while (i >= 0 && perm[i] > perm[i + 1]) i--;
        if (i < 0) break;
        int j = n - 1;
        while (perm[j] < perm[i]) j--;
        int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
        for (int a = i + 1, b = n - 1; a < b; a++, b--) tmp = perm[a], perm[a] = perm[b], perm[b] = tmp;
    }
    return best;
}

static bool is_permutation(st_formation *f)
{
    int n = st_formation_count(f), seen[256] = {0};
    for (int k = 0; k < n; k++) {
        int s = st_formation_slot_of(f, k);
        if (s < 0 || s >= n || seen[s]++) return false;
    }
    return true;
}

static void slots_are_assigned_optimally(void)
{
    tu_rng r = {5};
    int cases = 0;
    for (int trial = 0; trial < 60; trial++) {
        st_world *w = tu_world(1000, 1000, ST_EDGES_NONE, 1);
        st_formation_def d = st_default_formation_def();
        d.pattern = (st_formation_pattern)(trial % 4);
        d.spacing = tu_uniform(&r, 10, 60);
        st_agent_id leader = tu_spawn(w, st_v2(500, 500), st_v2_from_angle(tu_uniform(&r, 0, 6.28), 50));
        d.leader = leader;
        st_formation *f = st_formation_create(&d);
        int n = 1 + trial % 7;
        st_agent_id m[8];
        for (int k = 0; k < n; k++) {
            m[k] = tu_spawn(w, st_v2(tu_uniform(&r, 300, 700), tu_uniform(&r, 300, 700)), st_v2(0, 0));
            CHECK(st_formation_add(w, f, m[k]), "add");
            // optimal after every join
            double got = total_cost(w, f), best = brute_force(w, f);
            CHECK(is_permutation(f) && got <= best + 1e-9, "join %d of %d: total %g, best %g", k + 1, n, got, best);
            cases++;
        }
        CHECK(!st_formation_add(w, f, m[0]) && !st_formation_add(w, f, leader), "duplicate / leader refused");
        // the leader turns around: update reassigns, optimally for the new slots
        st_agent_set_vel(w, leader, st_v2_neg(st_agent_vel(w, leader)));
        st_formation_update(w, f);
        double got = total_cost(w, f), best = brute_force(w, f);
        CHECK(got <= best + 1e-9, "after the leader turned: total %g, best %g", got, best);
        cases++;
        if (n >= 2) {
            // one leaves, one dies
            CHECK(st_formation_remove(w, f, m[0]) && !st_formation_remove(w, f, m[0]), "remove");
            got = total_cost(w, f), best = brute_force(w, f);
            CHECK(is_permutation(f) && got <= best + 1e-9, "after a leave: %g vs %g", got, best);
            st_world_remove(w, m[n - 1]);
            CHECK(st_formation_prune(w, f) == n - 2, "prune count");
            if (n > 2) {
                got = total_cost(w, f), best = brute_force(w, f);
                CHECK(is_permutation(f) && got <= best + 1e-9, "after a death: %g vs %g", got, best);
            }
            cases += 2;
        }
        st_formation_destroy(f);
        st_world_destroy(w);
    }
    printf("  %d assignments equal to the brute-force optimum\n", cases);
}

static void assignment_solver_agrees_with_brute_force(void)
{
    // st_assign alone on random matrices, and the greedy beyond the exact limit
    tu_rng r = {11};
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + trial % 7, out[8], perm[8];
        double c[64];
        for (int k = 0; k < n * n; k++) c[k] = trial % 5 == 0 ? (double)(int)tu_uniform(&r, 0, 4) : tu_uniform(&r, 0, 100);
        double got = st_assign(c, n, out);
        for (int k = 0; k < n; k++) perm[k] = k;
        double best = INFINITY;
        for (;;) {
            double t = 0;
            for (int k = 0; k < n; k++) t += c[k * n + perm[k]];
            if (t < best) best = t;
            int i = n - 2;
            while (i >= 0 && perm[i] > perm[i + 1]) i--;
            if (i < 0) break;
            int j = n - 1;
            while (perm[j] < perm[i]) j--;
            int tmp = perm[i];
            perm[i] = perm[j], perm[j] = tmp;
            for (int a = i + 1, b = n - 1; a < b; a++, b--) tmp = perm[a], perm[a] = perm[b], perm[b] = tmp;
        }
        double check = 0;
        int seen[8] = {0};
        bool ok = true;
        for (int k = 0; k < n; k++) {
            ok = ok && out[k] >= 0 && out[k] < n && !seen[out[k]]++;
            if (ok) check += c[k * n + out[k]];
        }
        if (!CHECK(ok && fabs(got - best) < 1e-9 && fabs(check - got) < 1e-9, "n=%d: %g vs optimum %g", n, got, best))
            break;
    }
    int n = 100;
    double *c = malloc(sizeof *c * (size_t)(n * n));
    int *out = malloc(sizeof *out * (size_t)n), *seen = calloc((size_t)n, sizeof *seen);
    for (int k = 0; k < n * n; k++) c[k] = tu_uniform(&r, 0, 100);
    double got = st_assign(c, n, out);
    bool ok = got >= 0;
    for (int k = 0; k < n; k++) ok = ok && out[k] >= 0 && out[k] < n && !seen[out[k]]++;
    CHECK(ok, "greedy assignment of 100 is a permutation");
    free(c);
    free(out);
    free(seen);
}

static void members_reach_their_slots(void)
{
    st_world *w = tu_world(2000, 2000, ST_EDGES_NONE, 1);
    st_formation_def d = st_default_formation_def();
    d.pattern = ST_FORMATION_CIRCLE;
    d.leader = st_null_agent();
    d.anchor_pos = st_v2(1000, 1000);
    st_formation *f = st_formation_create(&d);
    tu_rng r = {3};
    for (int k = 0; k < 12; k++)
        st_formation_add(w, f, tu_spawn(w, st_v2(tu_uniform(&r, 0, 2000), tu_uniform(&r, 0, 2000)), st_v2(0, 0)));
    for (int s = 0; s < 60 * 20; s++) {
        st_world_step_begin(w, DT);
        st_formation_update(w, f);
        st_world_step_end(w);
    }
    double worst = 0;
    for (int k = 0; k < st_formation_count(f); k++) {
        double e = st_v2_dist(st_agent_pos(w, st_formation_member(f, k)),
                              st_formation_slot_pos(w, f, st_formation_slot_of(f, k)));
        if (e > worst) worst = e;
    }
    CHECK(worst < 1.0, "a member is %g from its slot after 20 s", worst);
    // the circle's slots are one spacing apart and around the anchor
    st_vec2 s0 = st_formation_slot_pos(w, f, 0), s1 = st_formation_slot_pos(w, f, 1);
    CHECK(st_v2_dist(s0, st_v2(1000, 1000)) >= d.spacing - 1e-9, "circle radius");
    CHECK(st_v2_dist(s0, s1) >= d.spacing * 0.99, "neighbouring slots %g apart", st_v2_dist(s0, s1));
    st_formation_def bad = d;
    bad.spacing = 0;
    CHECK(!st_formation_create(&bad), "spacing 0 refused");
    bad = d;
    bad.reassign_angle = 4;
    CHECK(!st_formation_create(&bad), "reassign_angle > pi refused");
    st_formation_destroy(f);
    st_world_destroy(w);
}

/* ---- leader following and queueing ---- */

static void followers_keep_out_of_the_leaders_way(void)
{
    st_world *w = tu_world(3000, 3000, ST_EDGES_NONE, 1);
    st_agent_def ld = st_default_agent_def();
    ld.pos = st_v2(500, 1500);
    ld.max_speed = 60;
    st_agent_id l = st_world_spawn(w, &ld);
    st_behavior seek = st_default_behavior(ST_SEEK);
    seek.target = st_target_point(st_v2(2800, 1500));
    st_agent_set_behaviors(w, l, &seek, 1);
    enum { N = 10 };
    st_agent_id fs[N];
    tu_rng r = {8};
    for (int k = 0; k < N; k++) {
        // some start right in front of the leader
        fs[k] = tu_spawn(w, st_v2(tu_uniform(&r, 520, 700), tu_uniform(&r, 1480, 1520)), st_v2(0, 0));
        st_behavior list[2] = {st_default_behavior(ST_FOLLOW_LEADER), st_default_behavior(ST_SEPARATE)};
        list[0].target = st_target_agent(l);
        list[1].flock.radius = 20;
        list[1].weight = 2;
        st_agent_set_behaviors(w, fs[k], list, 2);
    }
    for (int s = 0; s < 60 * 20; s++) st_world_step(w, DT);
    int in_zone = 0;
    double mean_behind = 0;
    st_vec2 lp = st_agent_pos(w, l), lh = st_agent_heading(w, l);
    for (int k = 0; k < N; k++) {
        st_vec2 rel = st_v2_sub(st_agent_pos(w, fs[k]), lp);
        double along = st_v2_dot(rel, lh), across = st_v2_cross(lh, rel);
        if (along > 0 && fabs(across) < 6 + 12) in_zone++;
        mean_behind += -along / N;
    }
    CHECK(in_zone == 0, "%d followers in front of the leader after 20 s", in_zone);
    CHECK(mean_behind > 10 && mean_behind < 100, "followers %g behind on average", mean_behind);
    st_world_destroy(w);
}

static int queue_overlaps(bool queue, double *worst_overlap)
{
    // A column of agents driving at a wall; the front one stops there. With
    // queue the rest brake behind each other instead of piling into it.
    st_world *w = tu_world(2000, 2000, ST_EDGES_NONE, 1);
    enum { N = 12 };
    st_agent_id ids[N];
    for (int k = 0; k < N; k++) {
        ids[k] = tu_spawn(w, st_v2(1000 - 30.0 * k, 1000), st_v2(0, 0));
        st_behavior list[2] = {st_default_behavior(ST_QUEUE), st_default_behavior(ST_ARRIVE)};
        list[1].target = st_target_point(st_v2(1200, 1000));
        list[0].weight = 3;
        st_agent_set_behaviors(w, ids[k], queue ? list : list + 1, queue ? 2 : 1);
    }
    int overlaps = 0;
    *worst_overlap = 0;
    for (int s = 0; s < 60 * 10; s++) {
        st_world_step(w, DT);
        for (int k = 0; k + 1 < N; k++) {
            double gap = st_v2_dist(st_agent_pos(w, ids[k]), st_agent_pos(w, ids[k + 1])) - 12.0;
            if (gap < -0.5) overlaps++;
            if (-gap > *worst_overlap) *worst_overlap = -gap;
        }
    }
    st_world_destroy(w);
    return overlaps;
}

static void a_queue_does_not_pile_up(void)
{
    double with_q, without_q;
    int a = queue_overlaps(true, &with_q), b = queue_overlaps(false, &without_q);
    CHECK(a == 0, "queueing agents overlapped %d times (by up to %g)", a, with_q);
    CHECK(b > 0, "the scene without queue should pile up (else it tests nothing)");
    printf("  queue: worst overlap %.2f with queue, %.2f without\n", with_q, without_q);
}

/* ---- determinism ---- */

static uint64_t run_everything(int threads)
{
    st_world_def wd = st_default_world_def();
    wd.width = 3000;
    wd.height = 3000;
    wd.seed = 42;
    wd.threads = threads;
    st_world *w = st_world_create(&wd);
    tu_rng r = {77};
    const int N = light() ? 2100 : 4000; // past the threshold where the step runs threaded
    st_vec2 pts[6] = {{100, 100}, {2900, 300}, {2500, 2800}, {300, 2600}, {1500, 1500}, {100, 100}};
    st_path *p = st_path_create(pts, 6, true, 40);
    st_agent_id lead = st_null_agent();
    st_formation_def fd = st_default_formation_def();
    st_formation *f = NULL;
    for (int k = 0; k < N; k++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(tu_uniform(&r, 0, 3000), tu_uniform(&r, 0, 3000));
        d.vel = st_v2(tu_uniform(&r, -100, 100), tu_uniform(&r, -100, 100));
        d.turn_rate = k % 2 ? tu_uniform(&r, 0.5, 6) : INFINITY;
        st_agent_id a = st_world_spawn(w, &d);
        st_behavior list[4];
        int n = 0;
        switch (k % 5) {
        case 0:
            list[n] = st_default_behavior(ST_FOLLOW_PATH);
            list[n].path = p;
            list[n++].path_mode = ST_PATH_PREDICT;
            lead = a;
            break;
        case 1:
            list[n] = st_default_behavior(ST_FOLLOW_LEADER);
            list[n++].target = st_target_agent(lead);
            list[n++] = st_default_behavior(ST_QUEUE);
            break;
        case 2:
            list[n++] = st_default_behavior(ST_WANDER);
            list[n] = st_default_behavior(ST_FACE);
            list[n++].target = st_target_agent(lead);
            break;
        case 3:
            list[n] = st_default_behavior(ST_MATCH_VELOCITY);
            list[n++].target = st_target_agent(lead);
            list[n++] = st_default_behavior(ST_FLOCK);
            break;
        default:
            if (!f) {
                fd.leader = lead;
                f = st_formation_create(&fd);
            }
            if (st_formation_count(f) < 40) st_formation_add(w, f, a);
            else list[n++] = st_default_behavior(ST_WANDER);
            break;
        }
        st_agent_set_behaviors(w, a, list, n);
    }
    for (int s = 0; s < (light() ? 30 : 200); s++) {
        st_world_step_begin(w, DT);
        st_formation_update(w, f);
        st_world_step_end(w);
    }
    uint64_t c = st_world_checksum(w);
    st_formation_destroy(f);
    st_path_destroy(p);
    st_world_destroy(w);
    return c;
}

static void one_and_two_threads_agree(void)
{
    uint64_t a = run_everything(1), b = run_everything(2), c = run_everything(1);
    CHECK(a == b && a == c, "checksums %016llx (1 thread) %016llx (2 threads) %016llx (again)",
          (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
    printf("  %s, every new behaviour: %016llx on 1 and 2 threads\n",
           light() ? "2100 agents, 30 steps" : "4000 agents, 200 steps", (unsigned long long)a);
}

int main(void)
{
    RUN(turn_rate_is_never_exceeded);
    RUN(facing_follows_velocity_under_the_limit);
    RUN(face_turns_toward_the_target_while_moving);
    RUN(match_velocity_reaches_the_velocity);
    RUN(predictive_following_stays_inside_a_winding_path);
    RUN(predictive_following_loops_a_closed_path);
    RUN(slots_are_assigned_optimally);
    RUN(assignment_solver_agrees_with_brute_force);
    RUN(members_reach_their_slots);
    RUN(followers_keep_out_of_the_leaders_way);
    RUN(a_queue_does_not_pile_up);
    RUN(one_and_two_threads_agree);
    return tu_summary();
}
