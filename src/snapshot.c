/*
 * snapshot.c — the whole world captured and put back (st_world_snapshot,
 * st_world_restore).
 *
 * A snapshot is a copy of the st_world struct itself plus copies of every
 * array it owns that decides a future step. Copying the struct wholesale
 * means a scalar someone adds to st_world is captured without a line here;
 * copying the dense arrays (st_body, st_agent, tags, slots) as whole
 * records means a field added to st_body or st_agent is captured too.
 *
 * What is captured (extend this list, and the `arrays` table below, when
 * st_world grows an array):
 *  - every scalar of st_world: size, edges, seed, dt, cell size, the world
 *    rng, tick, time, next_serial, count/dead, slot_count/free_slot,
 *    reordered, resort, brute_force, next_obstacle_id, avoid_active,
 *    contacts (and any scalar added later);
 *  - bodies, agents, tags (count entries, dead ones included, in storage
 *    order: the next re-sort then reads the same grid order), slots with
 *    their generations and freed serials (slot_count entries);
 *  - the spawn-order index (order, order_pos) of a re-sorted world;
 *  - the standing behaviour lists: one copy of each distinct list and each
 *    entry's list, so sharing comes back as it was;
 *  - obstacles (ids, kinds, centres, prev_center, outlines) and walls;
 *  - avoid_defs (per-slot avoidance settings) and orients (per-slot
 *    orientation records: turn rate and this step's facing request);
 *  - the paths the lists point at (by pointer: paths belong to the caller
 *    and must outlive the snapshot; see st_snapshot_path). Agents' last
 *    followed path (st_agent.path) is kept as the pointer it was, which the
 *    core only ever compares. Path-following progress (st_agent.path_index)
 *    travels with the agent records;
 *  - the flow fields of follow_flow entries, by pointer like paths: the
 *    caller keeps them alive as long as the snapshot (the Lua bindings hold
 *    their userdata), and st_snapshot_encode refuses them.
 * Not captured, because they are not the world's: formations (their members
 * and slot assignment stay as they are) and navgrids (they re-read the
 * obstacles at the next query: restore moves obstacle_epoch on).
 * Not captured, because no step result depends on it: the grid and tag
 * grids (rebuilt from positions), ORCA's buffers and outline cache (remade
 * from the obstacles), the query scratch, the sharing offer (last_list),
 * the behaviour trace, and the thread count (results are the same on any).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "snapshot_internal.h"
#include "motion.h"
#include "mover.h"
#include "obstacle.h"

/* ---- pointer -> index, for sharing lists and paths ---- */

typedef struct ptr_map {
    const void **keys;
    int *vals;
    size_t cap; // power of two
} ptr_map;

static bool map_init(ptr_map *m, size_t want)
{
    size_t cap = 16;
    while (cap < want * 2) cap *= 2;
    m->keys = st__calloc(NULL, cap, sizeof *m->keys); // a capture's scratch, gone when it returns
    m->vals = st__alloc(NULL, cap * sizeof *m->vals);
    m->cap = cap;
    return m->keys && m->vals;
}

static void map_free(ptr_map *m)
{
    st__free(m->keys);
    st__free(m->vals);
}

static size_t map_hash(const void *p, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

/// The index of p, or -1; *slot receives where it goes when absent.
static int map_find(const ptr_map *m, const void *p, size_t *slot)
{
    size_t i = map_hash(p, m->cap);
    while (m->keys[i]) {
        if (m->keys[i] == p) return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    *slot = i;
    return -1;
}

/* ---- paths ---- */

int st_snapshot_path_index(const st_snapshot *s, const st_path *p)
{
    if (!p) return -1;
    for (int i = 0; i < s->path_count; i++)
        if (s->paths[i] == p) return i;
    return -1;
}

int st_snapshot_add_path(st_snapshot *s, st_path *p)
{
    if (!p) return -1;
    int i = st_snapshot_path_index(s, p);
    if (i >= 0) return i;
    if (!st__grow(&s->w.mem, (void **)&s->paths, &s->path_cap, s->path_count + 1, sizeof *s->paths)) return -1;
    s->paths[s->path_count] = p;
    return s->path_count++;
}

int st_snapshot_path_count(const st_snapshot *s) { return s->path_count; }
st_path *st_snapshot_path(const st_snapshot *s, int i) { return i >= 0 && i < s->path_count ? s->paths[i] : NULL; }
void st_snapshot_disown_paths(st_snapshot *s) { s->owns_paths = false; }

/* ---- user data ---- */

bool st_snapshot_set_user(st_snapshot *s, const void *data, size_t n)
{
    unsigned char *u = NULL;
    if (n > 0) {
        u = st__alloc(&s->w.mem, n);
        if (!u) return false;
        memcpy(u, data, n);
    }
    st__free(s->user);
    s->user = u;
    s->user_len = n;
    return true;
}

const void *st_snapshot_user(const st_snapshot *s, size_t *n)
{
    if (n) *n = s->user_len;
    return s->user;
}

/* ---- info ---- */

uint64_t st_snapshot_tick(const st_snapshot *s) { return s->w.tick; }
double st_snapshot_time(const st_snapshot *s) { return s->w.time; }
uint64_t st_snapshot_checksum(const st_snapshot *s)
{
    // The snapshot's world copy hashes as the world did (same agents, same
    // tick). Cached: a snapshot is not changed by reading it.
    st_snapshot *m = (st_snapshot *)s;
    if (!m->checksum_known) {
        m->checksum = st_world_checksum(&s->w);
        m->checksum_known = true;
    }
    return s->checksum;
}
int st_snapshot_agent_count(const st_snapshot *s) { return s->w.count - s->w.dead; }

size_t st_snapshot_memory(const st_snapshot *s)
{
    const st_world *w = &s->w;
    size_t n = sizeof *s + (size_t)w->count * (sizeof(st_body) + sizeof(st_agent) + sizeof(int32_t) * 2) +
               (size_t)w->slot_count * sizeof(st_slot) + s->user_len +
               (size_t)w->obstacle_count * sizeof(st_obstacle) + (size_t)w->wall_count * sizeof(st_wall) +
               (size_t)w->avoid_def_cap * sizeof(st_avoid_def) + (size_t)w->orient_cap * sizeof(st_orient);
    if (w->order_cap > 0) n += (size_t)w->count * 2 * sizeof(uint32_t);
    for (int k = 0; k < s->list_count; k++) n += sizeof(st_blist) + (size_t)s->lists[k]->count * sizeof(st_behavior);
    for (int i = 0; i < w->obstacle_count; i++) n += (size_t)w->obstacles[i].point_count * sizeof(st_vec2);
    return n + st__mover_memory(s->mover);
}

int st_snapshot_orders(const st_snapshot *s) { return st__mover_orders(s->mover, NULL); }

/* ---- the arrays a snapshot copies ---- */

/// One array of st_world that decides a future step: where its pointer sits,
/// the size of an element, and how many elements count. Capture copies each
/// into the snapshot, restore copies each back, destroy frees the
/// snapshot's: a new such array is one line here, plus a line in
/// make_room when the world must grow it for a restore.
typedef struct world_array {
    size_t field;                     // offsetof(st_world, the pointer)
    size_t elem;                      // bytes an element
    size_t (*len)(const st_world *w); // elements to copy
    bool aligned;                     // allocated with ST_BODY_ALIGN (the bodies)
    bool merged;                      // restore merges it into the world's (restore_slots)
} world_array;

static size_t len_dense(const st_world *w) { return (size_t)w->count; }
static size_t len_slots(const st_world *w) { return w->slot_count; }
static size_t len_order(const st_world *w) { return w->order_cap > 0 ? (size_t)w->count : 0; }
static size_t len_avoid_defs(const st_world *w) { return w->avoid_def_cap; }
static size_t len_orients(const st_world *w) { return w->orient_cap; }
static size_t len_obstacles(const st_world *w) { return (size_t)w->obstacle_count; }
static size_t len_walls(const st_world *w) { return (size_t)w->wall_count; }

#define ARRAY(field, len) {offsetof(st_world, field), sizeof *((st_world *)0)->field, len, false, false}
static const world_array arrays[] = {
    {offsetof(st_world, bodies), sizeof(st_body), len_dense, true, false},
    ARRAY(agents, len_dense),
    ARRAY(tags, len_dense),
    {offsetof(st_world, slots), sizeof(st_slot), len_slots, false, true},
    ARRAY(order, len_order),
    ARRAY(order_pos, len_order),
    ARRAY(avoid_defs, len_avoid_defs),
    ARRAY(orients, len_orients),
    ARRAY(obstacles, len_obstacles), // their outlines: own_outlines, copy_outlines_out
    ARRAY(walls, len_walls),
};
#undef ARRAY
_Static_assert(sizeof arrays / sizeof arrays[0] == ST__SNAPSHOT_ARRAYS, "one allocated size per array");

static void *array_get(const st_world *w, const world_array *a)
{
    void *p;
    memcpy(&p, (const char *)w + a->field, sizeof p);
    return p;
}

static void array_set(st_world *w, const world_array *a, void *p) { memcpy((char *)w + a->field, &p, sizeof p); }

/// After a wholesale copy of one st_world over another, the array pointers
/// put back to those of `own`, whose blocks they are.
static void keep_arrays(st_world *w, const st_world *own)
{
    for (int k = 0; k < ST__SNAPSHOT_ARRAYS; k++) array_set(w, &arrays[k], array_get(own, &arrays[k]));
}

/* ---- create / destroy ---- */

st_snapshot *st__snapshot_alloc(const st_mem *m)
{
    st_snapshot *s = st__calloc(m, 1, sizeof *s);
    if (s) s->w.free_slot = UINT32_MAX;
    if (s && m) s->w.mem = *m;
    return s;
}

/// Drops what a capture replaces wholesale (lists, outlines, paths, user
/// bytes), keeping the big arrays for reuse.
static void snapshot_clear(st_snapshot *s)
{
    for (int k = 0; k < s->list_count; k++) st__free(s->lists[k]);
    s->list_count = 0;
    if (s->w.obstacles)
        for (int i = 0; i < s->w.obstacle_count; i++) st__free(s->w.obstacles[i].points);
    s->w.obstacle_count = 0;
    if (s->owns_paths)
        for (int i = 0; i < s->path_count; i++) st_path_destroy(s->paths[i]);
    s->path_count = 0;
    s->owns_paths = false;
    st__free(s->user);
    s->user = NULL;
    s->user_len = 0;
    st__mover_destroy(s->mover);
    s->mover = NULL;
}

void st_snapshot_destroy(st_snapshot *s)
{
    if (!s) return;
    snapshot_clear(s);
    for (int k = 0; k < ST__SNAPSHOT_ARRAYS; k++) st__free(array_get(&s->w, &arrays[k]));
    st__free(s->lists);
    st__free(s->list_of);
    st__free(s->paths);
    st__free(s);
}

/// malloc of n elements of size elem, with n == 0 giving a harmless block.
static void *dup_array(const st_mem *m, const void *src, size_t n, size_t elem)
{
    void *p = st__alloc(m, n > 0 ? n * elem : 1);
    if (p && n > 0) memcpy(p, src, n * elem);
    return p;
}

static st_blist *dup_list(const st_mem *m, const st_blist *l)
{
    return dup_array(m, l, 1, sizeof(st_blist) + (size_t)l->count * sizeof(st_behavior));
}

/// Makes *p hold at least n elements (contents dropped), reusing the block
/// when it is big enough: a snapshot taken again into the same memory
/// touches no new pages, which on a 100k-agent world is most of the cost.
static bool reserve(const st_mem *m, void **p, size_t *cap, size_t n, size_t elem, bool aligned)
{
    if (n == 0) n = 1;
    if (*p && *cap >= n) return true;
    st__free(*p);
    *p = aligned ? st__alloc_aligned(m, ST_BODY_ALIGN, n * elem) : st__alloc(m, n * elem);
    *cap = *p ? n : 0;
    return *p != NULL;
}

/* ---- capture ---- */

/// The world's scalars wholesale into c, the snapshot's copy; then every
/// pointer is made the snapshot's own (its blocks from the last capture,
/// reused) or cleared before anything can fail, so destroy is always safe.
static void take_scalars(st_world *c, const st_world *w)
{
    st_world kept = *c;
    *c = *w;
    keep_arrays(c, &kept);
    c->obstacle_count = 0; // raised as outlines are copied
    memset(&c->grid, 0, sizeof c->grid);
    memset(c->tag_grids, 0, sizeof c->tag_grids);
    c->avoid = NULL;
    c->ray_index = NULL; // a cache of the world's own
    c->scratch = NULL;
    c->scratch_cap = 0;
    c->near_last = NULL;
    c->near_cap = 0;
    c->gen_floor = NULL; // the world's own: a snapshot restores into any world
    c->floor_count = 0;
    c->last_list = NULL;
    memset(&c->requests, 0, sizeof c->requests); // never captured (st_world_requests)
    c->aside = NULL; // scratch of the world's own
    c->aside_cap = 0;
    c->mover = NULL; // the snapshot's own copy is st_snapshot.mover
    c->navs = NULL;  // the world's own grids
    c->nav_n = c->nav_cap = 0;
    c->link_events = NULL; // the world's own buffer of the last step's link events
    c->link_event_count = c->link_event_cap = 0;
    c->link_event_want = false;
}

static bool copy_arrays(st_snapshot *s, const st_world *w)
{
    st_world *c = &s->w;
    for (int k = 0; k < ST__SNAPSHOT_ARRAYS; k++) {
        const world_array *a = &arrays[k];
        size_t n = a->len(w);
        void *p = array_get(c, a);
        bool ok = reserve(&s->w.mem, &p, &s->cap_arrays[k], n, a->elem, a->aligned);
        array_set(c, a, p);
        if (!ok) return false;
        if (n > 0) memcpy(p, array_get(w, a), n * a->elem);
    }
    // The copy's sizes are what it holds.
    c->capacity = w->count;
    c->slot_cap = w->slot_count;
    c->order_cap = w->order_cap > 0 ? (w->count > 0 ? w->count : 1) : 0;
    c->obstacle_cap = w->obstacle_count;
    c->wall_cap = w->wall_count;
    return true;
}

/// The copied obstacles' outlines made the snapshot's own, one at a time,
/// so that obstacle_count always counts the outlines destroy must free.
static bool own_outlines(st_world *c, const st_world *w)
{
    for (int i = 0; i < w->obstacle_count; i++) {
        st_obstacle *o = &c->obstacles[i];
        if (o->points) {
            o->points = dup_array(&c->mem, w->obstacles[i].points, (size_t)o->point_count, sizeof(st_vec2));
            if (!o->points) return false;
        }
        c->obstacle_count = i + 1;
    }
    return true;
}

/// Rehashes the map into one twice the size; *slot: where p goes in it.
static bool map_grow(ptr_map *m, const void *p, size_t *slot)
{
    ptr_map g;
    if (!map_init(&g, m->cap)) {
        map_free(&g);
        return false;
    }
    for (size_t q = 0; q < m->cap; q++)
        if (m->keys[q]) {
            size_t at = 0;
            (void)map_find(&g, m->keys[q], &at);
            g.keys[at] = m->keys[q];
            g.vals[at] = m->vals[q];
        }
    map_free(m);
    *m = g;
    (void)map_find(m, p, slot);
    return true;
}

/// The snapshot's index of the world's list l: l is copied (and its paths
/// noted) the first time it is seen. -1 when memory runs out.
static int share_list(st_snapshot *s, ptr_map *m, const st_blist *l)
{
    size_t slot = 0;
    int k = map_find(m, l, &slot);
    if (k >= 0) return k;
    if ((size_t)(s->list_count + 1) * 2 > m->cap && !map_grow(m, l, &slot)) return -1;
    if (!st__grow(&s->w.mem, (void **)&s->lists, &s->cap_lists, s->list_count + 1, sizeof *s->lists)) return -1;
    st_blist *copy = dup_list(&s->w.mem, l);
    if (!copy) return -1;
    copy->refs = 0;
    k = s->list_count++;
    s->lists[k] = copy;
    m->keys[slot] = l;
    m->vals[slot] = k;
    for (int e = 0; e < l->count; e++)
        if (l->items[e].path && st_snapshot_add_path(s, (st_path *)l->items[e].path) < 0) return -1;
    return k;
}

/// Standing lists: one copy per distinct list, found through a map of the
/// world's list pointers (a crowd shares one list among thousands), and
/// each entry's index into them. Consecutive agents mostly share the
/// previous one's list: that check comes first and skips the map.
static bool copy_lists(st_snapshot *s, const st_world *w)
{
    const int n = w->count;
    if (!reserve(&s->w.mem, (void **)&s->list_of, &s->cap_list_of, (size_t)n, sizeof(int32_t), false)) return false;
    ptr_map m;
    if (!map_init(&m, 64)) {
        map_free(&m);
        return false;
    }
    bool ok = true;
    const st_blist *prev = NULL;
    int k = -1;
    for (int i = 0; i < n; i++) {
        const st_blist *l = w->bodies[i].behaviors;
        s->w.bodies[i].behaviors = NULL;
        if (!l) {
            s->list_of[i] = -1;
            continue;
        }
        if (l != prev) {
            prev = l;
            k = share_list(s, &m, l);
            if (k < 0) {
                ok = false;
                break;
            }
        }
        s->lists[k]->refs++;
        s->list_of[i] = k;
    }
    map_free(&m);
    return ok;
}

st_snapshot *st_world_snapshot(const st_world *w)
{
    if (!w || w->in_step) return NULL;
    st_snapshot *s = st__snapshot_alloc(&w->mem);
    if (!s) return NULL;
    if (!st_snapshot_capture(s, w)) {
        st_snapshot_destroy(s);
        return NULL;
    }
    return s;
}

bool st_snapshot_capture(st_snapshot *s, const st_world *w)
{
    if (!s || !w || w->in_step) return false;
    snapshot_clear(s);
    take_scalars(&s->w, w);
    bool mover_ok;
    s->mover = st__mover_clone(w->mover, &w->mem, &mover_ok);
    if (!mover_ok || !copy_arrays(s, w) || !own_outlines(&s->w, w) || !copy_lists(s, w)) {
        // Consistent and empty: destroyable, and no world to restore from it.
        st_world *c = &s->w;
        snapshot_clear(s);
        c->count = c->dead = 0;
        c->slot_count = 0;
        c->order_cap = 0;
        c->avoid_def_cap = 0;
        c->orient_cap = 0;
        c->wall_count = 0;
        return false;
    }
    // The checksum is worked out when first asked for (hashing every
    // agent costs more than copying them).
    s->checksum_known = false;
    return true;
}

/* ---- restore ---- */

/// The snapshot's handle table into w, whose slots still hold the
/// generations of the world being replaced (old_count of them). Live slots
/// take the snapshot's generation: its ids are valid again. Every id the
/// replaced world handed out is then dead, and must stay so: each slot's
/// floor rises to the replaced world's generation, a slot free in the
/// snapshot starts above it, and a live one skips past it when its agent
/// is removed (world.c's next_generation). Slots only the replaced world
/// had stay, freed the same way, at the end of the free list. Slots decide
/// no step result (the dense arrays do), so checksums are unchanged.
static void restore_slots(st_world *w, const st_world *c, uint32_t old_count)
{
    uint32_t *floor = w->gen_floor; // make_room sized it to both counts
    for (uint32_t q = 0; q < old_count; q++)
        if (floor[q] < w->slots[q].generation) floor[q] = w->slots[q].generation;
    for (uint32_t q = 0; q < c->slot_count; q++) {
        st_slot snap = c->slots[q];
        bool live = snap.dense < (uint32_t)c->count && c->agents[snap.dense].alive && c->agents[snap.dense].slot == q;
        if (!live) {
            uint32_t g = st__gen_after(floor[q]);
            if (g > snap.generation) snap.generation = g;
        }
        w->slots[q] = snap;
    }
    if (old_count <= c->slot_count) return;
    uint32_t *tail = &w->free_slot;
    while (*tail != ST_NO_SLOT) tail = &w->slots[st__free_next(*tail)].dense;
    bool head = tail == &w->free_slot;
    for (uint32_t q = c->slot_count; q < old_count; q++) {
        w->slots[q].generation = st__gen_after(floor[q]);
        w->slots[q].freed_serial = 0;
        *tail = head ? q : st__free_link(q);
        head = false;
        tail = &w->slots[q].dense;
    }
    *tail = ST_NO_SLOT;
    w->slot_count = old_count;
}

/// w's generation floors covering n slots, the new ones at 0 (none).
static bool grow_floors(st_world *w, uint32_t n)
{
    if (n <= w->floor_count && w->gen_floor) return true;
    uint32_t *f = st__realloc(&w->mem, w->gen_floor, (size_t)(n > 0 ? n : 1) * sizeof *f);
    if (!f) return false;
    memset(f + w->floor_count, 0, (size_t)(n - w->floor_count) * sizeof *f);
    w->gen_floor = f;
    w->floor_count = n;
    return true;
}

/// What a restore allocates before it changes the world: when any of it
/// fails, the world is left as it was.
typedef struct restore_room {
    const st_mem *mem;      // the world's budget
    st_blist **lists;       // copies of the snapshot's standing lists
    st_body *bodies;        // new dense arrays, when the world's are too small
    st_agent *agents;
    int32_t *tags;
    st_obstacle *obstacles; // the world's next obstacles and walls (filled at commit)
    st_vec2 **points;       // copies of the obstacles' outlines
    st_wall *walls;
} restore_room;

static void room_free(restore_room *r, const st_snapshot *s)
{
    if (r->lists)
        for (int k = 0; k < s->list_count; k++) st__free(r->lists[k]);
    st__free(r->lists);
    st__free(r->bodies);
    st__free(r->agents);
    st__free(r->tags);
    if (r->points)
        for (int i = 0; i < s->w.obstacle_count; i++) st__free(r->points[i]);
    st__free(r->points);
    st__free(r->obstacles);
    st__free(r->walls);
}

static bool copy_lists_out(const st_snapshot *s, restore_room *r)
{
    if (s->list_count == 0) return true;
    r->lists = st__calloc(r->mem, (size_t)s->list_count, sizeof *r->lists);
    if (!r->lists) return false;
    for (int k = 0; k < s->list_count; k++)
        if (!(r->lists[k] = dup_list(r->mem, s->lists[k]))) return false;
    return true;
}

static bool new_dense_arrays(restore_room *r, int n)
{
    r->bodies = st__alloc_aligned(r->mem, ST_BODY_ALIGN, (size_t)n * sizeof *r->bodies);
    r->agents = st__alloc(r->mem, (size_t)n * sizeof *r->agents);
    r->tags = st__alloc(r->mem, (size_t)n * sizeof *r->tags);
    if (!r->bodies || !r->agents || !r->tags) return false;
    st__advise_huge(r->bodies, (size_t)n * sizeof *r->bodies);
    st__advise_huge(r->agents, (size_t)n * sizeof *r->agents);
    return true;
}

static bool copy_outlines_out(const st_world *c, restore_room *r)
{
    if (c->wall_count > 0 && !(r->walls = st__alloc(r->mem, (size_t)c->wall_count * sizeof *r->walls))) return false;
    if (c->obstacle_count == 0) return true;
    r->obstacles = st__alloc(r->mem, (size_t)c->obstacle_count * sizeof *r->obstacles);
    r->points = st__calloc(r->mem, (size_t)c->obstacle_count, sizeof *r->points);
    if (!r->obstacles || !r->points) return false;
    for (int i = 0; i < c->obstacle_count; i++) {
        const st_obstacle *o = &c->obstacles[i];
        if (o->points && !(r->points[i] = dup_array(r->mem, o->points, (size_t)o->point_count, sizeof(st_vec2)))) return false;
    }
    return true;
}

/// Grows *p to need elements in place, keeping its contents, when *cap is
/// less. The world keeps a block grown for a restore that then fails: a
/// larger block harms nothing.
static bool grow_to(const st_mem *m, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return true;
    void *q = st__realloc(m, *p, (size_t)need * elem);
    if (!q) return false;
    *p = q;
    *cap = need;
    return true;
}

static bool grow_order(st_world *w, int n)
{
    if (w->order_cap >= n) return true;
    uint32_t *o = st__realloc(&w->mem, w->order, (size_t)n * sizeof *o);
    if (o) w->order = o;
    uint32_t *p = o ? st__realloc(&w->mem, w->order_pos, (size_t)n * sizeof *p) : NULL;
    if (p) w->order_pos = p;
    if (!o || !p) return false;
    w->order_cap = n;
    return true;
}

/// Everything that can fail, before the world changes. The dense arrays
/// are new blocks (the old ones' contents matter until the commit); the
/// rest grow in place (restore_slots reads the old generations).
static bool make_room(st_world *w, const st_snapshot *s, restore_room *r)
{
    const st_world *c = &s->w;
    r->mem = &w->mem;
    return copy_lists_out(s, r) && (c->count <= w->capacity || new_dense_arrays(r, c->count)) &&
           grow_to(&w->mem, (void **)&w->slots, &w->slot_cap, c->slot_count, sizeof(st_slot)) &&
           grow_floors(w, w->slot_count > c->slot_count ? w->slot_count : c->slot_count) &&
           (c->order_cap == 0 || grow_order(w, c->count)) &&
           grow_to(&w->mem, (void **)&w->avoid_defs, &w->avoid_def_cap, c->avoid_def_cap, sizeof(st_avoid_def)) &&
           grow_to(&w->mem, (void **)&w->orients, &w->orient_cap, c->orient_cap, sizeof(st_orient)) &&
           copy_outlines_out(c, r);
}

/// The old world's lists and outlines released, the new blocks in place.
static void swap_in_room(st_world *w, restore_room *r, int n)
{
    // The old lists go first, while the old bodies still list them.
    for (int i = 0; i < w->count; i++) st__blist_release(w, w->bodies[i].behaviors);
    st__obstacles_free(w);
    w->obstacles = r->obstacles;
    w->walls = r->walls;
    if (r->bodies) {
        st__free(w->bodies);
        st__free(w->agents);
        st__free(w->tags);
        w->bodies = r->bodies;
        w->agents = r->agents;
        w->tags = r->tags;
        w->capacity = n;
    }
}

/// The snapshot's scalars wholesale into w, then back what stays the
/// world's own: its arrays and their sizes, its grid, caches, threads and
/// trace.
static void give_scalars(st_world *w, const st_world *c)
{
    st_world keep = *w;
    *w = *c;
    keep_arrays(w, &keep);
    w->mem = keep.mem;
    w->capacity = keep.capacity;
    w->slot_cap = keep.slot_cap;
    w->order_cap = keep.order_cap;
    w->avoid_def_cap = keep.avoid_def_cap;
    w->orient_cap = keep.orient_cap;
    w->obstacle_cap = c->obstacle_count;
    w->wall_cap = c->wall_count;
    w->grid = keep.grid;
    memcpy(w->tag_grids, keep.tag_grids, sizeof w->tag_grids);
    w->tag_clock = keep.tag_clock;
    w->grid_epoch = keep.grid_epoch + 1; // the tag grids hold the old indices
    w->avoid = keep.avoid;
    w->ray_index = keep.ray_index; // stale by the epoch below
    w->scratch = keep.scratch;
    w->scratch_cap = keep.scratch_cap;
    w->near_last = keep.near_last; // bounds only: the restored agents may ignore them
    w->near_cap = keep.near_cap;
    w->gen_floor = keep.gen_floor; // restore_slots raises them
    w->floor_count = keep.floor_count;
    w->last_list = NULL;
    w->requests = keep.requests;
    w->aside = keep.aside;
    w->aside_cap = keep.aside_cap;
    w->mover = keep.mover; // st_world_restore replaces it
    w->navs = keep.navs;
    w->nav_n = keep.nav_n;
    w->nav_cap = keep.nav_cap;
    // The grids' links are the grids' (not captured) and stay: their ids
    // never come round again. The restored world has had no step yet, so
    // no link events; their buffer stays the world's.
    w->link_serial = keep.link_serial > c->link_serial ? keep.link_serial : c->link_serial;
    w->link_events = keep.link_events;
    w->link_event_cap = keep.link_event_cap;
    w->link_event_want = keep.link_event_want;
    w->link_event_count = 0;
    // The game loop's accumulator is the caller's time, not the world's.
    w->advance_acc = keep.advance_acc;
    w->advance_max = keep.advance_max;
    w->advance_dropped = keep.advance_dropped;
    st__requests_clear(w); // the restored world has asked for nothing yet
    w->threads = keep.threads;
    w->trace_id = keep.trace_id;
    memcpy(w->trace, keep.trace, sizeof w->trace);
    memcpy(w->trace_count, keep.trace_count, sizeof w->trace_count);
    w->trace_cur = keep.trace_cur;
    // ORCA's outline cache is keyed by this epoch: move past both.
    w->obstacle_epoch = (keep.obstacle_epoch > c->obstacle_epoch ? keep.obstacle_epoch : c->obstacle_epoch) + 1;
    w->in_step = false;
    w->removed_in_step = false;
    st__hint_clear(w);
}

/// The snapshot's arrays into the world's blocks (big enough by now).
/// Orientation records past the snapshot's count belong to no agent with
/// `orient` set (the flags came back with the bodies): stale, never read.
static void copy_arrays_back(st_world *w, const st_world *c)
{
    for (int k = 0; k < ST__SNAPSHOT_ARRAYS; k++) {
        const world_array *a = &arrays[k];
        size_t n = a->len(c);
        if (!a->merged && n > 0) memcpy(array_get(w, a), array_get(c, a), n * a->elem);
    }
}

/// The restored bodies given the copied lists, with the counts the step
/// reads from them.
static void attach_lists(st_world *w, const st_snapshot *s, st_blist **lists)
{
    for (int i = 0; i < w->count; i++) {
        int k = s->list_of[i];
        w->bodies[i].behaviors = k >= 0 ? lists[k] : NULL;
    }
    for (int k = 0; k < s->list_count; k++) {
        lists[k]->refs = s->lists[k]->refs;
        // Derived, so decoded lists carry it too: whether the step may fuse
        // the move into the standing pass depends on it.
        lists[k]->reads_others = st__blist_reads_others(lists[k]->items, lists[k]->count);
    }
    w->others_readers = 0;
    for (int i = 0; i < w->count; i++)
        if (w->bodies[i].behaviors && w->bodies[i].behaviors->reads_others) w->others_readers++;
}

bool st_world_restore(st_world *w, const st_snapshot *s)
{
    if (!w || !s || w->in_step) return false;
    const st_world *c = &s->w;
    restore_room r = {0};
    // Orders come back with the world, unless they plan on another world's grids.
    bool mover_ok = true;
    st_mover *mover = st__mover_orders_in(s->mover, w) ? st__mover_clone(s->mover, &w->mem, &mover_ok) : NULL;
    if (!mover_ok || !make_room(w, s, &r)) {
        st__mover_destroy(mover);
        room_free(&r, s);
        return false;
    }
    // Commit: nothing fails from here on.
    swap_in_room(w, &r, c->count);
    uint32_t old_slots = w->slot_count;
    give_scalars(w, c);
    copy_arrays_back(w, c);
    attach_lists(w, s, r.lists);
    restore_slots(w, c, old_slots);
    if (c->order_cap == 0 && w->order_cap > 0) {
        st__free(w->order);
        st__free(w->order_pos);
        w->order = w->order_pos = NULL;
        w->order_cap = 0;
    }
    for (int i = 0; i < c->obstacle_count; i++) w->obstacles[i].points = r.points[i];
    st__free(r.points);
    st__free(r.lists);
    st__mover_free(w);
    w->mover = mover;
    w->radius_max_ok = false; // other agents, other sizes: counted again
    st__moved(w);
    return true;
}
