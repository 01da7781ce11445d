/*
 * orca.h — what the ORCA files share (private to the core): the build's
 * SIMD choices, the half-plane type, the capacities, and the avoidance
 * state a world holds.
 *
 *   orca_line.h    the agent–agent half-plane (one definition, SIMD forms)
 *   orca_solve.c   the linear programs and the obstacle-edge half-planes
 *   orca_gather.c  an agent's neighbours and obstacle edges, nearest first
 *   avoid_pass.c   the pass: every ORCA agent's velocity for the step
 *   avoid.c        the settings, the state and the obstacle outlines
 */
#ifndef STEER_ORCA_H
#define STEER_ORCA_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "world_internal.h"

// SSE2 (every x86-64) for the scan, the ranking and the half-planes; the
// plain C beside it gives the same bits (-DORCA_SSE2=0 builds it there).
#ifndef ORCA_SSE2
#if defined(__SSE2__) && defined(__x86_64__) && !defined(STEER_PORTABLE)
#define ORCA_SSE2 1
#else
#define ORCA_SSE2 0
#endif
#endif

// One agent's pass (orca_agent, with all it calls inlined), the neighbour
// gathering and the linear programs are each built twice, for plain
// x86-64 and for AVX, and the loader picks the one the CPU runs. The
// arithmetic is the same operations either way (no fused multiply-add:
// the build has -ffp-contract=off), so the results are the same bits;
// AVX's three-operand forms only spare the register copies the
// two-operand SSE2 ones need. -DORCA_CLONES=0 builds the plain one alone.
#ifndef ORCA_CLONES
#if ORCA_SSE2 && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define ORCA_CLONES 1
#else
#define ORCA_CLONES 0
#endif
#endif
#if ORCA_CLONES
#define ORCA_PER_CPU __attribute__((target_clones("avx", "default"), flatten))
#else
#define ORCA_PER_CPU
#endif

#if defined(__GNUC__)
#define ST__NOINLINE __attribute__((noinline))
#else
#define ST__NOINLINE
#endif

#define ORCA_EPS 1e-9

/// Obstacle half-planes an agent takes at most (the nearest edges).
#define ORCA_MAX_OBSTACLE_LINES 32
/// Neighbours close enough to touch within the step that get a hard
/// one-step half-plane, at most (the nearest).
#define ORCA_MAX_CLOSE 16
/// Half-planes of one agent at most: obstacles, the close ones, the
/// max_neighbors nearest.
#define ORCA_MAX_LINES (ORCA_MAX_OBSTACLE_LINES + ORCA_MAX_CLOSE + ST_AVOID_MAX_NEIGHBORS_CAP)
_Static_assert(ORCA_MAX_LINES == ST_ORCA_TRACE_LINES, "the trace holds every line of an agent (steer_debug.h)");

/// A half-plane of velocities: those to the left of the line through
/// `point` along the unit `direction`.
typedef st_orca_line line;

/// The 2D cross product, as the half-plane tests use it.
static inline double det(st_vec2 a, st_vec2 b) { return a.x * b.y - a.y * b.x; }

/// One vertex of the obstacle outlines ORCA sees (RVO2's representation):
/// closed polygons counter-clockwise, and every open segment as a
/// two-vertex loop, solid on both sides.
typedef struct overt {
    st_vec2 p;
    st_vec2 dir;   // unit, towards next
    int next, prev;
    bool convex;
} overt;

/// One outline's vertices [first, first + count) and its bounding box.
typedef struct ogroup {
    int first, count;
    st_vec2 lo, hi;
} ogroup;

/// What an agent's neighbours read of it, copied once per pass into one
/// cache line per agent (dense index): the gathering and the half-planes
/// otherwise touch both lines of its body, its record and its settings.
typedef struct orca_peer {
    st_vec2 vel;
    double radius, max_speed, priority;
    uint64_t serial;
    uint32_t layer;       // st__avoid_layer
    // The layers it yields to (shares the avoiding with): its mask when it
    // runs ORCA unlocked, else none (it leaves all of it to the other).
    uint32_t yields;
    uint8_t pad_[8];
} orca_peer;

_Static_assert(sizeof(orca_peer) == 64, "orca_peer is one cache line");

/// An ORCA agent's own settings as its pass needs them, worked out each
/// step beside its peer record (st__avoid_peer reads its settings anyway):
/// the pass then reads neither its agent record nor its settings, which
/// sit in handle order, far apart once storage follows the grid.
/// (Its layer and priority are in its peer record.)
typedef struct orca_self {
    double range, horizon_obstacles;
    double inv_h, inv_ho; // 1 / horizon, 1 / horizon_obstacles
    uint32_t mask;
    int max_neighbors;
} orca_self;

struct st_avoid_state {
    st_mem mem; // the world's budget
    orca_peer *peer;   // [pref_cap], 64-byte aligned
    orca_self *self;   // [pref_cap]
    st_vec2 *pref;     // the velocities the agents' steering asks for (the pass reads them)
    st_vec2 *out;      // the velocities the pass chose (st__avoid_velocity)
    st_vec2 *ref;      // reference velocities of the long-horizon lines (avoid_ref.c)
    bool use_ref;      // this step's lines use them (every agent plain)
    double ref_radius, ref_speed; // the largest radius and max speed (reference_pass)
    uint8_t *flag;     // AV_STUCK, AV_REVISIT
    int pref_cap;
    int stuck;         // agents stuck in the first round
    uint64_t epoch;    // obstacle_epoch the outlines were made at (+1; 0: never)
    overt *verts;
    int vert_count, vert_cap;
    ogroup *groups;
    int group_count, group_cap;
    st_orca_trace trace;
};


/// flag[i] of the pass: agent i found no velocity in its hard half-planes
/// (round one), or must be made again against those that did (round two).
#define AV_STUCK 1u
#define AV_REVISIT 2u

#endif
