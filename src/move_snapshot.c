/*
 * move_snapshot.c — the mover's state in snapshots: every order, route,
 * group and slot, and the path queue, copied whole.
 *
 * The search under way at the queue's head is not copied (its state lives
 * in the grid's buffers): the copy keeps how much work it had taken, and
 * the first step after a restore runs the search again to that point
 * without counting it (nav_job.c's searches are deterministic), so the
 * steps after a restore plan exactly as the steps after the capture did.
 * Orders name navgrids, which are not part of the world: they must outlive
 * the snapshot, and a restore into another world drops the orders (their
 * grids read the other world).
 */
#include <string.h>

#include "alloc.h"
#include "move.h"
#include "nav_internal.h"
#include "mover.h"

/// A copy of n elements (NULL for none); false when memory runs out.
static bool dup(const st_mem *mem, void **out, const void *src, size_t n, size_t elem)
{
    *out = NULL;
    if (n == 0 || !src) return true;
    *out = st__alloc(mem, n * elem);
    if (!*out) return false;
    memcpy(*out, src, n * elem);
    return true;
}

void st__mover_destroy(st_mover *m)
{
    if (!m) return;
    for (int i = 0; i < m->n; i++) st__free(m->e[i].route), st__free(m->e[i].links);
    for (int i = 0; i < m->job_n; i++) st_nav_job_destroy(m->jobs[i].job);
    mv__groups_free(m);
    st__free(m->e);
    st__free(m->by_slot);
    st__free(m->q);
    st__free(m->jobs);
    st__free(m->events);
    st__free(m);
}

static bool clone_entries(st_mover *c, const st_mover *m, const st_mem *mem)
{
    if (!dup(mem, (void **)&c->e, m->e, (size_t)m->n, sizeof *m->e)) return false;
    c->cap = m->n;
    for (int i = 0; i < m->n; i++) c->e[i].route = NULL, c->e[i].links = NULL, c->e[i].cap = 0;
    for (int i = 0; i < m->n; i++) {
        const mv_entry *e = &m->e[i];
        if (!dup(mem, (void **)&c->e[i].route, e->route, (size_t)e->n, sizeof *e->route)) return false;
        c->e[i].cap = e->n;
        // The links have room for the points (mv__set_route keeps them so).
        if (e->linked && !dup(mem, (void **)&c->e[i].links, e->links, (size_t)e->n, sizeof *e->links)) return false;
        c->e[i].linked = e->linked && c->e[i].links != NULL;
    }
    return true;
}

static bool clone_groups(st_mover *c, const st_mover *m, const st_mem *mem)
{
    if (!dup(mem, (void **)&c->groups, m->groups, (size_t)m->group_n, sizeof *m->groups)) return false;
    c->group_cap = m->group_n;
    for (int k = 0; k < m->group_n; k++)
        c->groups[k].slots = NULL, c->groups[k].taken = NULL, c->groups[k].holder = NULL, c->groups[k].held = NULL;
    for (int k = 0; k < m->group_n; k++) {
        mv_group *g = &c->groups[k];
        const mv_group *o = &m->groups[k];
        g->slot_cap = o->slot_n;
        if (!dup(mem, (void **)&g->slots, o->slots, (size_t)o->slot_n, sizeof *o->slots) ||
            !dup(mem, (void **)&g->taken, o->taken, (size_t)o->slot_n, sizeof *o->taken) ||
            !dup(mem, (void **)&g->holder, o->holder, (size_t)o->slot_n, sizeof *o->holder))
            return false;
        int held = 0; // the routes it holds while it considers splitting
        for (int j = 0; j < MV_PARTS; j++) held += o->held_n[j];
        g->held_cap = held;
        if (!dup(mem, (void **)&g->held, o->held, (size_t)held, sizeof *o->held)) return false;
    }
    return true;
}

st_mover *st__mover_clone(const st_mover *m, const st_mem *mem, bool *ok)
{
    *ok = true;
    if (!m) return NULL;
    st_mover *c = st__calloc(mem, 1, sizeof *c);
    if (!c) {
        *ok = false;
        return NULL;
    }
    *c = *m;
    c->e = NULL;
    c->by_slot = NULL;
    c->q = NULL;
    c->jobs = NULL;
    c->job_n = c->job_cap = 0;
    c->groups = NULL;
    c->group_n = c->group_cap = 0;
    c->events = NULL;
    c->event_n = c->event_cap = 0;
    c->n = c->cap = 0;
    c->slot_cap = 0;
    c->qn = c->qcap = c->qhead = 0;
    // The queue in order, from its head.
    bool good = clone_entries(c, m, mem);
    c->n = good ? m->n : 0;
    good = good && dup(mem, (void **)&c->by_slot, m->by_slot, (size_t)m->slot_cap, sizeof *m->by_slot);
    c->slot_cap = good ? m->slot_cap : 0;
    if (good && m->qn > 0 && (c->q = st__alloc(mem, (size_t)m->qn * sizeof *c->q)) != NULL) {
        for (int k = 0; k < m->qn; k++) c->q[k] = m->q[(m->qhead + k) % m->qcap];
        c->qn = c->qcap = m->qn;
    }
    good = good && (m->qn == 0 || c->q);
    good = good && clone_groups(c, m, mem);
    c->group_n = good ? m->group_n : c->group_n;
    // The head's search, if under way, is taken again to where it was.
    c->replay = m->q_started;
    if (!good) {
        st__mover_destroy(c);
        *ok = false;
        return NULL;
    }
    return c;
}

bool st__mover_orders_in(const st_mover *m, const st_world *w)
{
    if (!m) return true;
    for (int k = 0; k < m->n; k++)
        if (m->e[k].live && m->e[k].def.nav && m->e[k].def.nav->w != w) return false;
    for (int k = 0; k < m->group_n; k++)
        if (m->groups[k].handle && m->groups[k].nav && m->groups[k].nav->w != w) return false;
    return true;
}

int st__mover_orders(const st_mover *m, st_agent_id *first)
{
    int n = 0;
    for (int k = 0; m && k < m->n; k++) {
        if (!m->e[k].live) continue;
        if (n++ == 0 && first) *first = m->e[k].id;
    }
    return n;
}

size_t st__mover_memory(const st_mover *m)
{
    if (!m) return 0;
    size_t b = sizeof *m + (size_t)m->n * sizeof *m->e + (size_t)m->slot_cap * sizeof *m->by_slot +
               (size_t)m->qn * sizeof *m->q + (size_t)m->group_n * sizeof *m->groups;
    for (int k = 0; k < m->n; k++)
        b += (size_t)m->e[k].n * (sizeof *m->e[k].route + (m->e[k].linked ? sizeof *m->e[k].links : 0));
    for (int k = 0; k < m->group_n; k++) {
        b += (size_t)m->groups[k].slot_n * (sizeof(st_vec2) + 1 + sizeof(int32_t));
        for (int j = 0; j < MV_PARTS; j++) b += (size_t)m->groups[k].held_n[j] * sizeof(st_vec2);
    }
    return b;
}
