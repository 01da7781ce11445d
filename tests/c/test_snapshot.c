/*
 * test_snapshot.c — st_world_snapshot / st_world_restore and the byte
 * format: a restored world shows the checksum of the capture and then the
 * same checksums step for step as the run it was taken from, on 1 and 2
 * threads, through re-sorts of a big world's storage and ORCA crowds, in
 * memory and through bytes; ids come back exactly as they were; bad bytes
 * are refused with a reason. Motion and nav: turn rates and facing records
 * come back (also when their array moved since the capture), standing
 * face / follow_path (predict) / follow_leader / queue lists round-trip
 * through bytes, a follow_flow crowd replays in memory and is refused by
 * the encoder, and a formation copied with the world replays with it.
 */
#include <string.h>

#include "test_util.h"
#include "snapshot_internal.h"
#include "motion.h"

#define STEPS 48

static bool light;

/// A crowd of n wanderers and flockers with shared standing lists, a few
/// seekers of other agents, a path follower group, obstacles and walls.
static st_world *mixed_world(int n, int threads, st_path *path)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = n > 20000 ? 4000.0 : 800.0;
    wd.threads = threads;
    wd.seed = 42;
    st_world *w = st_world_create(&wd);
    st_behavior wander = st_default_behavior(ST_WANDER);
    st_behavior flock[2] = {st_default_behavior(ST_FLOCK), st_default_behavior(ST_WANDER)};
    st_behavior follow = st_default_behavior(ST_FOLLOW_PATH);
    follow.path = path;
    st_agent_id prev = st_null_agent();
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * wd.width, st_world_random(w) * wd.height);
        a.vel = st_v2(st_world_random(w) * 40 - 20, st_world_random(w) * 40 - 20);
        a.tag = i % 7 == 0 ? 2 : 1;
        st_agent_id id = st_world_spawn(w, &a);
        if (i % 11 == 0 && !st_id_is_null(prev)) {
            st_behavior s = st_default_behavior(ST_PURSUE);
            s.target = st_target_agent(prev);
            st_agent_set_behaviors(w, id, &s, 1);
        } else if (i % 5 == 0) {
            st_agent_set_behaviors(w, id, &follow, 1);
        } else if (i % 2 == 0) {
            st_agent_set_behaviors(w, id, flock, 2);
        } else {
            st_agent_set_behaviors(w, id, &wander, 1);
        }
        prev = id;
    }
    st_world_add_obstacle(w, st_v2(200, 200), 30);
    st_vec2 tri[3] = {{400, 300}, {460, 300}, {430, 360}};
    st_world_add_polygon(w, tri, 3, true);
    st_world_add_wall(w, st_v2(50, 500), st_v2(300, 520));
    // Removals outside a step: dead entries and freed slots in the capture.
    st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY);
    for (int i = 0; !st_id_is_null(id); i++) {
        st_agent_id next = st_world_next(w, id, ST_TAG_ANY);
        if (i % 13 == 3) st_world_remove(w, id);
        id = next;
    }
    return w;
}

static void run(st_world *w, int steps, uint64_t *sums)
{
    for (int i = 0; i < steps; i++) {
        st_world_step(w, st_world_dt(w));
        sums[i] = st_world_checksum(w);
    }
}

/// Captures w at its current tick, runs `steps` more, restores (into w and,
/// through bytes, into a fresh world with other threads) and checks every
/// checksum against the first run.
static void check_replay(st_world *w, int steps, const char *what)
{
    uint64_t *first = malloc((size_t)steps * sizeof *first), *again = malloc((size_t)steps * sizeof *again);
    uint64_t at = st_world_checksum(w);
    st_snapshot *s = st_world_snapshot(w);
    CHECK(s != NULL, "%s: no snapshot", what);
    if (!s) return;
    CHECK(st_snapshot_checksum(s) == at && st_snapshot_tick(s) == st_world_tick(w), "%s: snapshot info", what);
    run(w, steps, first);

    CHECK(st_world_restore(w, s), "%s: restore failed", what);
    CHECK(st_world_checksum(w) == at, "%s: checksum after restore %016llx, at capture %016llx", what,
          (unsigned long long)st_world_checksum(w), (unsigned long long)at);
    run(w, steps, again);
    int diverged = -1;
    for (int i = 0; i < steps && diverged < 0; i++)
        if (first[i] != again[i]) diverged = i;
    CHECK(diverged < 0, "%s: restored run diverges at step %d", what, diverged);

    // Through bytes, into another world (other size, other thread count).
    size_t size = 0;
    void *bytes = st_snapshot_encode(s, &size);
    CHECK(bytes != NULL && size > ST_SNAPSHOT_HEADER, "%s: encode", what);
    char err[200] = "";
    st_snapshot *d = st_snapshot_decode(bytes, size, err, sizeof err);
    CHECK(d != NULL, "%s: decode of our own bytes failed: %s", what, err);
    if (d) {
        st_world_def wd = st_default_world_def();
        wd.threads = st_world_threads(w) == 1 ? 2 : 1;
        st_world *o = st_world_create(&wd);
        CHECK(st_world_restore(o, d), "%s: restore of decoded", what);
        CHECK(st_world_checksum(o) == at, "%s: decoded checksum", what);
        run(o, steps, again);
        diverged = -1;
        for (int i = 0; i < steps && diverged < 0; i++)
            if (first[i] != again[i]) diverged = i;
        CHECK(diverged < 0, "%s: decoded run (threads %d) diverges at step %d", what, wd.threads, diverged);
        // A second encode of the decoded snapshot gives the same bytes.
        size_t size2 = 0;
        void *bytes2 = st_snapshot_encode(d, &size2);
        CHECK(bytes2 && size2 == size && memcmp(bytes, bytes2, size) == 0, "%s: re-encode differs", what);
        free(bytes2);
        st_world_destroy(o);
        st_snapshot_destroy(d);
    }
    free(bytes);
    st_snapshot_destroy(s);
    free(first);
    free(again);
}

static void small_world_replays(void)
{
    st_vec2 pts[4] = {{100, 100}, {700, 100}, {700, 500}, {100, 500}};
    st_path *path = st_path_create(pts, 4, true, 20.0);
    for (int threads = 1; threads <= 2; threads++) {
        st_world *w = mixed_world(light ? 400 : 3000, threads, path);
        run(w, 10, (uint64_t[10]){0});
        check_replay(w, STEPS, threads == 1 ? "3000 agents, 1 thread" : "3000 agents, 2 threads");
        st_world_destroy(w);
    }
    st_path_destroy(path);
}

static void big_world_resorts(void)
{
    if (light) return;
    // Above ST_REORDER_MIN: storage is re-sorted at ticks 0, 32, 64...; the
    // capture at tick 20 has the spawn-order index and the run after it
    // crosses the re-sort at tick 32.
    st_vec2 pts[3] = {{100, 100}, {3000, 200}, {2000, 3000}};
    st_path *path = st_path_create(pts, 3, true, 30.0);
    st_world *w = mixed_world(72000, 2, path);
    uint64_t sums[20];
    run(w, 20, sums);
    // removals after the re-sort: compaction through the index
    st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY);
    for (int i = 0; i < 500 && !st_id_is_null(id); i++) {
        st_agent_id next = st_world_next(w, id, ST_TAG_ANY);
        if (i % 3 == 0) st_world_remove(w, id);
        id = next;
    }
    CHECK(w->reordered && w->order_cap > 0, "the big world did not re-sort (or has no spawn-order index)");
    check_replay(w, 20, "72000 agents through a re-sort");
    st_world_destroy(w);
    st_path_destroy(path);
}

static void orca_crowd_replays(void)
{
    int n = light ? 60 : 400;
    for (int threads = 1; threads <= 2; threads++) {
        st_world_def wd = st_default_world_def();
        wd.width = wd.height = 400;
        wd.edges = ST_EDGES_NONE;
        wd.threads = threads;
        wd.contacts = true;
        st_world *w = st_world_create(&wd);
        st_avoid_def d = st_default_avoid_def();
        d.mode = ST_AVOIDANCE_ORCA;
        for (int i = 0; i < n; i++) {
            double a = 6.283185307179586 * i / n;
            st_agent_def ad = st_default_agent_def();
            ad.pos = st_v2(200 + 150 * cos(a), 200 + 150 * sin(a));
            ad.max_speed = 40;
            ad.radius = 3;
            st_agent_id id = st_world_spawn(w, &ad);
            if (i % 9 == 0) d.priority = 2.0, d.layer = 3;
            else d.priority = 1.0, d.layer = 1;
            st_agent_set_avoidance(w, id, &d);
            st_behavior b = st_default_behavior(ST_ARRIVE);
            b.target = st_target_point(st_v2(200 - 150 * cos(a), 200 - 150 * sin(a)));
            st_agent_set_behaviors(w, id, &b, 1);
        }
        st_vec2 box[4] = {{190, 190}, {210, 190}, {210, 210}, {190, 210}};
        st_world_add_polygon(w, box, 4, true);
        st_vec2 line[3] = {{100, 300}, {150, 320}, {180, 300}};
        st_world_add_polygon(w, line, 3, false);
        int moving = st_world_add_obstacle(w, st_v2(120, 120), 10);
        uint64_t sums[30];
        run(w, 30, sums);
        st_world_set_obstacle_pos(w, moving, st_v2(125, 122)); // prev_center differs from center
        check_replay(w, light ? 20 : 60, threads == 1 ? "ORCA crowd, 1 thread" : "ORCA crowd, 2 threads");
        st_world_destroy(w);
    }
}

/// Ids of agents removed after the capture live again; ids of agents spawned
/// after it are dead, and stay dead when their slot is reused later.
static void handles_come_back(void)
{
    st_world *w = mixed_world(200, 1, NULL);
    st_agent_id kept = st_world_next(w, st_null_agent(), ST_TAG_ANY);
    st_agent_id gone = st_world_next(w, kept, ST_TAG_ANY);
    st_vec2 gone_pos = st_agent_pos(w, gone);
    int count = st_world_count(w, ST_TAG_ANY);
    st_snapshot *s = st_world_snapshot(w);
    st_world_remove(w, gone);
    st_agent_def ad = st_default_agent_def();
    st_agent_id born = st_world_spawn(w, &ad); // takes gone's freed slot
    st_agent_id born2 = st_world_spawn(w, &ad);
    CHECK(born.index == gone.index, "the new agent did not reuse the freed slot (test premise)");
    CHECK(!st_agent_alive(w, gone), "removed agent alive");
    CHECK(st_world_restore(w, s), "restore");
    CHECK(st_agent_alive(w, gone) && st_agent_alive(w, kept), "an id of the capture is dead after restore");
    CHECK(st_v2_dist(st_agent_pos(w, gone), gone_pos) == 0.0, "the restored id points elsewhere");
    CHECK(!st_agent_alive(w, born) && !st_agent_alive(w, born2), "an id spawned after the capture is alive");
    CHECK(st_world_count(w, ST_TAG_ANY) == count, "count %d, was %d", st_world_count(w, ST_TAG_ANY), count);
    // spawning again gives fresh generations: the post-capture ids stay dead
    st_agent_id again = st_world_spawn(w, &ad);
    CHECK(!st_id_equal(again, born) && !st_id_equal(again, born2), "a post-capture id was handed out again");
    CHECK(!st_agent_alive(w, born), "a post-capture id came alive");
    st_snapshot_destroy(s);
    st_world_destroy(w);
}

/// How many agents the walk by st_world_next passes, stopping past limit
/// (a broken handle table walks in a cycle).
static int walk_count(const st_world *w, int limit)
{
    int seen = 0;
    for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && seen <= limit;
         id = st_world_next(w, id, ST_TAG_ANY))
        seen++;
    return seen;
}

static bool any_alive(const st_world *w, const st_agent_id *ids, int n)
{
    for (int i = 0; i < n; i++)
        if (st_agent_alive(w, ids[i])) return true;
    return false;
}

static bool any_equal(st_agent_id id, const st_agent_id *ids, int n)
{
    for (int i = 0; i < n; i++)
        if (st_id_equal(id, ids[i])) return true;
    return false;
}

/// Ids of a timeline a restore abandoned stay dead for good: after the
/// restored agents holding their slots are removed, when those slots are
/// handed out again, across a second restore, and through bytes. (They
/// used to match the slot's generation after such a removal: removing one
/// then broke the free list and the walk ran in a cycle.) An id naming a
/// free slot's next generation, as a C caller could make one, is refused.
static void abandoned_ids_stay_dead(void)
{
    for (int via_bytes = 0; via_bytes < 2; via_bytes++) {
        const char *how = via_bytes ? "through bytes" : "in memory";
        st_world *w = mixed_world(200, 1, NULL);
        st_agent_id a = st_world_next(w, st_null_agent(), ST_TAG_ANY);
        st_agent_id b = st_world_next(w, a, ST_TAG_ANY);
        st_snapshot *s = st_world_snapshot(w);
        if (via_bytes) {
            size_t size = 0;
            void *bytes = st_snapshot_encode(s, &size);
            st_snapshot_destroy(s);
            s = bytes ? st_snapshot_decode(bytes, size, NULL, 0) : NULL;
            free(bytes);
        }
        if (!CHECK(s != NULL, "%s: snapshot", how)) return;
        const int live = st_world_count(w, ST_TAG_ANY);
        // the abandoned timeline: a's slot handed out twice, b's once
        st_agent_def ad = st_default_agent_def();
        st_agent_id gone[6];
        int n_gone = 0;
        st_world_remove(w, a);
        gone[n_gone++] = st_world_spawn(w, &ad);
        st_world_remove(w, gone[0]);
        gone[n_gone++] = st_world_spawn(w, &ad);
        st_world_remove(w, b);
        gone[n_gone++] = st_world_spawn(w, &ad);
        CHECK(gone[0].index == a.index && gone[1].index == a.index && gone[2].index == b.index,
              "%s: the new agents did not take the freed slots (test premise)", how);
        uint64_t sums[3];
        run(w, 3, sums);
        CHECK(st_world_restore(w, s), "%s: restore", how);
        CHECK(st_agent_alive(w, a) && st_agent_alive(w, b), "%s: a captured id is dead", how);
        CHECK(!any_alive(w, gone, n_gone), "%s: an abandoned id is alive", how);
        for (int i = 0; i < n_gone; i++)
            CHECK(st_id_is_null(st_world_next(w, gone[i], ST_TAG_ANY)), "%s: a walk goes on from abandoned id {%u,%u}",
                  how, gone[i].index, gone[i].generation);
        // removing the restored agents during a walk: the walk carries on
        int seen = 0;
        for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && seen <= live;
             id = st_world_next(w, id, ST_TAG_ANY)) {
            if (st_id_equal(id, a) || st_id_equal(id, b))
                CHECK(st_world_remove(w, id), "%s: removing a restored agent failed", how);
            seen++;
        }
        CHECK(seen == live, "%s: the walk removing a and b passed %d of %d agents", how, seen, live);
        CHECK(!any_alive(w, gone, n_gone), "%s: an abandoned id came alive when its slot was freed", how);
        for (int i = 0; i < n_gone; i++)
            CHECK(!st_world_remove(w, gone[i]), "%s: removing abandoned id {%u,%u} succeeded", how, gone[i].index,
                  gone[i].generation);
        // the freed slots handed out again: new ids, never the abandoned ones
        st_agent_id again[2] = {st_world_spawn(w, &ad), st_world_spawn(w, &ad)};
        for (int k = 0; k < 2; k++) {
            CHECK(again[k].index == a.index || again[k].index == b.index, "%s: the spawn took another slot", how);
            CHECK(!any_equal(again[k], gone, n_gone), "%s: abandoned id {%u,%u} handed out again", how,
                  again[k].index, again[k].generation);
        }
        CHECK(!any_alive(w, gone, n_gone), "%s: an abandoned id names a new agent", how);
        CHECK(walk_count(w, live + 10) == st_world_count(w, ST_TAG_ANY), "%s: the walk passes %d agents, %d alive",
              how, walk_count(w, live + 10), st_world_count(w, ST_TAG_ANY));
        // an id made up for a free slot's next generation
        st_world_remove(w, again[0]);
        st_agent_id made = {again[0].index, w->slots[again[0].index].generation};
        CHECK(!st_agent_alive(w, made) && !st_world_remove(w, made), "%s: a free slot's next id passes as alive",
              how);
        CHECK(walk_count(w, live + 10) == st_world_count(w, ST_TAG_ANY), "%s: the walk after a made-up id", how);
        gone[n_gone++] = again[0];
        gone[n_gone++] = again[1];
        // a second restore: both abandoned timelines stay dead
        CHECK(st_world_restore(w, s), "%s: second restore", how);
        CHECK(st_world_remove(w, a) && st_world_remove(w, b), "%s: removing after the second restore", how);
        st_agent_id third[2] = {st_world_spawn(w, &ad), st_world_spawn(w, &ad)};
        for (int k = 0; k < 2; k++)
            CHECK(!any_equal(third[k], gone, n_gone), "%s: second restore: abandoned id {%u,%u} handed out again",
                  how, third[k].index, third[k].generation);
        CHECK(!any_alive(w, gone, n_gone), "%s: second restore: an abandoned id is alive", how);
        CHECK(walk_count(w, live + 10) == st_world_count(w, ST_TAG_ANY), "%s: second restore: the walk", how);
        st_snapshot_destroy(s);
        st_world_destroy(w);
    }
}

/// Restore leaves nothing shared with the snapshot: changing the world
/// after a restore leaves the snapshot intact for the next restore.
static void restore_twice(void)
{
    st_world *w = mixed_world(500, 1, NULL);
    uint64_t at = st_world_checksum(w);
    st_snapshot *s = st_world_snapshot(w);
    for (int k = 0; k < 3; k++) {
        uint64_t sums[5];
        run(w, 5, sums);
        st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY);
        st_behavior b = st_default_behavior(ST_SEEK);
        st_agent_set_behaviors(w, id, &b, 1);
        st_world_add_obstacle(w, st_v2(10, 10), 5);
        CHECK(st_world_restore(w, s), "restore %d", k);
        CHECK(st_world_checksum(w) == at, "restore %d: checksum", k);
        CHECK(st_world_obstacle_count(w) == 2, "restore %d: %d obstacles", k, st_world_obstacle_count(w));
    }
    st_snapshot_destroy(s);
    st_world_destroy(w);
}

static void bad_bytes_are_refused(void)
{
    st_world *w = mixed_world(300, 1, NULL);
    st_snapshot *s = st_world_snapshot(w);
    CHECK(st_snapshot_set_user(s, "hello", 5), "set_user");
    size_t size = 0;
    unsigned char *b = st_snapshot_encode(s, &size);
    char err[200];
    st_snapshot *d = st_snapshot_decode(b, size, err, sizeof err);
    size_t ulen = 0;
    const void *u = d ? st_snapshot_user(d, &ulen) : NULL;
    CHECK(d && ulen == 5 && memcmp(u, "hello", 5) == 0, "user bytes did not round-trip");
    st_snapshot_destroy(d);

    // truncated, at every length a sample of cuts
    for (size_t cut = 0; cut < size; cut += size / 97 + 1) {
        err[0] = 0;
        d = st_snapshot_decode(b, cut, err, sizeof err);
        if (!CHECK(d == NULL && err[0], "a snapshot cut to %zu of %zu bytes was accepted", cut, size)) break;
    }
    d = st_snapshot_decode(b, size - 1, err, sizeof err);
    CHECK(d == NULL && strstr(err, "truncated"), "cut by one byte: '%s'", err);
    // corrupt: one flipped byte anywhere in the payload
    int accepted = 0;
    for (size_t at = ST_SNAPSHOT_HEADER; at < size; at += size / 61 + 1) {
        b[at] ^= 0x5A;
        d = st_snapshot_decode(b, size, err, sizeof err);
        if (d) accepted++;
        else CHECK(strstr(err, "corrupt") != NULL, "flip at %zu: '%s'", at, err);
        st_snapshot_destroy(d);
        b[at] ^= 0x5A;
    }
    CHECK(accepted == 0, "%d corrupted snapshots accepted", accepted);
    // foreign
    unsigned char png[64] = {0x89, 'P', 'N', 'G'};
    d = st_snapshot_decode(png, sizeof png, err, sizeof err);
    CHECK(d == NULL && strstr(err, "not a steer snapshot"), "foreign: '%s'", err);
    // newer format
    uint32_t v = ST_SNAPSHOT_FORMAT + 1;
    memcpy(b + 8, &v, 4);
    d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d == NULL && strstr(err, "newer"), "newer: '%s'", err);
    free(b);
    st_snapshot_destroy(s);
    st_world_destroy(w);
}

static void empty_world(void)
{
    st_world_def wd = st_default_world_def();
    st_world *w = st_world_create(&wd);
    st_snapshot *s = st_world_snapshot(w);
    size_t size;
    void *b = st_snapshot_encode(s, &size);
    char err[200] = "";
    st_snapshot *d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d != NULL, "empty world: %s", err);
    st_world *o = mixed_world(100, 1, NULL);
    CHECK(d && st_world_restore(o, d) && st_world_count(o, ST_TAG_ANY) == 0, "restoring an empty world");
    st_world_step(o, st_world_dt(o));
    CHECK(st_world_checksum(o) == (st_world_step(w, st_world_dt(w)), st_world_checksum(w)), "empty worlds step apart");
    free(b);
    st_snapshot_destroy(s);
    st_snapshot_destroy(d);
    st_world_destroy(o);
    st_world_destroy(w);
}

/* ---- motion and nav (orientation records, new list fields, flow fields) ---- */

/// Turn-limited wanderers, agents facing others (standing face /
/// look_where_going), predictive path followers, a follow_leader line and a
/// queue: every per-agent thing motion.c and path_follow.c keep.
static st_world *motion_world(int n, int threads, st_path *path)
{
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = 600.0;
    wd.threads = threads;
    wd.seed = 7;
    st_world *w = st_world_create(&wd);
    st_agent_id leader = st_null_agent();
    for (int i = 0; i < n; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(st_world_random(w) * wd.width, st_world_random(w) * wd.height);
        a.vel = st_v2(st_world_random(w) * 40 - 20, st_world_random(w) * 40 - 20);
        st_agent_id id = st_world_spawn(w, &a);
        st_behavior l[2] = {st_default_behavior(ST_WANDER), st_default_behavior(ST_WANDER)};
        int k = 1;
        switch (i % 6) {
        case 0: st_agent_set_turn_rate(w, id, 1.5 + (i % 5)); break; // turn-limited wanderer
        case 1:
            l[0] = st_default_behavior(ST_FACE);
            l[0].target = i > 6 ? st_target_agent(leader) : st_target_point(st_v2(300, 300));
            k = 2;
            st_agent_set_turn_rate(w, id, 2.0);
            break;
        case 2: l[1] = st_default_behavior(ST_LOOK_WHERE_GOING), k = 2; break;
        case 3:
            l[0] = st_default_behavior(ST_FOLLOW_PATH);
            l[0].path = path;
            l[0].path_mode = ST_PATH_PREDICT;
            l[0].predict = 0.4;
            l[0].ahead = 25.0;
            break;
        case 4:
            if (st_id_is_null(leader)) break;
            l[0] = st_default_behavior(ST_FOLLOW_LEADER);
            l[0].target = st_target_agent(leader);
            l[0].ahead = 20.0 + (i % 3);
            l[0].zone = 35.0;
            l[1] = st_default_behavior(ST_QUEUE);
            l[1].ahead = 8.0;
            k = 2;
            break;
        default: leader = id; break;
        }
        st_agent_set_behaviors(w, id, l, k);
    }
    return w;
}

static void motion_replays(void)
{
    st_vec2 pts[4] = {{100, 100}, {500, 100}, {500, 500}, {100, 500}};
    st_path *path = st_path_create(pts, 4, true, 20.0);
    for (int threads = 1; threads <= 2; threads++) {
        st_world *w = motion_world(light ? 300 : 1500, threads, path);
        run(w, 10, (uint64_t[10]){0});
        check_replay(w, STEPS, threads == 1 ? "motion, 1 thread" : "motion, 2 threads");
        st_world_destroy(w);
    }
    st_path_destroy(path);
}

/// Turn rates and facing records made or changed after a capture are undone
/// by the restore, also when the record array moved since (it grows by
/// slot): the world never keeps the snapshot's array or its old one.
static void orientation_records_come_back(void)
{
    st_world *w = motion_world(40, 1, NULL); // records in slots < 64 only
    st_agent_id first = st_world_next(w, st_null_agent(), ST_TAG_ANY); // i = 0: turn rate 1.5
    st_agent_id plain = st_world_next(w, st_world_next(w, first, ST_TAG_ANY), ST_TAG_ANY); // i = 2: none
    CHECK(st_agent_turn_rate(w, first) == 1.5 && st_agent_turn_rate(w, plain) == INFINITY, "setup turn rates");
    st_snapshot *s = st_world_snapshot(w);
    uint64_t sums[STEPS], again[STEPS];
    run(w, STEPS, sums);
    st_world_restore(w, s);
    // Changes after the capture: a rate changed, a record made, and agents
    // spawned in slots far past the array's size, so it is reallocated.
    st_agent_set_turn_rate(w, first, 0.25);
    st_agent_set_turn_rate(w, plain, 0.5);
    for (int i = 0; i < 300; i++) {
        st_agent_def a = st_default_agent_def();
        st_agent_set_turn_rate(w, st_world_spawn(w, &a), 3.0);
    }
    st_world_step(w, st_world_dt(w));
    CHECK(st_world_restore(w, s), "restore");
    CHECK(st_agent_turn_rate(w, first) == 1.5, "a changed turn rate survived the restore: %g",
          st_agent_turn_rate(w, first));
    CHECK(st_agent_turn_rate(w, plain) == INFINITY, "a record made after the capture survived: %g",
          st_agent_turn_rate(w, plain));
    run(w, STEPS, again);
    CHECK(memcmp(sums, again, sizeof sums) == 0, "replay after the orientation changes diverged");
    // Destroying the snapshot leaves the world's records alone (ASan).
    st_snapshot_destroy(s);
    st_world_step(w, st_world_dt(w));
    CHECK(st_agent_turn_rate(w, first) == 1.5, "records after the snapshot is gone");
    st_world_destroy(w);
}

/// The decoder checks orientation records like everything else.
static void bad_orientation_bytes_are_refused(void)
{
    st_world *w = motion_world(60, 1, NULL);
    st_world_step(w, st_world_dt(w));
    st_snapshot *s = st_world_snapshot(w);
    char err[200] = "";
    size_t size = 0;
    void *b = st_snapshot_encode(s, &size);
    st_snapshot *d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d != NULL, "decode: %s", err);
    st_snapshot_destroy(d);
    free(b);
    st_agent_id first = st_world_next(w, st_null_agent(), ST_TAG_ANY);
    st_agent_id facer = st_world_next(w, first, ST_TAG_ANY);
    int fi = st__dense(&s->w, first), fa = st__dense(&s->w, facer);

    s->w.orients[s->w.agents[fi].slot].turn_rate = -1.0;
    b = st_snapshot_encode(s, &size);
    d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d == NULL && strstr(err, "turn rate"), "a negative turn rate: '%s'", err);
    st_snapshot_destroy(d);
    free(b);
    s->w.orients[s->w.agents[fi].slot].turn_rate = 1.5;

    s->w.orients[s->w.agents[fi].slot].face = st_v2(3.0, 0.0);
    b = st_snapshot_encode(s, &size);
    d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d == NULL && strstr(err, "facing request"), "a facing request of length 3: '%s'", err);
    st_snapshot_destroy(d);
    free(b);
    s->w.orients[s->w.agents[fi].slot].face = st_v2(0.0, 0.0);

    // an agent with a standing face but no record: refused, not a world
    // whose threaded pass would have to make one
    s->w.bodies[fa].orient = 0;
    b = st_snapshot_encode(s, &size);
    d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d == NULL && strstr(err, "orientation record"), "a facer without a record: '%s'", err);
    st_snapshot_destroy(d);
    free(b);
    s->w.bodies[fa].orient = 2;
    b = st_snapshot_encode(s, &size);
    d = st_snapshot_decode(b, size, err, sizeof err);
    CHECK(d == NULL && strstr(err, "flags"), "an orient flag of 2: '%s'", err);
    st_snapshot_destroy(d);
    free(b);
    st_snapshot_destroy(s);
    st_world_destroy(w);
}

/// A follow_flow crowd around an obstacle: replays in memory on 1 and 2
/// threads (the field is the caller's, kept alive here as the bindings do),
/// and cannot be encoded, with the first follower named.
static void flow_crowd(void)
{
    for (int threads = 1; threads <= 2; threads++) {
        st_world_def wd = st_default_world_def();
        wd.width = 400.0;
        wd.height = 300.0;
        wd.threads = threads;
        st_world *w = st_world_create(&wd);
        st_world_add_obstacle(w, st_v2(200, 150), 30);
        st_navgrid_def nd = st_default_navgrid_def();
        st_navgrid *g = st_navgrid_create(w, &nd);
        st_flowfield *f = st_flowfield_create(g, st_v2(370, 270), NULL);
        CHECK(g && f, "navgrid / flow field");
        st_behavior l[2] = {st_default_behavior(ST_FOLLOW_FLOW), st_default_behavior(ST_SEPARATE)};
        l[0].field = f;
        uint64_t first_follower = 0;
        for (int i = 0; i < (light ? 150 : 600); i++) {
            st_agent_def a = st_default_agent_def();
            a.pos = st_v2(10 + (i % 30) * 6, 10 + (i / 30) * 6);
            a.max_speed = 60;
            st_agent_id id = st_world_spawn(w, &a);
            if (i % 4 == 0) st_agent_set_turn_rate(w, id, 4.0);
            if (i >= 3) {
                st_agent_set_behaviors(w, id, l, 2);
                if (!first_follower) first_follower = st_agent_serial(w, id);
            }
        }
        run(w, 5, (uint64_t[5]){0});
        st_snapshot *s = st_world_snapshot(w);
        uint64_t first[STEPS], again[STEPS];
        run(w, STEPS, first);
        // the lists go (the field stays: the snapshot refers to it)
        for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
             id = st_world_next(w, id, ST_TAG_ANY))
            st_agent_set_behaviors(w, id, NULL, 0);
        CHECK(st_world_restore(w, s), "restore");
        run(w, STEPS, again);
        CHECK(memcmp(first, again, sizeof first) == 0, "follow_flow crowd (%d threads) diverged after restore",
              threads);
        uint64_t serial = 0;
        size_t size = 0;
        CHECK(!st_snapshot_encodable(s, &serial) && serial == first_follower,
              "encodable: the first follow_flow agent is %llu, got %llu", (unsigned long long)first_follower,
              (unsigned long long)serial);
        CHECK(st_snapshot_encode(s, &size) == NULL, "a follow_flow field was encoded");
        st_snapshot_destroy(s);
        st_world_destroy(w);
        st_flowfield_destroy(f);
        st_navgrid_destroy(g);
    }
}

/// st_formation_copy taken with a snapshot puts the formation back with the
/// world: members, slots and the last assignment's heading.
static void formation_comes_back(void)
{
    st_world_def wd = st_default_world_def();
    st_world *w = st_world_create(&wd);
    st_agent_def ad = st_default_agent_def();
    ad.pos = st_v2(400, 300);
    st_agent_id lead = st_world_spawn(w, &ad);
    st_agent_set_turn_rate(w, lead, 1.0);
    st_behavior wander = st_default_behavior(ST_WANDER);
    st_agent_set_behaviors(w, lead, &wander, 1);
    st_formation_def fd = st_default_formation_def();
    fd.leader = lead;
    fd.reassign_angle = 0.3; // reassigns often while the leader wanders
    st_formation *f = st_formation_create(&fd);
    for (int i = 0; i < 12; i++) {
        ad.pos = st_v2(300 + i * 13 % 90, 250 + i * 29 % 100);
        st_agent_id id = st_world_spawn(w, &ad);
        st_agent_set_turn_rate(w, id, 5.0);
        st_formation_add(w, f, id);
    }
    st_formation_def dd = st_default_formation_def();
    st_formation *saved = st_formation_create(&dd);
    for (int i = 0; i < 20; i++) {
        st_formation_update(w, f);
        st_world_step(w, st_world_dt(w));
    }
    st_snapshot *s = st_world_snapshot(w);
    CHECK(st_formation_copy(saved, f), "copy");
    uint64_t first[STEPS * 2], again[STEPS * 2];
    for (int i = 0; i < STEPS * 2; i++) {
        st_formation_update(w, f);
        st_world_step(w, st_world_dt(w));
        first[i] = st_world_checksum(w);
    }
    ad.pos = st_v2(10, 10);
    st_formation_add(w, f, st_world_spawn(w, &ad));
    st_world_restore(w, s);
    CHECK(st_formation_copy(f, saved), "copy back");
    CHECK(st_formation_count(f) == 12, "members after the copy back: %d", st_formation_count(f));
    for (int i = 0; i < STEPS * 2; i++) {
        st_formation_update(w, f);
        st_world_step(w, st_world_dt(w));
        again[i] = st_world_checksum(w);
    }
    CHECK(memcmp(first, again, sizeof first) == 0, "formation replay diverged");
    st_snapshot_destroy(s);
    st_formation_destroy(saved);
    st_formation_destroy(f);
    st_world_destroy(w);
}

int main(void)
{
    light = getenv("STEER_TEST_LIGHT") != NULL;
    if (light) printf("STEER_TEST_LIGHT: the 72000-agent re-sorting world runs in the other builds\n");
    RUN(small_world_replays);
    RUN(orca_crowd_replays);
    RUN(handles_come_back);
    RUN(abandoned_ids_stay_dead);
    RUN(restore_twice);
    RUN(bad_bytes_are_refused);
    RUN(empty_world);
    RUN(motion_replays);
    RUN(orientation_records_come_back);
    RUN(bad_orientation_bytes_are_refused);
    RUN(flow_crowd);
    RUN(formation_comes_back);
    RUN(big_world_resorts);
    return tu_summary();
}
