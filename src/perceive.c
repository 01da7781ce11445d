/*
 * perceive.c — what an agent senses now, and what it remembers.
 *
 * Sight: the agents within range and inside the view cone about the
 * perceiver's heading (st_world_query: nearest first, ties in spawn
 * order), each then tested for line of sight with st_world_raycast against
 * obstacles and walls: a clear ray to the target's centre, or to either
 * side of its disc (0.9 of its radius across the line of sight), sees it.
 * So a target behind a wall is not seen and one standing against a wall,
 * in the open, is. Rays run in plain coordinates: in a wrap world, a
 * target seen across an edge is tested along the straight segment.
 *
 * Hearing: noises (st_perception_noise) live in a ring of ST_NOISE_SLOTS
 * for ST_NOISE_TICKS ticks. A perceiver hears a noise once: those made
 * since the last one it heard, whose circle its hearing circle reaches
 * (distance <= noise radius + hearing range), in the order made.
 *
 * Memory: each perceiver (by handle slot) keeps ST_MEMORY_SLOTS memories,
 * one per target: where and when it was last sensed and how. Confidence
 * falls linearly from 1 when sensed to 0 after `span` seconds of world
 * time; a faded memory, or one of a removed agent, is forgotten. A new
 * memory with every slot taken replaces the weakest (lowest confidence,
 * then oldest, then the target's spawn order), so the choice never depends
 * on where a memory sits. Records are made by st_perception_reserve,
 * outside steps: perceiving never allocates.
 */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "world_internal.h"

typedef struct perceiver {
    st_agent_id owner;      /* the agent whose record this is (null: unused) */
    uint64_t heard;         /* the last noise seq it heard */
    int n;
    st_memory mem[ST_MEMORY_SLOTS];
} perceiver;

struct st_perception {
    perceiver *recs;        /* by handle slot */
    int nrecs;
    st_noise noises[ST_NOISE_SLOTS]; /* ring: noise k at (first + k) % SLOTS */
    int first, nnoises;
    uint64_t next_noise;
};

int st_world_slot_count(const st_world *w) { return (int)w->slot_count; }

st_senses st_senses_default(void)
{
    st_senses s;
    s.sight_range = 0.0;
    s.fov = 2.0 * ST_PI;
    s.hearing_range = 0.0;
    s.memory = ST_MEMORY_DEFAULT;
    s.tag = ST_TAG_ANY;
    return s;
}

st_perception *st_perception_create(void)
{
    st_perception *p = (st_perception *)st__calloc(NULL, 1, sizeof *p);
    if (p != NULL)
        p->next_noise = 1;
    return p;
}

void st_perception_destroy(st_perception *p)
{
    if (p == NULL)
        return;
    st__free(p->recs);
    st__free(p);
}

bool st_perception_reserve(st_perception *p, int slots)
{
    if (slots <= p->nrecs)
        return true;
    int cap = p->nrecs ? p->nrecs : 64;
    while (cap < slots)
        cap *= 2;
    perceiver *r = (perceiver *)st__realloc(NULL, p->recs, (size_t)cap * sizeof *r);
    if (r == NULL)
        return false;
    memset(r + p->nrecs, 0, (size_t)(cap - p->nrecs) * sizeof *r);
    p->recs = r;
    p->nrecs = cap;
    return true;
}

int st_perception_slots(const st_perception *p) { return p->nrecs; }

/// who's record, made fresh when its slot last served another agent; NULL
/// outside the reserved slots.
static perceiver *record(st_perception *p, st_agent_id who)
{
    if (st_id_is_null(who) || (int)who.index >= p->nrecs)
        return NULL;
    perceiver *r = &p->recs[who.index];
    if (!st_id_equal(r->owner, who)) {
        memset(r, 0, sizeof *r);
        r->owner = who;
    }
    return r;
}

double st_memory_confidence(const st_memory *m, double now)
{
    double c = 1.0 - (now - m->time) / m->span;
    return c < 0.0 ? 0.0 : (c > 1.0 ? 1.0 : c);
}

/// Drops memories of removed agents and faded ones, keeping the others' order.
static void forget_faded(perceiver *r, const st_world *w)
{
    int j = 0;
    for (int i = 0; i < r->n; i++)
        if (st_agent_alive(w, r->mem[i].target) && st_memory_confidence(&r->mem[i], w->time) > 0.0)
            r->mem[j++] = r->mem[i];
    r->n = j;
}

/// Whether memory a is weaker than b at time now (the one to replace).
static bool weaker(const st_world *w, const st_memory *a, const st_memory *b, double now)
{
    double ca = st_memory_confidence(a, now), cb = st_memory_confidence(b, now);
    if (ca != cb) return ca < cb;
    if (a->tick != b->tick) return a->tick < b->tick;
    return st_agent_serial(w, a->target) > st_agent_serial(w, b->target);
}

/// Records that r's owner sensed target at pos now.
static void remember(perceiver *r, const st_world *w, st_agent_id target, st_vec2 pos, double span, int sense)
{
    st_memory *m = NULL;
    for (int i = 0; i < r->n && m == NULL; i++)
        if (st_id_equal(r->mem[i].target, target))
            m = &r->mem[i];
    if (m != NULL && m->tick == w->tick)
        sense |= m->sense; /* seen and heard in one tick */
    if (m == NULL && r->n < ST_MEMORY_SLOTS)
        m = &r->mem[r->n++];
    if (m == NULL) {
        m = &r->mem[0];
        for (int i = 1; i < r->n; i++)
            if (weaker(w, &r->mem[i], m, w->time))
                m = &r->mem[i];
    }
    m->target = target;
    m->pos = pos;
    m->time = w->time;
    m->tick = w->tick;
    m->span = span;
    m->sense = sense;
}

/// Line of sight from `from` to the disc (c, rad): a clear ray to its
/// centre or to either side of it.
static bool in_sight(const st_world *w, st_vec2 from, st_vec2 c, double rad)
{
    st_raycast_opts o = st_raycast_default();
    if (!st_world_raycast(w, from, c, &o, NULL))
        return true;
    st_vec2 d = st_v2_sub(c, from);
    double len = st_v2_len(d);
    if (!(len > 0.0) || !(rad > 0.0))
        return false;
    st_vec2 side = st_v2_scale(st_v2(-d.y, d.x), 0.9 * rad / len);
    return !st_world_raycast(w, from, st_v2_add(c, side), &o, NULL)
        || !st_world_raycast(w, from, st_v2_sub(c, side), &o, NULL);
}

static int see(perceiver *r, st_world *w, st_agent_id who, const st_senses *s, st_percept *out, int cap,
               st_agent_id *scratch, int cap_scratch)
{
    st_vec2 from = st_agent_pos(w, who);
    st_query q = st_default_query(from, s->sight_range);
    q.tag = s->tag;
    q.exclude = who;
    q.fov = s->fov;
    q.heading = st_agent_heading(w, who);
    int n = st_world_query(w, &q, scratch, NULL, cap_scratch);
    if (n > cap_scratch)
        n = cap_scratch;
    int found = 0;
    for (int i = 0; i < n; i++) {
        st_vec2 c = st_agent_pos(w, scratch[i]);
        if (!in_sight(w, from, c, st_agent_radius(w, scratch[i])))
            continue;
        if (found < cap) {
            st_percept *e = &out[found];
            e->agent = scratch[i];
            e->pos = c;
            e->distance = st_v2_dist(c, from);
            e->sense = ST_SENSE_SEEN;
            e->noise = 0;
            remember(r, w, scratch[i], c, s->memory, ST_SENSE_SEEN);
        }
        found++;
    }
    return found;
}

static int hear(perceiver *r, st_perception *p, st_world *w, st_agent_id who, const st_senses *s, st_percept *out,
                int cap)
{
    st_vec2 at = st_agent_pos(w, who);
    int found = 0;
    for (int k = 0; k < p->nnoises; k++) {
        const st_noise *nz = &p->noises[(p->first + k) % ST_NOISE_SLOTS];
        if (nz->seq <= r->heard || w->tick - nz->tick >= ST_NOISE_TICKS || st_id_equal(nz->source, who))
            continue;
        double d = st_v2_dist(nz->pos, at);
        if (!(d <= nz->radius + s->hearing_range))
            continue;
        bool src = st_agent_alive(w, nz->source);
        if (found < cap) {
            st_percept *e = &out[found];
            e->agent = src ? nz->source : st_null_agent();
            e->pos = nz->pos;
            e->distance = d;
            e->sense = ST_SENSE_HEARD;
            e->noise = nz->seq;
            if (src)
                remember(r, w, nz->source, nz->pos, s->memory, ST_SENSE_HEARD);
        }
        found++;
    }
    if (p->nnoises > 0)
        r->heard = p->noises[(p->first + p->nnoises - 1) % ST_NOISE_SLOTS].seq;
    return found;
}

int st_perceive(st_perception *p, st_world *w, st_agent_id who, const st_senses *s, st_percept *out, int cap,
                st_agent_id *scratch, int cap_scratch)
{
    if (!st_agent_alive(w, who))
        return -1;
    perceiver *r = record(p, who);
    if (r == NULL)
        return -1;
    forget_faded(r, w);
    int n = 0;
    if (s->sight_range > 0.0)
        n = see(r, w, who, s, out, cap, scratch, cap_scratch);
    if (s->hearing_range > 0.0) {
        int room = cap > n ? cap - n : 0;
        n += hear(r, p, w, who, s, out + (cap > n ? n : cap), room);
    }
    return n;
}

/// Whether memory a goes before b in a listing: strongest, then most recent,
/// then the target's spawn order.
static bool listed_before(const st_world *w, const st_memory *a, const st_memory *b)
{
    double ca = st_memory_confidence(a, w->time), cb = st_memory_confidence(b, w->time);
    if (ca != cb) return ca > cb;
    if (a->tick != b->tick) return a->tick > b->tick;
    return st_agent_serial(w, a->target) < st_agent_serial(w, b->target);
}

int st_perception_memories(const st_perception *p, const st_world *w, st_agent_id who, st_memory *out, int cap)
{
    if (st_id_is_null(who) || (int)who.index >= p->nrecs || !st_id_equal(p->recs[who.index].owner, who))
        return 0;
    const perceiver *r = &p->recs[who.index];
    int n = 0;
    for (int i = 0; i < r->n && n < cap; i++) {
        const st_memory *m = &r->mem[i];
        if (!st_agent_alive(w, m->target) || st_memory_confidence(m, w->time) <= 0.0)
            continue;
        int j = n++;
        while (j > 0 && listed_before(w, m, &out[j - 1])) { /* insertion sort: at most ST_MEMORY_SLOTS */
            out[j] = out[j - 1];
            j--;
        }
        out[j] = *m;
    }
    return n;
}

void st_perception_forget(st_perception *p, st_agent_id who, st_agent_id target)
{
    if (st_id_is_null(who) || (int)who.index >= p->nrecs || !st_id_equal(p->recs[who.index].owner, who))
        return;
    perceiver *r = &p->recs[who.index];
    int j = 0;
    for (int i = 0; i < r->n; i++)
        if (!st_id_is_null(target) && !st_id_equal(r->mem[i].target, target))
            r->mem[j++] = r->mem[i];
    r->n = j;
}

bool st_perception_put_memory(st_perception *p, st_agent_id who, const st_memory *m)
{
    perceiver *r = record(p, who);
    if (r == NULL)
        return false;
    for (int i = 0; i < r->n; i++)
        if (st_id_equal(r->mem[i].target, m->target)) {
            r->mem[i] = *m;
            return true;
        }
    if (r->n == ST_MEMORY_SLOTS)
        return false;
    r->mem[r->n++] = *m;
    return true;
}

uint64_t st_perception_heard(const st_perception *p, st_agent_id who)
{
    if (st_id_is_null(who) || (int)who.index >= p->nrecs || !st_id_equal(p->recs[who.index].owner, who))
        return 0;
    return p->recs[who.index].heard;
}

void st_perception_set_heard(st_perception *p, st_agent_id who, uint64_t seq)
{
    perceiver *r = record(p, who);
    if (r != NULL)
        r->heard = seq;
}

uint64_t st_perception_noise(st_perception *p, const st_world *w, st_vec2 pos, double radius, st_agent_id source)
{
    st_noise n;
    n.seq = p->next_noise++;
    n.tick = w->tick;
    n.pos = pos;
    n.radius = radius;
    n.source = source;
    st_perception_put_noise(p, n);
    return n.seq;
}

void st_perception_put_noise(st_perception *p, st_noise n)
{
    if (p->nnoises == ST_NOISE_SLOTS) {
        p->first = (p->first + 1) % ST_NOISE_SLOTS;
        p->nnoises--;
    }
    p->noises[(p->first + p->nnoises) % ST_NOISE_SLOTS] = n;
    p->nnoises++;
    if (n.seq >= p->next_noise)
        p->next_noise = n.seq + 1;
}

int st_perception_noise_count(const st_perception *p) { return p->nnoises; }

st_noise st_perception_noise_at(const st_perception *p, int i)
{
    return p->noises[(p->first + i) % ST_NOISE_SLOTS];
}

uint64_t st_perception_next_noise(const st_perception *p) { return p->next_noise; }

void st_perception_reset(st_perception *p, uint64_t next_noise)
{
    if (p->recs != NULL)
        memset(p->recs, 0, (size_t)p->nrecs * sizeof *p->recs);
    p->first = p->nnoises = 0;
    p->next_noise = next_noise >= 1 ? next_noise : 1;
}
