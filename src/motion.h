/*
 * motion.h — how an agent moves: its orientation record and the behaviours
 * of motion.c (face, look where going, queue), and the integration of one
 * agent (step.c; the inline forms the step's passes use are integrate.h).
 */
#ifndef STEER_MOTION_H
#define STEER_MOTION_H

#include "world_internal.h"

/// An agent's orientation: its turn rate and this step's facing request.
typedef struct st_orient {
    double turn_rate;   // rad/s, INFINITY: unlimited
    st_vec2 face;       // unit direction asked for this step (ST_FACE); zero: the velocity's
} st_orient;
/// Agent i's record, made when missing (never inside the standing pass);
/// NULL when memory runs out.
st_orient *st__orient_ensure(st_world *w, int i);
/// The integrator's turn for an agent with a record: toward this step's
/// request or the new velocity v, by at most turn_rate * dt.
void st__orient_turn(st_world *w, int i, st_vec2 v, double dt);
void st__orient_free(st_world *w);
/// A standing list with face / look_where_going needs the record up front.
bool st__orient_list_needs(const st_behavior *list, int n);
/// The motion.c behaviours' forces (ST_FACE .. ST_QUEUE).
st_vec2 st__motion_force(st_world *w, int i, const st_behavior *bh, double dt);

/// (step.c)
/// Step 4 for agent i (live): truncate, integrate, move, clear.
void st__integrate(st_world *w, int i, double dt);

#endif
