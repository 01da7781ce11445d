/*
 * request.c — behaviours asked for between steps, kept and finished by the
 * step that applies them (see request.h for why).
 *
 * Inside a step a behaviour call computes its force with the step's dt and
 * adds it at once. Outside one, st_agent_steer and its kin come here: the
 * call is computed once at the world's dt for the value it returns, with
 * everything it would change (the agent's wander circle, draw count and path
 * progress) put back, and kept. st_world_step_begin then computes every kept
 * call again with the step's dt, in the order they were made, before any
 * brain runs: the same forces, the same random draws and the same progress
 * as if each call had been made first thing inside that step. Only an agent's
 * own calls need keeping in order (a call changes no other agent), and the
 * step finishes them on one thread, so the result is the same on any number
 * of threads.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "request.h"
#include "world_internal.h"
#include "behavior_internal.h"
#include "motion.h"

static const st_vec2 ZERO = {0.0, 0.0};

bool st__request_push(st_world *w, const st__request *r, const st_agent_id *ids, int n)
{
    st__requests *q = &w->requests;
    if (q->count >= ST__REQUESTS_MAX || n < 0 || n > ST__REQUESTS_MAX - q->id_count) return false;
    if (!st__grow(&w->mem, (void **)&q->items, &q->cap, q->count + 1, sizeof *q->items)) return false;
    if (n > 0) {
        if (!st__grow(&w->mem, (void **)&q->ids, &q->id_cap, q->id_count + n, sizeof *q->ids)) return false;
        memcpy(q->ids + q->id_count, ids, (size_t)n * sizeof *ids);
    }
    st__request *slot = &q->items[q->count++];
    *slot = *r;
    slot->list_at = q->id_count;
    slot->list_n = n;
    q->id_count += n;
    return true;
}

/// Request r's force (a list rule's over ids) for agent i at the dt st_world_step_dt gives now, and
/// the behaviour type it is traced as. Advances the agent's own state as
/// the call does.
static st_vec2 request_force(st_world *w, int i, const st__request *r, const st_agent_id *ids,
                             st_behavior_type *type)
{
    *type = r->bh.type;
    switch (r->kind) {
    case ST__REQ_BEHAVIOR: return st__force_of(w, i, &r->bh);
    case ST__REQ_APPLY: *type = ST_BEHAVIOR_COUNT; return r->bh.offset;
    case ST__REQ_LIST: return st__list_force(w, i, ids, r->list_n, r->bh.type);
    case ST__REQ_SLOT:
        *type = ST_ARRIVE;
        return st__formation_slot_force(w, i, r->bh.target.point, r->bh.offset, r->bh.radius);
    }
    return ZERO;
}

st_vec2 st__request_preview(st_world *w, int i, const st__request *r, const st_agent_id *ids)
{
    st_agent saved = w->agents[i];
    st_vec2 f;
    st_behavior_type type;
    if (w->bodies[i].orient) {
        st_orient o = w->orients[saved.slot];
        f = request_force(w, i, r, ids, &type);
        w->orients[saved.slot] = o;
    } else {
        f = request_force(w, i, r, ids, &type);
    }
    w->agents[i] = saved;
    return f;
}

void st__requests_finish(st_world *w)
{
    st__requests *q = &w->requests;
    for (int k = 0; k < q->count; k++) {
        const st__request *r = &q->items[k];
        int i = st__dense(w, r->id);
        if (i < 0) continue;
        st_behavior_type type;
        // No list request, no id block at all (q->ids may be NULL).
        const st_agent_id *ids = r->list_n > 0 ? q->ids + r->list_at : NULL;
        st_vec2 f = request_force(w, i, r, ids, &type);
        st__accumulate(w, i, f, r->bh.weight, type);
    }
    q->count = 0;
    q->id_count = 0;
}

void st__requests_clear(st_world *w)
{
    w->requests.count = 0;
    w->requests.id_count = 0;
}

void st__requests_free(st_world *w)
{
    st__free(w->requests.items);
    st__free(w->requests.ids);
    memset(&w->requests, 0, sizeof w->requests);
}

int st_world_requests(const st_world *w) { return w ? w->requests.count : 0; }
