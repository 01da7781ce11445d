/*
 * steer/debug.h — what a debug overlay reads: the ORCA half-planes of one
 * traced agent, and the behaviours it ran in the last step. Part of
 * steer.h.
 */
#ifndef STEER_DEBUG_H
#define STEER_DEBUG_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* avoidance: ORCA, a final velocity pass                                   */
/* ------------------------------------------------------------------------ */

/// One ORCA half-plane in velocity space: the permitted velocities lie to
/// the left of the line through point along direction (a unit vector).
typedef struct st_orca_line {
    st_vec2 point;
    st_vec2 direction;
} st_orca_line;

/// Half-planes one ORCA agent makes at most, and so holds in its trace:
/// 32 obstacle edges and circles, 16 neighbours close enough to touch
/// within the step, ST_AVOID_MAX_NEIGHBORS_CAP nearest for the horizon.
#define ST_ORCA_TRACE_LINES (32 + 16 + ST_AVOID_MAX_NEIGHBORS_CAP)

/// What ORCA did for the traced agent (st_world_set_trace) in the last step.
typedef struct st_orca_trace {
    bool valid;               ///< false when the agent did not run ORCA
    st_vec2 preferred;        ///< the velocity its forces asked for
    st_vec2 chosen;           ///< the velocity ORCA gave it
    int line_count;           ///< half-planes: obstacles', then this step's, then the horizon's
    int obstacle_lines;
    int hard_lines;           ///< obstacle lines and one-step agent lines (kept when infeasible)
    st_orca_line lines[ST_ORCA_TRACE_LINES];
} st_orca_trace;

ST_API const st_orca_trace *st_world_orca_trace(const st_world *w);

/* ------------------------------------------------------------------------ */
/* tracing one agent (for debug overlays)                                   */
/* ------------------------------------------------------------------------ */

/// One behaviour's contribution in a step. type == ST_BEHAVIOR_COUNT marks a
/// raw st_agent_apply force.
typedef struct st_trace_entry {
    st_behavior_type type;
    st_vec2 force;   ///< unweighted, as the behaviour returned it
    double weight;
} st_trace_entry;

/// Records every behaviour of this agent (null id: none) from the next step on.
ST_API void st_world_set_trace(st_world *w, st_agent_id id);
/// The entries of the last finished step (at most 32), in call order.
ST_API int st_world_trace(const st_world *w, const st_trace_entry **entries);
/// "seek", "flee", ... for a type; "apply" for ST_BEHAVIOR_COUNT.
ST_API const char *st_behavior_name(st_behavior_type type);

#ifdef __cplusplus
}
#endif

#endif /* STEER_DEBUG_H */
