/*
 * hud.c — the heads-up display: run statistics, script status, the
 * selected agent's `self`, the error panel, the flash message and the F1
 * help, each panel drawn by a function of its own.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "steer_host.h"

static const SDL_Color HUD_BG = {0, 0, 0, 215};
static const SDL_Color HUD_TEXT = {225, 228, 235, 255};
static const SDL_Color HUD_DIM = {150, 156, 170, 255};
static const SDL_Color HUD_OK = {110, 220, 130, 255};
static const SDL_Color HUD_BAD = {255, 110, 100, 255};
static const SDL_Color HUD_WARN = {255, 200, 90, 255};

#define PAD 8.0f

/* Every key the app handles; F1 shows this list (key, what it does). */
static const char *const HELP[][2] = {
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
    {"Left/Right", "paused: a tick back / forward (Shift: 1 s)"},
    {"", "a key, click or edit in the past branches"},
    {"G", "plots of the selected agent, last 10 s"},
    {"timeline", "ticks, reloads, restarts, errors, marks;"},
    {"", "click or drag on it to jump to a tick"},
    {"F2 / F3", "velocity / steering force"},
    {"F4 / F5", "wander circle / view cone"},
    {"F6", "feelers and detection box"},
    {"F7 / F8", "neighbour links / state names"},
    {"F9 / F10", "paths / HUD on and off"},
    {"F11", "ORCA of the selected agent (on)"},
    {"F12", "the scene's own (maze: nav overlay)"},
    {"`", "Lua console (world, scene, agent(id));"},
    {"", "click a number of the selected agent: edit it"},
    {"F1 / Esc", "this help / quit"},
    {"save", "a .lua file of the scene reloads it in place"},
};

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

/* A panel placed clear of the others (layout.c) and its background;
 * false when it fits nowhere this frame. */
static bool panel(render_ctx *c, const char *name, float x, float *y, float w, float *h, float min_h, bool up)
{
    if (!layout_place(c, name, x, y, w, h, min_h, up))
        return false;
    batch_rect(&c->layer[LAYER_HUD], x, *y, w, *h, HUD_BG);
    return true;
}

float hud_text(render_ctx *c, const font *f, float x, float y, const char *s, SDL_Color col)
{
    return font_draw(f, &c->layer[LAYER_HUD_TEXT], x, y, s, strlen(s), col);
}

static float text(render_ctx *c, float x, float y, const char *s, SDL_Color col)
{
    return hud_text(c, c->font, x, y, s, col);
}

/* Lines of s (split at '\n'), each cut to fit max_w pixels, at most max_lines. */
static float text_block(render_ctx *c, float x, float y, const char *s, SDL_Color col, float max_w, int max_lines)
{
    float lh = (float)font_line_height(c->font);
    int lines = 0;
    const char *p = s;
    while (lines < max_lines && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        /* Wrap long lines rather than losing the end of `file:line: message`. */
        do {
            size_t fit = n;
            while (fit > 1 && font_width(c->font, p, fit) > max_w)
                fit--;
            font_draw(c->font, &c->layer[LAYER_HUD_TEXT], x, y, p, fit, col);
            y += lh;
            lines++;
            p += fit;
            n -= fit;
        } while (n > 0 && lines < max_lines);
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return y;
}

static int count_lines(const char *s)
{
    int n = 1;
    for (; *s; s++)
        n += *s == '\n';
    return n;
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

/* Frames per second, smoothed over the last ten frames or so. */
static void update_fps(app *a, double now)
{
    if (a->fps_last > 0.0 && now > a->fps_last)
        a->fps = a->fps == 0.0 ? 1.0 / (now - a->fps_last) : a->fps * 0.9 + 0.1 / (now - a->fps_last);
    a->fps_last = now;
}

/* "script: ok", or the errors and paused brains in red. */
static void draw_script_status(app *a, render_ctx *c, float x, float y)
{
    int paused_brains = app_paused_brains(a);
    char line[128];
    float xx = text(c, x, y, "script: ", HUD_TEXT);
    if (a->error_count == 0 && paused_brains == 0 && a->scene_ok) {
        text(c, xx, y, "ok", HUD_OK);
        return;
    }
    snprintf(line, sizeof line, "%d error%s%s", a->error_count, a->error_count == 1 ? "" : "s",
             paused_brains ? "," : "");
    xx = text(c, xx, y, line, HUD_BAD);
    if (paused_brains) {
        snprintf(line, sizeof line, " %d brain%s paused", paused_brains, paused_brains == 1 ? "" : "s");
        text(c, xx, y, line, HUD_BAD);
    }
}

/* The top-left panel: the scene, timing, counts, live factors, script status. */
static void draw_stats(app *a, render_ctx *c)
{
    float lh = (float)font_line_height(c->font);
    char line[512];
    int agents = a->world ? st_world_count(a->world, ST_TAG_ANY) : 0;
    /* the timeline's tick (steps since start); the world's own restarts with R */
    long wtick = a->world ? (long)st_world_tick(a->world) : 0;
    char world_tick[48] = "";
    if (wtick != a->steps_run)
        snprintf(world_tick, sizeof world_tick, " (world %ld)", wtick);
    float py = PAD, ph = lh * 7.0f + 10.0f;
    if (!panel(c, "stats", PAD, &py, 360.0f, &ph, ph, false))
        return;
    float x = PAD + 6.0f, y = py + 4.0f;
    app_format(line, sizeof line, "%s  (%s.lua)", a->title[0] ? a->title : a->scene_module, a->scene_module);
    float xx = text(c, x, y, line, HUD_TEXT);
    if (tt_recording(a) && !tt_replaying(a))
        text(c, xx + 10.0f, y, "REC", HUD_BAD);
    y += lh;
    if (a->opt.headless)
        snprintf(line, sizeof line, "headless   step %.3f ms   tick %ld%s", a->ms_per_step, a->steps_run, world_tick);
    else
        snprintf(line, sizeof line, "FPS %.0f   step %.3f ms   tick %ld%s", a->fps, a->ms_per_step, a->steps_run,
                 world_tick);
    text(c, x, y, line, HUD_TEXT);
    y += lh;
    snprintf(line, sizeof line, "agents %d   time x%g   seed %llu%s", agents, a->time_scale,
             (unsigned long long)a->seed, a->paused ? "   PAUSED" : "");
    text(c, x, y, line, a->paused ? HUD_WARN : HUD_TEXT);
    y += lh;
    snprintf(line, sizeof line, "max speed x%.2f   max force x%.2f", a->speed_factor, a->force_factor);
    text(c, x, y, line, HUD_TEXT);
    y += lh;
    draw_script_status(a, c, x, y);
    y += lh;
    const char *mode = a->opt.trust ? "trusted" : "sandboxed";
    snprintf(line, sizeof line, "%s   memory %.1f MB   update %s   draw %s", mode,
             a->L ? (double)steer_host_memory(a->L) / (1024.0 * 1024.0) : 0.0,
             a->update_paused ? "STOPPED" : "ok", a->draw_paused ? "STOPPED" : "ok");
    text(c, x, y, line, a->update_paused || a->draw_paused ? HUD_BAD : HUD_DIM);
    y += lh;
    text(c, x, y, "F1 help", HUD_DIM);
}

/* The numbers among the lines of self ("key = 12.5") drawn from (x, y):
 * clickable, each opening the console on its edit (input.c). */
static void note_fields(render_ctx *c, unsigned long long serial, const char *self, float x, float y, float w,
                        int max_lines)
{
    float lh = (float)font_line_height(c->font);
    int row = 0;
    for (const char *p = self; *p && row < max_lines;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[160], key[64];
        int used = 0;
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
        if (sscanf(line, " %63[A-Za-z0-9_] = %n", key, &used) == 1 && used > 0 && c->nfields < RENDER_MAX_FIELDS) {
            char *end = NULL;
            strtod(line + used, &end);
            if (end != line + used && *end == '\0') {
                struct render_field *f = &c->fields[c->nfields++];
                snprintf(f->edit, sizeof f->edit, "agent(%llu).self.%s = %s", serial, key, line + used);
                f->r = (SDL_FRect){x, y + lh * (float)row, w, lh};
            }
        }
        row += 1 + (int)(font_width(c->font, p, n) / w); /* text_block wraps long lines */
        if (nl == NULL)
            break;
        p = nl + 1;
    }
}

/* The first `lines` lines of app_describe_tree's text from (x, y): the
 * running branch ("> ") in the warning colour, the rest dimmed. Returns
 * the y below them. */
static float draw_tree(render_ctx *c, float x, float y, const char *tree, int lines, float max_w)
{
    float lh = (float)font_line_height(c->font);
    char row[256];
    for (const char *p = tree; *p && lines > 0; lines--) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(row, sizeof row, "%.*s", (int)len, p);
        int fit = (int)strlen(row);
        while (fit > 1 && font_width(c->font, row, fit) > max_w)
            fit--;
        font_draw(c->font, &c->layer[LAYER_HUD_TEXT], x, y, row, fit, row[0] == '>' ? HUD_WARN : HUD_DIM);
        y += lh;
        p = nl ? nl + 1 : p + len;
    }
    return y;
}

/* The top-right panel: the selected agent's motion, each behaviour's share
 * of its last step (when traced) and its `self`. */
static void draw_selected(app *a, render_ctx *c, st_agent_id id)
{
    float lh = (float)font_line_height(c->font);
    char line[512], self[4096], tree[2048];
    app_describe_self(a, id, self, sizeof self);
    app_describe_tree(a, id, tree, sizeof tree);
    int nt = tree[0] ? count_lines(tree) - 1 : 0; /* it ends in a newline */
    const st_trace_entry *tr = NULL;
    int ntr = a->trace_world == a->world && st_id_equal(a->traced, id) ? st_world_trace(a->world, &tr) : 0;
    st_move_state ms = st_agent_move_state(a->world, id);
    int nl = count_lines(self) + 5 + ntr + (ms != ST_MOVE_IDLE) + nt;
    float w = 320.0f, px = (float)c->w - w - PAD, py = PAD, ph = lh * (float)nl + 10.0f;
    /* at least its motion and a few lines of self; the rest is cut */
    if (!panel(c, "agent", px, &py, w, &ph, lh * 8.0f + 10.0f, false))
        return;
    int room = (int)((ph - 10.0f) / lh); /* lines that fit */
    if (5 + ntr + (ms != ST_MOVE_IDLE) > room)
        ntr = 0; /* the forces go first */
    float sy = py + 4.0f, sx = px + 6.0f;
    st_vec2 p = st_agent_pos(a->world, id);
    snprintf(line, sizeof line, "agent %llu", (unsigned long long)st_agent_serial(a->world, id));
    text(c, sx, sy, line, HUD_WARN);
    sy += lh;
    snprintf(line, sizeof line, "pos (%.1f, %.1f)  speed %.1f / %.0f", p.x, p.y, st_agent_speed(a->world, id),
             st_agent_max_speed(a->world, id));
    text(c, sx, sy, line, HUD_TEXT);
    sy += lh;
    snprintf(line, sizeof line, "force %.1f / %.0f", st_v2_len(st_agent_force(a->world, id)),
             st_agent_max_force(a->world, id));
    text(c, sx, sy, line, HUD_TEXT);
    sy += lh;
    if (ms != ST_MOVE_IDLE) { /* its order: state, distance left, group slot */
        int slot, group = st_agent_move_group(a->world, id, &slot);
        int n = snprintf(line, sizeof line, "order: %s, %.0f left", st_move_state_name(ms),
                         st_agent_move_remaining(a->world, id));
        if (group > 0 && slot >= 0 && n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, ", slot %d of group %d", slot + 1, group);
        text(c, sx, sy, line, HUD_TEXT);
        sy += lh;
    }
    /* Each behaviour's share of the last step, in its arrow's colour. */
    for (int i = 0; i < ntr; i++) {
        snprintf(line, sizeof line, "  %s %.1f x %g", st_behavior_name(tr[i].type), st_v2_len(tr[i].force),
                 tr[i].weight);
        text(c, sx, sy, line, behavior_color(tr[i].type));
        sy += lh;
    }
    /* Its behaviour tree, the running branch lit, as room allows. */
    int fixed = 5 + ntr + (ms != ST_MOVE_IDLE);
    nt = nt < room - fixed - 3 ? nt : room - fixed - 3;
    sy = draw_tree(c, sx, sy, tree, nt, w - 12.0f);
    fixed += nt > 0 ? nt : 0;
    text(c, sx, sy, "self:", HUD_DIM);
    sy += lh;
    int left = room - fixed;
    left = left < 30 ? left : 30;
    text_block(c, sx + 10.0f, sy, self[0] ? self : "(no self table)", HUD_TEXT, w - 20.0f, left);
    note_fields(c, (unsigned long long)st_agent_serial(a->world, id), self, sx + 10.0f, sy, w - 20.0f, left);
}

/* The bottom panel: the newest three script errors. */
static void draw_errors(app *a, render_ctx *c)
{
    float lh = (float)font_line_height(c->font);
    float w = (float)c->w - 2.0f * PAD;
    int shown = a->error_count < 3 ? a->error_count : 3;
    float h = lh * (float)(shown * 5) + 10.0f;
    float y = (float)c->h - h - PAD; /* above the timeline: placed from the bottom up */
    if (!panel(c, "errors", PAD, &y, w, &h, lh * 5.0f + 10.0f, true))
        return;
    shown = (int)((h - 10.0f) / (lh * 5.0f)); /* as many as fit, the newest */
    shown = shown > a->error_count ? a->error_count : shown;
    y += 4.0f;
    for (int i = a->error_count - shown; i < a->error_count; i++) {
        const app_error *e = &a->errors[i];
        char head[64];
        snprintf(head, sizeof head, "%s%s", e->kind == APP_ERR_LOAD ? "load error" : "runtime error",
                 e->count > 1 ? " (repeated)" : "");
        text(c, PAD + 6.0f, y, head, HUD_WARN);
        y = text_block(c, PAD + 6.0f, y + lh, e->text, HUD_BAD, w - 12.0f, 4);
    }
}

static void draw_flash(app *a, render_ctx *c)
{
    float lh = (float)font_line_height(c->font);
    float tw = font_width(c->font, a->flash, strlen(a->flash));
    float x = ((float)c->w - tw) * 0.5f, y = PAD, h = lh + 8.0f;
    if (!panel(c, "flash", x - 8.0f, &y, tw + 16.0f, &h, h, false))
        return;
    text(c, x, y + 4.0f, a->flash, a->flash_bad ? HUD_BAD : HUD_OK);
}

/* The F1 help: a column on the left, under the stats;
 * cut short (saying so) where the window is too low for all of it. */
static void draw_help(render_ctx *c)
{
    const font *f = c->font;
    float lh = (float)font_line_height(f);
    int n = (int)(sizeof HELP / sizeof HELP[0]);
    float w = 420.0f, x = PAD, y = PAD, h = lh * (float)(n + 2) + 12.0f;
    if (!panel(c, "help", x, &y, w, &h, lh * 6.0f + 12.0f, false))
        return;
    hud_text(c, c->font, x + 10.0f, y + 6.0f, "steer - keys (F1 closes)", HUD_WARN);
    int room = (int)((h - 12.0f) / lh) - 2;
    for (int i = 0; i < n && i < room; i++) {
        float ly = y + 6.0f + lh * (float)(i + 2);
        bool last = i == room - 1 && room < n;
        hud_text(c, f, x + 10.0f, ly, last ? "..." : HELP[i][0], HUD_WARN);
        hud_text(c, f, x + 100.0f, ly, last ? "(a taller window shows the rest)" : HELP[i][1], HUD_TEXT);
    }
}

void hud_draw(app *a, render_ctx *c)
{
    double now = app_clock();
    update_fps(a, now);
    /* Placed in this order, each clear of those before it (layout.c): the
     * timeline, the stats, the errors (always shown, whatever the HUD
     * toggle), the selected agent, the plots, a message, the help. */
    timeline_draw(a, c);
    console_draw(a, c);
    if (a->overlays & OV_HUD)
        draw_stats(a, c);
    if (a->error_count > 0)
        draw_errors(a, c);
    if ((a->overlays & OV_HUD) && a->world && st_agent_alive(a->world, a->selected))
        draw_selected(a, c, a->selected);
    plot_draw(a, c);
    if (a->flash[0] && now < a->flash_until)
        draw_flash(a, c);
    if (a->help)
        draw_help(c);
}
