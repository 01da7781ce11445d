/*
 * test_path_progress.c — where an agent is along its path: the waypoint it
 * heads for (st_agent_path_index, st_agent_set_path_index) in both
 * follow_path modes, and the distance left (st_path_remaining).
 */
#include "test_util.h"

#define DT (1.0 / 60.0)

static st_world *plane(void)
{
    st_world_def d = st_default_world_def();
    d.width = 2000;
    d.height = 2000;
    d.edges = ST_EDGES_NONE;
    return st_world_create(&d);
}

static st_agent_id spawn_at(st_world *w, st_vec2 p)
{
    st_agent_def d = st_default_agent_def();
    d.pos = p;
    return st_world_spawn(w, &d);
}

static void follow(st_world *w, st_agent_id a, const st_path *p, st_path_mode mode)
{
    st_behavior b = st_default_behavior(ST_FOLLOW_PATH);
    b.path = p;
    b.path_mode = mode;
    st_agent_set_behaviors(w, a, &b, 1);
}

static void test_remaining_by_hand(void)
{
    st_vec2 pts[3] = {{0, 0}, {100, 0}, {100, 100}};
    st_path *p = st_path_create(pts, 3, false, 10);
    st_vec2 q = st_v2(50, 10);
    CHECK(tu_close(st_path_remaining(p, q, 1), sqrt(2600.0) + 100, 1e-12), "open, into 1: %g",
          st_path_remaining(p, q, 1));
    CHECK(tu_close(st_path_remaining(p, q, 2), sqrt(10600.0), 1e-12), "open, into 2: %g", st_path_remaining(p, q, 2));
    CHECK(tu_close(st_path_remaining(p, q, 0), sqrt(2600.0) + 200, 1e-12), "open, into 0: %g",
          st_path_remaining(p, q, 0));
    CHECK(tu_close(st_path_remaining(p, q, -1), sqrt(2600.0) + 100, 1e-12), "open, after the nearest point: %g",
          st_path_remaining(p, q, -1));
    CHECK(tu_close(st_path_remaining(p, st_v2(100, 60), 2), 40, 1e-12), "on the last segment: %g",
          st_path_remaining(p, st_v2(100, 60), 2));
    CHECK(tu_close(st_path_remaining(p, st_v2(100, 400), 9), 300, 1e-12), "index past the end, far off: %g",
          st_path_remaining(p, st_v2(100, 400), 9));
    st_path_destroy(p);
    st_vec2 sq[4] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}};
    st_path *l = st_path_create(sq, 4, true, 10);
    CHECK(tu_close(st_path_remaining(l, st_v2(50, 0), 1), 350, 1e-12), "loop, into 1: %g",
          st_path_remaining(l, st_v2(50, 0), 1));
    CHECK(tu_close(st_path_remaining(l, st_v2(0, 50), 0), 50, 1e-12), "loop, into its first point: %g",
          st_path_remaining(l, st_v2(0, 50), 0));
    CHECK(tu_close(st_path_remaining(l, st_v2(50, 0), 5), 350, 1e-12), "loop, index 5 counts round to 1: %g",
          st_path_remaining(l, st_v2(50, 0), 5));
    st_path_destroy(l);
}

/* Following a path, the distance left falls step by step to about zero. */
static void test_remaining_falls(void)
{
    st_vec2 pts[4] = {{100, 100}, {500, 100}, {500, 500}, {100, 500}};
    st_path *p = st_path_create(pts, 4, false, ST_PATH_RADIUS);
    for (int mode = 0; mode < 2; mode++) {
        st_world *w = plane();
        st_agent_id a = spawn_at(w, st_v2(100, 100));
        follow(w, a, p, mode ? ST_PATH_PREDICT : ST_PATH_WAYPOINTS);
        double prev = INFINITY, rise = 0.0;
        CHECK(tu_close(st_path_remaining(p, st_v2(100, 100), -1), 1200, 1e-12), "from the start: %g",
              st_path_remaining(p, st_v2(100, 100), -1));
        for (int s = 0; s < (int)(20 / DT); s++) {
            st_world_step(w, DT);
            double r = st_path_remaining(p, st_agent_pos(w, a), st_agent_path_index(w, a));
            rise = fmax(rise, r - prev);
            prev = r;
        }
        /* "predict" cuts corners while its index still names the corner
         * passed beside: the straight way to it may grow a little there,
         * well under a step's travel (2.5) */
        CHECK(rise <= (mode ? 1.0 : 0.0), "mode %d: the distance left rose by %g in a step", mode, rise);
        CHECK(prev < 2, "mode %d: %g left after 20 s", mode, prev);
        CHECK(st_agent_path_index(w, a) == 3, "mode %d: index at the end %d", mode, st_agent_path_index(w, a));
        st_world_destroy(w);
    }
    st_path_destroy(p);
}

/* Predict mode keeps the same meaning: the waypoint that ends its segment. */
static void test_predict_index_is_next_waypoint(void)
{
    st_vec2 pts[3] = {{100, 100}, {400, 100}, {400, 400}};
    st_path *p = st_path_create(pts, 3, false, 10);
    st_world *w = plane();
    st_agent_id a = spawn_at(w, st_v2(150, 110));
    CHECK(st_agent_path(w, a) == NULL, "a new agent follows a path");
    follow(w, a, p, ST_PATH_PREDICT);
    st_world_step(w, DT);
    CHECK(st_agent_path(w, a) == p, "the path followed is not the one given");
    CHECK(st_agent_path_index(w, a) == 1, "on the first segment: index %d", st_agent_path_index(w, a));
    st_world_destroy(w);
    st_path_destroy(p);
}

/* Writing the index: the agent skips ahead (never near the skipped point). */
static void test_set_index_skips(void)
{
    st_vec2 pts[4] = {{100, 100}, {500, 100}, {500, 500}, {100, 500}};
    st_path *p = st_path_create(pts, 4, false, ST_PATH_RADIUS);
    st_world *w = plane();
    st_agent_id a = spawn_at(w, st_v2(100, 100));
    CHECK(!st_agent_set_path_index(w, a, 2), "set on an agent that follows no path");
    follow(w, a, p, ST_PATH_WAYPOINTS);
    st_world_step(w, DT);
    CHECK(st_agent_path_index(w, a) == 1, "after the first waypoint: %d", st_agent_path_index(w, a));
    CHECK(!st_agent_set_path_index(w, a, -1), "a negative index is taken");
    CHECK(st_agent_set_path_index(w, a, 3) && st_agent_path_index(w, a) == 3, "set 3: reads %d",
          st_agent_path_index(w, a));
    double closest = INFINITY;
    for (int s = 0; s < (int)(10 / DT); s++) {
        st_world_step(w, DT);
        closest = fmin(closest, st_v2_dist(st_agent_pos(w, a), pts[1]));
        closest = fmin(closest, st_v2_dist(st_agent_pos(w, a), pts[2]));
    }
    CHECK(closest > 100, "skipped waypoints came within %g", closest);
    CHECK(st_v2_dist(st_agent_pos(w, a), pts[3]) < 1, "did not end at the last point");
    /* past the end of an open path: the last point */
    CHECK(st_agent_set_path_index(w, a, 99), "set 99 refused");
    st_world_step(w, DT);
    CHECK(st_agent_path_index(w, a) == 3, "99 on a 4-point open path reads %d after a step", st_agent_path_index(w, a));
    st_world_destroy(w);
    st_path_destroy(p);
}

int main(void)
{
    RUN(test_remaining_by_hand);
    RUN(test_remaining_falls);
    RUN(test_predict_index_is_next_waypoint);
    RUN(test_set_index_skips);
    return tu_summary();
}
