/*
 * path_links.c — the links of a path (segments that take an off-mesh link
 * of a navgrid) and the events of agents that reach them in a step.
 *
 * A follower that reaches a link's start records an event; the host reads
 * them after the step (st_world_link_event) and may move the agent across
 * itself (the Lua bindings call brain.traverse_link). The events are taken
 * from any thread of the step's team, so each takes a slot with an atomic
 * counter, and the step's end sorts them into the agents' spawn order: the
 * same events in the same order on 1 or 2 threads. The room for them (twice
 * the agents) is made at a step's begin once any follower has wanted it,
 * never inside the step: the first followers to reach a link wait there one
 * step, all of them alike.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "world_internal.h"
#include "behavior_internal.h"

int st_path_link(const st_path *p, int i)
{
    if (!p || i < 0 || i >= p->count - 1) return 0;
    return st__path_link(p, i);
}

bool st_path_set_link(st_path *p, int i, int id)
{
    if (!p || p->loop || i < 0 || i >= p->count - 1 || id < 0) return false;
    if (!p->links) {
        if (id == 0) return true;
        p->links = st__calloc(p->mem, (size_t)p->count, sizeof *p->links);
        if (!p->links) return false;
    }
    p->links[i] = id;
    return true;
}

bool st__link_reached(const st_world *w, int i, const st_path *p, int seg)
{
    return st__link_event(w, i, p->links[seg], seg, p);
}

bool st__link_event(const st_world *w, int i, int link, int seg, const st_path *p)
{
    if (!w->in_step) return false;
    // The world is the caller's, never const in itself: the behaviours only
    // get it read-only. The events are this step's record.
    st_world *mw = (st_world *)w;
    int k;
#pragma omp atomic capture
    k = mw->link_event_count++;
    if (k >= w->link_event_cap) {
#pragma omp atomic write
        mw->link_event_want = true;
        return false;
    }
    const st_agent *a = &w->agents[i];
    mw->link_events[k] = (st_link_event){st__id_of(w, i), link, seg, p, a->serial};
    return true;
}

void st__link_events_begin(st_world *w)
{
    w->link_event_count = 0;
    if (!w->link_event_want && (w->link_event_cap == 0 || w->link_event_cap >= 2 * w->count)) return;
    int cap = 2 * w->count + 16;
    st_link_event *e = st__realloc(&w->mem, w->link_events, (size_t)cap * sizeof *e);
    if (!e) return; // the followers keep waiting at their links; the next step tries again
    w->link_events = e;
    w->link_event_cap = cap;
    w->link_event_want = false;
}

static int event_order(const void *pa, const void *pb)
{
    const st_link_event *a = pa, *b = pb;
    if (a->serial != b->serial) return a->serial < b->serial ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

void st__link_events_end(st_world *w)
{
    if (w->link_event_count > w->link_event_cap) w->link_event_count = w->link_event_cap;
    if (w->link_event_count > 1)
        qsort(w->link_events, (size_t)w->link_event_count, sizeof *w->link_events, event_order);
}

int st_world_link_event_count(const st_world *w) { return w->in_step ? 0 : w->link_event_count; }

st_link_event st_world_link_event(const st_world *w, int k)
{
    if (w->in_step || k < 0 || k >= w->link_event_count) return (st_link_event){st_null_agent(), 0, 0, NULL, 0};
    return w->link_events[k];
}
