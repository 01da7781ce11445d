/*
 * test_query.c — neighbour queries return exactly what an all-pairs scan
 * returns: for wrap, bounce and none worlds, radii smaller and larger than the
 * grid cell (and than the world), tag filters, view cones and exclusion;
 * nearest first; agents outside the rectangle of a "none" world included.
 * The scan is computed here, independently of the core's own offset function.
 */
#include <string.h>

#include "test_util.h"
#include "world_internal.h" /* white box: which grid answered */

enum { MAXA = 4096, SLOTS = 1 << 16 };

typedef struct expect {
    st_agent_id id;
    uint64_t serial;
    double d;
    int state; /* 1 in, 0 out, 2 too close to the boundary to call */
} expect;

static st_vec2 my_offset(st_edges e, double W, double H, st_vec2 from, st_vec2 to)
{
    double dx = to.x - from.x, dy = to.y - from.y;
    if (e == ST_EDGES_WRAP) {
        dx = remainder(dx, W);
        dy = remainder(dy, H);
    }
    return st_v2(dx, dy);
}

/* Classifies every live agent against q by brute force. */
static int scan(const st_world *w, const st_query *q, expect *ex)
{
    st_edges e = st_world_edges(w);
    double W = st_world_width(w), H = st_world_height(w);
    int n = 0;
    int cone = q->fov > 0 && q->fov < 2 * TU_PI;
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(w, a, ST_TAG_ANY)) {
        expect x;
        x.id = a;
        x.serial = st_agent_serial(w, a);
        st_vec2 off = my_offset(e, W, H, q->center, st_agent_pos(w, a));
        x.d = st_v2_len(off);
        double eps = 1e-9 * (1 + q->radius + x.d);
        if (st_id_equal(a, q->exclude) || (q->tag != ST_TAG_ANY && st_agent_tag(w, a) != q->tag))
            x.state = 0;
        else if (x.d > q->radius + eps)
            x.state = 0;
        else if (x.d >= q->radius - eps)
            x.state = 2;
        else if (!cone)
            x.state = 1;
        else if (x.d < 1e-9)
            x.state = 2; /* on the apex of the cone: either answer is fine */
        else {
            double c = st_v2_dot(off, q->heading) / x.d;
            double ang = acos(c > 1 ? 1 : c < -1 ? -1 : c);
            if (ang < q->fov / 2 - 1e-7)
                x.state = 1;
            else if (ang > q->fov / 2 + 1e-7)
                x.state = 0;
            else
                x.state = 2;
        }
        ex[n++] = x;
    }
    return n;
}

static const char *edge_name(st_edges e)
{
    return e == ST_EDGES_WRAP ? "wrap" : e == ST_EDGES_BOUNCE ? "bounce" : "none";
}

/* Runs q and compares with the scan. Returns 0 (and reports) on the first difference. */
static int compare(const st_world *w, const st_query *q, const char *ctx)
{
    static expect ex[MAXA];
    static st_agent_id out[MAXA];
    static double dist[MAXA];
    int n = scan(w, q, ex);
    int got = st_world_query(w, q, out, dist, MAXA);
    const char *en = edge_name(st_world_edges(w));
    if (!CHECK(got >= 0 && got <= n, "%s/%s: query returned %d of %d agents", ctx, en, got, n))
        return 0;
    int sure = 0, maybe = 0;
    for (int i = 0; i < n; i++) {
        sure += ex[i].state == 1;
        maybe += ex[i].state != 0;
    }
    /* keep going after a wrong count: the per-agent checks below say which */
    CHECK(got >= sure && got <= maybe,
          "%s/%s: query (%g,%g) r=%g tag=%d fov=%g found %d, brute force %d (%d on the boundary)", ctx, en, q->center.x,
          q->center.y, q->radius, q->tag, q->fov, got, sure, maybe - sure);
    static int slot[SLOTS];
    static int slot_init;
    if (!slot_init) {
        for (int i = 0; i < SLOTS; i++)
            slot[i] = -1;
        slot_init = 1;
    }
    for (int i = 0; i < n; i++)
        if (ex[i].id.index < SLOTS)
            slot[ex[i].id.index] = i;
    int ok = 1;
    for (int k = 0; k < got && ok; k++) {
        int j = -1;
        if (out[k].index < SLOTS) {
            int i = slot[out[k].index];
            if (i >= 0 && st_id_equal(ex[i].id, out[k]))
                j = i;
        } else {
            for (int i = 0; i < n; i++)
                if (st_id_equal(ex[i].id, out[k]))
                    j = i;
        }
        if (!CHECK(j >= 0, "%s/%s: result %d is not a live agent", ctx, en, k)) {
            ok = 0;
            break;
        }
        st_vec2 p = st_agent_pos(w, out[k]);
        ok &= CHECK(ex[j].state != 0,
                    "%s/%s: query (%g,%g) r=%g tag=%d fov=%g returned agent at (%g,%g) tag %d, "
                    "distance %g: should not be there",
                    ctx, en, q->center.x, q->center.y, q->radius, q->tag, q->fov, p.x, p.y, st_agent_tag(w, out[k]),
                    ex[j].d);
        ok &= CHECK(fabs(dist[k] - ex[j].d) <= 1e-9 * (1 + ex[j].d), "%s/%s: distance %.17g, expected %.17g", ctx, en,
                    dist[k], ex[j].d);
        ok &= CHECK(ex[j].state >= 0, "%s/%s: agent returned twice (second time at %d)", ctx, en, k);
        ex[j].state = -1; /* seen */
        if (k > 0) {
            ok &= CHECK(dist[k] >= dist[k - 1], "%s/%s: not nearest first: %g after %g", ctx, en, dist[k], dist[k - 1]);
            if (dist[k] == dist[k - 1])
                ok &= CHECK(st_agent_serial(w, out[k]) > st_agent_serial(w, out[k - 1]),
                            "%s/%s: tie not broken by spawn order", ctx, en);
        }
    }
    for (int i = 0; i < n && ok; i++)
        if (ex[i].state == 1) {
            st_vec2 p = st_agent_pos(w, ex[i].id);
            ok &= CHECK(0, "%s/%s: query (%g,%g) r=%g tag=%d fov=%g missed agent at (%g,%g) tag %d, distance %g", ctx,
                        en, q->center.x, q->center.y, q->radius, q->tag, q->fov, p.x, p.y, st_agent_tag(w, ex[i].id),
                        ex[i].d);
        }

    for (int i = 0; i < n; i++)
        if (ex[i].id.index < SLOTS)
            slot[ex[i].id.index] = -1;

    /* the nearest is the first of the query */
    double nd = -1;
    st_agent_id near = st_world_nearest(w, q, &nd);
    if (got == 0)
        ok &= CHECK(st_id_is_null(near), "%s/%s: nearest found an agent where the query found none", ctx, en);
    else
        ok &= CHECK(st_id_equal(near, out[0]) && fabs(nd - dist[0]) <= 1e-9 * (1 + nd),
                    "%s/%s: nearest {%u,%u} d=%g, query's first {%u,%u} d=%g", ctx, en, near.index, near.generation, nd,
                    out[0].index, out[0].generation, dist[0]);

    /* a small cap: total count still returned, the first cap entries are the same */
    if (got > 3) {
        st_agent_id few[3];
        int g2 = st_world_query(w, q, few, NULL, 3);
        ok &= CHECK(g2 == got, "%s/%s: with cap 3 the query counted %d, with room %d", ctx, en, g2, got);
        for (int k = 0; k < 3; k++)
            ok &= CHECK(st_id_equal(few[k], out[k]), "%s/%s: with cap 3 entry %d differs", ctx, en, k);
    }
    return ok;
}

static const double radii[] = {0, 3, 12, 25, 49.5, 50, 51, 99, 120, 333, 2000};
static const double fovs[] = {0, 2 * TU_PI, 270 * TU_PI / 180, 90 * TU_PI / 180, 10 * TU_PI / 180, -1, 7};

static st_query random_query(st_world *w, tu_rng *r, int with_agent)
{
    st_edges e = st_world_edges(w);
    double W = st_world_width(w), H = st_world_height(w);
    st_query q;
    st_vec2 c;
    if (e == ST_EDGES_NONE)
        c = st_v2(tu_uniform(r, -W, 2 * W), tu_uniform(r, -H, 2 * H));
    else
        c = st_v2(tu_uniform(r, 0, W), tu_uniform(r, 0, H));
    q = st_default_query(c, radii[(int)(tu_rand(r) * (sizeof radii / sizeof radii[0]))]);
    if (with_agent) {
        /* around an agent, excluding it, as world:neighbors(a, ...) does */
        int k = (int)(tu_rand(r) * st_world_count(w, ST_TAG_ANY));
        st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY);
        while (k-- > 0)
            a = st_world_next(w, a, ST_TAG_ANY);
        q.center = st_agent_pos(w, a);
        q.exclude = a;
        q.heading = st_agent_heading(w, a);
    } else {
        q.heading = st_v2_from_angle(tu_uniform(r, -TU_PI, TU_PI), 1);
    }
    q.tag = tu_rand(r) < 0.5 ? ST_TAG_ANY : (int32_t)(tu_rand(r) * 4);
    q.fov = fovs[(int)(tu_rand(r) * (sizeof fovs / sizeof fovs[0]))];
    return q;
}

static void populate(st_world *w, tu_rng *r, int n)
{
    st_edges e = st_world_edges(w);
    double W = st_world_width(w), H = st_world_height(w);
    for (int i = 0; i < n; i++) {
        st_agent_def d = st_default_agent_def();
        if (e == ST_EDGES_NONE)
            d.pos = st_v2(tu_uniform(r, -W, 2 * W), tu_uniform(r, -H, 2 * H));
        else
            d.pos = st_v2(tu_uniform(r, 0, W), tu_uniform(r, 0, H));
        if (i % 10 == 0) /* on grid lines, and on the world's own edges */
            d.pos = st_v2(50.0 * (int)(tu_rand(r) * W / 50), i % 20 == 0 ? 0.0 : 50.0 * (int)(tu_rand(r) * H / 50));
        if (i % 37 == 0) /* clumps: several agents on one point */
            d.pos = st_v2(W / 3, H / 3);
        d.vel = st_v2_from_angle(tu_uniform(r, -TU_PI, TU_PI), tu_uniform(r, 0, 150));
        d.tag = (int32_t)(tu_rand(r) * 4);
        st_world_spawn(w, &d);
    }
}

static st_world *sized_world(double width, double height, st_edges edges, double cell, uint64_t seed)
{
    st_world_def d = st_default_world_def();
    d.width = width;
    d.height = height;
    d.edges = edges;
    d.cell_size = cell;
    d.seed = seed;
    return st_world_create(&d);
}

static void query_matches_brute_force(void)
{
    st_edges kinds[3] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    double cells[3] = {50, 13, 170};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) {
            st_world *w = sized_world(640, 480, kinds[k], cells[c], 100 + (uint64_t)(k * 3 + c));
            if (!CHECK(w != NULL, "world create failed"))
                return;
            tu_rng r = {1000 + (uint64_t)(k * 3 + c)};
            populate(w, &r, 400);
            /* the grid is built by the step; queries after a few steps */
            for (int s = 0; s < 3; s++)
                st_world_step(w, 1.0 / 60);
            int ok = 1;
            for (int i = 0; i < 300 && ok; i++) {
                st_query q = random_query(w, &r, i % 2);
                ok = compare(w, &q, "after steps");
            }
            /* move a lot, change the cell size, query again */
            for (int s = 0; s < 120; s++)
                st_world_step(w, 1.0 / 60);
            st_world_set_cell_size(w, cells[(c + 1) % 3]);
            st_world_step(w, 1.0 / 60);
            for (int i = 0; i < 300 && ok; i++) {
                st_query q = random_query(w, &r, i % 2);
                ok = compare(w, &q, "after moving and a new cell size");
            }
            st_world_destroy(w);
        }
}

static void query_sees_changes_without_a_step(void)
{
    /* A scene's load spawns agents and asks for neighbours before any step;
     * a brain removes or moves an agent and queries again. */
    st_edges kinds[3] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    for (int k = 0; k < 3; k++) {
        st_world *w = tu_world(640, 480, kinds[k], 5);
        tu_rng r = {77 + (uint64_t)k};
        populate(w, &r, 200);
        int ok = 1;
        for (int i = 0; i < 100 && ok; i++) {
            st_query q = random_query(w, &r, i % 2);
            ok = compare(w, &q, "right after spawning");
        }
        st_world_step(w, 1.0 / 60);
        /* remove every third agent and move every fifth, then query */
        int i = 0;
        for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);) {
            st_agent_id nx = st_world_next(w, a, ST_TAG_ANY);
            if (i % 3 == 0)
                st_world_remove(w, a);
            else if (i % 5 == 0)
                st_agent_set_pos(w, a, st_v2(tu_uniform(&r, 0, 640), tu_uniform(&r, 0, 480)));
            a = nx;
            i++;
        }
        for (int j = 0; j < 100 && ok; j++) {
            st_query q = random_query(w, &r, j % 2);
            ok = compare(w, &q, "after remove/set_pos");
        }
        st_world_destroy(w);
    }
}

static void moves_between_steps_reach_the_next_grid(void)
{
    /* Every agent flocks, so a step moves them in its standing pass and
     * keeps each one's next cell for the build that follows (white box:
     * st_grid.pre_cells). An agent moved by hand between two steps, or a
     * new cell size, must still reach that build: a stale cell would leave
     * the agent where it was for every query. */
    st_edges kinds[3] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    for (int k = 0; k < 3; k++) {
        st_world *w = tu_world(640, 480, kinds[k], 40 + (uint64_t)k);
        tu_rng r = {500 + (uint64_t)k};
        populate(w, &r, 400);
        st_behavior fl = st_default_behavior(ST_FLOCK);
        for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
             a = st_world_next(w, a, ST_TAG_ANY))
            st_agent_set_behaviors(w, a, &fl, 1);
        int ok = 1;
        for (int round = 0; round < 3 && ok; round++) {
            for (int s = 0; s < 3; s++)
                st_world_step(w, 1.0 / 60);
            ok = CHECK(w->grid.pre_cells == st_world_count(w, ST_TAG_ANY), "the step kept no cells (round %d)",
                       round);
            if (round == 0) { /* every seventh agent somewhere else */
                int i = 0;
                for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
                     a = st_world_next(w, a, ST_TAG_ANY), i++)
                    if (i % 7 == 0)
                        st_agent_set_pos(w, a, st_v2(tu_uniform(&r, 0, 640), tu_uniform(&r, 0, 480)));
            } else if (round == 1) {
                st_world_set_cell_size(w, 23.0);
            } else { /* one agent far across the world */
                st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY);
                st_vec2 p = st_agent_pos(w, a);
                st_agent_set_pos(w, a, st_v2(640 - p.x * 0.5, 480 - p.y * 0.5));
            }
            /* queries from the build at the next step's start */
            st_world_step_begin(w, 1.0 / 60);
            for (int i = 0; i < 200 && ok; i++) {
                st_query q = random_query(w, &r, i % 2);
                ok = compare(w, &q, "after a move between steps");
            }
            st_world_step_end(w);
        }
        st_world_destroy(w);
    }
}

static void query_inside_a_step(void)
{
    /* Brains query between step_begin and step_end. */
    st_world *w = tu_world(640, 480, ST_EDGES_WRAP, 9);
    tu_rng r = {31};
    populate(w, &r, 300);
    int ok = 1;
    for (int s = 0; s < 20 && ok; s++) {
        st_world_step_begin(w, 1.0 / 60);
        for (int i = 0; i < 20 && ok; i++) {
            st_query q = random_query(w, &r, 1);
            ok = compare(w, &q, "inside a step");
        }
        st_world_step_end(w);
    }
    st_world_destroy(w);
}

static void radius_past_1e154(void)
{
    /* A radius whose square overflows: every offset's square past 1e154
     * overflows too, and the exact distance decides (the fuzzer's case: a
     * query from (1e308, 0) with radius 1e300 counted an agent at the
     * origin on the all-pairs path, not on the grid). */
    st_world *w = sized_world(800, 600, ST_EDGES_NONE, 50, 3);
    st_agent_def d = st_default_agent_def();
    st_world_spawn(w, &d);
    d.pos = st_v2(100, 0);
    st_world_spawn(w, &d);
    const struct { double cx, r; int expect; } cases[] = {
        {1e308, 1e300, 0}, /* 1e308 away: outside */
        {5e299, 1e300, 2}, /* 5e299 away: inside, though its square overflows */
        {1e308, 1e308, 2}, /* exactly at the radius, or just inside */
        {-1e308, 5e307, 0},
    };
    for (int k = 0; k < 4; k++) {
        st_query q = st_default_query(st_v2(cases[k].cx, 0), cases[k].r);
        st_agent_id out[4];
        for (int brute = 0; brute < 2; brute++) {
            st_world_set_brute_force(w, brute);
            int n = st_world_query(w, &q, out, NULL, 4);
            CHECK(n == cases[k].expect, "case %d (%s): %d agents, expected %d", k, brute ? "all pairs" : "grid", n,
                  cases[k].expect);
            st_agent_id near = st_world_nearest(w, &q, NULL);
            CHECK(st_id_is_null(near) == (cases[k].expect == 0), "case %d (%s): nearest {%u,%u}", k,
                  brute ? "all pairs" : "grid", near.index, near.generation);
        }
        st_world_set_brute_force(w, false);
    }
    st_world_destroy(w);
}

static void far_agents_in_a_none_world(void)
{
    st_world *w = tu_world(640, 480, ST_EDGES_NONE, 3);
    st_vec2 spots[] = {{-5000, -5000}, {1e6, 3}, {-2.5e6, 7e5}, {640, 480}, {700, 540}, {-0.5, -0.5}, {1e9, -1e9}};
    int ns = (int)(sizeof spots / sizeof spots[0]);
    for (int i = 0; i < ns; i++) {
        for (int j = 0; j < 3; j++)
            tu_spawn(w, st_v2_add(spots[i], st_v2(j * 4.0, -j * 3.0)), st_v2(0, 0));
    }
    st_world_step(w, 1.0 / 60);
    for (int i = 0; i < ns; i++) {
        st_query q = st_default_query(st_v2_add(spots[i], st_v2(1, 1)), 20);
        st_agent_id out[8];
        int got = st_world_query(w, &q, out, NULL, 8);
        CHECK(got == 3, "agents near (%g, %g) outside the rectangle: found %d of 3", spots[i].x, spots[i].y, got);
        compare(w, &q, "far");
    }
    st_query all = st_default_query(st_v2(0, 0), 5e9);
    st_agent_id out[32];
    CHECK(st_world_query(w, &all, out, NULL, 32) == 3 * ns, "query of radius 5e9 found %d of %d",
          st_world_query(w, &all, out, NULL, 32), 3 * ns);
    st_world_destroy(w);
}

/* Tag 0 on most agents; 1 on one in 12; 2 on one in 40; 3 on one in 60,
 * half of those in one clump. The rare tags get a grid of their own. */
static void populate_rare(st_world *w, tu_rng *r, int n)
{
    st_edges e = st_world_edges(w);
    double W = st_world_width(w), H = st_world_height(w);
    for (int i = 0; i < n; i++) {
        st_agent_def d = st_default_agent_def();
        if (e == ST_EDGES_NONE)
            d.pos = st_v2(tu_uniform(r, -W / 2, 1.5 * W), tu_uniform(r, -H / 2, 1.5 * H));
        else
            d.pos = st_v2(tu_uniform(r, 0, W), tu_uniform(r, 0, H));
        d.tag = i % 60 == 7 ? 3 : i % 40 == 3 ? 2 : i % 12 == 5 ? 1 : 0;
        if (d.tag == 3 && i % 120 == 7)
            d.pos = st_v2(W / 4 + tu_uniform(r, -20, 20), H / 4 + tu_uniform(r, -20, 20));
        if (i % 10 == 0) /* on grid lines */
            d.pos = st_v2(50.0 * (int)(tu_rand(r) * W / 50), 50.0 * (int)(tu_rand(r) * H / 50));
        d.vel = st_v2_from_angle(tu_uniform(r, -TU_PI, TU_PI), tu_uniform(r, 0, 150));
        st_world_spawn(w, &d);
    }
}

/* Whether a query for tag is answered from a grid of that tag alone. */
static int own_grid(st_world *w, int32_t tag)
{
    st_query q = st_default_query(st_v2(1, 1), 10);
    q.tag = tag;
    st_world_nearest(w, &q, NULL); /* makes the tag's grid if it is due one */
    return st__grid_for_tag(w, tag) != &w->grid;
}

static void rare_tag_queries_match_brute_force(void)
{
    /* Queries filtered by a rare tag are answered from that tag's own grid
     * (coarser cells, its agents only): the same answers as a full scan, in
     * and out of steps, with removals and moves inside a step, more rare
     * tags than grid slots, and after the cell size changes. */
    st_edges kinds[3] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    double cells[3] = {50, 13, 170};
    const int32_t tags[] = {1, 2, 3, 0, ST_TAG_ANY, 3, 2, 1, 9};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) {
            st_world *w = sized_world(2000, 1500, kinds[k], cells[c], 300 + (uint64_t)(k * 3 + c));
            if (!CHECK(w != NULL, "world create failed"))
                return;
            tu_rng r = {5000 + (uint64_t)(k * 3 + c)};
            populate_rare(w, &r, 3000);
            for (int s = 0; s < 3; s++)
                st_world_step(w, 1.0 / 60);
            int ok = 1;
            for (int i = 0; i < 240 && ok; i++) {
                st_query q = random_query(w, &r, i % 2);
                q.tag = tags[i % (int)(sizeof tags / sizeof tags[0])];
                ok = compare(w, &q, "rare tags");
            }
            CHECK(own_grid(w, 1) && own_grid(w, 2) && own_grid(w, 3) && !own_grid(w, 0) && !own_grid(w, ST_TAG_ANY),
                  "%s cell %g: tags 1, 2, 3 should have grids of their own, tag 0 (most agents) not",
                  edge_name(kinds[k]), cells[c]);
            /* inside a step: remove every 7th agent and move every 11th, as
             * brains may, then ask again (the grid of the step's start answers,
             * without the removed) */
            st_world_step_begin(w, 1.0 / 60);
            int i = 0;
            for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a); i++) {
                st_agent_id nx = st_world_next(w, a, ST_TAG_ANY);
                if (i % 7 == 0)
                    st_world_remove(w, a);
                a = nx;
            }
            for (int j = 0; j < 120 && ok; j++) {
                st_query q = random_query(w, &r, 0);
                q.tag = tags[j % (int)(sizeof tags / sizeof tags[0])];
                /* compare scans the live agents: only positions as of the
                 * step's start are comparable, so no moves before this */
                ok = compare(w, &q, "rare tags inside a step, after removals");
            }
            st_world_step_end(w);
            /* a fifth tag: more rare tags than slots */
            i = 0;
            for (st_agent_id a = st_world_next(w, st_null_agent(), 0); !st_id_is_null(a) && i < 100; i++) {
                st_agent_id nx = st_world_next(w, a, 0);
                if (i % 2 == 0)
                    st_agent_set_tag(w, a, 4 + i % 6);
                a = nx;
            }
            st_world_set_cell_size(w, cells[(c + 1) % 3]);
            for (int s = 0; s < 30; s++)
                st_world_step(w, 1.0 / 60);
            for (int j = 0; j < 240 && ok; j++) {
                st_query q = random_query(w, &r, j % 2);
                q.tag = j % 3 == 0 ? 4 + j % 6 : tags[j % (int)(sizeof tags / sizeof tags[0])];
                ok = compare(w, &q, "rare tags after moving, retagging and a new cell size");
            }
            st_world_destroy(w);
        }
}

static void small_worlds_rare_tag_grids(void)
{
    /* A rare tag gets its own grid from 64 agents on (a prey asking for the
     * nearest of a few hunters then reads a few of them, not every prey
     * around): at 64 to 600 agents, the same answers as a full scan; below
     * 64 the main grid answers. */
    const int sizes[] = {40, 64, 200, 600};
    st_edges kinds[3] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    const int32_t tags[] = {1, 2, 3, 0, ST_TAG_ANY};
    for (int z = 0; z < 4; z++)
        for (int k = 0; k < 3; k++) {
            double side = sqrt(sizes[z] * 900.0);
            st_world *w = sized_world(side, side, kinds[k], 50, 700 + (uint64_t)(z * 3 + k));
            if (!CHECK(w != NULL, "world create failed"))
                return;
            tu_rng r = {7000 + (uint64_t)(z * 3 + k)};
            populate_rare(w, &r, sizes[z]);
            for (int s = 0; s < 3; s++)
                st_world_step(w, 1.0 / 60);
            int ok = 1;
            for (int i = 0; i < 200 && ok; i++) {
                st_query q = random_query(w, &r, i % 2);
                q.tag = tags[i % 5];
                ok = compare(w, &q, "small world, rare tags");
            }
            CHECK(own_grid(w, 1) == (sizes[z] >= 64), "%d agents, %s: tag 1 (one in 12) on a grid of its own: %d",
                  sizes[z], edge_name(kinds[k]), own_grid(w, 1));
            st_world_destroy(w);
        }
}

static void exclude_and_tag(void)
{
    st_world *w = tu_world(800, 600, ST_EDGES_WRAP, 1);
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(100, 100);
    d.tag = 1;
    st_agent_id a = st_world_spawn(w, &d);
    d.pos = st_v2(110, 100);
    d.tag = 2;
    st_agent_id b = st_world_spawn(w, &d);
    d.pos = st_v2(100, 95); /* nearest to a */
    d.tag = 1;
    st_agent_id c = st_world_spawn(w, &d);
    st_world_step(w, 1.0 / 60);
    st_query q = st_default_query(st_v2(100, 100), 30);
    q.exclude = a;
    st_agent_id out[4];
    double dist[4];
    int n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 2 && st_id_equal(out[0], c) && st_id_equal(out[1], b), "neighbours of a: %d, order wrong", n);
    CHECK(n == 2 && dist[0] == 5 && dist[1] == 10, "distances %g %g", dist[0], dist[1]);
    q.tag = 2;
    n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 1 && st_id_equal(out[0], b), "tag 2 neighbours of a: %d", n);
    q.tag = ST_TAG_ANY;
    q.exclude = st_null_agent();
    n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 3 && st_id_equal(out[0], a) && dist[0] == 0, "without exclude: %d, first is a: %d", n,
          n > 0 && st_id_equal(out[0], a));
    /* view cone: a looks along -x, so b (at +x) is behind it and c (at -y) is at 90 degrees */
    q.exclude = a;
    q.heading = st_v2(-1, 0);
    q.fov = 200 * TU_PI / 180;
    n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 1 && st_id_equal(out[0], c), "cone of 200 deg looking -x: found %d (expected only c)", n);
    q.fov = 90 * TU_PI / 180;
    n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 0, "cone of 90 deg looking -x: found %d (expected none)", n);
    st_world_remove(w, c);
    q.fov = 0;
    n = st_world_query(w, &q, out, dist, 4);
    CHECK(n == 1 && st_id_equal(out[0], b), "after removing c: %d", n);
    st_world_destroy(w);
}

/* The lean brains' shape: n agents on a square of `area` square units an
 * agent, one in ten tagged 1, moving. */
static st_world *lean_world(int n, double area, st_edges edges, uint64_t seed, tu_rng *r)
{
    double side = sqrt(n * area);
    st_world *w = sized_world(side, side, edges, 50, seed);
    if (!w) return NULL;
    for (int i = 0; i < n; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(tu_uniform(r, 0, side), tu_uniform(r, 0, side));
        d.vel = st_v2_from_angle(tu_uniform(r, -TU_PI, TU_PI), tu_uniform(r, 0, 150));
        d.tag = i % 10 == 9 ? 1 : 0;
        st_world_spawn(w, &d);
    }
    return w;
}

/* One round of the lean brains' nearest queries: every live agent asks for
 * the nearest of the other tag within 150 (tag 1) or 100 (tag 0), through
 * a view cone every third one when `cones`, and each answer must be the
 * whole search's (st_world_query's first). *found counts the answers. */
static int nearest_round(st_world *w, const char *ctx, int round, bool cones, int *found)
{
    st_agent_id first[1];
    double first_d[1];
    int ok = 1, seen = 0, live = st_world_count(w, ST_TAG_ANY);
    for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a) && ok;
         a = st_world_next(w, a, ST_TAG_ANY)) {
        if (!CHECK(++seen <= live, "%s, round %d: the walk passes more than the %d live agents (at {%u,%u})", ctx,
                   round, live, a.index, a.generation))
            return 0;
        bool hunter = st_agent_tag(w, a) == 1;
        st_query q = st_default_query(st_agent_pos(w, a), hunter ? 150.0 : 100.0);
        q.exclude = a;
        q.tag = hunter ? 0 : 1;
        if (cones && a.index % 3 == 0) {
            q.fov = 2.5;
            q.heading = st_agent_heading(w, a);
        }
        double d = -1.0;
        st_agent_id near = st_world_nearest(w, &q, &d);
        int got = st_world_query(w, &q, first, first_d, 1);
        if (found) *found += got > 0;
        ok = CHECK(got > 0 ? st_id_equal(near, first[0]) && d == first_d[0] : st_id_is_null(near),
                   "%s, round %d: nearest {%u,%u} at %.17g, the whole search {%u,%u} at %.17g", ctx, round,
                   near.index, near.generation, d, got > 0 ? first[0].index : 0, got > 0 ? first[0].generation : 0,
                   got > 0 ? first_d[0] : -1.0);
    }
    return ok;
}

static void nearest_is_the_full_search_exactly(void)
{
    /* st_world_nearest searches nearest first (small discs before the whole
     * radius, half a cell first on a crowded grid, a rare tag on its own
     * grid) and must answer exactly what the whole search does: the same
     * agent at the same distance, to the bit (brains steer by it, and
     * checksums hold it). The lean brains' shape at their four densities.
     * Every third query looks through a view cone instead (the search
     * without the shortcut of a brain's plain query), on every kind of
     * edge. */
    const double areas[] = {400, 900, 3600, 14000};
    const st_edges kinds[] = {ST_EDGES_WRAP, ST_EDGES_NONE, ST_EDGES_BOUNCE};
    const int n = 3000;
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 4; k++) {
            tu_rng r = {900 + (uint64_t)k};
            st_world *w = lean_world(n, areas[k], kinds[e], 40 + (uint64_t)k, &r);
            if (!CHECK(w != NULL, "world create failed"))
                return;
            for (int s = 0; s < 3; s++)
                st_world_step(w, 1.0 / 60);
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%s 1/%g", edge_name(kinds[e]), areas[k]);
            int found = 0;
            nearest_round(w, ctx, 0, true, &found);
            /* the sparse worlds leave many without one, the dense none */
            CHECK(found > n / 10, "%s: only %d of %d queries found an agent", ctx, found, n);
            st_world_destroy(w);
        }
}

static void nearest_answers_again_as_the_world_changes(void)
{
    /* An agent that asks again searches no farther than its last answer
     * lies now (st_world.near_last), and in full when nobody is that near.
     * The answers must stay the whole search's while those last answers
     * are removed, retagged, carried off, moved inside a step (the grid
     * keeps the old place), while new agents take freed handle slots, and
     * right after a restore and in the rounds after it (the last answers
     * kept then name agents of the abandoned timeline: dead ids). */
    const double areas[] = {400, 900, 14000};
    const st_edges kinds[] = {ST_EDGES_WRAP, ST_EDGES_BOUNCE, ST_EDGES_NONE};
    const int n = 2000;
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 3; k++) {
            double side = sqrt(n * areas[k]);
            tu_rng r = {300 + (uint64_t)(e * 3 + k)};
            st_world *w = lean_world(n, areas[k], kinds[e], 70 + (uint64_t)k, &r);
            if (!CHECK(w != NULL, "world create failed"))
                return;
            st_world_step(w, 1.0 / 60);
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%s 1/%g", edge_name(kinds[e]), areas[k]);
            st_snapshot *snap = NULL;
            int ok = nearest_round(w, ctx, 0, false, NULL);
            CHECK(w->near_cap >= (uint32_t)n, "%s: no last answers kept (%u)", ctx, w->near_cap);
            for (int round = 1; round <= 12 && ok; round++) {
                /* the last answers of a few agents: removed, retagged,
                 * carried across the world, or left alone */
                int i = 0;
                for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
                     a = st_world_next(w, a, ST_TAG_ANY), i++) {
                    if (i % 17 != round % 17) continue;
                    st_agent_id last = w->near_last[a.index];
                    if (!st_agent_alive(w, last)) continue;
                    switch ((i / 17) % 4) {
                    case 0: st_world_remove(w, last); break;
                    case 1: st_agent_set_tag(w, last, 1 - st_agent_tag(w, last)); break;
                    case 2: st_agent_set_pos(w, last, st_v2(tu_uniform(&r, 0, side), tu_uniform(&r, 0, side))); break;
                    default: break;
                    }
                }
                /* new agents in the freed slots */
                for (int m = 0; m < 20; m++) {
                    st_agent_def d = st_default_agent_def();
                    d.pos = st_v2(tu_uniform(&r, 0, side), tu_uniform(&r, 0, side));
                    d.tag = m % 3 == 0 ? 1 : 0;
                    st_world_spawn(w, &d);
                }
                if (round == 4) snap = st_world_snapshot(w);
                st_world_step(w, 1.0 / 60);
                ok = nearest_round(w, ctx, round, false, NULL);
                if (!ok) break;
                if (round == 8 && snap) {
                    ok = CHECK(st_world_restore(w, snap), "%s: restore failed", ctx);
                    if (ok) ok = nearest_round(w, ctx, round, false, NULL);
                }
                if (round % 3 == 0 && ok) {
                    /* inside a step: an answer moved right next to its asker
                     * is there in its body, not in the step's grid */
                    st_world_step_begin(w, 1.0 / 60);
                    st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY);
                    for (int m = 0; m < 50 && !st_id_is_null(a); m++, a = st_world_next(w, a, ST_TAG_ANY)) {
                        st_agent_id last = w->near_last[a.index];
                        if (st_agent_alive(w, last))
                            st_agent_set_pos(w, last, st_v2_add(st_agent_pos(w, a), st_v2(0.5, 0.25)));
                    }
                    ok = nearest_round(w, ctx, round, false, NULL);
                    st_world_step_end(w);
                }
            }
            st_snapshot_destroy(snap);
            st_world_destroy(w);
        }
}

/* Twin worlds for the nearest hint (world_internal.h): the same agents, the
 * first asked st_world_nearest around agent 0 (so it holds the answer's
 * dense index), the second not. */
static void twins(st_world **w, st_agent_id ids[2][40])
{
    for (int k = 0; k < 2; k++) {
        w[k] = tu_world(400, 400, ST_EDGES_WRAP, 5);
        tu_rng r = {77};
        for (int i = 0; i < 40; i++) {
            st_agent_def d = st_default_agent_def();
            d.pos = st_v2(tu_uniform(&r, 0, 400), tu_uniform(&r, 0, 400));
            d.vel = st_v2(tu_uniform(&r, -30, 30), tu_uniform(&r, -30, 30));
            ids[k][i] = st_world_spawn(w[k], &d);
        }
    }
}

/* The force of a seek from agent 0 toward `target` in world w. */
static st_vec2 seek_force(st_world *w, st_agent_id self, st_agent_id target)
{
    st_behavior b = st_default_behavior(ST_SEEK);
    b.target = st_target_agent(target);
    return st_agent_steer(w, self, &b);
}

static void behaviours_after_nearest_follow_the_live_target(void)
{
    /* A behaviour toward the agent st_world_nearest just gave finds its body
     * through the world's hint, not the handle table. Whatever moves agents
     * in storage or ends one must drop the hint: a removal (case 0), the
     * compaction after one (1), a reorder (2), a restore (3). The twin that
     * never asked gives the same forces, and a removed target none. The
     * answer is an agent each of them moves: the last spawned (which fills
     * a removed one's place), or one the reorder moves. A restore brings
     * back the snapshot's own hint with its storage, consistent either way:
     * there the check guards the restored forces. */
    for (int c = 0; c < 4; c++) {
        st_world *w[2];
        st_agent_id ids[2][40];
        twins(w, ids);
        st_snapshot *snap = c == 3 ? st_world_snapshot(w[0]) : NULL;
        for (int k = 0; k < 2 && c != 2; k++) st_world_remove(w[k], ids[k][2]);
        if (c == 3)
            for (int k = 0; k < 2; k++) st_world_step(w[k], 1.0 / 60); /* compacts: agent 39 moves */
        if (c == 0)
            for (int k = 0; k < 2; k++) st_world_step_begin(w[k], 1.0 / 60);
        int t = 39; /* the target: one that the reorder moves, in case 2 */
        if (c == 2) {
            uint32_t before[40];
            for (int i = 0; i < 40; i++) before[i] = w[1]->slots[ids[1][i].index].dense;
            st__grid_build(w[1], w[1]->count);
            st__reorder(w[1]);
            for (t = 39; t > 0 && w[1]->slots[ids[1][t].index].dense == before[t]; t--) {}
            CHECK(w[1]->slots[ids[1][t].index].dense != before[t], "the reorder moved nobody");
        }
        st_query q = st_default_query(st_agent_pos(w[0], ids[0][t]), 0.5);
        st_agent_id x = st_world_nearest(w[0], &q, NULL);
        CHECK(st_id_equal(x, ids[0][t]), "case %d: the point query found another agent", c);
        if (c == 0)
            for (int k = 0; k < 2; k++) st_world_remove(w[k], ids[k][t]);
        if (c == 2) {
            st__grid_build(w[0], w[0]->count);
            st__reorder(w[0]);
        }
        if (c == 3)
            for (int k = 0; k < 2; k++) CHECK(st_world_restore(w[k], snap), "case 3: restore");
        for (int step = 0; step < 3; step++) {
            for (int k = 0; k < 2 && (c != 0 || step > 0); k++) st_world_step_begin(w[k], 1.0 / 60);
            st_vec2 f0 = seek_force(w[0], ids[0][0], ids[0][t]), f1 = seek_force(w[1], ids[1][0], ids[1][t]);
            CHECK(f0.x == f1.x && f0.y == f1.y, "case %d step %d: (%g, %g) against (%g, %g)", c, step, f0.x, f0.y,
                  f1.x, f1.y);
            if (c == 0) CHECK(f0.x == 0.0 && f0.y == 0.0, "seek toward a removed agent: (%g, %g)", f0.x, f0.y);
            else CHECK(f0.x != 0.0 || f0.y != 0.0, "case %d: no force toward a live agent", c);
            for (int k = 0; k < 2; k++) st_world_step_end(w[k]);
        }
        CHECK(st_world_checksum(w[0]) == st_world_checksum(w[1]), "case %d: the twins differ", c);
        if (snap) st_snapshot_destroy(snap);
        st_world_destroy(w[0]);
        st_world_destroy(w[1]);
    }
}

int main(void)
{
    RUN(exclude_and_tag);
    RUN(query_matches_brute_force);
    RUN(query_sees_changes_without_a_step);
    RUN(query_inside_a_step);
    RUN(moves_between_steps_reach_the_next_grid);
    RUN(far_agents_in_a_none_world);
    RUN(radius_past_1e154);
    RUN(rare_tag_queries_match_brute_force);
    RUN(small_worlds_rare_tag_grids);
    RUN(nearest_is_the_full_search_exactly);
    RUN(nearest_answers_again_as_the_world_changes);
    RUN(behaviours_after_nearest_follow_the_live_target);
    return tu_summary();
}
