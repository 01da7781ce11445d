/*
 * ui_timeline.cpp — the timeline window along the bottom of the output, in
 * the band kept under the world view while the windows are on: the range
 * of ticks the app knows, the current tick, and marks for reloads (green),
 * script errors (red) and the scene's own world:mark labels (yellow); the
 * decision events as ticks under the track (events.c). A replay shows the
 * whole recording, marks to come included, with the part played filled in.
 *
 * It is the first window placed, so every other keeps clear of it; it does
 * not move. A click or drag on it seeks (input.c through timeline_hit, from
 * the bar drawn in the last frame).
 */
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

extern "C" {
#include "event_marks.h"
}

#define TL_H 30.0f

static const ImU32 TRACK = IM_COL32(60, 66, 80, 255);
static const ImU32 DONE = IM_COL32(95, 120, 165, 255);
static const ImU32 CURSOR = IM_COL32(245, 245, 250, 255);
static const ImU32 TEXT = IM_COL32(225, 228, 235, 255);
static const ImU32 REC = IM_COL32(235, 70, 60, 255);
static const ImU32 PAST = IM_COL32(255, 200, 90, 255);
static const ImU32 MARK_COL[3] = {IM_COL32(255, 210, 80, 255), IM_COL32(110, 220, 130, 255),
                                  IM_COL32(255, 100, 90, 255)};

/* "REC  PAST (1.5 s ago)  tick 120 / 210  (2.0 s)" */
static void info_line(const app *a, long now, long end, char *out, size_t n)
{
    double dt = a->dt > 0.0 ? a->dt : 1.0 / 60.0;
    char mode[64] = "";
    if (tt_replaying(a))
        snprintf(mode, sizeof mode, "REPLAY  ");
    else if (now < end)
        snprintf(mode, sizeof mode, "PAST (%.1f s ago)  ", (double)(end - now) * dt);
    else if (a->branch_tick > 0)
        snprintf(mode, sizeof mode, "branched at %ld  ", a->branch_tick);
    snprintf(out, n, "%s%stick %ld / %ld  (%.1f s)", tt_recording(a) ? "REC  " : "", mode, now, end, (double)now * dt);
}

static float measure(void *ud, const char *text)
{
    (void)ud;
    return ImGui::CalcTextSize(text).x;
}

/* The marks: a replay's whole list (the future's too), else the app's ring.
 * Labels of scene marks and reloads never overlap: a burst with one label
 * is one "catch x3", and a label with no room is left out (event_marks.c);
 * errors are red ticks without a label. */
static void draw_marks(app *a, ImDrawList *dl, ImVec2 bar, float bw, float y0, float span, float lo)
{
    static app_mark list[APP_MAX_MARKS];
    static float xs[APP_MAX_MARKS];
    static const char *names[APP_MAX_MARKS];
    static mark_label labels[APP_MAX_MARKS];
    int n;
    if (a->rep) {
        n = tt_replay_marks(a, list, APP_MAX_MARKS);
    } else {
        n = a->mark_count < APP_MAX_MARKS ? a->mark_count : APP_MAX_MARKS;
        for (int i = 0; i < n; i++)
            list[i] = a->marks[(a->mark_count - n + i) % APP_MAX_MARKS];
    }
    for (int i = 0; i < n; i++) {
        xs[i] = bar.x + bw * (float)list[i].tick / span;
        names[i] = list[i].kind != MARK_ERROR ? list[i].label : NULL;
        dl->AddRectFilled(ImVec2(xs[i] - 1.0f, bar.y - 5.0f), ImVec2(xs[i] + 1.0f, bar.y + 11.0f), MARK_COL[list[i].kind]);
    }
    int nl = marks_layout(n, xs, names, measure, NULL, 3.0f, 6.0f, lo, bar.x + bw + 6.0f, labels, APP_MAX_MARKS);
    for (int i = 0; i < nl; i++)
        dl->AddText(ImVec2(labels[i].x, y0), MARK_COL[list[labels[i].first].kind], labels[i].text);
}

void ui_window_timeline(ui *u, app *a, render_ctx *c)
{
    float pad = 8.0f, w = (float)c->w - 2.0f * pad;
    if (!ui_place(u, c, "timeline", ImVec2(pad, (float)c->h - TL_H - 4.0f), ImVec2(w, TL_H), TL_H, false))
        return;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.0f, 0.0f));
    ImGuiWindowFlags f = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                         ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
    bool open = ImGui::Begin("timeline", NULL, f);
    ImGui::PopStyleVar();
    ui_note_drawn(c);
    if (open) {
        long now = a->steps_run;
        long end = a->rep && tt_replaying(a) ? tt_replay_end(a) : tt_head(a);
        end = end < now ? now : end;
        char info[160];
        info_line(a, now, end, info, sizeof info);
        ImVec2 p0 = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
        float tw = ImGui::CalcTextSize(info).x;
        float bw = size.x - tw - 28.0f;
        bw = bw < 40.0f ? 40.0f : bw;
        ImVec2 bar(p0.x + 8.0f, p0.y + 17.0f);
        float span = end > 0 ? (float)end : 1.0f;
        ImDrawList *dl = ImGui::GetWindowDrawList();
        dl->AddText(ImVec2(bar.x + bw + 12.0f, p0.y + 7.0f), tt_recording(a) ? REC : now < end ? PAST : TEXT, info);
        dl->AddRectFilled(bar, ImVec2(bar.x + bw, bar.y + 6.0f), TRACK);
        dl->AddRectFilled(bar, ImVec2(bar.x + bw * (float)now / span, bar.y + 6.0f), DONE);
        draw_marks(a, dl, bar, bw, p0.y - 1.0f, span, p0.x);
        app_events_draw_timeline(a, c, bar.x, bar.y + 7.0f, bw, span, now); /* drawn over the windows */
        float cx = bar.x + bw * (float)now / span;
        dl->AddRectFilled(ImVec2(cx - 1.5f, bar.y - 8.0f), ImVec2(cx + 1.5f, bar.y + 12.0f), CURSOR);
        SDL_FRect hit = {bar.x, p0.y, bw, size.y};
        c->timeline_bar = hit;
        c->timeline_end = end;
    }
    ImGui::End();
}

long timeline_hit(app *a, const render_ctx *c, int x, int y)
{
    const SDL_FRect *b = &c->timeline_bar;
    if (!(a->overlays & OV_HUD) || a->world == NULL || !(b->w > 0.0f))
        return -1;
    if ((float)y < b->y || (float)y > b->y + b->h || (float)x < b->x - 6.0f || (float)x > b->x + b->w + 6.0f)
        return -1;
    double f = ((double)x - b->x) / b->w;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    return (long)(f * (double)c->timeline_end + 0.5);
}
