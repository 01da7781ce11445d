/*
 * test_raycast.c — st_world_raycast against the real geometry, and path
 * progress (the waypoint index, read and written; the distance left).
 *
 * What a user relies on: a ray stops at the first outline it meets, at the
 * point and with the normal worked out by hand here; it passes what it
 * misses; a shape holding its start does not blind it; agents are seen by
 * tag and the caster never sees itself; a player standing against a wall is
 * seen from open ground although nav:visible (a walkability test that keeps
 * the clearance) says no; and the answers are the same on 1 and 2 threads.
 */
#include <string.h>

#include "test_util.h"

#define EPS 1e-9

static st_world *open_world(void)
{
    st_world_def d = st_default_world_def();
    d.width = 800;
    d.height = 600;
    d.edges = ST_EDGES_NONE;
    return st_world_create(&d);
}

static int near_v(st_vec2 a, double x, double y) { return fabs(a.x - x) <= 1e-9 && fabs(a.y - y) <= 1e-9; }

static st_raycast_hit cast(const st_world *w, double x0, double y0, double x1, double y1, const st_raycast_opts *o,
                           bool *hit)
{
    st_raycast_hit h;
    memset(&h, 0, sizeof h);
    *hit = st_world_raycast(w, st_v2(x0, y0), st_v2(x1, y1), o, &h);
    return h;
}

static void test_circle(void)
{
    st_world *w = open_world();
    int id = st_world_add_obstacle(w, st_v2(300, 300), 20);
    bool hit;
    st_raycast_hit h = cast(w, 200, 300, 400, 300, NULL, &hit);
    CHECK(hit && h.kind == ST_RAY_CIRCLE && h.obstacle == id && h.wall == 0, "head-on: hit %d kind %d", hit, h.kind);
    CHECK(near_v(h.point, 280, 300) && near_v(h.normal, -1, 0), "head-on: point (%g, %g) normal (%g, %g)", h.point.x,
          h.point.y, h.normal.x, h.normal.y);
    CHECK(fabs(h.fraction - 0.4) < EPS && fabs(h.distance - 80) < EPS, "head-on: fraction %g distance %g", h.fraction,
          h.distance);
    /* 12 off the centre line: enters at y = 300 - sqrt(20^2 - 12^2) = 284 */
    h = cast(w, 312, 200, 312, 400, NULL, &hit);
    CHECK(hit && near_v(h.point, 312, 284) && near_v(h.normal, 0.6, -0.8), "off-centre: (%g, %g) normal (%g, %g)",
          h.point.x, h.point.y, h.normal.x, h.normal.y);
    /* 20.001 off: a miss; a ray that stops short: a miss */
    cast(w, 320.001, 200, 320.001, 400, NULL, &hit);
    CHECK(!hit, "a ray 20.001 from the centre of a circle of 20 hits it");
    cast(w, 200, 300, 279, 300, NULL, &hit);
    CHECK(!hit, "a ray that stops 1 short hits");
    /* from inside: not hit (the shape holding the start is ignored) */
    cast(w, 300, 300, 400, 300, NULL, &hit);
    CHECK(!hit, "a ray from inside the circle hits it");
    st_world_destroy(w);
}

static void test_polygon_and_polyline(void)
{
    st_world *w = open_world();
    st_vec2 sq[4] = {{400, 400}, {400, 500}, {500, 500}, {500, 400}}; /* clockwise given */
    int poly = st_world_add_polygon(w, sq, 4, true);
    st_vec2 pl[3] = {{100, 500}, {200, 500}, {200, 560}};
    int line = st_world_add_polygon(w, pl, 3, false);
    bool hit;
    st_raycast_hit h = cast(w, 450, 350, 450, 550, NULL, &hit);
    CHECK(hit && h.kind == ST_RAY_POLYGON && h.obstacle == poly, "polygon from above: hit %d kind %d", hit, h.kind);
    CHECK(near_v(h.point, 450, 400) && near_v(h.normal, 0, -1), "polygon top: (%g, %g) normal (%g, %g)", h.point.x,
          h.point.y, h.normal.x, h.normal.y);
    h = cast(w, 350, 420, 450, 470, NULL, &hit);
    CHECK(hit && near_v(h.point, 400, 445) && near_v(h.normal, -1, 0) && fabs(h.fraction - 0.5) < EPS,
          "polygon left edge: (%g, %g) normal (%g, %g) fraction %g", h.point.x, h.point.y, h.normal.x, h.normal.y,
          h.fraction);
    /* a polyline is solid on both sides */
    h = cast(w, 150, 580, 150, 450, NULL, &hit);
    CHECK(hit && h.kind == ST_RAY_POLYLINE && h.obstacle == line && near_v(h.point, 150, 500) &&
              near_v(h.normal, 0, 1),
          "polyline from below: kind %d (%g, %g) normal (%g, %g)", h.kind, h.point.x, h.point.y, h.normal.x,
          h.normal.y);
    h = cast(w, 150, 450, 150, 580, NULL, &hit);
    CHECK(hit && near_v(h.point, 150, 500) && near_v(h.normal, 0, -1), "polyline from above: normal (%g, %g)",
          h.normal.x, h.normal.y);
    h = cast(w, 250, 530, 150, 530, NULL, &hit);
    CHECK(hit && near_v(h.point, 200, 530) && near_v(h.normal, 1, 0), "polyline's second segment: (%g, %g)",
          h.point.x, h.point.y);
    /* the open end of a polyline lets a ray through */
    cast(w, 150, 540, 150, 590, NULL, &hit);
    CHECK(!hit, "a ray under the polyline's open side hits");
    /* a ray from inside the polygon ignores it and sees what lies beyond */
    cast(w, 450, 450, 450, 590, NULL, &hit);
    CHECK(!hit, "a ray from inside the polygon hits it");
    int wall = st_world_add_wall(w, st_v2(420, 560), st_v2(480, 560));
    h = cast(w, 450, 450, 450, 590, NULL, &hit);
    CHECK(hit && h.kind == ST_RAY_WALL && h.wall == wall && near_v(h.point, 450, 560),
          "from inside the polygon: the wall beyond, kind %d at (%g, %g)", h.kind, h.point.x, h.point.y);
    st_world_destroy(w);
}

static void test_walls_and_nearest(void)
{
    st_world *w = open_world();
    int w1 = st_world_add_wall(w, st_v2(600, 100), st_v2(600, 300));
    bool hit;
    st_raycast_hit h = cast(w, 700, 200, 500, 200, NULL, &hit);
    CHECK(hit && h.kind == ST_RAY_WALL && h.wall == w1 && h.obstacle == 0 && near_v(h.point, 600, 200) &&
              near_v(h.normal, 1, 0),
          "wall from the right: kind %d (%g, %g) normal (%g, %g)", h.kind, h.point.x, h.point.y, h.normal.x, h.normal.y);
    h = cast(w, 500, 150, 700, 150, NULL, &hit);
    CHECK(hit && near_v(h.normal, -1, 0), "wall from the left: normal (%g, %g)", h.normal.x, h.normal.y);
    /* lying along the ray: hit where the ray first meets it */
    h = cast(w, 600, 50, 600, 200, NULL, &hit);
    CHECK(hit && near_v(h.point, 600, 100) && near_v(h.normal, 0, -1), "wall edge-on: (%g, %g) normal (%g, %g)",
          h.point.x, h.point.y, h.normal.x, h.normal.y);
    /* several in the way: the nearest, whatever the order they were added in */
    int far = st_world_add_obstacle(w, st_v2(450, 200), 10);
    int near = st_world_add_obstacle(w, st_v2(660, 200), 10);
    h = cast(w, 700, 200, 400, 200, NULL, &hit);
    CHECK(hit && h.obstacle == near && near_v(h.point, 670, 200), "nearest of three: obstacle %d at (%g, %g)",
          h.obstacle, h.point.x, h.point.y);
    st_raycast_opts o = st_raycast_default();
    o.obstacles = false;
    h = cast(w, 700, 200, 400, 200, &o, &hit);
    CHECK(hit && h.kind == ST_RAY_WALL, "obstacles off: the wall, kind %d", h.kind);
    o = st_raycast_default();
    o.walls = false;
    h = cast(w, 640, 200, 400, 200, &o, &hit);
    CHECK(hit && h.obstacle == far && near_v(h.point, 460, 200), "walls off: the far circle, %d", h.obstacle);
    /* an empty ray, a non-finite one */
    CHECK(!st_world_raycast(w, st_v2(600, 200), st_v2(600, 200), NULL, NULL), "from == to hits");
    CHECK(!st_world_raycast(w, st_v2(NAN, 200), st_v2(600, 200), NULL, NULL), "a NaN ray hits");
    CHECK(!st_world_raycast(w, st_v2(0, 200), st_v2(INFINITY, 200), NULL, NULL), "an infinite ray hits");
    st_world_destroy(w);
}

static st_agent_id spawn_at(st_world *w, double x, double y, double r, int32_t tag)
{
    st_agent_def d = st_default_agent_def();
    d.pos = st_v2(x, y);
    d.radius = r;
    d.tag = tag;
    return st_world_spawn(w, &d);
}

static void test_agents(void)
{
    st_world *w = open_world();
    st_agent_id guard = spawn_at(w, 100, 100, 6, 1);
    st_agent_id other = spawn_at(w, 150, 100, 5, 3);
    st_agent_id target = spawn_at(w, 200, 100, 5, 2);
    bool hit;
    cast(w, 50, 100, 250, 100, NULL, &hit);
    CHECK(!hit, "agents are hit without being asked for");
    st_raycast_opts o = st_raycast_default();
    o.agents = true;
    st_raycast_hit h = cast(w, 50, 100, 250, 100, &o, &hit);
    CHECK(hit && h.kind == ST_RAY_AGENT && st_id_equal(h.agent, guard) && near_v(h.point, 94, 100) &&
              near_v(h.normal, -1, 0),
          "any tag: the first agent, kind %d at (%g, %g)", h.kind, h.point.x, h.point.y);
    o.ignore = guard;
    h = cast(w, 50, 100, 250, 100, &o, &hit);
    CHECK(hit && st_id_equal(h.agent, other) && near_v(h.point, 145, 100), "ignore the guard: (%g, %g)", h.point.x,
          h.point.y);
    o.tag = 2;
    h = cast(w, 50, 100, 250, 100, &o, &hit);
    CHECK(hit && st_id_equal(h.agent, target) && near_v(h.point, 195, 100), "tag 2: (%g, %g)", h.point.x, h.point.y);
    o.tag = 7;
    cast(w, 50, 100, 250, 100, &o, &hit);
    CHECK(!hit, "a tag nobody has is hit");
    /* the caster at the start is never seen, even unnamed */
    o = st_raycast_default();
    o.agents = true;
    h = cast(w, 100, 100, 250, 100, &o, &hit);
    CHECK(hit && st_id_equal(h.agent, other), "from the guard's centre: the next agent");
    /* a removed agent is gone from sight */
    st_world_remove(w, other);
    h = cast(w, 100, 100, 250, 100, &o, &hit);
    CHECK(hit && st_id_equal(h.agent, target), "after a removal: the target");
    st_world_destroy(w);
}

/* The stealth case of issue 28: a player against a wall, a guard in the open. */
static void test_player_against_wall(void)
{
    st_world *w = open_world();
    st_vec2 slab[4] = {{300, 100}, {320, 100}, {320, 400}, {300, 400}};
    st_world_add_polygon(w, slab, 4, true);
    st_agent_id guard = spawn_at(w, 100, 250, 6, 1);
    st_agent_id player = spawn_at(w, 296, 250, 4, 2); /* touches x = 300 */
    st_agent_id hidden = spawn_at(w, 340, 200, 4, 2); /* behind the slab */
    st_raycast_opts o = st_raycast_default();
    o.agents = true;
    o.tag = 2;
    o.ignore = guard;
    st_raycast_hit h;
    bool seen = st_world_raycast(w, st_agent_pos(w, guard), st_agent_pos(w, player), &o, &h);
    CHECK(seen && h.kind == ST_RAY_AGENT && st_id_equal(h.agent, player) && near_v(h.point, 292, 250),
          "the player against the wall is not seen (hit %d kind %d)", seen, h.kind);
    seen = st_world_raycast(w, st_agent_pos(w, guard), st_agent_pos(w, hidden), &o, &h);
    CHECK(seen && h.kind == ST_RAY_POLYGON && near_v(h.point, 300, 250 - 200 * 50 / 240.0), "the one behind the slab: kind %d at (%g, %g)",
          h.kind, h.point.x, h.point.y);
    st_navgrid_def d = st_default_navgrid_def();
    st_navgrid *g = st_navgrid_create(w, &d);
    CHECK(!st_navgrid_visible(g, st_agent_pos(w, guard), st_agent_pos(w, player)),
          "nav:visible now sees the player against the wall: the contrast this test shows is gone");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/* Random rays against random circles and boxes: the hit lies on an outline,
 * and no point of the ray before it lies inside any shape. */
static uint64_t rng_state = 12345;
static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static bool inside_any(const st_world *w, st_vec2 p, double slack)
{
    for (int i = 0; i < st_world_obstacle_count(w); i++) {
        st_obstacle_info o;
        st_world_obstacle_get(w, i, &o);
        if (o.kind == ST_OBSTACLE_CIRCLE) {
            if (st_v2_dist(p, o.pos) < o.radius - slack) return true;
        } else {
            double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
            for (int k = 0; k < o.point_count; k++) {
                st_vec2 q = st_v2_add(o.pos, o.points[k]);
                x0 = fmin(x0, q.x), x1 = fmax(x1, q.x), y0 = fmin(y0, q.y), y1 = fmax(y1, q.y);
            }
            if (p.x > x0 + slack && p.x < x1 - slack && p.y > y0 + slack && p.y < y1 - slack) return true;
        }
    }
    return false;
}

static bool on_outline(const st_world *w, st_vec2 p)
{
    for (int i = 0; i < st_world_obstacle_count(w); i++) {
        st_obstacle_info o;
        st_world_obstacle_get(w, i, &o);
        if (o.kind == ST_OBSTACLE_CIRCLE && fabs(st_v2_dist(p, o.pos) - o.radius) < 1e-7) return true;
        if (o.kind != ST_OBSTACLE_CIRCLE && inside_any(w, p, -1e-7) && !inside_any(w, p, 1e-7)) return true;
    }
    return false;
}

static void test_random_rays_agree_with_geometry(void)
{
    st_world *w = open_world();
    for (int i = 0; i < 40; i++) st_world_add_obstacle(w, st_v2(urand() * 800, urand() * 600), 5 + urand() * 30);
    for (int i = 0; i < 20; i++) {
        double x = urand() * 760, y = urand() * 560, sx = 5 + urand() * 40, sy = 5 + urand() * 40;
        st_vec2 b[4] = {{x, y}, {x + sx, y}, {x + sx, y + sy}, {x, y + sy}};
        st_world_add_polygon(w, b, 4, true);
    }
    int hits = 0, bad_point = 0, crossed = 0;
    for (int r = 0; r < 2000; r++) {
        st_vec2 a = st_v2(urand() * 800, urand() * 600), b = st_v2(urand() * 800, urand() * 600);
        if (inside_any(w, a, -1e-6)) continue;
        st_raycast_hit h;
        bool hit = st_world_raycast(w, a, b, NULL, &h);
        double upto = hit ? h.fraction : 1.0;
        for (int k = 0; k < 64; k++) {
            st_vec2 p = st_v2_lerp(a, b, upto * k / 64.0);
            if (inside_any(w, p, 1e-7)) crossed++;
        }
        if (!hit) continue;
        hits++;
        if (!on_outline(w, h.point) || fabs(st_v2_len(h.normal) - 1) > 1e-12 ||
            st_v2_dot(h.normal, st_v2_sub(b, a)) > 0)
            bad_point++;
    }
    CHECK(hits > 500, "too few hits to say much: %d", hits);
    CHECK(bad_point == 0, "%d hits off the outline or with a bad normal", bad_point);
    CHECK(crossed == 0, "%d sampled points before a hit lie inside a shape", crossed);
    st_world_destroy(w);
}

/* The grid of st_world_raycast_prepare gives the answers testing every
 * shape gives, bit for bit (tie-breaks included), on a world of every kind
 * of shape, also where shapes touch and rays run along cell borders; and
 * once obstacles change, rays see the change before the next prepare. */
static int same_hit(bool ha, const st_raycast_hit *a, bool hb, const st_raycast_hit *b)
{
    if (ha != hb) return 0;
    if (!ha) return 1;
    return a->fraction == b->fraction && a->kind == b->kind && a->obstacle == b->obstacle && a->wall == b->wall &&
           a->normal.x == b->normal.x && a->normal.y == b->normal.y;
}

static void test_grid_agrees_with_every_shape(void)
{
    st_world *w = open_world();
    for (int i = 0; i < 300; i++) {
        st_vec2 c = st_v2(floor(urand() * 80) * 10, floor(urand() * 60) * 10); /* on a lattice: shared edges */
        double r = 5 + floor(urand() * 4) * 5;
        if (i % 3 == 0) st_world_add_obstacle(w, c, r);
        else if (i % 3 == 1) {
            st_vec2 b[4] = {{c.x - r, c.y - r}, {c.x + r, c.y - r}, {c.x + r, c.y + r}, {c.x - r, c.y + r}};
            st_world_add_polygon(w, b, 4, true);
        } else {
            st_vec2 l[3] = {{c.x - r, c.y}, {c.x, c.y + r}, {c.x + r, c.y}};
            st_world_add_polygon(w, l, 3, false);
        }
        if (i % 4 == 0) st_world_add_wall(w, c, st_v2(c.x + 40, c.y));
    }
    st_vec2 a[3000], b[3000];
    st_raycast_hit plain[3000];
    bool hit[3000];
    for (int k = 0; k < 3000; k++) {
        /* a third on lattice lines (along edges and cell borders) */
        a[k] = st_v2(urand() * 800, urand() * 600);
        if (k % 3 == 0) a[k] = st_v2(floor(a[k].x / 10) * 10, floor(a[k].y / 10) * 10);
        b[k] = k % 3 == 0 ? st_v2(a[k].x + (k % 2 ? 300 : 0), a[k].y + (k % 2 ? 0 : 300))
                          : st_v2(urand() * 800, urand() * 600);
        hit[k] = st_world_raycast(w, a[k], b[k], NULL, &plain[k]);
    }
    CHECK(st_world_raycast_prepare(w), "prepare failed");
    int differ = 0, hits = 0;
    for (int k = 0; k < 3000; k++) {
        st_raycast_hit h;
        bool g = st_world_raycast(w, a[k], b[k], NULL, &h);
        hits += g;
        if (!same_hit(g, &h, hit[k], &plain[k]) && differ++ < 3)
            fprintf(stderr, "  ray %d: grid %d fraction %.17g kind %d, every shape %d fraction %.17g kind %d\n", k, g,
                    h.fraction, h.kind, hit[k], plain[k].fraction, plain[k].kind);
    }
    CHECK(differ == 0 && hits > 1000, "%d of 3000 rays differ with the grid (%d hits)", differ, hits);
    /* a change makes the grid stale: rays see the change at once */
    st_obstacle_info first;
    st_world_obstacle_get(w, 0, &first);
    int blocker = st_world_add_obstacle(w, st_v2(400, 700), 50); /* below the rest */
    st_raycast_hit h;
    CHECK(st_world_raycast(w, st_v2(300, 700), st_v2(500, 700), NULL, &h) && h.obstacle == blocker,
          "a circle added after prepare is not seen");
    st_world_raycast_prepare(w);
    st_world_set_obstacle_pos(w, blocker, st_v2(2000, 2000));
    bool seen = st_world_raycast(w, st_v2(300, 700), st_v2(500, 700), NULL, &h) && h.obstacle == blocker;
    CHECK(!seen, "a circle moved away after prepare is still seen");
    st_world_remove_obstacle(w, first.id);
    st_world_raycast_prepare(w);
    differ = 0;
    for (int k = 0; k < 3000; k++) {
        st_raycast_hit g1, g2;
        bool h1 = st_world_raycast(w, a[k], b[k], NULL, &g1);
        st_world_add_wall(w, st_v2(-100, -100), st_v2(-90, -100)); /* stale again: every shape */
        bool h2 = st_world_raycast(w, a[k], b[k], NULL, &g2);
        differ += !same_hit(h1, &g1, h2, &g2);
        st_world_raycast_prepare(w);
    }
    CHECK(differ == 0, "%d rays differ after a removal", differ);
    st_world_destroy(w);
}

/* Shapes and rays near the ends of the double range: answers or misses,
 * never a NaN, never a hang (the grid gives up and every shape is tested). */
static void test_huge_coordinates(void)
{
    st_world *w = open_world();
    st_world_add_obstacle(w, st_v2(1e307, 0), 1e306);
    st_world_add_obstacle(w, st_v2(-1e307, 5), 1e300);
    st_vec2 poly[3] = {{-1.5e308, -1e308}, {1.5e308, -1e308}, {0, 1.7e308}};
    st_world_add_polygon(w, poly, 3, false);
    st_world_add_wall(w, st_v2(-1e308, 1e308), st_v2(1e308, -1e308));
    st_world_add_obstacle(w, st_v2(10, 10), 1e-300);
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) st_world_raycast_prepare(w);
        for (int k = 0; k < 400; k++) {
            double s = pow(10.0, urand() * 616 - 308);
            st_vec2 a = st_v2((urand() - 0.5) * s, (urand() - 0.5) * s);
            st_vec2 b = st_v2((urand() - 0.5) * s, (urand() - 0.5) * s);
            st_raycast_hit h;
            if (!st_world_raycast(w, a, b, NULL, &h)) continue;
            if (!st_v2_finite(h.point) || !st_v2_finite(h.normal) || !(h.fraction >= 0 && h.fraction <= 1) ||
                !isfinite(h.distance))
                bad++;
        }
    }
    CHECK(bad == 0, "%d hits with a non-finite or out-of-range value", bad);
    st_world_destroy(w);
}

/* A fan of rays among wandering agents, hashed step after step: the same on
 * 1 and 2 threads. */
static uint64_t fan_hash(int threads)
{
    st_world_def d = st_default_world_def();
    d.width = 800;
    d.height = 600;
    d.threads = threads;
    d.seed = 5;
    st_world *w = st_world_create(&d);
    st_world_add_obstacle(w, st_v2(400, 300), 40);
    st_world_add_wall(w, st_v2(100, 100), st_v2(100, 500));
    st_behavior b = st_default_behavior(ST_WANDER);
    for (int i = 0; i < 300; i++) {
        st_agent_id a = spawn_at(w, 50 + (i % 20) * 35, 50 + (i / 20) * 35, 4, 1 + i % 3);
        st_agent_set_behaviors(w, a, &b, 1);
    }
    st_raycast_opts o = st_raycast_default();
    o.agents = true;
    uint64_t h = 1469598103934665603ULL;
    for (int s = 0; s < 120; s++) {
        st_world_step(w, 1.0 / 60);
        for (int k = 0; k < 32; k++) {
            st_vec2 c = st_v2(400, 300), to = st_v2_add(c, st_v2_from_angle(k * 0.19635, 500));
            st_raycast_hit hit;
            o.tag = k % 4 == 0 ? ST_TAG_ANY : k % 3 + 1;
            if (!st_world_raycast(w, st_v2(20, 20), to, &o, &hit)) continue;
            uint64_t v[4];
            memcpy(&v[0], &hit.fraction, 8);
            v[1] = (uint64_t)hit.kind;
            v[2] = st_agent_serial(w, hit.agent);
            v[3] = (uint64_t)hit.obstacle * 31 + (uint64_t)hit.wall;
            for (int q = 0; q < 4; q++) h = (h ^ v[q]) * 1099511628211ULL;
        }
    }
    st_world_destroy(w);
    return h;
}

static void test_same_on_threads(void)
{
    uint64_t one = fan_hash(1), two = fan_hash(2);
    CHECK(one == two, "raycast hits differ: %016llx on 1 thread, %016llx on 2", (unsigned long long)one,
          (unsigned long long)two);
}

int main(void)
{
    RUN(test_circle);
    RUN(test_polygon_and_polyline);
    RUN(test_walls_and_nearest);
    RUN(test_agents);
    RUN(test_player_against_wall);
    RUN(test_random_rays_agree_with_geometry);
    RUN(test_grid_agrees_with_every_shape);
    RUN(test_huge_coordinates);
    RUN(test_same_on_threads);
    return tu_summary();
}
