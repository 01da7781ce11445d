/*
 * test_group.c — the group rules' neighbour sums and the flock's forces
 * (group.c): float lanes, four candidates a vector, batched in the
 * standing pass.
 *
 * They must find the neighbours a plain double loop over every agent
 * finds, with sums as close as float allows; keep that precision far from
 * the origin (positions are relative to their block of cells); push two
 * agents on one spot apart; give a standing flock the force it would get
 * alone (the batch and the memo of runs change nothing); agree with the
 * all-pairs mode and with narrow worlds; and stay the same on 1 and 2
 * threads when a brain removes agents in the middle of a step.
 */
#include <string.h>

#include "test_util.h"
#include "world_internal.h" /* white box: st__group_query, st__grid_ensure */
#include "behavior_internal.h"

static double cos_half_of(double fov) { return fov > 0.0 && fov < 2.0 * TU_PI ? cos(0.5 * fov) : -2.0; }

/// The reference: agent i's sums over every other agent, in double.
typedef struct ref_sums {
    st__group g;
    int borderline; // candidates within rounding of the disc's edge or the cone's
} ref_sums;

static ref_sums reference(st_world *w, int i, const st_flock_params *p, double sep_radius)
{
    ref_sums r;
    memset(&r, 0, sizeof r);
    const st_body *b = &w->bodies[i];
    const double cos_half = cos_half_of(p->fov), r2 = p->radius * p->radius, s2 = sep_radius * sep_radius;
    for (int j = 0; j < w->count; j++) {
        if (j == i || (p->tag != ST_TAG_ANY && w->tags[j] != p->tag)) continue;
        st_vec2 d = st_world_offset(w, b->pos, w->bodies[j].pos);
        double d2 = st_v2_len2(d), dist = sqrt(d2);
        bool cone_edge = false, in_cone = true;
        if (cos_half > -2.0 && d2 > 0.0) {
            double c = st_v2_dot(d, b->heading) / dist;
            in_cone = c >= cos_half;
            cone_edge = fabs(c - cos_half) < 1e-4;
        }
        if (fabs(dist - p->radius) < 1e-3 || cone_edge || fabs(dist - sep_radius) < 1e-3) r.borderline++;
        if (!(d2 <= r2) || !in_cone) continue;
        r.g.n++;
        r.g.heading_sum = st_v2_add(r.g.heading_sum, w->bodies[j].heading);
        r.g.offset_sum = st_v2_add(r.g.offset_sum, d);
        if (d2 < s2 && d2 > 0.0) r.g.sep = st_v2_sub(r.g.sep, st_v2_scale(d, 1.0 / d2));
    }
    return r;
}

static st_world *random_world(st_edges edges, uint64_t seed, int n, tu_rng *rng)
{
    st_world *w = tu_world(600, 400, edges, seed);
    for (int k = 0; k < n; k++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(tu_uniform(rng, 0, 600), tu_uniform(rng, 0, 400));
        d.vel = st_v2_from_angle(tu_uniform(rng, -TU_PI, TU_PI), tu_uniform(rng, 10, 150));
        d.tag = k % 3 == 0;
        st_world_spawn(w, &d);
    }
    return w;
}

static void sums_match_all_pairs(void)
{
    const double radii[3] = {30, 50, 80}, fovs[3] = {2.0 * TU_PI, 270.0 * TU_PI / 180.0, 100.0 * TU_PI / 180.0};
    int compared = 0, exact = 0;
    double worst = 0.0;
    for (int e = 0; e < 3; e++) {
        st_edges edges = e == 0 ? ST_EDGES_WRAP : e == 1 ? ST_EDGES_BOUNCE : ST_EDGES_NONE;
        tu_rng rng = {77 + (uint64_t)e};
        st_world *w = random_world(edges, 5, 400, &rng);
        st__grid_ensure(w);
        for (int t = 0; t < 120; t++) {
            int i = (int)(tu_rand(&rng) * w->count);
            st_flock_params p = st_default_flock_params();
            p.radius = radii[t % 3];
            p.fov = fovs[(t / 3) % 3];
            p.tag = t % 5 == 0 ? 1 : ST_TAG_ANY;
            double sep_radius = 0.5 * p.radius;
            st__group g;
            st__group_query(w, i, &p, cos_half_of(p.fov), sep_radius, &g, NULL);
            ref_sums r = reference(w, i, &p, sep_radius);
            compared++;
            if (!CHECK(abs(g.n - r.g.n) <= r.borderline, "edges %d, agent %d: %d neighbours, all-pairs %d", e, i, g.n,
                       r.g.n))
                break;
            if (r.borderline > 0 || g.n != r.g.n) continue;
            exact++;
            // Float: each offset good to about 1e-4, each heading to 1e-7.
            double tol = 1e-3 * (1 + r.g.n);
            double dh = st_v2_dist(g.heading_sum, r.g.heading_sum), doff = st_v2_dist(g.offset_sum, r.g.offset_sum);
            double dsep = st_v2_dist(g.sep, r.g.sep) / (1.0 + st_v2_len(r.g.sep));
            if (dh > worst) worst = dh;
            CHECK(dh <= tol && doff <= tol && dsep <= 1e-3,
                  "edges %d, agent %d: heading sum off by %g, offset sum by %g, separation by %g (relative)", e, i, dh,
                  doff, dsep);
        }
        st_world_destroy(w);
    }
    CHECK(exact > compared / 2, "only %d of %d queries away from every edge", exact, compared);
    printf("  %d queries against all pairs, %d with no candidate on an edge; worst heading sum off by %.2g\n",
           compared, exact, worst);
}

/// Two clusters alike in one big world, one near the origin and one near
/// the far corner: their flock forces agree to float's precision of
/// offsets, not to its precision of coordinates near 1e5 (1/128).
static void precision_does_not_depend_on_where(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 100000.0;
    st_world *w = st_world_create(&wd);
    tu_rng rng = {3};
    enum { K = 14 };
    st_agent_id near[K], far[K];
    const st_vec2 base[2] = {st_v2(1013.37, 987.21), st_v2(98713.37, 98687.21)};
    for (int k = 0; k < K; k++) {
        st_vec2 off = st_v2(tu_uniform(&rng, -30, 30), tu_uniform(&rng, -30, 30));
        st_vec2 vel = st_v2_from_angle(tu_uniform(&rng, -TU_PI, TU_PI), tu_uniform(&rng, 20, 120));
        near[k] = tu_spawn(w, st_v2_add(base[0], off), vel);
        far[k] = tu_spawn(w, st_v2_add(base[1], off), vel);
    }
    st_behavior fl = st_default_behavior(ST_FLOCK);
    double worst = 0.0;
    for (int k = 0; k < K; k++) {
        st_vec2 a = st_agent_force_of(w, near[k], &fl), b = st_agent_force_of(w, far[k], &fl);
        double d = st_v2_dist(a, b);
        if (d > worst) worst = d;
    }
    printf("  flock forces of the two clusters differ by %.2g at most (max_force 400)\n", worst);
    // Measured: 0.0088 with positions relative to their block, 0.44 with
    // float positions measured from the origin.
    CHECK(worst < 0.05, "the far cluster's forces differ by %g", worst);
    st_world_destroy(w);
}

static void coincident_agents_push_apart(void)
{
    st_world *w = tu_world(400, 400, ST_EDGES_WRAP, 1);
    st_agent_id a = tu_spawn(w, st_v2(200, 200), st_v2(0, 0));
    st_agent_id b = tu_spawn(w, st_v2(200, 200), st_v2(0, 0));
    tu_spawn(w, st_v2(230, 205), st_v2(0, 0));
    st_behavior sep = st_default_behavior(ST_SEPARATE), fl = st_default_behavior(ST_FLOCK);
    st_vec2 fa = st_agent_force_of(w, a, &sep), fb = st_agent_force_of(w, b, &sep);
    CHECK(st_v2_finite(fa) && st_v2_finite(fb) && st_v2_len(fa) > 1.0, "separate on one spot: (%g, %g), (%g, %g)",
          fa.x, fa.y, fb.x, fb.y);
    CHECK(st_v2_len(st_v2_add(fa, fb)) < 1e-6 * st_v2_len(fa), "not opposite: (%g, %g), (%g, %g)", fa.x, fa.y, fb.x,
          fb.y);
    st_vec2 ga = st_agent_force_of(w, a, &fl), gb = st_agent_force_of(w, b, &fl);
    CHECK(st_v2_finite(ga) && st_v2_finite(gb) && st_v2_dist(ga, gb) > 1.0, "flock on one spot: (%g, %g), (%g, %g)",
          ga.x, ga.y, gb.x, gb.y);
    st_world_destroy(w);
}

static st_world *flock_crowd(int n, int threads, st_agent_id *ids)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = sqrt(n * 500.0);
    wd.seed = 11;
    wd.threads = threads;
    st_world *w = st_world_create(&wd);
    st_behavior fl = st_default_behavior(ST_FLOCK);
    st_behavior mixed[2] = {st_default_behavior(ST_FLOCK), st_default_behavior(ST_WANDER)};
    mixed[1].weight = 0.2;
    for (int k = 0; k < n; k++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(st_world_random(w) * wd.width, st_world_random(w) * wd.height);
        d.vel = st_v2_from_angle(st_world_random(w) * 2.0 * TU_PI, 90.0);
        ids[k] = st_world_spawn(w, &d);
        // Most with the flock alone (batched), some with more (one at a time).
        if (k % 17 == 0) st_agent_set_behaviors(w, ids[k], mixed, 2);
        else st_agent_set_behaviors(w, ids[k], &fl, 1);
    }
    return w;
}

/// A standing flock's applied force is the one the flock gives that agent
/// alone (st_agent_force_of before the step): batches, lanes of other
/// agents and the memo of runs change no bit.
static void batch_equals_alone(void)
{
    enum { N = 6000 };
    static st_agent_id ids[N];
    static st_vec2 alone[N];
    st_world *w = flock_crowd(N, 2, ids);
    st_behavior fl = st_default_behavior(ST_FLOCK);
    for (int s = 0; s < 5; s++) st_world_step(w, 1.0 / 60.0);
    for (int k = 0; k < N; k++) alone[k] = st_agent_force_of(w, ids[k], &fl);
    st_world_step(w, 1.0 / 60.0);
    int bad = -1, checked = 0;
    for (int k = 0; k < N && bad < 0; k++) {
        if (k % 17 == 0) continue;
        st_vec2 f = st_agent_force(w, ids[k]);
        if (memcmp(&f, &alone[k], sizeof f)) bad = k;
        checked++;
    }
    CHECK(bad < 0, "agent %d: applied (%.17g, %.17g), alone (%.17g, %.17g)", bad, bad < 0 ? 0 : st_agent_force(w, ids[bad]).x,
          bad < 0 ? 0 : st_agent_force(w, ids[bad]).y, bad < 0 ? 0 : alone[bad].x, bad < 0 ? 0 : alone[bad].y);
    CHECK(checked > N / 2, "checked %d", checked);
    st_world_destroy(w);
}

/// The all-pairs mode and a world narrower than a disc (offsets folded
/// one by one) do the arithmetic their own way: to float's precision they
/// give the grid's forces.
static void all_pairs_and_narrow_worlds_agree(void)
{
    tu_rng rng = {21};
    st_world *w = random_world(ST_EDGES_WRAP, 2, 300, &rng);
    st_behavior fl = st_default_behavior(ST_FLOCK);
    double worst = 0.0;
    for (int k = 0; k < 300; k += 7) {
        st_agent_id id = {0, 0};
        int j = 0;
        for (st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
             a = st_world_next(w, a, ST_TAG_ANY), j++)
            if (j == k) id = a;
        st_world_set_brute_force(w, false);
        st_vec2 g = st_agent_force_of(w, id, &fl);
        st_world_set_brute_force(w, true);
        st_vec2 b = st_agent_force_of(w, id, &fl);
        st_world_set_brute_force(w, false);
        double d = st_v2_dist(g, b);
        if (d > worst) worst = d;
    }
    CHECK(worst < 0.05, "grid and all-pairs flock forces differ by %g", worst);
    st_world_destroy(w);

    // 120 x 90 with a radius of 50: every disc folds across the edges.
    st_world *n = tu_world(120, 90, ST_EDGES_WRAP, 4);
    for (int k = 0; k < 40; k++) tu_spawn(n, st_v2(tu_uniform(&rng, 0, 120), tu_uniform(&rng, 0, 90)),
                                           st_v2_from_angle(tu_uniform(&rng, -TU_PI, TU_PI), 60));
    st_behavior bh = st_default_behavior(ST_FLOCK);
    for (int s = 0; s < 200; s++) {
        st_world_step_begin(n, 1.0 / 60.0);
        for (st_agent_id a = st_world_next(n, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
             a = st_world_next(n, a, ST_TAG_ANY))
            st_agent_steer(n, a, &bh);
        st_world_step_end(n);
    }
    bool finite = true;
    for (st_agent_id a = st_world_next(n, st_null_agent(), ST_TAG_ANY); !st_id_is_null(a);
         a = st_world_next(n, a, ST_TAG_ANY))
        finite &= st_v2_finite(st_agent_pos(n, a)) && st_v2_finite(st_agent_vel(n, a));
    CHECK(finite, "a narrow world's flock left the numbers");
    CHECK(st_world_count(n, ST_TAG_ANY) == 40, "lost agents");
    st_world_destroy(n);
    printf("  grid and all-pairs forces differ by %.2g at most\n", worst);
}

/// A brain removes agents in the middle of a step: the flock must skip them
/// (they are still in the grid), on either thread count alike.
static uint64_t removals_run(int threads)
{
    enum { N = 40000 };
    static st_agent_id ids[N];
    st_world *w = flock_crowd(N, threads, ids);
    for (int s = 0; s < 12; s++) {
        st_world_step_begin(w, 1.0 / 60.0);
        for (int k = s; k < N; k += 97)
            if (st_agent_alive(w, ids[k])) st_world_remove(w, ids[k]);
        st_world_step_end(w);
    }
    uint64_t h = st_world_checksum(w);
    st_world_destroy(w);
    return h;
}

static void removals_mid_step_threads_agree(void)
{
    if (getenv("STEER_TEST_LIGHT")) return;
    uint64_t one = removals_run(1), two = removals_run(2);
    CHECK(one == two, "1 thread %016llx, 2 threads %016llx", (unsigned long long)one, (unsigned long long)two);
}

int main(void)
{
    RUN(sums_match_all_pairs);
    RUN(precision_does_not_depend_on_where);
    RUN(coincident_agents_push_apart);
    RUN(batch_equals_alone);
    RUN(all_pairs_and_narrow_worlds_agree);
    RUN(removals_mid_step_threads_agree);
    return tu_summary();
}
