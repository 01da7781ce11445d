/*
 * test_determinism.c — same seed + same calls => same checksum, run after run
 * and with any number of threads; a different seed gives a different world;
 * and no state ever holds a NaN or an infinity, whatever finite input a user
 * (or a Lua script) throws at the core.
 */
#include <float.h>
#include <string.h>

#include "test_util.h"

#define DT (1.0 / 60.0)

/* A flocking + wandering crowd with a few pursuers, laid out from the
 * world's own stream, with some brain-style calls each step. */
static st_world *crowd(uint64_t seed, int threads, int n)
{
    st_world_def d = st_default_world_def();
    d.seed = seed;
    d.threads = threads;
    st_world *w = st_world_create(&d);
    if (!w)
        return NULL;
    st_behavior flock = st_default_behavior(ST_FLOCK);
    st_behavior wander = st_default_behavior(ST_WANDER);
    wander.weight = 0.3;
    st_agent_id first = st_null_agent();
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * 800, st_world_random(w) * 600);
        a.vel = st_v2_from_angle(st_world_random(w) * 2 * TU_PI, 20 + st_world_random(w) * 130);
        a.tag = (int32_t)st_world_random_int(w, 0, 2);
        st_agent_id id = st_world_spawn(w, &a);
        if (i == 0)
            first = id;
        if (i % 25 == 5) {
            st_behavior p = st_default_behavior(ST_PURSUE);
            p.target = st_target_agent(first);
            st_behavior list[2] = {p, wander};
            st_agent_set_behaviors(w, id, list, 2);
        } else {
            st_behavior list[2] = {flock, wander};
            st_agent_set_behaviors(w, id, list, 2);
        }
    }
    return w;
}

static void crowd_step(st_world *w)
{
    st_behavior wander = st_default_behavior(ST_WANDER);
    st_world_step_begin(w, DT);
    int i = 0;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY), i++)
        if (i % 10 == 0) { /* a brain: wanders a little more, draws a random number */
            st_agent_steer(w, a, &wander);
            (void)st_world_random(w);
        }
    st_world_step_end(w);
}

static uint64_t run_crowd(uint64_t seed, int threads, int switch_threads, int steps)
{
    st_world *w = crowd(seed, threads, 200);
    if (!CHECK(w != NULL, "world create failed"))
        return 0;
    for (int s = 0; s < steps; s++) {
        if (switch_threads && s % 100 == 0)
            st_world_set_threads(w, 1 + (s / 100) % 3);
        crowd_step(w);
    }
    uint64_t h = st_world_checksum(w);
    CHECK(st_world_count(w, ST_TAG_ANY) == 200, "agents lost: %d", st_world_count(w, ST_TAG_ANY));
    st_world_destroy(w);
    return h;
}

static void same_seed_same_checksum(void)
{
    uint64_t a = run_crowd(42, 1, 0, 1000);
    uint64_t b = run_crowd(42, 1, 0, 1000);
    CHECK(a == b, "same seed, same calls: checksums %016llx and %016llx", (unsigned long long)a, (unsigned long long)b);
    uint64_t c = run_crowd(43, 1, 0, 1000);
    CHECK(a != c, "seeds 42 and 43 gave the same checksum %016llx", (unsigned long long)a);
}

static void threads_do_not_change_the_result(void)
{
    uint64_t one = run_crowd(7, 1, 0, 1000);
    uint64_t two = run_crowd(7, 2, 0, 1000);
    CHECK(one == two, "1 thread %016llx, 2 threads %016llx", (unsigned long long)one, (unsigned long long)two);
    uint64_t four = run_crowd(7, 4, 0, 1000);
    CHECK(one == four, "1 thread %016llx, 4 threads %016llx", (unsigned long long)one, (unsigned long long)four);
    uint64_t sw = run_crowd(7, 1, 1, 1000);
    CHECK(one == sw, "1 thread %016llx, switching 1/2/3 threads mid-run %016llx", (unsigned long long)one,
          (unsigned long long)sw);
    st_world *w = crowd(1, 1, 10);
    st_world_set_threads(w, 3);
    int t = st_world_threads(w);
    CHECK(t == 3 || t == 1, "set_threads(3) read back %d (3, or 1 without OpenMP)", t);
    st_world_destroy(w);
}

static void checksum_sees_every_change(void)
{
    st_world *a = crowd(5, 1, 50), *b = crowd(5, 1, 50);
    CHECK(st_world_checksum(a) == st_world_checksum(b), "identical worlds, different checksums");
    st_agent_id last = st_null_agent();
    for (st_agent_id x = st_world_next(b, st_null_agent(), ST_TAG_ANY); !st_id_is_null(x);
         x = st_world_next(b, x, ST_TAG_ANY))
        last = x;
    st_vec2 p = st_agent_pos(b, last);
    st_agent_set_pos(b, last, st_v2(p.x + 1e-9, p.y));
    CHECK(st_world_checksum(a) != st_world_checksum(b), "moving the last agent by 1e-9 left the checksum unchanged");
    st_agent_set_pos(b, last, p);
    CHECK(st_world_checksum(a) == st_world_checksum(b), "moving it back did not restore the checksum");
    st_vec2 v = st_agent_vel(b, last);
    st_agent_set_vel(b, last, st_v2(v.x, v.y + 1e-9));
    CHECK(st_world_checksum(a) != st_world_checksum(b), "changing a velocity left the checksum unchanged");
    st_world_destroy(b);
    b = crowd(5, 1, 50);
    uint64_t before = st_world_checksum(a);
    crowd_step(a);
    CHECK(before != st_world_checksum(a), "a step of a moving crowd left the checksum unchanged");
    crowd_step(b);
    CHECK(st_world_checksum(a) == st_world_checksum(b), "one identical step, different checksums");
    st_world_remove(b, last);
    CHECK(st_world_checksum(a) != st_world_checksum(b), "removing an agent left the checksum unchanged");
    st_world_destroy(a);
    st_world_destroy(b);
}

/* A crowd big enough that the grid is sorted in parallel slices and the
 * standing pass runs in grid order on several threads, with agents removed
 * and spawned inside steps: the checksum must not depend on the thread
 * count, and queries must still match the all-pairs scan. */
/* in_step_churn: a brain removes and spawns agents inside every step.
 * Without it the crowd changes only between steps, and only on some of
 * them: the steps in between take the integrator's head start on the next
 * grid build, which any change must switch off again. */
static uint64_t run_big_crowd(int threads, int check_queries, int in_step_churn)
{
    enum { BIG = 40000 };
    st_world_def d = st_default_world_def();
    d.width = d.height = sqrt(BIG / (15.0 / (TU_PI * 50.0 * 50.0)));
    d.seed = 11;
    d.threads = threads;
    st_world *w = st_world_create(&d);
    if (!CHECK(w != NULL, "world create failed"))
        return 0;
    st_behavior flock = st_default_behavior(ST_FLOCK);
    st_behavior list[2] = {flock, st_default_behavior(ST_WANDER)};
    list[1].weight = 0.3;
    for (int i = 0; i < BIG; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * d.width, st_world_random(w) * d.height);
        a.vel = st_v2_from_angle(st_world_random(w) * 2 * TU_PI, 100);
        a.tag = i % 7 == 0 ? 2 : 1;
        st_agent_id id = st_world_spawn(w, &a);
        st_agent_set_behaviors(w, id, list, i % 3 == 0 ? 2 : 1);
        if (i % 5 == 0) { /* some avoid with ORCA, at mixed priorities, a few locked */
            st_avoid_def av = st_default_avoid_def();
            av.mode = ST_AVOIDANCE_ORCA;
            av.priority = i % 4;
            av.locked = i % 85 == 0;
            st_agent_set_avoidance(w, id, &av);
        }
    }
    st_vec2 square[4] = {{100, 100}, {160, 100}, {160, 160}, {100, 160}};
    st_world_add_polygon(w, square, 4, true);
    st_world_add_obstacle(w, st_v2(d.width * 0.5, d.height * 0.5), 40);
    st_world_set_contacts(w, in_step_churn); /* contacts with removals inside the step */
    for (int s = 0; s < (in_step_churn ? 4 : 8); s++) {
        if (!in_step_churn) {
            st_agent_id first = st_world_next(w, st_null_agent(), ST_TAG_ANY);
            if (s == 2) /* a user moves an agent */
                st_agent_set_pos(w, first, st_v2(d.width * 0.5, d.height * 0.25));
            if (s == 4) { /* a scene spawns one */
                st_agent_def a = st_default_agent_def();
                a.pos = st_v2(d.width * 0.75, d.height * 0.5);
                st_world_spawn(w, &a);
            }
            if (s == 6) /* and retags one */
                st_agent_set_tag(w, first, 2);
            st_world_step(w, DT);
            continue;
        }
        st_world_step_begin(w, DT);
        /* a brain removes a few agents and spawns one mid-step */
        int k = 0;
        for (st_agent_id a = st_world_next(w, st_null_agent(), 2); !st_id_is_null(a);
             a = st_world_next(w, a, 2), k++)
            if (k % 97 == s)
                st_world_remove(w, a);
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(s * 10.0, s * 20.0);
        st_world_spawn(w, &a);
        st_world_step_end(w);
    }
    uint64_t h = st_world_checksum(w);
    if (check_queries) {
        for (int t = 0; t < 20; t++) {
            st_query q = st_default_query(st_v2(st_world_random(w) * d.width, st_world_random(w) * d.height),
                                          20 + 10 * t);
            q.tag = t % 3 == 0 ? 2 : ST_TAG_ANY;
            static st_agent_id g[BIG], b[BIG];
            static double gd[BIG], bd[BIG];
            st_world_set_brute_force(w, false);
            int ng = st_world_query(w, &q, g, gd, BIG);
            st_world_set_brute_force(w, true);
            int nb = st_world_query(w, &q, b, bd, BIG);
            st_world_set_brute_force(w, false);
            if (!CHECK(ng == nb, "query %d: grid found %d, all-pairs %d", t, ng, nb))
                break;
            /* the two scans fold wrap offsets differently: distances agree
             * to rounding, so near-ties may swap places */
            for (int m = 0; m < ng; m++) {
                int found = 0;
                for (int j = 0; j < nb && !found; j++)
                    found = st_id_equal(g[m], b[j]);
                if (!CHECK(found && fabs(gd[m] - bd[m]) <= 1e-9 * (1 + bd[m]),
                           "query %d: result %d (distance %.17g) not in the all-pairs list (%.17g)", t, m, gd[m],
                           bd[m]))
                    break;
            }
        }
    }
    st_world_destroy(w);
    return h;
}

static void big_crowd_threads_agree(void)
{
    for (int churn = 1; churn >= 0; churn--) {
        uint64_t one = run_big_crowd(1, 0, churn), two = run_big_crowd(2, 1, churn), three = run_big_crowd(3, 1, churn);
        CHECK(one == two, "40k agents, ORCA on 8k (churn in step %d): 1 thread %016llx, 2 threads %016llx", churn,
              (unsigned long long)one, (unsigned long long)two);
        CHECK(one == three, "40k agents (churn in step %d): 1 thread %016llx, 3 threads %016llx", churn,
              (unsigned long long)one, (unsigned long long)three);
    }
}

static void world_random_is_seeded(void)
{
    st_world_def d = st_default_world_def();
    d.seed = 99;
    st_world *a = st_world_create(&d), *b = st_world_create(&d);
    d.seed = 100;
    st_world *c = st_world_create(&d);
    int same_ab = 1, same_ac = 1, in_range = 1;
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        double x = st_world_random(a), y = st_world_random(b), z = st_world_random(c);
        same_ab &= x == y;
        same_ac &= x == z;
        in_range &= x >= 0 && x < 1;
        sum += x;
        int64_t k = st_world_random_int(a, -3, 3);
        int64_t k2 = st_world_random_int(b, -3, 3);
        in_range &= k >= -3 && k <= 3 && k == k2;
    }
    CHECK(same_ab, "same seed, different streams");
    CHECK(!same_ac, "seeds 99 and 100 gave the same stream");
    CHECK(in_range, "random() outside [0, 1) or random_int outside [lo, hi]");
    CHECK(fabs(sum / 10000 - 0.5) < 0.02, "mean of 10000 random() draws %g", sum / 10000);
    CHECK(st_world_random_int(a, 5, 5) == 5, "random_int(5, 5) != 5");
    st_world_destroy(a);
    st_world_destroy(b);
    st_world_destroy(c);
}

/* ---- no NaN, ever ---- */

static int all_finite(st_world *w, const char *ctx, int step)
{
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY)) {
        st_vec2 p = st_agent_pos(w, a), v = st_agent_vel(w, a), h = st_agent_heading(w, a), f = st_agent_force(w, a);
        st_vec2 wt = st_agent_wander_target(w, a);
        if (!CHECK(
                st_v2_finite(p) && st_v2_finite(v) && st_v2_finite(h) && st_v2_finite(f) && st_v2_finite(wt),
                "%s, step %d, agent serial %llu: pos (%g,%g) vel (%g,%g) heading (%g,%g) force (%g,%g) wander (%g,%g)",
                ctx, step, (unsigned long long)st_agent_serial(w, a), p.x, p.y, v.x, v.y, h.x, h.y, f.x, f.y, wt.x,
                wt.y))
            return 0;
        if (!CHECK(fabs(st_v2_len(h) - 1) < 1e-9, "%s, step %d: heading (%g, %g) is not a unit vector", ctx, step, h.x,
                   h.y))
            return 0;
        if (!CHECK(st_v2_len(v) <= st_agent_max_speed(w, a) * (1 + 1e-12), "%s, step %d: speed %g > max_speed %g", ctx,
                   step, st_v2_len(v), st_agent_max_speed(w, a)))
            return 0;
    }
    return 1;
}

/* Every behaviour, standing and called, on a pile of degenerate agents. */
static void degenerate_world(st_edges edges, double max_force, double mass, const char *ctx)
{
    st_world *w = tu_world(400, 300, edges, 3);
    st_world_add_obstacle(w, st_v2(200, 150), 30);
    st_world_add_obstacle(w, st_v2(100, 100), 0);           /* radius 0 */
    st_world_add_wall(w, st_v2(50, 50), st_v2(50, 50));     /* zero length */
    st_world_add_wall(w, st_v2(200, 150), st_v2(300, 150)); /* through the pile */
    st_vec2 same[3] = {{200, 150}, {200, 150}, {200, 150}};
    st_path *dup = st_path_create(same, 3, true, 20);
    st_path *one = st_path_create(same, 1, false, 20);
    enum { N = 40 };
    st_agent_id ids[N];
    for (int i = 0; i < N; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(200, 150); /* all on one point: the centre of an obstacle, on a wall */
        d.max_force = i % 4 == 0 ? 0 : max_force;
        d.mass = mass;
        d.max_speed = i % 5 == 0 ? 0 : i % 5 == 1 ? 1e-9 : 150;
        d.radius = i % 3 == 0 ? 0 : 6;
        d.combine = i % 2 ? ST_COMBINE_PRIORITY : ST_COMBINE_SUM;
        ids[i] = st_world_spawn(w, &d);
        if (!CHECK(!st_id_is_null(ids[i]), "%s: spawn refused", ctx)) {
            st_world_destroy(w);
            st_path_destroy(dup);
            st_path_destroy(one);
            return;
        }
        if (i % 6 == 0)
            st_agent_set_wander(w, ids[i], 0, 0, 0);
        else if (i % 6 == 1)
            st_agent_set_wander(w, ids[i], 1e9, 1e9, 1e12);
    }
    /* standing: every behaviour, with targets on top of the agent */
    st_behavior list[ST_BEHAVIOR_COUNT];
    for (int t = 0; t < ST_BEHAVIOR_COUNT; t++) {
        list[t] = st_default_behavior((st_behavior_type)t);
        list[t].target = st_target_agent(ids[1]);
        list[t].target2 = st_target_agent(ids[2]);
        list[t].path = dup;
        list[t].offset = st_v2(0, 0);
        list[t].radius = t == ST_ARRIVE ? 100 : INFINITY;
        list[t].flock.separation_radius = 0;
    }
    for (int i = 0; i < N; i++)
        st_agent_set_behaviors(w, ids[i], list, ST_BEHAVIOR_COUNT);
    for (int s = 0; s < 300; s++) {
        st_world_step_begin(w, s % 50 == 49 ? 5.0 : DT); /* now and then a very long step */
        for (int i = 0; i < N; i++)
            for (int t = 0; t < ST_BEHAVIOR_COUNT; t++) {
                st_behavior b = list[t];
                b.target =
                    (i + t) % 2 ? st_target_agent(ids[i]) /* itself */ : st_target_point(st_agent_pos(w, ids[i]));
                b.target2 = st_target_agent(ids[i]);
                b.path = t % 2 ? one : dup;
                b.weight = (i + t) % 3 == 0 ? 1e6 : 1;
                st_vec2 f = st_agent_steer(w, ids[i], &b);
                if (!CHECK(st_v2_finite(f), "%s: behaviour %d returned (%g, %g)", ctx, t, f.x, f.y))
                    goto out;
            }
        for (int i = 0; i < N; i++) {
            st_agent_id l[3] = {ids[(i + 1) % N], ids[(i + 2) % N], ids[i]};
            st_vec2 a = st_agent_separate_list(w, ids[i], l, 3, 1), b = st_agent_align_list(w, ids[i], l, 3, 1),
                    c = st_agent_cohere_list(w, ids[i], l, 3, 1);
            if (!CHECK(st_v2_finite(a) && st_v2_finite(b) && st_v2_finite(c), "%s: list rules not finite", ctx))
                goto out;
        }
        st_world_step_end(w);
        if (!all_finite(w, ctx, s))
            goto out;
        /* queries on the pile */
        st_query q = st_default_query(st_v2(200, 150), 0);
        q.fov = 1;
        q.heading = st_agent_heading(w, ids[0]);
        st_agent_id out[N];
        double dist[N];
        int n = st_world_query(w, &q, out, dist, N);
        for (int k = 0; k < n && k < N; k++)
            if (!CHECK(st_finite(dist[k]), "%s: query distance not finite", ctx))
                goto out;
    }
out:
    st_world_destroy(w);
    st_path_destroy(dup);
    st_path_destroy(one);
}

static void no_nan_with_degenerate_inputs(void)
{
    degenerate_world(ST_EDGES_WRAP, 400, 1, "wrap, ordinary force and mass");
    degenerate_world(ST_EDGES_BOUNCE, 400, 1, "bounce, ordinary force and mass");
    degenerate_world(ST_EDGES_NONE, 400, 1, "none, ordinary force and mass");
    degenerate_world(ST_EDGES_WRAP, 1e12, 1e-9, "wrap, max_force 1e12, mass 1e-9");
    degenerate_world(ST_EDGES_BOUNCE, 1e12, 1e-9, "bounce, max_force 1e12, mass 1e-9");
}

static void no_nan_with_absurd_finite_inputs(void)
{
    /* Finite inputs the bindings accept: the state must stay finite too
     * (API.md: "No state of the world ever holds a non-finite number"). */
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_def d = st_default_agent_def();
    d.max_force = DBL_MAX;
    d.mass = DBL_MIN;
    d.max_speed = 150;
    d.pos = st_v2(100, 100);
    st_agent_id a = st_world_spawn(w, &d);
    d.max_speed = DBL_MAX;
    d.mass = 1;
    d.pos = st_v2(700, 500);
    d.vel = st_v2(DBL_MAX, DBL_MAX); /* truncated to max_speed: its length overflows */
    st_agent_id b = st_world_spawn(w, &d);
    st_behavior sk = st_default_behavior(ST_SEEK);
    sk.target = st_target_point(st_v2(500, 300));
    for (int s = 0; s < 60; s++) {
        st_world_step_begin(w, DT);
        st_agent_steer(w, a, &sk);
        st_agent_apply(w, b, st_v2(DBL_MAX, -DBL_MAX), 1);
        st_world_step_end(w);
        if (!all_finite(w, "DBL_MAX force / DBL_MIN mass / DBL_MAX speed", s))
            break;
    }
    st_world_destroy(w);
}

int main(void)
{
    RUN(world_random_is_seeded);
    RUN(same_seed_same_checksum);
    RUN(threads_do_not_change_the_result);
    RUN(big_crowd_threads_agree);
    RUN(checksum_sees_every_change);
    RUN(no_nan_with_degenerate_inputs);
    RUN(no_nan_with_absurd_finite_inputs);
    return tu_summary();
}
