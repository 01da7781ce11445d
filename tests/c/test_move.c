/*
 * test_move.c — orders through the C API (move.c, move_group.c, nav_job.c):
 * an agent told to go plans, follows, arrives and rests; an unreachable
 * goal fails with its reason; a boxed-in agent replans then reports
 * "stuck"; a door closed by a new obstacle makes the agent take another;
 * a 1,000-agent order spreads its searches over steps within the budget,
 * plans the same paths with any budget and on 1 or 2 threads; and a
 * snapshot taken while searches are under way gives the same steps after
 * a restore.
 */
#include <string.h>

#include "test_util.h"

/// A 400 x 300 room: a wall down x = 190..210 with two doors (y 40..80 and
/// 220..260), and a cell-5 grid of clearance 4.
static st_world *room(int threads, bool orca)
{
    st_world_def d = st_default_world_def();
    d.width = 400;
    d.height = 300;
    d.edges = ST_EDGES_NONE;
    d.threads = threads;
    d.seed = 11;
    st_world *w = st_world_create(&d);
    const double ys[][2] = {{0, 40}, {80, 220}, {260, 300}};
    for (int k = 0; k < 3; k++) {
        st_vec2 p[4] = {{190, ys[k][0]}, {210, ys[k][0]}, {210, ys[k][1]}, {190, ys[k][1]}};
        st_world_add_polygon(w, p, 4, true);
    }
    (void)orca;
    return w;
}

static st_navgrid *grid(st_world *w)
{
    st_navgrid_def g = st_default_navgrid_def();
    g.cell = 5;
    g.clearance = 4;
    return st_navgrid_create(w, &g);
}

static void avoid(st_world *w, st_agent_id id, bool locked)
{
    st_avoid_def a = st_default_avoid_def();
    a.mode = ST_AVOIDANCE_ORCA;
    a.locked = locked;
    st_agent_set_avoidance(w, id, &a);
}

static st_agent_id unit(st_world *w, st_vec2 pos, bool orca)
{
    st_agent_def a = st_default_agent_def();
    a.pos = pos;
    a.radius = 3;
    a.max_speed = 30;
    a.max_force = 200;
    st_agent_id id = st_world_spawn(w, &a);
    if (orca) avoid(w, id, false);
    return id;
}

/// How deep a body of radius r at p is inside the room's wall (<= 0: clear).
static double depth_in_walls(st_vec2 p, double r)
{
    const double ys[][2] = {{0, 40}, {80, 220}, {260, 300}};
    double worst = -INFINITY;
    for (int k = 0; k < 3; k++) {
        double dx = fmax(fmax(190 - p.x, p.x - 210), 0), dy = fmax(fmax(ys[k][0] - p.y, p.y - ys[k][1]), 0);
        double out = sqrt(dx * dx + dy * dy);
        double in = fmin(fmin(p.x - 190, 210 - p.x), fmin(p.y - ys[k][0], ys[k][1] - p.y));
        worst = fmax(worst, out > 0 ? r - out : r + in);
    }
    return worst;
}

static int count_events(const st_world *w, st_agent_id id, st_move_event_kind kind, st_nav_result *why)
{
    const st_move_event *ev;
    int n = st_world_move_events(w, &ev), c = 0;
    for (int k = 0; k < n; k++)
        if (st_id_equal(ev[k].id, id) && ev[k].kind == kind) {
            c++;
            if (why) *why = ev[k].reason;
        }
    return c;
}

/// Through a door, to rest at the goal: arrives once, within stop_distance,
/// never far past it, then stands still.
static void move_to_arrives_and_rests(void)
{
    st_world *w = room(1, false);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(50, 150), false);
    st_move_def d = st_default_move_def();
    d.nav = g;
    st_vec2 goal = st_v2(350, 150);
    CHECK(st_agent_move_to(w, a, goal, &d), "ordered");
    CHECK(st_agent_move_state(w, a) == ST_MOVE_WAITING, "waiting for its path: %s",
          st_move_state_name(st_agent_move_state(w, a)));
    int arrived = 0, steps = 0;
    double max_past = 0.0;
    for (; steps < 60 * 40 && !arrived; steps++) {
        st_world_step(w, st_world_dt(w));
        arrived += count_events(w, a, ST_MOVE_EVENT_ARRIVED, NULL);
        st_vec2 p = st_agent_pos(w, a);
        CHECK(depth_in_walls(p, 3) <= 0.5, "never more than 0.5 in the wall: %g at (%g, %g)", depth_in_walls(p, 3),
              p.x, p.y);
    }
    CHECK(arrived == 1, "arrived once (%d) in %d steps", arrived, steps);
    CHECK(st_agent_move_state(w, a) == ST_MOVE_ARRIVED, "state %s", st_move_state_name(st_agent_move_state(w, a)));
    double stop = 0.5 * 3;
    CHECK(st_v2_dist(st_agent_pos(w, a), goal) <= stop + 1e-9, "within stop_distance: %g",
          st_v2_dist(st_agent_pos(w, a), goal));
    for (int k = 0; k < 600; k++) {
        st_world_step(w, st_world_dt(w));
        max_past = fmax(max_past, st_v2_dist(st_agent_pos(w, a), goal));
    }
    CHECK(max_past <= 2.0 * stop, "stays home: %g from the goal at most", max_past);
    CHECK(st_agent_speed(w, a) < 1e-6, "at rest: speed %g", st_agent_speed(w, a));
    CHECK(st_agent_move_remaining(w, a) == 0.0, "nothing left: %g", st_agent_move_remaining(w, a));
    st_agent_stop_moving(w, a);
    CHECK(st_agent_move_state(w, a) == ST_MOVE_IDLE, "stop_moving: idle");
    CHECK(isnan(st_agent_move_remaining(w, a)), "no order: NAN");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// A goal walled in on every side: the order fails with "no route".
static void unreachable_goal_fails(void)
{
    st_world *w = room(1, false);
    st_vec2 box[4] = {{300, 100}, {380, 100}, {380, 180}, {300, 180}};
    st_world_add_polygon(w, box, 4, false); // an open chain: its inside stays free, cut off
    st_vec2 lid[2] = {{300, 100}, {300, 180}};
    st_world_add_polygon(w, lid, 2, false);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(50, 150), false);
    st_move_def d = st_default_move_def();
    d.nav = g;
    st_agent_move_to(w, a, st_v2(340, 140), &d);
    st_nav_result why = ST_NAV_OK;
    int failed = 0;
    for (int k = 0; k < 10 && !failed; k++) {
        st_world_step(w, st_world_dt(w));
        failed = count_events(w, a, ST_MOVE_EVENT_FAILED, &why);
    }
    CHECK(failed == 1, "move_failed reported");
    CHECK(why == ST_NAV_NO_ROUTE, "reason %s", st_nav_result_name(why));
    CHECK(st_agent_move_state(w, a) == ST_MOVE_FAILED, "state %s", st_move_state_name(st_agent_move_state(w, a)));
    st_vec2 p0 = st_agent_pos(w, a);
    for (int k = 0; k < 60; k++) st_world_step(w, st_world_dt(w));
    CHECK(st_v2_dist(st_agent_pos(w, a), p0) < 1e-9, "a failed order holds still");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// Boxed in by a locked crowd in the open: no progress, replans, then stuck.
static void boxed_in_reports_stuck(void)
{
    st_world *w = room(1, true);
    st_world_set_contacts(w, true);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(80, 150), true);
    for (int k = 0; k < 12; k++) {
        double t = 2.0 * ST_PI * k / 12;
        st_agent_id b = unit(w, st_v2(80 + 8 * cos(t), 150 + 8 * sin(t)), true);
        avoid(w, b, true);
    }
    st_move_def d = st_default_move_def();
    d.nav = g;
    d.stuck_time = 1.0;
    d.retries = 2;
    st_agent_move_to(w, a, st_v2(150, 150), &d);
    int stuck = 0, replans = 0, steps = 0;
    st_move_state last = ST_MOVE_WAITING;
    for (; steps < 60 * 10 && !stuck; steps++) {
        st_world_step(w, st_world_dt(w));
        st_move_state s = st_agent_move_state(w, a);
        if (last == ST_MOVE_MOVING && s == ST_MOVE_WAITING) replans++;
        last = s;
        stuck = count_events(w, a, ST_MOVE_EVENT_STUCK, NULL);
    }
    CHECK(replans == 2, "replanned %d times before giving up (retries 2)", replans);
    CHECK(stuck == 1, "reported stuck after %d steps", steps);
    CHECK(steps <= 60 * 4, "within (retries + 1) x stuck_time and the searches: %d steps", steps);
    CHECK(st_agent_move_state(w, a) == ST_MOVE_STUCK, "state %s", st_move_state_name(st_agent_move_state(w, a)));
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// On its way to the lower door, the door is closed by a new obstacle: the
/// agent (only that one) plans again and goes through the upper door.
static void closed_door_replans(void)
{
    st_world *w = room(1, false);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(100, 250), false);
    st_agent_id far = unit(w, st_v2(60, 30), false); // bound through the upper door: unaffected
    st_move_def d = st_default_move_def();
    d.nav = g;
    st_agent_move_to(w, a, st_v2(300, 250), &d);
    st_agent_move_to(w, far, st_v2(300, 30), &d);
    for (int k = 0; k < 30; k++) st_world_step(w, st_world_dt(w));
    CHECK(st_agent_move_state(w, a) == ST_MOVE_MOVING, "moving: %s", st_move_state_name(st_agent_move_state(w, a)));
    st_vec2 plug[4] = {{190, 260}, {210, 260}, {210, 220}, {190, 220}};
    st_world_add_polygon(w, plug, 4, true);
    bool replanned = false, far_replanned = false, through_upper = false;
    for (int k = 0; k < 60 * 30 && st_agent_move_state(w, a) != ST_MOVE_ARRIVED; k++) {
        st_world_step(w, st_world_dt(w));
        replanned |= st_agent_move_state(w, a) == ST_MOVE_WAITING;
        far_replanned |= st_agent_move_state(w, far) == ST_MOVE_WAITING;
        st_vec2 p = st_agent_pos(w, a);
        through_upper |= p.x > 190 && p.x < 210 && p.y < 80;
        CHECK(!(p.x > 187 && p.x < 213 && p.y > 217), "not through the closed door: (%g, %g)", p.x, p.y);
    }
    CHECK(replanned, "replanned when the door closed");
    CHECK(!far_replanned, "the other agent's route was clear: no replan");
    CHECK(through_upper, "went through the upper door");
    CHECK(st_agent_move_state(w, a) == ST_MOVE_ARRIVED, "and arrived: %s",
          st_move_state_name(st_agent_move_state(w, a)));
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

#define MANY 1000

typedef struct many_run {
    uint64_t checksum;     // after the run
    long worst_work;       // the most one step's planning took
    int steps_planned;     // steps until no request was left
    int arrived;
    st_vec2 (*first_leg)[2]; // each agent's route start and first waypoint, when it got it
    bool stop_when_planned;  // stop once every agent has its route
} many_run;

/// 1,000 agents on a 1000 x 1000 map with pillars, each ordered across it.
static void run_many(int threads, long budget, int steps, many_run *out)
{
    st_world_def d = st_default_world_def();
    d.width = d.height = 1000;
    d.edges = ST_EDGES_NONE;
    d.threads = threads;
    d.seed = 5;
    st_world *w = st_world_create(&d);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) st_world_add_obstacle(w, st_v2(200 + 150 * x, 200 + 150 * y), 30);
    st_navgrid_def gd = st_default_navgrid_def();
    gd.cell = 10;
    gd.clearance = 4;
    st_navgrid *g = st_navgrid_create(w, &gd);
    st_world_set_path_budget(w, budget);
    st_agent_id *ids = malloc(MANY * sizeof *ids);
    st_move_def md = st_default_move_def();
    md.nav = g;
    for (int i = 0; i < MANY; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(20 + 6 * (i % 25), 20 + 24 * (i / 25));
        a.radius = 2;
        a.max_speed = 40;
        a.max_force = 400;
        ids[i] = st_world_spawn(w, &a);
    }
    for (int i = 0; i < MANY; i++)
        st_agent_move_to(w, ids[i], st_v2(980 - 6 * (i % 25), 980 - 24 * (i / 25)), &md);
    out->worst_work = 0;
    out->steps_planned = -1;
    for (int s = 0; s < steps; s++) {
        st_world_step(w, st_world_dt(w));
        out->worst_work = st_world_path_work(w) > out->worst_work ? st_world_path_work(w) : out->worst_work;
        if (out->steps_planned < 0 && st_world_path_pending(w) == 0) out->steps_planned = s + 1;
        int legs = 0;
        for (int i = 0; out->first_leg && i < MANY; i++) {
            const st_vec2 *p;
            int next;
            if (out->first_leg[i][0].x == 0 && st_agent_move_route(w, ids[i], &p, &next) >= 2) {
                out->first_leg[i][0] = p[0];
                out->first_leg[i][1] = p[1];
            }
            legs += out->first_leg[i][0].x != 0;
        }
        if (out->stop_when_planned && out->steps_planned >= 0 && legs == MANY) break;
    }
    out->arrived = 0;
    for (int i = 0; i < MANY; i++) out->arrived += st_agent_move_state(w, ids[i]) == ST_MOVE_ARRIVED;
    out->checksum = st_world_checksum(w);
    free(ids);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

static void thousand_order_within_budget(void)
{
    bool light = getenv("STEER_TEST_LIGHT") != NULL;
    int steps = light ? 200 : 60 * 40;
    many_run a = {0}, b = {0}, c = {0};
    a.first_leg = calloc(MANY, sizeof *a.first_leg);
    c.first_leg = calloc(MANY, sizeof *c.first_leg);
    run_many(1, 4096, steps, &a);
    CHECK(a.worst_work <= 4096, "no step planned more than the budget: %ld", a.worst_work);
    CHECK(a.steps_planned > 1, "the searches were spread over %d steps", a.steps_planned);
    printf("  1,000 orders: planned over %d steps, worst step %ld of 4096 units, %d arrived in %d steps\n",
           a.steps_planned, a.worst_work, a.arrived, steps);
    if (!light) CHECK(a.arrived == MANY, "every agent arrived: %d", a.arrived);
    // Two threads: the same world, step for step.
    if (!light) {
        run_many(2, 4096, steps, &b);
        CHECK(b.checksum == a.checksum, "1 and 2 threads agree: %016llx vs %016llx", (unsigned long long)a.checksum,
              (unsigned long long)b.checksum);
    }
    // Another budget: the planning takes other steps, the paths are the same
    // (agents hold still while they wait: each path starts where it stood).
    c.stop_when_planned = true;
    run_many(1, 700, 60 * 60, &c);
    CHECK(c.worst_work <= 700, "budget 700 kept: %ld", c.worst_work);
    CHECK(c.steps_planned > a.steps_planned, "a smaller budget takes more steps: %d vs %d", c.steps_planned,
          a.steps_planned);
    int same = 0, got = 0;
    for (int i = 0; i < MANY; i++) {
        if (a.first_leg[i][0].x == 0 || c.first_leg[i][0].x == 0) continue;
        got++;
        same += st_v2_dist(a.first_leg[i][0], c.first_leg[i][0]) == 0.0 &&
                st_v2_dist(a.first_leg[i][1], c.first_leg[i][1]) == 0.0;
    }
    CHECK(got == MANY && same == got, "the same paths with either budget: %d of %d (of %d)", same, got, MANY);
    free(a.first_leg);
    free(c.first_leg);
}

/// A snapshot while searches are under way and groups are walking: the
/// steps after a restore are the steps after the capture.
static void snapshot_keeps_orders(void)
{
    st_world *w = room(1, true);
    st_world_set_contacts(w, true);
    st_navgrid *g = grid(w);
    st_world_set_path_budget(w, 60); // searches span several steps
    st_agent_id ids[24];
    for (int i = 0; i < 24; i++) ids[i] = unit(w, st_v2(40 + 9 * (i % 6), 120 + 9 * (i / 6)), true);
    st_group_def gd = st_default_group_def();
    gd.move.nav = g;
    int group = st_world_move_group(w, ids, 12, st_v2(330, 150), &gd);
    CHECK(group > 0, "a group: %d", group);
    st_move_def md = st_default_move_def();
    md.nav = g;
    for (int i = 12; i < 24; i++) st_agent_move_to(w, ids[i], st_v2(300 + 3 * i, 40 + 9 * (i - 12)), &md);
    for (int k = 0; k < 3; k++) st_world_step(w, st_world_dt(w));
    CHECK(st_world_path_pending(w) > 0, "requests still queued at the capture: %d", st_world_path_pending(w));
    st_snapshot *s = st_world_snapshot(w);
    CHECK(st_snapshot_orders(s) == 24, "24 orders captured: %d", st_snapshot_orders(s));
    CHECK(!st_snapshot_encodable(s, NULL), "orders name navgrids: no byte form");
    enum { AFTER = 900 };
    uint64_t sums[AFTER];
    for (int k = 0; k < AFTER; k++) {
        st_world_step(w, st_world_dt(w));
        sums[k] = st_world_checksum(w);
    }
    // Meanwhile the grid is queried by others (the search buffers change).
    const st_vec2 *pts;
    int n;
    st_navgrid_path(g, st_v2(20, 20), st_v2(380, 280), &pts, &n);
    CHECK(st_world_restore(w, s), "restored");
    CHECK(st_world_path_pending(w) > 0, "the queue came back");
    int same = 0;
    for (int k = 0; k < AFTER; k++) {
        st_world_step(w, st_world_dt(w));
        same += st_world_checksum(w) == sums[k];
    }
    CHECK(same == AFTER, "the same steps after the restore: %d of %d", same, AFTER);
    int home = 0;
    for (int i = 0; i < 24; i++) home += st_agent_move_state(w, ids[i]) == ST_MOVE_ARRIVED;
    CHECK(home > 0, "and they get somewhere: %d arrived", home);
    st_snapshot_destroy(s);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// Bad input: a NULL grid, a non-finite goal, a dead agent.
static void bad_orders_refused(void)
{
    st_world *w = room(1, false);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(50, 150), false);
    st_move_def d = st_default_move_def();
    CHECK(!st_agent_move_to(w, a, st_v2(100, 100), &d), "no grid: refused");
    d.nav = g;
    CHECK(!st_agent_move_to(w, a, st_v2(NAN, 100), &d), "NaN goal: refused");
    d.stuck_time = 0;
    CHECK(!st_agent_move_to(w, a, st_v2(100, 100), &d), "stuck_time 0: refused");
    d = st_default_move_def();
    d.nav = g;
    st_world_remove(w, a);
    CHECK(!st_agent_move_to(w, a, st_v2(100, 100), &d), "dead agent: refused");
    CHECK(st_agent_move_state(w, a) == ST_MOVE_IDLE, "dead agent: idle");
    st_group_def gd = st_default_group_def();
    gd.move.nav = g;
    CHECK(st_world_move_group(w, &a, 1, st_v2(100, 100), &gd) == 0, "a group of the dead: 0");
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

/// A group naming an agent twice (and a dead one) orders each live one once.
static void group_with_duplicates(void)
{
    st_world *w = room(1, false);
    st_navgrid *g = grid(w);
    st_agent_id a = unit(w, st_v2(50, 150), false), b = unit(w, st_v2(50, 170), false);
    st_agent_id dead = unit(w, st_v2(50, 190), false);
    st_world_remove(w, dead);
    st_agent_id ids[5] = {a, b, a, dead, b};
    st_group_def gd = st_default_group_def();
    gd.move.nav = g;
    int group = st_world_move_group(w, ids, 5, st_v2(330, 150), &gd);
    CHECK(group > 0, "a group: %d", group);
    const st_vec2 *slots;
    const uint8_t *taken;
    CHECK(st_world_group_slots(w, group, &slots, &taken) == 2, "two slots for two live members");
    for (int k = 0; k < 60 * 20; k++) st_world_step(w, st_world_dt(w));
    CHECK(st_agent_move_state(w, a) == ST_MOVE_ARRIVED && st_agent_move_state(w, b) == ST_MOVE_ARRIVED,
          "both arrived: %s, %s", st_move_state_name(st_agent_move_state(w, a)),
          st_move_state_name(st_agent_move_state(w, b)));
    int sa, sb;
    st_agent_move_group(w, a, &sa);
    st_agent_move_group(w, b, &sb);
    CHECK(sa >= 0 && sb >= 0 && sa != sb, "each its own slot: %d, %d", sa, sb);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

int main(void)
{
    RUN(move_to_arrives_and_rests);
    RUN(unreachable_goal_fails);
    RUN(boxed_in_reports_stuck);
    RUN(closed_door_replans);
    RUN(thousand_order_within_budget);
    RUN(snapshot_keeps_orders);
    RUN(bad_orders_refused);
    RUN(group_with_duplicates);
    return tu_summary();
}
