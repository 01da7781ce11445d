/*
 * ui_internal.h — what the ui*.cpp files share (C++ only): the ui state,
 * the window placement, the colours, and each window's function.
 */
#ifndef STEER_APP_UI_INTERNAL_H
#define STEER_APP_UI_INTERNAL_H

#include <imgui.h>

extern "C" {
#include "render.h"
#include "ui.h"
}

#define UI_MAX_WINDOWS 16
#define UI_KEYS 512
#define UI_BUTTONS 5

/// Where a window wants to be: its dock (pos.x < 0, size.x < 0: the dock's,
/// given each frame), or where the user last moved or sized it. `set_*` is
/// what the layout gave ImGui last frame: a window whose place differs from
/// it was moved or sized by the user.
typedef struct ui_place_want {
    const char *name;
    ImVec2 pos, size;
    ImVec2 set_pos, set_size;
    bool set_collapsed;     ///< folded last frame: its size then was the title bar's
    bool has;
} ui_place_want;

struct ui {
    ImGuiContext *ctx;
    SDL_Renderer *r;
    SDL_Texture *font_tex;
    char *clipboard;        ///< the last text pasted from SDL's clipboard (SDL_free)
    double last;            ///< app clock of the last frame (0: none yet)
    long frames;
    /// ImGui 1.86 reads a key or button once a frame: one pressed and
    /// released between two frames (a quick tap, an --events line) is let
    /// go only after the frame that saw it down.
    bool key_new[UI_KEYS], key_late_up[UI_KEYS];
    bool button_new[UI_BUTTONS], button_late_up[UI_BUTTONS];
    bool console_active;    ///< the console's field had the keyboard at the end of the last frame
    ImGuiID edit_id;
    ImVector<int> plain, textured; ///< a draw command's triangles, split (ui_render_draw_data)        ///< the edit field that last had the keyboard (its cursor went to the end)
    bool show_scenes, show_overlays;
    unsigned long long side_serial; ///< the selection the side below was chosen for
    bool side_left;         ///< the agent and plots windows dock on the left, clear of the selected agent
    ui_place_want want[UI_MAX_WINDOWS];
    int nwant;
};

/* The palette (the old HUD's). */
extern const ImVec4 UI_TEXT, UI_DIM, UI_WARN, UI_BAD, UI_OK;

/// Before ImGui::Begin(name): places the window (its dock pos/size at first
/// use, else where the user left it), clamped into the output and clear of
/// the windows placed before it this frame (layout.c: down from its top, or
/// up from its bottom), cut short to no less than min_h where it must.
/// False when it fits nowhere: the window is not drawn this frame.
bool ui_place(ui *u, render_ctx *c, const char *name, ImVec2 pos, ImVec2 size, float min_h, bool up);
/// The height that shows all of the window's content (last frame's), or fallback.
float ui_fit_h(const char *name, float fallback);
/// After ImGui::Begin: the panel noted for the window is its real rectangle.
void ui_note_drawn(render_ctx *c);

/// Runs `line` as a console line (recorded, in the past a branch) and
/// flashes its result: the inspector's edits.
void ui_run_edit(app *a, const char *line);
/// The edit field's callback: on the frame it takes the keyboard, its
/// cursor goes to the end of the value (typing appends, as in the console).
int ui_edit_callback(ImGuiInputTextCallbackData *d);

/// The selected agent's windows (agent, plots) dock on the left: the agent
/// was in the right half when selected, so they do not cover it.
bool ui_agent_left(ui *u, app *a, const render_ctx *c);
void ui_window_agent(ui *u, app *a, render_ctx *c);
void ui_window_plots(ui *u, app *a, render_ctx *c);
void ui_window_timeline(ui *u, app *a, render_ctx *c);

/// After a frame: the keys and buttons pressed and released before it are
/// let go (ui_sdl.cpp).
void ui_late_releases(ui *u);
/// ImGui's draw lists through SDL_RenderGeometry (ui_sdl.cpp).
void ui_render_draw_data(ui *u, ImDrawData *d);

#endif
