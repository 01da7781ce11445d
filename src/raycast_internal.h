/*
 * raycast_internal.h — what raycast.c (the exact tests) and raycast_index.c
 * (the uniform grid over the obstacles and walls) share.
 */
#ifndef STEER_RAYCAST_INTERNAL_H
#define STEER_RAYCAST_INTERNAL_H

#include "world_internal.h"

typedef struct st__ray {
    st_vec2 from, d;  // d = to - from
    double len2;      // |d|^2 > 0
    st_vec2 dir;      // unit
} st__ray;

/// The best hit so far and its tie-break key: at equal fractions the lower
/// (group, index, seg) wins, whatever order the shapes were tested in.
typedef struct st__ray_best {
    st_raycast_hit hit;  // hit.fraction INFINITY: none yet
    int group;           // 0 obstacles, 1 walls, 2 agents
    uint64_t index;      // obstacle index, wall index, agent serial
    int seg;             // polygon edge / polyline segment, else -1
} st__ray_best;

/// Obstacle i against the ray: its circle (seg < 0) or its segment seg. A
/// closed polygon that holds the ray's start is never hit.
void st__ray_test_obstacle(const st_world *w, const st__ray *r, int i, int seg, st__ray_best *best);
/// Wall k against the ray.
void st__ray_test_wall(const st_world *w, const st__ray *r, int k, st__ray_best *best);

/// The grid over the obstacles and walls (raycast_index.c), built for one
/// obstacle epoch.
typedef struct st_ray_index st_ray_index;
/// Whether the grid matches the world's obstacles and walls as they are.
bool st__ray_index_fresh(const st_world *w);
/// The ray through the fresh grid: the same answer as testing every shape.
void st__ray_index_cast(const st_world *w, const st__ray *r, bool obstacles, bool walls, st__ray_best *best);

/// Agent i against the ray (its tag, the ignored agent, its circle).
void st__ray_test_agent(const st_world *w, const st__ray *r, const st_raycast_opts *o, int i, st__ray_best *best);
/// Every agent against the ray.
void st__ray_agents_all(const st_world *w, const st__ray *r, const st_raycast_opts *o, st__ray_best *best);
/// The agents against the ray (raycast_agents.c): through the world's
/// neighbour grid when it holds the agents where they are, else every one;
/// the same answer either way.
void st__ray_agents(const st_world *w, const st__ray *r, const st_raycast_opts *o, st__ray_best *best);

#endif
