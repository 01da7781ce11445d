/*
 * hud.c — what the windows (ui*.cpp) show that is not theirs alone: the
 * flash message, the frame rate, the key list of the F1 help, and the
 * panels registry (every window drawn this frame, for input routing).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

/* Every key the app handles; F1 shows this list (key, what it does). */
const char *const hud_help[][2] = {
    {"Space", "pause / resume"},
    {"N", "one step (while paused)"},
    {"+ / -", "time scale x2 / x0.5"},
    {"R", "restart the scene (same seed)"},
    {"Tab", "next scene in scripts/ (Shift: previous)"},
    {"P", "screenshot (PNG in the current folder)"},
    {"[ / ]", "max speed of every agent -10% / +10%"},
    {"; / '", "max force of every agent -10% / +10%"},
    {"click", "an agent: select it (the app's)"},
    {"", "empty space: none (the scene hears it)"},
    {"", "a window: the window's, never the scene's"},
    {"Left/Right", "paused: a tick back / forward (Shift: 1 s)"},
    {"", "a key, click or edit in the past branches"},
    {"G", "plots of the selected agent, last 10 s"},
    {"timeline", "ticks, reloads, restarts, errors, marks;"},
    {"", "click or drag on it to jump to a tick"},
    {"F2 / F3", "velocity / steering force"},
    {"F4 / F5", "wander circle / view cone"},
    {"F6", "feelers and detection box"},
    {"F7 / F8", "neighbour links / state names"},
    {"F9 / F10", "paths / windows on and off"},
    {"F11", "ORCA of the selected agent (on)"},
    {"F12", "the scene's own (maze: nav overlay)"},
    {"`", "Lua console (world, scene, agent(id))"},
    {"agent", "click a number, type, Enter: an edit"},
    {"", "(recorded as a console line), Esc: cancel"},
    {"windows", "drag by the title, size by the corner,"},
    {"", "fold with the arrow; they never overlap"},
    {"F1 / Esc", "this help / quit"},
    {"save", "a .lua file of the scene reloads it in place"},
};
const int hud_help_count = (int)(sizeof hud_help / sizeof hud_help[0]);

void render_panel(render_ctx *c, const char *name, float x, float y, float w, float h)
{
    if (c->npanels < RENDER_MAX_PANELS)
        c->panels[c->npanels++] = (struct render_panel){name, {x, y, w, h}};
}

const char *render_panel_at(const render_ctx *c, float x, float y)
{
    for (int i = c->npanels - 1; i >= 0; i--) {
        const SDL_FRect *r = &c->panels[i].r;
        if (x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h)
            return c->panels[i].name;
    }
    return NULL;
}

void app_flash(app *a, app_flash_kind kind, double seconds, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->flash, sizeof a->flash, fmt, ap);
    va_end(ap);
    a->flash_bad = kind == FLASH_BAD;
    a->flash_until = app_clock() + seconds;
}

void hud_update_fps(app *a, double now)
{
    if (a->fps_last > 0.0 && now > a->fps_last)
        a->fps = a->fps == 0.0 ? 1.0 / (now - a->fps_last) : a->fps * 0.9 + 0.1 / (now - a->fps_last);
    a->fps_last = now;
}
