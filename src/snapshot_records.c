/*
 * snapshot_records.c — the snapshot sections of the per-slot records
 * (avoidance settings, orientation records), the obstacles and the walls:
 * each writer beside its reader, as in snapshot_io.c, which lists every
 * section in payload order.
 */
#include <math.h>

#include "motion.h"
#include "obstacle.h"
#include "snapshot_bytes.h"

/* ---- per-slot records: avoidance settings, orientation records ---- */

/// The live entries that carry each kind of per-slot record.
static bool holds_avoid_def(const st_world *c, int i)
{
    return c->agents[i].alive && (c->bodies[i].avoid & ST__AV_DEF);
}
static bool holds_orient(const st_world *c, int i) { return c->agents[i].alive && c->bodies[i].orient; }

static uint32_t count_holders(const st_world *c, bool (*holds)(const st_world *, int))
{
    uint32_t k = 0;
    for (int i = 0; i < c->count; i++)
        if (holds(c, i)) k++;
    return k;
}

/// One past the highest slot a live agent holds: the size of the per-slot arrays.
static uint32_t live_slot_cap(const st_world *c)
{
    uint32_t cap = 0;
    for (int i = 0; i < c->count; i++)
        if (c->agents[i].alive && c->agents[i].slot + 1 > cap) cap = c->agents[i].slot + 1;
    return cap;
}

/// A per-slot array of cap records (left NULL when cap is 0) and cap
/// zeroed marks of the slots read; false, with r->bad set, when memory runs out.
static bool per_slot_arrays(reader *r, uint32_t cap, size_t elem, void **records, uint8_t **given)
{
    if (cap > 0 && !(*records = st__alloc(r->mem, (size_t)cap * elem))) {
        r->bad = "out of memory";
        return false;
    }
    *given = st__calloc(r->mem, cap > 0 ? cap : 1, 1);
    if (!*given) {
        r->bad = "out of memory";
        return false;
    }
    return true;
}

/// Every holder's slot is marked `want` in marks, else `what`.
static void check_all_given(reader *r, const st_world *c, bool (*holds)(const st_world *, int), const uint8_t *marks,
                            uint8_t want, const char *what)
{
    for (int i = 0; i < c->count && !r->bad; i++)
        if (holds(c, i)) r_check(r, marks[c->agents[i].slot] == want, what);
}

void snap__write_avoid_defs(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    w_u32(o, count_holders(c, holds_avoid_def));
    for (int i = 0; i < c->count; i++) {
        if (!holds_avoid_def(c, i)) continue;
        const st_avoid_def *d = &c->avoid_defs[c->agents[i].slot];
        w_u32(o, c->agents[i].slot);
        w_u32(o, (uint32_t)d->mode);
        w_f64(o, d->range);
        w_i32(o, d->max_neighbors);
        w_f64(o, d->horizon);
        w_f64(o, d->horizon_obstacles);
        w_f64(o, d->priority);
        w_u32(o, d->layer);
        w_u32(o, d->mask);
        w_u8(o, d->locked);
    }
}

/// One avoidance record (after its slot), checked as st_agent_set_avoidance would.
static st_avoid_def read_avoid_def(reader *r)
{
    st_avoid_def d;
    uint32_t mode = r_u32(r);
    d.range = r_f64(r);
    d.max_neighbors = r_i32(r);
    d.horizon = r_f64(r);
    d.horizon_obstacles = r_f64(r);
    d.priority = r_f64(r);
    d.layer = r_u32(r);
    d.mask = r_u32(r);
    uint8_t locked = r_u8(r);
    d.mode = (st_avoidance)(mode <= ST_AVOIDANCE_ORCA ? mode : 0);
    d.locked = locked != 0;
    r_check(r, mode <= ST_AVOIDANCE_ORCA && locked <= 1, "avoidance settings out of range");
    r_check(r, d.range == ST_AVOID_AUTO || nonneg_finite(d.range), "avoidance range out of range");
    r_check(r, d.horizon == ST_AVOID_AUTO || pos_finite(d.horizon), "avoidance horizon out of range");
    r_check(r, d.horizon_obstacles == ST_AVOID_AUTO || pos_finite(d.horizon_obstacles),
            "avoidance horizon out of range");
    r_check(r, nonneg_finite(d.priority) && d.max_neighbors >= 0 && d.max_neighbors <= ST_AVOID_MAX_NEIGHBORS_CAP,
            "avoidance settings out of range");
    return d;
}

/// Every live agent flagged with avoidance settings gets them; the other
/// slots below the cap hold the defaults.
void snap__read_avoid_defs(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    uint32_t defs = r_u32(r);
    if (!r_fits(r, defs, 53)) return; // 53 bytes a record
    uint32_t cap = live_slot_cap(c);
    uint8_t *given = NULL;
    if (!per_slot_arrays(r, cap, sizeof *c->avoid_defs, (void **)&c->avoid_defs, &given)) return;
    c->avoid_def_cap = cap;
    for (uint32_t q = 0; q < cap; q++) c->avoid_defs[q] = st_default_avoid_def();
    for (uint32_t k = 0; k < defs && !r->bad; k++) {
        uint32_t slot = r_u32(r);
        st_avoid_def d = read_avoid_def(r);
        r_check(r, slot < cap && !given[slot], "avoidance settings for a slot no agent holds");
        if (r->bad) break;
        given[slot] = 1;
        c->avoid_defs[slot] = d;
    }
    check_all_given(r, c, holds_avoid_def, given, 1, "an agent's avoidance settings are missing");
    st__free(given);
}

void snap__write_orients(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    w_u32(o, count_holders(c, holds_orient));
    for (int i = 0; i < c->count; i++) {
        if (!holds_orient(c, i)) continue;
        const st_orient *q = &c->orients[c->agents[i].slot];
        w_u32(o, c->agents[i].slot);
        w_f64(o, q->turn_rate);
        w_vec(o, q->face);
    }
}

/// One orientation record (after its slot), checked as st_agent_set_turn_rate and face would make it.
static st_orient read_orient(reader *r)
{
    st_orient q;
    q.turn_rate = r_f64(r);
    q.face = r_vec(r);
    r_check(r, q.turn_rate >= 0.0 && !isnan(q.turn_rate), "a turn rate is out of range");
    // a facing request is a unit direction (as face makes it) or none
    double len2 = st_v2_len2(q.face);
    r_check(r, st_v2_finite(q.face) && (len2 == 0.0 || fabs(len2 - 1.0) < 1e-6), "a facing request is not a direction");
    return q;
}

/// Exactly one record for every live agent flagged with one, none for any
/// other slot.
void snap__read_orients(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    uint32_t orients = r_u32(r);
    if (!r_fits(r, orients, 28)) return; // 28 bytes a record
    uint32_t cap = live_slot_cap(c);
    uint8_t *given = NULL; // 2 = a live agent flagged with a record holds the slot, 3 = read
    if (!per_slot_arrays(r, cap, sizeof *c->orients, (void **)&c->orients, &given)) return;
    c->orient_cap = cap;
    for (uint32_t q = 0; q < cap; q++) c->orients[q] = (st_orient){INFINITY, {0.0, 0.0}};
    for (int i = 0; i < c->count; i++)
        if (holds_orient(c, i)) given[c->agents[i].slot] = 2;
    for (uint32_t k = 0; k < orients && !r->bad; k++) {
        uint32_t slot = r_u32(r);
        st_orient q = read_orient(r);
        r_check(r, slot < cap && given[slot] == 2, "an orientation record for a slot no such agent holds");
        if (r->bad) break;
        given[slot] = 3;
        c->orients[slot] = q;
    }
    check_all_given(r, c, holds_orient, given, 3, "an agent's orientation record is missing");
    st__free(given);
}

/* ---- obstacles and walls ---- */

void snap__write_obstacles(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    w_u32(o, (uint32_t)c->obstacle_count);
    for (int i = 0; i < c->obstacle_count; i++) {
        const st_obstacle *ob = &c->obstacles[i];
        w_i32(o, ob->id);
        w_u32(o, (uint32_t)ob->kind);
        w_vec(o, ob->center);
        w_vec(o, ob->prev_center);
        w_f64(o, ob->radius);
        w_u32(o, (uint32_t)(ob->points ? ob->point_count : 0));
        if (ob->points) w_bytes(o, ob->points, (size_t)ob->point_count * sizeof(st_vec2));
    }
}

/// One obstacle into o (zeroed), its id above last_id; false when reading
/// must stop (r->bad says why).
static bool read_obstacle(reader *r, const st_world *c, st_obstacle *o, int last_id)
{
    o->id = r_i32(r);
    uint32_t kind = r_u32(r);
    o->center = r_vec(r);
    o->prev_center = r_vec(r);
    o->radius = r_f64(r);
    uint32_t pc = r_u32(r);
    r_check(r, o->id > last_id && o->id <= c->next_obstacle_id, "obstacle ids out of order");
    r_check(r, kind <= ST_OBSTACLE_POLYLINE, "unknown obstacle kind");
    r_check(r, st_v2_finite(o->center) && st_v2_finite(o->prev_center) && nonneg_finite(o->radius),
            "an obstacle is out of range");
    r_check(r, kind == ST_OBSTACLE_CIRCLE ? pc == 0 : pc >= (kind == ST_OBSTACLE_POLYGON ? 3u : 2u),
            "an obstacle's outline has the wrong number of points");
    if (!r_fits(r, pc, sizeof(st_vec2)) || r->bad) return false;
    o->kind = (st_obstacle_kind)kind;
    if (pc > 0) {
        o->points = st__alloc(r->mem, (size_t)pc * sizeof *o->points);
        if (!o->points) {
            r->bad = "out of memory";
            return false;
        }
        o->point_count = (int)pc;
        r_take(r, o->points, (size_t)pc * sizeof *o->points);
        for (uint32_t q = 0; q < pc; q++) r_check(r, st_v2_finite(o->points[q]), "an obstacle point is not finite");
    }
    return true;
}

void snap__read_obstacles(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    uint32_t obs = r_u32(r);
    if (!r_fits(r, obs, 52)) return; // 52 bytes an obstacle at the least
    if (obs > 0) {
        c->obstacles = st__calloc(r->mem, obs, sizeof *c->obstacles);
        if (!c->obstacles) {
            r->bad = "out of memory";
            return;
        }
        c->obstacle_cap = (int)obs;
    }
    int last_id = 0;
    for (uint32_t i = 0; i < obs && !r->bad; i++) {
        if (!read_obstacle(r, c, &c->obstacles[i], last_id)) return;
        last_id = c->obstacles[i].id;
        c->obstacle_count = (int)i + 1;
    }
}

void snap__write_walls(writer *o, const st_snapshot *s)
{
    const st_world *c = &s->w;
    w_u32(o, (uint32_t)c->wall_count);
    for (int i = 0; i < c->wall_count; i++) {
        w_vec(o, c->walls[i].from);
        w_vec(o, c->walls[i].to);
        w_vec(o, c->walls[i].normal);
    }
}

void snap__read_walls(reader *r, st_snapshot *s)
{
    st_world *c = &s->w;
    uint32_t walls = r_u32(r);
    if (!r_fits(r, walls, 48)) return; // 48 bytes a wall
    if (walls > 0) {
        c->walls = st__alloc(r->mem, walls * sizeof *c->walls);
        if (!c->walls) {
            r->bad = "out of memory";
            return;
        }
        c->wall_cap = c->wall_count = (int)walls;
    }
    for (uint32_t i = 0; i < walls && !r->bad; i++) {
        st_wall *wl = &c->walls[i];
        wl->from = r_vec(r);
        wl->to = r_vec(r);
        wl->normal = r_vec(r);
        r_check(r, st_v2_finite(wl->from) && st_v2_finite(wl->to) && st_v2_finite(wl->normal),
                "a wall is not finite");
    }
}
