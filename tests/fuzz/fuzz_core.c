/*
 * fuzz_core.c — libFuzzer target over the core API (src/steer.h).
 *
 * The input is a little program (see fuzz_input.h): a world def, then a
 * sequence of operations — spawns with extreme numbers, removals (of live,
 * dead and made-up ids), every behaviour through st_agent_steer and
 * st_agent_force_of with random parameters and targets, standing lists,
 * queries checked against the brute-force scan, steps with random dt, steps
 * opened by hand with brain-like calls inside, setters, obstacles, walls,
 * paths, tracing.
 *
 * The core's documented contracts are kept where the core asserts them
 * (setters get finite, in-range values; queries valid ones; step dt > 0):
 * the bindings check those before the core sees them. Everything else gets
 * hostile values, non-finite ones included. After every operation the
 * world must hold only finite numbers and the counts must add up; returned
 * forces must be finite and within their documented bounds.
 *
 *   (built by tests/extra.cmake when the compiler is clang)
 *   ./fuzz_core -max_total_time=60 tests/fuzz/corpus_core
 */
#include <stdio.h>
#include <stdlib.h>

#include "steer.h"
#include "fuzz_input.h"

#define MAX_IDS 48
#define MAX_PATHS 4
#define MAX_OPS 400

typedef struct fz_world {
    st_world *w;
    st_agent_id ids[MAX_IDS]; /* every id handed out, dead ones too */
    int nids;
    int live;                 /* what the world should count */
    st_path *paths[MAX_PATHS];
    int npaths;
    uint64_t last_tick;
} fz_world;

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "fuzz_core: %s:%d: ", __FILE__, __LINE__);                 \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
        abort();                                                                   \
    } while (0)

static int finite2(st_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

/* |v| <= max * (1 + 1e-9), without overflowing for huge components. */
static int within(st_vec2 v, double max)
{
    double m = fmax(fabs(v.x), fabs(v.y));
    if (m == 0.0) return 1;
    if (!isfinite(max)) return 1;
    double l = m * hypot(v.x / m, v.y / m);
    /* below 1e-140 a speed is invisible: the step's plain truncation lets
     * vectors whose squared length underflows through */
    return l <= max * (1.0 + 1e-9) + 1e-140;
}

static st_agent_id pick_id(fz_in *in, fz_world *z)
{
    unsigned k = fz_pick(in, 8);
    if (k < 6 && z->nids > 0) return z->ids[fz_pick(in, (unsigned)z->nids)];
    if (k == 6) return st_null_agent();
    st_agent_id id;
    id.index = fz_u8(in) % 70;
    static const uint32_t gens[] = {0, 1, 2, 3, UINT32_MAX};
    id.generation = gens[fz_pick(in, 5)];
    return id;
}

static int32_t pick_tag(fz_in *in, int allow_any)
{
    int32_t t = (int32_t)fz_pick(in, 5) - 1; /* -1 .. 3 */
    if (t < 0 && !allow_any) t = 0;
    return t;
}

static st_vec2 any_vec(fz_in *in) { return st_v2(fz_double(in), fz_double(in)); }
static st_vec2 finite_vec(fz_in *in) { return st_v2(fz_finite(in), fz_finite(in)); }

static st_target pick_target(fz_in *in, fz_world *z)
{
    if (fz_pick(in, 2)) return st_target_agent(pick_id(in, z));
    return st_target_point(fz_pick(in, 4) ? finite_vec(in) : any_vec(in));
}

static st_behavior pick_behavior(fz_in *in, fz_world *z)
{
    st_behavior b = st_default_behavior((st_behavior_type)fz_pick(in, ST_BEHAVIOR_COUNT));
    unsigned fields = fz_u16(in);
    /* hostile: non-finite parameters too (the bindings never pass them, but
     * the core promises that no input puts a nan or an inf into a world) */
    int hostile = (fields & 1) != 0;
#define NUM(in) (hostile ? fz_double(in) : fz_finite(in))
    if (fields & 2) b.weight = NUM(in);
    if (fields & 4) b.target = pick_target(in, z);
    if (fields & 8) b.target2 = pick_target(in, z);
    if (fields & 16) b.radius = hostile ? fz_double(in) : fz_nonneg(in);
    if (fields & 32) b.decel = (st_deceleration)fz_pick(in, 4);
    if (fields & 64) b.offset = hostile ? any_vec(in) : finite_vec(in);
    if (fields & 128) b.path = z->npaths ? z->paths[fz_pick(in, (unsigned)z->npaths)] : NULL;
    /* the neighbour radius keeps its contract (>= 0, not nan; inf is all
     * around): the grid walk converts its cell range to int */
    if (fields & 256) {
        double r = fabs(fz_double(in));
        b.flock.radius = isnan(r) || (!hostile && !isfinite(r)) ? 0.0 : r;
    }
    if (fields & 512) b.flock.fov = NUM(in);
    if (fields & 1024) b.flock.separation = NUM(in);
    if (fields & 2048) b.flock.alignment = NUM(in);
    if (fields & 4096) b.flock.cohesion = NUM(in);
    if (fields & 8192) b.flock.separation_radius = NUM(in);
    if (fields & 16384) b.flock.tag = pick_tag(in, 1);
    if (fields & 32768)
        for (int k = 0; k < 4; k++) b.rect[k] = NUM(in);
    if (b.type == ST_FOLLOW_PATH || b.type >= ST_FACE) {
        /* follow_path's modes and the motion behaviours' parameters */
        unsigned more = fz_u16(in);
        if (more & 1) b.path_mode = (st_path_mode)fz_pick(in, 3);
        if (more & 2) b.predict = NUM(in);
        if (more & 4) b.ahead = NUM(in);
        if (more & 8) b.zone = NUM(in);
    }
#undef NUM
    if (b.type == ST_FOLLOW_PATH && b.path == NULL && z->npaths) b.path = z->paths[0];
    return b;
}

/* The force a behaviour returned: zero for a dead agent, else finite and at
 * most max_force long (ST_AVOID_URGENCY times that for the avoidances). */
static void check_force(fz_world *z, st_agent_id id, int was_alive, const st_behavior *b, st_vec2 f)
{
    if (!was_alive) {
        if (f.x != 0.0 || f.y != 0.0) FAIL("force for a dead agent: (%g, %g)", f.x, f.y);
        return;
    }
    if (!finite2(f)) {
        st_vec2 p = st_agent_pos(z->w, id), v = st_agent_vel(z->w, id);
        FAIL("behaviour %s returned a non-finite force (%g, %g); agent pos (%g, %g) vel (%g, %g) max_speed %g "
             "max_force %g mass %g; params weight %g radius %g offset (%g, %g) target %s (%g, %g)",
             st_behavior_name(b->type), f.x, f.y, p.x, p.y, v.x, v.y, st_agent_max_speed(z->w, id),
             st_agent_max_force(z->w, id), st_agent_mass(z->w, id), b->weight, b->radius, b->offset.x,
             b->offset.y, b->target.is_agent ? "agent" : "point", b->target.point.x, b->target.point.y);
    }
    double bound = st_agent_max_force(z->w, id);
    if (b->type == ST_AVOID_OBSTACLES || b->type == ST_AVOID_WALLS || b->type == ST_AVOID_AGENTS)
        bound *= ST_AVOID_URGENCY; /* the avoidances may shout, see steer.h */
    if (!within(f, bound))
        FAIL("behaviour %s returned |f| = %g > %g", st_behavior_name(b->type), hypot(f.x, f.y), bound);
}

/* When check_world runs: between operations, right after st_world_step, or
 * after a step opened by hand (agents spawned inside it were not moved). */
enum { CHECK_ANY_TIME, CHECK_AFTER_STEP, CHECK_AFTER_MANUAL_STEP };

static void check_agent(fz_world *z, st_agent_id id, int after_step)
{
    st_world *w = z->w;
    st_vec2 p = st_agent_pos(w, id), v = st_agent_vel(w, id), h = st_agent_heading(w, id);
    st_vec2 f = st_agent_force(w, id), acc = st_agent_accum(w, id), s = st_agent_side(w, id);
    st_vec2 wt = st_agent_wander_target(w, id);
    if (!finite2(p) || !finite2(v) || !finite2(h) || !finite2(f) || !finite2(acc) || !finite2(s) || !finite2(wt))
        FAIL("agent %u: non-finite state pos (%g, %g) vel (%g, %g) heading (%g, %g) force (%g, %g) accum (%g, %g) "
             "wander (%g, %g)",
             id.index, p.x, p.y, v.x, v.y, h.x, h.y, f.x, f.y, acc.x, acc.y, wt.x, wt.y);
    double hl = hypot(h.x, h.y);
    if (fabs(hl - 1.0) > 1e-9) FAIL("agent %u: heading not unit: |h| = %.17g", id.index, hl);
    double sp = st_agent_speed(w, id);
    if (!isfinite(sp) || sp < 0.0) FAIL("agent %u: speed %g", id.index, sp);
    double ms = st_agent_max_speed(w, id), mf = st_agent_max_force(w, id), m = st_agent_mass(w, id),
           r = st_agent_radius(w, id);
    if (!(isfinite(ms) && ms >= 0 && isfinite(mf) && mf >= 0 && isfinite(m) && m > 0 && isfinite(r) && r >= 0))
        FAIL("agent %u: bad scalars max_speed %g max_force %g mass %g radius %g", id.index, ms, mf, m, r);
    if (!within(v, ms)) FAIL("agent %u: speed %g over max_speed %g", id.index, sp, ms);
    /* The force applied in the last step was truncated to the max_force of
     * that step: a setter since may have lowered it. */
    if (after_step != CHECK_ANY_TIME && !within(f, mf))
        FAIL("agent %u: applied force over max_force %g", id.index, mf);
    if (after_step == CHECK_AFTER_STEP) {
        if (acc.x != 0.0 || acc.y != 0.0) FAIL("agent %u: accumulator not cleared by the step", id.index);
        double W = st_world_width(w), H = st_world_height(w);
        switch (st_world_edges(w)) {
        case ST_EDGES_WRAP:
            if (!(p.x >= 0.0 && p.x < W && p.y >= 0.0 && p.y < H))
                FAIL("agent %u: outside a wrap world after a step: (%.17g, %.17g) in %g x %g", id.index, p.x, p.y,
                     W, H);
            break;
        case ST_EDGES_BOUNCE:
            if (!(p.x >= 0.0 && p.x <= W && p.y >= 0.0 && p.y <= H))
                FAIL("agent %u: outside a bounce world after a step: (%.17g, %.17g)", id.index, p.x, p.y);
            break;
        case ST_EDGES_NONE: break;
        }
    }
}

/* Every live agent's state is finite and the counts add up. */
static void check_world(fz_world *z, int after_step)
{
    st_world *w = z->w;
    int n = 0, by_tag = 0;
    uint64_t serial = 0;
    st_agent_id it = st_null_agent();
    for (;;) {
        st_agent_id next = st_world_next(w, it, ST_TAG_ANY);
        st_agent_id next2 = st_world_next_serial(w, serial, ST_TAG_ANY);
        if (!st_id_equal(next, next2)) FAIL("st_world_next and st_world_next_serial disagree");
        if (st_id_is_null(next)) break;
        if (!st_agent_alive(w, next)) FAIL("iteration yields a dead agent");
        uint64_t s = st_agent_serial(w, next);
        if (s <= serial) FAIL("iteration out of spawn order: serial %llu after %llu", (unsigned long long)s,
                              (unsigned long long)serial);
        serial = s;
        check_agent(z, next, after_step);
        it = next;
        if (++n > 100000) FAIL("iteration does not end");
    }
    for (int32_t t = 0; t < 4; t++) by_tag += st_world_count(w, t);
    int count = st_world_count(w, ST_TAG_ANY);
    if (n != count || count != z->live || by_tag != count)
        FAIL("counts disagree: iterated %d, st_world_count %d, expected %d, by tag %d", n, count, z->live, by_tag);
    if (!isfinite(st_world_time(w)) || st_world_time(w) < 0.0) FAIL("world time %g", st_world_time(w));
    const st_trace_entry *tr;
    int nt = st_world_trace(w, &tr);
    if (nt < 0 || nt > 32) FAIL("trace count %d", nt);
    for (int i = 0; i < nt; i++)
        if (!finite2(tr[i].force)) FAIL("trace entry %d non-finite", i);
}

static void remember(fz_world *z, st_agent_id id)
{
    if (z->nids < MAX_IDS) z->ids[z->nids++] = id;
    else z->ids[id.index % MAX_IDS] = id;
}

static void op_spawn(fz_in *in, fz_world *z)
{
    st_agent_def d = st_default_agent_def();
    unsigned fields = fz_u16(in);
    if (fields & 1) d.pos = fz_pick(in, 3) ? finite_vec(in) : any_vec(in);
    if (fields & 2) d.vel = fz_pick(in, 3) ? finite_vec(in) : any_vec(in);
    if (fields & 4) { d.heading = any_vec(in); d.has_heading = true; }
    if (fields & 8) d.max_speed = fz_double(in);
    if (fields & 16) d.max_force = fz_double(in);
    if (fields & 32) d.mass = fz_double(in);
    if (fields & 64) d.radius = fz_double(in);
    if (fields & 128) d.tag = pick_tag(in, 1);
    if (fields & 256) d.combine = (st_combine)fz_pick(in, 3);
    if (fields & 512) d.color[0] = fz_u8(in);
    if (fields & 1024) d.turn_rate = fz_double(in); /* any: nan and negative are invalid, inf the default */
    int valid = d.turn_rate >= 0 && finite2(d.pos) && finite2(d.vel) && (!d.has_heading || finite2(d.heading)) &&
                isfinite(d.max_speed) && d.max_speed >= 0 && isfinite(d.max_force) && d.max_force >= 0 &&
                isfinite(d.mass) && d.mass > 0 && isfinite(d.radius) && d.radius >= 0 && d.tag >= 0 &&
                (d.combine == ST_COMBINE_SUM || d.combine == ST_COMBINE_PRIORITY);
    st_agent_id id = st_world_spawn(z->w, &d);
    if (st_id_is_null(id)) {
        if (valid) FAIL("a valid def did not spawn");
        return;
    }
    if (!valid) FAIL("an invalid def spawned");
    if (!st_agent_alive(z->w, id)) FAIL("spawned agent not alive");
    z->live++;
    remember(z, id);
    if (fields & 1024) {
        double dd = fz_finite(in), r = fz_nonneg(in), j = fz_nonneg(in);
        st_agent_set_wander(z->w, id, dd, r, j);
    }
}

static void op_remove(fz_in *in, fz_world *z)
{
    st_agent_id id = pick_id(in, z);
    int alive = st_agent_alive(z->w, id);
    bool ok = st_world_remove(z->w, id);
    if (ok != (alive != 0)) FAIL("remove returned %d for an agent alive=%d", ok, alive);
    if (ok) z->live--;
    if (st_agent_alive(z->w, id)) FAIL("removed agent still alive");
    if (st_world_remove(z->w, id)) FAIL("removing twice succeeded");
}

static void op_behave(fz_in *in, fz_world *z, int accumulate)
{
    st_agent_id id = pick_id(in, z);
    st_behavior b = pick_behavior(in, z);
    int alive = st_agent_alive(z->w, id);
    st_vec2 f = accumulate ? st_agent_steer(z->w, id, &b) : st_agent_force_of(z->w, id, &b);
    check_force(z, id, alive, &b, f);
}

static void op_apply(fz_in *in, fz_world *z)
{
    st_agent_id id = pick_id(in, z);
    st_agent_apply(z->w, id, finite_vec(in), fz_finite(in));
}

static void op_list_rule(fz_in *in, fz_world *z)
{
    st_agent_id id = pick_id(in, z);
    st_agent_id list[12];
    int n = (int)fz_pick(in, 12);
    for (int i = 0; i < n; i++) list[i] = pick_id(in, z);
    double weight = fz_pick(in, 4) ? fz_finite(in) : fz_double(in);
    int alive = st_agent_alive(z->w, id);
    st_vec2 f;
    st_behavior b = st_default_behavior(ST_SEPARATE);
    switch (fz_pick(in, 3)) {
    case 0: f = st_agent_separate_list(z->w, id, list, n, weight); break;
    case 1: b.type = ST_ALIGN; f = st_agent_align_list(z->w, id, list, n, weight); break;
    default: b.type = ST_COHERE; f = st_agent_cohere_list(z->w, id, list, n, weight); break;
    }
    check_force(z, id, alive, &b, f);
}

static void op_set_behaviors(fz_in *in, fz_world *z)
{
    st_agent_id id = pick_id(in, z);
    st_behavior list[6];
    int n = (int)fz_pick(in, 7);
    for (int i = 0; i < n; i++) list[i] = pick_behavior(in, z);
    int alive = st_agent_alive(z->w, id);
    bool ok = st_agent_set_behaviors(z->w, id, n ? list : NULL, n);
    const st_behavior *got;
    int m = st_agent_behaviors(z->w, id, &got);
    if (alive && ok && m != n) FAIL("standing list of %d reads back %d", n, m);
    if (!alive && m != 0) FAIL("a dead agent has a standing list");
}

static void op_setter(fz_in *in, fz_world *z)
{
    st_agent_id id = pick_id(in, z);
    st_world *w = z->w;
    switch (fz_pick(in, 12)) {
    case 10:
    case 11: {
        /* avoidance settings, valid or not: the core says which */
        st_avoid_def d = st_default_avoid_def();
        d.mode = fz_pick(in, 3) ? ST_AVOIDANCE_ORCA : ST_AVOIDANCE_NONE;
        d.range = fz_pick(in, 2) ? ST_AVOID_AUTO : fz_double(in);
        d.max_neighbors = (int)fz_pick(in, 70) - 2;
        d.horizon = fz_pick(in, 2) ? ST_AVOID_AUTO : fz_double(in);
        d.horizon_obstacles = fz_pick(in, 2) ? ST_AVOID_AUTO : fz_double(in);
        d.priority = fz_pick(in, 2) ? 1.0 : fz_double(in);
        d.layer = fz_u8(in);
        d.mask = fz_pick(in, 2) ? UINT32_MAX : fz_u8(in);
        d.locked = fz_pick(in, 5) == 0;
        bool valid = (d.range == ST_AVOID_AUTO || (isfinite(d.range) && d.range >= 0)) &&
                     (d.horizon == ST_AVOID_AUTO || (isfinite(d.horizon) && d.horizon > 0)) &&
                     (d.horizon_obstacles == ST_AVOID_AUTO || (isfinite(d.horizon_obstacles) && d.horizon_obstacles > 0)) &&
                     isfinite(d.priority) && d.priority >= 0 && d.max_neighbors >= 0 &&
                     d.max_neighbors <= ST_AVOID_MAX_NEIGHBORS_CAP;
        bool alive = st_agent_alive(w, id);
        bool ok = st_agent_set_avoidance(w, id, &d);
        if (alive && ok != valid) FAIL("st_agent_set_avoidance: valid %d but returned %d", valid, ok);
        st_avoid_def got;
        if (ok && (!st_agent_avoidance(w, id, &got, true) || !(got.range >= 0) || !(got.horizon > 0)))
            FAIL("effective avoidance settings out of range");
        break;
    }
    case 0: st_agent_set_pos(w, id, finite_vec(in)); break;
    case 1: st_agent_set_vel(w, id, finite_vec(in)); break;
    case 2: st_agent_set_max_speed(w, id, fz_nonneg(in)); break;
    case 3: st_agent_set_max_force(w, id, fz_nonneg(in)); break;
    case 4: {
        double m = fz_nonneg(in);
        st_agent_set_mass(w, id, m > 0.0 ? m : 1.0);
        break;
    }
    case 5: st_agent_set_radius(w, id, fz_nonneg(in)); break;
    case 6: st_agent_set_tag(w, id, pick_tag(in, 0)); break;
    case 7: st_agent_set_combine(w, id, (st_combine)fz_pick(in, 2)); break;
    case 8: {
        double d = fz_finite(in), r = fz_nonneg(in), j = fz_nonneg(in);
        st_agent_set_wander(w, id, d, r, j);
        break;
    }
    default: {
        uint8_t rgb[3] = {fz_u8(in), fz_u8(in), fz_u8(in)};
        st_agent_set_color(w, id, rgb);
        break;
    }
    }
}

static st_query pick_query(fz_in *in, fz_world *z)
{
    st_query q = st_default_query(finite_vec(in), fz_nonneg(in));
    q.tag = pick_tag(in, 1);
    q.exclude = pick_id(in, z);
    double fov = fz_double(in);
    q.fov = isnan(fov) ? 0.0 : fov;
    st_vec2 h = finite_vec(in);
    q.heading = fz_pick(in, 2) ? st_v2_normalize(h) : h;
    return q;
}

static void op_query(fz_in *in, fz_world *z)
{
    st_query q = pick_query(in, z);
    st_agent_id out[64], out2[64];
    double dist[64], dist2[64];
    int cap = (int)fz_pick(in, 65);
    int brute_first = fz_pick(in, 2);
    st_world_set_brute_force(z->w, brute_first);
    int n = st_world_query(z->w, &q, out, dist, cap);
    st_world_set_brute_force(z->w, !brute_first);
    int n2 = st_world_query(z->w, &q, out2, dist2, cap);
    st_world_set_brute_force(z->w, false);
    if (n < 0 || n > z->live) FAIL("query matched %d of %d agents", n, z->live);
    if (n != n2) FAIL("grid and brute-force queries disagree: %d vs %d (radius %g)", n, n2, q.radius);
    int m = n < cap ? n : cap;
    for (int i = 0; i < m; i++) {
        if (!st_id_equal(out[i], out2[i])) FAIL("grid and brute-force queries disagree at %d", i);
        if (!st_agent_alive(z->w, out[i])) FAIL("query returned a dead agent");
        if (st_id_equal(out[i], q.exclude)) FAIL("query returned the excluded agent");
        if (q.tag != ST_TAG_ANY && st_agent_tag(z->w, out[i]) != q.tag) FAIL("query ignored the tag");
        /* dist2 of far agents may overflow (radius near 1e308): then inf */
        if (!(dist[i] >= 0.0) || (isfinite(dist[i]) && dist[i] > q.radius * (1.0 + 1e-12) + 1e-300))
            FAIL("query distance %g beyond radius %g", dist[i], q.radius);
        if (i > 0 && dist[i] < dist[i - 1]) FAIL("query not nearest first");
    }
    double d = -1.0;
    st_agent_id near = st_world_nearest(z->w, &q, &d);
    if (n == 0 && !st_id_is_null(near)) FAIL("nearest found an agent the query did not");
    if (n > 0) {
        if (st_id_is_null(near)) FAIL("nearest found nothing; the query found %d", n);
        if (!isfinite(d)) FAIL("nearest distance %g", d);
        if (m > 0 && isfinite(dist[0]) && d != dist[0]) FAIL("nearest at %.17g, query's first at %.17g", d, dist[0]);
    }
}

static double pick_dt(fz_in *in)
{
    double dt = fz_nonneg(in);
    return dt > 0.0 ? dt : 1.0 / 60.0;
}

static void op_step(fz_in *in, fz_world *z)
{
    st_world_step(z->w, fz_pick(in, 4) ? 1.0 / 60.0 : pick_dt(in));
    if (st_world_tick(z->w) != z->last_tick + 1) FAIL("tick did not advance");
    z->last_tick++;
    check_world(z, CHECK_AFTER_STEP);
}

static void one_op(fz_in *in, fz_world *z, int in_step);

/* A step opened by hand, with brain-like calls between begin and end. */
static void op_manual_step(fz_in *in, fz_world *z)
{
    st_world_step_begin(z->w, pick_dt(in));
    if (!st_world_in_step(z->w)) FAIL("not in step after begin");
    int n = (int)fz_pick(in, 12);
    int live_before = z->live;
    int spawned = 0;
    for (int i = 0; i < n && fz_more(in); i++) {
        int before = z->live;
        one_op(in, z, 1);
        if (z->live > before) spawned += z->live - before;
    }
    (void)live_before;
    (void)spawned;
    st_world_step_end(z->w);
    if (st_world_in_step(z->w)) FAIL("still in step after end");
    z->last_tick++;
    check_world(z, CHECK_AFTER_MANUAL_STEP);
}

static void op_geometry(fz_in *in, fz_world *z)
{
    switch (fz_pick(in, 8)) {
    case 0:
        if (st_world_obstacle_count(z->w) < 16) st_world_add_obstacle(z->w, finite_vec(in), fz_nonneg(in));
        break;
    case 4: {
        /* a polygon or polyline, of finite points or not */
        if (st_world_obstacle_count(z->w) >= 16) break;
        st_vec2 pts[8];
        int n = (int)fz_pick(in, 9);
        bool closed = fz_pick(in, 2);
        int valid = n >= (closed ? 3 : 2);
        for (int i = 0; i < n; i++) {
            pts[i] = fz_pick(in, 8) ? finite_vec(in) : any_vec(in);
            valid = valid && finite2(pts[i]);
        }
        int id = st_world_add_polygon(z->w, pts, n, closed);
        if (id != 0 && !valid) FAIL("st_world_add_polygon took invalid points");
        break;
    }
    case 5: {
        int n = st_world_obstacle_count(z->w);
        if (n == 0) break;
        st_obstacle_info o;
        st_world_obstacle_get(z->w, (int)fz_pick(in, (unsigned)n), &o);
        if (!st_world_remove_obstacle(z->w, o.id)) FAIL("could not remove obstacle %d", o.id);
        if (st_world_remove_obstacle(z->w, o.id)) FAIL("removed obstacle %d twice", o.id);
        break;
    }
    case 6: {
        int n = st_world_obstacle_count(z->w);
        if (n == 0) break;
        st_obstacle_info o;
        st_world_obstacle_get(z->w, (int)fz_pick(in, (unsigned)n), &o);
        st_world_set_obstacle_pos(z->w, o.id, finite_vec(in));
        break;
    }
    case 7: st_world_set_contacts(z->w, fz_pick(in, 2)); break;
    case 1:
        if (st_world_wall_count(z->w) < 16) st_world_add_wall(z->w, finite_vec(in), finite_vec(in));
        break;
    case 2: {
        if (z->npaths >= MAX_PATHS) break;
        st_vec2 pts[6];
        int n = (int)fz_pick(in, 7);
        int valid = n >= 1;
        for (int i = 0; i < n; i++) {
            pts[i] = fz_pick(in, 6) ? finite_vec(in) : any_vec(in);
            valid = valid && finite2(pts[i]);
        }
        double r = fz_double(in);
        valid = valid && isfinite(r) && r > 0.0;
        st_path *p = st_path_create(pts, n, fz_pick(in, 2), r);
        if ((p != NULL) != valid) FAIL("st_path_create: valid %d but got %p", valid, (void *)p);
        if (p) z->paths[z->npaths++] = p;
        break;
    }
    default: {
        /* offsets and distances between finite points */
        st_vec2 a = finite_vec(in), b = finite_vec(in);
        st_vec2 o = st_world_offset(z->w, a, b);
        double d = st_world_distance(z->w, a, b);
        if (isnan(o.x) || isnan(o.y) || isnan(d)) FAIL("offset of finite points is nan");
        break;
    }
    }
}

static void op_misc(fz_in *in, fz_world *z)
{
    switch (fz_pick(in, 6)) {
    case 0: {
        double c = fz_nonneg(in);
        if (c > 0.0 && !st_world_in_step(z->w)) st_world_set_cell_size(z->w, c);
        break;
    }
    case 1: st_world_set_trace(z->w, pick_id(in, z)); break;
    case 2: {
        int64_t lo = (int64_t)fz_u64(in), hi = (int64_t)fz_u64(in);
        if (lo > hi) { int64_t t = lo; lo = hi; hi = t; }
        int64_t r = st_world_random_int(z->w, lo, hi);
        if (r < lo || r > hi) FAIL("random_int out of range");
        double u = st_world_random(z->w);
        if (!(u >= 0.0 && u < 1.0)) FAIL("random out of [0, 1)");
        break;
    }
    case 3: (void)st_world_checksum(z->w); break;
    case 4: {
        /* the path index of an agent on a path */
        st_agent_id id = pick_id(in, z);
        int k = st_agent_path_index(z->w, id);
        if (k < 0) FAIL("negative path index");
        break;
    }
    default: {
        st_agent_id id = pick_id(in, z);
        st_agent_id nx = st_world_next(z->w, id, pick_tag(in, 1));
        if (!st_id_is_null(nx) && !st_agent_alive(z->w, nx)) FAIL("next yields a dead agent");
        break;
    }
    }
}

static void one_op(fz_in *in, fz_world *z, int in_step)
{
    unsigned op = fz_pick(in, in_step ? 11 : 13);
    switch (op) {
    case 0: case 1: op_spawn(in, z); break;
    case 2: op_remove(in, z); break;
    case 3: case 4: op_behave(in, z, 1); break;
    case 5: op_behave(in, z, 0); break;
    case 6: op_apply(in, z); break;
    case 7: op_list_rule(in, z); break;
    case 8: op_set_behaviors(in, z); break;
    case 9: op_setter(in, z); break;
    case 10: op_query(in, z); break;
    case 11: op_step(in, z); break;
    case 12: op_manual_step(in, z); break;
    }
    if (!in_step && (op == 11 || op == 12)) return;
    if (!in_step) check_world(z, CHECK_ANY_TIME);
    (void)op_geometry;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    st_world_def def = st_default_world_def();
    unsigned fields = fz_u8(&in);
    if (fields & 1) def.width = fz_double(&in);
    if (fields & 2) def.height = fz_double(&in);
    if (fields & 4) def.edges = (st_edges)fz_pick(&in, 4);
    if (fields & 8) def.seed = fz_u64(&in);
    if (fields & 16) def.dt = fz_double(&in);
    if (fields & 32) def.cell_size = fz_double(&in);
    if (fields & 64) def.capacity = (int)fz_pick(&in, 40) - 2;
    if (fields & 128) def.contacts = true;
    int valid = isfinite(def.width) && def.width > 0 && isfinite(def.height) && def.height > 0 && isfinite(def.dt) &&
                def.dt > 0 && isfinite(def.cell_size) && def.cell_size > 0 && def.capacity >= 0 &&
                (unsigned)def.edges <= 2;
    fz_world z;
    memset(&z, 0, sizeof z);
    z.w = st_world_create(&def);
    if ((z.w != NULL) != valid) FAIL("st_world_create: valid %d but got %p", valid, (void *)z.w);
    if (!z.w) return 0;

    for (int k = 0; k < MAX_OPS && fz_more(&in); k++) {
        if (fz_pick(&in, 8) == 0) op_geometry(&in, &z);
        else if (fz_pick(&in, 8) == 0) op_misc(&in, &z);
        else one_op(&in, &z, 0);
    }
    check_world(&z, CHECK_ANY_TIME);
    st_world_destroy(z.w);
    for (int i = 0; i < z.npaths; i++) st_path_destroy(z.paths[i]);
    return 0;
}
