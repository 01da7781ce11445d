/*
 * world.c — worlds, agents and their handles, paths, randomness, checksum.
 */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE // madvise and MADV_HUGEPAGE, hidden by -std=c11
#endif
#include <assert.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "alloc.h"
#include "world_internal.h"
#include "grid_iter.h" // ST__PREFETCH
#include "avoid.h"
#include "motion.h"
#include "mover.h"
#include "nav_internal.h"
#include "obstacle.h"

/* ------------------------------------------------------------------------ */
/* defaults                                                                 */
/* ------------------------------------------------------------------------ */

st_world_def st_default_world_def(void)
{
    st_world_def d;
    memset(&d, 0, sizeof d);
    d.width = 800.0;
    d.height = 600.0;
    d.edges = ST_EDGES_WRAP;
    d.seed = 1;
    d.dt = 1.0 / 60.0;
    d.cell_size = 50.0;
    d.threads = 1;
    return d;
}

st_agent_def st_default_agent_def(void)
{
    st_agent_def d;
    memset(&d, 0, sizeof d);
    d.heading = st_v2(1.0, 0.0);
    d.max_speed = 150.0;
    d.max_force = 400.0;
    d.mass = 1.0;
    d.radius = 6.0;
    d.tag = ST_TAG_NONE;
    d.color[0] = d.color[1] = d.color[2] = 200;
    d.combine = ST_COMBINE_SUM;
    d.turn_rate = INFINITY;
    return d;
}

/* ------------------------------------------------------------------------ */
/* world                                                                    */
/* ------------------------------------------------------------------------ */

static bool positive_finite(double v) { return st_finite(v) && v > 0.0; }

st_world *st_world_create(const st_world_def *def)
{
    if (!def || !positive_finite(def->width) || !positive_finite(def->height) || !positive_finite(def->dt) ||
        !positive_finite(def->cell_size) || def->threads < 1 || def->capacity < 0 ||
        (def->edges != ST_EDGES_WRAP && def->edges != ST_EDGES_BOUNCE && def->edges != ST_EDGES_NONE))
        return NULL;
    st_world *w = st__calloc(&def->mem, 1, sizeof *w);
    if (!w) return NULL;
    w->mem = def->mem;
    w->grid.mem = def->mem;
    w->width = def->width;
    w->height = def->height;
    w->edges = def->edges;
    w->seed = def->seed;
    w->dt = def->dt;
    w->advance_max = ST_ADVANCE_MAX_DEFAULT;
    w->cell_size = def->cell_size;
    w->threads = def->threads;
    w->resort = true;
    w->contacts = def->contacts;
    w->rng = st_rng_derive(def->seed, 0);
    w->next_serial = 1;
    w->free_slot = ST_NO_SLOT;
    st__moved(w);
    w->trace_id = st_null_agent();
    if (def->capacity > 0) {
        // Reserving up front saves the copies (and the transient double
        // footprint) of growing a million-agent crowd by doubling.
        w->bodies = st__alloc_aligned(&w->mem, ST_BODY_ALIGN, (size_t)def->capacity * sizeof *w->bodies);
        w->agents = st__alloc(&w->mem, (size_t)def->capacity * sizeof *w->agents);
        w->tags = st__alloc(&w->mem, (size_t)def->capacity * sizeof *w->tags);
        w->slots = st__alloc(&w->mem, (size_t)def->capacity * sizeof *w->slots);
        if (!w->bodies || !w->agents || !w->tags || !w->slots) {
            st_world_destroy(w);
            return NULL;
        }
        st__advise_huge(w->bodies, (size_t)def->capacity * sizeof *w->bodies);
        st__advise_huge(w->agents, (size_t)def->capacity * sizeof *w->agents);
        st__advise_huge(w->slots, (size_t)def->capacity * sizeof *w->slots);
        w->capacity = def->capacity;
        w->slot_cap = (uint32_t)def->capacity;
    }
    return w;
}

void st_world_destroy(st_world *w)
{
    if (!w) return;
    for (int i = 0; i < w->count; i++) st__blist_release(w, w->bodies[i].behaviors);
    st__free(w->bodies);
    st__free(w->agents);
    st__free(w->tags);
    st__free(w->slots);
    st__free(w->order);
    st__free(w->order_pos);
    st__grid_free(&w->grid);
    st__tag_grids_free(w);
    st__obstacles_free(w);
    st__ray_index_free(w);
    st__avoid_free(w);
    st__orient_free(w);
    st__requests_free(w);
    st__mover_free(w);
    for (int k = 0; k < w->nav_n; k++) st__nav_orphan(w->navs[k]);
    st__free(w->navs);
    st__free(w->aside);
    st__free(w->scratch);
    st__free(w->near_last);
    st__free(w->gen_floor);
    st__free(w->link_events);
    st__free(w);
}

double st_world_width(const st_world *w) { return w->width; }
double st_world_height(const st_world *w) { return w->height; }
st_edges st_world_edges(const st_world *w) { return w->edges; }
uint64_t st_world_seed(const st_world *w) { return w->seed; }
double st_world_dt(const st_world *w) { return w->dt; }
uint64_t st_world_tick(const st_world *w) { return w->tick; }
double st_world_time(const st_world *w) { return w->time; }
bool st_world_in_step(const st_world *w) { return w->in_step; }
double st_world_step_dt(const st_world *w) { return w->in_step ? w->step_dt : w->dt; }

int st_world_threads(const st_world *w)
{
#ifdef STEER_HAVE_OPENMP
    return w->threads;
#else
    (void)w;
    return 1;
#endif
}

void st_world_set_threads(st_world *w, int n)
{
    assert(n >= 1);
    w->threads = n < 1 ? 1 : n;
}

void st_world_set_cell_size(st_world *w, double cell)
{
    assert(positive_finite(cell));
    if (!positive_finite(cell)) return;
    w->cell_size = cell;
    st__moved(w);
}

double st_world_cell_size(const st_world *w) { return w->cell_size; }

void st_world_set_resort(st_world *w, bool on) { w->resort = on; }

st_vec2 st_world_offset(const st_world *w, st_vec2 from, st_vec2 to) { return st__offset(w, from, to); }

double st_world_distance(const st_world *w, st_vec2 a, st_vec2 b)
{
    return st_v2_len(st_world_offset(w, a, b));
}

double st_world_random(st_world *w) { return st_rng_double(&w->rng); }

int64_t st_world_random_int(st_world *w, int64_t lo, int64_t hi)
{
    assert(lo <= hi);
    if (lo >= hi) return lo;
    uint64_t range = (uint64_t)hi - (uint64_t)lo; // inclusive span minus one
    if (range == UINT64_MAX) return (int64_t)st_rng_next(&w->rng);
    uint64_t n = range + 1;
    // Rejection keeps every value equally likely.
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do r = st_rng_next(&w->rng);
    while (r >= limit);
    return (int64_t)((uint64_t)lo + r % n);
}

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/// Every live agent's state, hashed each on its own (serial first) and
/// summed: the same agents in the same states give the same value in any
/// storage order (big worlds re-sort theirs, see st__reorder).
uint64_t st_world_checksum(const st_world *w)
{
    uint64_t sum = 0;
    for (int i = 0; i < w->count; i++) {
        const st_agent *a = &w->agents[i];
        if (!a->alive) continue;
        const st_body *b = &w->bodies[i];
        double v[8] = {b->pos.x, b->pos.y, b->vel.x, b->vel.y, b->heading.x, b->heading.y,
                       a->wander_target.x, a->wander_target.y};
        uint64_t h = 0xCBF29CE484222325ull;
        h = fnv_bytes(h, &a->serial, sizeof a->serial);
        h = fnv_bytes(h, v, sizeof v);
        h = fnv_bytes(h, &a->rng_count, sizeof a->rng_count);
        // a finaliser, so that sums of similar hashes do not cancel out
        h ^= h >> 30;
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 27;
        h *= 0x94D049BB133111EBull;
        h ^= h >> 31;
        sum += h;
    }
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv_bytes(h, &w->tick, sizeof w->tick);
    return fnv_bytes(h, &sum, sizeof sum);
}

/* ------------------------------------------------------------------------ */
/* agents                                                                   */
/* ------------------------------------------------------------------------ */

bool st__grow(const st_mem *m, void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return true;
    int n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *q = st__realloc(m, *p, (size_t)n * elem);
    if (!q) return false;
    st__advise_huge(q, (size_t)n * elem);
    *p = q;
    *cap = n;
    return true;
}

/// Below this an array spans too few 2 MiB pages to be worth asking.
#define ST_HUGE_MIN ((size_t)8 << 20)

void st__advise_huge(void *p, size_t bytes)
{
    // A step reads the bodies in grid order, i.e. at random: with
    // 4 KiB pages at a million agents nearly every such read also misses the
    // TLB, and the page walks, not the memory, set the pace (a prefetch
    // that needs one waits for it). Huge pages cover the arrays with a few
    // hundred entries. Only whole pages inside the block are advised.
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!p || bytes < ST_HUGE_MIN) return;
    const uintptr_t page = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/// grow for the bodies, which keep their alignment (realloc would not).
static bool grow_bodies(st_world *w, int *cap, int need)
{
    if (need <= *cap) return true;
    int n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    st_body *q = st__alloc_aligned(&w->mem, ST_BODY_ALIGN, (size_t)n * sizeof *q);
    if (!q) return false;
    st__advise_huge(q, (size_t)n * sizeof *q);
    if (w->count > 0) memcpy(q, w->bodies, (size_t)w->count * sizeof *q);
    st__free(w->bodies);
    w->bodies = q;
    *cap = n;
    return true;
}

static bool valid_def(const st_agent_def *d)
{
    return st_v2_finite(d->pos) && st_v2_finite(d->vel) && (!d->has_heading || st_v2_finite(d->heading)) &&
           st_finite(d->max_speed) && d->max_speed >= 0.0 && st_finite(d->max_force) && d->max_force >= 0.0 &&
           positive_finite(d->mass) && st_finite(d->radius) && d->radius >= 0.0 && d->tag >= 0 &&
           (d->combine == ST_COMBINE_SUM || d->combine == ST_COMBINE_PRIORITY) && d->turn_rate >= 0.0;
}

/* ---- spawn order after a reorder (world_internal.h) ---- */

static void order_drop(st_world *w)
{
    st__free(w->order);
    st__free(w->order_pos);
    w->order = w->order_pos = NULL;
    w->order_cap = 0;
}

/// The agent just added at dense index i is last in spawn order.
static void order_append(st_world *w, int i)
{
    if (i >= w->order_cap) {
        int cap = w->order_cap * 2;
        if (cap <= i) cap = i + 1;
        uint32_t *o = st__realloc(&w->mem, w->order, (size_t)cap * sizeof *o);
        if (o) w->order = o;
        uint32_t *p = o ? st__realloc(&w->mem, w->order_pos, (size_t)cap * sizeof *p) : NULL;
        if (p) w->order_pos = p;
        if (!o || !p) {
            order_drop(w); // made again when next needed
            return;
        }
        w->order_cap = cap;
    }
    w->order[i] = (uint32_t)i;
    w->order_pos[i] = (uint32_t)i;
}

typedef struct serial_entry {
    uint64_t serial;
    uint32_t dense;
} serial_entry;

static int by_serial(const void *a, const void *b)
{
    uint64_t x = ((const serial_entry *)a)->serial, y = ((const serial_entry *)b)->serial;
    return (x > y) - (x < y);
}

/// The spawn-order index exists (or dense order is spawn order). False
/// when memory ran out; callers then search by serial.
static bool order_ready(st_world *w)
{
    if (!w->reordered || w->order_cap > 0) return true;
    int n = w->count, cap = n > 0 ? n : 1;
    uint32_t *o = st__alloc(&w->mem, (size_t)cap * sizeof *o), *p = st__alloc(&w->mem, (size_t)cap * sizeof *p);
    serial_entry *e = st__alloc(&w->mem, (size_t)cap * sizeof *e);
    if (!o || !p || !e) {
        st__free(o);
        st__free(p);
        st__free(e);
        return false;
    }
    for (int i = 0; i < n; i++) {
        e[i].serial = w->agents[i].serial;
        e[i].dense = (uint32_t)i;
    }
    qsort(e, (size_t)n, sizeof *e, by_serial);
    for (int k = 0; k < n; k++) {
        o[k] = e[k].dense;
        p[e[k].dense] = (uint32_t)k;
    }
    st__free(e);
    w->order = o;
    w->order_pos = p;
    w->order_cap = cap;
    return true;
}

/// The live agent with the least serial above after_serial (and the tag),
/// by a scan: the fallback when no index could be made.
static st_agent_id next_by_scan(const st_world *w, uint64_t after_serial, int32_t tag)
{
    int best = -1;
    for (int i = 0; i < w->count; i++) {
        const st_agent *a = &w->agents[i];
        if (a->alive && a->serial > after_serial && (tag == ST_TAG_ANY || w->tags[i] == tag) &&
            (best < 0 || a->serial < w->agents[best].serial))
            best = i;
    }
    if (best < 0) return st_null_agent();
    st_agent_id id = {w->agents[best].slot, w->slots[w->agents[best].slot].generation};
    return id;
}

/// The first live agent at or after place p of spawn order (with the tag).
static st_agent_id next_from(const st_world *w, int p, int32_t tag)
{
    for (; p < w->count; p++) {
        int i = w->reordered ? (int)w->order[p] : p;
        const st_agent *a = &w->agents[i];
        if (a->alive && (tag == ST_TAG_ANY || w->tags[i] == tag)) {
            st_agent_id id = {a->slot, w->slots[a->slot].generation};
            return id;
        }
    }
    return st_null_agent();
}

st_agent_id st_world_spawn(st_world *w, const st_agent_def *def)
{
    if (!def || !valid_def(def)) return st_null_agent();
    // Removals without steps would otherwise grow the arrays for ever.
    if (!w->in_step && w->dead > 64 && w->dead > w->count / 2) st__compact(w);

    int cap = w->capacity;
    if (w->count + 1 > cap) {
        int c1 = cap, c2 = cap, c3 = cap;
        bool ok = grow_bodies(w, &c1, w->count + 1) &&
                  st__grow(&w->mem, (void **)&w->agents, &c2, w->count + 1, sizeof(st_agent)) &&
                  st__grow(&w->mem, (void **)&w->tags, &c3, w->count + 1, sizeof(int32_t));
        // All grow by the same rule from the same size, but take the smallest
        // in case only some reallocs succeeded.
        int c = c1 < c2 ? c1 : c2;
        w->capacity = c < c3 ? c : c3;
        if (!ok) return st_null_agent();
    }
    uint32_t slot;
    if (w->free_slot != ST_NO_SLOT) {
        slot = w->free_slot;
        w->free_slot = st__free_next(w->slots[slot].dense);
    } else {
        if (w->slot_count == w->slot_cap) {
            int c = (int)w->slot_cap;
            if (!st__grow(&w->mem, (void **)&w->slots, &c, (int)w->slot_count + 1, sizeof(st_slot))) return st_null_agent();
            w->slot_cap = (uint32_t)c;
        }
        slot = w->slot_count++;
        w->slots[slot].generation = 1;
        w->slots[slot].freed_serial = 0; // defined bytes: snapshots copy the slots whole
    }
    int i = w->count++;
    w->slots[slot].dense = (uint32_t)i;
    if (w->order_cap > 0) order_append(w, i);

    st_body *b = &w->bodies[i];
    b->pos = def->pos;
    b->max_speed = def->max_speed;
    b->max_force = def->max_force;
    b->mass = def->mass;
    b->radius = def->radius;
    b->vel = st_v2_truncate_safe(def->vel, def->max_speed);
    b->accum = st_v2(0.0, 0.0);
    b->force = st_v2(0.0, 0.0);
    b->behaviors = NULL;
    b->combine = (uint8_t)def->combine;
    b->avoid = 0;
    b->orient = 0;
    st_vec2 h = def->has_heading ? st_v2_normalize_safe(def->heading) : st_v2(0.0, 0.0);
    if (h.x == 0.0 && h.y == 0.0) h = st_v2_normalize_safe(b->vel);
    if (h.x == 0.0 && h.y == 0.0) h = st_v2(1.0, 0.0);
    b->heading = h;

    st_agent *a = &w->agents[i];
    memset(a, 0, sizeof *a);
    a->serial = w->next_serial++;
    a->wander_distance = ST_WANDER_DISTANCE;
    a->wander_radius = ST_WANDER_RADIUS;
    a->wander_jitter = ST_WANDER_JITTER;
    // Start the wander target straight ahead so a new wanderer keeps going.
    a->wander_target = st_v2(ST_WANDER_RADIUS, 0.0);
    w->tags[i] = def->tag;
    a->slot = slot;
    a->alive = 1;
    memcpy(a->color, def->color, 3);
    st__radius_spawned(w, b->radius);
    st__moved(w);

    st_agent_id id = {slot, w->slots[slot].generation};
    if (def->turn_rate != INFINITY && !st_agent_set_turn_rate(w, id, def->turn_rate)) {
        st_world_remove(w, id);
        return st_null_agent();
    }
    return id;
}

/// The generation slot id.index takes when id's agent leaves it: the next
/// one, or past the slot's floor when a restore left one (see gen_floor).
static uint32_t next_generation(st_world *w, st_agent_id id)
{
    uint32_t g = st__gen_after(id.generation);
    if (id.index >= w->floor_count) return g;
    uint32_t *floor = &w->gen_floor[id.index];
    if (*floor >= g) g = st__gen_after(*floor);
    *floor = id.generation;
    return g;
}

bool st_world_remove(st_world *w, st_agent_id id)
{
    int i = st__dense(w, id);
    if (i < 0) return false;
    st_agent *a = &w->agents[i];
    a->alive = 0;
    st__radius_dropped(w, w->bodies[i].radius);
    if (w->bodies[i].behaviors && w->bodies[i].behaviors->reads_others) w->others_readers--;
    st__blist_release(w, w->bodies[i].behaviors);
    w->bodies[i].behaviors = NULL;
    st_slot *s = &w->slots[id.index];
    s->freed_serial = a->serial;
    s->generation = next_generation(w, id);
    s->dense = st__free_link(w->free_slot);
    w->free_slot = id.index;
    w->dead++;
    st__moved(w);
    if (w->in_step) w->removed_in_step = true;
    st__hint_clear(w);
    return true;
}

void st__compact(st_world *w)
{
    if (w->dead == 0) return;
    st__hint_clear(w);
    int n = w->count;
    bool indexed = w->reordered && w->order_cap > 0;
    if (indexed) {
        // order_pos becomes old dense index -> new one (UINT32_MAX: dead)...
        uint32_t j = 0;
        for (int i = 0; i < n; i++) w->order_pos[i] = w->agents[i].alive ? j++ : UINT32_MAX;
    }
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (!w->agents[i].alive) continue;
        if (i != j) {
            w->bodies[j] = w->bodies[i];
            w->agents[j] = w->agents[i];
            w->tags[j] = w->tags[i];
            w->slots[w->agents[j].slot].dense = (uint32_t)j;
        }
        j++;
    }
    if (indexed) {
        // ...which renames the live entries of `order`, in their order
        int q = 0;
        for (int p = 0; p < n; p++) {
            uint32_t m = w->order_pos[w->order[p]];
            if (m != UINT32_MAX) w->order[q++] = m;
        }
        for (int k = 0; k < q; k++) w->order_pos[w->order[k]] = (uint32_t)k;
    }
    w->count = j;
    w->dead = 0;
    st__moved(w);
}

/// How many steps apart big worlds re-sort their storage, and how big.
#ifndef ST_REORDER_EVERY
#define ST_REORDER_EVERY 32
#endif
#ifndef ST_REORDER_MIN
#define ST_REORDER_MIN 65536
#endif

bool st__reorder_due(const st_world *w)
{
    return w->resort && w->count >= ST_REORDER_MIN && w->tick % ST_REORDER_EVERY == 0 && w->dead == 0 &&
           w->grid.item_count == w->count;
}

/// How far ahead of its copies a re-sort's walk of a cycle prefetches the
/// records it will move.
#define ST_REORDER_AHEAD 16

static inline void reorder_prefetch(const st_world *w, uint32_t s, bool indexed)
{
    const char *b = (const char *)&w->bodies[s];
    ST__PREFETCH(b);
    ST__PREFETCH(b + ST_BODY_ALIGN);
    ST__PREFETCH(&w->agents[s]);
    ST__PREFETCH((const char *)&w->agents[s] + sizeof(st_agent) - 1);
    ST__PREFETCH(&w->tags[s]);
    if (indexed) ST__PREFETCH(&w->order_pos[s]);
}

void st__reorder(st_world *w)
{
    const int n = w->count;
    st_grid_item *items = w->grid.items;
    if (n == 0 || w->dead != 0 || w->grid.item_count != n) return;
    // Entry k takes the agent the grid lists k-th: a gather, done in place
    // one cycle of the permutation at a time, so no second copy of the
    // arrays is needed. Nearly every agent moves, in a few long cycles, and
    // a cycle's next entry is known only once the one before is read: walked
    // through the grid items that is a chain of cache misses one after
    // another (a million agents took 140 ms more than a step). So the walk
    // reads a compact copy of the permutation (4 bytes an entry, mostly in
    // cache) and prefetches the records ST_REORDER_AHEAD entries ahead of
    // its copies, so that many of their trips to memory overlap.
    uint32_t *from = st__alloc(&w->mem, (size_t)n * sizeof *from);
    if (!from) return; // stays in its present order: only slower
    for (int k = 0; k < n; k++) from[k] = items[k].index;
    const uint32_t placed = UINT32_MAX;
    const bool indexed = w->reordered && w->order_cap > 0;
    for (int start = 0; start < n; start++) {
        if (from[start] == (uint32_t)start || from[start] == placed) continue;
        st_body tb = w->bodies[start];
        st_agent ta = w->agents[start];
        int32_t tt = w->tags[start];
        uint32_t tp = indexed ? w->order_pos[start] : 0;
        uint32_t ahead = (uint32_t)start;
        for (int d = 0; d < ST_REORDER_AHEAD && (ahead = from[ahead]) != (uint32_t)start; d++)
            reorder_prefetch(w, ahead, indexed);
        uint32_t k = (uint32_t)start;
        for (;;) {
            uint32_t s = from[k];
            from[k] = placed;
            if (s == (uint32_t)start) {
                w->bodies[k] = tb;
                w->agents[k] = ta;
                w->tags[k] = tt;
                if (indexed) w->order_pos[k] = tp;
                break;
            }
            w->bodies[k] = w->bodies[s];
            w->agents[k] = w->agents[s];
            w->tags[k] = w->tags[s];
            if (indexed) w->order_pos[k] = w->order_pos[s];
            k = s;
            if (ahead != (uint32_t)start && (ahead = from[ahead]) != (uint32_t)start)
                reorder_prefetch(w, ahead, indexed);
        }
    }
    st__free(from);
    // The handle slots and the grid's indices follow, entry by entry.
    // Every entry names a slot of its own, so the threads share them out.
    uint32_t *lane_index = w->grid.lanes ? w->grid.lanes->index : NULL;
#ifdef STEER_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(w->threads) if (w->threads > 1)
#endif
    for (int k = 0; k < n; k++) {
        w->slots[w->agents[k].slot].dense = (uint32_t)k;
        items[k].index = (uint32_t)k;
        if (lane_index) lane_index[k] = (uint32_t)k;
    }
    if (!w->reordered && w->order_cap > 0) order_drop(w);
    if (indexed)
        for (int k = 0; k < n; k++) w->order[w->order_pos[k]] = (uint32_t)k;
    w->reordered = true;
    st__hint_clear(w);
    w->grid_epoch++;      // tag grids hold the old indices
    w->grid.pre_slices = 0;
    w->grid.pre_cells = 0;
}

bool st_agent_alive(const st_world *w, st_agent_id id) { return st__dense(w, id) >= 0; }

int st_world_count(const st_world *w, int32_t tag)
{
    if (tag == ST_TAG_ANY) return w->count - w->dead;
    int n = 0;
    for (int i = 0; i < w->count; i++)
        if (w->agents[i].alive && w->tags[i] == tag) n++;
    return n;
}

st_agent_id st_world_next(const st_world *cw, st_agent_id after, int32_t tag)
{
    if (st_id_is_null(after)) return st_world_next_serial(cw, 0, tag);
    // The spawn-order index is a cache: making it changes no agent.
    st_world *w = (st_world *)cw;
    int i = st__dense(w, after);
    if (i >= 0) {
        // A live `after` knows its place: scan on from there, no search.
        if (!order_ready(w)) return next_by_scan(w, w->agents[i].serial, tag);
        return next_from(w, w->reordered ? (int)w->order_pos[i] + 1 : i + 1, tag);
    }
    // Just removed (its slot freed once since): the slot remembers where it
    // stood, so removing the current agent while iterating carries on. A
    // slot whose freeing skipped a floor names its last agent in the floor.
    if (after.index < w->slot_count) {
        const st_slot *s = &w->slots[after.index];
        // (An id of a timeline a restore abandoned can equal a floor too,
        // but its slot's generation is then below it.)
        bool last = after.index < w->floor_count && w->gen_floor[after.index] == after.generation &&
                    s->generation > after.generation;
        if (s->generation == st__gen_after(after.generation) || last) return st_world_next_serial(w, s->freed_serial, tag);
    }
    return st_null_agent();
}

st_agent_id st_world_next_serial(const st_world *cw, uint64_t after_serial, int32_t tag)
{
    st_world *w = (st_world *)cw;
    if (!order_ready(w)) return next_by_scan(w, after_serial, tag);
    // Serials increase along spawn order: the dense arrays until a reorder,
    // the index after.
    int lo = 0, hi = w->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int i = w->reordered ? (int)w->order[mid] : mid;
        if (w->agents[i].serial <= after_serial) lo = mid + 1;
        else hi = mid;
    }
    return next_from(w, lo, tag);
}

int st_world_stored_count(const st_world *w) { return w->count; }

st_agent_id st_world_stored(const st_world *w, int k)
{
    if (k < 0 || k >= w->count || !w->agents[k].alive) return st_null_agent();
    st_agent_id id = {w->agents[k].slot, w->slots[w->agents[k].slot].generation};
    return id;
}

uint64_t st_agent_serial(const st_world *w, st_agent_id id)
{
    int i = st__dense(w, id);
    return i < 0 ? 0 : w->agents[i].serial;
}

/* ---- getters ---- */

#define BODY_GET(name, type, expr, zero)                     \
    type st_agent_##name(const st_world *w, st_agent_id id)  \
    {                                                        \
        int i = st__dense(w, id);                            \
        if (i < 0) return zero;                              \
        const st_body *b = &w->bodies[i];                    \
        const st_agent *a = &w->agents[i];                   \
        (void)b;                                             \
        (void)a;                                             \
        return expr;                                         \
    }

static const st_vec2 zero_vec = {0.0, 0.0};
BODY_GET(pos, st_vec2, b->pos, zero_vec)
BODY_GET(vel, st_vec2, b->vel, zero_vec)
BODY_GET(heading, st_vec2, b->heading, zero_vec)
BODY_GET(side, st_vec2, st_v2_perp(b->heading), zero_vec)
// A velocity truncated to a max_speed near DBL_MAX can be a rounding
// longer than DBL_MAX: its length is then reported as DBL_MAX, not inf.
BODY_GET(speed, double, fmin(st_v2_len_safe(b->vel), DBL_MAX), 0.0)
BODY_GET(force, st_vec2, b->force, zero_vec)
BODY_GET(accum, st_vec2, b->accum, zero_vec)
BODY_GET(max_speed, double, b->max_speed, 0.0)
BODY_GET(max_force, double, b->max_force, 0.0)
BODY_GET(mass, double, b->mass, 0.0)
BODY_GET(radius, double, b->radius, 0.0)
BODY_GET(tag, int32_t, w->tags[i], ST_TAG_NONE)
BODY_GET(combine, st_combine, (st_combine)b->combine, ST_COMBINE_SUM)
BODY_GET(wander_distance, double, a->wander_distance, 0.0)
BODY_GET(wander_radius, double, a->wander_radius, 0.0)
BODY_GET(wander_jitter, double, a->wander_jitter, 0.0)
BODY_GET(wander_target, st_vec2, a->wander_target, zero_vec)
BODY_GET(path_index, int, (int)a->path_index, 0)

void st_agent_color(const st_world *w, st_agent_id id, uint8_t rgb[3])
{
    int i = st__dense(w, id);
    if (i < 0) {
        rgb[0] = rgb[1] = rgb[2] = 0;
        return;
    }
    memcpy(rgb, w->agents[i].color, 3);
}

/* ---- setters ---- */

void st_agent_set_pos(st_world *w, st_agent_id id, st_vec2 pos)
{
    int i = st__dense(w, id);
    assert(st_v2_finite(pos));
    if (i < 0 || !st_v2_finite(pos)) return;
    w->bodies[i].pos = pos;
    st__moved(w);
}

void st_agent_set_vel(st_world *w, st_agent_id id, st_vec2 vel)
{
    int i = st__dense(w, id);
    assert(st_v2_finite(vel));
    if (i < 0 || !st_v2_finite(vel)) return;
    st_body *b = &w->bodies[i];
    b->vel = st_v2_truncate_safe(vel, b->max_speed);
    // An agent with a finite turn rate turns toward it over the next steps.
    bool limited = b->orient && w->orients[w->agents[i].slot].turn_rate != INFINITY;
    if (st_v2_len2(b->vel) > 1e-12 && !limited) b->heading = st_v2_normalize_safe(b->vel);
}

#define NUM_SET(name, field, ok)                                    \
    void st_agent_set_##name(st_world *w, st_agent_id id, double v) \
    {                                                               \
        int i = st__dense(w, id);                                   \
        assert(ok);                                                 \
        if (i < 0 || !(ok)) return;                                 \
        w->bodies[i].field = v;                                     \
    }

void st_agent_set_max_speed(st_world *w, st_agent_id id, double v)
{
    int i = st__dense(w, id);
    assert(st_finite(v) && v >= 0.0);
    if (i < 0 || !(st_finite(v) && v >= 0.0)) return;
    st_body *b = &w->bodies[i];
    b->max_speed = v;
    // speed <= max_speed holds at every moment, not only after the next step.
    b->vel = st_v2_truncate_safe(b->vel, v);
}

NUM_SET(max_force, max_force, st_finite(v) && v >= 0.0)
NUM_SET(mass, mass, positive_finite(v))
void st_agent_set_radius(st_world *w, st_agent_id id, double v)
{
    int i = st__dense(w, id);
    assert(st_finite(v) && v >= 0.0);
    if (i < 0 || !(st_finite(v) && v >= 0.0)) return;
    if (v < w->bodies[i].radius) st__radius_dropped(w, w->bodies[i].radius);
    w->bodies[i].radius = v;
    st__radius_spawned(w, v);
}

void st_agent_set_tag(st_world *w, st_agent_id id, int32_t tag)
{
    int i = st__dense(w, id);
    assert(tag >= 0);
    if (i < 0 || tag < 0) return;
    w->tags[i] = tag;
    st__moved(w);
}

void st_agent_set_color(st_world *w, st_agent_id id, const uint8_t rgb[3])
{
    int i = st__dense(w, id);
    if (i < 0) return;
    memcpy(w->agents[i].color, rgb, 3);
}

void st_agent_set_combine(st_world *w, st_agent_id id, st_combine c)
{
    int i = st__dense(w, id);
    assert(c == ST_COMBINE_SUM || c == ST_COMBINE_PRIORITY);
    if (i < 0) return;
    w->bodies[i].combine = (uint8_t)c;
}

void st_agent_set_wander(st_world *w, st_agent_id id, double distance, double radius, double jitter)
{
    int i = st__dense(w, id);
    bool ok = st_finite(distance) && st_finite(radius) && radius >= 0.0 && st_finite(jitter) && jitter >= 0.0;
    assert(ok);
    if (i < 0 || !ok) return;
    st_agent *a = &w->agents[i];
    a->wander_distance = distance;
    a->wander_jitter = jitter;
    if (radius != a->wander_radius) {
        // Keep the target's direction on the resized circle.
        st_vec2 dir = st_v2_normalize(a->wander_target);
        if (dir.x == 0.0 && dir.y == 0.0) dir = st_v2(1.0, 0.0);
        a->wander_target = st_v2_scale(dir, radius);
        a->wander_radius = radius;
    }
}

static bool target_equal(const st_target *a, const st_target *b)
{
    return a->is_agent == b->is_agent &&
           (a->is_agent ? st_id_equal(a->agent, b->agent) : a->point.x == b->point.x && a->point.y == b->point.y);
}

// Field by field: struct padding holds garbage, so memcmp would refuse to
// share identical lists (and reads indeterminate bytes).
static bool behavior_equal(const st_behavior *a, const st_behavior *b)
{
    return a->type == b->type && a->weight == b->weight && target_equal(&a->target, &b->target) &&
           target_equal(&a->target2, &b->target2) && a->radius == b->radius && a->decel == b->decel &&
           a->offset.x == b->offset.x && a->offset.y == b->offset.y && a->path == b->path &&
           a->flock.radius == b->flock.radius && a->flock.fov == b->flock.fov &&
           a->flock.separation == b->flock.separation && a->flock.alignment == b->flock.alignment &&
           a->flock.cohesion == b->flock.cohesion && a->flock.separation_radius == b->flock.separation_radius &&
           a->flock.tag == b->flock.tag && a->field == b->field && a->rect[0] == b->rect[0] &&
           a->rect[1] == b->rect[1] && a->rect[2] == b->rect[2] && a->rect[3] == b->rect[3] &&
           a->path_mode == b->path_mode && a->predict == b->predict && a->ahead == b->ahead && a->zone == b->zone;
}

/// Whether a behaviour reads some other agent's body during the standing
/// pass (see st_blist.reads_others). Neighbour rules read the grid's copies.
static bool reads_others(st_behavior_type t)
{
    switch (t) {
    case ST_WANDER:
    case ST_SEPARATE:
    case ST_ALIGN:
    case ST_COHERE:
    case ST_FLOCK:
    case ST_AVOID_OBSTACLES:
    case ST_AVOID_WALLS:
    case ST_CONTAIN:
    case ST_FOLLOW_PATH:
    case ST_FOLLOW_FLOW: // reads its field, never another body
    case ST_STOP:
    case ST_GRAZE:
        return false;
    default:
        return true;
    }
}

bool st__blist_reads_others(const st_behavior *list, int n)
{
    bool any = false;
    for (int k = 0; k < n; k++) any |= reads_others(list[k].type);
    return any;
}

void st__blist_release(st_world *w, st_blist *l)
{
    if (!l || --l->refs > 0) return;
    if (w->last_list == l) w->last_list = NULL;
    st__free(l);
}

bool st_agent_set_behaviors(st_world *w, st_agent_id id, const st_behavior *list, int n)
{
    int i = st__dense(w, id);
    if (i < 0 || n < 0 || (n > 0 && !list)) return false;
    // face / look_where_going write the agent's orientation record from the
    // threaded pass, which must not allocate: make it now.
    if (st__orient_list_needs(list, n) && !st__orient_ensure(w, i)) return false;
    st_blist *l = NULL;
    if (n > 0) {
        st_blist *last = w->last_list;
        bool same = last && last->count == n;
        for (int k = 0; same && k < n; k++) same = behavior_equal(&last->items[k], &list[k]);
        if (same) {
            l = last;
            l->refs++;
        } else {
            l = st__alloc(&w->mem, sizeof *l + (size_t)n * sizeof(st_behavior));
            if (!l) return false;
            l->refs = 1;
            l->count = n;
            l->reads_others = st__blist_reads_others(list, n);
            memcpy(l->items, list, (size_t)n * sizeof *list);
            w->last_list = l;
        }
    }
    st_body *b = &w->bodies[i];
    w->others_readers += (l && l->reads_others) - (b->behaviors && b->behaviors->reads_others);
    st__blist_release(w, b->behaviors);
    b->behaviors = l;
    return true;
}

int st_agent_behaviors(const st_world *w, st_agent_id id, const st_behavior **list)
{
    int i = st__dense(w, id);
    const st_blist *l = i < 0 ? NULL : w->bodies[i].behaviors;
    if (list) *list = l ? l->items : NULL;
    return l ? l->count : 0;
}

/* ------------------------------------------------------------------------ */
/* paths                                                                    */
/* ------------------------------------------------------------------------ */

st_path *st_path_create(const st_vec2 *points, int n, bool loop, double radius)
{
    return st_path_create_in(NULL, points, n, loop, radius);
}

st_path *st_path_create_in(const st_mem *mem, const st_vec2 *points, int n, bool loop, double radius)
{
    if (!points || n < 1 || !positive_finite(radius)) return NULL;
    for (int i = 0; i < n; i++)
        if (!st_v2_finite(points[i])) return NULL;
    st_path *p = st__alloc(mem, sizeof *p);
    if (!p) return NULL;
    p->points = st__alloc(mem, (size_t)n * sizeof *p->points);
    if (!p->points) {
        st__free(p);
        return NULL;
    }
    memcpy(p->points, points, (size_t)n * sizeof *p->points);
    p->count = n;
    p->loop = loop;
    p->radius = radius;
    p->links = NULL;
    p->mem = mem;
    return p;
}

void st_path_destroy(st_path *p)
{
    if (!p) return;
    st__free(p->points);
    st__free(p->links);
    st__free(p);
}

int st_path_count(const st_path *p) { return p->count; }
st_vec2 st_path_point(const st_path *p, int i)
{
    assert(i >= 0 && i < p->count);
    return p->points[i];
}
bool st_path_loop(const st_path *p) { return p->loop; }
double st_path_radius(const st_path *p) { return p->radius; }

/* ------------------------------------------------------------------------ */
/* tracing                                                                  */
/* ------------------------------------------------------------------------ */

void st_world_set_trace(st_world *w, st_agent_id id)
{
    w->trace_id = id;
    w->trace_count[0] = w->trace_count[1] = 0;
}

int st_world_trace(const st_world *w, const st_trace_entry **entries)
{
    int last = 1 - w->trace_cur;
    if (entries) *entries = w->trace[last];
    return w->trace_count[last];
}
