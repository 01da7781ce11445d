/*
 * sandbox.h — private to the app's host state (sandbox*.c): what sandbox.c
 * shares with sandbox_shared.c.
 */
#ifndef STEER_SANDBOX_H
#define STEER_SANDBOX_H

#include <limits.h>
#include <stdbool.h>

#include "steer_host.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/// The script folders (resolved), kept in a full userdata under the
/// registry key "steer.host.dirs" for the state's life.
typedef struct host_dirs {
    char scene[PATH_MAX];
    char scripts[PATH_MAX];
    bool trust;
} host_dirs;

/// Whether a resolved path lies inside the scene folder or scripts/.
bool sandbox_in_script_folders(const host_dirs *d, const char *real);
/// package.searchpath that finds files in the script folders only.
void sandbox_confine_searchpath(lua_State *L, host_dirs *d);

#endif
