/*
 * avoid_pass.c — the ORCA pass: every ORCA agent's velocity for the step
 * (van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision
 * avoidance", 2011).
 *
 * Each agent with ORCA turns every neighbour and every obstacle edge near it
 * into a half-plane of velocities that stay collision free for a time
 * horizon, and takes the velocity inside all of them closest to the one its
 * steering asked for (a 2D linear program over a disc of radius max_speed).
 * When the half-planes leave nothing, a 3D linear program finds the velocity
 * that violates the agent half-planes least, keeping the obstacle ones.
 *
 * Neighbours come from the world's grid, nearest first (ties by serial), so
 * the result never depends on grid order or thread count. The pass reads the
 * positions and velocities at the start of the step and the preferred
 * velocities, and writes only the agent's own entry of the chosen ones.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#ifdef STEER_HAVE_OPENMP
#include <omp.h>
#endif

#include "avoid_ref.h"
#include "orca_gather.h"
#include "orca_line.h"
#include "orca_solve.h"
#include "rng.h"
#include "avoid.h"
#include "obstacle.h"

/* ------------------------------------------------------------------------ */
/* tuning                                                                    */
/* ------------------------------------------------------------------------ */

/// How far a crowded agent's aim turns to its side when blocked: this
/// times its preferred velocity, at right angles (about 27 degrees).
#define ORCA_SIDE_BIAS 0.5
/// How far (radians, either way) a blocked agent wavers from its aim, differently
/// for every agent and step (a hash of world seed, serial and tick): agents
/// placed in perfect symmetry otherwise make the same choice forever.
#define ORCA_WAVER 0.2
/// In the open (not crowded, see ORCA_CROWDED) it wavers more, and the
/// more the slower it goes than it wants: this plus ORCA_WAVER_SLOW times
/// the share of its preferred speed it lacks. A walker held up in an open
/// crowd tries other ways round sooner (issue 26's goal crowd: 3.80 goals
/// per agent per 1,000 steps with ORCA_WAVER everywhere, 3.90 with this;
/// 30 square units an agent: 2.33, 2.53). A crowded squeeze (a circle, a
/// crossing) keeps ORCA_WAVER.
#define ORCA_WAVER_OPEN 0.4
#define ORCA_WAVER_SLOW 1.0
/// An agent counts as crowded (and keeps to ORCA_SIDE_BIAS's side) with at
/// least this many neighbours close enough to touch it within the step, or
/// with an obstacle's half-plane in reach. In an open crowd an agent
/// passing one other at a time walks straight for its goal instead: turning
/// every blocked walker cost issue 26's random-goal crowd nearly a fifth of
/// its goals (3.22 goals per agent per 1,000 steps against 3.94; 3.80 with
/// ORCA_HARD_SKIN).
#define ORCA_CROWDED 2
/// Bodies as ORCA plans them: 2% larger than they are, so what a squeeze
/// forces through comes out of this margin before the bodies touch.
#define ORCA_SKIN 1.02
/// And 5% larger in the hard one-step half-planes of the neighbours close
/// enough to touch within the step: a crowd that flows faster presses
/// harder (issue 26's goal crowd at 30 square units an agent came within
/// 0.967 of the radii with 2% there, 1.009 with 5%).
#define ORCA_HARD_SKIN 1.05
/// A blocked agent going slower than this share of its preferred speed
/// (and chosen to stay so) sidesteps instead: a ring of agents pressing
/// on one point turns instead of waiting for ever.
#define ORCA_STALL 0.1
/// A blocked agent in the open (not crowded: see ORCA_CROWDED) does not
/// take the velocity closest to its aim, which slows it to the projection
/// of its aim on the line that blocks it, but goes this share of the way
/// from there to the velocity, no faster than it wants to go, that gets it
/// farthest along its aim (both satisfy every line, and so does any point
/// between). Issue 26's goal crowd: 4.02 goals per agent per 1,000 steps
/// with 0, 4.12 with 0.5, 3.88 with 1 (all the way: it sweeps round at
/// full speed and meets the next neighbour head on).
#define ORCA_ONWARD 0.5
/// With one neighbour close enough to touch it within the step, less: at
/// 30 square units an agent 0.5 there brought one pair-step to 0.989 of
/// the radii; 0.4 none on five seeds, the goal crowd 4.07-4.10 on four.
#define ORCA_ONWARD_CLOSE 0.4

/* ------------------------------------------------------------------------ */
/* one agent                                                                */
/* ------------------------------------------------------------------------ */

static inline double share_of(const orca_peer *pj_, const orca_peer *pi_)
{
    if (!(pj_->yields & pi_->layer)) return 1.0;
    double pi = pi_->priority, pj = pj_->priority;
    if (pi + pj <= 0.0) return 0.5;
    // Equal priorities (most crowds) share evenly: pj / (pj + pj) is 0.5
    // exactly unless the sum overflows, so no division (the divider is
    // the slow unit, and every half-plane needs it for its own roots).
    if (pi == pj && pj <= DBL_MAX / 2) return 0.5;
    return pj / (pi + pj);
}

static bool is_traced(const st_world *w, int i)
{
    const st_agent *a = &w->agents[i];
    return w->trace_id.generation != 0 && a->slot == w->trace_id.index &&
           w->slots[a->slot].generation == w->trace_id.generation;
}

/// What one agent's pass works with: its body, settings and preferred
/// velocity, and the lines made so far ([0, n_obst) obstacles', [n_obst,
/// n_hard) the close agents' for one step, then the neighbours').
/// `blocked`: the largest share of the avoiding among the neighbour lines
/// that keep pref out (note_block). `skin`: the factor on the sums of the
/// radii of the lines being made (ORCA_HARD_SKIN, then ORCA_SKIN). `own`
/// and `refs`: the velocities the lines being made are built around, its
/// own and its neighbours' (NULL: their peer records' velocities).
typedef struct orca_ctx {
    const st_world *w;
    // Every agent of the step is a plain one (st__avoid_peer): any two
    // share the avoiding evenly, and no pair needs share_of.
    bool plain;
    const st_body *b;
    const orca_self *me;
    const orca_peer *peer; // its own
    uint64_t serial;
    st_vec2 pref;
    double dt, inv_h, inv_ho, inv_dt;
    double blocked, skin;
    const st_vec2 *own;
    const st_vec2 *refs;
    int n, n_obst, n_hard;
    line lines[ORCA_MAX_LINES];
} orca_ctx;

/// A neighbour's line that keeps pref out blocks the agent by its share
/// of the avoiding (doubled, at most 1: an even share blocks fully). Which
/// lines do is in no order: no branch on it.
ST__INLINE void note_block(orca_ctx *x, const line *L, double share)
{
    double v = det(L->direction, st_v2_sub(L->point, x->pref)) > 0.0;
    double m = 2.0 * share;
    m = v * (1.0 < m ? 1.0 : m); // fmin(1, m) for numbers
    x->blocked = x->blocked > m ? x->blocked : m;
}

/// Obstacle edges, nearest first, each unless an earlier line covers it;
/// then circle obstacles: discs that never yield, moving as they last moved.
static void obstacle_lines(orca_ctx *x)
{
    const st_world *w = x->w;
    const st_body *b = x->b;
    const struct st_avoid_state *s = w->avoid;
    double reach = x->me->horizon_obstacles * b->max_speed + b->radius;
    if (s->vert_count > 0) {
        near_edge edges[ORCA_MAX_OBSTACLE_LINES];
        int ne = orca_gather_edges(w, s, b->pos, reach, edges);
        for (int k = 0; k < ne; k++) {
            const overt *a = &s->verts[edges[k].vert];
            st_vec2 r1 = edges[k].rel1, r2 = st_v2_add(r1, st_v2_sub(s->verts[a->next].p, a->p));
            if (orca_covered(x->lines, x->n, r1, r2, x->inv_ho, b->radius)) continue;
            if (orca_edge_line(s->verts, edges[k].vert, r1, r2, b->vel, b->radius, x->inv_ho, &x->lines[x->n])) x->n++;
        }
    }
    for (int k = 0; k < w->obstacle_count && x->n < ORCA_MAX_OBSTACLE_LINES; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) continue;
        st_vec2 rel = st_world_offset(w, b->pos, o->center);
        double r = reach + o->radius;
        if (st_v2_len2(rel) > r * r) continue;
        st_vec2 ov = st_v2_scale(st_v2_sub(o->center, o->prev_center), x->inv_dt);
        if (!st_v2_finite(ov)) ov = st_v2(0.0, 0.0);
        x->lines[x->n++] = orca_disc_line(rel, b->vel, ov, b->radius + o->radius, 1.0, x->inv_ho, x->inv_dt, true);
    }
    x->n_obst = x->n;
}

/// Candidate q's neighbour: the velocity it is avoided at (a close one
/// stuck in the first round, `flag` non-NULL: the one it chose there,
/// `out`, and then wholly: *share 1), and its share of the avoiding.
static inline const st_vec2 *near_vel(const orca_ctx *x, const gather *g, int q, const uint8_t *flag,
                                      const st_vec2 *out, double *share)
{
    uint32_t j = g->index[q];
    const orca_peer *o = &g->peer[j];
    *share = x->plain ? 0.5 : share_of(o, x->peer);
    if (flag && (flag[j] & AV_STUCK)) {
        *share = 1.0;
        return &out[j];
    }
    return x->refs ? &x->refs[j] : &o->vel;
}

static inline double near_rsum(const orca_ctx *x, const gather *g, int q)
{
    return (x->b->radius + g->peer[g->index[q]].radius) * x->skin;
}

/// The line for candidate q alone, by the scalar code.
static inline line near_line(const orca_ctx *x, const gather *g, int q, double inv_h, const uint8_t *flag,
                             const st_vec2 *out, double *share)
{
    const st_vec2 *vo = near_vel(x, g, q, flag, out, share);
    return orca_disc_line(g->rel[q], *x->own, *vo, near_rsum(x, g, q), *share, inv_h, x->inv_dt,
                     x->serial < g->peer[g->index[q]].serial);
}

#if ORCA_SSE2
/// The lines (orca_lines2_sse2) and note_block for candidates qa and qb at once, one in each
/// lane (x and y apart): each lane does exactly the scalar arithmetic, so
/// the lines are the same bits, and its long chain of square roots and
/// divisions serves two lines. `two`: qb is another candidate, not qa
/// again. A lane that overlaps is made again by the scalar code. (Inputs
/// go from memory or registers straight into lanes: a vector loaded from
/// two halves just stored on the stack waits for them.)
static void disc_lines2(orca_ctx *x, const gather *g, int qa, int qb, double inv_h, const uint8_t *flag,
                        const st_vec2 *out, bool two, v2d *blocked)
{
    double sa, sb;
    const st_vec2 *va = near_vel(x, g, qa, flag, out, &sa), *vb = near_vel(x, g, qb, flag, out, &sb);
    const v2d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
    const v2d vel = _mm_loadu_pd(&x->own->x), vx = _mm_unpacklo_pd(vel, vel), vy = _mm_unpackhi_pd(vel, vel);
    const v2d ra = _mm_loadu_pd(&g->rel[qa].x), rb = _mm_loadu_pd(&g->rel[qb].x);
    const v2d oa = _mm_loadu_pd(&va->x), ob = _mm_loadu_pd(&vb->x);
    const v2d relx = _mm_unpacklo_pd(ra, rb), rely = _mm_unpackhi_pd(ra, rb);
    const v2d rvx = _mm_sub_pd(vx, _mm_unpacklo_pd(oa, ob)), rvy = _mm_sub_pd(vy, _mm_unpackhi_pd(oa, ob));
    const v2d rsum = _mm_set_pd(near_rsum(x, g, qb), near_rsum(x, g, qa));
    const v2d share = _mm_set_pd(sb, sa);
    v2d px, py, dirx, diry;
    int over = orca_lines2_sse2(relx, rely, rvx, rvy, vx, vy, rsum, share, inv_h, &px, &py, &dirx, &diry);
    line *L = &x->lines[x->n];
    if (over) { // rare: the scalar lines for the lanes that overlap
        double s;
        line la = (over & 1) ? near_line(x, g, qa, inv_h, flag, out, &s) : (line){{0, 0}, {0, 0}};
        line lb = (over & 2) ? near_line(x, g, qb, inv_h, flag, out, &s) : la;
        v2d m0 = _mm_castsi128_pd(_mm_set_epi64x(-(long long)((over >> 1) & 1), -(long long)(over & 1)));
        px = v2d_blend(m0, _mm_set_pd(lb.point.x, la.point.x), px);
        py = v2d_blend(m0, _mm_set_pd(lb.point.y, la.point.y), py);
        dirx = v2d_blend(m0, _mm_set_pd(lb.direction.x, la.direction.x), dirx);
        diry = v2d_blend(m0, _mm_set_pd(lb.direction.y, la.direction.y), diry);
    }
    _mm_storeu_pd(&L[0].point.x, _mm_unpacklo_pd(px, py));
    _mm_storeu_pd(&L[0].direction.x, _mm_unpacklo_pd(dirx, diry));
    if (two) {
        _mm_storeu_pd(&L[1].point.x, _mm_unpackhi_pd(px, py));
        _mm_storeu_pd(&L[1].direction.x, _mm_unpackhi_pd(dirx, diry));
    }
    // note_block for both: det(direction, point - pref) > 0 blocks by
    // min(1, 2 share); the largest is the same whatever the order.
    v2d det = _mm_sub_pd(_mm_mul_pd(dirx, _mm_sub_pd(py, _mm_set1_pd(x->pref.y))),
                         _mm_mul_pd(diry, _mm_sub_pd(px, _mm_set1_pd(x->pref.x))));
    v2d m = _mm_min_pd(one, _mm_mul_pd(_mm_set1_pd(2.0), share));
    *blocked = _mm_max_pd(*blocked, _mm_and_pd(_mm_cmpgt_pd(det, zero), m));
    x->n += 1 + two;
}
#endif

/// The lines for candidates which[0, m), their horizon 1 / inv_h.
static void lines_of(orca_ctx *x, const gather *g, const uint8_t *which, int m, double inv_h, const uint8_t *flag,
                     const st_vec2 *out)
{
#if ORCA_SSE2
    v2d blocked = _mm_set1_pd(x->blocked);
    for (int k = 0; k < m; k += 2) {
        bool two = k + 1 < m;
        disc_lines2(x, g, which[k], which[k + two], inv_h, flag, out, two, &blocked);
    }
    double b0 = _mm_cvtsd_f64(blocked), b1 = _mm_cvtsd_f64(_mm_unpackhi_pd(blocked, blocked));
    x->blocked = b0 > b1 ? b0 : b1;
#else
    for (int k = 0; k < m; k++) {
        double share;
        x->lines[x->n] = near_line(x, g, which[k], inv_h, flag, out, &share);
        note_block(x, &x->lines[x->n++], share);
    }
#endif
}

/// The long-horizon lines for candidates which[0, m) when the step has
/// reference velocities and some pair may share unevenly: a pair that
/// shares evenly (each yields to the other, equal priorities) plans around
/// both references, any other around both velocities (the share decides
/// who avoids how much; the references would move that). Both of a pair
/// come to the same choice, so their two lines still fit together.
static void mixed_lines(orca_ctx *x, const gather *g, const uint8_t *which, int m, double inv_h, int i)
{
    const st_vec2 *refs = x->refs;
    for (int k = 0; k < m; k++) {
        const orca_peer *o = &g->peer[g->index[which[k]]];
        bool even = share_of(o, x->peer) == 0.5 && share_of(x->peer, o) == 0.5;
        x->refs = even ? refs : NULL;
        x->own = even ? &refs[i] : &x->b->vel;
        double share;
        x->lines[x->n] = near_line(x, g, which[k], inv_h, NULL, NULL, &share);
        note_block(x, &x->lines[x->n++], share);
    }
    x->refs = refs;
    x->own = &refs[i];
}

/// Neighbours close enough to touch within this step get the half-plane
/// for a horizon of one step, kept hard like the obstacles': when the crowd
/// is too dense for every long-horizon half-plane, the fallback gives up
/// some foresight, never a collision this step. Then the nearest
/// max_neighbors get theirs for the full horizon, around the reference
/// velocities when the step has them (avoid_ref.c). In the second round
/// (`flag` non-NULL) a close neighbour stuck in the first keeps the
/// velocity it chose there (`out`), and this agent avoids all of it.
ST__INLINE void agent_lines(orca_ctx *x, const gather *g, const near_set *s, const uint8_t *flag,
                            const st_vec2 *out, int i)
{
    x->skin = ORCA_HARD_SKIN;
    x->own = &x->b->vel;
    x->refs = NULL;
    lines_of(x, g, s->close, s->n_close, x->inv_dt, flag, out);
    x->n_hard = x->n;
    x->skin = ORCA_SKIN;
    const struct st_avoid_state *st = x->w->avoid;
    if (st->use_ref) {
        x->refs = st->ref;
        x->own = &st->ref[i];
        if (!x->plain) {
            mixed_lines(x, g, s->ord, s->n_best, x->inv_h, i);
            return;
        }
    }
    lines_of(x, g, s->ord, s->n_best, x->inv_h, NULL, NULL);
}

/// Whether the agent counts as crowded (ORCA_CROWDED).
static inline bool crowded_of(const orca_ctx *x) { return x->n_hard - x->n_obst >= ORCA_CROWDED || x->n_obst > 0; }

/// The velocity the agent aims at. Blocked by a neighbour: waver a little;
/// and when crowded (ORCA_CROWDED), prefer passing on one side, the same
/// side for everyone, as pedestrians keep to one side; the more of the
/// avoiding this agent must do, the more (an even share: ORCA_SIDE_BIAS).
/// Plain ORCA lets symmetric crowds (a circle, a four-way crossing, groups
/// crossing between obstacles) stall face to face, each waiting for the
/// others, and squeezes them into overlaps there; an open crowd, where
/// each meets one other at a time, flows best straight at its goals.
/// *walled: an obstacle's line keeps pref out.
static st_vec2 aim_of(const orca_ctx *x, bool *walled)
{
    const st_vec2 pref = x->pref;
    bool wall = false;
    for (int k = 0; k < x->n_obst; k++) wall |= det(x->lines[k].direction, st_v2_sub(x->lines[k].point, pref)) > 0.0;
    *walled = wall;
    const double most = x->blocked;
    if (most <= 0.0) return pref;
    const st_world *w = x->w;
    uint64_t key = w->seed ^ (x->serial * 0x9E3779B97F4A7C15ull) ^ (w->tick * 0xD1B54A32D192ED03ull);
    double u = 2.0 * (double)(st_rng_next(&key) >> 11) * 0x1.0p-53 - 1.0;
    bool crowded = crowded_of(x);
    st_vec2 side = st_v2_scale(st_v2(pref.y, -pref.x), crowded ? ORCA_SIDE_BIAS * most : 0.0);
    double waver = ORCA_WAVER;
    if (!crowded) {
        double p2 = st_v2_len2(pref), v2 = st_v2_len2(x->b->vel);
        double lack = p2 > 0.0 ? 1.0 - sqrt(v2 / p2) : 0.0;
        waver = ORCA_WAVER_OPEN + ORCA_WAVER_SLOW * (lack > 0.0 ? lack : 0.0);
    }
    return st_v2_rotate(st_v2_add(pref, side), u * waver * most);
}

/// ORCA_ONWARD's velocity for a blocked agent in the open whose lines
/// leave room: from `v`, the one closest to its aim, part of the way to
/// the one farthest along its aim within its preferred speed.
static st_vec2 onward(const orca_ctx *x, st_vec2 pref, st_vec2 aim, st_vec2 v)
{
    double speed = sqrt(st_v2_len2(pref)), len = sqrt(st_v2_len2(aim));
    if (!(speed > 0.0) || !(len > 0.0)) return v;
    st_vec2 far;
    if (orca_lp2(x->lines, x->n, speed, st_v2_scale(aim, 1.0 / len), true, &far) < x->n) return v;
    double share = x->n_hard - x->n_obst == 0 ? ORCA_ONWARD : ORCA_ONWARD_CLOSE;
    return st_v2_add(v, st_v2_scale(st_v2_sub(far, v), share));
}

/// The velocity closest to `aim` in every half-plane; when they leave
/// nothing, the least violation of the neighbour lines keeping the hard
/// ones, or when even the hard ones leave nothing, of those keeping the
/// obstacles' (*stuck). A blocked agent that would all but stop sidesteps.
static st_vec2 solve(const orca_ctx *x, st_vec2 pref, st_vec2 aim, double blocked, bool walled, bool *stuck)
{
    const line *lines = x->lines;
    const int n = x->n, n_hard = x->n_hard;
    const double r = x->b->max_speed;
    st_vec2 v;
    int fail = orca_lp2(lines, n, r, aim, false, &v);
    if (fail >= n_hard && fail < n) {
        orca_lp3(lines, n, n_hard, fail, r, &v);
    } else if (fail < n_hard) {
        fail = orca_lp2(lines, n_hard, r, aim, false, &v);
        if (fail < n_hard) {
            orca_lp3(lines, n_hard, x->n_obst, fail, r, &v);
            *stuck = true;
        }
    }
    if (fail >= n && blocked > 0.0 && !crowded_of(x)) v = onward(x, pref, aim, v);
    double stall2 = ORCA_STALL * ORCA_STALL * st_v2_len2(pref);
    if ((blocked > 0.0 || walled) && !*stuck && st_v2_len2(v) < stall2 && st_v2_len2(x->b->vel) < stall2) {
        st_vec2 side;
        if (orca_lp2(lines, n, r, st_v2(pref.y, -pref.x), false, &side) >= n) v = side;
    }
    if (!st_v2_finite(v)) v = pref;
    return st_v2_truncate_safe(v, r); // r * r overflows past 1.3e154: the plain one would not cut
}

static void trace_agent(struct st_avoid_state *s, const orca_ctx *x, st_vec2 pref, st_vec2 v)
{
    st_orca_trace *t = &s->trace;
    t->valid = true;
    t->preferred = pref;
    t->chosen = v;
    t->line_count = x->n;
    t->obstacle_lines = x->n_obst;
    t->hard_lines = x->n_hard;
    memcpy(t->lines, x->lines, (size_t)x->n * sizeof *x->lines);
}

/// Agent i's velocity: closest to pref in every half-plane. *stuck: even
/// this step's half-planes left nothing. In the second round (`flag`
/// non-NULL) a neighbour stuck in the first keeps the velocity it chose
/// there (`out`), and this agent avoids all of it this step.
ORCA_PER_CPU static st_vec2 orca_agent(st_world *w, int i, st_vec2 pref, double dt, const uint8_t *flag,
                                       const st_vec2 *out, bool plain, bool *stuck)
{
    const struct st_avoid_state *st = w->avoid;
    orca_ctx x;
    x.w = w;
    x.plain = plain;
    x.b = &w->bodies[i];
    x.me = &st->self[i];
    x.peer = &st->peer[i];
    x.serial = st->peer[i].serial;
    x.dt = dt;
    x.inv_h = x.me->inv_h;
    x.inv_ho = x.me->inv_ho;
    x.inv_dt = 1.0 / dt;
    x.pref = pref;
    x.blocked = 0.0;
    x.n = 0;
    obstacle_lines(&x);

    // Agents: the max_neighbors nearest within range on the layers it avoids.
    gather g;
    near_set s;
    g.peer = st->peer;
    s.n_best = s.n_close = 0;
    if (x.me->max_neighbors > 0 && x.me->range > 0.0)
        orca_gather_agents(&g, w, i, x.me->mask, x.me->max_neighbors, x.me->range, dt, &s);
    agent_lines(&x, &g, &s, flag, out, i);

    bool walled;
    st_vec2 aim = aim_of(&x, &walled);
    st_vec2 v = solve(&x, pref, aim, x.blocked, walled, stuck);
    if (is_traced(w, i)) trace_agent(w->avoid, &x, pref, v);
    return v;
}

/// Marks the ORCA agents that could touch stuck agent i within the step.
static void mark_revisits(st_world *w, int i, uint8_t *flag)
{
    // The close list alone (no nearest-k list), over the same range as the
    // agent's own round.
    gather g;
    near_set s;
    orca_gather_agents(&g, w, i, UINT32_MAX, 0, w->avoid->self[i].range, w->step_dt, &s);
    for (int k = 0; k < s.n_close; k++) {
        uint32_t j = g.index[s.close[k]];
        if ((w->bodies[j].avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA && !(flag[j] & AV_STUCK))
            flag[j] |= AV_REVISIT;
    }
}

bool st__avoid_peer(st_world *w, int i)
{
    // A stream over four arrays, one of them (the settings) in handle
    // order: ask for the lines a few agents ahead.
    if (i + 16 < w->step_count) {
        ST__PREFETCH(&w->agents[i + 16]);
        const st_agent *a = &w->agents[i + 8];
        if (w->bodies[i + 8].avoid & ST__AV_DEF) ST__PREFETCH(&w->avoid_defs[a->slot]);
    }
    const st_body *b = &w->bodies[i];
    orca_peer *p = &w->avoid->peer[i];
    p->vel = b->vel;
    p->radius = b->radius;
    p->max_speed = b->max_speed;
    p->serial = w->agents[i].serial;
    bool yields = (b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA, plain = false;
    if (b->avoid & ST__AV_DEF) {
        const st_avoid_def *d = &w->avoid_defs[w->agents[i].slot];
        p->layer = d->layer;
        p->yields = yields ? d->mask : 0u;
        p->priority = d->priority;
        plain = yields && d->mask == UINT32_MAX && d->layer != 0u && d->priority == 1.0;
        if (yields) {
            st_avoid_def e = st__avoid_effective(w, i);
            orca_self *me = &w->avoid->self[i];
            me->range = e.range;
            me->horizon_obstacles = e.horizon_obstacles;
            me->inv_h = 1.0 / e.horizon;
            me->inv_ho = 1.0 / e.horizon_obstacles;
            me->mask = e.mask;
            me->max_neighbors = e.max_neighbors;
        }
    } else {
        p->layer = 1u;
        p->yields = yields ? UINT32_MAX : 0u;
        p->priority = 1.0;
    }
    return plain;
}

st_vec2 st__avoid_velocity(const st_world *w, int i) { return w->avoid->out[i]; }

/// Whether ORCA agent i has an obstacle in the reach its obstacle lines
/// look at (obstacle_lines).
static bool walls_near(const st_world *w, int i)
{
    const struct st_avoid_state *s = w->avoid;
    const st_body *b = &w->bodies[i];
    double reach = s->self[i].horizon_obstacles * b->max_speed + b->radius;
    for (int k = 0; k < w->obstacle_count; k++) {
        const st_obstacle *o = &w->obstacles[k];
        if (o->kind != ST_OBSTACLE_CIRCLE) continue;
        double r = reach + o->radius;
        if (!(st_v2_len2(st_world_offset(w, b->pos, o->center)) > r * r)) return true;
    }
    if (s->vert_count == 0) return false;
    near_edge e[ORCA_MAX_OBSTACLE_LINES];
    return orca_gather_edges(w, s, b->pos, reach, e) > 0;
}

/// Before round one: each agent's reference velocity for the long-horizon
/// lines (avoid_ref.c: an unlocked ORCA agent in the open plans part of the
/// way to its preferred velocity; anyone else, its velocity), and first the
/// largest radius and max speed, which bound its search for someone close.
/// Any pair's two lines are built around the same two references, however
/// the pair shares the avoiding, so the guarantee holds.
static void reference_pass(st_world *w, const st_vec2 *pref, int n, double dt)
{
    struct st_avoid_state *s = w->avoid;
    const bool all_alive = !w->removed_in_step && w->dead == 0;
#ifdef STEER_HAVE_OPENMP
#pragma omp single
#endif
    {
        // One thread (a sweep of the peer records); the others wait.
        double max_r = 0.0, max_v = 0.0;
        for (int i = 0; i < n; i++) {
            if (!all_alive && !w->agents[i].alive) continue;
            max_r = s->peer[i].radius > max_r ? s->peer[i].radius : max_r;
            max_v = s->peer[i].max_speed > max_v ? s->peer[i].max_speed : max_v;
        }
        s->ref_radius = max_r;
        s->ref_speed = max_v;
        s->use_ref = true; // false since st__avoid_begin
    }
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1024)
#endif
    for (int i = 0; i < n; i++) {
        const st_body *b = &w->bodies[i];
        bool open = (b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) == ST__AV_ORCA &&
                    (all_alive || w->agents[i].alive) && !walls_near(w, i);
        s->ref[i] = st__avoid_ref(w, pref, i, dt, open, s->ref_radius, s->ref_speed);
    }
}

void st__avoid_pass(st_world *w, const st_vec2 *pref, bool plain)
{
    struct st_avoid_state *s = w->avoid;
    const int n = w->step_count;
    const bool all_alive = !w->removed_in_step && w->dead == 0;
    const double dt = w->step_dt;
    st_vec2 *out = s->out;
    uint8_t *flag = s->flag;
    reference_pass(w, pref, n, dt);
    // Round one: every ORCA agent from the state at the start of the step.
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
    for (int i = 0; i < n; i++) {
        const st_body *b = &w->bodies[i];
        flag[i] = 0;
        out[i] = pref[i];
        if ((b->avoid & (ST__AV_ORCA | ST__AV_LOCKED)) != ST__AV_ORCA) continue;
        if (!all_alive && !w->agents[i].alive) continue;
        bool stuck = false;
        out[i] = orca_agent(w, i, pref[i], dt, NULL, NULL, plain, &stuck);
        if (stuck) {
            flag[i] = AV_STUCK;
#ifdef STEER_HAVE_OPENMP
#pragma omp atomic
#endif
            s->stuck++;
        }
    }
    // An agent stuck in a squeeze cannot do its share of avoiding: its
    // neighbours take all of it, against the velocity it chose (round two).
    // (The barrier after round one makes s->stuck the same for every thread.)
    if (s->stuck > 0) {
#ifdef STEER_HAVE_OPENMP
#pragma omp single
#endif
        for (int i = 0; i < n; i++)
            if (flag[i] & AV_STUCK) mark_revisits(w, i, flag);
#ifdef STEER_HAVE_OPENMP
#pragma omp for schedule(dynamic, 64)
#endif
        for (int i = 0; i < n; i++) {
            if (!(flag[i] & AV_REVISIT)) continue;
            bool stuck = false;
            out[i] = orca_agent(w, i, pref[i], dt, flag, out, plain, &stuck);
        }
    }
    // A revisited agent is never a stuck one, whose out[] round two reads:
    // the threads write apart. The move reads out[] (st__avoid_velocity)
    // after the last barrier.
}
