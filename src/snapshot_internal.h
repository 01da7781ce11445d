/*
 * snapshot_internal.h — the layout of st_snapshot, shared by snapshot.c
 * (capture and restore) and snapshot_io.c (bytes).
 */
#ifndef STEER_SNAPSHOT_INTERNAL_H
#define STEER_SNAPSHOT_INTERNAL_H

#include "world_internal.h"
#include "mover.h"

/// The arrays of st_world a snapshot copies (snapshot.c lists them).
#define ST__SNAPSHOT_ARRAYS 10

struct st_snapshot {
    // The world's scalars as they were, and its arrays as this snapshot's
    // own copies: bodies (with behaviors NULL), agents, tags, slots, order,
    // avoid_defs, orients, obstacles (with their points), walls. The grid, tag
    // grids, avoid state, scratch and last_list are always empty here.
    st_world w;
    int32_t *list_of;   // per dense entry: index into lists, -1 for none
    st_blist **lists;   // the distinct standing lists; refs = entries using each
    int list_count;
    st_path **paths;    // every path the lists name (and any the caller adds)
    int path_count, path_cap;
    bool owns_paths;    // decoded from bytes: destroyed with the snapshot
    unsigned char *user; // the caller's bytes (the bindings' Lua state)
    size_t user_len;
    struct st_mover *mover; // the orders and path queue (move_snapshot.c), NULL for none
    uint64_t checksum;  // st_world_checksum at capture, once checksum_known
    bool checksum_known;
    // Allocated sizes kept across captures into the same snapshot
    // (st_snapshot_capture): of the world copy's arrays, in the order of
    // snapshot.c's table of them; of list_of; of lists.
    size_t cap_arrays[ST__SNAPSHOT_ARRAYS], cap_list_of;
    int cap_lists;
};

st_snapshot *st__snapshot_alloc(const st_mem *m);

#endif
