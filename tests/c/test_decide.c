/*
 * test_decide.c — the core of messages (message.c) and perception
 * (perceive.c).
 *
 * What a user relies on: messages come out in delivery order (tick, then
 * send order) however they went in, only when due, and a saved queue put
 * back delivers the same; a guard does not see through a wall but sees a
 * target against one; the view cone and range hold; noises are heard once,
 * within reach, for ST_NOISE_TICKS; memories fade linearly, go with their
 * target, keep ST_MEMORY_SLOTS; and every agent perceives inside a step
 * from the records reserved before it, which do not grow.
 */
#include <string.h>

#include "test_util.h"

static st_world *open_world(void)
{
    st_world_def d = st_default_world_def();
    d.width = 1000;
    d.height = 1000;
    d.edges = ST_EDGES_NONE;
    return st_world_create(&d);
}

static st_agent_id spawn_at(st_world *w, double x, double y)
{
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(x, y);
    d.radius = 5;
    d.heading = st_v2(1, 0);
    d.has_heading = true;
    return st_world_spawn(w, &d);
}

static void test_queue_order(void)
{
    st_msgq *q = st_msgq_create();
    st_agent_id to = {1, 1};
    uint64_t ticks[] = {5, 2, 5, 0, 2, 9, 0};
    for (int i = 0; i < 7; i++)
        CHECK(st_msgq_push(q, ticks[i], to) == (uint64_t)i + 1, "seq %d", i + 1);
    CHECK(st_msgq_count(q) == 7, "%d", st_msgq_count(q));
    /* (0,4) (0,7) (2,2) (2,5) (5,1) (5,3) (9,6) */
    uint64_t want_seq[] = {4, 7, 2, 5, 1, 3, 6};
    for (int i = 0; i < 7; i++)
        CHECK(st_msgq_at(q, i).seq == want_seq[i], "at %d: seq %llu", i, (unsigned long long)st_msgq_at(q, i).seq);
    CHECK(st_msgq_due(q, 1) == 2, "due at 1: %d", st_msgq_due(q, 1));
    CHECK(st_msgq_due(q, 4) == 4, "due at 4: %d", st_msgq_due(q, 4));
    st_msgq_pop(q, 2);
    CHECK(st_msgq_at(q, 0).seq == 2, "front after pop");
    /* saved and put back in any order: the same order out */
    st_message saved[5];
    for (int i = 0; i < 5; i++)
        saved[i] = st_msgq_at(q, i);
    uint64_t next = st_msgq_next_seq(q);
    st_msgq_reset(q, next);
    for (int i = 4; i >= 0; i--)
        CHECK(st_msgq_put(q, saved[i]), "put %d", i);
    for (int i = 0; i < 5; i++)
        CHECK(st_msgq_at(q, i).seq == saved[i].seq, "restored %d", i);
    CHECK(!st_msgq_put(q, (st_message){1, next, to}), "a seq not yet handed out is refused");
    CHECK(st_msgq_push(q, 0, to) == next, "numbering carries on");
    st_msgq_destroy(q);
}

static void test_queue_many(void)
{
    st_msgq *q = st_msgq_create();
    st_agent_id to = {1, 1};
    uint32_t x = 12345;
    for (int i = 0; i < 5000; i++) {
        x = x * 1103515245u + 12345u;
        st_msgq_push(q, (x >> 16) % 100, to);
        if (i % 7 == 0)
            st_msgq_pop(q, st_msgq_due(q, (uint64_t)(i / 70)));
    }
    int n = st_msgq_count(q);
    int ordered = 1;
    for (int i = 1; i < n; i++) {
        st_message a = st_msgq_at(q, i - 1), b = st_msgq_at(q, i);
        if (a.tick > b.tick || (a.tick == b.tick && a.seq >= b.seq))
            ordered = 0;
    }
    CHECK(ordered, "the queue stays in delivery order through pushes and pops (%d left)", n);
    st_msgq_destroy(q);
}

static int perceive(st_perception *p, st_world *w, st_agent_id who, const st_senses *s, st_percept *out, int cap)
{
    st_agent_id scratch[64];
    return st_perceive(p, w, who, s, out, cap, scratch, 64);
}

static void test_sight(void)
{
    st_world *w = open_world();
    st_perception *p = st_perception_create();
    st_agent_id guard = spawn_at(w, 100, 500);
    st_agent_id behind = spawn_at(w, 300, 500);
    st_agent_id against = spawn_at(w, 195, 580);
    st_agent_id back = spawn_at(w, 50, 500);
    st_world_add_wall(w, st_v2(200, 400), st_v2(200, 600));
    st_world_raycast_prepare(w);
    CHECK(st_perception_reserve(p, st_world_slot_count(w)), "reserve");
    st_senses s = st_senses_default();
    s.sight_range = 400;
    st_percept out[8];
    int n = perceive(p, w, guard, &s, out, 8);
    CHECK(n == 2, "sees the one against the wall and the one behind it, not the hidden one: %d", n);
    CHECK(n >= 2 && st_id_equal(out[0].agent, back) && st_id_equal(out[1].agent, against), "nearest first");
    s.fov = ST_PI / 2;
    n = perceive(p, w, guard, &s, out, 8);
    CHECK(n == 1 && st_id_equal(out[0].agent, against), "the cone leaves out the one behind: %d", n);
    s.sight_range = 50;
    CHECK(perceive(p, w, guard, &s, out, 8) == 0, "range");
    (void)behind;
    st_perception_destroy(p);
    st_world_destroy(w);
}

static void test_hearing(void)
{
    st_world *w = open_world();
    st_perception *p = st_perception_create();
    st_agent_id ear = spawn_at(w, 0, 0);
    st_agent_id src = spawn_at(w, 500, 500);
    CHECK(st_perception_reserve(p, st_world_slot_count(w)), "reserve");
    st_perception_noise(p, w, st_v2(100, 0), 30, src);
    st_senses s = st_senses_default();
    s.hearing_range = 69;
    st_percept out[4];
    CHECK(perceive(p, w, ear, &s, out, 4) == 0, "out of reach (100 > 30 + 69)");
    st_perception_set_heard(p, ear, 0);
    s.hearing_range = 70;
    int n = perceive(p, w, ear, &s, out, 4);
    CHECK(n == 1 && st_id_equal(out[0].agent, src) && out[0].sense == ST_SENSE_HEARD, "heard: %d", n);
    CHECK(perceive(p, w, ear, &s, out, 4) == 0, "once");
    st_perception_noise(p, w, st_v2(0, 0), 1, st_null_agent());
    for (int i = 0; i < ST_NOISE_TICKS; i++)
        st_world_step(w, 1.0 / 60);
    CHECK(perceive(p, w, ear, &s, out, 4) == 0, "gone after ST_NOISE_TICKS");
    st_memory m[ST_MEMORY_SLOTS];
    CHECK(st_perception_memories(p, w, ear, m, ST_MEMORY_SLOTS) == 1 && m[0].sense == ST_SENSE_HEARD,
          "the source heard is remembered");
    st_perception_destroy(p);
    st_world_destroy(w);
}

static void test_memory(void)
{
    st_world *w = open_world();
    st_perception *p = st_perception_create();
    st_agent_id guard = spawn_at(w, 0, 0);
    st_agent_id t[ST_MEMORY_SLOTS + 2];
    for (int i = 0; i < ST_MEMORY_SLOTS + 2; i++)
        t[i] = spawn_at(w, 10 + i, 10);
    CHECK(st_perception_reserve(p, st_world_slot_count(w)), "reserve");
    st_senses s = st_senses_default();
    s.sight_range = 100;
    s.memory = 1.0;
    st_percept out[32];
    perceive(p, w, guard, &s, out, 32);
    st_memory m[ST_MEMORY_SLOTS];
    CHECK(st_perception_memories(p, w, guard, m, ST_MEMORY_SLOTS) == ST_MEMORY_SLOTS, "keeps ST_MEMORY_SLOTS");
    for (int i = 0; i < 30; i++)
        st_world_step(w, 1.0 / 60);
    CHECK(fabs(st_memory_confidence(&m[0], st_world_time(w)) - 0.5) < 1e-9, "half faded after half the time");
    st_world_remove(w, t[0]);
    st_world_step(w, 1.0 / 60);
    int n = st_perception_memories(p, w, guard, m, ST_MEMORY_SLOTS);
    int has_removed = 0;
    for (int i = 0; i < n; i++)
        has_removed |= st_id_equal(m[i].target, t[0]);
    CHECK(!has_removed, "a removed target is forgotten");
    for (int i = 0; i < 40; i++)
        st_world_step(w, 1.0 / 60);
    CHECK(st_perception_memories(p, w, guard, m, ST_MEMORY_SLOTS) == 0, "all faded");
    st_perception_destroy(p);
    st_world_destroy(w);
}

static void test_inside_a_step(void)
{
    st_world *w = open_world();
    st_perception *p = st_perception_create();
    for (int i = 0; i < 100; i++)
        spawn_at(w, 10.0 * (i % 10), 10.0 * (i / 10));
    st_world_add_wall(w, st_v2(45, 0), st_v2(45, 60));
    st_world_raycast_prepare(w);
    CHECK(st_perception_reserve(p, st_world_slot_count(w)), "reserve");
    int slots = st_perception_slots(p);
    st_senses s = st_senses_default();
    s.sight_range = 60;
    s.hearing_range = 30;
    st_percept out[128];
    st_agent_id scratch[128];
    st_world_step_begin(w, 1.0 / 60);
    for (int k = 0; k < 100; k++) {
        st_agent_id id = st_world_stored(w, k);
        st_perception_noise(p, w, st_agent_pos(w, id), 5, id);
        CHECK(st_perceive(p, w, id, &s, out, 128, scratch, 128) >= 0, "perceive %d", k);
    }
    st_world_step_end(w);
    CHECK(st_perception_slots(p) == slots, "no growth inside the step");
    st_perception_destroy(p);
    st_world_destroy(w);
}

int main(void)
{
    RUN(test_queue_order);
    RUN(test_queue_many);
    RUN(test_sight);
    RUN(test_hearing);
    RUN(test_memory);
    RUN(test_inside_a_step);
    return tu_summary();
}
