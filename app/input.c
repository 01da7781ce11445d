/*
 * input.c — what keys and clicks do: the app's controls first, then the
 * scene's keypressed / mousepressed. F1 lists the keys (hud.c).
 *
 * Key names given to scene.keypressed are SDL's names in lower case ("a",
 * "space", "return", "left", "f5", "["), close to LÖVE's. Mouse buttons are
 * numbered as in LÖVE: 1 left, 2 right, 3 middle.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "input.h"

#define SELECT_RADIUS_PX 24.0
#define MIN_TIME_SCALE (1.0 / 16.0)
#define MAX_TIME_SCALE 16.0

/* How long a key's flash stays up. */
#define KEY_FLASH_SECONDS 1.2

/* Scales every agent's max speed (speed) or max force by factor and flashes
 * the running factor. */
static void scale_agents(app *a, bool speed, double factor)
{
    app_scale(a, speed, factor); /* an input: recorded, replayed (event.c) */
    if (speed)
        app_flash(a, FLASH_OK, KEY_FLASH_SECONDS, "max speed x%.2f", a->speed_factor);
    else
        app_flash(a, FLASH_OK, KEY_FLASH_SECONDS, "max force x%.2f", a->force_factor);
}

static void cycle_scene(app *a, int dir)
{
    static char paths[64][PATH_MAX];
    int n = app_list_scenes(a, paths, 64);
    if (n == 0)
        return;
    int cur = -1;
    for (int i = 0; i < n; i++)
        if (strcmp(paths[i], a->scene_path) == 0)
            cur = i;
    int next = cur < 0 ? 0 : ((cur + dir) % n + n) % n;
    tt_scene_switched(a, paths[next]);
    app_switch_scene(a, paths[next]);
    a->selected = st_null_agent();
    a->show_plots = false; /* the plots were the old scene's agent's */
}

static void toggle(app *a, unsigned flag, const char *name)
{
    a->overlays ^= flag;
    app_flash(a, FLASH_OK, KEY_FLASH_SECONDS, "%s %s", name, (a->overlays & flag) ? "on" : "off");
}

/* F2..F11 toggle the overlays; the flash names the one toggled. */
static const struct {
    SDL_Keycode key;
    unsigned flag;
    const char *name;
} OVERLAY_KEYS[] = {
    {SDLK_F2, OV_VELOCITY, "velocity"},
    {SDLK_F3, OV_FORCE, "steering force"},
    {SDLK_F4, OV_WANDER, "wander circle"},
    {SDLK_F5, OV_CONE, "view cone"},
    {SDLK_F6, OV_FEELERS, "feelers and detection box"},
    {SDLK_F7, OV_LINKS, "neighbour links"},
    {SDLK_F8, OV_STATE, "state names"},
    {SDLK_F9, OV_PATHS, "paths"},
    {SDLK_F10, OV_HUD, "HUD"},
    {SDLK_F11, OV_ORCA, "ORCA half-planes (selected agent)"},
};

/* [ ] max speed, ; ' max force: down or up by 10%. */
static const struct {
    SDL_Keycode key;
    bool speed;
    double factor;
} SCALE_KEYS[] = {
    {SDLK_LEFTBRACKET, true, 1.0 / 1.1},
    {SDLK_RIGHTBRACKET, true, 1.1},
    {SDLK_SEMICOLON, false, 1.0 / 1.1},
    {SDLK_QUOTE, false, 1.1},
};

/* The keys of the two tables above; false for any other. */
static bool table_key(app *a, SDL_Keycode sym)
{
    for (size_t i = 0; i < sizeof OVERLAY_KEYS / sizeof OVERLAY_KEYS[0]; i++) {
        if (sym == OVERLAY_KEYS[i].key) {
            toggle(a, OVERLAY_KEYS[i].flag, OVERLAY_KEYS[i].name);
            return true;
        }
    }
    for (size_t i = 0; i < sizeof SCALE_KEYS / sizeof SCALE_KEYS[0]; i++) {
        if (sym == SCALE_KEYS[i].key) {
            scale_agents(a, SCALE_KEYS[i].speed, SCALE_KEYS[i].factor);
            return true;
        }
    }
    return false;
}

/* + / -: the time scale doubled or halved, within its bounds. */
static void change_time_scale(app *a, bool faster)
{
    if (faster && a->time_scale < MAX_TIME_SCALE)
        a->time_scale *= 2.0;
    else if (!faster && a->time_scale > MIN_TIME_SCALE)
        a->time_scale *= 0.5;
    app_flash(a, FLASH_OK, KEY_FLASH_SECONDS, "time scale x%g", a->time_scale);
}

/* Left / Right while paused: a tick (Shift: a second) back or forward. */
static void travel(app *a, bool back, bool shift)
{
    if (!a->paused)
        return;
    long by = shift && a->dt > 0.0 ? (long)(1.0 / a->dt + 0.5) : 1;
    if (back) {
        tt_rewind_to(a, a->steps_run - by);
        return;
    }
    long want = a->steps_run + by;
    tt_rewind_to(a, want); /* through the known future, up to the head */
    while (a->steps_run < want && a->world != NULL && !a->quit)
        app_step(a); /* past the head: new steps */
}

/* The app's own keys; returns false for keys it does not use. */
static bool app_key(app *a, const SDL_KeyboardEvent *k, input_result *out)
{
    SDL_Keycode sym = k->keysym.sym;
    bool shift = (k->keysym.mod & KMOD_SHIFT) != 0;
    if (table_key(a, sym))
        return true;
    switch (sym) {
    case SDLK_ESCAPE:
        a->quit = true;
        return true;
    case SDLK_SPACE:
        a->paused = !a->paused;
        a->accumulator = 0.0;
        return true;
    case SDLK_n:
        if (a->paused)
            a->pending_steps++;
        return true;
    case SDLK_PLUS:
    case SDLK_KP_PLUS:
    case SDLK_EQUALS:
        change_time_scale(a, true);
        return true;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        change_time_scale(a, false);
        return true;
    case SDLK_r:
        app_restart(a);
        return true;
    case SDLK_TAB:
        cycle_scene(a, shift ? -1 : 1);
        return true;
    case SDLK_p:
        out->screenshot = true;
        return true;
    case SDLK_F1:
        a->help = !a->help;
        return true;
    case SDLK_LEFT:
    case SDLK_RIGHT:
        travel(a, sym == SDLK_LEFT, shift);
        return true;
    case SDLK_BACKQUOTE:
        console_open(a, NULL);
        return true;
    case SDLK_g:
        a->show_plots = !a->show_plots;
        app_flash(a, FLASH_OK, KEY_FLASH_SECONDS, "plots of the selected agent %s", a->show_plots ? "on" : "off");
        return true;
    default:
        return false;
    }
}

static void key_name(SDL_Keycode sym, char *out, size_t n)
{
    snprintf(out, n, "%s", SDL_GetKeyName(sym));
    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

/* A click: on the timeline it seeks; on any other panel (a window, ui.h)
 * it is the panel's and nothing else happens; a left click near an agent
 * selects it and is the app's; any other click (a left click on empty space
 * also clears the selection) reaches scene.mousepressed. */
static void click(app *a, const render_ctx *c, const SDL_MouseButtonEvent *m)
{
    if (a->world == NULL)
        return;
    long tick = m->button == SDL_BUTTON_LEFT ? timeline_hit(a, c, m->x, m->y) : -1;
    if (tick >= 0) {
        /* the timeline: jump there (paused) */
        a->seek_to = tick;
        a->seek_pending = true;
        return;
    }
    if (render_panel_at(c, (float)m->x, (float)m->y) != NULL)
        return; /* a window's (ui.h) */
    st_vec2 p = to_world(c, m->x, m->y);
    int button = m->button == SDL_BUTTON_LEFT ? 1 : m->button == SDL_BUTTON_RIGHT ? 2
                                                 : m->button == SDL_BUTTON_MIDDLE ? 3 : m->button;
    if (button == 1) {
        st_query q = st_default_query(p, SELECT_RADIUS_PX / c->scale);
        a->selected = st_world_nearest(a->world, &q, NULL);
        if (!st_id_is_null(a->selected))
            return;
    }
    app_mousepressed(a, p, button);
}

void input_handle(app *a, const render_ctx *c, const SDL_Event *e, input_result *out)
{
    if (console_handle(a, e))
        return; /* typed into the console: neither the app's keys nor the scene's */
    switch (e->type) {
    case SDL_QUIT:
        a->quit = true;
        break;
    case SDL_KEYDOWN: {
        if (e->key.repeat && e->key.keysym.sym != SDLK_n)
            break;
        SDL_Keycode sym = e->key.keysym.sym;
        /* Scene switches and restarts replace the world: the scene hears of
         * the key only when it is still the same scene. */
        bool replaces = sym == SDLK_TAB || sym == SDLK_r || sym == SDLK_ESCAPE || sym == SDLK_BACKQUOTE;
        /* time travel keys are the app's: a scene hearing them in the past would branch */
        bool travel = a->paused && (sym == SDLK_LEFT || sym == SDLK_RIGHT);
        bool in_past = tt_head(a) > a->steps_run;
        bool modifier = (SDL_GetModState() & KMOD_SHIFT) != 0 && (sym == SDLK_LSHIFT || sym == SDLK_RSHIFT);
        bool handled = app_key(a, &e->key, out);
        /* in the past the app's own keys (and Shift) stay the app's: only a
         * key the app does not use reaches the scene there, and branches */
        if (!replaces && !travel && !(in_past && (handled || modifier))) {
            char name[64];
            key_name(sym, name, sizeof name);
            if (name[0])
                app_keypressed(a, name);
        }
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        click(a, c, &e->button);
        break;
    case SDL_MOUSEMOTION:
        a->mouse = to_world(c, e->motion.x, e->motion.y);
        /* over a panel the mouse is the app's: the scene sees none */
        a->mouse_valid = render_panel_at(c, (float)e->motion.x, (float)e->motion.y) == NULL;
        if (e->motion.state & SDL_BUTTON_LMASK) {
            long tick = timeline_hit(a, c, e->motion.x, e->motion.y);
            if (tick >= 0) {
                a->seek_to = tick; /* dragging on the timeline */
                a->seek_pending = true;
            }
        }
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            a->mouse_valid = false;
        break;
    default:
        break;
    }
}
