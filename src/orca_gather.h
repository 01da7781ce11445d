/*
 * orca_gather.h — an ORCA agent's neighbours and obstacle edges, nearest
 * first (orca_gather.c).
 */
#ifndef STEER_ORCA_GATHER_H
#define STEER_ORCA_GATHER_H

#include "orca.h"

/// Grid items within range an agent holds at once (itself included); when
/// a disc holds more, the farthest that can make neither list are dropped
/// (gather_compact) once fewer than ORCA_CAND_ROOM places are left.
#define ORCA_CAND_MAX 192
#define ORCA_CAND_ROOM 48

/// The grid items within range of one agent, in scan order. Sorting them as
/// they come costs a mispredicted branch or more a candidate; here the scan
/// only appends (no branch on the distance), one pass classifies them, and
/// they are ranked nearest first without a branch on the data (near_select).
typedef struct gather {
    const st_world *w;
    const orca_peer *peer;
    const st_grid_item *items;
    uint32_t self, mask;
    // The nearest `cap` make the neighbour lines; 0: only the close list
    // matters (mark_revisits).
    int cap;
    // Everyone who could touch this agent within the step, whether or not
    // among the nearest `cap`: the same pairs seen from both sides.
    double radius, reach_speed, dt;
    int n;
    _Alignas(16) st_vec2 rel[ORCA_CAND_MAX];
    double d2[ORCA_CAND_MAX];
    int32_t item[ORCA_CAND_MAX];     // grid item
    uint32_t index[ORCA_CAND_MAX];   // dense index (near_classify)
    uint8_t close[ORCA_CAND_MAX];    // could touch within the step (near_classify)
    uint8_t valid[ORCA_CAND_MAX];    // someone to avoid (near_classify)
    _Alignas(16) int32_t key[ORCA_CAND_MAX + 16]; // near_classify; 16 past the last for near_ranks
} gather;

/// What the gathering found: the positions of the neighbours in range,
/// nearest first (ties by serial; the first n_best of them make the
/// neighbour lines), and of the nearest ORCA_MAX_CLOSE that could touch
/// within the step.
typedef struct near_set {
    int n_valid, n_best, n_close;
    uint8_t ord[ORCA_CAND_MAX];
    uint8_t close[ORCA_CAND_MAX]; // the first n_close of them
} near_set;

/// An obstacle edge near an agent: its first vertex, and that vertex's
/// offset from the agent.
typedef struct near_edge {
    double d2;
    int vert;
    st_vec2 rel1;
} near_edge;

/// Agent i's neighbours within `range` on the layers `mask` takes: the
/// nearest `cap` (0: only the close list) and the nearest ORCA_MAX_CLOSE
/// that could touch it within the step `dt`, in *s; g holds what they
/// index (g->index, g->rel).
void orca_gather_agents(gather *g, const st_world *w, int i, uint32_t mask, int cap, double range, double dt,
                        near_set *s);

/// The nearest ORCA_MAX_OBSTACLE_LINES obstacle edges within `range` of
/// pos that face it, nearest first, in out; returns how many.
int orca_gather_edges(const st_world *w, const struct st_avoid_state *s, st_vec2 pos, double range, near_edge *out);

#endif
