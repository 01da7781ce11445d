/*
 * move_group_links.c — a group order whose route takes a navgrid link.
 *
 * A link (a ladder, a jump) is one way across for everyone: its start and
 * its end are points, not a width the members could share. So lanes are
 * not laid along such a route (move_group.c) and it is not split across
 * doors (move_split.c): each member joins the group's route at the
 * farthest of its points before the first link that it can reach in a
 * straight line, follows it point by point, each link's leg kept with its
 * link, and after the last link's end walks on to its slot. A member then
 * heads for the link's start, reaches it (never cuts past it), and the
 * step records its link event, as for a move_to order (move.c): the host
 * calls brain.traverse_link once per member. A member that sees none of
 * the route's points before the first link asks for a path of its own
 * (which names its links too).
 */
#include "alloc.h"
#include "move.h"

bool mv__job_linked(const st_nav_job *job)
{
    int n;
    st_nav_job_points(job, &n);
    for (int k = 0; k + 1 < n; k++)
        if (st_nav_job_link(job, k)) return true;
    return false;
}

/// The member's points from the route's point j on, its slot at the end
/// (in a straight line from the last point after the last link that sees
/// it). lk gets each leg's link. Returns the count.
static int member_route(const mv_group *g, const st_vec2 *p, int n, const st_nav_job *job, int j, st_vec2 pos,
                        st_vec2 slot, bool has_slot, st_vec2 *pts, int32_t *lk)
{
    int c = 0, floor = 0;
    pts[c] = pos;
    lk[c++] = 0;
    for (int k = j; k < n; k++) {
        pts[c] = p[k];
        lk[c] = k + 1 < n ? st_nav_job_link(job, k) : 0;
        if (k > 0 && st_nav_job_link(job, k - 1)) floor = c; // a link's end: kept
        c++;
    }
    lk[c - 1] = 0;
    int total = c;
    if (!has_slot) return c;
    // Cut the points after the last link's end that the slot is in sight of.
    while (c - 1 > floor && c > 1 && mv__fits(g->nav, pts[c - 2], slot, g->radius)) c--;
    if (!mv__fits(g->nav, pts[c - 1], slot, g->radius) && c < total) c++; // keep a point that sees it
    lk[c - 1] = 0;
    pts[c] = slot;
    lk[c] = 0;
    return c + 1;
}

/// The farthest of the route's points before its first link (and the
/// first link's start) that an agent at pos reaches straight; -1: none.
static int join_at(const mv_group *g, const st_vec2 *p, int n, const st_nav_job *job, st_vec2 pos)
{
    int last = n - 1;
    for (int k = 0; k + 1 < n; k++)
        if (st_nav_job_link(job, k)) {
            last = k;
            break;
        }
    for (int k = last; k >= 1; k--)
        if (mv__fits(g->nav, pos, p[k], g->radius)) return k;
    return mv__fits(g->nav, pos, p[0], g->radius) ? 0 : -1;
}

void mv__lay_linked(st_world *w, mv_group *g, const st_vec2 *p, int n, const st_nav_job *job)
{
    st_mover *m = w->mover;
    st_vec2 d0 = n > 1 ? st_v2_sub(p[1], p[0]) : st_v2(1.0, 0.0);
    st_vec2 u0 = st_v2_len2(d0) > 0.0 ? st_v2_normalize(d0) : st_v2(1.0, 0.0);
    mv__assign_slots(w, g, p[0], u0);
    st_vec2 *pts = st__alloc(&w->mem, (size_t)(n + 3) * sizeof *pts);
    int32_t *lk = st__alloc(&w->mem, (size_t)(n + 3) * sizeof *lk);
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        int i = e->live && e->group == g->handle && e->state == ST_MOVE_WAITING ? st__dense(w, e->id) : -1;
        if (i < 0) continue;
        st_vec2 pos = w->bodies[i].pos;
        int j = pts && lk ? join_at(g, p, n, job, pos) : -1;
        bool ok;
        if (j < 0) {
            ok = mv__request(w, e);
        } else {
            int c = member_route(g, p, n, job, j, pos, e->goal, e->slot >= 0, pts, lk);
            ok = mv__set_route_links(w, e, pts, c, NULL, lk);
        }
        if (!ok) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
    }
    st__free(pts);
    st__free(lk);
}
