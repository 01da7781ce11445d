/*
 * move.c — orders: an agent told to go somewhere plans, follows, arrives
 * and rests (the mover layer of DESIGN.md, above the behaviours).
 *
 * At the start of every step (st__mover_step, from st_world_step_begin):
 *   1. the path queue: requests are searched in the order they came
 *      (nav_job.c), a slice at a time, until the step's work budget is
 *      spent; a finished path becomes its agent's route (a group's route
 *      is joined by every member, move_group.c);
 *   2. every ordered agent, in record order: dead ones are let go; the
 *      route checked again when the obstacles changed; the waypoint it
 *      heads for advanced; progress measured (no progress for stuck_time:
 *      a replan; after `retries` of them: "stuck"); then its force: seek
 *      the waypoint, arrive at the goal, or hold still.
 * Arrivals and failures are recorded as events for the caller (the Lua
 * bindings call brain.arrived and brain.move_failed from them).
 */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "move.h"
#include "nav_internal.h"
#include "behavior_internal.h"
#include "mover.h"

/// The share of stuck_time without progress after which a group member
/// looks for a member standing in its way (move_block.c).
#define MV_STALL 0.25

static const st_vec2 ZERO = {0.0, 0.0};

st_move_def st_default_move_def(void)
{
    st_move_def d = {NULL, -1.0, 0.0, -1.0, -1.0, 2.0, 3};
    return d;
}

const char *st_move_state_name(st_move_state s)
{
    static const char *const names[] = {"idle", "waiting", "moving", "arrived", "stuck", "failed"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

static st_mover *mover(st_world *w)
{
    if (w->mover) return w->mover;
    st_mover *m = st__calloc(&w->mem, 1, sizeof *m);
    if (!m) return NULL;
    m->budget = ST_PATH_BUDGET_DEFAULT;
    m->next_group = 1;
    w->mover = m;
    return m;
}

void st__mover_free(st_world *w)
{
    st__mover_destroy(w->mover);
    w->mover = NULL;
}

mv_entry *mv__entry(const st_world *w, st_agent_id id)
{
    const st_mover *m = w->mover;
    if (!m || id.index >= (uint32_t)m->slot_cap || m->by_slot[id.index] == 0) return NULL;
    mv_entry *e = &m->e[m->by_slot[id.index] - 1];
    return e->live && st_id_equal(e->id, id) ? e : NULL;
}

static void release(st_world *w, mv_entry *e)
{
    mv__leave_group(w, e);
    st_mover *m = w->mover;
    if (e->id.index < (uint32_t)m->slot_cap) m->by_slot[e->id.index] = 0;
    e->live = 0;
    e->state = ST_MOVE_IDLE;
    e->n = 0;
}

static void event(st_world *w, mv_entry *e, st_move_event_kind kind, st_nav_result why)
{
    st_mover *m = w->mover;
    if (!st__grow(&w->mem, (void **)&m->events, &m->event_cap, m->event_n + 1, sizeof *m->events)) return;
    m->events[m->event_n++] = (st_move_event){e->id, kind, why};
}

void mv__fail(st_world *w, mv_entry *e, st_move_event_kind kind, st_nav_result why)
{
    e->state = kind == ST_MOVE_EVENT_STUCK ? ST_MOVE_STUCK : ST_MOVE_FAILED;
    e->ticket++;
    e->n = 0;
    mv__leave_group(w, e);
    event(w, e, kind, why);
}

mv_entry *mv__order(st_world *w, st_agent_id id, const st_move_def *def, st_vec2 goal)
{
    st_mover *m = mover(w);
    if (!m || st__dense(w, id) < 0) return NULL;
    mv_entry *e = mv__entry(w, id);
    if (!e) {
        int need = (int)id.index + 1;
        int old = m->slot_cap;
        if (need > old) {
            if (!st__grow(&w->mem, (void **)&m->by_slot, &m->slot_cap, need, sizeof *m->by_slot)) return NULL;
            memset(m->by_slot + old, 0, (size_t)(m->slot_cap - old) * sizeof *m->by_slot);
        }
        int k = 0;
        while (k < m->n && m->e[k].live) k++;
        if (k == m->n) {
            if (!st__grow(&w->mem, (void **)&m->e, &m->cap, m->n + 1, sizeof *m->e)) return NULL;
            memset(&m->e[m->n++], 0, sizeof *m->e);
        }
        e = &m->e[k];
        e->id = id;
        e->live = 1;
        e->group = 0;
        m->by_slot[id.index] = k + 1;
    }
    mv__leave_group(w, e);
    e->def = *def;
    e->goal = goal;
    e->state = ST_MOVE_WAITING;
    e->ticket++;
    e->retries = (int16_t)(def->retries < 0 ? 0 : def->retries > 1000 ? 1000 : def->retries);
    e->slot = -1;
    e->near = 0;
    e->n = 0;
    e->linked = false;
    e->next = 1;
    e->remaining = INFINITY;
    e->best = INFINITY;
    e->waited = 0.0;
    e->epoch = w->obstacle_epoch;
    return e;
}

static bool enqueue(st_world *w, mv_request r)
{
    st_mover *m = w->mover;
    if (m->qn == m->qcap) {
        int cap = m->qcap ? 2 * m->qcap : 16;
        mv_request *q = st__alloc(&w->mem, (size_t)cap * sizeof *q);
        if (!q) return false;
        for (int k = 0; k < m->qn; k++) q[k] = m->q[(m->qhead + k) % m->qcap];
        st__free(m->q);
        m->q = q;
        m->qcap = cap;
        m->qhead = 0;
    }
    m->q[(m->qhead + m->qn++) % m->qcap] = r;
    return true;
}

bool mv__request(st_world *w, mv_entry *e)
{
    e->state = ST_MOVE_WAITING;
    e->ticket++;
    mv_request r = {.id = e->id, .ticket = e->ticket};
    return enqueue(w, r);
}

bool mv__request_group(st_world *w, st_agent_id from, mv_group *g, int part)
{
    mv_request r = {.id = from, .group = g->handle, .group_ticket = g->ticket, .part = part};
    if (part > 0) {
        r.keep_n = g->keep_n;
        memcpy(r.keep, g->keep, sizeof r.keep);
    }
    return enqueue(w, r);
}

double mv__plan_radius(const st_world *w, const mv_entry *e)
{
    if (e->def.radius >= 0.0) return e->def.radius;
    if (!e->def.nav->tiles) return e->def.nav->clearance;
    int i = st__dense(w, e->id);
    return i < 0 ? e->def.nav->clearance : w->bodies[i].radius;
}

static bool valid_def(const st_move_def *d)
{
    return d && d->nav && st_finite(d->stop_distance) && st_finite(d->speed) && st_finite(d->slowing) &&
           st_finite(d->radius) && st_finite(d->stuck_time) && d->stuck_time > 0.0;
}

bool st_agent_move_to(st_world *w, st_agent_id id, st_vec2 goal, const st_move_def *def)
{
    if (!valid_def(def) || !st_v2_finite(goal) || def->nav->w != w) return false;
    mv_entry *e = mv__order(w, id, def, goal);
    if (!e) return false;
    mv_request r = {.id = e->id, .ticket = e->ticket};
    if (!enqueue(w, r)) {
        release(w, e);
        return false;
    }
    return true;
}

void st_agent_stop_moving(st_world *w, st_agent_id id)
{
    mv_entry *e = mv__entry(w, id);
    if (e) release(w, e);
}

st_move_state st_agent_move_state(const st_world *w, st_agent_id id)
{
    const mv_entry *e = mv__entry(w, id);
    return e ? (st_move_state)e->state : ST_MOVE_IDLE;
}

double st_agent_move_remaining(const st_world *w, st_agent_id id)
{
    const mv_entry *e = mv__entry(w, id);
    if (!e) return NAN;
    if (e->state == ST_MOVE_ARRIVED) return 0.0;
    return e->remaining;
}

bool st_agent_move_goal(const st_world *w, st_agent_id id, st_vec2 *goal)
{
    const mv_entry *e = mv__entry(w, id);
    if (!e) return false;
    *goal = e->goal;
    return true;
}

int st_agent_move_route(const st_world *w, st_agent_id id, const st_vec2 **points, int *next)
{
    const mv_entry *e = mv__entry(w, id);
    *points = NULL;
    *next = 0;
    if (!e || e->n == 0) return 0;
    *points = e->route;
    *next = e->next;
    return e->n;
}

int st_agent_move_group(const st_world *w, st_agent_id id, int *slot)
{
    const mv_entry *e = mv__entry(w, id);
    *slot = e ? e->slot : -1;
    return e ? e->group : 0;
}

void st_world_set_path_budget(st_world *w, long units)
{
    st_mover *m = mover(w);
    if (m && units >= 1) m->budget = units;
}

long st_world_path_budget(const st_world *w) { return w->mover ? w->mover->budget : ST_PATH_BUDGET_DEFAULT; }
int st_world_path_pending(const st_world *w) { return w->mover ? w->mover->qn : 0; }
long st_world_path_work(const st_world *w) { return w->mover ? w->mover->work : 0; }

int st_world_move_events(const st_world *w, const st_move_event **events)
{
    *events = w->mover ? w->mover->events : NULL;
    return w->mover ? w->mover->event_n : 0;
}

/* ---- routes ---- */

/// Length from waypoint k to the end.
static double tail_length(const mv_entry *e, int k)
{
    double s = 0.0;
    for (int i = k; i + 1 < e->n; i++) s += st_v2_dist(e->route[i], e->route[i + 1]);
    return s;
}

/// The link of leg k: the search's, or the given list's (either may be NULL).
static int32_t leg_link(const st_nav_job *job, const int32_t *lk, int k)
{
    return job ? st_nav_job_link(job, k) : lk ? lk[k] : 0;
}

bool mv__set_route(st_world *w, mv_entry *e, const st_vec2 *p, int n, const st_nav_job *job)
{
    return mv__set_route_links(w, e, p, n, job, NULL);
}

bool mv__set_route_links(st_world *w, mv_entry *e, const st_vec2 *p, int n, const st_nav_job *job,
                         const int32_t *lk)
{
    int cap = e->cap;
    if (n < 1 || !st__grow(&w->mem, (void **)&e->route, &e->cap, n + 1, sizeof *e->route)) return false;
    // The links ride beside the points, with room for as many.
    if (e->links && e->cap != cap) {
        int32_t *lk = st__realloc(&w->mem, e->links, (size_t)e->cap * sizeof *lk);
        if (!lk) return false;
        e->links = lk;
    }
    e->linked = false;
    for (int k = 0; (job || lk) && k + 1 < n && !e->linked; k++) e->linked = leg_link(job, lk, k) != 0;
    if (e->linked) {
        if (!e->links && !(e->links = st__alloc(&w->mem, (size_t)e->cap * sizeof *e->links))) return false;
        for (int k = 0; k <= n; k++) e->links[k] = k + 1 < n ? leg_link(job, lk, k) : 0;
    }
    e->link_seg = -1;
    memcpy(e->route, p, (size_t)n * sizeof *p);
    e->n = n;
    if (n == 1) e->route[e->n++] = p[0];
    e->next = 1;
    e->state = ST_MOVE_MOVING;
    if (e->group == 0) e->goal = e->route[e->n - 1]; // a snapped goal is the one it reaches
    e->remaining = tail_length(e, 0);
    e->best = e->remaining;
    e->waited = 0.0;
    e->epoch = w->obstacle_epoch;
    return true;
}

/// The path search finished (or failed) for the queue's head.
static void deliver(st_world *w, const mv_request *r, st_nav_job *job)
{
    int n;
    const st_vec2 *p = st_nav_job_points(job, &n);
    st_nav_result why = st_nav_job_result(job);
    if (r->group > 0) {
        mv_group *g = mv__group(w->mover, r->group);
        if (g && g->ticket == r->group_ticket) mv__group_part(w, g, p, n, r->part, why, job);
        return;
    }
    mv_entry *e = mv__entry(w, r->id);
    if (!e || e->ticket != r->ticket) return;
    if (n == 0 || !mv__set_route(w, e, p, n, job)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, n ? ST_NAV_NO_MEMORY : why);
}

static st_nav_job *job_for(st_world *w, st_navgrid *nav)
{
    st_mover *m = w->mover;
    for (int k = 0; k < m->job_n; k++)
        if (m->jobs[k].nav == nav) return m->jobs[k].job;
    if (!st__grow(&w->mem, (void **)&m->jobs, &m->job_cap, m->job_n + 1, sizeof *m->jobs)) return NULL;
    st_nav_job *j = st_nav_job_create(nav);
    if (!j) return NULL;
    m->jobs[m->job_n++] = (mv_job){nav, j};
    return j;
}

/// Where the head request plans from and to; false when it is stale.
static bool request_ends(st_world *w, const mv_request *r, st_navgrid **nav, st_vec2 *from, st_vec2 *to,
                         double *radius)
{
    if (r->group > 0) {
        mv_group *g = mv__group(w->mover, r->group);
        if (!g || g->ticket != r->group_ticket || g->members == 0) return false;
        // From the member nearest the members' centre (now: one may be gone).
        st_vec2 c = ZERO;
        int n = 0, best = -1;
        st_mover *m = w->mover;
        for (int k = 0; k < m->n; k++) {
            int i = m->e[k].live && m->e[k].group == g->handle ? st__dense(w, m->e[k].id) : -1;
            if (i >= 0) c = st_v2_add(c, w->bodies[i].pos), n++;
        }
        if (n == 0) return false;
        c = st_v2_scale(c, 1.0 / n);
        double bd = INFINITY;
        for (int k = 0; k < m->n; k++) {
            int i = m->e[k].live && m->e[k].group == g->handle ? st__dense(w, m->e[k].id) : -1;
            if (i >= 0 && st_v2_dist2(w->bodies[i].pos, c) < bd) bd = st_v2_dist2(w->bodies[i].pos, c), best = i;
        }
        *from = w->bodies[best].pos;
        *to = g->goal;
        *nav = g->nav;
        *radius = g->radius;
        return true;
    }
    mv_entry *e = mv__entry(w, r->id);
    int i = e ? st__dense(w, e->id) : -1;
    if (!e || i < 0 || e->ticket != r->ticket || e->state != ST_MOVE_WAITING) return false;
    *from = w->bodies[i].pos;
    *to = e->goal;
    *nav = e->def.nav;
    *radius = mv__plan_radius(w, e);
    return true;
}

static void pop(st_mover *m)
{
    m->qhead = (m->qhead + 1) % m->qcap;
    m->qn--;
    m->q_started = false;
    m->head_done = 0;
}

/// Fails the head request's agent or group at once (a group's later
/// route: the group goes on with the routes it has).
static void refuse(st_world *w, const mv_request *r, st_nav_result why)
{
    if (r->group > 0) {
        mv_group *g = mv__group(w->mover, r->group);
        if (g) mv__group_part(w, g, NULL, 0, r->part, why, NULL);
        return;
    }
    mv_entry *e = mv__entry(w, r->id);
    if (e) mv__fail(w, e, ST_MOVE_EVENT_FAILED, why);
}

/// Step 1: the queue, until the budget is spent.
static void run_queue(st_world *w)
{
    st_mover *m = w->mover;
    m->work = 0;
    while (m->qn > 0 && m->work < m->budget) {
        mv_request r = m->q[m->qhead];
        st_navgrid *nav;
        st_vec2 from, to;
        double radius;
        if (!request_ends(w, &r, &nav, &from, &to, &radius)) {
            pop(m);
            continue;
        }
        st_nav_job *job = job_for(w, nav);
        if (!job) {
            refuse(w, &r, ST_NAV_NO_MEMORY);
            pop(m);
            continue;
        }
        // A group's later route keeps out of the earlier ones' bottlenecks
        // while its search runs. The grid is made current first (its cells,
        // their connected parts and its links' view), so the marks come off
        // exactly as they went on and nothing cached sees them.
        if (r.keep_n > 0 && !nav->tiles && st_navgrid_update(nav) >= 0 && nav__links_view(nav)) {
            nav__label_parts(nav);
            mv__keepout(nav, &r, +1);
        } else {
            r.keep_n = 0;
        }
        if (!m->q_started || m->replay) {
            m->q_started = true;
            st_nav_result why = st_nav_job_start(job, from, to, radius);
            if (why != ST_NAV_OK) {
                mv__keepout(nav, &r, -1);
                m->replay = false;
                refuse(w, &r, why);
                pop(m);
                continue;
            }
            if (m->replay) { // restored: the search again to where it was, uncounted
                long ignored = 0;
                if (m->head_done > 0) st_nav_job_run(job, m->head_done, &ignored);
                m->replay = false;
            }
        }
        int s = st_nav_job_run(job, m->budget - m->work, &m->work);
        mv__keepout(nav, &r, -1);
        m->head_done = st_nav_job_done(job);
        if (s == ST_NAV_JOB_RUNNING) break;
        pop(m);
        deliver(w, &r, job);
    }
}

void st__mover_forget(st_world *w, const st_navgrid *nav)
{
    st_mover *m = w->mover;
    if (!m) return;
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        if (e->live && e->def.nav == nav && e->state != ST_MOVE_FAILED) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_ROUTE);
        if (e->live && e->def.nav == nav) e->def.nav = NULL;
    }
    for (int k = 0; k < m->group_n; k++)
        if (m->groups[k].nav == nav) m->groups[k].nav = NULL, m->groups[k].ticket++;
    for (int k = 0; k < m->job_n; k++) {
        if (m->jobs[k].nav != nav) continue;
        st_nav_job_destroy(m->jobs[k].job);
        m->jobs[k--] = m->jobs[--m->job_n];
    }
    m->q_started = false; // the head's search (if on this grid) is gone
    m->head_done = 0;
}

/* ---- following ---- */

/// How near a waypoint counts as reached: the room the plan leaves beyond
/// the body (planning clearance - radius), at least a unit, at most the radius.
static double reach_of(const st_body *b, double plan)
{
    double r = plan - b->radius;
    r = r > b->radius ? b->radius : r;
    return r > 1.0 ? r : 1.0;
}

/// Whether waypoint k is an end of a leg that takes a link: only reaching
/// it counts there, never passing it.
static bool link_end(const mv_entry *e, int k)
{
    return e->linked && ((k > 0 && e->links[k - 1]) || (k + 1 < e->n && e->links[k]));
}

/// The waypoint to head for: past every one reached, or passed (the agent
/// is near it and beyond it along its leg in: it overshot the corner).
static void advance(mv_entry *e, const st_body *b, double reach)
{
    const double near = 3.0 * fmax(b->radius, reach);
    while (e->next < e->n - 1) {
        st_vec2 wpt = e->route[e->next], prev = e->route[e->next - 1];
        st_vec2 in = st_v2_sub(wpt, prev), off = st_v2_sub(b->pos, wpt);
        double d2 = st_v2_len2(off);
        bool passed = d2 < near * near && st_v2_dot(off, in) > 0.0 && st_v2_len2(in) > 0.0 && !link_end(e, e->next);
        if (d2 > reach * reach && !passed) break;
        e->next++;
    }
}

static double slowing_of(const mv_entry *e, const st_body *b, double speed)
{
    if (e->def.slowing >= 0.0) return e->def.slowing;
    double accel = b->max_force / (b->mass > 0.0 ? b->mass : 1.0);
    double brake = accel > 0.0 ? speed * speed / (2.0 * accel) : 0.0;
    return fmax(2.0 * b->radius, 3.0 * brake);
}

static double stop_of(const mv_entry *e, const st_body *b)
{
    return e->def.stop_distance >= 0.0 ? e->def.stop_distance : 0.5 * b->radius;
}

/// The velocity that arrives at `to`, d away: full speed beyond the
/// slowing distance, then a linear ramp, never past it within one step.
static st_vec2 arrive_velocity(st_vec2 off, double d, double speed, double slowing, double dt)
{
    if (d <= 0.0) return ZERO;
    double v = slowing > 0.0 && d < slowing ? speed * d / slowing : speed;
    if (v * dt > d) v = d / dt;
    return st_v2_scale(off, v / d);
}

/// The route's legs from the waypoint before the agent's still clear of
/// the (changed) obstacles.
static bool route_clear(mv_entry *e)
{
    st_navgrid *g = e->def.nav;
    for (int k = e->next - 1; k + 1 < e->n; k++) // a link's leg is the link's: no sight needed
        if (!(e->linked && e->links[k]) && !st_navgrid_visible(g, e->route[k], e->route[k + 1])) return false;
    return true;
}

/// Progress along the route, and what to do without it.
static void watch_progress(st_world *w, mv_entry *e, const st_body *b, double dt)
{
    double enough = fmax(0.5, b->radius);
    if (e->remaining < e->best - enough) {
        e->best = e->remaining;
        e->waited = 0.0;
        e->retries = (int16_t)(e->def.retries < 0 ? 0 : e->def.retries > 1000 ? 1000 : e->def.retries);
        return;
    }
    e->waited += dt;
    if (e->waited < e->def.stuck_time) return;
    if (e->retries <= 0) {
        // A group member keeps at it while its block still fills (a member
        // arrived within stuck_time): the way to its slot may yet open.
        const mv_group *g = e->group > 0 ? mv__group(w->mover, e->group) : NULL;
        if (g && w->time - g->arrived_at < e->def.stuck_time) {
            e->waited = 0.0;
            e->best = INFINITY;
            return;
        }
        mv__fail(w, e, ST_MOVE_EVENT_STUCK, ST_NAV_OK);
        return;
    }
    e->retries--;
    e->waited = 0.0;
    e->best = INFINITY; // the new route measures afresh
    int16_t left = e->retries;
    if (!mv__request(w, e)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
    e->retries = left;
}

/// Whether this step's dt took the time without progress past another
/// MV_STALL share of stuck_time: a stalled member looks about it then,
/// not every step.
static bool stall_tick(const mv_entry *e, double dt)
{
    double share = MV_STALL * e->def.stuck_time;
    return e->waited >= share && floor(e->waited / share) != floor((e->waited - dt) / share);
}

/// A group member stalled on its way to its slot, behind a member standing
/// on a nearer one: the two exchange slots (move_block.c) and it heads for
/// the nearer one. False when nobody stands in its way.
static bool make_way(st_world *w, mv_entry *e, const st_body *b)
{
    int k = mv__blocker(w, e, b->pos);
    if (k < 0) return false;
    mv__exchange_slots(w, e, k);
    return true;
}

static void hold(st_world *w, int i, double dt)
{
    st__accumulate(w, i, st__steer_velocity(&w->bodies[i], ZERO, dt), 1.0, ST_STOP);
}

/// A moving agent's step: route checks, waypoints, progress, its force.
static void follow(st_world *w, mv_entry *e, int i, double dt)
{
    const st_body *b = &w->bodies[i];
    if (w->obstacle_epoch != e->epoch) {
        e->epoch = w->obstacle_epoch;
        if (!route_clear(e)) {
            if (!mv__request(w, e)) mv__fail(w, e, ST_MOVE_EVENT_FAILED, ST_NAV_NO_MEMORY);
            hold(w, i, dt);
            return;
        }
    }
    if (e->group > 0 && e->slot < 0) mv__claim_slot(w, e);
    else if (e->group > 0 && !e->near) mv__coming_in(w, e);
    double speed = e->def.speed > 0.0 && e->def.speed < b->max_speed ? e->def.speed : b->max_speed;
    advance(e, b, reach_of(b, mv__plan_radius(w, e)));
    // On a link's leg (its start reached): the event, once, for the host
    // (brain.traverse_link) to carry it across; meanwhile it heads straight
    // for the link's end, as a path follower does.
    int seg = e->next - 1;
    if (e->linked && e->links[seg] && e->link_seg != seg && st__link_event(w, i, e->links[seg], seg, NULL))
        e->link_seg = seg;
    st_vec2 wpt = e->route[e->next];
    st_vec2 off = st_v2_sub(wpt, b->pos);
    double d = st_v2_len(off);
    e->remaining = d + tail_length(e, e->next);
    bool last = e->next == e->n - 1;
    // Arrived: within stop_distance, or held within the distance it rests
    // within (twice that) for a while, pressed by the ones around it.
    double stop = stop_of(e, b);
    if (last && (d <= stop || (d <= 2.0 * stop && e->waited >= MV_STALL * e->def.stuck_time))) {
        e->state = ST_MOVE_ARRIVED;
        mv_group *g = e->group > 0 ? mv__group(w->mover, e->group) : NULL;
        if (g) g->arrived_at = w->time;
        e->remaining = 0.0;
        event(w, e, ST_MOVE_EVENT_ARRIVED, ST_NAV_OK);
        hold(w, i, dt);
        return;
    }
    watch_progress(w, e, b, dt);
    if (e->state != ST_MOVE_MOVING) {
        hold(w, i, dt);
        return;
    }
    if (e->group > 0 && stall_tick(e, dt) && make_way(w, e, b)) {
        hold(w, i, dt);
        return;
    }
    // Slowing by the distance left along the route, not the leg: a corner
    // just before the goal must not hide it.
    double slowing = slowing_of(e, b, speed);
    double ramp = e->remaining < slowing ? speed * e->remaining / slowing : speed;
    st_vec2 v = arrive_velocity(off, d, ramp, 0.0, dt);
    st__accumulate(w, i, st__steer_velocity(b, v, dt), 1.0, ST_FOLLOW_PATH);
}

/// An arrived agent rests at its goal, and comes back when pushed off it
/// (or walks on to a slot it was given: move_block.c).
static void rest(st_world *w, mv_entry *e, int i, double dt)
{
    const st_body *b = &w->bodies[i];
    st_vec2 off = st_v2_sub(e->goal, b->pos);
    double d = st_v2_len(off), stop = stop_of(e, b);
    if (d <= 2.0 * stop + 1e-9) {
        e->best = INFINITY;
        e->waited = 0.0;
        hold(w, i, dt);
        return;
    }
    if (d < e->best - fmax(0.5, b->radius)) {
        e->best = d;
        e->waited = 0.0;
    } else if ((e->waited += dt, stall_tick(e, dt)) && e->group > 0) {
        int k = mv__blocker(w, e, b->pos);
        if (k >= 0) mv__exchange_slots(w, e, k);
    }
    double speed = e->def.speed > 0.0 && e->def.speed < b->max_speed ? e->def.speed : b->max_speed;
    st_vec2 v = arrive_velocity(off, d - stop, speed, slowing_of(e, b, speed), dt);
    st__accumulate(w, i, st__steer_velocity(b, v, dt), 1.0, ST_ARRIVE);
}

void st__mover_step(st_world *w)
{
    st_mover *m = w->mover;
    if (!m) return;
    m->event_n = 0;
    run_queue(w);
    double dt = w->step_dt;
    for (int k = 0; k < m->n; k++) {
        mv_entry *e = &m->e[k];
        if (!e->live) continue;
        int i = st__dense(w, e->id);
        if (i < 0 || !e->def.nav) {
            if (i < 0) release(w, e);
            else if (e->state != ST_MOVE_IDLE) hold(w, i, dt);
            continue;
        }
        switch (e->state) {
        case ST_MOVE_MOVING: follow(w, e, i, dt); break;
        case ST_MOVE_ARRIVED: rest(w, e, i, dt); break;
        default: hold(w, i, dt); break; // waiting, stuck, failed
        }
    }
}
