/*
 * obstacle.h — obstacles and walls as the world stores them (obstacle.c),
 * and the geometry the behaviours, navigation and raycasts ask of them.
 */
#ifndef STEER_OBSTACLE_H
#define STEER_OBSTACLE_H

#include "world_internal.h"

struct st_obstacle {
    int id;
    st_obstacle_kind kind;
    st_vec2 center;      // circle: centre; polygon / polyline: mean of the points
    st_vec2 prev_center; // where it was when the last step ended (ORCA's velocity for a moved circle)
    double radius;       // circle: radius; polygon / polyline: bounding radius about center
    st_vec2 *points;     // polygon / polyline: relative to center (closed polygons counter-clockwise)
    int point_count;
};

struct st_wall {
    st_vec2 from, to;
    st_vec2 normal;  // unit, +90 degrees from the direction from -> to
};

void st__obstacles_free(st_world *w);
/// The end of a step: every obstacle's current centre becomes its previous one.
void st__obstacles_settle(st_world *w);
/// avoid_obstacles' look at polygons and polylines: the nearest point of
/// one inside the detection box (length box, half width r about the
/// heading h), as x along h and y along its side. False when none.
bool st__polygon_box_hit(const st_world *w, const st_obstacle *o, st_vec2 pos, st_vec2 h, double box, double r,
                         double *hit_x, double *hit_y);
/// The point of a polygon or polyline's outline closest to p, and whether p
/// lies inside a closed polygon.
st_vec2 st__polygon_closest(const st_world *w, const st_obstacle *o, st_vec2 p, bool *inside);
/// Whether p lies inside the closed polygon o (crossing count; nav.c, raycast.c).
bool st__polygon_holds(const st_obstacle *o, st_vec2 p);
/// Every segment of the world's obstacles and walls (polygon edges, polyline
/// segments, walls), for avoid_walls: calls fn(ctx, from, to).
void st__each_segment(const st_world *w, void (*fn)(void *ctx, st_vec2 a, st_vec2 b), void *ctx);

/// The ray grid over the obstacles (raycast_index.c).
void st__ray_index_free(st_world *w);

#endif
