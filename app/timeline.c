/*
 * timeline.c — the bar along the bottom of the window (shown with the HUD):
 * the range of ticks the app knows, the current tick, and marks for
 * reloads (green), script errors (red) and the scene's own world:mark
 * labels (yellow). A replay shows the whole recording, marks to come
 * included, with the part already played filled in.
 */
#include <stdio.h>
#include <string.h>

#include "event_marks.h"
#include "render.h"

static const SDL_Color BG = {0, 0, 0, 175};
static const SDL_Color TRACK = {60, 66, 80, 255};
static const SDL_Color DONE = {95, 120, 165, 255};
static const SDL_Color CURSOR = {245, 245, 250, 255};
static const SDL_Color TEXT = {225, 228, 235, 255};
static const SDL_Color REC = {235, 70, 60, 255};
static const SDL_Color PAST = {255, 200, 90, 255};
static const SDL_Color MARK_COL[3] = {{255, 210, 80, 255}, {110, 220, 130, 255}, {255, 100, 90, 255}};

static float measure(void *ud, const char *text)
{
    return font_width(ud, text, strlen(text));
}

typedef struct geom {
    float x0, y0, w, h; ///< the panel
    float bx, bw, by;   ///< the bar
    long now, end;
    char info[160];
} geom;

/// While the scene runs live the bar is a thin strip along the bottom edge,
/// clear of the status line scenes draw there; paused, replaying, in the
/// past or headless (screenshots) it is the whole panel.
static bool compact(const app *a)
{
    return !a->paused && !a->opt.headless && !tt_replaying(a) && a->steps_run >= tt_head(a);
}

static void layout(app *a, const render_ctx *c, geom *g)
{
    float pad = 8.0f;
    g->h = compact(a) ? 6.0f : 30.0f;
    g->x0 = pad;
    g->y0 = (float)c->h - g->h - (compact(a) ? 0.0f : 4.0f);
    g->w = (float)c->w - 2.0f * pad;
    g->now = a->steps_run;
    g->end = a->rep && tt_replaying(a) ? tt_replay_end(a) : tt_head(a);
    if (g->end < g->now)
        g->end = g->now;
    double dt = a->dt > 0.0 ? a->dt : 1.0 / 60.0;
    char mode[64] = "";
    if (tt_replaying(a))
        snprintf(mode, sizeof mode, "REPLAY  ");
    else if (g->now < g->end)
        snprintf(mode, sizeof mode, "PAST (%.1f s ago)  ", (double)(g->end - g->now) * dt);
    else if (a->branch_tick > 0)
        snprintf(mode, sizeof mode, "branched at %ld  ", a->branch_tick);
    snprintf(g->info, sizeof g->info, "%s%stick %ld / %ld  (%.1f s)", tt_recording(a) ? "REC  " : "", mode, g->now,
             g->end, (double)g->now * dt);
    float tw = c->small ? font_width(c->small, g->info, strlen(g->info)) : 0.0f;
    g->bx = g->x0 + 8.0f;
    g->bw = g->w - tw - 28.0f;
    g->by = g->y0 + 17.0f;
    if (g->bw < 40.0f)
        g->bw = 40.0f;
}

long timeline_hit(app *a, const render_ctx *c, int x, int y)
{
    if (!(a->overlays & OV_HUD) || a->world == NULL)
        return -1;
    geom g;
    layout(a, c, &g);
    if ((float)y < g.y0 || (float)y > g.y0 + g.h || (float)x < g.bx - 6.0f || (float)x > g.bx + g.bw + 6.0f)
        return -1;
    double f = ((double)x - g.bx) / g.bw;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    return (long)(f * (double)g.end + 0.5);
}

void timeline_draw(app *a, render_ctx *c)
{
    if (!(a->overlays & OV_HUD) || a->world == NULL)
        return;
    batch *b = &c->layer[LAYER_HUD];
    geom g;
    layout(a, c, &g);
    long now = g.now, end = g.end;
    render_panel(c, "timeline", g.x0, g.y0, g.w, g.h); /* placed first: the others keep clear of it */
    if (compact(a)) {
        /* the strip: the track, the marks as ticks, no labels */
        float span = end > 0 ? (float)end : 1.0f;
        batch_rect(b, g.x0, g.y0 + 2.0f, g.w, 3.0f, TRACK);
        int n = a->mark_count < APP_MAX_MARKS ? a->mark_count : APP_MAX_MARKS;
        for (int i = 0; i < n; i++) {
            const app_mark *m = &a->marks[(a->mark_count - n + i) % APP_MAX_MARKS];
            batch_rect(b, g.x0 + g.w * (float)m->tick / span - 1.0f, g.y0, 2.0f, g.h, MARK_COL[m->kind]);
        }
        return;
    }
    batch_rect(b, g.x0, g.y0, g.w, g.h, BG);
    float bx = g.bx, bw = g.bw, by = g.by, y0 = g.y0;
    hud_text(c, c->small, bx + bw + 12.0f, y0 + 8.0f, g.info, tt_recording(a) ? REC : now < end ? PAST : TEXT);

    batch_rect(b, bx, by, bw, 6.0f, TRACK);
    float span = end > 0 ? (float)end : 1.0f;
    batch_rect(b, bx, by, bw * (float)now / span, 6.0f, DONE);

    /* marks: a replay's or a rewind's whole list (the future's too), else the app's ring */
    static app_mark list[APP_MAX_MARKS];
    int n;
    if (a->rep) {
        n = tt_replay_marks(a, list, APP_MAX_MARKS);
    } else {
        n = a->mark_count < APP_MAX_MARKS ? a->mark_count : APP_MAX_MARKS;
        for (int i = 0; i < n; i++)
            list[i] = a->marks[(a->mark_count - n + i) % APP_MAX_MARKS];
    }
    static float xs[APP_MAX_MARKS];
    static const char *names[APP_MAX_MARKS];
    for (int i = 0; i < n; i++) {
        xs[i] = bx + bw * (float)list[i].tick / span;
        names[i] = list[i].kind != MARK_ERROR ? list[i].label : NULL; /* errors: red ticks, no label */
        batch_rect(b, xs[i] - 1.0f, by - 5.0f, 2.0f, 16.0f, MARK_COL[list[i].kind]);
    }
    /* labels of scene marks and reloads, never overlapping: a burst is one "catch x3" (event_marks.c) */
    static mark_label labels[APP_MAX_MARKS];
    int nl = c->small ? marks_layout(n, xs, names, measure, c->small, 3.0f, 6.0f, g.x0, bx + bw + 6.0f, labels, APP_MAX_MARKS) : 0;
    for (int i = 0; i < nl; i++)
        hud_text(c, c->small, labels[i].x, y0 + 1.0f, labels[i].text, MARK_COL[list[labels[i].first].kind]);
    app_events_draw_timeline(a, c, bx, by + 7.0f, bw, span, now); /* under the track */
    float cx = bx + bw * (float)now / span;
    batch_rect(b, cx - 1.5f, by - 8.0f, 3.0f, 20.0f, CURSOR);
}
