/*
 * move_group.c — group orders: one route for the group, destination slots
 * on free space, filled from the inside out.
 *
 * The slots are laid out in the pattern (block, line, column) around the
 * goal, facing the way the group travels. A slot counts when an agent of
 * the planning radius can stand there and walk to it straight from the
 * goal; the pattern's places that fail are replaced by the nearest
 * lattice places outside it that pass, so no slot is ever in a wall or off
 * the grid. Slots are kept inner first: by row from the block's front
 * (the side facing the way the group travels), each row from the middle.
 *
 * One path is searched for the whole group, from the member nearest the
 * members' centre. Each member joins it at the farthest of its first
 * waypoints it can see (or, seeing none, asks for a path of its own).
 * Once a member is within reach of the goal along its route it takes the
 * innermost free slot, the nearest to it among those equally inner (a
 * row): the first to come fill the front row, later ones the rows behind
 * it, growing back towards where the members come from, so no one has to
 * cross the ones standing to reach its slot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "move.h"
#include "nav_internal.h"
#include "geom.h"
#include "mover.h"

st_group_def st_default_group_def(void)
{
    st_group_def d;
    d.move = st_default_move_def();
    d.spacing = 0.0;
    d.pattern = ST_GROUP_BLOCK;
    d.facing = st_v2(0.0, 0.0);
    return d;
}

mv_group *mv__group(const st_mover *m, int32_t handle)
{
    if (!m || handle <= 0) return NULL;
    for (int k = 0; k < m->group_n; k++)
        if (m->groups[k].handle == handle) return &m->groups[k];
    return NULL;
}

void mv__groups_free(st_mover *m)
{
    for (int k = 0; k < m->group_n; k++) {
        st__free(m->groups[k].slots);
        st__free(m->groups[k].taken);
        st__free(m->groups[k].holder);
        st__free(m->groups[k].held);
    }
    st__free(m->groups);
}

static double inner_key(const mv_group *g, st_vec2 p);
static void retarget(st_world *w, mv_entry *e, st_vec2 pos);

/// Slot k was freed: the member still on its way with the outermost slot
/// behind k takes it, so holes end up at the block's back, not inside it.
static void refill(st_world *w, mv_group *g, int k)
{
    st_mover *m = w->mover;
    double key = inner_key(g, g->slots[k]), worst = key;
    mv_entry *c = NULL;
    for (int q = 0; q < m->n; q++) {
        mv_entry *o = &m->e[q];
        if (!o->live || o->group != g->handle || o->slot < 0 || o->state == ST_MOVE_ARRIVED) continue;
        double ko = inner_key(g, g->slots[o->slot]);
        if (ko > worst + 1e-9) worst = ko, c = o;
    }
    if (!c) return;
    g->taken[c->slot] = 0;
    g->holder[c->slot] = 0;
    g->taken[k] = 1;
    g->holder[k] = (int32_t)(c - m->e) + 1;
    c->slot = k;
    c->goal = g->slots[k];
    int i = st__dense(w, c->id);
    if (i >= 0 && c->state == ST_MOVE_MOVING) retarget(w, c, w->bodies[i].pos);
}

/// The member leaves its group; its slot goes to another member on its
/// way when `refill`.
static void leave(st_world *w, mv_entry *e, bool refill_slot)
{
    mv_group *g = mv__group(w->mover, e->group);
    e->group = 0;
    if (!g) return;
    if (e->slot >= 0 && e->slot < g->slot_n) {
        g->taken[e->slot] = 0;
        g->holder[e->slot] = 0;
        if (refill_slot) refill(w, g, e->slot);
    }
    e->slot = -1;
    if (--g->members <= 0) {
        g->handle = 0; // free: its arrays stay for the next group
        g->ticket++;
    }
}

void mv__leave_group(st_world *w, mv_entry *e) { leave(w, e, true); }

/// Agents a new group order takes from groups it takes whole leave them
/// first, without refills: each refill looks through the whole group for a
/// member still on its way, and all of them are leaving too (a player
/// ordering the same selection again). Agents named twice count twice:
/// at worst a group left with members keeps a hole in its block.
static void leave_whole_groups(st_world *w, const st_agent_id *ids, int n)
{
    st_mover *m = w->mover;
    if (!m) return;
    for (int k = 0; k < n; k++) {
        mv_entry *e = mv__entry(w, ids[k]);
        mv_group *g = e ? mv__group(m, e->group) : NULL;
        if (g) g->leaving++;
    }
    for (int k = 0; k < n; k++) {
        mv_entry *e = mv__entry(w, ids[k]);
        mv_group *g = e ? mv__group(m, e->group) : NULL;
        if (g && g->leaving >= g->members) leave(w, e, false);
    }
    for (int k = 0; k < m->group_n; k++) m->groups[k].leaving = 0;
}

/* ---- slots ---- */

/// Whether an agent of radius r can stand at p and walk there from goal.
static bool slot_ok(st_navgrid *nav, st_vec2 goal, st_vec2 p, double r)
{
    if (nav->tiles) {
        double k = 1.0 / nav->cell;
        double wd = nav->tiles->cols * nav->cell, ht = nav->tiles->rows * nav->cell;
        if (!(p.x >= r && p.y >= r && p.x <= wd - r && p.y <= ht - r)) return false;
        return nav__tiles_clear(nav->tiles, st_v2_scale(goal, k), st_v2_scale(p, k), r * k);
    }
    return !st_navgrid_blocked_at(nav, p) && st_navgrid_visible(nav, goal, p);
}

/// How inner a place is: how far behind the front row (the side facing
/// the way the group goes), then how far from the middle across. A member
/// never passes a standing one to reach a slot more inner than its own
/// place in the arrival order: the block fills from the front row back
/// towards where the group comes from, each row from the middle out.
static double inner_key(const mv_group *g, st_vec2 p)
{
    st_vec2 d = st_v2_sub(p, g->front);
    double back = -st_v2_dot(d, g->facing), across = fabs(st_v2_dot(d, st_v2_perp(g->facing)));
    return back + 1e-3 * across;
}

typedef struct slot_cand {
    st_vec2 p;
    int outside; // 1: a place outside the pattern (they come after its own)
    double key;  // distance from the goal
    int order;
} slot_cand;

static int cand_cmp(const void *a, const void *b)
{
    const slot_cand *x = a, *y = b;
    if (x->outside != y->outside) return x->outside - y->outside;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->order - y->order;
}

/// The pattern's rows (along the facing) and columns (across it) for n.
static void pattern_shape(st_group_pattern p, int n, int *rows, int *cols)
{
    if (p == ST_GROUP_LINE) {
        *rows = 1;
        *cols = n;
    } else if (p == ST_GROUP_COLUMN) {
        *rows = n;
        *cols = 1;
    } else {
        *cols = (int)ceil(sqrt((double)n));
        *rows = (n + *cols - 1) / *cols;
    }
}

/// Lays out n slots for g; returns how many it found (<= n), or -1
/// without memory.
static int make_slots(st_world *w, mv_group *g, int n, double spacing, st_group_pattern pattern)
{
    int rows, cols;
    pattern_shape(pattern, n, &rows, &cols);
    int pad = rows > cols ? rows : cols; // rings of room outside the pattern
    if (pad > 16) pad = 16;
    int R = rows + 2 * pad, C = cols + 2 * pad;
    slot_cand *c = st__alloc(&w->mem, (size_t)R * (size_t)C * sizeof *c);
    if (!c || !st__grow(&w->mem, (void **)&g->slots, &g->slot_cap, n, sizeof *g->slots) ||
        !(g->taken = st__realloc(&w->mem, g->taken, (size_t)g->slot_cap)) ||
        !(g->holder = st__realloc(&w->mem, g->holder, (size_t)g->slot_cap * sizeof *g->holder))) {
        st__free(c);
        return -1;
    }
    st_vec2 f = g->facing, s = st_v2_perp(g->facing);
    int m = 0;
    for (int r = 0; r < R; r++) {
        for (int q = 0; q < C; q++) {
            double fr = (r - pad) - (rows - 1) * 0.5, sc = (q - pad) - (cols - 1) * 0.5;
            st_vec2 p = st_v2_add(g->goal, st_v2_add(st_v2_scale(f, -fr * spacing), st_v2_scale(s, sc * spacing)));
            bool inside = r >= pad && r < pad + rows && q >= pad && q < pad + cols;
            double d = st_v2_dist(p, g->goal);
            c[m] = (slot_cand){p, !inside, d, m};
            m++;
        }
    }
    qsort(c, (size_t)m, sizeof *c, cand_cmp);
    // The fill starts in the middle of the front row: members come from
    // behind, and the block grows back towards them.
    g->front = st_v2_add(g->goal, st_v2_scale(f, (rows - 1) * 0.5 * spacing));
    int got = 0;
    for (int k = 0; k < m && got < n; k++)
        if (slot_ok(g->nav, g->goal, c[k].p, g->radius)) g->slots[got++] = c[k].p;
    // Inner first: the pattern's places came first, then the outer ones by
    // distance; sorted again by distance alone (stable by that order: ties
    // keep it).
    for (int a = 0; a < got; a++) c[a] = (slot_cand){g->slots[a], 0, inner_key(g, g->slots[a]), a};
    qsort(c, (size_t)got, sizeof *c, cand_cmp);
    for (int a = 0; a < got; a++) g->slots[a] = c[a].p;
    st__free(c);
    memset(g->taken, 0, (size_t)got);
    memset(g->holder, 0, (size_t)got * sizeof *g->holder);
    g->spacing = spacing;
    g->outer = 0.0;
    g->back = 0.0;
    for (int k = 0; k < got; k++) {
        g->outer = fmax(g->outer, st_v2_dist(g->slots[k], g->front));
        g->back = fmin(g->back, st_v2_dot(st_v2_sub(g->slots[k], g->goal), g->facing));
    }
    g->slot_n = got;
    return got;
}

static mv_group *new_group(st_world *w)
{
    st_mover *m = w->mover;
    for (int k = 0; k < m->group_n; k++)
        if (m->groups[k].handle == 0) return &m->groups[k];
    if (!st__grow(&w->mem, (void **)&m->groups, &m->group_cap, m->group_n + 1, sizeof *m->groups)) return NULL;
    mv_group *g = &m->groups[m->group_n++];
    memset(g, 0, sizeof *g);
    return g;
}

/// The members' centre and largest radius; how many are alive (each once;
/// -1 when memory runs out).
static int members_of(st_world *w, const st_agent_id *ids, int n, st_vec2 *centre, double *radius)
{
    st_vec2 c = st_v2(0.0, 0.0);
    double r = 0.0;
    int live = 0;
    uint8_t *seen = st__calloc(&w->mem, (size_t)w->slot_count + 1, 1);
    if (!seen) return -1;
    for (int k = 0; k < n; k++) {
        int i = st__dense(w, ids[k]);
        if (i < 0 || seen[ids[k].index]) continue;
        seen[ids[k].index] = 1;
        c = st_v2_add(c, w->bodies[i].pos);
        r = fmax(r, w->bodies[i].radius);
        live++;
    }
    st__free(seen);
    *centre = live ? st_v2_scale(c, 1.0 / live) : c;
    *radius = r;
    return live;
}

static bool valid_group_def(const st_group_def *d)
{
    const st_move_def *m = &d->move;
    return m->nav && st_finite(m->stop_distance) && st_finite(m->speed) && st_finite(m->slowing) &&
           st_finite(m->radius) && st_finite(m->stuck_time) && m->stuck_time > 0.0 && st_finite(d->spacing) &&
           st_v2_finite(d->facing) && (unsigned)d->pattern <= ST_GROUP_COLUMN;
}

int st_world_move_group(st_world *w, const st_agent_id *ids, int n, st_vec2 goal, const st_group_def *def)
{
    if (!w || !def || !valid_group_def(def) || def->move.nav->w != w || !st_v2_finite(goal) || n < 0 ||
        (n > 0 && !ids))
        return -1;
    st_vec2 centre;
    double rmax;
    int live = members_of(w, ids, n, &centre, &rmax);
    if (live <= 0) return live;
    leave_whole_groups(w, ids, n);
    // A first order makes the mover (st_agent_move_to's way): through an order.
    mv_entry *first = NULL;
    int k0 = 0;
    while (k0 < n && !(first = mv__order(w, ids[k0], &def->move, goal))) k0++;
    if (!first) return -1;
    st_mover *m = w->mover;
    mv_group *g = new_group(w);
    if (!g) return -1;
    g->handle = m->next_group++;
    g->ticket++;
    g->goal = goal;
    g->nav = def->move.nav;
    g->radius = def->move.radius >= 0.0 ? def->move.radius : g->nav->tiles ? rmax : g->nav->clearance;
    g->goal = goal = mv__block_goal(g->nav, goal, g->radius); // beside a wall it was ordered into
    st_vec2 f = st_v2_len2(def->facing) > 0.0 ? def->facing : st_v2_sub(goal, centre);
    g->facing = st_v2_len2(f) > 0.0 ? st_v2_normalize(f) : st_v2(1.0, 0.0);
    g->members = 0;
    g->arrived_at = -INFINITY;
    g->parts = 0;
    g->keep_n = 0;
    memset(g->held_n, 0, sizeof g->held_n);
    double spacing = def->spacing > 0.0 ? def->spacing : 2.5 * rmax;
    if (make_slots(w, g, live, spacing, def->pattern) < 0) {
        g->handle = 0;
        return -1;
    }
    // (Records may move as the orders below add some: by id, not pointer.)
    st_agent_id first_id = first->id;
    int32_t handle = g->handle;
    for (int k = k0; k < n; k++) {
        mv_entry *e = mv__entry(w, ids[k]);
        if (k > k0 && e && e->group == handle) continue; // named twice
        e = k == k0 ? e : mv__order(w, ids[k], &def->move, goal);
        if (!e) continue; // dead
        e->group = handle;
        g->members++;
    }
    if (!mv__request_group(w, first_id, g, 0)) {
        mv__group_failed(w, g, ST_NAV_NO_MEMORY);
        return -1;
    }
    return g->handle;
}

int st_world_group_slots(const st_world *w, int group, const st_vec2 **slots, const uint8_t **taken)
{
    const mv_group *g = mv__group(w->mover, group);
    *slots = g ? g->slots : NULL;
    *taken = g ? g->taken : NULL;
    return g ? g->slot_n : 0;
}

/* ---- routes ---- */

/*
 * Lanes. The group's route is one line; forty members walking one line
 * meet at every corner and file through a door one by one. So each member
 * keeps its own lane: its sideways offset from the route where it stood
 * (along the route's first leg), carried along the route and squeezed
 * where the way narrows. The route is sampled every two cells; at each
 * sample the free room to either side (up to the group's half width) is
 * measured once for the group, and a member's offset is scaled by that
 * room over the half width, so the members keep their order across the
 * way and share whatever width a door gives. A member's points are then
 * pulled straight with the grid's line of sight.
 */

bool mv__fits(st_navgrid *nav, st_vec2 a, st_vec2 b, double r)
{
    if (nav->tiles) {
        double k = 1.0 / nav->cell;
        return nav__tiles_clear(nav->tiles, st_v2_scale(a, k), st_v2_scale(b, k), r * k);
    }
    return st_navgrid_visible(nav, a, b);
}

typedef struct lane_sample {
    st_vec2 p, n;   // on the route, and its left normal there
    double room[2]; // free room to the left (+n) and to the right (-n), <= the half width
} lane_sample;

/// How far (<= h) one can step from p along dir with room to stand and a
/// clear line back to p, by bisection.
static double room_towards(st_navgrid *nav, st_vec2 p, st_vec2 dir, double h, double r)
{
    if (h <= 0.0 || !mv__fits(nav, p, p, r)) return 0.0;
    if (mv__fits(nav, p, st_v2_add(p, st_v2_scale(dir, h)), r)) return h;
    double lo = 0.0, hi = h;
    for (int it = 0; it < 8; it++) {
        double t = 0.5 * (lo + hi);
        if (mv__fits(nav, p, st_v2_add(p, st_v2_scale(dir, t)), r)) lo = t;
        else hi = t;
    }
    return lo;
}

/// Samples along the route's points p (n >= 2) every `step`, with room
/// measured up to h. Returns the count (<= cap).
static int sample_route(st_navgrid *nav, const st_vec2 *p, int n, double step, double h, double r,
                        lane_sample *out, int cap)
{
    int m = 0;
    for (int k = 0; k + 1 < n && m < cap; k++) {
        st_vec2 d = st_v2_sub(p[k + 1], p[k]);
        double len = st_v2_len(d);
        if (len <= 0.0) continue;
        st_vec2 u = st_v2_scale(d, 1.0 / len), nl = st_v2_perp(u);
        int parts = (int)ceil(len / step);
        for (int q = k == 0 ? 1 : 0; q <= parts && m < cap; q++) {
            if (q == parts && k + 2 < n) break; // the corner: the next leg's first sample
            lane_sample *sm = &out[m++];
            sm->p = st_v2_lerp(p[k], p[k + 1], (double)q / parts);
            sm->n = nl;
            sm->room[0] = room_towards(nav, sm->p, nl, h, r);
            sm->room[1] = room_towards(nav, sm->p, st_v2_scale(nl, -1.0), h, r);
        }
    }
    return m;
}

/// How much the room may grow per unit along the route: lanes narrow
/// ahead of a door and widen after it at this slope (about 31 degrees),
/// not in one sideways jump at its mouth.
#define MV_LANE_SLOPE 0.6

/// The room at each sample, at most what the samples around it allow at
/// MV_LANE_SLOPE (both ways along the route).
static void taper(lane_sample *sm, int m, double step)
{
    double grow = MV_LANE_SLOPE * step;
    for (int side = 0; side < 2; side++) {
        for (int k = 1; k < m; k++) sm[k].room[side] = fmin(sm[k].room[side], sm[k - 1].room[side] + grow);
        for (int k = m - 2; k >= 0; k--) sm[k].room[side] = fmin(sm[k].room[side], sm[k + 1].room[side] + grow);
    }
}

/// The member's lane points (offset o) into pts, pulled straight from pos:
/// from each kept point, on while the next one is in sight. Returns the count.
static int lane_points(st_navgrid *nav, st_vec2 pos, double o, double h, double r, double lane,
                       const lane_sample *sm, int m, st_vec2 *pts)
{
    int c = 0;
    pts[c++] = pos;
    st_vec2 last = pos;
    int k = 0;
    while (k < m) {
        // The farthest sample in sight of the last kept point, scanning on.
        int j = -1;
        for (int q = k; q < m; q++) {
            const lane_sample *s = &sm[q];
            double room = o >= 0.0 ? s->room[0] : s->room[1];
            // Squeezed lanes side by side a body apart: members whose lanes
            // merge follow one another rather than press on each other.
            double x = h > 0.0 ? o * room / h : 0.0;
            if (lane > 0.0) x = fmin(lane * round(fabs(x) / lane), room) * (x < 0.0 ? -1.0 : 1.0);
            st_vec2 at = st_v2_add(s->p, st_v2_scale(s->n, x));
            if (!mv__fits(nav, last, at, r)) break;
            j = q;
            pts[c] = at;
        }
        if (j < 0) { // not even the next: its route point itself (always clear)
            pts[c] = sm[k].p;
            j = k;
        }
        last = pts[c++];
        k = j + 1;
    }
    return c;
}

static void set_or_fail(st_world *w, mv_entry *e, const st_vec2 *p, int n)
{
    if (!mv__set_route(w, e, p, n, NULL)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
}

/* ---- slots to members ---- */

/*
 * When the route comes, the waiting members are given slots so that they
 * keep their arrangement: across the route's first leg (left to right)
 * they map onto the block's columns (left to right as it faces), and
 * within a column the one furthest along takes the front slot. So no two
 * members' ways to their slots cross, and each column fills from the
 * front back, the fill as a whole from the middle of the front row out.
 * (With fewer slots than members the innermost ones are used; members left
 * without one take the innermost slot free as they come near the goal.)
 */
typedef struct mv_rank {
    double lat, along;
    int k;          // record or slot index
} mv_rank;

static int by_lat(const void *a, const void *b)
{
    const mv_rank *x = a, *y = b;
    if (x->lat != y->lat) return x->lat < y->lat ? -1 : 1;
    return x->k - y->k;
}

static int by_along(const void *a, const void *b) // furthest along first
{
    const mv_rank *x = a, *y = b;
    if (x->along != y->along) return x->along > y->along ? -1 : 1;
    return x->k - y->k;
}

void mv__assign_slots(st_world *w, mv_group *g, st_vec2 p0, st_vec2 u0)
{
    double spacing = g->slot_n > 1 ? st_v2_dist(g->slots[0], g->slots[1]) : 1.0;
    st_mover *m = w->mover;
    mv_rank *mr = st__alloc(&w->mem, (size_t)(m->n + g->slot_n + 1) * sizeof *mr), *sr = mr + m->n;
    if (!mr) return; // members will claim slots as they come
    int nm = 0, ns = 0;
    st_vec2 side = st_v2_perp(u0), gside = st_v2_perp(g->facing);
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        int i = e->live && e->group == g->handle && e->state == ST_MOVE_WAITING && e->slot < 0 ? st__dense(w, e->id)
                                                                                             : -1;
        if (i < 0) continue;
        st_vec2 d = st_v2_sub(w->bodies[i].pos, p0);
        mr[nm++] = (mv_rank){st_v2_dot(d, side), st_v2_dot(d, u0), k};
    }
    // The innermost free slots, as many as members (slots are inner first).
    for (int k = 0; k < g->slot_n && ns < nm; k++) {
        if (g->taken[k]) continue;
        st_vec2 d = st_v2_sub(g->slots[k], g->goal);
        sr[ns++] = (mv_rank){st_v2_dot(d, gside), st_v2_dot(d, g->facing), k};
    }
    qsort(mr, (size_t)nm, sizeof *mr, by_lat);
    qsort(sr, (size_t)ns, sizeof *sr, by_lat);
    for (int a = 0; a < ns;) {
        // One column: the slots within half a spacing across of the first.
        int b = a + 1;
        while (b < ns && sr[b].lat - sr[a].lat < 0.5 * spacing) b++;
        qsort(sr + a, (size_t)(b - a), sizeof *sr, by_along);
        qsort(mr + a, (size_t)(b - a), sizeof *mr, by_along);
        for (int q = a; q < b; q++) {
            mv_entry *e = &m->e[mr[q].k];
            e->slot = sr[q].k;
            e->goal = g->slots[sr[q].k];
            g->taken[sr[q].k] = 1;
            g->holder[sr[q].k] = mr[q].k + 1;
        }
        a = b;
    }
    st__free(mr);
}

/// The member's lane points end where its slot is in sight: then the slot.
static int straight_to_slot(st_navgrid *nav, st_vec2 *pts, int c, st_vec2 slot, double r)
{
    while (c > 1 && mv__fits(nav, pts[c - 2], slot, r)) c--;
    if (!mv__fits(nav, pts[c - 1], slot, r)) c++; // keep the last point: the goal sees its slot
    pts[c++] = slot;
    return c;
}

/// The way into a slot's column: a spacing behind the block's back row.
static st_vec2 column_way_in(const mv_group *g, st_vec2 slot)
{
    double depth = st_v2_dot(st_v2_sub(slot, g->goal), g->facing);
    return st_v2_add(slot, st_v2_scale(g->facing, g->back - g->spacing - depth));
}

/// The member's lane points (cut short of the block) end where the way
/// into its slot's column is in sight: then that point, then the slot
/// along the column (columns fill from the front back, so it does not pass
/// members standing in the block). Returns the count, 0 when there is no
/// clear way in.
static int to_column(const mv_group *g, st_vec2 *pts, int c, st_vec2 slot)
{
    st_navgrid *nav = g->nav;
    double r = g->radius;
    st_vec2 in = column_way_in(g, slot);
    if (!mv__fits(nav, in, slot, r)) return 0;
    int k = c;
    while (k > 1 && mv__fits(nav, pts[k - 2], in, r)) k--;
    if (!mv__fits(nav, pts[k - 1], in, r)) return 0;
    pts[k++] = in;
    pts[k++] = slot;
    return k;
}

/// The lane samples short of the block: none nearer the goal than its
/// farthest slot and a spacing (at least one sample kept).
static int short_of_block(const mv_group *g, const lane_sample *sm, int ns)
{
    double block = 0.0;
    for (int k = 0; k < g->slot_n; k++) block = fmax(block, st_v2_dist(g->slots[k], g->goal));
    block += g->spacing;
    while (ns > 1 && st_v2_dist(sm[ns - 1].p, g->goal) < block) ns--;
    return ns;
}

void mv__lay_lanes(st_world *w, mv_group *g, const st_vec2 *p, int n, const int8_t *part_of, int part)
{
    st_mover *m = w->mover;
    int32_t h = g->handle;
    st_navgrid *nav = g->nav;
    // The members' offsets across the first leg, and the half width.
    st_vec2 d0 = n > 1 ? st_v2_sub(p[1], p[0]) : st_v2(1.0, 0.0);
    st_vec2 n0 = st_v2_len2(d0) > 0.0 ? st_v2_perp(st_v2_normalize(d0)) : st_v2(0.0, 1.0);
    double half = 0.0, len = 0.0;
    g->body = 0.0;
    for (int k = 0; k < m->n; k++) {
        int i = m->e[k].live && m->e[k].group == h ? st__dense(w, m->e[k].id) : -1;
        if (i < 0 || (part_of && (m->e[k].state != ST_MOVE_WAITING || part_of[k] != part))) continue;
        half = fmax(half, fabs(st_v2_dot(st_v2_sub(w->bodies[i].pos, p[0]), n0)));
        g->body = fmax(g->body, w->bodies[i].radius);
    }
    for (int k = 0; k + 1 < n; k++) len += st_v2_dist(p[k], p[k + 1]);
    double step = 2.0 * nav->cell;
    int cap = (int)(len / step) + n + 2;
    lane_sample *sm = st__alloc(&w->mem, (size_t)cap * sizeof *sm);
    st_vec2 *pts = st__alloc(&w->mem, (size_t)(cap + 4) * sizeof *pts);
    int ns = sm && pts && n >= 2 ? sample_route(nav, p, n, step, half, g->radius, sm, cap) : 0;
    taper(sm, ns, step);
    int cut = short_of_block(g, sm, ns);
    st_vec2 u0 = st_v2_perp(st_v2_scale(n0, -1.0));
    if (!part_of) mv__assign_slots(w, g, p[0], u0); // (split groups: given across all routes first)
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        int i = e->live && e->group == h && e->state == ST_MOVE_WAITING ? st__dense(w, e->id) : -1;
        if (i < 0 || (part_of && part_of[k] != part)) continue;
        st_vec2 pos = w->bodies[i].pos;
        if (ns > 0) {
            double o = st_v2_dot(st_v2_sub(pos, p[0]), n0);
            double lane = 2.2 * g->body;
            int c = 0;
            if (e->slot >= 0)
                c = to_column(g, pts, lane_points(nav, pos, o, half, g->radius, lane, sm, cut, pts), e->goal);
            if (c == 0) {
                c = lane_points(nav, pos, o, half, g->radius, lane, sm, ns, pts);
                if (e->slot >= 0) c = straight_to_slot(nav, pts, c, e->goal, g->radius);
            }
            set_or_fail(w, e, pts, c);
        } else if (n >= 2 && pts) {
            pts[0] = pos; // a route of one leg too short to sample: straight on
            pts[1] = p[n - 1];
            if (mv__fits(nav, pos, p[n - 1], g->radius)) set_or_fail(w, e, pts, 2);
            else if (!mv__request(w, e)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
        } else if (!mv__request(w, e)) {
            mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
        }
    }
    st__free(sm);
    st__free(pts);
}

void mv__group_failed(st_world *w, mv_group *g, st_nav_result why)
{
    st_mover *m = w->mover;
    int32_t h = g->handle;
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        if (e->live && e->group == h) mv__fail(w, e, ST_MOVE_EVENT_FAILED, why);
    }
}

/* ---- claiming a slot ---- */

/// Around the block. The slots taken so far make a disc of standing (or
/// coming) members around the goal; a member whose straight way to its
/// slot crosses that disc walks around it instead, on a circle outside it
/// (waypoints every 40 degrees, on the short side), then in to its slot.
/// Without room for the circle (walls near the goal) it goes straight.
#define MV_ARC_STEP 0.6981317007977318 // 40 degrees

static int around_block(const mv_group *g, st_vec2 pos, st_vec2 slot, double rb, int best, st_vec2 *out, int cap)
{
    double filled = -1.0;
    for (int k = 0; k < g->slot_n; k++)
        if (g->taken[k] && k != best) filled = fmax(filled, st_v2_dist(g->slots[k], g->front));
    if (filled < 0.0) return 0;
    double ring = filled + 2.2 * rb; // clear of the standing bodies
    st_vec2 c = g->front, vm = st_v2_sub(pos, c), vs = st_v2_sub(slot, c);
    st_vec2 near = st__closest_on_segment(c, pos, slot);
    if (st_v2_len(vm) <= ring || st_v2_dist(near, c) >= ring) return 0;
    double am = st_atan2(vm.y, vm.x), as = st_atan2(vs.y, vs.x), turn = as - am;
    while (turn > ST_PI) turn -= 2.0 * ST_PI;
    while (turn < -ST_PI) turn += 2.0 * ST_PI;
    int steps = (int)ceil(fabs(turn) / MV_ARC_STEP);
    if (steps < 1 || steps + 2 > cap) return 0;
    double rr = ring / st_cos(0.5 * MV_ARC_STEP); // chords stay outside the ring
    int n = 0;
    out[n++] = pos;
    for (int q = 0; q <= steps; q++) {
        double a = am + turn * q / steps;
        out[n++] = st_v2_add(c, st_v2(rr * st_cos(a), rr * st_sin(a)));
    }
    out[n++] = slot;
    return n;
}

/// How near (along its route) a member is "coming in": the block's reach
/// from its front middle and two spacings (or bodies) more.
static double reach_of_block(const mv_group *g, double body)
{
    return g->outer + 2.0 * fmax(g->spacing, 2.0 * body);
}

static double depth_of(const mv_group *g, int k) { return st_v2_dot(st_v2_sub(g->slots[k], g->goal), g->facing); }

static bool same_column(const mv_group *g, int a, int b)
{
    st_vec2 side = st_v2_perp(g->facing);
    return fabs(st_v2_dot(st_v2_sub(g->slots[a], g->slots[b]), side)) < 0.5 * g->spacing;
}

/// A new last point for the member's route (its slot moved). While the
/// point before its slot (its column's way in) is still ahead and sees
/// the new slot, only the last point changes: it still comes in from behind.
static void retarget(st_world *w, mv_entry *e, st_vec2 pos)
{
    double r = mv__plan_radius(w, e);
    if (e->n >= 3 && e->next <= e->n - 2 && mv__fits(e->def.nav, e->route[e->n - 2], e->goal, r)) {
        e->route[e->n - 1] = e->goal;
        e->best = INFINITY; // measured afresh against the new end
        e->waited = 0.0;
    } else if (mv__fits(e->def.nav, pos, e->goal, r)) {
        st_vec2 p[2] = {pos, e->goal};
        mv__set_route(w, e, p, 2, NULL);
    } else if (e->n > 0) {
        e->route[e->n - 1] = e->goal;
    }
}

void mv__coming_in(st_world *w, mv_entry *e)
{
    mv_group *g = mv__group(w->mover, e->group);
    int i = st__dense(w, e->id);
    // How far it is from the goal: what is left of its route, less how far
    // its slot lies in front of the goal (members bound for the front row
    // have further to go from the same place).
    if (!g || i < 0 || e->slot < 0 || e->near) return;
    double mine = e->remaining - depth_of(g, e->slot);
    if (mine > reach_of_block(g, w->bodies[i].radius)) return;
    e->near = 1;
    // The front-most slot of its column that is free or still promised to
    // a member further away: whoever comes first goes furthest in.
    st_mover *m = w->mover;
    int best = -1;
    mv_entry *holder = NULL;
    for (int k = 0; k < g->slot_n; k++) {
        if (!same_column(g, k, e->slot) || depth_of(g, k) <= (best >= 0 ? depth_of(g, best) : depth_of(g, e->slot)))
            continue;
        mv_entry *h = g->taken[k] && g->holder[k] > 0 ? &m->e[g->holder[k] - 1] : NULL;
        // Only past one clearly behind (a spacing): not churn among equals.
        if (g->taken[k] && (!h || h->near || h->remaining - depth_of(g, k) < mine + g->spacing)) continue;
        best = k;
        holder = h;
    }
    if (best < 0) return;
    if (holder) {
        holder->slot = e->slot;
        holder->goal = g->slots[e->slot];
        g->holder[e->slot] = (int32_t)(holder - m->e) + 1;
        int j = st__dense(w, holder->id);
        if (j >= 0) retarget(w, holder, w->bodies[j].pos);
    } else {
        g->taken[e->slot] = 0;
        g->holder[e->slot] = 0;
    }
    g->taken[best] = 1;
    g->holder[best] = (int32_t)(e - m->e) + 1;
    e->slot = best;
    e->goal = g->slots[best];
    retarget(w, e, w->bodies[i].pos);
}

void mv__claim_slot(st_world *w, mv_entry *e)
{
    mv_group *g = mv__group(w->mover, e->group);
    int i = st__dense(w, e->id);
    if (!g || i < 0 || g->slot_n == 0) return;
    double inner = INFINITY, spacing = g->spacing;
    for (int k = 0; k < g->slot_n; k++)
        if (!g->taken[k]) inner = fmin(inner, inner_key(g, g->slots[k]));
    if (inner == INFINITY) return; // every slot taken
    if (e->remaining > reach_of_block(g, w->bodies[i].radius)) return;
    st_vec2 pos = w->bodies[i].pos;
    int best = -1;
    double bd = INFINITY;
    for (int k = 0; k < g->slot_n; k++) {
        if (g->taken[k] || inner_key(g, g->slots[k]) > inner + 0.5 * spacing) continue;
        double d = st_v2_dist2(g->slots[k], pos);
        if (d < bd) bd = d, best = k;
    }
    g->taken[best] = 1;
    g->holder[best] = (int32_t)(e - w->mover->e) + 1;
    e->slot = best;
    e->goal = g->slots[best];
    // The route: around the block when it is in the way, straight there
    // when it sees it, else on to the goal first.
    st_vec2 arc[16];
    int na = around_block(g, pos, e->goal, w->bodies[i].radius, best, arc, 16);
    bool clear = na > 0;
    for (int k = 0; k + 1 < na && clear; k++) clear = mv__fits(e->def.nav, arc[k], arc[k + 1], g->radius);
    if (clear) {
        mv__set_route(w, e, arc, na, NULL);
        return;
    }
    if (st_navgrid_visible(e->def.nav, pos, e->goal)) {
        st_vec2 p[2] = {pos, e->goal};
        mv__set_route(w, e, p, 2, NULL);
        return;
    }
    if (st__grow(&w->mem, (void **)&e->route, &e->cap, e->n + 1, sizeof *e->route)) {
        e->route[e->n++] = e->goal;
        e->remaining += st_v2_dist(e->route[e->n - 2], e->goal);
    }
}
