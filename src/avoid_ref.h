/* avoid_ref.h — the reference velocities of ORCA's long-horizon half-planes (avoid_ref.c). */
#ifndef STEER_AVOID_REF_H
#define STEER_AVOID_REF_H

#include "world_internal.h"

/// Agent i's reference velocity for this step's long-horizon half-planes:
/// a share of the way from its velocity to its preferred one pref[i] when
/// `open` (an unlocked ORCA agent with no obstacle in reach: the caller
/// knows) and no other agent is near (ST_REF_CLEAR); else its
/// velocity. max_radius, max_speed: the largest of any agent's (bounds
/// the search).
st_vec2 st__avoid_ref(const st_world *w, const st_vec2 *pref, int i, double dt, bool open, double max_radius,
                      double max_speed);

#endif
