/*
 * orca_solve.h — ORCA's linear programs and the half-planes of obstacle
 * edges (orca_solve.c), after van den Berg et al. 2011 and RVO2.
 */
#ifndef STEER_ORCA_SOLVE_H
#define STEER_ORCA_SOLVE_H

#include "orca.h"

/// The velocity within the disc of radius r that satisfies every line and
/// lies closest to `opt` (or farthest along it when dir_opt). Returns n on
/// success, else the index of the line that could not be satisfied, with
/// *result the best velocity for the lines before it.
int orca_lp2(const line *lines, int n, double r, st_vec2 opt, bool dir_opt, st_vec2 *result);

/// When orca_lp2 fails at line `begin`: the velocity that minimises the
/// largest violation of the lines [n_obst, n), keeping the lines [0, n_obst)
/// (a 3D linear program, solved as 2D ones on each line's boundary).
void orca_lp3(const line *lines, int n, int n_obst, int begin, double r, st_vec2 *result);

/// Is the obstacle edge from rel1 to rel2 (relative to the agent) already
/// kept out by one of lines [0, n)?
bool orca_covered(const line *lines, int n, st_vec2 rel1, st_vec2 rel2, double inv_h, double radius);

/// The half-plane for the obstacle edge from vertex ia (rel1 from the agent)
/// to its next (rel2), for an agent of `radius` at velocity `vel` with
/// horizon 1 / inv_h; false when the edge adds none.
bool orca_edge_line(const overt *verts, int ia, st_vec2 rel1, st_vec2 rel2, st_vec2 vel, double radius, double inv_h,
                    line *out);

#endif
