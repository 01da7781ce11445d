/*
 * ui.h — the app's windows on Dear ImGui, with a C face for the rest of
 * the app (the windows themselves are C++: ui*.cpp).
 *
 *   ui_sdl.cpp       the context, SDL events into ImGui, ImGui's draw lists
 *                    through SDL_RenderGeometry (our own renderer)
 *   ui.cpp           the frame: where each window goes (never over another),
 *                    stats, errors, message, help, scenes, overlays, console
 *   ui_agent.cpp     the selected agent: its fields and its `self` as a tree,
 *                    numbers editable (each edit a recorded console line)
 *   ui_plot.cpp      the selected agent's plots
 *   ui_timeline.cpp  the timeline bar
 *
 * Every window drawn is noted as a panel (render_panel), so input over one
 * is the app's and never reaches the scene, and --events' `panels` prints
 * its rectangle. A window that is moved or resized onto another slides past
 * it (layout.c), so no two are ever drawn over each other.
 */
#ifndef STEER_APP_UI_H
#define STEER_APP_UI_H

#include "app.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ui ui;
struct render_ctx;

/// A UI drawing through r: its own ImGui context and font atlas (the app's
/// font, STEER_FONT_PATH). NULL when it cannot be made (no windows then).
ui *ui_new(SDL_Renderer *r);
void ui_free(ui *u);
/// Feeds one SDL event to the windows. True when the event is theirs alone
/// (keys and text while the console or an edit field has the keyboard):
/// the caller then hands it to nobody else; and the pointer's motion while a
/// window is dragged or a widget held. Other mouse events are never theirs
/// alone: the app's routing rule (input over a panel is the app's) decides.
bool ui_event(ui *u, app *a, const SDL_Event *e);
/// This frame's windows, placed clear of each other and noted as panels in
/// c, drawn over what c's renderer holds. Runs the edits, console lines and
/// buttons used this frame.
void ui_frame(ui *u, app *a, struct render_ctx *c);

#ifdef __cplusplus
}
#endif

#endif
