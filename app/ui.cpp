/*
 * ui.cpp — one frame of the windows: where each goes, and the small ones
 * (stats, errors, the flash message, help, scenes, overlays, console).
 *
 * Placement: each window has a dock (the timeline along the bottom, stats
 * and help down the left, the agent down the right, plots, errors and the
 * console up from the bottom) where it opens; once the user drags or sizes
 * it, it wants that place instead. Every frame the windows are placed in a
 * fixed order, each clear of those before it (layout.c slides it past one
 * in its way, or cuts it short): so no two are ever drawn over each other,
 * and the scene's drawing shows wherever no window is.
 */
#include <imgui_internal.h> /* FindWindowByName, GetActiveID: a window's place, the edit field's */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

extern "C" {
#include "steer_host.h"
}

#define PAD 8.0f

const ImVec4 UI_TEXT(0.88f, 0.89f, 0.92f, 1.0f);
const ImVec4 UI_DIM(0.59f, 0.61f, 0.67f, 1.0f);
const ImVec4 UI_WARN(1.0f, 0.78f, 0.35f, 1.0f);
const ImVec4 UI_BAD(1.0f, 0.43f, 0.39f, 1.0f);
const ImVec4 UI_OK(0.43f, 0.86f, 0.51f, 1.0f);

/* ------------------------------------------------------------------ placement */

static ui_place_want *want_of(ui *u, const char *name)
{
    for (int i = 0; i < u->nwant; i++)
        if (strcmp(u->want[i].name, name) == 0)
            return &u->want[i];
    if (u->nwant == UI_MAX_WINDOWS)
        return NULL;
    ui_place_want *w = &u->want[u->nwant++];
    *w = ui_place_want();
    w->name = name;
    return w;
}

static bool moved(ImVec2 now, ImVec2 set)
{
    return fabsf(now.x - set.x) > 0.5f || fabsf(now.y - set.y) > 0.5f;
}

static float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

bool ui_place(ui *u, render_ctx *c, const char *name, ImVec2 pos, ImVec2 size, float min_h, bool up)
{
    ui_place_want *w = want_of(u, name);
    if (w == NULL)
        return false;
    ImGuiWindow *win = ImGui::FindWindowByName(name);
    if (w->has && win != NULL && win->WasActive) {
        /* dragged or sized since the layout placed it: the user's place from now on */
        if (moved(win->Pos, w->set_pos))
            w->pos = win->Pos;
        if (!win->Collapsed && !w->set_collapsed && moved(win->SizeFull, w->set_size))
            w->size = win->SizeFull;
    } else if (!w->has) {
        w->pos = ImVec2(-1.0f, -1.0f); /* the dock's, until the user moves it */
        w->size = ImVec2(-1.0f, -1.0f);
    }
    w->has = true;
    ImVec2 p = w->pos.x >= 0.0f ? w->pos : pos, s = w->size.x >= 0.0f ? w->size : size;
    bool collapsed = win != NULL && win->Collapsed;
    float W = (float)c->w, H = (float)c->h;
    s.x = floorf(fminf(s.x, W));
    float h = floorf(collapsed ? ImGui::GetFrameHeight() : fminf(s.y, H));
    float x = floorf(clampf(p.x, 0.0f, W - s.x)), y = floorf(clampf(p.y, 0.0f, H - h));
    if (!layout_place(c, name, x, &y, s.x, &h, collapsed ? h : min_h, up))
        return false;
    w->set_pos = ImVec2(x, floorf(y));
    w->set_size = ImVec2(s.x, floorf(h));
    w->set_collapsed = collapsed;
    ImGui::SetNextWindowPos(w->set_pos, ImGuiCond_Always);
    if (!collapsed)
        ImGui::SetNextWindowSize(w->set_size, ImGuiCond_Always);
    return true;
}

void ui_note_drawn(render_ctx *c)
{
    if (c->npanels == 0)
        return;
    ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    SDL_FRect r = {p.x, p.y, s.x, s.y};
    c->panels[c->npanels - 1].r = r;
}

float ui_fit_h(const char *name, float fallback)
{
    ImGuiWindow *win = ImGui::FindWindowByName(name);
    if (win == NULL || !win->WasActive)
        return fallback;
    /* the extent its content reached last frame (ContentSize is only made from it in Begin) */
    float content = win->DC.CursorMaxPos.y - win->DC.CursorStartPos.y;
    return content + 2.0f * ImGui::GetStyle().WindowPadding.y + win->TitleBarHeight() + 1.0f;
}

/* The left column's dock for a window w wide, or the right one's while the
 * selected agent's windows take the left (ui_agent_left). */
static float column_x(ui *u, app *a, const render_ctx *c, float w)
{
    bool agent_left = a->world != NULL && st_agent_alive(a->world, a->selected) && ui_agent_left(u, a, c);
    return agent_left ? (float)c->w - w - PAD : PAD;
}

/* Height of a window with this many text lines and rows of buttons. */
static float rows(int lines, int buttons)
{
    const ImGuiStyle &st = ImGui::GetStyle();
    return ImGui::GetFrameHeight() + 2.0f * st.WindowPadding.y + (float)lines * ImGui::GetTextLineHeightWithSpacing() +
           (float)buttons * ImGui::GetFrameHeightWithSpacing();
}

/* ------------------------------------------------------------------ edits */

int ui_edit_callback(ImGuiInputTextCallbackData *d)
{
    ui *u = (ui *)d->UserData;
    ImGuiID id = ImGui::GetActiveID();
    if (id != u->edit_id) { /* it just took the keyboard */
        u->edit_id = id;
        d->CursorPos = d->SelectionStart = d->SelectionEnd = d->BufTextLen;
    }
    return 0;
}

void ui_run_edit(app *a, const char *line)
{
    app_console_run(a, line);
    if (a->console_bad)
        app_flash(a, FLASH_BAD, 4.0, "%s", a->console_out);
    else
        app_flash(a, FLASH_OK, 1.5, "%s", line);
}

/* ------------------------------------------------------------------ stats */

static void script_status(app *a)
{
    int paused_brains = app_paused_brains(a);
    ImGui::TextUnformatted("script:");
    ImGui::SameLine();
    if (a->error_count == 0 && paused_brains == 0 && a->scene_ok) {
        ImGui::TextColored(UI_OK, "ok");
        return;
    }
    ImGui::TextColored(UI_BAD, "%d error%s", a->error_count, a->error_count == 1 ? "" : "s");
    if (paused_brains) {
        ImGui::SameLine();
        ImGui::TextColored(UI_BAD, "%d brain%s paused", paused_brains, paused_brains == 1 ? "" : "s");
    }
}

/* Pause, step, restart, and the windows the keys open. */
static void stats_buttons(ui *u, app *a)
{
    if (ImGui::SmallButton(a->paused ? "run (Space)" : "pause (Space)")) {
        a->paused = !a->paused;
        a->accumulator = 0.0;
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("step (N)") && a->paused)
        a->pending_steps++;
    ImGui::SameLine();
    if (ImGui::SmallButton("restart (R)"))
        app_restart(a);
    struct {
        const char *name;
        bool *on;
    } toggles[] = {{"help", &a->help},          {"scenes", &u->show_scenes}, {"overlays", &u->show_overlays},
                   {"plots", &a->show_plots},   {"console", &a->console_open}};
    for (size_t i = 0; i < sizeof toggles / sizeof toggles[0]; i++) {
        if (i > 0)
            ImGui::SameLine();
        bool on = *toggles[i].on;
        if (on)
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::SmallButton(toggles[i].name))
            *toggles[i].on = !on;
        if (on)
            ImGui::PopStyleColor();
    }
}

/* The run at a glance: scene, timing, counts, live factors, script status. */
static void window_stats(ui *u, app *a, render_ctx *c)
{
    char title[400];
    app_format(title, sizeof title, "%s  (%s.lua)  seed %llu", a->title[0] ? a->title : a->scene_module,
               a->scene_module, (unsigned long long)a->seed);
    /* as wide as the scene's title, within half the output */
    float h = rows(4, 2), w = ImGui::CalcTextSize(title).x + 2.0f * ImGui::GetStyle().WindowPadding.x + 40.0f;
    w = fmaxf(380.0f, fminf(w, (float)c->w * 0.5f));
    if (!ui_place(u, c, "stats", ImVec2(PAD, PAD), ImVec2(w, h), h, false))
        return;
    bool open = ImGui::Begin("stats", NULL, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    if (open) {
        ImGui::TextUnformatted(title);
        if (tt_recording(a) && !tt_replaying(a)) {
            ImGui::SameLine();
            ImGui::TextColored(UI_BAD, "REC");
        }
        long wtick = a->world ? (long)st_world_tick(a->world) : 0;
        char world_tick[48] = ""; /* the timeline's tick (steps since start); the world's restarts with R */
        if (wtick != a->steps_run)
            snprintf(world_tick, sizeof world_tick, " (world %ld)", wtick);
        if (a->opt.headless)
            ImGui::Text("headless   step %.3f ms   tick %ld%s", a->ms_per_step, a->steps_run, world_tick);
        else
            ImGui::Text("FPS %.0f   step %.3f ms   tick %ld%s", a->fps, a->ms_per_step, a->steps_run, world_tick);
        int agents = a->world ? st_world_count(a->world, ST_TAG_ANY) : 0;
        ImGui::TextColored(a->paused ? UI_WARN : UI_TEXT, "agents %d  time x%g  speed x%.2f  force x%.2f%s", agents,
                           a->time_scale, a->speed_factor, a->force_factor, a->paused ? "  PAUSED" : "");
        script_status(a);
        ImGui::SameLine();
        ImGui::TextColored(a->update_paused || a->draw_paused ? UI_BAD : UI_DIM, "  %s  %.1f MB%s%s",
                           a->opt.trust ? "trusted" : "sandboxed",
                           a->L ? (double)steer_host_memory(a->L) / (1024.0 * 1024.0) : 0.0,
                           a->update_paused ? "  update STOPPED" : "", a->draw_paused ? "  draw STOPPED" : "");
        stats_buttons(u, a);
    }
    ImGui::End();
}

/* ------------------------------------------------------------------ errors, flash, help */

static void window_errors(ui *u, app *a, render_ctx *c)
{
    int shown = a->error_count < 3 ? a->error_count : 3;
    float w = (float)c->w - 2.0f * PAD, h = rows(shown * 5, 0);
    if (!ui_place(u, c, "errors", ImVec2(PAD, (float)c->h - h - PAD), ImVec2(w, h), rows(4, 0), true))
        return;
    bool open = ImGui::Begin("errors", NULL, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    for (int i = a->error_count - 1; open && i >= a->error_count - shown; i--) { /* the newest first */
        const app_error *e = &a->errors[i];
        ImGui::TextColored(UI_WARN, "%s%s", e->kind == APP_ERR_LOAD ? "load error" : "runtime error",
                           e->count > 1 ? " (repeated)" : "");
        ImGui::PushStyleColor(ImGuiCol_Text, UI_BAD);
        ImGui::TextWrapped("%s", e->text);
        ImGui::PopStyleColor();
    }
    ImGui::End();
}

static void window_flash(ui *u, app *a, render_ctx *c)
{
    ImVec2 t = ImGui::CalcTextSize(a->flash);
    const ImVec2 pad = ImGui::GetStyle().WindowPadding;
    ImVec2 size(fminf(t.x + 2.0f * pad.x + 2.0f, (float)c->w - 2.0f * PAD), t.y + 2.0f * pad.y);
    if (!ui_place(u, c, "flash", ImVec2(((float)c->w - size.x) * 0.5f, PAD), size, size.y, false))
        return;
    ImGuiWindowFlags f = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove |
                         ImGuiWindowFlags_NoFocusOnAppearing;
    if (ImGui::Begin("flash", NULL, f)) {
        ui_note_drawn(c);
        ImGui::TextColored(a->flash_bad ? UI_BAD : UI_OK, "%s", a->flash);
    }
    ImGui::End();
}

static void window_help(ui *u, app *a, render_ctx *c)
{
    float h = rows(hud_help_count + 1, 0);
    if (!ui_place(u, c, "help", ImVec2(column_x(u, a, c, 440.0f), PAD), ImVec2(440.0f, h), rows(6, 0), false))
        return;
    bool open = ImGui::Begin("help", &a->help, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    if (open && ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
        for (int i = 0; i < hud_help_count; i++) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(UI_WARN, "%s", hud_help[i][0]);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(hud_help[i][1]);
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

/* ------------------------------------------------------------------ scenes, overlays */

/* What Tab does, for the scene picked in the list. */
static void switch_scene(app *a, const char *path)
{
    tt_scene_switched(a, path);
    app_switch_scene(a, path);
    a->selected = st_null_agent();
    a->show_plots = false; /* the plots were the old scene's agent's */
}

static void window_scenes(ui *u, app *a, render_ctx *c)
{
    static char paths[64][PATH_MAX];
    int n = app_list_scenes(a, paths, 64);
    if (!ui_place(u, c, "scenes", ImVec2(column_x(u, a, c, 260.0f), PAD), ImVec2(260.0f, rows(n + 1, 0)), rows(3, 0),
                  false))
        return;
    bool open = ImGui::Begin("scenes", &u->show_scenes, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    const char *pick = NULL;
    if (open) {
        ImGui::TextColored(UI_DIM, "Tab / Shift+Tab: next / previous");
        for (int i = 0; i < n; i++) {
            const char *base = strrchr(paths[i], '/');
            base = base ? base + 1 : paths[i];
            if (ImGui::Selectable(base, strcmp(paths[i], a->scene_path) == 0))
                pick = paths[i];
        }
    }
    ImGui::End();
    if (pick != NULL && strcmp(pick, a->scene_path) != 0)
        switch_scene(a, pick);
}

static const struct {
    unsigned flag;
    const char *key, *name;
} OVERLAYS[] = {
    {OV_VELOCITY, "F2", "velocity"},       {OV_FORCE, "F3", "steering force"},
    {OV_WANDER, "F4", "wander circle"},    {OV_CONE, "F5", "view cone"},
    {OV_FEELERS, "F6", "feelers and box"}, {OV_LINKS, "F7", "neighbour links"},
    {OV_STATE, "F8", "state names"},       {OV_PATHS, "F9", "paths"},
    {OV_HUD, "F10", "windows"},            {OV_ORCA, "F11", "ORCA (selected)"},
};

static void window_overlays(ui *u, app *a, render_ctx *c)
{
    int n = (int)(sizeof OVERLAYS / sizeof OVERLAYS[0]);
    if (!ui_place(u, c, "overlays", ImVec2(column_x(u, a, c, 230.0f), PAD), ImVec2(230.0f, rows(0, n)), rows(0, 3),
                  false))
        return;
    bool open = ImGui::Begin("overlays", &u->show_overlays, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    for (int i = 0; open && i < n; i++) {
        bool on = (a->overlays & OVERLAYS[i].flag) != 0;
        char label[64];
        snprintf(label, sizeof label, "%-4s %s", OVERLAYS[i].key, OVERLAYS[i].name);
        if (ImGui::Checkbox(label, &on))
            a->overlays ^= OVERLAYS[i].flag;
    }
    ImGui::End();
}

/* ------------------------------------------------------------------ console */

static void window_console(ui *u, app *a, render_ctx *c)
{
    float w = (float)c->w - 2.0f * PAD, h = rows(1, 1);
    if (!ui_place(u, c, "console", ImVec2(PAD, (float)c->h - h - PAD), ImVec2(w, h), h, true))
        return;
    bool open = ImGui::Begin("console", &a->console_open, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    if (open) {
        if (a->console_out[0])
            ImGui::TextColored(a->console_bad ? UI_BAD : UI_OK, "%s", a->console_out);
        else
            ImGui::TextColored(UI_WARN, "world, scene, agent(id); Enter runs, Esc closes");
        ImGui::TextColored(UI_WARN, "lua>");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-FLT_MIN);
        if (!ImGui::IsAnyItemActive())
            ImGui::SetKeyboardFocusHere(); /* every key is the console's while it is open */
        bool enter = ImGui::InputText("##line", a->console_text, sizeof a->console_text,
                                      ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CallbackAlways,
                                      ui_edit_callback, u);
        u->console_active = ImGui::IsItemActive() && !enter;
        if (enter) {
            app_console_run(a, a->console_text);
            a->console_text[0] = '\0';
        }
    }
    ImGui::End();
}

/* ------------------------------------------------------------------ the frame */

/* Every window, in placement order: each keeps clear of those before it. */
static void build(ui *u, app *a, render_ctx *c)
{
    u->console_active = false;
    bool hud = (a->overlays & OV_HUD) != 0;
    if (hud && a->world != NULL)
        ui_window_timeline(u, a, c);
    if (a->console_open)
        window_console(u, a, c);
    if (hud)
        window_stats(u, a, c);
    if (a->error_count > 0)
        window_errors(u, a, c);
    if (hud && a->world != NULL && st_agent_alive(a->world, a->selected))
        ui_window_agent(u, a, c);
    if (a->show_plots && a->world != NULL)
        ui_window_plots(u, a, c);
    if (a->help)
        window_help(u, a, c);
    if (u->show_scenes)
        window_scenes(u, a, c);
    if (u->show_overlays)
        window_overlays(u, a, c);
    if (a->flash[0] && app_clock() < a->flash_until)
        window_flash(u, a, c); /* a passing message: where the others leave room */
    if (!ImGui::IsAnyItemActive())
        u->edit_id = 0;
}

/* Text input (SDL_TEXTINPUT) on while the console or an edit field wants it. */
static void text_input(app *a)
{
    bool want = a->console_open || ImGui::GetIO().WantTextInput;
    if (want && !SDL_IsTextInputActive())
        SDL_StartTextInput();
    else if (!want && SDL_IsTextInputActive())
        SDL_StopTextInput();
}

extern "C" void ui_frame(ui *u, app *a, render_ctx *c)
{
    if (u == NULL)
        return;
    ImGui::SetCurrentContext(u->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.DisplaySize = ImVec2((float)c->w, (float)c->h);
    double now = app_clock();
    io.DeltaTime = u->last > 0.0 && now > u->last ? (float)(now - u->last) : 1.0f / 60.0f;
    u->last = now;
    hud_update_fps(a, now);
    /* ImGui measures a window in the frame it first appears: a first frame
     * (a headless screenshot's only one) is built twice, the second drawn */
    for (int pass = u->frames == 0 ? 0 : 1; pass < 2; pass++) {
        ImGui::NewFrame();
        c->npanels = 0;
        c->nfields = 0;
        c->timeline_bar.w = 0.0f;
        build(u, a, c);
        ImGui::Render();
        ui_late_releases(u);
    }
    ui_render_draw_data(u, ImGui::GetDrawData());
    if (!a->opt.headless)
        text_input(a);
    u->frames++;
}
