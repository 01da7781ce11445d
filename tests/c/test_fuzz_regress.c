/*
 * test_fuzz_regress.c — the core bugs fuzz_core found (tests/fuzz/), one
 * check each, so they stay fixed in every build, not only the clang one.
 * The inputs that found them live in tests/fuzz/regress_core/.
 */
#include <float.h>

#include "test_util.h"

static int finite2(st_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

static st_world *open_world(st_edges edges, double dt)
{
    st_world_def d = st_default_world_def();
    d.edges = edges;
    d.dt = dt;
    return st_world_create(&d);
}

/* wrap offset of finite points whose difference overflows was nan */
static void offset_of_far_points_is_finite(void)
{
    st_world *w = open_world(ST_EDGES_WRAP, 1.0 / 60.0);
    st_vec2 o = st_world_offset(w, st_v2(-1e308, 1e308), st_v2(1e308, -1e308));
    CHECK(finite2(o), "offset (%g, %g)", o.x, o.y);
    CHECK(fabs(o.x) <= 400.0 && fabs(o.y) <= 300.0, "offset (%g, %g) not the shortest", o.x, o.y);
    CHECK(isfinite(st_world_distance(w, st_v2(DBL_MAX, 0), st_v2(-DBL_MAX, 0))), "distance not finite");
    st_world_destroy(w);
}

/* a velocity whose |v|^2 overflows was kept untruncated: speed read inf */
static void huge_velocity_is_truncated(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
    st_agent_def d = st_default_agent_def();
    d.vel = st_v2(1e308, 1e308);
    d.max_speed = 1e308;
    st_agent_id a = st_world_spawn(w, &d);
    CHECK(isfinite(st_agent_speed(w, a)) && st_agent_speed(w, a) <= 1e308 * (1 + 1e-12), "speed %g",
          st_agent_speed(w, a));
    st_vec2 h = st_agent_heading(w, a);
    CHECK(tu_close(h.x, sqrt(0.5), 1e-12) && tu_close(h.y, sqrt(0.5), 1e-12), "heading (%g, %g)", h.x, h.y);
    st_agent_set_vel(w, a, st_v2(-DBL_MAX, DBL_MAX));
    CHECK(isfinite(st_agent_speed(w, a)), "speed after set_vel %g", st_agent_speed(w, a));
    h = st_agent_heading(w, a);
    CHECK(tu_close(h.x, -sqrt(0.5), 1e-12) && tu_close(h.y, sqrt(0.5), 1e-12), "heading (%g, %g)", h.x, h.y);
    /* a velocity of 1e200 under a max_speed of 1e300 is finite and kept */
    st_agent_set_max_speed(w, a, 1e300);
    st_agent_set_vel(w, a, st_v2(1e200, 0));
    CHECK(st_agent_speed(w, a) == 1e200, "speed %g", st_agent_speed(w, a));
    /* a tiny velocity under max_speed 0 is truncated to nothing */
    st_agent_set_max_speed(w, a, 0.0);
    st_agent_set_vel(w, a, st_v2(1e-170, 0));
    CHECK(st_agent_speed(w, a) == 0.0, "speed %g over max_speed 0", st_agent_speed(w, a));
    st_world_destroy(w);
}

/* a tiny heading given to spawn normalised to a vector that was not unit */
static void tiny_heading_is_unit(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
    st_agent_def d = st_default_agent_def();
    d.has_heading = true;
    d.heading = st_v2(1e-160, 1e-160);
    st_agent_id a = st_world_spawn(w, &d);
    st_vec2 h = st_agent_heading(w, a);
    CHECK(tu_close(hypot(h.x, h.y), 1.0, 1e-15), "|heading| = %.17g", hypot(h.x, h.y));
    d.heading = st_v2(0, 5e-324);
    a = st_world_spawn(w, &d);
    h = st_agent_heading(w, a);
    CHECK(h.x == 0.0 && h.y == 1.0, "heading (%g, %g)", h.x, h.y);
    st_world_destroy(w);
}

/* mass / dt overflowing to an infinite gain made 0 * inf = nan forces */
static void huge_mass_gives_finite_forces(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
    st_agent_def d = st_default_agent_def();
    d.mass = DBL_MAX;
    st_agent_id a = st_world_spawn(w, &d);
    for (int t = 0; t < ST_BEHAVIOR_COUNT; t++) {
        st_behavior b = st_default_behavior((st_behavior_type)t);
        b.target = st_target_point(st_v2(0, 0)); /* where the agent stands */
        b.target2 = st_target_agent(a);
        if (t == ST_FOLLOW_PATH) continue;
        st_vec2 f = st_agent_steer(w, a, &b);
        CHECK(finite2(f), "%s: force (%g, %g)", st_behavior_name((st_behavior_type)t), f.x, f.y);
    }
    st_world_step(w, 1.0 / 60.0);
    CHECK(finite2(st_agent_pos(w, a)) && finite2(st_agent_vel(w, a)), "state not finite");
    st_world_destroy(w);
}

/* steps of 1e308 s summed the world's time to inf */
static void world_time_saturates(void)
{
    st_world *w = open_world(ST_EDGES_WRAP, 1.0 / 60.0);
    st_world_step(w, 1e308);
    st_world_step(w, 1e308);
    CHECK(isfinite(st_world_time(w)), "time %g", st_world_time(w));
    CHECK(st_world_tick(w) == 2, "tick %llu", (unsigned long long)st_world_tick(w));
    st_world_destroy(w);
}

/* a huge jitter times a huge dt put nan into the wander target */
static void wander_with_huge_jitter_and_dt(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1e300);
    st_agent_def d = st_default_agent_def();
    st_agent_id a = st_world_spawn(w, &d);
    st_agent_set_wander(w, a, 1e308, 1e308, 1e308);
    st_behavior b = st_default_behavior(ST_WANDER);
    for (int i = 0; i < 20; i++) {
        st_vec2 f = st_agent_steer(w, a, &b);
        st_vec2 t = st_agent_wander_target(w, a);
        if (!CHECK(finite2(f) && finite2(t), "step %d: force (%g, %g) target (%g, %g)", i, f.x, f.y, t.x, t.y))
            break;
        st_world_step(w, 1e300);
    }
    st_world_destroy(w);
}

/* avoid_agents shouts ST_AVOID_URGENCY times max_force: past DBL_MAX / 3
 * that was inf (and inf times a zero component nan) */
static void avoid_agents_with_huge_max_force(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
    st_agent_def d = st_default_agent_def();
    d.max_force = 1e308;
    d.vel = st_v2(100, 0);
    st_agent_id a = st_world_spawn(w, &d); /* head-on toward the next one */
    d.pos = st_v2(30, 0);
    d.vel = st_v2(-100, 0);
    st_world_spawn(w, &d);
    st_avoid_def av = st_default_avoid_def();
    av.range = 100;
    st_agent_set_avoidance(w, a, &av);
    st_behavior b = st_default_behavior(ST_AVOID_AGENTS);
    st_vec2 f = st_agent_steer(w, a, &b);
    CHECK(finite2(f), "force (%g, %g)", f.x, f.y);
    CHECK(hypot(f.x / 1e308, f.y / 1e308) > 1.0, "no avoidance force: (%g, %g)", f.x, f.y);
    st_world_step(w, 1.0 / 60.0);
    CHECK(finite2(st_agent_pos(w, a)) && finite2(st_agent_vel(w, a)), "state not finite");
    st_world_destroy(w);
}

/* with a mass of 1e300 the limit past which a force saturates is about
 * 1e-299, and a velocity change of 2e-221, whose square underflows, read
 * as none of it: seek returned 1.4e81 against a max_force of 400 */
static void seek_with_huge_mass_and_tiny_change(void)
{
    st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(0, 0);
    d.vel = st_v2(150, 2.3866054626836037e-221); /* a hair off the desired (150, 0) */
    d.max_speed = 150;
    d.max_force = 400;
    d.mass = 1e300;
    st_agent_id a = st_world_spawn(w, &d);
    const st_behavior_type types[] = {ST_SEEK, ST_ARRIVE, ST_PURSUE};
    for (int t = 0; t < 3; t++) {
        st_behavior b = st_default_behavior(types[t]);
        b.target = st_target_point(st_v2(1000, 0));
        st_vec2 f = st_agent_force_of(w, a, &b);
        CHECK(finite2(f) && hypot(f.x, f.y) <= 400 * (1 + 1e-12), "%s: |f| = %g, max_force 400",
              st_behavior_name(types[t]), hypot(f.x, f.y));
    }
    st_world_destroy(w);
}

/* avoid_obstacles and avoid_walls shout ST_AVOID_URGENCY times max_force:
 * with max_force DBL_MAX both the bound and the force were inf */
static void avoidances_with_max_force_dbl_max(void)
{
    const st_behavior_type types[] = {ST_AVOID_OBSTACLES, ST_AVOID_WALLS};
    for (int t = 0; t < 2; t++) {
        st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
        st_world_add_obstacle(w, st_v2(20, 1), 5);
        st_world_add_wall(w, st_v2(15, -50), st_v2(15, 50));
        st_agent_def d = st_default_agent_def();
        d.vel = st_v2(100, 0); /* toward both */
        d.max_force = DBL_MAX;
        d.mass = DBL_MAX;
        st_agent_id a = st_world_spawn(w, &d);
        st_behavior b = st_default_behavior(types[t]);
        st_vec2 f = st_agent_force_of(w, a, &b);
        CHECK(finite2(f), "%s: force (%g, %g)", st_behavior_name(types[t]), f.x, f.y);
        st_world_step(w, 1.0 / 60.0);
        CHECK(finite2(st_agent_pos(w, a)) && finite2(st_agent_vel(w, a)), "%s: state not finite",
              st_behavior_name(types[t]));
        st_world_destroy(w);
    }
}

/* a velocity truncated to a max_speed of DBL_MAX can be a rounding longer
 * than DBL_MAX: its length came out inf */
static void speed_at_max_speed_dbl_max_is_finite(void)
{
    const st_vec2 vels[] = {{-6.8794735279893871e+307, 1.6608519039661644e+308},
                            {1.7976925117026674e+308, -1.4968297349578345e+305}};
    for (int k = 0; k < 2; k++) {
        st_world *w = open_world(ST_EDGES_NONE, 1.0 / 60.0);
        st_agent_def d = st_default_agent_def();
        d.max_speed = DBL_MAX;
        st_agent_id a = st_world_spawn(w, &d);
        st_agent_set_vel(w, a, vels[k]);
        double s = st_agent_speed(w, a);
        CHECK(isfinite(s) && s >= 1.79e308, "case %d: speed %g", k, s);
        st_world_step(w, 1e-300);
        s = st_agent_speed(w, a);
        CHECK(isfinite(s) && s >= 1.79e308, "case %d, after a step: speed %g", k, s);
        st_world_destroy(w);
    }
}

/* in a wrap world a point 1e308 away folds to the exact remainder: both
 * the grid (folding the centre) and the all-pairs path (folding each
 * offset) took off a whole number of sizes off by more than a size, and
 * disagreed on agents 64 units away from a query of radius 1 */
static void far_points_fold_exactly(void)
{
    st_world_def d = st_default_world_def(); /* wrap */
    d.width = 800;
    d.height = 600;
    st_world *w = st_world_create(&d);
    st_agent_def a = st_default_agent_def();
    st_world_spawn(w, &a);
    st_world_spawn(w, &a); /* both at (0, 0) */
    /* -1e308 is a whole number: modulo 600 it is 64 */
    st_vec2 o = st_world_offset(w, st_v2(-1, -1e308), st_v2(0, 0));
    CHECK(o.x == 1.0 && o.y == -64.0, "offset (%.17g, %.17g), want (1, -64)", o.x, o.y);
    st_query q = st_default_query(st_v2(-1, -1e308), 1.0);
    st_agent_id out[4];
    double dist[4];
    for (int brute = 0; brute < 2; brute++) {
        st_world_set_brute_force(w, brute);
        int n = st_world_query(w, &q, out, dist, 4);
        CHECK(n == 0, "%s: %d agents within 1 of a point 64 away", brute ? "all-pairs" : "grid", n);
    }
    q.radius = 65;
    for (int brute = 0; brute < 2; brute++) {
        st_world_set_brute_force(w, brute);
        int n = st_world_query(w, &q, out, dist, 4);
        CHECK(n == 2 && fabs(dist[0] - hypot(1, 64)) < 1e-9, "%s: %d agents within 65, the first at %.17g",
              brute ? "all-pairs" : "grid", n, n > 0 ? dist[0] : -1.0);
    }
    st_world_destroy(w);
}

/* a query whose disc folds across a wrap world (here: cells so small that
 * the grid has few, wide ones) took an agent's offset as (p - c) - size,
 * the nearest search as (p - size) - c: the two distances differed in the
 * last bits (1.4260473733754711 against ...819) */
static void folded_and_shifted_offsets_agree(void)
{
    st_world_def d = st_default_world_def(); /* wrap */
    d.width = 800;
    d.height = 600;
    d.cell_size = 1e-9;
    st_world *w = st_world_create(&d);
    st_agent_def a = st_default_agent_def();
    st_agent_id self = st_world_spawn(w, &a);
    st_agent_id other = st_world_spawn(w, &a);
    st_agent_set_pos(w, other, st_v2(-1, -1)); /* folds to (799, 599) in the grid */
    st_query q = st_default_query(st_v2(1.0 / 60.0, 0), 10);
    q.exclude = self;
    for (int brute = 0; brute < 2; brute++) {
        st_agent_id out[4];
        double dist[4], near = -1;
        st_world_set_brute_force(w, brute);
        int n = st_world_query(w, &q, out, dist, 4);
        st_world_set_brute_force(w, false);
        st_agent_id id = st_world_nearest(w, &q, &near);
        CHECK(n == 1 && st_id_equal(out[0], other) && st_id_equal(id, other), "%s: %d found",
              brute ? "all-pairs" : "grid", n);
        CHECK(n == 1 && near == dist[0], "%s: nearest at %.17g, the query's first at %.17g",
              brute ? "all-pairs" : "grid", near, n == 1 ? dist[0] : -1.0);
    }
    st_world_destroy(w);
}

int main(void)
{
    RUN(offset_of_far_points_is_finite);
    RUN(huge_velocity_is_truncated);
    RUN(tiny_heading_is_unit);
    RUN(huge_mass_gives_finite_forces);
    RUN(world_time_saturates);
    RUN(wander_with_huge_jitter_and_dt);
    RUN(avoid_agents_with_huge_max_force);
    RUN(seek_with_huge_mass_and_tiny_change);
    RUN(avoidances_with_max_force_dbl_max);
    RUN(speed_at_max_speed_dbl_max_is_finite);
    RUN(far_points_fold_exactly);
    RUN(folded_and_shifted_offsets_agree);
    return tu_summary();
}
