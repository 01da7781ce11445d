/*
 * record_read.h — a recording's file form read into memory (record_read.c):
 * the header (scene, seed, arguments, and the trust and limits the session
 * ran with, which a replay reports but never takes) and the events. No SDL,
 * no Lua: the fuzz target tests/fuzz/fuzz_record.c links it alone.
 */
#ifndef STEER_RECORD_READ_H
#define STEER_RECORD_READ_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define RECORD_MAGIC "steer-record"
#define RECORD_VERSION 1

typedef enum ev_kind {
    EV_FILE,    ///< a module source as loaded (root, text, data)
    EV_RELOAD,  ///< the app reloaded the file (root, text)
    EV_KEY,     ///< scene.keypressed(text)
    EV_CLICK,   ///< scene.mousepressed(x, y, button)
    EV_MOUSE,   ///< steer.mouse() from now on (valid, x, y)
    EV_RESTART, ///< key R
    EV_SCALE,   ///< [ ] ; ': every agent's max speed (button 1) or force (0) times x
    EV_MARK,    ///< a timeline mark (button: its kind, text: label)
    EV_SUM,     ///< world checksum after the step
    EV_CONSOLE, ///< a line run in the Lua console (text)
} ev_kind;

typedef struct rec_event {
    long tick;
    ev_kind kind;
    int root, button;
    bool valid;
    double x, y;
    uint64_t sum;
    char *text;
    char *data;
    size_t len;
} rec_event;

/// The kinds of EV_MARK, by their kind number ("scene", "reload", "error").
extern const char *const REC_MARK_NAMES[3];

/// A parsed recording. Event texts and sources point into buf.
typedef struct rec_recording {
    char *buf;          ///< the file's bytes (owned)
    rec_event *ev;
    int n;              ///< events
    long end;           ///< the recording's last tick
    int nsums;          ///< checksums in the file
    char scene[PATH_MAX];
    bool has_seed;
    uint64_t seed;
    bool trust;         ///< recorded with --trust
    long budget, time_limit, memory_mb; ///< the limits it was recorded with
    int argc;
    char **argv;        ///< point into buf
} rec_recording;

/// Parses size bytes at buf (taken over: freed with r) into r, which it
/// clears first. False with err set (at most errn bytes) for anything but a
/// whole, well-formed recording; r must be freed either way.
bool rec_parse(rec_recording *r, char *buf, size_t size, char *err, size_t errn);
void rec_recording_free(rec_recording *r);

#endif /* STEER_RECORD_READ_H */
