/*
 * test_world.c — the world as a container and as a physics step: handles die
 * with their agent, ids are never reused, iteration is in spawn order and
 * survives removals, invalid input is refused, wrap offsets are the shortest,
 * bounce keeps agents inside, and one step integrates exactly as API.md says:
 *   f = truncate(sum, max_force); vel = truncate(vel + f/mass*dt, max_speed);
 *   pos += vel*dt; heading follows vel only while moving.
 */
#include <string.h>

#include "test_util.h"
#include "grid_iter.h" /* white box: storage order (and world_internal.h) */

static void world_defaults(void)
{
    st_world_def d = st_default_world_def();
    CHECK(d.width == 800 && d.height == 600, "default size %g x %g", d.width, d.height);
    CHECK(d.edges == ST_EDGES_WRAP && d.seed == 1 && d.threads == 1, "default edges %d seed %llu threads %d",
          (int)d.edges, (unsigned long long)d.seed, d.threads);
    CHECK(tu_close(d.dt, 1.0 / 60.0, 1e-15) && d.cell_size == 50, "default dt %g cell %g", d.dt, d.cell_size);
    st_world *w = st_world_create(&d);
    if (!CHECK(w != NULL, "st_world_create(defaults) returned NULL"))
        return;
    CHECK(st_world_width(w) == 800 && st_world_height(w) == 600, "size %g x %g", st_world_width(w), st_world_height(w));
    CHECK(st_world_tick(w) == 0 && st_world_time(w) == 0.0, "new world tick %llu time %g",
          (unsigned long long)st_world_tick(w), st_world_time(w));
    CHECK(st_world_count(w, ST_TAG_ANY) == 0, "new world has %d agents", st_world_count(w, ST_TAG_ANY));
    CHECK(st_id_is_null(st_world_next(w, st_null_agent(), ST_TAG_ANY)), "next() in an empty world is not null");

    st_agent_def a = st_default_agent_def();
    CHECK(a.max_speed == 150 && a.max_force == 400 && a.mass == 1 && a.radius == 6,
          "agent defaults speed %g force %g mass %g radius %g", a.max_speed, a.max_force, a.mass, a.radius);
    CHECK(a.tag == ST_TAG_NONE && a.combine == ST_COMBINE_SUM, "agent default tag %d combine %d", a.tag,
          (int)a.combine);

    for (int i = 0; i < 10; i++)
        st_world_step(w, st_world_dt(w));
    CHECK(st_world_tick(w) == 10, "tick after 10 steps = %llu", (unsigned long long)st_world_tick(w));
    CHECK(tu_close(st_world_time(w), 10.0 / 60.0, 1e-12), "time after 10 steps = %.17g", st_world_time(w));
    st_world_step(w, 0.5);
    CHECK(tu_close(st_world_time(w), 10.0 / 60.0 + 0.5, 1e-12), "time after a 0.5 s step = %.17g", st_world_time(w));
    CHECK(tu_close(st_world_dt(w), 1.0 / 60.0, 1e-15), "step(0.5) changed the fixed dt to %g", st_world_dt(w));
    st_world_step_begin(w, 0.25);
    CHECK(st_world_in_step(w) && st_world_step_dt(w) == 0.25, "in_step %d step_dt %g", st_world_in_step(w),
          st_world_step_dt(w));
    st_world_step_end(w);
    CHECK(!st_world_in_step(w) && tu_close(st_world_step_dt(w), 1.0 / 60.0, 1e-15), "after end: in_step %d step_dt %g",
          st_world_in_step(w), st_world_step_dt(w));
    st_world_destroy(w);
}

static void invalid_world_defs_rejected(void)
{
    struct {
        const char *what;
        double width, height, dt, cell;
    } bad[] = {
        {"width 0", 0, 600, 1.0 / 60, 50},
        {"width -1", -1, 600, 1.0 / 60, 50},
        {"height NaN", 800, NAN, 1.0 / 60, 50},
        {"height inf", 800, INFINITY, 1.0 / 60, 50},
        {"dt 0", 800, 600, 0, 50},
        {"dt NaN", 800, 600, NAN, 50},
        {"cell 0", 800, 600, 1.0 / 60, 0},
        {"cell -5", 800, 600, 1.0 / 60, -5},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_world_def d = st_default_world_def();
        d.width = bad[i].width;
        d.height = bad[i].height;
        d.dt = bad[i].dt;
        d.cell_size = bad[i].cell;
        st_world *w = st_world_create(&d);
        CHECK(w == NULL, "world with %s was created", bad[i].what);
        if (w)
            st_world_destroy(w);
    }
}

static void handles_die_with_their_agent(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_id a = tu_spawn(w, st_v2(100, 100), st_v2(10, 0));
    CHECK(!st_id_is_null(a) && st_agent_alive(w, a), "spawn failed");
    CHECK(!st_agent_alive(w, st_null_agent()), "the null id is alive");
    CHECK(st_world_remove(w, a), "remove of a live agent returned false");
    CHECK(!st_agent_alive(w, a), "removed agent still alive");
    CHECK(!st_world_remove(w, a), "second remove returned true");
    CHECK(st_world_count(w, ST_TAG_ANY) == 0, "count after remove = %d", st_world_count(w, ST_TAG_ANY));

    /* Getters of a dead id return zeroes; setters are ignored. */
    st_vec2 p = st_agent_pos(w, a), v = st_agent_vel(w, a);
    CHECK(p.x == 0 && p.y == 0 && v.x == 0 && v.y == 0, "dead agent pos (%g,%g) vel (%g,%g)", p.x, p.y, v.x, v.y);
    CHECK(st_agent_max_speed(w, a) == 0 && st_agent_mass(w, a) == 0, "dead agent speed %g mass %g",
          st_agent_max_speed(w, a), st_agent_mass(w, a));

    /* The slot gets reused; the old handle must stay dead every time. */
    st_agent_id b = tu_spawn(w, st_v2(200, 200), st_v2(0, 0));
    CHECK(st_agent_alive(w, b) && !st_agent_alive(w, a), "after respawn: b alive %d, a alive %d", st_agent_alive(w, b),
          st_agent_alive(w, a));
    CHECK(!st_id_equal(a, b), "new agent got the removed agent's handle {%u,%u}", b.index, b.generation);
    st_agent_set_pos(w, a, st_v2(1, 1));
    st_agent_set_vel(w, a, st_v2(5, 5));
    st_agent_set_tag(w, a, 9);
    p = st_agent_pos(w, b);
    CHECK(p.x == 200 && p.y == 200 && st_agent_tag(w, b) == 0,
          "setting through a dead handle changed another agent: "
          "pos (%g,%g) tag %d",
          p.x, p.y, st_agent_tag(w, b));
    CHECK(!st_world_remove(w, a) && st_agent_alive(w, b), "removing through a dead handle removed another agent");

    st_agent_id old[64];
    int nold = 0;
    old[nold++] = a;
    st_agent_id cur = b;
    for (int i = 0; i < 2000; i++) {
        st_world_remove(w, cur);
        if (nold < 64)
            old[nold++] = cur;
        cur = tu_spawn(w, st_v2(i % 800, 7), st_v2(0, 0));
        if (!CHECK(st_agent_alive(w, cur), "spawn %d failed", i))
            break;
        for (int k = 0; k < nold; k++)
            if (!CHECK(!st_agent_alive(w, old[k]) && !st_id_equal(old[k], cur),
                       "stale handle {%u,%u} came back to life at respawn %d", old[k].index, old[k].generation, i))
                goto out;
    }
out:
    CHECK(st_world_count(w, ST_TAG_ANY) == 1, "count = %d", st_world_count(w, ST_TAG_ANY));
    st_world_destroy(w);
}

static void serials_never_reused(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    uint64_t last = 0;
    st_agent_id live[32];
    int n = 0;
    tu_rng r = {5};
    for (int i = 0; i < 3000; i++) {
        if (n == 32 || (n > 0 && tu_rand(&r) < 0.45)) {
            int k = (int)(tu_rand(&r) * n);
            st_world_remove(w, live[k]);
            live[k] = live[--n];
        } else {
            st_agent_id id = tu_spawn(w, st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600)), st_v2(0, 0));
            uint64_t s = st_agent_serial(w, id);
            if (!CHECK(s > last, "serial %llu after %llu", (unsigned long long)s, (unsigned long long)last))
                break;
            if (last == 0)
                CHECK(s == 1, "first serial is %llu", (unsigned long long)s);
            last = s;
            live[n++] = id;
        }
        /* Every live serial is distinct (they name agents in the Lua API). */
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                if (!CHECK(st_agent_serial(w, live[a]) != st_agent_serial(w, live[b]),
                           "two live agents share a serial"))
                    goto out;
    }
out:
    CHECK(st_world_count(w, ST_TAG_ANY) == n, "count %d, expected %d", st_world_count(w, ST_TAG_ANY), n);
    st_world_destroy(w);
}

/* Collects the iteration order as serials. */
static int iterate(st_world *w, int32_t tag, uint64_t *out, int cap)
{
    int n = 0;
    for (st_agent_id a = st_world_next(w, st_null_agent(), tag); !st_id_is_null(a); a = st_world_next(w, a, tag)) {
        if (n == cap)
            return -1;
        out[n++] = st_agent_serial(w, a);
    }
    return n;
}

static void iteration_in_spawn_order(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_id ids[100];
    for (int i = 0; i < 100; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(i * 7 % 800, i * 13 % 600);
        d.tag = i % 3;
        ids[i] = st_world_spawn(w, &d);
    }
    /* Remove some: swap-removal inside the core must not reorder iteration. */
    for (int i = 0; i < 100; i += 7)
        st_world_remove(w, ids[i]);
    for (int i = 0; i < 5; i++)
        tu_spawn(w, st_v2(1, 1), st_v2(0, 0));
    uint64_t got[200];
    int n = iterate(w, ST_TAG_ANY, got, 200);
    CHECK(n == 100 - 15 + 5, "iterated %d agents, expected %d", n, 100 - 15 + 5);
    CHECK(n == st_world_count(w, ST_TAG_ANY), "iterated %d, count %d", n, st_world_count(w, ST_TAG_ANY));
    for (int i = 1; i < n; i++)
        if (!CHECK(got[i] > got[i - 1], "iteration not in spawn order at %d: serial %llu after %llu", i,
                   (unsigned long long)got[i], (unsigned long long)got[i - 1]))
            break;

    /* Tag filter: only that tag, still in spawn order. */
    int n1 = iterate(w, 1, got, 200);
    int expect1 = 0;
    for (int i = 0; i < 100; i++)
        if (i % 3 == 1 && i % 7 != 0)
            expect1++;
    CHECK(n1 == expect1 && n1 == st_world_count(w, 1), "tag 1: iterated %d, expected %d, count %d", n1, expect1,
          st_world_count(w, 1));
    for (int i = 1; i < n1; i++)
        if (!CHECK(got[i] > got[i - 1], "tag iteration out of order"))
            break;
    for (st_agent_id a = st_world_next(w, st_null_agent(), 1); !st_id_is_null(a); a = st_world_next(w, a, 1))
        if (!CHECK(st_agent_tag(w, a) == 1, "tag filter returned tag %d", st_agent_tag(w, a)))
            break;
    st_world_destroy(w);
}

static void iteration_survives_removal_of_current(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    for (int i = 0; i < 60; i++)
        tu_spawn(w, st_v2(i, i), st_v2(0, 0));
    /* `for a in world:agents() do if cond then world:remove(a) end end`:
     * remove the current agent, then ask for the one after it. */
    int visited = 0, removed = 0;
    uint64_t last = 0;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);) {
        uint64_t s = st_agent_serial(w, a);
        CHECK(s > last, "visited serial %llu after %llu", (unsigned long long)s, (unsigned long long)last);
        last = s;
        if (++visited > 200)
            break;
        st_agent_id cur = a;
        if (s % 2 == 0) {
            st_world_remove(w, cur);
            removed++;
        }
        a = st_world_next(w, cur, ST_TAG_ANY);
    }
    CHECK(visited == 60 && removed == 30,
          "removing every other agent as it is visited: visited %d (expected 60), removed %d (expected 30); "
          "st_world_next(just-removed id) ended the iteration",
          visited, removed);
    st_world_destroy(w);
}

static void iteration_skips_agents_removed_ahead(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_id ids[60];
    for (int i = 0; i < 60; i++)
        ids[i] = tu_spawn(w, st_v2(i, i), st_v2(0, 0));
    int visited = 0, first = 1;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY)) {
        CHECK(st_agent_alive(w, a), "iteration returned a dead agent");
        if (++visited > 200)
            break;
        if (first) {
            first = 0;
            for (int i = 1; i < 60; i += 4) /* 15 agents ahead of the cursor */
                st_world_remove(w, ids[i]);
        }
    }
    CHECK(visited == 45, "visited %d after removing 15 of 60 ahead, expected 45", visited);
    st_world_destroy(w);
}

static void iteration_sees_spawns_at_the_end(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    for (int i = 0; i < 15; i++)
        tu_spawn(w, st_v2(i, i), st_v2(0, 0));
    int spawned = 0, visited = 0;
    uint64_t last = 0;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY)) {
        uint64_t s = st_agent_serial(w, a);
        CHECK(s > last, "serial %llu after %llu while spawning", (unsigned long long)s, (unsigned long long)last);
        last = s;
        if (spawned < 3) {
            tu_spawn(w, st_v2(5, 5), st_v2(0, 0));
            spawned++;
        }
        if (++visited > 200)
            break;
    }
    CHECK(visited == 18, "visited %d with 3 spawned during iteration, expected 18", visited);
    st_world_destroy(w);
}

static void count_by_tag(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    int32_t tags[] = {1, 2, 2, 3, 0, 2};
    st_agent_id ids[6];
    for (int i = 0; i < 6; i++) {
        st_agent_def d = st_default_agent_def();
        d.tag = tags[i];
        ids[i] = st_world_spawn(w, &d);
    }
    CHECK(st_world_count(w, ST_TAG_ANY) == 6, "all %d", st_world_count(w, ST_TAG_ANY));
    CHECK(st_world_count(w, 2) == 3, "tag 2: %d", st_world_count(w, 2));
    CHECK(st_world_count(w, 1) == 1 && st_world_count(w, 3) == 1, "tag 1: %d, tag 3: %d", st_world_count(w, 1),
          st_world_count(w, 3));
    CHECK(st_world_count(w, ST_TAG_NONE) == 1, "untagged: %d", st_world_count(w, ST_TAG_NONE));
    CHECK(st_world_count(w, 7) == 0, "tag 7: %d", st_world_count(w, 7));
    st_world_remove(w, ids[1]);
    st_agent_set_tag(w, ids[0], 2);
    CHECK(st_world_count(w, 2) == 3 && st_world_count(w, 1) == 0, "after remove+retag: tag 2 %d, tag 1 %d",
          st_world_count(w, 2), st_world_count(w, 1));
    CHECK(st_agent_tag(w, ids[0]) == 2, "retag read back %d", st_agent_tag(w, ids[0]));
    CHECK(st_world_count(w, ST_TAG_ANY) == 5, "all after remove %d", st_world_count(w, ST_TAG_ANY));
    st_world_destroy(w);
}

static void invalid_agent_defs_rejected(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    for (int i = 0; i < 12; i++) {
        st_agent_def d = st_default_agent_def();
        const char *what = "?";
        switch (i) {
        case 0:
            d.pos.x = NAN;
            what = "pos.x NaN";
            break;
        case 1:
            d.pos.y = INFINITY;
            what = "pos.y inf";
            break;
        case 2:
            d.vel.x = -INFINITY;
            what = "vel.x -inf";
            break;
        case 3:
            d.mass = 0;
            what = "mass 0";
            break;
        case 4:
            d.mass = -1;
            what = "mass -1";
            break;
        case 5:
            d.mass = NAN;
            what = "mass NaN";
            break;
        case 6:
            d.max_speed = -1;
            what = "max_speed -1";
            break;
        case 7:
            d.max_force = -0.5;
            what = "max_force -0.5";
            break;
        case 8:
            d.radius = -2;
            what = "radius -2";
            break;
        case 9:
            d.max_speed = NAN;
            what = "max_speed NaN";
            break;
        case 10:
            d.heading = st_v2(NAN, 1);
            d.has_heading = true;
            what = "heading NaN";
            break;
        case 11:
            d.max_force = INFINITY;
            what = "max_force inf";
            break;
        }
        st_agent_id id = st_world_spawn(w, &d);
        CHECK(st_id_is_null(id), "spawn with %s returned {%u,%u}", what, id.index, id.generation);
    }
    CHECK(st_world_count(w, ST_TAG_ANY) == 0, "rejected spawns left %d agents", st_world_count(w, ST_TAG_ANY));
    /* Zero is a meaningful max_speed / max_force / radius. */
    st_agent_def z = st_default_agent_def();
    z.max_speed = 0;
    z.max_force = 0;
    z.radius = 0;
    CHECK(!st_id_is_null(st_world_spawn(w, &z)), "spawn with zero speed, force and radius refused");
    st_world_destroy(w);
}

static void spawn_state(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(100, 200);
    d.vel = st_v2(300, 400); /* 500 long, max_speed 150 */
    st_agent_id a = st_world_spawn(w, &d);
    st_vec2 v = st_agent_vel(w, a);
    CHECK(tu_v2_close(v, st_v2(90, 120), 1e-12), "spawn vel truncated to (%g, %g), expected (90, 120)", v.x, v.y);
    st_vec2 h = st_agent_heading(w, a);
    CHECK(tu_v2_close(h, st_v2(0.6, 0.8), 1e-12), "heading from vel (%g, %g)", h.x, h.y);
    st_vec2 s = st_agent_side(w, a);
    CHECK(tu_v2_close(s, st_v2(-0.8, 0.6), 1e-12), "side (%g, %g), expected (-0.8, 0.6)", s.x, s.y);
    CHECK(tu_close(st_agent_speed(w, a), 150, 1e-12), "speed %g", st_agent_speed(w, a));

    d.vel = st_v2(0, 0);
    st_agent_id b = st_world_spawn(w, &d);
    h = st_agent_heading(w, b);
    CHECK(h.x == 1 && h.y == 0, "heading of a still agent (%g, %g), expected (1, 0)", h.x, h.y);

    d.vel = st_v2(5, 0);
    d.heading = st_v2(0, -3);
    d.has_heading = true;
    st_agent_id c = st_world_spawn(w, &d);
    h = st_agent_heading(w, c);
    CHECK(tu_v2_close(h, st_v2(0, -1), 1e-15), "given heading (0,-3) read back (%g, %g)", h.x, h.y);

    uint8_t rgb[3] = {1, 2, 3}, got[3];
    st_agent_set_color(w, c, rgb);
    st_agent_color(w, c, got);
    CHECK(memcmp(rgb, got, 3) == 0, "color read back %d %d %d", got[0], got[1], got[2]);
    st_agent_color(w, a, got);
    CHECK(got[0] == 200 && got[1] == 200 && got[2] == 200, "default color %d %d %d", got[0], got[1], got[2]);
    CHECK(st_agent_wander_distance(w, a) == ST_WANDER_DISTANCE && st_agent_wander_radius(w, a) == ST_WANDER_RADIUS &&
              st_agent_wander_jitter(w, a) == ST_WANDER_JITTER,
          "wander defaults %g %g %g", st_agent_wander_distance(w, a), st_agent_wander_radius(w, a),
          st_agent_wander_jitter(w, a));
    st_world_destroy(w);
}

static void wrap_offsets_are_shortest(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_vec2 o = st_world_offset(w, st_v2(10, 10), st_v2(790, 590));
    CHECK(tu_v2_close(o, st_v2(-20, -20), 1e-12), "offset (10,10)->(790,590) = (%g, %g), expected (-20,-20)", o.x, o.y);
    o = st_world_offset(w, st_v2(790, 300), st_v2(5, 300));
    CHECK(tu_v2_close(o, st_v2(15, 0), 1e-12), "offset (790,300)->(5,300) = (%g, %g)", o.x, o.y);
    CHECK(tu_close(st_world_distance(w, st_v2(0, 5), st_v2(0, 595)), 10, 1e-12), "distance across y edge %g",
          st_world_distance(w, st_v2(0, 5), st_v2(0, 595)));

    tu_rng r = {11};
    for (int i = 0; i < 5000; i++) {
        st_vec2 a = st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600));
        st_vec2 b = st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600));
        st_vec2 off = st_world_offset(w, a, b);
        /* the shortest image of b, computed independently */
        double best = INFINITY;
        for (int kx = -1; kx <= 1; kx++)
            for (int ky = -1; ky <= 1; ky++) {
                double d = st_v2_dist(a, st_v2(b.x + kx * 800, b.y + ky * 600));
                if (d < best)
                    best = d;
            }
        if (!CHECK(fabs(st_v2_len(off) - best) < 1e-9 && fabs(st_world_distance(w, a, b) - best) < 1e-9,
                   "offset (%g,%g)->(%g,%g) = (%g,%g) len %g, shortest %g", a.x, a.y, b.x, b.y, off.x, off.y,
                   st_v2_len(off), best))
            break;
        /* a + offset lands on b modulo the world */
        double ex = remainder(a.x + off.x - b.x, 800), ey = remainder(a.y + off.y - b.y, 600);
        if (!CHECK(fabs(ex) < 1e-9 && fabs(ey) < 1e-9, "a + offset misses b by (%g, %g)", ex, ey))
            break;
    }
    st_world_destroy(w);

    /* No wrapping in bounce and none worlds. */
    st_edges kinds[2] = {ST_EDGES_BOUNCE, ST_EDGES_NONE};
    for (int k = 0; k < 2; k++) {
        st_world *u = tu_world(800, 600, kinds[k], 1);
        st_vec2 p = st_world_offset(u, st_v2(10, 10), st_v2(790, 590));
        CHECK(tu_v2_close(p, st_v2(780, 580), 1e-12), "edges %d: offset (%g, %g), expected (780, 580)", (int)kinds[k],
              p.x, p.y);
        st_world_destroy(u);
    }
}

static void wrap_moves_across_edges(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_id a = tu_spawn(w, st_v2(795, 300), st_v2(150, 0));
    st_agent_id b = tu_spawn(w, st_v2(400, 2), st_v2(0, -150));
    for (int i = 0; i < 6; i++)
        st_world_step(w, 1.0 / 60);
    st_vec2 pa = st_agent_pos(w, a), pb = st_agent_pos(w, b);
    CHECK(tu_close(pa.x, 795 + 15 - 800, 1e-9) && tu_close(pa.y, 300, 1e-12),
          "wrapped across x: (%g, %g), expected (10, 300)", pa.x, pa.y);
    CHECK(tu_close(pb.y, 2 - 15 + 600, 1e-9), "wrapped across y: (%g, %g), expected (400, 587)", pb.x, pb.y);
    tu_rng r = {3};
    for (int i = 0; i < 100; i++)
        tu_spawn(w, st_v2(tu_uniform(&r, 0, 800), tu_uniform(&r, 0, 600)),
                 st_v2_from_angle(tu_uniform(&r, -TU_PI, TU_PI), 150));
    for (int s = 0; s < 600; s++) {
        st_world_step(w, 1.0 / 60);
        int bad = 0;
        for (st_agent_id x = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(x);
             x = st_world_next(w, x, ST_TAG_ANY)) {
            st_vec2 p = st_agent_pos(w, x);
            if (!(p.x >= 0 && p.x <= 800 && p.y >= 0 && p.y <= 600)) {
                CHECK(0, "wrap world: agent at (%g, %g) after step %d", p.x, p.y, s);
                bad = 1;
                break;
            }
        }
        if (bad)
            break;
    }
    st_world_destroy(w);
}

static void bounce_keeps_agents_inside(void)
{
    st_world *w = tu_world(400, 300, ST_EDGES_BOUNCE, 1);
    st_agent_id a = tu_spawn(w, st_v2(399, 150), st_v2(140, 30)); /* under max_speed */
    st_world_step(w, 1.0 / 60);
    st_vec2 v = st_agent_vel(w, a), p = st_agent_pos(w, a);
    CHECK(v.x < 0 && tu_close(v.y, 30, 1e-12), "after hitting the right wall vel (%g, %g), expected (-140, 30)", v.x,
          v.y);
    CHECK(p.x <= 400 && p.x >= 0, "after hitting the right wall x = %g", p.x);

    tu_rng r = {17};
    for (int i = 0; i < 200; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(tu_uniform(&r, 0, 400), tu_uniform(&r, 0, 300));
        d.vel = st_v2_from_angle(tu_uniform(&r, -TU_PI, TU_PI), tu_uniform(&r, 0, 150));
        d.max_speed = 150;
        st_world_spawn(w, &d);
    }
    /* a fast one with a long step too */
    st_agent_def f = st_default_agent_def();
    f.pos = st_v2(200, 150);
    f.vel = st_v2(5000, -3000);
    f.max_speed = 6000;
    st_world_spawn(w, &f);
    for (int s = 0; s < 600; s++) {
        /* push everyone outwards too, at full force */
        st_world_step_begin(w, s % 100 == 99 ? 0.2 : 1.0 / 60);
        for (st_agent_id x = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(x);
             x = st_world_next(w, x, ST_TAG_ANY))
            st_agent_apply(w, x, st_v2_scale(st_v2_normalize(st_v2_sub(st_agent_pos(w, x), st_v2(200, 150))), 1000), 1);
        st_world_step_end(w);
        int bad = 0;
        for (st_agent_id x = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(x);
             x = st_world_next(w, x, ST_TAG_ANY)) {
            st_vec2 q = st_agent_pos(w, x);
            if (!(q.x >= 0 && q.x <= 400 && q.y >= 0 && q.y <= 300)) {
                CHECK(0, "bounce world: agent at (%g, %g) after step %d", q.x, q.y, s);
                bad = 1;
                break;
            }
        }
        if (bad)
            break;
    }
    st_world_destroy(w);
}

static void none_world_is_unbounded(void)
{
    st_world *w = tu_world(400, 300, ST_EDGES_NONE, 1);
    st_agent_id a = tu_spawn(w, st_v2(390, 150), st_v2(150, 0));
    for (int i = 0; i < 60; i++)
        st_world_step(w, 1.0 / 60);
    st_vec2 p = st_agent_pos(w, a);
    CHECK(tu_close(p.x, 540, 1e-9) && tu_close(p.y, 150, 1e-12), "none world: (%g, %g), expected (540, 150)", p.x, p.y);
    st_world_destroy(w);
}

/* The reference step of API.md, computed here independently. */
static void reference_step(st_vec2 *pos, st_vec2 *vel, st_vec2 sum, double max_force, double mass, double max_speed,
                           double dt, st_vec2 *f_out)
{
    st_vec2 f = st_v2_truncate(sum, max_force);
    *vel = st_v2_truncate(st_v2_add(*vel, st_v2_scale(f, dt / mass)), max_speed);
    *pos = st_v2_add(*pos, st_v2_scale(*vel, dt));
    *f_out = f;
}

static void integration_as_documented(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_NONE, 1);
    tu_rng r = {23};
    enum { N = 40 };
    st_agent_id ids[N];
    st_vec2 pos[N], vel[N];
    double mf[N], ms[N], mass[N];
    for (int i = 0; i < N; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = pos[i] = st_v2(tu_uniform(&r, -100, 900), tu_uniform(&r, -100, 700));
        mf[i] = d.max_force = i == 0 ? 0.0 : tu_uniform(&r, 0, 800);
        ms[i] = d.max_speed = i == 1 ? 0.0 : tu_uniform(&r, 0, 300);
        mass[i] = d.mass = tu_uniform(&r, 0.2, 5);
        d.vel = vel[i] = st_v2_truncate(st_v2(tu_uniform(&r, -300, 300), tu_uniform(&r, -300, 300)), ms[i]);
        ids[i] = st_world_spawn(w, &d);
    }
    double worst = 0;
    for (int s = 0; s < 200; s++) {
        double dt = s % 3 == 0 ? 1.0 / 60 : tu_uniform(&r, 0.001, 0.1);
        st_vec2 sum[N];
        st_world_step_begin(w, dt);
        for (int i = 0; i < N; i++) {
            /* two applies: the accumulator adds them, weights multiply */
            st_vec2 f1 = st_v2(tu_uniform(&r, -600, 600), tu_uniform(&r, -600, 600));
            st_vec2 f2 = st_v2(tu_uniform(&r, -600, 600), tu_uniform(&r, -600, 600));
            double wgt = tu_uniform(&r, 0, 2);
            if (s % 5 == 4)
                f1 = f2 = st_v2(0, 0); /* no force: coasting */
            st_agent_apply(w, ids[i], f1, 1.0);
            st_agent_apply(w, ids[i], f2, wgt);
            sum[i] = st_v2_add(f1, st_v2_scale(f2, wgt));
            st_vec2 acc = st_agent_accum(w, ids[i]);
            if (s < 3)
                CHECK(tu_v2_close(acc, sum[i], 1e-12), "accumulator (%g,%g), expected (%g,%g)", acc.x, acc.y, sum[i].x,
                      sum[i].y);
        }
        st_world_step_end(w);
        for (int i = 0; i < N; i++) {
            st_vec2 f;
            reference_step(&pos[i], &vel[i], sum[i], mf[i], mass[i], ms[i], dt, &f);
            st_vec2 p = st_agent_pos(w, ids[i]), v = st_agent_vel(w, ids[i]), af = st_agent_force(w, ids[i]);
            double e = fmax(st_v2_dist(p, pos[i]), fmax(st_v2_dist(v, vel[i]), st_v2_dist(af, f)));
            if (e > worst)
                worst = e;
            if (!CHECK(tu_v2_close(p, pos[i], 1e-9) && tu_v2_close(v, vel[i], 1e-9) && tu_v2_close(af, f, 1e-9),
                       "agent %d step %d: pos (%.12g,%.12g) vel (%.12g,%.12g) force (%.12g,%.12g); expected pos "
                       "(%.12g,%.12g) vel (%.12g,%.12g) force (%.12g,%.12g)",
                       i, s, p.x, p.y, v.x, v.y, af.x, af.y, pos[i].x, pos[i].y, vel[i].x, vel[i].y, f.x, f.y))
                goto out;
            /* resync so one rounding difference cannot snowball */
            pos[i] = p;
            vel[i] = v;
        }
        /* the accumulator is cleared by the step */
        for (int i = 0; i < N; i++) {
            st_vec2 acc = st_agent_accum(w, ids[i]);
            if (!CHECK(acc.x == 0 && acc.y == 0, "accumulator not cleared after the step: (%g, %g)", acc.x, acc.y))
                goto out;
        }
    }
out:
    CHECK(worst < 1e-6, "worst deviation from the documented integration %g", worst);
    st_world_destroy(w);
}

static void force_is_truncated_sum(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_NONE, 1);
    st_agent_id a = tu_spawn(w, st_v2(0, 0), st_v2(0, 0));
    st_world_step_begin(w, 1.0 / 60);
    st_agent_apply(w, a, st_v2(300, 0), 1);
    st_agent_apply(w, a, st_v2(0, 400), 1);
    st_world_step_end(w);
    st_vec2 f = st_agent_force(w, a);
    CHECK(tu_v2_close(f, st_v2(240, 320), 1e-12), "force (%g, %g), expected (300,400) truncated to 400 = (240, 320)",
          f.x, f.y);
    st_vec2 v = st_agent_vel(w, a);
    CHECK(tu_v2_close(v, st_v2(4, 320.0 / 60), 1e-12), "vel (%g, %g), expected (4, 5.333)", v.x, v.y);
    st_world_step(w, 1.0 / 60);
    f = st_agent_force(w, a);
    CHECK(f.x == 0 && f.y == 0, "force of a step with no behaviour (%g, %g)", f.x, f.y);
    st_world_destroy(w);
}

static void heading_follows_vel_only_while_moving(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_NONE, 1);
    st_agent_def d = st_default_agent_def();
    d.vel = st_v2(0, 60);
    d.max_force = 5000;
    st_agent_id a = st_world_spawn(w, &d);
    st_vec2 h = st_agent_heading(w, a);
    CHECK(tu_v2_close(h, st_v2(0, 1), 1e-15), "initial heading (%g, %g)", h.x, h.y);

    /* turn it: heading = direction of vel after every step */
    for (int i = 0; i < 30; i++) {
        st_world_step_begin(w, 1.0 / 60);
        st_agent_apply(w, a, st_v2_scale(st_v2_perp(st_agent_vel(w, a)), 2.0), 1);
        st_world_step_end(w);
        st_vec2 v = st_agent_vel(w, a);
        h = st_agent_heading(w, a);
        if (!CHECK(tu_v2_close(h, st_v2_normalize(v), 1e-12) && tu_close(st_v2_len(h), 1, 1e-12),
                   "heading (%g, %g) does not follow vel (%g, %g)", h.x, h.y, v.x, v.y))
            break;
        st_vec2 side = st_agent_side(w, a);
        if (!CHECK(tu_v2_close(side, st_v2_perp(h), 1e-12), "side (%g,%g) is not heading turned +90", side.x, side.y))
            break;
    }
    /* stop it exactly: the heading keeps its last direction */
    st_vec2 before = st_agent_heading(w, a);
    st_vec2 v = st_agent_vel(w, a);
    /* dt = 1/64 and mass 1 make vel + f/mass*dt exactly zero */
    st_world_step_begin(w, 1.0 / 64);
    st_agent_apply(w, a, st_v2_scale(v, -64.0), 1);
    st_world_step_end(w);
    v = st_agent_vel(w, a);
    h = st_agent_heading(w, a);
    CHECK(st_v2_len(v) < 1e-9, "agent did not stop: vel (%g, %g)", v.x, v.y);
    CHECK(tu_v2_close(h, before, 1e-9) && tu_close(st_v2_len(h), 1, 1e-12),
          "heading changed to (%g, %g) when the agent stopped; was (%g, %g)", h.x, h.y, before.x, before.y);
    for (int i = 0; i < 10; i++)
        st_world_step(w, 1.0 / 60);
    h = st_agent_heading(w, a);
    CHECK(tu_v2_close(h, before, 1e-9), "heading drifted to (%g, %g) while standing", h.x, h.y);

    /* set_vel: zero keeps the heading, non-zero sets it */
    st_agent_set_vel(w, a, st_v2(0, 0));
    h = st_agent_heading(w, a);
    CHECK(tu_v2_close(h, before, 1e-9), "set_vel(0) changed heading to (%g, %g)", h.x, h.y);
    st_agent_set_vel(w, a, st_v2(-5, 0));
    h = st_agent_heading(w, a);
    CHECK(tu_v2_close(h, st_v2(-1, 0), 1e-12), "set_vel(-5, 0) heading (%g, %g)", h.x, h.y);
    st_agent_set_vel(w, a, st_v2(1000, 0));
    v = st_agent_vel(w, a);
    CHECK(tu_close(v.x, 150, 1e-12), "set_vel not truncated to max_speed: %g", v.x);

    /* a given heading survives standing still */
    st_agent_def g = st_default_agent_def();
    g.heading = st_v2(0, -1);
    g.has_heading = true;
    st_agent_id b = st_world_spawn(w, &g);
    for (int i = 0; i < 5; i++)
        st_world_step(w, 1.0 / 60);
    h = st_agent_heading(w, b);
    CHECK(tu_v2_close(h, st_v2(0, -1), 1e-12), "standing agent's given heading became (%g, %g)", h.x, h.y);

    /* zero max_speed: never moves, heading stays */
    st_agent_def z = st_default_agent_def();
    z.max_speed = 0;
    z.pos = st_v2(50, 50);
    st_agent_id c = st_world_spawn(w, &z);
    for (int i = 0; i < 5; i++) {
        st_world_step_begin(w, 1.0 / 60);
        st_agent_apply(w, c, st_v2(0, 400), 1);
        st_world_step_end(w);
    }
    st_vec2 pc = st_agent_pos(w, c);
    h = st_agent_heading(w, c);
    CHECK(pc.x == 50 && pc.y == 50 && h.x == 1 && h.y == 0, "max_speed 0 agent at (%g,%g) heading (%g,%g)", pc.x, pc.y,
          h.x, h.y);
    st_world_destroy(w);
}

static void spawn_and_remove_inside_a_step(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_NONE, 1);
    st_agent_id a = tu_spawn(w, st_v2(100, 100), st_v2(60, 0));
    st_world_step_begin(w, 1.0 / 60);
    st_agent_id b = tu_spawn(w, st_v2(200, 200), st_v2(60, 0));
    CHECK(!st_id_is_null(b), "spawn inside a step returned null");
    CHECK(st_world_remove(w, a), "remove inside a step returned false");
    CHECK(!st_agent_alive(w, a), "agent removed inside a step is still alive (removal is 'at once')");
    st_world_step_end(w);
    CHECK(st_agent_alive(w, b), "agent spawned inside a step is not alive after it");
    st_vec2 p = st_agent_pos(w, b);
    CHECK(p.x == 200 && p.y == 200, "agent spawned inside a step moved in that step: (%g, %g)", p.x, p.y);
    st_world_step(w, 1.0 / 60);
    p = st_agent_pos(w, b);
    CHECK(tu_close(p.x, 201, 1e-12), "agent spawned inside a step did not move in the next: (%g, %g)", p.x, p.y);
    CHECK(st_world_count(w, ST_TAG_ANY) == 1, "count %d", st_world_count(w, ST_TAG_ANY));
    st_world_destroy(w);
}

/* A big world re-sorts its storage into grid order now and then (every
 * agent's memory then sits near its neighbours'). Nothing a user sees may
 * change: iteration stays in spawn order through removals, spawns,
 * compaction and later re-sorts; handles stay valid; queries still break
 * ties by spawn order; the same seed steps to the same checksum with 1 and
 * 2 threads. */
static uint64_t checked_spawn_order(st_world *w, int expect_n, const char *ctx)
{
    int n = 0;
    uint64_t last = 0, sum = 0;
    int ok = 1;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY)) {
        uint64_t s = st_agent_serial(w, a);
        if (ok && !CHECK(s > last, "%s: serial %llu after %llu", ctx, (unsigned long long)s, (unsigned long long)last))
            ok = 0;
        last = s;
        sum += s;
        n++;
    }
    CHECK(n == expect_n, "%s: iterated %d agents, %d alive", ctx, n, expect_n);
    return sum;
}

static st_world *big_world(int n, int threads, uint64_t seed)
{
    st_world_def d = st_default_world_def();
    d.width = d.height = 6000;
    d.seed = seed;
    d.threads = threads;
    st_world *w = st_world_create(&d);
    st_behavior fl = st_default_behavior(ST_FLOCK);
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * 6000, st_world_random(w) * 6000);
        a.vel = st_v2_from_angle(st_world_random(w) * 2 * TU_PI, 80);
        a.tag = i % 50 == 0 ? 1 : 0;
        st_agent_id id = st_world_spawn(w, &a);
        if (i % 3 == 0) st_agent_set_behaviors(w, id, &fl, 1);
    }
    return w;
}

static void big_world_storage_reorder(void)
{
    const int n = 90000; /* above the size at which storage is re-sorted, also after the removals */
    st_world *w = big_world(n, 1, 5);
    st_agent_id first = st_world_next(w, st_null_agent(), ST_TAG_ANY);
    st_agent_id some = first;
    for (int i = 0; i < 12345; i++) some = st_world_next(w, some, ST_TAG_ANY);
    st_vec2 some_pos = st_agent_pos(w, some);
    uint64_t all = checked_spawn_order(w, n, "before any step");

    st_world_step(w, 1.0 / 60); /* tick 0: the first re-sort */
    CHECK(w->reordered, "a world of %d agents was not re-sorted", n);
    int in_cell_order = 1;
    for (int k = 1; k < w->count && in_cell_order; k++) {
        in_cell_order = st__cell_of(w, &w->grid, w->grid.items[k - 1].pos) <= st__cell_of(w, &w->grid, w->grid.items[k].pos) &&
                        w->grid.items[k].index == (uint32_t)k;
    }
    CHECK(in_cell_order, "storage is not in the grid's order after the re-sort");
    CHECK(st_agent_alive(w, first) && st_agent_alive(w, some), "handles died in the re-sort");
    CHECK(st_v2_dist(st_agent_pos(w, some), some_pos) < 5.0, "a handle points at another agent after the re-sort");
    CHECK(checked_spawn_order(w, n, "after the re-sort") == all, "iteration lost or doubled agents");
    /* storage order (for drawing) visits the same agents, each once */
    uint64_t stored_sum = 0;
    int stored_n = 0;
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (st_id_is_null(id)) continue;
        stored_sum += st_agent_serial(w, id);
        stored_n++;
    }
    CHECK(stored_n == n && stored_sum == all, "storage order visited %d agents, not the %d live ones", stored_n, n);
    CHECK(st_id_is_null(st_world_stored(w, -1)) && st_id_is_null(st_world_stored(w, st_world_stored_count(w))),
          "out-of-range storage entries are not the null id");

    /* remove every 7th while iterating, and the current one now and then */
    int removed = 0, i = 0;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a); i++) {
        st_agent_id nx = st_world_next(w, a, ST_TAG_ANY);
        if (i % 7 == 0) {
            st_world_remove(w, a);
            removed++;
            nx = st_world_next(w, a, ST_TAG_ANY); /* from the removed one */
        }
        a = nx;
    }
    checked_spawn_order(w, n - removed, "after removals while iterating");
    /* spawns go to the end of spawn order, wherever they are stored */
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(10, 10);
    st_agent_id late = st_world_spawn(w, &d);
    st_agent_id last = st_null_agent();
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY))
        last = a;
    CHECK(st_id_equal(last, late), "a spawn after the re-sort is not last in iteration");
    /* compaction with the index in use, then the next re-sorts */
    for (int s = 0; s < 70; s++)
        st_world_step(w, 1.0 / 60);
    checked_spawn_order(w, n - removed + 1, "after compaction and two more re-sorts");

    /* ties at equal distance go to the one spawned first */
    st_agent_def t = st_default_agent_def();
    t.tag = 7;
    t.pos = st_v2(3000, 3100);
    st_agent_id t1 = st_world_spawn(w, &t);
    t.pos = st_v2(3000, 2900);
    st_agent_id t2 = st_world_spawn(w, &t);
    for (int s = 0; s < 40; s++)
        st_world_step(w, 1.0 / 60); /* one more re-sort moves them around */
    st_agent_set_pos(w, t1, st_v2(3000, 3100));
    st_agent_set_pos(w, t2, st_v2(3000, 2900));
    st_query q = st_default_query(st_v2(3000, 3000), 150);
    q.tag = 7;
    st_agent_id out[2];
    int got = st_world_query(w, &q, out, NULL, 2);
    CHECK(got == 2 && st_id_equal(out[0], t1) && st_id_equal(out[1], t2), "equal distances not in spawn order");
    CHECK(st_id_equal(st_world_nearest(w, &q, NULL), t1), "nearest of two at equal distance is not the first spawned");
    st_world_destroy(w);

    /* a host that visits agents in spawn order (brains) can keep that order */
    st_world *kept = big_world(n, 1, 11);
    st_world_set_resort(kept, false);
    for (int s = 0; s < 3; s++)
        st_world_step(kept, 1.0 / 60);
    CHECK(!kept->reordered, "st_world_set_resort(false) did not keep spawn order");
    st_world_destroy(kept);

    /* the same seed with 1 and 2 threads: same bits, re-sorts included */
    st_world *a = big_world(n, 1, 9), *b = big_world(n, 2, 9);
    for (int s = 0; s < 40; s++) {
        st_world_step(a, 1.0 / 60);
        st_world_step(b, 1.0 / 60);
    }
    CHECK(st_world_checksum(a) == st_world_checksum(b), "1 and 2 threads differ after re-sorts: %016llx %016llx",
          (unsigned long long)st_world_checksum(a), (unsigned long long)st_world_checksum(b));
    st_world_destroy(a);
    st_world_destroy(b);
}

int main(void)
{
    RUN(world_defaults);
    RUN(invalid_world_defs_rejected);
    RUN(handles_die_with_their_agent);
    RUN(serials_never_reused);
    RUN(iteration_in_spawn_order);
    RUN(iteration_survives_removal_of_current);
    RUN(iteration_skips_agents_removed_ahead);
    RUN(iteration_sees_spawns_at_the_end);
    RUN(count_by_tag);
    RUN(invalid_agent_defs_rejected);
    RUN(spawn_state);
    RUN(wrap_offsets_are_shortest);
    RUN(wrap_moves_across_edges);
    RUN(bounce_keeps_agents_inside);
    RUN(none_world_is_unbounded);
    RUN(integration_as_documented);
    RUN(force_is_truncated_sum);
    RUN(heading_follows_vel_only_while_moving);
    RUN(spawn_and_remove_inside_a_step);
    RUN(big_world_storage_reorder);
    return tu_summary();
}
