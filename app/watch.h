/*
 * watch.h — a stat-polling watcher for .lua files under a few folders.
 *
 * Polling (no inotify) keeps it portable and makes every editor's way of
 * saving look the same: a file is reported once its (mtime, size, inode)
 * signature has changed and then stayed unchanged for a settle time, so a
 * half-written file is never reported, whether the editor writes in place,
 * truncates then writes, renames a temporary over it, or deletes and
 * recreates it.
 */
#ifndef STEER_APP_WATCH_H
#define STEER_APP_WATCH_H

#include <stdbool.h>

typedef struct watch watch;

/// Watches .lua files under each root (recursing two folders deep, skipping
/// hidden ones). Duplicate roots are watched once. settle: seconds a changed
/// file must stay unchanged before it is reported.
watch *watch_open(const char *const *roots, int nroots, double settle);
void watch_close(watch *w);

/// Scans the roots at time `now` (seconds, any monotonic clock). Returns the
/// number of files that settled since the last call; their paths are
/// watch_path(w, 0..n-1) until the next poll.
int watch_poll(watch *w, double now);
const char *watch_path(const watch *w, int i);
/// Which root (its index in the list given to watch_open) the path came from.
int watch_root(const watch *w, int i);

#endif
