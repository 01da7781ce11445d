/*
 * test_fused_step.c — a step whose standing behaviours read only the agent's
 * own body and the grid (flock, wander, ...) moves each agent inside the
 * standing pass (step.c, behaviors.c); any other behaviour in the world
 * (seek, pursue, avoid_agents ...) keeps the separate integration pass. Both
 * must give every bit the same: a flock stepped beside a seeker its rules
 * ignore (another tag), whose standing seek forces the separate pass, is
 * compared with the same flock beside the same seeker steered by a brain
 * call instead (no standing reader: the fused pass), on 1 and 2 threads,
 * and after the seeker's behaviours are replaced or it is removed (the
 * world's count of such agents going back to zero). The seeker is in both
 * worlds because the flock's sums run over the grid's candidates four at a
 * time (group.c): an agent its rules skip still decides which lane the
 * next candidates fall in, and so the rounding of the sums.
 */
#include <string.h>

#include "test_util.h"
#include "world_internal.h" /* white box: which path a step takes */

enum { N = 3000 };

static st_world *flock_world(int threads, st_agent_id *ids)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 800.0;
    wd.seed = 9;
    wd.threads = threads;
    st_world *w = st_world_create(&wd);
    if (!w) return NULL;
    st_behavior b[2] = {st_default_behavior(ST_FLOCK), st_default_behavior(ST_WANDER)};
    b[0].flock.tag = 1;
    b[1].weight = 0.3;
    for (int i = 0; i < N; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(st_world_random(w) * 800.0, st_world_random(w) * 800.0);
        d.vel = st_v2_from_angle(st_world_random(w) * 2.0 * ST_PI, 80.0);
        d.tag = 1;
        ids[i] = st_world_spawn(w, &d);
        st_agent_set_behaviors(w, ids[i], b, 2);
    }
    return w;
}

static int same_flock(const st_world *a, const st_agent_id *ia, const st_world *b, const st_agent_id *ib)
{
    for (int i = 0; i < N; i++) {
        st_vec2 pa = st_agent_pos(a, ia[i]), pb = st_agent_pos(b, ib[i]);
        st_vec2 va = st_agent_vel(a, ia[i]), vb = st_agent_vel(b, ib[i]);
        if (memcmp(&pa, &pb, sizeof pa) || memcmp(&va, &vb, sizeof va)) return i;
    }
    return -1;
}

static void fused_equals_separate(void)
{
    for (int threads = 1; threads <= 2; threads++) {
        static st_agent_id ia[N], ib[N];
        st_world *a = flock_world(threads, ia), *b = flock_world(threads, ib);
        if (!CHECK(a && b, "world create failed")) return;
        // The seeker: tag 2, which the flock ignores, chasing a point: in b
        // by a standing seek, in a by the same seek called as a brain would.
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(400, 400);
        d.tag = 2;
        st_agent_id sa = st_world_spawn(a, &d), s = st_world_spawn(b, &d);
        st_behavior seek = st_default_behavior(ST_SEEK);
        seek.target = st_target_point(st_v2(10, 10));
        st_agent_set_behaviors(b, s, &seek, 1);
        bool a_seeks = true;
        CHECK(a->others_readers == 0 && b->others_readers == 1, "readers %d, %d", a->others_readers,
              b->others_readers);
        for (int phase = 0; phase < 3; phase++) {
            for (int k = 0; k < 40; k++) {
                st_world_step_begin(a, 1.0 / 60);
                if (a_seeks) st_agent_steer(a, sa, &seek);
                st_world_step_end(a);
                st_world_step(b, 1.0 / 60);
            }
            int bad = same_flock(a, ia, b, ib);
            CHECK(bad < 0, "%d threads, phase %d: agent %d differs between the fused and the separate pass", threads,
                  phase, bad);
            if (phase < 2) {
                st_vec2 pa = st_agent_pos(a, sa), pb = st_agent_pos(b, s);
                CHECK(!memcmp(&pa, &pb, sizeof pa), "phase %d: the seekers went apart: (%g, %g), (%g, %g)", phase,
                      pa.x, pa.y, pb.x, pb.y);
            }
            if (phase == 0) {
                // Replaced by a wander: no reader left, both worlds fuse.
                st_behavior wa = st_default_behavior(ST_WANDER);
                st_agent_set_behaviors(b, s, &wa, 1);
                CHECK(b->others_readers == 0, "after replacing: readers %d", b->others_readers);
                st_agent_set_behaviors(b, s, &seek, 1);
                CHECK(b->others_readers == 1, "seek again: readers %d", b->others_readers);
            } else if (phase == 1) {
                st_world_remove(b, s);
                st_world_remove(a, sa);
                a_seeks = false;
                CHECK(b->others_readers == 0, "after the removal: readers %d", b->others_readers);
            }
        }
        CHECK(a->others_readers == 0, "the brain's seek made a reader: %d", a->others_readers);
        CHECK(st_world_count(b, 1) == N, "lost agents: %d", st_world_count(b, 1));
        st_world_destroy(a);
        st_world_destroy(b);
    }
}

int main(void)
{
    RUN(fused_equals_separate);
    return tu_summary();
}
