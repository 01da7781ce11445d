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
 * What is captured (extend this list when st_world grows an array):
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
 *  - avoid_defs (per-slot avoidance settings);
 *  - the paths the lists point at (by pointer: paths belong to the caller
 *    and must outlive the snapshot; see st_snapshot_path). Agents' last
 *    followed path (st_agent.path) is kept as the pointer it was, which the
 *    core only ever compares.
 * Not captured, because no step result depends on it: the grid and tag
 * grids (rebuilt from positions), ORCA's buffers and outline cache (remade
 * from the obstacles), the query scratch, the sharing offer (last_list),
 * the behaviour trace, and the thread count (results are the same on any).
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot_internal.h"

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
    m->keys = calloc(cap, sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    m->cap = cap;
    return m->keys && m->vals;
}

static void map_free(ptr_map *m)
{
    free(m->keys);
    free(m->vals);
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
    if (!st__grow((void **)&s->paths, &s->path_cap, s->path_count + 1, sizeof *s->paths)) return -1;
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
        u = malloc(n);
        if (!u) return false;
        memcpy(u, data, n);
    }
    free(s->user);
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
               (size_t)w->avoid_def_cap * sizeof(st_avoid_def);
    if (w->order_cap > 0) n += (size_t)w->count * 2 * sizeof(uint32_t);
    for (int k = 0; k < s->list_count; k++) n += sizeof(st_blist) + (size_t)s->lists[k]->count * sizeof(st_behavior);
    for (int i = 0; i < w->obstacle_count; i++) n += (size_t)w->obstacles[i].point_count * sizeof(st_vec2);
    return n;
}

/* ---- create / destroy ---- */

st_snapshot *st__snapshot_alloc(void)
{
    st_snapshot *s = calloc(1, sizeof *s);
    if (s) s->w.free_slot = UINT32_MAX;
    return s;
}

void st_snapshot_destroy(st_snapshot *s)
{
    if (!s) return;
    free(s->w.bodies);
    free(s->w.agents);
    free(s->w.tags);
    free(s->w.slots);
    free(s->w.order);
    free(s->w.order_pos);
    free(s->w.avoid_defs);
    if (s->w.obstacles)
        for (int i = 0; i < s->w.obstacle_count; i++) free(s->w.obstacles[i].points);
    free(s->w.obstacles);
    free(s->w.walls);
    for (int k = 0; k < s->list_count; k++) free(s->lists[k]);
    free(s->lists);
    free(s->list_of);
    if (s->owns_paths)
        for (int i = 0; i < s->path_count; i++) st_path_destroy(s->paths[i]);
    free(s->paths);
    free(s->user);
    free(s);
}

/// malloc of n elements of size elem, with n == 0 giving a harmless block.
static void *dup_array(const void *src, size_t n, size_t elem)
{
    void *p = malloc(n > 0 ? n * elem : 1);
    if (p && n > 0) memcpy(p, src, n * elem);
    return p;
}

/// Makes *p hold at least n elements (contents dropped), reusing the block
/// when it is big enough: a snapshot taken again into the same memory
/// touches no new pages, which on a 100k-agent world is most of the cost.
static bool reserve(void **p, size_t *cap, size_t n, size_t elem, bool aligned)
{
    if (n == 0) n = 1;
    if (*p && *cap >= n) return true;
    free(*p);
    *p = aligned ? aligned_alloc(ST_BODY_ALIGN, n * elem) : malloc(n * elem);
    *cap = *p ? n : 0;
    return *p != NULL;
}

/// Drops what a capture replaces wholesale (lists, outlines, paths, user
/// bytes), keeping the big arrays for reuse.
static void snapshot_clear(st_snapshot *s)
{
    for (int k = 0; k < s->list_count; k++) free(s->lists[k]);
    s->list_count = 0;
    if (s->w.obstacles)
        for (int i = 0; i < s->w.obstacle_count; i++) free(s->w.obstacles[i].points);
    s->w.obstacle_count = 0;
    if (s->owns_paths)
        for (int i = 0; i < s->path_count; i++) st_path_destroy(s->paths[i]);
    s->path_count = 0;
    s->owns_paths = false;
    free(s->user);
    s->user = NULL;
    s->user_len = 0;
}

st_snapshot *st_world_snapshot(const st_world *w)
{
    if (!w || w->in_step) return NULL;
    st_snapshot *s = st__snapshot_alloc();
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
    const int n = w->count;
    st_world *c = &s->w;
    st_world kept = *c; // this snapshot's own arrays, reused below

    // The scalars wholesale; then every pointer is made the snapshot's own
    // (or cleared) before anything can fail, so destroy is always safe.
    *c = *w;
    c->bodies = kept.bodies;
    c->agents = kept.agents;
    c->tags = kept.tags;
    c->slots = kept.slots;
    c->order = kept.order;
    c->order_pos = kept.order_pos;
    c->order_cap = 0;
    c->obstacles = kept.obstacles;
    c->obstacle_count = 0; // raised as outlines are copied
    c->walls = kept.walls;
    c->avoid_defs = kept.avoid_defs;
    c->avoid_def_cap = 0;
    memset(&c->grid, 0, sizeof c->grid);
    memset(c->tag_grids, 0, sizeof c->tag_grids);
    c->avoid = NULL;
    c->scratch = NULL;
    c->scratch_cap = 0;
    c->last_list = NULL;
    c->capacity = n;
    c->slot_cap = w->slot_count;
    c->wall_cap = w->wall_count;
    c->obstacle_cap = w->obstacle_count;

    if (!reserve((void **)&c->bodies, &s->cap_agents[0], (size_t)n, sizeof(st_body), true) ||
        !reserve((void **)&c->agents, &s->cap_agents[1], (size_t)n, sizeof(st_agent), false) ||
        !reserve((void **)&c->tags, &s->cap_agents[2], (size_t)n, sizeof(int32_t), false) ||
        !reserve((void **)&s->list_of, &s->cap_agents[3], (size_t)n, sizeof(int32_t), false) ||
        !reserve((void **)&c->slots, &s->cap_slots, w->slot_count, sizeof(st_slot), false))
        goto fail;
    if (n > 0) {
        memcpy(c->bodies, w->bodies, (size_t)n * sizeof(st_body));
        memcpy(c->agents, w->agents, (size_t)n * sizeof(st_agent));
        memcpy(c->tags, w->tags, (size_t)n * sizeof(int32_t));
    }
    if (w->slot_count > 0) memcpy(c->slots, w->slots, (size_t)w->slot_count * sizeof(st_slot));

    if (w->order_cap > 0) {
        if (!reserve((void **)&c->order, &s->cap_order[0], (size_t)n, sizeof(uint32_t), false) ||
            !reserve((void **)&c->order_pos, &s->cap_order[1], (size_t)n, sizeof(uint32_t), false))
            goto fail;
        if (n > 0) {
            memcpy(c->order, w->order, (size_t)n * sizeof(uint32_t));
            memcpy(c->order_pos, w->order_pos, (size_t)n * sizeof(uint32_t));
        }
        c->order_cap = n > 0 ? n : 1;
    }
    if (w->avoid_def_cap > 0) {
        if (!reserve((void **)&c->avoid_defs, &s->cap_defs, w->avoid_def_cap, sizeof(st_avoid_def), false)) goto fail;
        memcpy(c->avoid_defs, w->avoid_defs, (size_t)w->avoid_def_cap * sizeof(st_avoid_def));
        c->avoid_def_cap = w->avoid_def_cap;
    }
    if (w->wall_count > 0) {
        if (!reserve((void **)&c->walls, &s->cap_walls, (size_t)w->wall_count, sizeof(st_wall), false)) goto fail;
        memcpy(c->walls, w->walls, (size_t)w->wall_count * sizeof(st_wall));
    }
    if (w->obstacle_count > 0) {
        if (!reserve((void **)&c->obstacles, &s->cap_obstacles, (size_t)w->obstacle_count, sizeof(st_obstacle), false))
            goto fail;
        for (int i = 0; i < w->obstacle_count; i++) {
            st_obstacle *o = &c->obstacles[i];
            *o = w->obstacles[i];
            if (o->points) {
                o->points = dup_array(w->obstacles[i].points, (size_t)o->point_count, sizeof(st_vec2));
                if (!o->points) goto fail;
            }
            c->obstacle_count = i + 1;
        }
    }

    // Standing lists: one copy per distinct list, found through a map of
    // the world's list pointers (a crowd shares one list among thousands).
    // Consecutive agents mostly share the previous one's list: that check
    // comes first and skips the map.
    {
        ptr_map m;
        if (!map_init(&m, 64)) {
            map_free(&m);
            goto fail;
        }
        bool ok = true;
        const st_blist *prev = NULL;
        int prev_k = -1;
        for (int i = 0; i < n && ok; i++) {
            const st_blist *l = w->bodies[i].behaviors;
            c->bodies[i].behaviors = NULL;
            if (!l) {
                s->list_of[i] = -1;
                continue;
            }
            int k = prev_k;
            if (l != prev) {
                size_t slot = 0;
                k = map_find(&m, l, &slot);
                if (k < 0) {
                    if ((size_t)(s->list_count + 1) * 2 > m.cap) {
                        // grow the map: rehash into one twice the size
                        ptr_map g;
                        if (!map_init(&g, m.cap)) {
                            map_free(&g);
                            ok = false;
                            break;
                        }
                        for (size_t q = 0; q < m.cap; q++)
                            if (m.keys[q]) {
                                size_t at = 0;
                                (void)map_find(&g, m.keys[q], &at);
                                g.keys[at] = m.keys[q];
                                g.vals[at] = m.vals[q];
                            }
                        map_free(&m);
                        m = g;
                        (void)map_find(&m, l, &slot);
                    }
                    if (!st__grow((void **)&s->lists, &s->cap_lists, s->list_count + 1, sizeof *s->lists)) {
                        ok = false;
                        break;
                    }
                    st_blist *copy = malloc(sizeof *copy + (size_t)l->count * sizeof(st_behavior));
                    if (!copy) {
                        ok = false;
                        break;
                    }
                    memcpy(copy, l, sizeof *copy + (size_t)l->count * sizeof(st_behavior));
                    copy->refs = 0;
                    k = s->list_count++;
                    s->lists[k] = copy;
                    m.keys[slot] = l;
                    m.vals[slot] = k;
                    for (int e = 0; e < l->count && ok; e++)
                        if (l->items[e].path && st_snapshot_add_path(s, (st_path *)l->items[e].path) < 0) ok = false;
                }
                prev = l;
                prev_k = k;
            }
            s->lists[k]->refs++;
            s->list_of[i] = k;
        }
        map_free(&m);
        if (!ok) goto fail;
    }
    // The checksum is worked out when first asked for (hashing every
    // agent costs more than copying them).
    s->checksum_known = false;
    return true;
fail:
    // Consistent and empty: destroyable, and no world to restore from it.
    snapshot_clear(s);
    c->count = c->dead = 0;
    c->slot_count = 0;
    c->order_cap = 0;
    c->avoid_def_cap = 0;
    c->wall_count = 0;
    return false;
}

/* ---- restore ---- */

static uint32_t next_gen(uint32_t g) { return g == UINT32_MAX ? 1 : g + 1; }

/// The snapshot's handle table into w, whose slots still hold the
/// generations of the world being replaced (old_count of them). Live slots
/// take the snapshot's generation: its ids are valid again. A slot free in
/// the snapshot takes a generation above any the replaced world handed out
/// for it, and slots only the replaced world had stay, freed the same way,
/// at the end of the free list: an id made after the capture can then never
/// name an agent again, not even one spawned into its slot later. Slots
/// decide no step result (the dense arrays do), so checksums are unchanged.
static void restore_slots(st_world *w, const st_world *c, uint32_t old_count)
{
    for (uint32_t q = 0; q < c->slot_count; q++) {
        st_slot snap = c->slots[q];
        bool live = snap.dense < (uint32_t)c->count && c->agents[snap.dense].alive && c->agents[snap.dense].slot == q;
        if (!live && q < old_count) {
            uint32_t g = next_gen(w->slots[q].generation);
            if (g > snap.generation) snap.generation = g;
        }
        w->slots[q] = snap;
    }
    if (old_count <= c->slot_count) return;
    uint32_t *tail = &w->free_slot;
    while (*tail != UINT32_MAX) tail = &w->slots[*tail].dense;
    for (uint32_t q = c->slot_count; q < old_count; q++) {
        w->slots[q].generation = next_gen(w->slots[q].generation);
        w->slots[q].freed_serial = 0;
        *tail = q;
        tail = &w->slots[q].dense;
    }
    *tail = UINT32_MAX;
    w->slot_count = old_count;
}

bool st_world_restore(st_world *w, const st_snapshot *s)
{
    if (!w || !s || w->in_step) return false;
    const st_world *c = &s->w;
    const int n = c->count;

    // 1. Everything that can fail, before the world changes.
    bool ok = true;
    st_blist **lists = NULL;
    st_body *bodies = NULL;
    st_agent *agents = NULL;
    int32_t *tags = NULL;
    st_vec2 **points = NULL;
    st_obstacle *obstacles = NULL;
    st_wall *walls = NULL;
    uint32_t old_slots = 0;
    if (s->list_count > 0) {
        lists = calloc((size_t)s->list_count, sizeof *lists);
        ok = lists != NULL;
        for (int k = 0; ok && k < s->list_count; k++) {
            size_t bytes = sizeof(st_blist) + (size_t)s->lists[k]->count * sizeof(st_behavior);
            lists[k] = malloc(bytes);
            if (lists[k]) memcpy(lists[k], s->lists[k], bytes);
            else ok = false;
        }
    }
    if (ok && n > w->capacity) {
        bodies = aligned_alloc(ST_BODY_ALIGN, (size_t)n * sizeof *bodies);
        agents = malloc((size_t)n * sizeof *agents);
        tags = malloc((size_t)n * sizeof *tags);
        ok = bodies && agents && tags;
        if (ok) {
            st__advise_huge(bodies, (size_t)n * sizeof *bodies);
            st__advise_huge(agents, (size_t)n * sizeof *agents);
        }
    }
    // The rest grow in place: their old contents matter to nothing once
    // the commit below runs, and a larger block harms nothing if it fails.
    if (ok && c->slot_count > w->slot_cap) { // realloc: restore_slots reads the old generations
        st_slot *q = realloc(w->slots, (size_t)c->slot_count * sizeof *q);
        if (q) {
            w->slots = q;
            w->slot_cap = c->slot_count;
        } else ok = false;
    }
    if (ok && c->order_cap > 0 && w->order_cap < n) {
        uint32_t *o = realloc(w->order, (size_t)n * sizeof *o);
        if (o) w->order = o;
        uint32_t *p = o ? realloc(w->order_pos, (size_t)n * sizeof *p) : NULL;
        if (p) w->order_pos = p;
        if (o && p) w->order_cap = n;
        else ok = false;
    }
    if (ok && c->avoid_def_cap > w->avoid_def_cap) {
        st_avoid_def *q = realloc(w->avoid_defs, (size_t)c->avoid_def_cap * sizeof *q);
        if (q) {
            w->avoid_defs = q;
            w->avoid_def_cap = c->avoid_def_cap;
        } else ok = false;
    }
    if (ok && c->obstacle_count > 0) {
        obstacles = dup_array(c->obstacles, (size_t)c->obstacle_count, sizeof *obstacles);
        points = calloc((size_t)c->obstacle_count, sizeof *points);
        ok = obstacles && points;
        for (int i = 0; ok && i < c->obstacle_count; i++)
            if (c->obstacles[i].points) {
                points[i] = dup_array(c->obstacles[i].points, (size_t)c->obstacles[i].point_count, sizeof(st_vec2));
                ok = points[i] != NULL;
            }
    }
    if (ok && c->wall_count > 0) {
        walls = dup_array(c->walls, (size_t)c->wall_count, sizeof *walls);
        ok = walls != NULL;
    }
    if (!ok) {
        if (lists)
            for (int k = 0; k < s->list_count; k++) free(lists[k]);
        free(lists);
        free(bodies);
        free(agents);
        free(tags);
        if (points)
            for (int i = 0; i < c->obstacle_count; i++) free(points[i]);
        free(points);
        free(obstacles);
        free(walls);
        return false;
    }

    // 2. Commit. The old lists go first, while the old bodies still list them.
    for (int i = 0; i < w->count; i++) st__blist_release(w, w->bodies[i].behaviors);
    st__obstacles_free(w);
    if (bodies) {
        free(w->bodies);
        free(w->agents);
        free(w->tags);
        w->bodies = bodies;
        w->agents = agents;
        w->tags = tags;
        w->capacity = n;
    }

    {
        // The scalars wholesale, then what stays the target's own.
        st_world keep = *w;
        old_slots = keep.slot_count;
        *w = *c;
        w->bodies = keep.bodies;
        w->agents = keep.agents;
        w->tags = keep.tags;
        w->capacity = keep.capacity;
        w->slots = keep.slots;
        w->slot_cap = keep.slot_cap;
        w->order = keep.order;
        w->order_pos = keep.order_pos;
        w->order_cap = keep.order_cap;
        w->grid = keep.grid;
        memcpy(w->tag_grids, keep.tag_grids, sizeof w->tag_grids);
        w->tag_clock = keep.tag_clock;
        w->grid_epoch = keep.grid_epoch + 1; // the tag grids hold the old indices
        w->avoid_defs = keep.avoid_defs;
        w->avoid_def_cap = keep.avoid_def_cap;
        w->avoid = keep.avoid;
        w->scratch = keep.scratch;
        w->scratch_cap = keep.scratch_cap;
        w->last_list = NULL;
        w->threads = keep.threads;
        w->trace_id = keep.trace_id;
        memcpy(w->trace, keep.trace, sizeof w->trace);
        memcpy(w->trace_count, keep.trace_count, sizeof w->trace_count);
        w->trace_cur = keep.trace_cur;
        // ORCA's outline cache is keyed by this epoch: move past both.
        w->obstacle_epoch = (keep.obstacle_epoch > c->obstacle_epoch ? keep.obstacle_epoch : c->obstacle_epoch) + 1;
        w->in_step = false;
        w->removed_in_step = false;
        w->obstacles = obstacles;
        w->obstacle_cap = c->obstacle_count;
        w->walls = walls;
        w->wall_cap = c->wall_count;
    }

    if (n > 0) {
        memcpy(w->bodies, c->bodies, (size_t)n * sizeof(st_body));
        memcpy(w->agents, c->agents, (size_t)n * sizeof(st_agent));
        memcpy(w->tags, c->tags, (size_t)n * sizeof(int32_t));
    }
    for (int i = 0; i < n; i++) {
        int k = s->list_of[i];
        w->bodies[i].behaviors = k >= 0 ? lists[k] : NULL;
    }
    for (int k = 0; k < s->list_count; k++) lists[k]->refs = s->lists[k]->refs;
    restore_slots(w, c, old_slots);
    if (c->order_cap > 0) {
        if (n > 0) {
            memcpy(w->order, c->order, (size_t)n * sizeof(uint32_t));
            memcpy(w->order_pos, c->order_pos, (size_t)n * sizeof(uint32_t));
        }
    } else if (w->order_cap > 0) {
        free(w->order);
        free(w->order_pos);
        w->order = w->order_pos = NULL;
        w->order_cap = 0;
    }
    if (c->avoid_def_cap > 0) memcpy(w->avoid_defs, c->avoid_defs, (size_t)c->avoid_def_cap * sizeof(st_avoid_def));
    for (int i = 0; i < c->obstacle_count; i++) w->obstacles[i].points = points[i];
    free(points);
    free(lists);
    st__moved(w);
    return true;
}
