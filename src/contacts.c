/*
 * contacts.c — optional overlap resolution after the move (world contacts).
 *
 * Steering keeps agents apart on average; a crowd pressed together still
 * overlaps. With contacts on, each step ends with a few passes over every
 * overlapping pair, Gauss-Seidel style: the pair is pushed apart along the
 * line between them, each by half the overlap (the other one by all of it
 * when one is locked), and the part of each one's velocity that drove it in
 * is dropped; then every agent is pushed out of the obstacles it sits in.
 * Pairs are visited in storage order, one thread: the result depends on
 * nothing but the world (storage order is itself a function of the calls
 * made), never on the number of threads.
 */
#include "grid_iter.h"
#include "avoid.h"
#include "obstacle.h"

#define CONTACT_PASSES 8

void st_world_set_contacts(st_world *w, bool on) { w->contacts = on; }
bool st_world_contacts(const st_world *w) { return w->contacts; }

typedef struct pair_ctx {
    st_world *w;
    int self;
    bool moved;
} pair_ctx;

/// Drops the part of b's velocity along -n (n: the way it was pushed).
static void stop_into(st_body *b, st_vec2 n)
{
    double into = st_v2_dot(b->vel, n);
    if (into < 0.0) b->vel = st_v2_sub(b->vel, st_v2_scale(n, into));
}

static void place(const st_world *w, st_body *b, st_vec2 p)
{
    if (!st_v2_finite(p)) return;
    if (w->edges == ST_EDGES_WRAP) {
        p.x = st__wrap_coord(p.x, w->width);
        p.y = st__wrap_coord(p.y, w->height);
    } else if (w->edges == ST_EDGES_BOUNCE) {
        p.x = fmin(fmax(p.x, 0.0), w->width);
        p.y = fmin(fmax(p.y, 0.0), w->height);
    }
    b->pos = p;
}

static void pair_run(void *ctx, const st_grid_item *items, int k0, int k1, double sx, double sy, st_vec2 c,
                     double r2, bool fold)
{
    (void)r2;
    (void)sx;
    (void)sy;
    (void)c;
    (void)fold;
    pair_ctx *q = ctx;
    st_world *w = q->w;
    st_body *a = &w->bodies[q->self];
    for (int k = k0; k < k1; k++) {
        int j = (int)items[k].index;
        if (j <= q->self || !w->agents[j].alive) continue; // each pair once
        st_body *o = &w->bodies[j];
        // Current positions, not the grid's copies: earlier pairs moved them.
        st_vec2 rel = st_world_offset(w, a->pos, o->pos);
        double rsum = a->radius + o->radius;
        double d2 = st_v2_len2(rel);
        if (d2 >= rsum * rsum) continue;
        bool la = (a->avoid & ST__AV_LOCKED) != 0, lo = (o->avoid & ST__AV_LOCKED) != 0;
        if (la && lo) continue;
        double d = sqrt(d2);
        // a to o; on the same spot, the earlier spawned goes -x.
        st_vec2 n = d > 0.0 ? st_v2_scale(rel, 1.0 / d)
                            : (w->agents[q->self].serial < w->agents[j].serial ? st_v2(1.0, 0.0) : st_v2(-1.0, 0.0));
        double gap = rsum - d;
        double sa = la ? 0.0 : lo ? 1.0 : 0.5;
        place(w, a, st_v2_sub(a->pos, st_v2_scale(n, gap * sa)));
        place(w, o, st_v2_add(o->pos, st_v2_scale(n, gap * (1.0 - sa))));
        if (!la) stop_into(a, st_v2_neg(n));
        if (!lo) stop_into(o, n);
        q->moved = true;
    }
}

/// Out of every obstacle the body overlaps: circles along the centre line,
/// polygons and polylines to their nearest outline point.
static bool obstacle_push(st_world *w, st_body *b)
{
    st_vec2 push = {0.0, 0.0};
    for (int k = 0; k < w->obstacle_count; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind == ST_OBSTACLE_CIRCLE) {
            st_vec2 off = st_world_offset(w, o->center, b->pos);
            double d = st_v2_len(off), r = o->radius + b->radius;
            if (d < r) push = st_v2_add(push, d > 0.0 ? st_v2_scale(off, (r - d) / d) : st_v2(r, 0.0));
            continue;
        }
        if (st_world_distance(w, b->pos, o->center) > o->radius + b->radius) continue;
        bool inside;
        st_vec2 c = st__polygon_closest(w, o, b->pos, &inside);
        st_vec2 off = st_world_offset(w, c, b->pos);
        double d = st_v2_len(off);
        if (inside) push = st_v2_add(push, d > 0.0 ? st_v2_scale(off, -(d + b->radius) / d) : st_v2(b->radius, 0.0));
        else if (d < b->radius && d > 0.0) push = st_v2_add(push, st_v2_scale(off, (b->radius - d) / d));
    }
    if (push.x == 0.0 && push.y == 0.0) return false;
    place(w, b, st_v2_add(b->pos, push));
    stop_into(b, st_v2_normalize_safe(push));
    return true;
}

void st__contacts_pass(st_world *w)
{
    int n = w->count;
    if (n == 0) return;
    double max_r = 0.0;
    for (int i = 0; i < n; i++)
        if (w->agents[i].alive) max_r = fmax(max_r, w->bodies[i].radius);
    for (int pass = 0; pass < CONTACT_PASSES; pass++) {
        st__grid_build(w, n);
        bool moved = false;
        for (int i = 0; i < n; i++) {
            st_body *b = &w->bodies[i];
            if (!w->agents[i].alive) continue;
            // Candidates from the grid of this pass's start; a body moves
            // by at most its own overlap within a pass, hence the slack.
            pair_ctx q = {w, i, false};
            st__grid_runs(w, &w->grid, b->pos, b->radius + 2.0 * max_r, pair_run, &q);
            if (!(b->avoid & ST__AV_LOCKED) && w->obstacle_count > 0) q.moved |= obstacle_push(w, b);
            moved |= q.moved;
        }
        if (!moved) break;
    }
    st__moved(w);
}
