/*
 * request.h — force requests: behaviours asked for between steps, finished
 * by the step that applies them (request.c).
 *
 * A velocity-matching behaviour's force depends on the step's dt (it is the
 * force that reaches the desired velocity within the step). A behaviour
 * called outside a step cannot know the dt of the step that will apply it,
 * so the call is kept as a request and computed again at the start of that
 * step, with its dt, in call order: exactly what the same call made inside
 * that step would give. The call itself returns a preview at the world's
 * dt that changes nothing (wander's circle, path progress stay as they
 * were: the step moves them).
 */
#ifndef STEER_REQUEST_H
#define STEER_REQUEST_H

#include "steer.h"

typedef enum st__request_kind {
    ST__REQ_BEHAVIOR, ///< st_agent_steer: bh
    ST__REQ_APPLY,    ///< st_agent_apply: force in bh.offset, bh.weight
    ST__REQ_LIST,     ///< separate/align/cohere over a list: bh.type, ids in the list arena
    ST__REQ_SLOT,     ///< a formation slot: bh.target.point, anchor velocity bh.offset, bh.radius
} st__request_kind;

typedef struct st__request {
    st_agent_id id;
    st__request_kind kind;
    int list_at, list_n; // ST__REQ_LIST: ids[list_at .. list_at + list_n)
    st_behavior bh;
} st__request;

typedef struct st__requests {
    st__request *items;
    int count, cap;
    st_agent_id *ids;
    int id_count, id_cap;
} st__requests;

#define ST__REQUESTS_MAX ST_WORLD_REQUESTS_MAX

struct st_world;
/// Keeps a request (and, for a list rule, its n ids). False when memory
/// runs out or ST__REQUESTS_MAX are pending; nothing is kept then.
bool st__request_push(struct st_world *w, const st__request *r, const st_agent_id *ids, int n);
/// The start of a step (in_step set, grid built, trace cleared): every
/// pending request computed with the step's dt and accumulated, in call
/// order; requests of agents removed since are dropped.
void st__requests_finish(struct st_world *w);
/// Drops every pending request (a restore).
void st__requests_clear(struct st_world *w);
void st__requests_free(struct st_world *w);

#endif
