/*
 * sys.h — the app's few calls into the operating system, one function each,
 * POSIX or Windows behind them (sys.c): file facts, real paths, folder
 * listings, a sleep, replacing a file, and the clock (app_clock, util.c).
 * Nothing else in the app is platform-specific besides SDL.
 */
#ifndef STEER_APP_SYS_H
#define STEER_APP_SYS_H

#include <limits.h>
#include <stdbool.h>

#ifndef PATH_MAX
#define PATH_MAX 260 /* Windows' MAX_PATH */
#endif

/// What stat says of a path: whether it exists, is a regular file or a
/// folder, its modification time (ns), size and file id (0 where none).
typedef struct app_file {
    bool exists, is_file, is_dir;
    long long mtime_ns, size;
    unsigned long long id;
} app_file;

/// False (and *f zero) when path does not exist or cannot be read.
bool app_stat(const char *path, app_file *f);
/// The absolute, resolved path of an existing path into out (PATH_MAX
/// bytes), or NULL (realpath's contract).
char *app_realpath(const char *path, char *out);

/// A folder's entries, "." and ".." included as the system lists them.
typedef struct app_dir app_dir;
app_dir *app_dir_open(const char *path);
/// The next entry's name (valid until the next call), NULL at the end.
const char *app_dir_next(app_dir *d);
void app_dir_close(app_dir *d);

/// Sleeps for about this long; nothing for seconds <= 0.
void app_sleep(double seconds);
/// Moves from onto to, replacing to if it exists (atomic on POSIX).
bool app_replace_file(const char *from, const char *to);

#endif
