/*
 * snapshot_io.c — snapshots as bytes (st_snapshot_encode / _decode).
 *
 * Layout: a 64-byte header, then the payload.
 *
 *   header   0  magic "STEERSNP"
 *            8  u32 format version (ST_SNAPSHOT_FORMAT)
 *           12  u32 header bytes (64)
 *           16  u32 flags (bit 0: caller's bytes present)
 *           20  u32 engine version (ST_VERSION_NUM)
 *           24  u64 payload bytes
 *           32  u64 payload checksum (FNV-1a 64)
 *           40  u64 world checksum at capture
 *           48  u64 tick
 *           56  u32 live agents, u32 zero
 *   payload    layout (endianness mark, sizeof of the records written
 *              whole), world scalars, paths, standing lists, bodies,
 *              list index per entry, agents, path index per entry, tags,
 *              slots, spawn-order index, avoidance settings, orientation
 *              records, obstacles, walls, the caller's bytes.
 *
 * Format 2 (steer 1.x with motion and nav): standing-list entries carry
 * path_mode, predict, ahead and zone; orientation records (turn rate and
 * facing request) follow the avoidance settings. A follow_flow entry is
 * written without its field: st_snapshot_encode refuses a snapshot that
 * has one (st_snapshot_encodable), so a file's follow_flow entries never
 * name one and decode with none.
 *
 * Format 3 (steer 1.2): each path carries the navgrid links its segments
 * take (a flag, then an i32 link id a segment), so an agent restored from
 * bytes still calls traverse_link where the path crosses a link.
 *
 * Numbers are in the machine's order; the layout record refuses a file
 * from a machine or build whose order or record sizes differ. Bodies,
 * agents and slots are written as whole records (fast: a memcpy for 100k
 * agents, and a field added to them travels without a line here; the size
 * check then refuses older files). Everything else is written field by
 * field, each section by a writer and a reader that sit side by side and
 * mirror each other (the `sections` table lists them in payload order):
 * adding a scalar to st_world, a field to st_behavior, st_avoid_def,
 * st_orient or st_obstacle, means adding it to that section's pair
 * (write_scalars / read_scalars, write_behavior / read_behavior, ...) and
 * bumping ST_SNAPSHOT_FORMAT.
 *
 * Decoding trusts nothing: every count is checked against the bytes left,
 * every index against its array, every number against the range the API
 * would accept, and the handle table and spawn order against the
 * invariants the world relies on, so a corrupt file is an error and never
 * a world that crashes a later step.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "mover.h"
#include "snapshot_bytes.h"

static const char magic[8] = {'S', 'T', 'E', 'E', 'R', 'S', 'N', 'P'};
#define ENDIAN_MARK 0x01020304u
#define MAX_LIST 65536 // behaviours in one standing list

uint64_t st_snapshot_hash(const void *data, size_t n)
{
    // FNV-1a's step over 8-byte words (then the tail bytes): eight times
    // fewer multiplies than byte-wise FNV over the tens of megabytes of a
    // big world, and any changed byte still changes the result.
    const unsigned char *p = data;
    uint64_t h = 0xCBF29CE484222325ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001B3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* ------------------------------------------------------------------------ */
/* the payload, section by section: each writer beside its reader           */
/* ------------------------------------------------------------------------ */

/* ---- layout: byte order and the sizes of the records written whole ---- */

static void write_layout(writer *o, const st_snapshot *s)
{
    (void)s;
    w_u32(o, ENDIAN_MARK);
    w_u32(o, (uint32_t)sizeof(st_body));
    w_u32(o, (uint32_t)sizeof(st_agent));
    w_u32(o, (uint32_t)sizeof(st_slot));
}

static void read_layout(reader *r, st_snapshot *s)
{
    (void)s;
    r_check(r, r_u32(r) == ENDIAN_MARK, "made on a machine of another byte order");
    uint32_t sb = r_u32(r), sa = r_u32(r), ss = r_u32(r);
    if (!r->bad && (sb != sizeof(st_body) || sa != sizeof(st_agent) || ss != sizeof(st_slot)))
        r->bad = "made by a build whose agent records differ from this one's";
}

/* ---- world scalars ---- */

enum {
    FLAG_REORDERED = 1u << 0,
    FLAG_RESORT = 1u << 1,
    FLAG_BRUTE_FORCE = 1u << 2,
    FLAG_AVOID_ACTIVE = 1u << 3,
    FLAG_CONTACTS = 1u << 4,
    FLAG_ORDER = 1u << 5, // a spawn-order index follows the dense arrays
    FLAG_ALL = (1u << 6) - 1,
};

static void write_scalars(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    w_f64(o, c->width);
    w_f64(o, c->height);
    w_u32(o, (uint32_t)c->edges);
    w_u64(o, c->seed);
    w_f64(o, c->dt);
    w_f64(o, c->cell_size);
    w_u64(o, c->rng);
    w_u64(o, c->tick);
    w_f64(o, c->time);
    w_u64(o, c->next_serial);
    w_i32(o, c->count);
    w_i32(o, c->dead);
    w_u32(o, c->slot_count);
    w_u32(o, c->free_slot);
    w_u32(o, (c->reordered ? FLAG_REORDERED : 0u) | (c->resort ? FLAG_RESORT : 0u) |
                 (c->brute_force ? FLAG_BRUTE_FORCE : 0u) | (c->avoid_active ? FLAG_AVOID_ACTIVE : 0u) |
                 (c->contacts ? FLAG_CONTACTS : 0u) | (c->order_cap > 0 ? FLAG_ORDER : 0u));
    w_i32(o, c->next_obstacle_id);
}

static void read_scalars(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    c->width = r_f64(r);
    c->height = r_f64(r);
    uint32_t edges = r_u32(r);
    c->seed = r_u64(r);
    c->dt = r_f64(r);
    c->cell_size = r_f64(r);
    c->rng = r_u64(r);
    c->tick = r_u64(r);
    c->time = r_f64(r);
    c->next_serial = r_u64(r);
    int32_t n = c->count = r_i32(r), dead = c->dead = r_i32(r);
    uint32_t slot_count = c->slot_count = r_u32(r);
    c->free_slot = r_u32(r);
    uint32_t flags = r_u32(r);
    c->next_obstacle_id = r_i32(r);
    r_check(r, pos_finite(c->width) && pos_finite(c->height) && pos_finite(c->dt) && pos_finite(c->cell_size),
            "world size, dt or cell size out of range");
    r_check(r, edges <= ST_EDGES_NONE, "unknown edges");
    c->edges = (st_edges)(edges <= ST_EDGES_NONE ? edges : 0);
    r_check(r, nonneg_finite(c->time) || c->time == DBL_MAX, "world time out of range");
    r_check(r, c->next_serial >= 1 && c->next_obstacle_id >= 0, "serial or obstacle id counters out of range");
    r_check(r, (flags & ~FLAG_ALL) == 0, "unknown world flags");
    c->reordered = flags & FLAG_REORDERED;
    c->resort = flags & FLAG_RESORT;
    c->brute_force = flags & FLAG_BRUTE_FORCE;
    c->avoid_active = flags & FLAG_AVOID_ACTIVE;
    c->contacts = flags & FLAG_CONTACTS;
    r->has_order = flags & FLAG_ORDER;
    r_check(r, n >= 0 && dead >= 0 && dead <= n, "agent counts out of range");
    r_check(r, r_fits(r, (uint64_t)(n > 0 ? n : 0), sizeof(st_body) + sizeof(st_agent)),
            "agent count exceeds the bytes");
    r_check(r, r_fits(r, slot_count, sizeof(st_slot)), "slot count exceeds the bytes");
    r_check(r, (int64_t)slot_count >= (n > 0 && dead >= 0 ? (int64_t)n - dead : 0) && slot_count < UINT32_MAX,
            "too few slots");
}

/* ---- paths: every path the standing lists name ---- */

static void write_paths(writer *o, const st_snapshot *s)
{
    w_u32(o, (uint32_t)s->path_count);
    for (int i = 0; i < s->path_count; i++) {
        const st_path *p = s->paths[i];
        w_u32(o, (uint32_t)p->count);
        w_u8(o, p->loop);
        w_f64(o, p->radius);
        w_bytes(o, p->points, (size_t)p->count * sizeof(st_vec2));
        // Format 3: the navgrid links its segments take (st_path_link).
        w_u8(o, p->links != NULL);
        if (p->links)
            for (int k = 0; k < p->count - 1; k++) w_i32(o, p->links[k]);
    }
}

/// The link marks of path p (format 3): a flag, then one id a segment.
static void read_path_links(reader *r, st_path *p)
{
    uint8_t has = r_u8(r);
    r_check(r, has <= 1 && (!has || !p->loop), "a path's link marks are malformed");
    if (!has || r->bad || !r_fits(r, (uint64_t)p->count - 1, sizeof(int32_t))) return;
    for (int k = 0; k < p->count - 1 && !r->bad; k++) {
        int32_t id = r_i32(r);
        r_check(r, id >= 0, "a path's link id is negative");
        if (id > 0 && !r->bad && !st_path_set_link(p, k, id)) r->bad = "out of memory";
    }
}

/// One path, made with st_path_create (which checks the points are finite
/// and copies them); NULL with r->bad set when it cannot be.
static st_path *read_path(reader *r)
{
    uint32_t pc = r_u32(r);
    uint8_t loop = r_u8(r);
    double radius = r_f64(r);
    r_check(r, pc >= 1 && loop <= 1 && pos_finite(radius), "a path is malformed");
    if (!r_fits(r, pc, sizeof(st_vec2)) || r->bad) return NULL;
    st_vec2 *pts = st__alloc(r->mem, (size_t)pc * sizeof *pts);
    if (!pts) {
        r->bad = "out of memory";
        return NULL;
    }
    r_take(r, pts, (size_t)pc * sizeof *pts);
    st_path *p = st_path_create_in(r->mem, pts, (int)pc, loop != 0, radius);
    st__free(pts);
    if (!p) r->bad = "a path point is not finite";
    else read_path_links(r, p);
    return p;
}

static void read_paths(reader *r, st_snapshot *s)
{
    uint32_t paths = r_u32(r);
    if (!r_fits(r, paths, 13)) return; // count, loop, radius: 13 bytes a path at the least
    s->paths = st__calloc(r->mem, paths > 0 ? paths : 1, sizeof *s->paths);
    if (!s->paths) {
        r->bad = "out of memory";
        return;
    }
    s->path_cap = (int)paths;
    s->owns_paths = true;
    for (uint32_t i = 0; i < paths && !r->bad; i++) {
        st_path *p = read_path(r);
        if (p) s->paths[s->path_count++] = p;
    }
}

/// A path index as the file has it: -1 for none, else one of the snapshot's.
static st_path *path_at(const st_snapshot *s, int32_t i) { return i >= 0 && i < s->path_count ? s->paths[i] : NULL; }

/* ---- standing lists ---- */

static void write_target(writer *o, const st_target *t)
{
    w_u8(o, t->is_agent);
    w_u32(o, t->agent.index);
    w_u32(o, t->agent.generation);
    w_vec(o, t->point);
}

static st_target read_target(reader *r)
{
    st_target t;
    uint8_t is_agent = r_u8(r);
    r_check(r, is_agent <= 1, "a behaviour target is neither point nor agent");
    t.is_agent = is_agent != 0;
    t.agent.index = r_u32(r);
    t.agent.generation = r_u32(r);
    t.point = r_vec(r);
    r_check(r, st_v2_finite(t.point), "a behaviour target point is not finite");
    return t;
}

static void write_behavior(writer *o, const st_snapshot *s, const st_behavior *b)
{
    w_u32(o, (uint32_t)b->type);
    w_f64(o, b->weight);
    write_target(o, &b->target);
    write_target(o, &b->target2);
    w_f64(o, b->radius);
    w_u32(o, (uint32_t)b->decel);
    w_vec(o, b->offset);
    w_i32(o, st_snapshot_path_index(s, b->path));
    w_f64(o, b->flock.radius);
    w_f64(o, b->flock.fov);
    w_f64(o, b->flock.separation);
    w_f64(o, b->flock.alignment);
    w_f64(o, b->flock.cohesion);
    w_f64(o, b->flock.separation_radius);
    w_i32(o, b->flock.tag);
    for (int q = 0; q < 4; q++) w_f64(o, b->rect[q]);
    w_u32(o, (uint32_t)b->path_mode);
    w_f64(o, b->predict);
    w_f64(o, b->ahead);
    w_f64(o, b->zone);
}

/// The ranges the API would accept, for the numbers read_behavior does not
/// check as it reads them.
static void check_behavior(reader *r, const st_behavior *b)
{
    // predict is a time (>= 0); ahead and zone are distances, or negative
    // for "automatic" (queue, follow_leader).
    r_check(r, nonneg_finite(b->predict) && st_finite(b->ahead) && st_finite(b->zone),
            "a behaviour's motion parameters are out of range");
    r_check(r, st_finite(b->weight) && !isnan(b->radius) && b->radius >= 0.0 && st_v2_finite(b->offset) &&
                   nonneg_finite(b->flock.radius) && !isnan(b->flock.fov) && st_finite(b->flock.fov) &&
                   st_finite(b->flock.separation) && st_finite(b->flock.alignment) && st_finite(b->flock.cohesion) &&
                   st_finite(b->flock.separation_radius) && b->flock.tag >= ST_TAG_ANY && !isnan(b->rect[0]) &&
                   !isnan(b->rect[1]) && !isnan(b->rect[2]) && !isnan(b->rect[3]),
            "a behaviour's parameters are out of range");
}

/// One entry of a list (zeroed), checked as it is read: enums first, so a
/// bad one is named before the bytes run out.
static void read_behavior(reader *r, const st_snapshot *s, st_behavior *b)
{
    uint32_t type = r_u32(r);
    r_check(r, type < ST_BEHAVIOR_COUNT, "unknown behaviour type");
    b->type = (st_behavior_type)(type < ST_BEHAVIOR_COUNT ? type : 0);
    b->weight = r_f64(r);
    b->target = read_target(r);
    b->target2 = read_target(r);
    b->radius = r_f64(r);
    uint32_t decel = r_u32(r);
    r_check(r, decel <= ST_DECEL_FAST, "unknown deceleration");
    b->decel = (st_deceleration)(decel <= ST_DECEL_FAST ? decel : 0);
    b->offset = r_vec(r);
    int32_t pi = r_i32(r);
    r_check(r, pi >= -1 && pi < s->path_count, "a behaviour names a path that is not there");
    b->path = path_at(s, pi);
    b->flock.radius = r_f64(r);
    b->flock.fov = r_f64(r);
    b->flock.separation = r_f64(r);
    b->flock.alignment = r_f64(r);
    b->flock.cohesion = r_f64(r);
    b->flock.separation_radius = r_f64(r);
    b->flock.tag = r_i32(r);
    for (int q = 0; q < 4; q++) b->rect[q] = r_f64(r);
    uint32_t mode = r_u32(r);
    r_check(r, mode <= ST_PATH_PREDICT, "unknown path mode");
    b->path_mode = (st_path_mode)(mode <= ST_PATH_PREDICT ? mode : 0);
    b->predict = r_f64(r);
    b->ahead = r_f64(r);
    b->zone = r_f64(r);
    b->field = NULL; // never in a file: see st_snapshot_encodable
    check_behavior(r, b);
}

static void write_lists(writer *o, const st_snapshot *s)
{
    w_u32(o, (uint32_t)s->list_count);
    for (int k = 0; k < s->list_count; k++) {
        const st_blist *l = s->lists[k];
        w_u32(o, (uint32_t)l->count);
        for (int e = 0; e < l->count; e++) write_behavior(o, s, &l->items[e]);
    }
}

static void read_lists(reader *r, st_snapshot *s)
{
    uint32_t lists = r_u32(r);
    if (!r_fits(r, lists, 4) || r->bad) return;
    s->lists = st__calloc(r->mem, lists > 0 ? lists : 1, sizeof *s->lists);
    if (!s->lists) {
        r->bad = "out of memory";
        return;
    }
    for (uint32_t k = 0; k < lists && !r->bad; k++) {
        uint32_t cnt = r_u32(r);
        r_check(r, cnt >= 1 && cnt <= MAX_LIST, "a standing list's length is out of range");
        if (!r_fits(r, cnt, 128) || r->bad) return; // 128: fewer bytes than any entry takes
        size_t bytes = sizeof(st_blist) + (size_t)cnt * sizeof(st_behavior);
        st_blist *l = st__alloc(r->mem, bytes);
        if (!l) {
            r->bad = "out of memory";
            return;
        }
        memset(l, 0, bytes);
        l->count = (int)cnt;
        s->lists[s->list_count++] = l;
        for (uint32_t e = 0; e < cnt && !r->bad; e++) read_behavior(r, s, &l->items[e]);
    }
}

/* ---- the dense arrays: bodies, list index per entry, agents, path index
 *      per entry, tags, slots, spawn-order index ---- */

/// Records written through memcpy: the room may sit at any alignment.
/// Pointers are written as NULL (the indices after each array stand for
/// them) and the bodies' padding as zeros, so equal worlds give equal bytes.
static void write_bodies(writer *o, const st_world *c)
{
    const int n = c->count;
    unsigned char *bodies = w_room(o, (size_t)n * sizeof(st_body));
    if (bodies) {
        memcpy(bodies, c->bodies, (size_t)n * sizeof(st_body));
        const st_blist *none = NULL;
        for (int i = 0; i < n; i++) {
            unsigned char *b = bodies + (size_t)i * sizeof(st_body);
            memcpy(b + offsetof(st_body, behaviors), &none, sizeof none);
            memset(b + offsetof(st_body, pad_), 0, sizeof c->bodies[i].pad_);
        }
    }
}

/// The handle table, each free slot's link written without ST_SLOT_FREE
/// (a bit of the memory layout, not of the format: decoding sets it).
static void write_slots(writer *o, const st_world *c)
{
    size_t n = (size_t)c->slot_count * sizeof(st_slot);
    unsigned char *at = w_room(o, n); // not aligned for st_slot
    if (!at || n == 0) return;
    memcpy(at, c->slots, n);
    for (uint32_t q = 0; q < c->slot_count; q++) {
        uint32_t d = c->slots[q].dense;
        if (!(d & ST_SLOT_FREE)) continue;
        d = st__free_next(d);
        memcpy(at + (size_t)q * sizeof(st_slot) + offsetof(st_slot, dense), &d, sizeof d);
    }
}

static void write_agents(writer *o, const st_world *c)
{
    const int n = c->count;
    unsigned char *agents = w_room(o, (size_t)n * sizeof(st_agent));
    if (agents) {
        memcpy(agents, c->agents, (size_t)n * sizeof(st_agent));
        const st_path *none = NULL;
        for (int i = 0; i < n; i++)
            memcpy(agents + (size_t)i * sizeof(st_agent) + offsetof(st_agent, path), &none, sizeof none);
    }
}

static void write_dense(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    const int n = c->count;
    write_bodies(o, c);
    w_bytes(o, s->list_of, (size_t)n * sizeof(int32_t));
    write_agents(o, c);
    // The last path an agent followed, when it is one of the snapshot's:
    // the core only compares it, so an unknown (maybe freed) one is -1,
    // which decodes to no path (the next follow_path starts over, as it
    // would have against any other path).
    for (int i = 0; i < n; i++) w_i32(o, st_snapshot_path_index(s, c->agents[i].path));
    w_bytes(o, c->tags, (size_t)n * sizeof(int32_t));
    write_slots(o, c);
    if (c->order_cap > 0) {
        w_bytes(o, c->order, (size_t)n * sizeof(uint32_t));
        w_bytes(o, c->order_pos, (size_t)n * sizeof(uint32_t));
    }
}

/// The live entry i's body: numbers in the ranges the API accepts, flags
/// known, and an orientation record where its list needs one.
static void check_body(reader *r, const st_snapshot *s, int i, int32_t li)
{
    const st_body *b = &s->w.bodies[i];
    const st_agent *a = &s->w.agents[i];
    r_check(r, st_v2_finite(b->pos) && st_v2_finite(b->vel) && st_v2_finite(b->heading) && st_v2_finite(b->accum) &&
                   st_v2_finite(b->force) && nonneg_finite(b->max_speed) && nonneg_finite(b->max_force) &&
                   pos_finite(b->mass) && nonneg_finite(b->radius),
            "an agent's body is out of range");
    r_check(r, b->combine <= ST_COMBINE_PRIORITY && (b->avoid & ~7u) == 0 && b->orient <= 1,
            "an agent's flags are out of range");
    // face / look_where_going write the record from the threaded pass,
    // which never makes one: a list holding them needs it up front.
    if (li >= 0 && li < s->list_count)
        r_check(r, b->orient || !st__orient_list_needs(s->lists[li]->items, s->lists[li]->count),
                "an agent that faces has no orientation record");
    r_check(r, st_v2_finite(a->wander_target) && st_finite(a->wander_distance) && nonneg_finite(a->wander_radius) &&
                   nonneg_finite(a->wander_jitter) && a->path_index >= 0,
            "an agent's wander or path state is out of range");
}

/// Entry i, whose path index is pi: its pointers made from the indices, its
/// fields checked, and its handle slot (marked in slot_seen) checked
/// against the handle table. Counts dead entries into *dead_seen.
static void check_entry(reader *r, st_snapshot *s, int i, int32_t pi, uint8_t *slot_seen, int *dead_seen)
{
    st_world *c = &s->w;
    st_body *b = &c->bodies[i];
    st_agent *a = &c->agents[i];
    int32_t li = s->list_of[i];
    b->behaviors = NULL;
    a->path = path_at(s, pi);
    r_check(r, pi >= -1 && pi < s->path_count, "an agent names a path that is not there");
    r_check(r, li >= -1 && li < s->list_count, "an agent names a standing list that is not there");
    r_check(r, a->alive <= 1, "an agent is neither alive nor dead");
    r_check(r, a->serial >= 1 && a->serial < c->next_serial, "an agent's serial is out of range");
    r_check(r, c->tags[i] >= 0, "an agent's tag is negative");
    if (!a->alive) {
        (*dead_seen)++;
        r_check(r, li == -1, "a dead agent has standing behaviours");
        return;
    }
    check_body(r, s, i, li);
    r_check(r, a->slot < c->slot_count, "an agent's handle slot is out of range");
    if (r->bad) return;
    r_check(r, !slot_seen[a->slot], "two agents share a handle slot");
    slot_seen[a->slot] = 1;
    r_check(r, c->slots[a->slot].dense == (uint32_t)i && c->slots[a->slot].generation >= 1,
            "the handle table does not point back at an agent");
    if (li >= 0) {
        b->behaviors = s->lists[li];
        s->lists[li]->refs++;
    }
}

/// The free list: in range, free slots only (slot_seen 0), no cycle, and
/// every slot either held or on it. Its links are then marked free.
static void check_free_list(reader *r, st_world *c, uint8_t *slot_seen)
{
    uint32_t f = c->free_slot, steps = 0;
    while (f != UINT32_MAX && !r->bad) {
        r_check(r, f < c->slot_count && !slot_seen[f] && steps++ < c->slot_count, "the free slot list is broken");
        if (r->bad) break;
        slot_seen[f] = 2;
        uint32_t next = c->slots[f].dense;
        c->slots[f].dense = st__free_link(next);
        f = next;
    }
    for (uint32_t q = 0; q < c->slot_count && !r->bad; q++)
        r_check(r, slot_seen[q] != 0, "a handle slot is neither held nor free");
}

/// Every entry, and the handle table against them.
static void check_entries(reader *r, st_snapshot *s, const int32_t *agent_path)
{
    st_world *c = &s->w;
    uint8_t *slot_seen = st__calloc(r->mem, c->slot_count > 0 ? c->slot_count : 1, 1);
    if (!slot_seen) {
        r->bad = "out of memory";
        return;
    }
    int dead_seen = 0;
    for (int i = 0; i < c->count && !r->bad; i++) check_entry(r, s, i, agent_path[i], slot_seen, &dead_seen);
    r_check(r, dead_seen == c->dead, "the dead count does not match the agents");
    for (int k = 0; k < s->list_count && !r->bad; k++)
        r_check(r, s->lists[k]->refs > 0, "a standing list no agent uses");
    check_free_list(r, c, slot_seen);
    for (uint32_t q = 0; q < c->slot_count && !r->bad; q++)
        r_check(r, c->slots[q].generation >= 1, "a handle slot has generation 0");
    st__free(slot_seen);
}

/// Spawn order: serials rise along it (storage order, or the index).
static void check_spawn_order(reader *r, const st_world *c)
{
    const int n = c->count;
    if (c->order_cap > 0) {
        for (int k = 0; k < n && !r->bad; k++)
            r_check(r, c->order[k] < (uint32_t)n && c->order_pos[c->order[k]] == (uint32_t)k,
                    "the spawn-order index is not a permutation");
        for (int k = 1; k < n && !r->bad; k++)
            r_check(r, c->agents[c->order[k]].serial > c->agents[c->order[k - 1]].serial,
                    "serials do not rise along spawn order");
    } else if (!c->reordered) {
        for (int k = 1; k < n && !r->bad; k++)
            r_check(r, c->agents[k].serial > c->agents[k - 1].serial, "serials do not rise along spawn order");
    }
}

static void read_order(reader *r, st_world *c)
{
    size_t nn = (size_t)c->count;
    c->order = alloc_n(r, nn, sizeof(uint32_t));
    c->order_pos = alloc_n(r, nn, sizeof(uint32_t));
    if (!c->order || !c->order_pos) {
        r->bad = "out of memory";
        return;
    }
    c->order_cap = c->count > 0 ? c->count : 1;
    r_take(r, c->order, nn * sizeof(uint32_t));
    r_take(r, c->order_pos, nn * sizeof(uint32_t));
}

static void read_dense(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    size_t nn = (size_t)c->count;
    c->capacity = c->count;
    c->slot_cap = c->slot_count;
    c->bodies = st__alloc_aligned(r->mem, ST_BODY_ALIGN, (nn > 0 ? nn : 1) * sizeof(st_body));
    c->agents = alloc_n(r, nn, sizeof(st_agent));
    c->tags = alloc_n(r, nn, sizeof(int32_t));
    c->slots = alloc_n(r, c->slot_count, sizeof(st_slot));
    s->list_of = alloc_n(r, nn, sizeof(int32_t));
    int32_t *agent_path = alloc_n(r, nn, sizeof(int32_t));
    if (!c->bodies || !c->agents || !c->tags || !c->slots || !s->list_of || !agent_path) {
        st__free(agent_path);
        r->bad = "out of memory";
        return;
    }
    r_take(r, c->bodies, nn * sizeof(st_body));
    r_take(r, s->list_of, nn * sizeof(int32_t));
    r_take(r, c->agents, nn * sizeof(st_agent));
    r_take(r, agent_path, nn * sizeof(int32_t));
    r_take(r, c->tags, nn * sizeof(int32_t));
    r_take(r, c->slots, (size_t)c->slot_count * sizeof(st_slot));
    if (r->has_order) read_order(r, c);
    if (!r->bad) check_entries(r, s, agent_path);
    st__free(agent_path);
    if (!r->bad) check_spawn_order(r, c);
}

/* ---- the caller's bytes ---- */

static void write_user(writer *o, const st_snapshot *s)
{
    w_u64(o, s->user_len);
    w_bytes(o, s->user, s->user_len);
}

static void read_user(reader *r, st_snapshot *s)
{
    uint64_t user = r_u64(r);
    if (!r_fits(r, user, 1)) return;
    if (user > 0) {
        s->user = st__alloc(r->mem, (size_t)user);
        if (!s->user) {
            r->bad = "out of memory";
            return;
        }
        s->user_len = (size_t)user;
        r_take(r, s->user, (size_t)user);
    }
}

/// The payload in order. A reader runs only while the ones before it found
/// nothing wrong, so each may rely on what they read and checked.
static const struct section {
    void (*write)(writer *o, const st_snapshot *s);
    void (*read)(reader *r, st_snapshot *s);
} sections[] = {
    {write_layout, read_layout},
    {write_scalars, read_scalars},
    {write_paths, read_paths},
    {write_lists, read_lists},
    {write_dense, read_dense},
    {snap__write_avoid_defs, snap__read_avoid_defs},
    {snap__write_orients, snap__read_orients},
    {snap__write_obstacles, snap__read_obstacles},
    {snap__write_walls, snap__read_walls},
    {write_user, read_user},
};
#define SECTION_COUNT (sizeof sections / sizeof sections[0])

static void write_payload(writer *o, const st_snapshot *s)
{
    for (size_t k = 0; k < SECTION_COUNT; k++) sections[k].write(o, s);
}

static void read_payload(reader *r, st_snapshot *s)
{
    for (size_t k = 0; k < SECTION_COUNT && !r->bad; k++) sections[k].read(r, s);
    r_check(r, r->p == r->end, "bytes left over after the payload");
}

/* ------------------------------------------------------------------------ */
/* the header, encode and decode                                            */
/* ------------------------------------------------------------------------ */

static void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

bool st_snapshot_encodable(const st_snapshot *s, uint64_t *serial)
{
    // The first offender in spawn order: the one with the lowest serial.
    const st_world *c = &s->w;
    uint64_t first = 0;
    for (int i = 0; i < c->count; i++) {
        int k = s->list_of[i];
        if (k < 0 || !c->agents[i].alive || (first && c->agents[i].serial > first)) continue;
        const st_blist *l = s->lists[k];
        for (int e = 0; e < l->count; e++)
            if (l->items[e].field) {
                first = c->agents[i].serial;
                break;
            }
    }
    // Orders name navgrids, which a file cannot hold either.
    st_agent_id id;
    if (first == 0 && st__mover_orders(s->mover, &id) > 0 && id.index < c->slot_count)
        first = c->agents[c->slots[id.index].dense].serial;
    if (serial) *serial = first;
    return first == 0;
}

/// The header in front of a payload of the given bytes (written after it:
/// it holds the payload's checksum). check_header reads it back.
static void write_header(unsigned char *h, const st_snapshot *s, size_t payload)
{
    memset(h, 0, ST_SNAPSHOT_HEADER);
    memcpy(h, magic, 8);
    put_u32(h + 8, ST_SNAPSHOT_FORMAT);
    put_u32(h + 12, ST_SNAPSHOT_HEADER);
    put_u32(h + 16, s->user_len > 0 ? 1u : 0u);
    put_u32(h + 20, ST_VERSION_NUM);
    put_u64(h + 24, payload);
    put_u64(h + 32, st_snapshot_hash(h + ST_SNAPSHOT_HEADER, payload));
    put_u64(h + 40, st_snapshot_checksum(s));
    put_u64(h + 48, s->w.tick);
    put_u32(h + 56, (uint32_t)(s->w.count - s->w.dead));
}

void *st_snapshot_encode(const st_snapshot *s, size_t *size)
{
    if (!st_snapshot_encodable(s, NULL)) return NULL;
    // One pass to size the bytes, one to write them into a single block.
    writer o = {0};
    o.count = true;
    w_room(&o, ST_SNAPSHOT_HEADER);
    write_payload(&o, s);
    o.p = malloc(o.len);
    if (!o.p) return NULL;
    o.cap = o.len;
    o.len = 0;
    o.count = false;
    w_room(&o, ST_SNAPSHOT_HEADER);
    write_payload(&o, s);
    if (o.fail) {
        free(o.p);
        return NULL;
    }
    write_header(o.p, s, o.len - ST_SNAPSHOT_HEADER);
    if (size) *size = o.len;
    return o.p;
}

static void set_err(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/// The header checked against the bytes: mark, format, sizes, and the
/// payload's checksum. False with the reason in err.
static bool check_header(const unsigned char *h, size_t size, char *err, size_t err_cap)
{
    if (!h || size < 8 || memcmp(h, magic, 8) != 0) {
        set_err(err, err_cap, "not a steer snapshot (no STEERSNP mark)");
        return false;
    }
    if (size < ST_SNAPSHOT_HEADER) {
        set_err(err, err_cap, "truncated: %zu bytes, the header alone is %d", size, ST_SNAPSHOT_HEADER);
        return false;
    }
    uint32_t format = get_u32(h + 8), hbytes = get_u32(h + 12), flags = get_u32(h + 16), engine = get_u32(h + 20);
    if (format > ST_SNAPSHOT_FORMAT) {
        set_err(err, err_cap, "format version %u is newer than this build reads (%d; made by steer %u.%u.%u)",
                format, ST_SNAPSHOT_FORMAT, engine / 10000, engine / 100 % 100, engine % 100);
        return false;
    }
    if (format < ST_SNAPSHOT_FORMAT) {
        set_err(err, err_cap, "format version %u is older than this build reads (%d)", format, ST_SNAPSHOT_FORMAT);
        return false;
    }
    if (hbytes != ST_SNAPSHOT_HEADER || (flags & ~1u) != 0) {
        set_err(err, err_cap, "corrupt header");
        return false;
    }
    uint64_t payload = get_u64(h + 24);
    if (payload != size - ST_SNAPSHOT_HEADER) {
        if (payload > size - ST_SNAPSHOT_HEADER)
            set_err(err, err_cap, "truncated: %zu bytes, the header says %llu", size,
                    (unsigned long long)payload + ST_SNAPSHOT_HEADER);
        else
            set_err(err, err_cap, "corrupt: %zu bytes, the header says %llu", size,
                    (unsigned long long)payload + ST_SNAPSHOT_HEADER);
        return false;
    }
    if (st_snapshot_hash(h + ST_SNAPSHOT_HEADER, (size_t)payload) != get_u64(h + 32)) {
        set_err(err, err_cap, "corrupt: the payload checksum does not match");
        return false;
    }
    return true;
}

st_snapshot *st_snapshot_decode(const void *data, size_t size, char *err, size_t err_cap)
{
    return st_snapshot_decode_in(NULL, data, size, err, err_cap);
}

st_snapshot *st_snapshot_decode_in(const st_mem *mem, const void *data, size_t size, char *err, size_t err_cap)
{
    const unsigned char *h = data;
    if (!check_header(h, size, err, err_cap)) return NULL;
    st_mem m = {0};
    if (mem) m = *mem;
    st_snapshot *s = st__snapshot_alloc(&m);
    if (!s) {
        set_err(err, err_cap, "out of memory");
        return NULL;
    }
    reader r = {&m, h + ST_SNAPSHOT_HEADER, h + size, NULL, false};
    read_payload(&r, s);
    s->w.mem = m;
    if (!r.bad && s->w.tick != get_u64(h + 48)) r.bad = "the header's tick does not match the payload";
    if (r.bad) {
        set_err(err, err_cap, "corrupt: %s", r.bad);
        st_snapshot_destroy(s);
        return NULL;
    }
    // The world checksum is recomputed, not trusted: it is what a restore
    // will show, and the header's copy must agree with it.
    if (st_snapshot_checksum(s) != get_u64(h + 40)) {
        set_err(err, err_cap, "corrupt: the world checksum does not match the header");
        st_snapshot_destroy(s);
        return NULL;
    }
    return s;
}
