/*
 * event.h — the app's one event stream (event.c) and the module sources it
 * serves (event_source.c).
 *
 * Every input to the running scene is an event value: the journal's own
 * record (rec_event, record_read.h): a key, a click, the pointer, a console
 * line (the inspector's edits are console lines), a reload, a restart, a
 * max speed / force scaling, a module source served. Live input (input.c,
 * the watcher, the console, --reload-at) makes events and hands them to
 * event_live; a --replay and a rewind's re-run hand the journal's events to
 * event_apply. event_apply is the one place an event changes the scene, and
 * it is where the journal gets it, so what is recorded is what was applied.
 */
#ifndef STEER_APP_EVENT_H
#define STEER_APP_EVENT_H

#include "app.h"
#include "record_read.h"

/* ------------------------------------------------------------------ event.c */

/// Whether e would reach the scene now: a key or click the scene has a
/// callback for, a console line that is not empty, a scaling by a finite
/// positive factor with a world;
/// every other input. An event that does not matter changes nothing, is
/// not recorded and in the past makes no branch.
bool event_matters(app *a, const rec_event *e);
/// Applies e to the running scene and writes it to the journal (the one
/// place). False when it does not matter (event_matters).
bool event_apply(app *a, const rec_event *e);
/// A live input: dropped while a --replay feeds its own; in a rewind's past
/// it first makes a branch (record_live); then applied as event_apply does.
/// False when it was not applied.
bool event_live(app *a, const rec_event *e);
/// --reload-at: the reloads due after this tick, as live events.
void event_reload_at(app *a);

/* ------------------------------------------------------------------ event_source.c */

/// The (empty) overlay of served sources; false when out of memory.
bool source_open(app *a);
void source_close(app *a);
/// An empty overlay in place of the app's: sources come from the disk again
/// until something is served. False (the old one kept) when out of memory.
bool source_fresh(app *a);
/// Serves src (len bytes) as the text of root/rel (root 0: the scene's
/// folder, 1: scripts/) from now on: an EV_FILE event's effect.
bool source_serve(app *a, int root, const char *rel, const char *src, size_t len);
/// The root (0 scene folder, 1 scripts/) and the path under it of an
/// absolute path; false when it is under neither.
bool source_split_root(const app *a, const char *path, int *root, const char **rel);
/// Reads a whole file (malloc'd); NULL when it cannot be read.
char *source_read_file(const char *path, size_t *len);
/// Installs the app's module searcher in a fresh Lua state.
void source_install(app *a, lua_State *L);
/// Loads a source file (through the overlay) as a chunk: luaL_loadfilex's twin.
int source_loadfile(app *a, lua_State *L, const char *path);

/* ------------------------------------------------------------------ record.c, as event.c drives it */

/// Writes e to the journal (not while a rewind re-runs the journal's past);
/// a key, click or console line after the pointer, when it moved since it
/// was last written (the handler may read steer.mouse()).
void record_event(app *a, const rec_event *e);
/// Whether a live input may reach the scene now: false while a --replay
/// feeds its own; in a rewind's past it first makes a branch (tt_branch).
bool record_live(app *a);
/// A --replay's or a rewind's events due before the next step, through
/// event_apply (the recorded pointer stays the scene's, not the user's);
/// then the pointer the step's scripts may read, to the journal.
void record_feed(app *a);
/// After a step whose world checksum is sum: the journal's checksums, the
/// replay's comparison and end, the rewind's check against the first pass.
void record_stepped(app *a, uint64_t sum);

#endif
