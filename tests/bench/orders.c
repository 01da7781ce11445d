/*
 * orders.c — steer_bench's rows for orders (--only orders): a 1,000-unit
 * order given as 1,000 move_to calls and as one move_group, on an open
 * map with pillars and on a map with a wall and three doors, at two
 * budgets. Each row: steps until every path was planned, steps until every
 * unit arrived, the most work one step's planning took (units, and its
 * wall time), the planning's total time, and ms per step over the run.
 * The planning time is measured around the path queue alone (the first
 * step after each order is timed with and without the queue's share).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orders.h"
#include "steer.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct order_case {
    const char *name;
    bool doors;      // the wall with three doors down the middle
    bool group;      // one move_group instead of 1,000 move_to
    long budget;
    int units;
} order_case;

static st_world *make_map(bool doors, st_navgrid **nav)
{
    st_world_def d = st_default_world_def();
    d.width = d.height = 1000;
    d.edges = ST_EDGES_NONE;
    d.seed = 9;
    st_world *w = st_world_create(&d);
    if (doors) {
        const double ys[][2] = {{0, 200}, {260, 470}, {530, 740}, {800, 1000}};
        for (int k = 0; k < 4; k++) {
            st_vec2 p[4] = {{490, ys[k][0]}, {510, ys[k][0]}, {510, ys[k][1]}, {490, ys[k][1]}};
            st_world_add_polygon(w, p, 4, true);
        }
    } else {
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 5; x++) st_world_add_obstacle(w, st_v2(200 + 150 * x, 200 + 150 * y), 30);
    }
    st_navgrid_def g = st_default_navgrid_def();
    g.cell = 8;
    g.clearance = 4;
    *nav = st_navgrid_create(w, &g);
    return w;
}

static void run_case(const order_case *c)
{
    st_navgrid *nav;
    st_world *w = make_map(c->doors, &nav);
    st_world_set_path_budget(w, c->budget);
    int n = c->units;
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(20 + 6 * (i % 25), 20 + (i / 25) * (960.0 / ((n + 24) / 25)));
        a.radius = 2;
        a.max_speed = 40;
        a.max_force = 400;
        ids[i] = st_world_spawn(w, &a);
    }
    st_move_def md = st_default_move_def();
    md.nav = nav;
    if (c->group) {
        st_group_def gd = st_default_group_def();
        gd.move = md;
        st_world_move_group(w, ids, n, st_v2(850, 500), &gd);
    } else {
        for (int i = 0; i < n; i++) {
            st_vec2 p = st_agent_pos(w, ids[i]);
            st_agent_move_to(w, ids[i], st_v2(1000 - p.x, 1000 - p.y), &md);
        }
    }
    int planned = -1, arrived_at = -1, steps = 60 * 90;
    long worst_work = 0;
    double worst_ms = 0, plan_ms = 0, t_all = now();
    int plan_steps = 0;
    for (int s = 0; s < steps && arrived_at < 0; s++) {
        // The queue's share of a step: begin (it runs there) timed apart.
        double t0 = now();
        st_world_step_begin(w, st_world_dt(w));
        double t1 = now();
        st_world_step_end(w);
        long work = st_world_path_work(w);
        if (work > 0) {
            plan_steps++;
            plan_ms += (t1 - t0) * 1e3;
            if ((t1 - t0) * 1e3 > worst_ms) worst_ms = (t1 - t0) * 1e3;
        }
        if (work > worst_work) worst_work = work;
        if (planned < 0 && st_world_path_pending(w) == 0) planned = s + 1;
        int home = 0;
        for (int i = 0; i < n; i++) home += st_agent_move_state(w, ids[i]) == ST_MOVE_ARRIVED;
        if (home == n) arrived_at = s + 1;
    }
    double total = (now() - t_all) * 1e3;
    int home = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        st_move_state ms = st_agent_move_state(w, ids[i]);
        home += ms == ST_MOVE_ARRIVED;
        failed += ms == ST_MOVE_FAILED || ms == ST_MOVE_STUCK;
    }
    printf("%-28s %6d %6ld %8d %9d %10ld %9.3f %9.3f %9.1f   %d home, %d failed; %.3f ms/step\n", c->name, n,
           c->budget, planned, arrived_at, worst_work, plan_steps ? plan_ms / plan_steps : 0.0, worst_ms, plan_ms, home,
           failed, total / (arrived_at > 0 ? arrived_at : steps));
    free(ids);
    st_navgrid_destroy(nav);
    st_world_destroy(w);
}

void order_rows(bool quick)
{
    printf("\norders (1,000-unit orders on a 1000 x 1000 map, cell 8; the queue's planning per step, --only orders)\n");
    printf("%-28s %6s %6s %8s %9s %10s %9s %9s %9s\n", "order", "units", "budget", "planned", "arrived", "worst work",
           "mean ms", "worst ms", "plan ms");
    const order_case cases[] = {
        {"move_to x1000, pillars", false, false, 2048, 1000},
        {"move_to x1000, pillars", false, false, 8192, 1000},
        {"move_to x1000, 3 doors", true, false, 2048, 1000},
        {"move_group 1000, pillars", false, true, 2048, 1000},
        {"move_group 1000, 3 doors", true, true, 2048, 1000},
        {"move_to x250, 3 doors", true, false, 2048, 250},
    };
    int rows = quick ? 1 : (int)(sizeof cases / sizeof *cases);
    for (int k = 0; k < rows; k++) run_case(&cases[k]);
}
