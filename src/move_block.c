/*
 * move_block.c — where a group's block stands, and making way in it for a
 * member that cannot get in.
 *
 * A group ordered into a wall or an obstacle (a right click on a pillar)
 * forms its block beside it: the goal moves to the nearest place the
 * group's planning radius fits, and the slots are laid out around that.
 *
 * The block fills from the inside out, but members do not always come in
 * the order their slots were promised, nor from behind their columns (a
 * block against a wall, slots moved off the pattern, members pushed about
 * by the ones coming through a door). A member can then find its slot
 * behind members who came first and stand on theirs. It makes no
 * progress, and without help would walk about the block replanning until
 * it gave up ("stuck").
 *
 * Instead, a member whose progress to its slot has stalled for a while
 * looks along its way to the slot: when a member standing on its own slot
 * is in the way, and that slot is nearer, the two exchange slots. The
 * coming member takes the nearer place; the standing one walks on towards
 * the far one. If that one in turn stalls behind another standing member,
 * the same happens again. So the free place travels out to the edge of
 * the block along the line the coming member looked down, each standing
 * member moving on by about a spacing, and the block stays filled from
 * the inside out: the same slots are taken, by members that no longer
 * have to pass through one another.
 */
#include <math.h>

#include "geom.h"
#include "move.h"
#include "nav_internal.h"

/// Where the member holding slot k stands, when it is a member on its way
/// or at rest (not stuck or failed); false otherwise.
static bool holder_at(const st_world *w, const mv_group *g, int k, st_vec2 *pos)
{
    if (!g->taken[k] || g->holder[k] <= 0) return false;
    const mv_entry *h = &w->mover->e[g->holder[k] - 1];
    if (!h->live || h->group != g->handle || h->slot != k) return false;
    if (h->state != ST_MOVE_ARRIVED && h->state != ST_MOVE_MOVING) return false;
    int i = st__dense(w, h->id);
    if (i < 0) return false;
    *pos = w->bodies[i].pos;
    return true;
}

int mv__blocker(const st_world *w, const mv_entry *e, st_vec2 pos)
{
    const mv_group *g = mv__group(w->mover, e->group);
    if (!g || e->slot < 0 || e->slot >= g->slot_n) return -1;
    st_vec2 slot = g->slots[e->slot];
    double body = g->body, len = st_v2_dist(pos, slot);
    // Only about the block: within its reach and four spacings.
    if (len < 1e-9 || st_v2_dist(pos, g->front) > g->outer + 4.0 * fmax(g->spacing, 2.0 * body)) return -1;
    int best = -1;
    double first = INFINITY;
    st_vec2 at = pos;
    for (int k = 0; k < g->slot_n; k++) {
        st_vec2 q;
        if (k == e->slot || !holder_at(w, g, k, &q)) continue;
        // In the way: ahead of it, its body within two bodies' width of
        // the line to the slot. The first such one.
        double along = st_v2_dot(st_v2_sub(q, pos), st_v2_sub(slot, pos)) / len;
        if (along <= 0.0 || along >= first || st_v2_dist(st__closest_on_segment(q, pos, slot), q) >= 2.0 * body) continue;
        first = along, best = k, at = q;
    }
    if (best < 0) return -1;
    // Worth it when its own way gets clearly shorter and the two together
    // have no more to walk than before (about as much when the one in the
    // way stands on the line to its slot).
    double now = len + st_v2_dist(at, g->slots[best]);
    double then = st_v2_dist(pos, g->slots[best]) + st_v2_dist(at, slot);
    if (st_v2_dist(pos, g->slots[best]) > len - 0.5 * g->spacing) return -1;
    return then <= now + 0.25 * g->spacing ? best : -1;
}

/// A member on its way whose slot changed heads straight for the new one
/// when it can, else plans its way there.
static void reroute(st_world *w, mv_entry *e)
{
    int i = st__dense(w, e->id);
    if (e->state != ST_MOVE_MOVING || i < 0) return;
    st_vec2 p[2] = {w->bodies[i].pos, e->goal};
    if (mv__fits(e->def.nav, p[0], p[1], mv__plan_radius(w, e))) mv__set_route(w, e, p, 2, NULL);
    else if (!mv__request(w, e)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
}

void mv__exchange_slots(st_world *w, mv_entry *e, int k)
{
    st_mover *m = w->mover;
    mv_group *g = mv__group(m, e->group);
    if (!g || k < 0 || k >= g->slot_n || e->slot < 0 || g->holder[k] <= 0) return;
    mv_entry *h = &m->e[g->holder[k] - 1];
    int mine = e->slot;
    g->holder[mine] = g->holder[k];
    g->holder[k] = (int32_t)(e - m->e) + 1;
    h->slot = mine;
    h->goal = g->slots[mine];
    e->slot = k;
    e->goal = g->slots[k];
    // Each measures its way to the new slot afresh.
    h->best = e->best = INFINITY;
    h->waited = e->waited = 0.0;
    reroute(w, h);
    reroute(w, e);
}

/// How far (in cells) a group's goal in a wall may move to free ground.
#define MV_GOAL_REACH 64

st_vec2 mv__block_goal(st_navgrid *nav, st_vec2 goal, double r)
{
    if (mv__fits(nav, goal, goal, r)) return goal;
    double cell = nav->cell, best = INFINITY;
    int gx = (int)floor(goal.x / cell), gy = (int)floor(goal.y / cell);
    st_vec2 at = goal;
    // Rings of cells around the goal's, nearest first: every cell of ring k
    // lies at least k - 1 cells away, so the search ends once one fits
    // nearer than that. Ties go to the first in scan order.
    for (int k = 0; k <= MV_GOAL_REACH && (k - 1) * cell <= best; k++) {
        for (int y = gy - k; y <= gy + k; y++) {
            if (y < 0 || y >= nav->rows) continue;
            int step = y == gy - k || y == gy + k ? 1 : 2 * k;
            for (int x = gx - k; x <= gx + k; x += step > 0 ? step : 1) {
                if (x < 0 || x >= nav->cols) continue;
                st_vec2 c = st_v2((x + 0.5) * cell, (y + 0.5) * cell);
                double d = st_v2_dist(c, goal);
                if (d < best && mv__fits(nav, c, c, r)) best = d, at = c;
            }
        }
    }
    return at;
}
