/*
 * mover.h — the mover (orders and the path queue) as the world and its
 * snapshots see it: stepped, copied, freed (move.c, move_snapshot.c). Its
 * records are move.h's.
 */
#ifndef STEER_MOVER_H
#define STEER_MOVER_H

#include "steer.h"

typedef struct st_mover st_mover;
void st__mover_step(st_world *w);
void st__mover_free(st_world *w);
/// The grid is going: orders on it fail, its search job goes.
void st__mover_forget(st_world *w, const st_navgrid *nav);
/// A whole copy (NULL for NULL, *ok true); NULL with *ok false when memory runs out.
st_mover *st__mover_clone(const st_mover *m, const st_mem *mem, bool *ok);
void st__mover_destroy(st_mover *m);
/// Whether every grid the orders name belongs to w.
bool st__mover_orders_in(const st_mover *m, const st_world *w);
/// Live orders, and the first one's agent.
int st__mover_orders(const st_mover *m, st_agent_id *first);
size_t st__mover_memory(const st_mover *m);

#endif
