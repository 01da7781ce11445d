/*
 * move_split.c — a group order split across doors.
 *
 * A group's route is one line, and where it narrows (a door) the whole
 * group queues: forty members through one door take about ten seconds
 * (issue 28's scene passes 3.6 to 4 a second through a 50-wide door)
 * while the doors beside it stand empty. So when the first route has a
 * bottleneck the group would queue at for long, a second route is asked
 * for with that bottleneck kept out of the search (the cells around it
 * marked blocked while the search runs), and a third with both kept out.
 * Each is searched through the path queue like any other request, within
 * the step's budget; members hold still until the last one is in (a
 * failed search, e.g. with no other door, just ends the asking).
 *
 * The members are then shared among the routes by expected arrival: a
 * route's time is its length at the members' speed plus its queue (the
 * members already on it over its bottleneck's flow), and each member in
 * turn goes where that sum is least (so a longer way round takes members
 * only when the short one's queue outgrows the difference). Shares are
 * contiguous across the group (members ordered across the way the group
 * goes, routes by where their bottleneck lies across it), so sub-groups
 * do not cross one another. Each sub-group walks its own lanes on its own
 * route; all go to the one set of slots (move_group.c), given in the same
 * order across, so the ways in to them do not cross either.
 *
 * Not split: groups whose members pass through one another (no ORCA, no
 * world contacts: they do not queue), tile grids, routes without a narrow
 * place away from their ends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "geom.h"
#include "move.h"
#include "nav_internal.h"

/// Measured flow through a narrow place: 0.3 of one member per lane
/// spacing (2.2 bodies) at full speed on each lane the width holds (issue
/// 28's door: 3 lanes, about 4 members a second at speed 60, body 6).
#define MV_FLOW_SHARE 0.3

/// A second route is asked for when the queue at the first one's
/// bottleneck would add more than this share of its travel time.
#define MV_SPLIT_QUEUE 0.25

void mv__keepout(st_navgrid *nav, const mv_request *r, int sign)
{
    if (nav->tiles) return;
    nav->keep_n = sign > 0 ? r->keep_n : 0;
    for (int k = 0; k < r->keep_n && sign > 0; k++) nav->keep_c[k] = r->keep[k].c, nav->keep_r[k] = r->keep[k].r;
    for (int k = 0; k < r->keep_n; k++) {
        const mv_keepout *o = &r->keep[k];
        int x0 = (int)floor((o->c.x - o->r) / nav->cell), x1 = (int)floor((o->c.x + o->r) / nav->cell);
        int y0 = (int)floor((o->c.y - o->r) / nav->cell), y1 = (int)floor((o->c.y + o->r) / nav->cell);
        x0 = x0 < 0 ? 0 : x0;
        y0 = y0 < 0 ? 0 : y0;
        x1 = x1 >= nav->cols ? nav->cols - 1 : x1;
        y1 = y1 >= nav->rows ? nav->rows - 1 : y1;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                int c = y * nav->cols + x;
                if (st_v2_dist(nav__center(nav, c), o->c) <= o->r) nav->count[c] += (uint32_t)sign;
            }
    }
}

/// A route's narrowest place: where, how wide (the free span across it).
typedef struct mv_neck {
    st_vec2 at;
    double span;   // INFINITY: no place narrower than the group
    double length; // the route's length
} mv_neck;

/// The members waiting for the group's routes: their count, centre,
/// slowest top speed and largest radius, and how many of them crowd (they
/// avoid the others with ORCA, or the world pushes bodies apart): members
/// that pass through one another never queue at a door.
static int waiting(const st_world *w, const mv_group *g, st_vec2 *centre, double *speed, double *body, int *crowd)
{
    *crowd = 0;
    const st_mover *m = w->mover;
    int n = 0;
    st_vec2 c = st_v2(0.0, 0.0);
    *speed = INFINITY;
    *body = 0.0;
    for (int k = 0; k < m->n; k++) {
        const mv_entry *e = &m->e[k];
        int i = e->live && e->group == g->handle && e->state == ST_MOVE_WAITING ? st__dense(w, e->id) : -1;
        if (i < 0) continue;
        const st_body *b = &w->bodies[i];
        double v = e->def.speed > 0.0 && e->def.speed < b->max_speed ? e->def.speed : b->max_speed;
        *speed = fmin(*speed, v);
        *body = fmax(*body, b->radius);
        c = st_v2_add(c, b->pos);
        n++;
        *crowd += w->contacts || (b->avoid & ST__AV_ORCA);
    }
    *centre = n ? st_v2_scale(c, 1.0 / n) : c;
    return n;
}

/// Free room from p along dir (<= h), by bisection on the grid's sight.
static double room(st_navgrid *nav, st_vec2 p, st_vec2 dir, double h)
{
    if (mv__fits(nav, p, st_v2_add(p, st_v2_scale(dir, h)), nav->clearance)) return h;
    double lo = 0.0, hi = h;
    for (int it = 0; it < 8; it++) {
        double t = 0.5 * (lo + hi);
        if (mv__fits(nav, p, st_v2_add(p, st_v2_scale(dir, t)), nav->clearance)) lo = t;
        else hi = t;
    }
    return lo;
}

/// The narrowest place along route p (n points) narrower than `wide`,
/// sampled every two cells, not within `end` of either end.
static mv_neck neck_of(st_navgrid *nav, const st_vec2 *p, int n, double wide, double end)
{
    mv_neck nk = {p[0], INFINITY, 0.0};
    double step = 2.0 * nav->cell, h = 0.5 * wide, total = 0.0;
    for (int k = 0; k + 1 < n; k++) total += st_v2_dist(p[k], p[k + 1]);
    nk.length = total;
    double s = 0.0;
    for (int k = 0; k + 1 < n; k++) {
        st_vec2 d = st_v2_sub(p[k + 1], p[k]);
        double len = st_v2_len(d);
        if (len <= 0.0) continue;
        st_vec2 nl = st_v2_perp(st_v2_scale(d, 1.0 / len));
        int parts = (int)ceil(len / step);
        for (int q = 0; q < parts; q++) {
            double at = s + len * q / parts;
            if (at < end || at > total - end) continue;
            st_vec2 sp = st_v2_lerp(p[k], p[k + 1], (double)q / parts);
            double l = room(nav, sp, nl, h), r = room(nav, sp, st_v2_scale(nl, -1.0), h);
            if (l + r < wide && l + r < nk.span) {
                nk.span = l + r;
                nk.at = st_v2_add(sp, st_v2_scale(nl, 0.5 * (l - r)));
            }
        }
        s += len;
    }
    return nk;
}

/// Members a second through a place `span` wide.
static double flow(double span, double speed, double body)
{
    if (!(span < INFINITY)) return INFINITY;
    double lane = 2.2 * body;
    return MV_FLOW_SHARE * (1.0 + floor(span / lane)) * speed / lane;
}

static bool hold_route(st_world *w, mv_group *g, const st_vec2 *p, int n, int part)
{
    int at = 0;
    for (int k = 0; k < part; k++) at += g->held_n[k];
    if (!st__grow(&w->mem, (void **)&g->held, &g->held_cap, at + n, sizeof *g->held)) return false;
    memcpy(g->held + at, p, (size_t)n * sizeof *p);
    g->held_n[part] = n;
    g->parts = part + 1;
    return true;
}

static const st_vec2 *held_route(const mv_group *g, int part, int *n)
{
    int at = 0;
    for (int k = 0; k < part; k++) at += g->held_n[k];
    *n = g->held_n[part];
    return g->held + at;
}

/// Whether route p passes through any of the group's keep-out regions
/// (the smoothing's exact sight lines may cut through one).
static bool crosses_keepout(const mv_group *g, const st_vec2 *p, int n)
{
    for (int k = 0; k + 1 < n; k++)
        for (int q = 0; q < g->keep_n; q++)
            if (st_v2_dist(st__closest_on_segment(g->keep[q].c, p[k], p[k + 1]), g->keep[q].c) < g->keep[q].r)
                return true;
    return false;
}

typedef struct mv_across {
    double lat;
    int k;
} mv_across;

static int by_across(const void *a, const void *b)
{
    const mv_across *x = a, *y = b;
    if (x->lat != y->lat) return x->lat < y->lat ? -1 : 1;
    return x->k - y->k;
}

/// Shares the waiting members among the held routes and lays their lanes.
static void share(st_world *w, mv_group *g, int nm, st_vec2 centre, double speed, double body)
{
    st_mover *m = w->mover;
    double wide = 4.0 * body * sqrt((double)nm) + 2.0 * g->radius;
    mv_neck nk[MV_PARTS];
    int count[MV_PARTS] = {0};
    mv_across ra[MV_PARTS];
    st_vec2 side = st_v2_perp(g->facing);
    for (int j = 0; j < g->parts; j++) {
        int n;
        const st_vec2 *p = held_route(g, j, &n);
        nk[j] = neck_of(g->nav, p, n, wide, 2.0 * g->radius + 2.0 * g->nav->cell);
        // Across the way: where its narrow place is, else its middle point.
        st_vec2 at = nk[j].span < INFINITY ? nk[j].at : p[n / 2];
        ra[j] = (mv_across){st_v2_dot(st_v2_sub(at, centre), side), j};
    }
    for (int q = 0; q < nm; q++) { // each in turn where it arrives soonest
        int best = 0;
        double bt = INFINITY;
        for (int j = 0; j < g->parts; j++) {
            double t = nk[j].length / speed + (count[j] + 1) / flow(nk[j].span, speed, body);
            if (t < bt - 1e-9) bt = t, best = j;
        }
        count[best]++;
    }
    int8_t *part_of = st__calloc(&w->mem, (size_t)m->n + 1, 1);
    mv_across *ma = st__alloc(&w->mem, (size_t)nm * sizeof *ma);
    if (!part_of || !ma) { // all on the first route
        st__free(part_of);
        st__free(ma);
        int n;
        const st_vec2 *p = held_route(g, 0, &n);
        mv__lay_lanes(w, g, p, n, NULL, 0);
        return;
    }
    int c = 0;
    for (int k = 0; k < m->n && c < nm; k++) {
        mv_entry *e = &m->e[k];
        int i = e->live && e->group == g->handle && e->state == ST_MOVE_WAITING ? st__dense(w, e->id) : -1;
        if (i >= 0) ma[c++] = (mv_across){st_v2_dot(st_v2_sub(w->bodies[i].pos, centre), side), k};
    }
    qsort(ma, (size_t)c, sizeof *ma, by_across);
    qsort(ra, (size_t)g->parts, sizeof *ra, by_across);
    for (int a = 0, j = 0; j < g->parts; j++)
        for (int q = 0; q < count[ra[j].k] && a < c; q++) part_of[ma[a++].k] = (int8_t)ra[j].k;
    // Slots across the way the group goes (the routes' first legs differ).
    mv__assign_slots(w, g, centre, g->facing);
    for (int j = 0; j < g->parts; j++) {
        int n;
        const st_vec2 *p = held_route(g, j, &n);
        if (count[j] > 0) mv__lay_lanes(w, g, p, n, part_of, j);
    }
    st__free(part_of);
    st__free(ma);
}

/// Whether to ask for another route, and with which region kept out.
static bool ask_more(st_world *w, mv_group *g, int nm, double speed, double body)
{
    if (g->nav->tiles || g->parts >= MV_PARTS || g->keep_n >= MV_PARTS - 1) return false;
    int n;
    const st_vec2 *p = held_route(g, g->parts - 1, &n);
    double wide = 4.0 * body * sqrt((double)nm) + 2.0 * g->radius;
    double end = 2.0 * g->radius + 4.0 * g->nav->cell + wide;
    mv_neck nk = neck_of(g->nav, p, n, wide, end);
    if (!(nk.span < INFINITY) || nm / flow(nk.span, speed, body) < MV_SPLIT_QUEUE * nk.length / speed) return false;
    // The bottleneck's free cells and a cell round them.
    g->keep[g->keep_n++] = (mv_keepout){nk.at, 0.5 * nk.span + g->nav->clearance + 1.5 * g->nav->cell};
    (void)w;
    return true;
}

void mv__group_part(st_world *w, mv_group *g, const st_vec2 *p, int n, int part, st_nav_result why,
                    const st_nav_job *job)
{
    bool linked = n > 0 && job && mv__job_linked(job);
    if (linked && part == 0) {
        mv__lay_linked(w, g, p, n, job);
        return;
    }
    if (linked) n = 0; // another way, but over a link: not taken
    if (n == 0 && part == 0) {
        mv__group_failed(w, g, why);
        return;
    }
    if (n > 0 && part > 0 && crosses_keepout(g, p, n)) n = 0; // not another way after all
    if (n > 0 && !hold_route(w, g, p, n, part)) n = 0;
    if (part == 0 && n == 0) {
        mv__group_failed(w, g, ST_NAV_NO_MEMORY);
        return;
    }
    st_vec2 centre;
    double speed, body;
    int crowd;
    int nm = waiting(w, g, &centre, &speed, &body, &crowd);
    if (nm == 0) return;
    if (n > 0 && crowd > 0 && ask_more(w, g, crowd, speed, body)) {
        // From the member the first route started from (members hold still).
        st_agent_id from = {0};
        const st_mover *m = w->mover;
        double bd = INFINITY;
        for (int k = 0; k < m->n; k++) {
            int i = m->e[k].live && m->e[k].group == g->handle ? st__dense(w, m->e[k].id) : -1;
            if (i >= 0 && st_v2_dist2(w->bodies[i].pos, g->held[0]) < bd)
                bd = st_v2_dist2(w->bodies[i].pos, g->held[0]), from = m->e[k].id;
        }
        if (mv__request_group(w, from, g, g->parts)) return;
    }
    if (g->parts <= 1) {
        int hn;
        const st_vec2 *hp = held_route(g, 0, &hn);
        mv__lay_lanes(w, g, hp, hn, NULL, 0);
        return;
    }
    share(w, g, nm, centre, speed, body);
}
