/*
 * formation.c — formations with slot assignment, after gdx-ai's formation
 * motion architecture (Millington's "Artificial Intelligence for Games").
 *
 * A pattern lays out one slot per member in the anchor's frame (x ahead,
 * y to the side): the leader's pose, or a fixed point and direction. Who
 * takes which slot is an assignment problem: least total distance from the
 * members to their slots, solved exactly by the Hungarian algorithm
 * (O(n^3), up to ST_FORMATION_EXACT members) and beyond that by a greedy
 * heuristic (take the globally nearest free member-slot pair, repeat;
 * O(n^2 log n): no optimality guarantee, but the nearest members settle
 * first, which is what a crowd falling into rank looks like). It is redone when members join, leave or die, and when the anchor
 * has turned by more than reassign_angle since the last time (a wedge whose
 * leader turns around would otherwise have every member cross the whole
 * formation). Between assignments slots keep their members, so nobody
 * swaps places back and forth.
 *
 * Members are steered like offset pursuit: match the anchor's velocity and
 * close the gap to the slot on top of it, slowing into it. Ties in the
 * assignment go to the member that joined first, so the result is the same
 * on every run. All buffers are sized when membership changes: an update
 * inside a step allocates nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "world_internal.h"
#include "behavior_internal.h"

struct st_formation {
    st_formation_def def;
    st_agent_id *members;  // in the order they joined
    int *slot;             // members[k] holds slot[k]
    int count, cap;
    st_vec2 *custom;       // ST_FORMATION_CUSTOM's offsets
    int custom_n, custom_cap;
    st_vec2 assigned_heading; // the anchor's heading at the last assignment
    // assignment scratch, for `cap` members
    double *cost;
    double *scratch;       // Hungarian potentials and minima: 3 (cap + 1)
    int *iscratch;         // Hungarian links: 3 (cap + 1); greedy: the columns taken
    struct pair *pairs;    // greedy: every member-slot pair, cap * cap, past ST_FORMATION_EXACT
};

st_formation_def st_default_formation_def(void)
{
    st_formation_def d;
    memset(&d, 0, sizeof d);
    d.pattern = ST_FORMATION_WEDGE;
    d.spacing = 30.0;
    d.leader = st_null_agent();
    d.anchor_pos = st_v2(0.0, 0.0);
    d.anchor_heading = st_v2(1.0, 0.0);
    d.reassign_angle = 0.5 * ST_PI;
    d.slowing_radius = 60.0;
    d.weight = 1.0;
    return d;
}

static bool valid_def(const st_formation_def *d)
{
    return (int)d->pattern >= ST_FORMATION_WEDGE && d->pattern <= ST_FORMATION_CUSTOM && st_finite(d->spacing) &&
           d->spacing > 0.0 && st_v2_finite(d->anchor_pos) && st_v2_finite(d->anchor_heading) &&
           d->reassign_angle >= 0.0 && d->reassign_angle <= ST_PI && st_finite(d->slowing_radius) &&
           d->slowing_radius > 0.0 && st_finite(d->weight);
}

st_formation *st_formation_create(const st_formation_def *def)
{
    if (!def || !valid_def(def)) return NULL;
    st_formation *f = st__calloc(&def->mem, 1, sizeof *f);
    if (!f) return NULL;
    f->def = *def;
    st_vec2 h = st_v2_normalize_safe(def->anchor_heading);
    f->def.anchor_heading = h.x == 0.0 && h.y == 0.0 ? st_v2(1.0, 0.0) : h;
    f->assigned_heading = f->def.anchor_heading;
    return f;
}

void st_formation_destroy(st_formation *f)
{
    if (!f) return;
    st__free(f->members);
    st__free(f->slot);
    st__free(f->custom);
    st__free(f->cost);
    st__free(f->scratch);
    st__free(f->iscratch);
    st__free(f->pairs);
    st__free(f);
}

/* ------------------------------------------------------------------------ */
/* patterns and the anchor                                                  */
/* ------------------------------------------------------------------------ */

st_vec2 st_formation_pattern_offset(st_formation_pattern p, double sp, int s, int n)
{
    switch (p) {
    case ST_FORMATION_WEDGE: {
        double rank = (double)(s / 2 + 1), side = (s % 2 == 0) ? 1.0 : -1.0;
        return st_v2(-sp * rank, side * sp * rank);
    }
    case ST_FORMATION_LINE: return st_v2(-sp, ((double)s - 0.5 * (double)(n - 1)) * sp);
    case ST_FORMATION_CIRCLE: {
        // Neighbours one spacing apart around the ring, and never closer
        // to the anchor than one spacing.
        double r = n >= 2 ? fmax(sp, sp / (2.0 * st_sin(ST_PI / (double)n))) : sp;
        return st_v2_from_angle(2.0 * ST_PI * (double)s / (double)(n > 0 ? n : 1), r);
    }
    case ST_FORMATION_COLUMN:
    case ST_FORMATION_CUSTOM:
    default: return st_v2(-sp * (double)(s + 1), 0.0);
    }
}

st_vec2 st_formation_offset(const st_formation *f, int s)
{
    if (f->def.pattern == ST_FORMATION_CUSTOM && s < f->custom_n) return f->custom[s];
    return st_formation_pattern_offset(f->def.pattern, f->def.spacing, s, f->count);
}

/// The anchor's pose and velocity; a dead leader's last pose stays the anchor.
static void anchor(const st_world *w, st_formation *f, st_vec2 *pos, st_vec2 *h, st_vec2 *vel)
{
    int j = st_id_is_null(f->def.leader) ? -1 : st__dense(w, f->def.leader);
    if (j >= 0) {
        f->def.anchor_pos = w->bodies[j].pos;
        f->def.anchor_heading = w->bodies[j].heading;
        *vel = w->bodies[j].vel;
    } else {
        *vel = st_v2(0.0, 0.0);
    }
    *pos = f->def.anchor_pos;
    *h = f->def.anchor_heading;
}

void st_formation_anchor(const st_world *w, const st_formation *f, st_vec2 *pos, st_vec2 *heading)
{
    st_vec2 vel;
    anchor(w, (st_formation *)f, pos, heading, &vel); // only refreshes the cached pose
}

static st_vec2 slot_world(const st_formation *f, st_vec2 pos, st_vec2 h, int s)
{
    st_vec2 o = st_formation_offset(f, s);
    return st_v2_add(pos, st_v2_add(st_v2_scale(h, o.x), st_v2_scale(st_v2_perp(h), o.y)));
}

st_vec2 st_formation_slot_pos(const st_world *w, const st_formation *f, int s)
{
    st_vec2 pos, h;
    st_formation_anchor(w, f, &pos, &h);
    return slot_world(f, pos, h, s);
}

/* ------------------------------------------------------------------------ */
/* assignment                                                               */
/* ------------------------------------------------------------------------ */

/// The Hungarian algorithm with potentials (Kuhn-Munkres in the shortest
/// augmenting path form): rows are added one at a time, each by a
/// Dijkstra-like search over the reduced costs. ds: 3 (n + 1) doubles,
/// is: 3 (n + 1) ints.
static double hungarian(const double *cost, int n, int *out, double *ds, int *is)
{
    double *u = ds, *v = ds + (n + 1), *minv = ds + 2 * (n + 1);
    int *p = is, *way = is + (n + 1), *used = is + 2 * (n + 1);
    for (int j = 0; j <= n; j++) u[j] = v[j] = 0.0, p[j] = 0, way[j] = 0;
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) minv[j] = INFINITY, used[j] = 0;
        do {
            used[j0] = 1;
            int i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (int j = 1; j <= n; j++) {
                if (used[j]) continue;
                double cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) minv[j] = cur, way[j] = j0;
                if (minv[j] < delta) delta = minv[j], j1 = j;
            }
            if (j1 == 0) break; // only with non-finite costs
            for (int j = 0; j <= n; j++) {
                if (used[j]) u[p[j]] += delta, v[j] -= delta;
                else minv[j] -= delta;
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    double total = 0.0;
    for (int j = 1; j <= n; j++)
        if (p[j] > 0) out[p[j] - 1] = j - 1;
    for (int r = 0; r < n; r++) total += cost[r * n + out[r]];
    return total;
}

typedef struct pair {
    double cost;
    int index; // row * n + column
} pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->cost < b->cost) return -1;
    if (a->cost > b->cost) return 1;
    return (a->index > b->index) - (a->index < b->index); // ties: the earlier member, the lower slot
}

/// Greedy: the globally nearest free pair, then the next, ... pairs: n*n,
/// col_used: n.
static double greedy(const double *cost, int n, int *out, pair *pairs, int *col_used)
{
    int nn = n * n;
    for (int k = 0; k < nn; k++) pairs[k].cost = cost[k], pairs[k].index = k;
    qsort(pairs, (size_t)nn, sizeof *pairs, pair_cmp);
    for (int r = 0; r < n; r++) out[r] = -1, col_used[r] = 0;
    int placed = 0;
    double total = 0.0;
    for (int k = 0; k < nn && placed < n; k++) {
        int r = pairs[k].index / n, c = pairs[k].index % n;
        if (out[r] >= 0 || col_used[c]) continue;
        out[r] = c;
        col_used[c] = 1;
        total += pairs[k].cost;
        placed++;
    }
    return total;
}

double st_assign(const double *cost, int n, int *out)
{
    if (n <= 0) return 0.0;
    if (n <= ST_FORMATION_EXACT) {
        double *ds = malloc((size_t)3 * (size_t)(n + 1) * sizeof *ds);
        int *is = malloc((size_t)3 * (size_t)(n + 1) * sizeof *is);
        double t = ds && is ? hungarian(cost, n, out, ds, is) : -1.0;
        free(ds);
        free(is);
        return t;
    }
    pair *pairs = malloc((size_t)n * (size_t)n * sizeof *pairs);
    int *used = malloc((size_t)n * sizeof *used);
    double t = pairs && used ? greedy(cost, n, out, pairs, used) : -1.0;
    free(pairs);
    free(used);
    return t;
}

/// Room for `need` members and their assignment scratch.
static bool reserve(st_formation *f, int need)
{
    if (need <= f->cap) return true;
    int cap = f->cap ? f->cap : 8;
    while (cap < need) cap *= 2;
    size_t c = (size_t)cap;
    st_agent_id *m = st__realloc(&f->def.mem, f->members, c * sizeof *m);
    if (!m) return false;
    f->members = m;
    int *s = st__realloc(&f->def.mem, f->slot, c * sizeof *s);
    if (!s) return false;
    f->slot = s;
    double *cost = st__realloc(&f->def.mem, f->cost, c * c * sizeof *cost);
    if (!cost) return false;
    f->cost = cost;
    double *ds = st__realloc(&f->def.mem, f->scratch, 3 * (c + 1) * sizeof *ds);
    if (!ds) return false;
    f->scratch = ds;
    int *is = st__realloc(&f->def.mem, f->iscratch, 3 * (c + 1) * sizeof *is);
    if (!is) return false;
    f->iscratch = is;
    if (cap > ST_FORMATION_EXACT) {
        void *pairs = st__realloc(&f->def.mem, f->pairs, c * c * sizeof(pair));
        if (!pairs) return false;
        f->pairs = pairs;
    }
    f->cap = cap;
    return true;
}

bool st_formation_copy(st_formation *dst, const st_formation *src)
{
    if (!dst || !src) return false;
    if (dst == src) return true;
    if (!reserve(dst, src->count)) return false;
    if (src->custom_n > dst->custom_cap) {
        st_vec2 *c = st__realloc(&dst->def.mem, dst->custom, (size_t)src->custom_n * sizeof *c);
        if (!c) return false;
        dst->custom = c;
        dst->custom_cap = src->custom_n;
    }
    st_mem mem = dst->def.mem; // its budget stays its own
    dst->def = src->def;
    dst->def.mem = mem;
    if (src->count > 0) {
        memcpy(dst->members, src->members, (size_t)src->count * sizeof *src->members);
        memcpy(dst->slot, src->slot, (size_t)src->count * sizeof *src->slot);
    }
    dst->count = src->count;
    if (src->custom_n > 0) memcpy(dst->custom, src->custom, (size_t)src->custom_n * sizeof *src->custom);
    dst->custom_n = src->custom_n;
    dst->assigned_heading = src->assigned_heading;
    return true;
}

void st_formation_reassign(st_world *w, st_formation *f)
{
    st_vec2 pos, h, vel;
    anchor(w, f, &pos, &h, &vel);
    f->assigned_heading = h;
    int n = f->count;
    if (n == 0) return;
    for (int r = 0; r < n; r++) {
        st_vec2 mp = st_agent_pos(w, f->members[r]);
        for (int c = 0; c < n; c++) f->cost[r * n + c] = st_world_distance(w, mp, slot_world(f, pos, h, c));
    }
    if (n <= ST_FORMATION_EXACT) hungarian(f->cost, n, f->slot, f->scratch, f->iscratch);
    else greedy(f->cost, n, f->slot, f->pairs, f->iscratch);
}

/* ------------------------------------------------------------------------ */
/* membership                                                               */
/* ------------------------------------------------------------------------ */

static int member_index(const st_formation *f, st_agent_id id)
{
    for (int k = 0; k < f->count; k++)
        if (st_id_equal(f->members[k], id)) return k;
    return -1;
}

bool st_formation_add(st_world *w, st_formation *f, st_agent_id id)
{
    if (!st_agent_alive(w, id) || st_id_equal(id, f->def.leader) || member_index(f, id) >= 0) return false;
    if (!reserve(f, f->count + 1)) return false;
    f->members[f->count] = id;
    f->slot[f->count] = f->count;
    f->count++;
    st_formation_reassign(w, f);
    return true;
}

static void drop(st_formation *f, int k)
{
    memmove(&f->members[k], &f->members[k + 1], (size_t)(f->count - k - 1) * sizeof *f->members);
    memmove(&f->slot[k], &f->slot[k + 1], (size_t)(f->count - k - 1) * sizeof *f->slot);
    f->count--;
}

bool st_formation_remove(st_world *w, st_formation *f, st_agent_id id)
{
    int k = member_index(f, id);
    if (k < 0) return false;
    drop(f, k);
    st_formation_reassign(w, f);
    return true;
}

int st_formation_prune(st_world *w, st_formation *f)
{
    bool any = false;
    for (int k = f->count - 1; k >= 0; k--)
        if (!st_agent_alive(w, f->members[k])) {
            drop(f, k);
            any = true;
        }
    if (any) st_formation_reassign(w, f);
    return f->count;
}

int st_formation_count(const st_formation *f) { return f->count; }
st_agent_id st_formation_member(const st_formation *f, int k)
{
    return k >= 0 && k < f->count ? f->members[k] : st_null_agent();
}
int st_formation_slot_of(const st_formation *f, int k) { return k >= 0 && k < f->count ? f->slot[k] : -1; }
st_agent_id st_formation_leader(const st_formation *f) { return f->def.leader; }

bool st_formation_set_offsets(st_world *w, st_formation *f, const st_vec2 *offsets, int n)
{
    if (n < 0 || (n > 0 && !offsets)) return false;
    for (int k = 0; k < n; k++)
        if (!st_v2_finite(offsets[k])) return false;
    if (n > f->custom_cap) {
        st_vec2 *c = st__realloc(&f->def.mem, f->custom, (size_t)n * sizeof *c);
        if (!c) return false;
        f->custom = c;
        f->custom_cap = n;
    }
    if (n > 0) memcpy(f->custom, offsets, (size_t)n * sizeof *offsets);
    f->custom_n = n;
    st_formation_reassign(w, f);
    return true;
}

bool st_formation_set_leader(st_world *w, st_formation *f, st_agent_id leader)
{
    if (!st_id_is_null(leader) && (!st_agent_alive(w, leader) || member_index(f, leader) >= 0)) return false;
    f->def.leader = leader;
    st_formation_reassign(w, f);
    return true;
}

void st_formation_set_anchor(st_world *w, st_formation *f, st_vec2 pos, st_vec2 heading)
{
    if (!st_v2_finite(pos) || !st_v2_finite(heading)) return;
    st_vec2 h = st_v2_normalize_safe(heading);
    f->def.leader = st_null_agent();
    f->def.anchor_pos = pos;
    if (h.x != 0.0 || h.y != 0.0) f->def.anchor_heading = h;
    // Turning a fixed anchor is a deliberate move: the turn test in update
    // decides about reassigning, as for a leader.
    (void)w;
}

/* ------------------------------------------------------------------------ */
/* each step                                                                */
/* ------------------------------------------------------------------------ */

/// A slot on free space (st_formation_def.nav): the farthest point of the
/// line from the anchor to the slot that the grid sees from the anchor.
static st_vec2 free_slot(st_navgrid *nav, st_vec2 anchor, st_vec2 slot)
{
    if (st_navgrid_visible(nav, anchor, slot) || !st_navgrid_visible(nav, anchor, anchor)) return slot;
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 12; it++) {
        double t = 0.5 * (lo + hi);
        if (st_navgrid_visible(nav, anchor, st_v2_lerp(anchor, slot, t))) lo = t;
        else hi = t;
    }
    return st_v2_lerp(anchor, slot, lo);
}

void st_formation_update(st_world *w, st_formation *f)
{
    st_formation_prune(w, f);
    if (f->count == 0) return;
    st_vec2 pos, h, vel;
    anchor(w, f, &pos, &h, &vel);
    if (st_v2_dot(h, f->assigned_heading) < st_cos(f->def.reassign_angle) - 1e-12) {
        st_formation_reassign(w, f);
        anchor(w, f, &pos, &h, &vel);
    }
    for (int k = 0; k < f->count; k++) {
        int i = st__dense(w, f->members[k]);
        if (i < 0) continue;
        st_vec2 slot = slot_world(f, pos, h, f->slot[k]);
        if (f->def.nav) {
            // On free space; a member that cannot see its slot (the others
            // went through a door it has not reached) makes for the anchor,
            // and so follows the way the anchor went.
            slot = free_slot(f->def.nav, pos, slot);
            st_vec2 at = w->bodies[i].pos;
            if (!st_navgrid_visible(f->def.nav, at, slot)) slot = pos;
        }
        if (!w->in_step) {
            // Between steps: kept for the step that applies it (request.c).
            st__request r = {.kind = ST__REQ_SLOT, .bh = st_default_behavior(ST_ARRIVE)};
            r.id = f->members[k];
            r.bh.target.point = slot;
            r.bh.offset = vel;
            r.bh.radius = f->def.slowing_radius;
            r.bh.weight = f->def.weight;
            st__request_push(w, &r, NULL, 0);
            continue;
        }
        st_vec2 force = st__formation_slot_force(w, i, slot, vel, f->def.slowing_radius);
        st__accumulate(w, i, force, f->def.weight, ST_ARRIVE);
    }
}

st_vec2 st__formation_slot_force(st_world *w, int i, st_vec2 slot, st_vec2 anchor_vel, double slowing)
{
    double dt = st_world_step_dt(w);
    const st_body *b = &w->bodies[i];
    st_vec2 to = st_world_offset(w, b->pos, slot);
    double d = st_v2_len(to);
    st_vec2 desired = anchor_vel;
    if (d > 0.0) desired = st_v2_add(desired, st_v2_scale(to, st__approach_speed(b, d, slowing, dt) / d));
    return st__steer_velocity(b, st_v2_truncate_safe(desired, b->max_speed), dt);
}
