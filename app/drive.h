/*
 * drive.h — the window driven by an events file (--events) for --frames
 * frames: tests under Xvfb (drive.c has the file's format).
 */
#ifndef STEER_APP_DRIVE_H
#define STEER_APP_DRIVE_H

#include "render.h"

typedef struct drive drive;

/// Reads an events file; NULL (said on stderr) when it cannot be read or a line is bad.
drive *drive_open(const char *path);
void drive_free(drive *d);
/// Runs the lines due at `frame` (0-based): inputs pushed to SDL's queue
/// before the frame polls it, reports printed. d may be NULL. True when a
/// `screenshot` line asks for this frame to be saved.
bool drive_frame(app *a, drive *d, const render_ctx *c, long frame);
/// The line a --frames run ends with: frames, ticks, agents, checksum, errors.
void drive_summary(app *a, long frames);

#endif
