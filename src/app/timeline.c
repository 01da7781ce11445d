/*
 * timeline.c — the bar along the bottom of the window (shown with the HUD):
 * the range of ticks the app knows, the current tick, and marks for
 * reloads (green), script errors (red) and the scene's own world:mark
 * labels (yellow). A replay shows the whole recording, marks to come
 * included, with the part already played filled in.
 */
#include <stdio.h>
#include <string.h>

#include "render.h"

static const SDL_Color BG = {0, 0, 0, 175};
static const SDL_Color TRACK = {60, 66, 80, 255};
static const SDL_Color DONE = {95, 120, 165, 255};
static const SDL_Color CURSOR = {245, 245, 250, 255};
static const SDL_Color TEXT = {225, 228, 235, 255};
static const SDL_Color REC = {235, 70, 60, 255};
static const SDL_Color MARK_COL[3] = {{255, 210, 80, 255}, {110, 220, 130, 255}, {255, 100, 90, 255}};

static void rect(batch *b, float x, float y, float w, float h, SDL_Color c)
{
    SDL_FPoint p0 = {x, y}, p1 = {x + w, y}, p2 = {x + w, y + h}, p3 = {x, y + h};
    batch_tri(b, p0, p1, p2, c);
    batch_tri(b, p0, p2, p3, c);
}

static float label(render_ctx *c, float x, float y, const char *s, SDL_Color col)
{
    if (c->small == NULL)
        return x;
    return font_draw(c->small, &c->layer[LAYER_HUD_TEXT], x, y, s, strlen(s), col);
}

void timeline_draw(app *a, render_ctx *c)
{
    if (!(a->overlays & OV_HUD) || a->world == NULL)
        return;
    batch *b = &c->layer[LAYER_HUD];
    float pad = 8.0f, h = 30.0f;
    float x0 = pad, y0 = (float)c->h - h - 4.0f, w = (float)c->w - 2.0f * pad;
    rect(b, x0, y0, w, h, BG);

    long now = a->steps_run;
    long end = a->rep ? tt_replay_end(a) : now;
    if (end < now)
        end = now;
    double dt = a->dt > 0.0 ? a->dt : 1.0 / 60.0;
    char info[128];
    const char *mode = a->rec ? "REC" : tt_replaying(a) ? "REPLAY" : a->rep ? "replayed" : "";
    snprintf(info, sizeof info, "%s%stick %ld / %ld  (%.1f s)", mode, mode[0] ? "  " : "", now, end, (double)now * dt);
    float tw = c->small ? font_width(c->small, info, strlen(info)) : 0.0f;
    float bx = x0 + 8.0f, bw = w - tw - 28.0f, by = y0 + 17.0f;
    if (bw < 40.0f)
        bw = 40.0f;
    label(c, bx + bw + 12.0f, y0 + 8.0f, info, a->rec ? REC : TEXT);

    rect(b, bx, by, bw, 6.0f, TRACK);
    float span = end > 0 ? (float)end : 1.0f;
    rect(b, bx, by, bw * (float)now / span, 6.0f, DONE);

    /* marks: the replay's whole list, else the app's ring */
    static app_mark list[APP_MAX_MARKS];
    int n;
    if (a->rep) {
        n = tt_replay_marks(a, list, APP_MAX_MARKS);
    } else {
        n = a->mark_count < APP_MAX_MARKS ? a->mark_count : APP_MAX_MARKS;
        for (int i = 0; i < n; i++)
            list[i] = a->marks[(a->mark_count - n + i) % APP_MAX_MARKS];
    }
    float last_label = -1e9f;
    for (int i = 0; i < n; i++) {
        float x = bx + bw * (float)list[i].tick / span;
        SDL_Color col = MARK_COL[list[i].kind];
        rect(b, x - 1.0f, by - 5.0f, 2.0f, 16.0f, col);
        /* labels of scene marks and reloads where they do not overlap */
        if (list[i].kind != MARK_ERROR && x > last_label) {
            last_label = label(c, x + 3.0f, y0 + 1.0f, list[i].label, col) + 6.0f;
        }
    }
    float cx = bx + bw * (float)now / span;
    rect(b, cx - 1.5f, by - 8.0f, 3.0f, 20.0f, CURSOR);
}
