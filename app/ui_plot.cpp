/*
 * ui_plot.cpp — the plots window (key G): the selected agent's last 10 s as
 * strip charts, one a series (speed, |force|, the numbers of its `self`
 * that plot.c samples), its state changes as vertical lines with the new
 * state's name. Strips that do not fit the window's height are left out,
 * the first ones kept.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

extern "C" {
#include "plot.h"
}

#define STRIP_H 44.0f  /* pixels a series' strip is high */
#define STRIP_GAP 4.0f /* between strips */

static const ImU32 SERIES[PLOT_SERIES] = {
    IM_COL32(120, 200, 255, 255), IM_COL32(255, 140, 110, 255), IM_COL32(140, 230, 140, 255),
    IM_COL32(230, 170, 255, 255), IM_COL32(255, 230, 120, 255), IM_COL32(120, 230, 220, 255),
};
static const ImU32 AXIS = IM_COL32(90, 96, 110, 255);
static const ImU32 STATE = IM_COL32(255, 200, 90, 200);

/* Where the strips are, and the time axis. */
typedef struct plot_geom {
    ImVec2 at;   ///< the first strip's top left
    float w;     ///< the strips' width
    double span; ///< ticks across the width (PLOT_SECONDS of them)
    long newest; ///< the newest sample's tick, drawn at the right edge
} plot_geom;

static float tick_x(const plot_geom *g, long t)
{
    return g->at.x + g->w * (float)(1.0 - (double)(g->newest - t) / g->span);
}

static const plot_point *sample(const plotter *p, int i)
{
    return &p->s[(p->head + i) % PLOT_CAP];
}

/* Series k's range over the samples that have it; lo > hi when none has. */
static void series_range(const plotter *p, int k, float *lo, float *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < p->n; i++) {
        const plot_point *s = sample(p, i);
        if (s->has & (1u << k)) {
            *lo = fminf(*lo, s->v[k]);
            *hi = fmaxf(*hi, s->v[k]);
        }
    }
}

/* Series k's strip: its axis, its name with the newest value and range, and
 * its line (broken where a sample lacks it). */
static void draw_series(ImDrawList *dl, const plotter *p, const plot_geom *g, int k)
{
    const plot_point *last = sample(p, p->n - 1);
    float sy = g->at.y + (float)k * (STRIP_H + STRIP_GAP);
    float lo, hi;
    series_range(p, k, &lo, &hi);
    dl->AddRectFilled(ImVec2(g->at.x, sy + STRIP_H), ImVec2(g->at.x + g->w, sy + STRIP_H + 1.0f), AXIS);
    const char *name = k == 0 ? "speed" : k == 1 ? "force" : p->keys[k - 2];
    char line[160];
    if (last->has & (1u << k))
        snprintf(line, sizeof line, "%s %.3g   [%.3g, %.3g]", name, last->v[k], lo, hi);
    else
        snprintf(line, sizeof line, "%s -", name);
    dl->AddText(ImVec2(g->at.x + 2.0f, sy), SERIES[k], line);
    if (!(lo <= hi))
        return;
    if (hi - lo < 1e-6f) {
        lo -= 0.5f;
        hi += 0.5f;
    }
    ImVec2 prev(0.0f, 0.0f);
    bool have = false;
    for (int i = 0; i < p->n; i++) {
        const plot_point *s = sample(p, i);
        if (!(s->has & (1u << k))) {
            have = false;
            continue;
        }
        ImVec2 q(tick_x(g, s->tick), sy + STRIP_H - (s->v[k] - lo) / (hi - lo) * (STRIP_H - 16.0f));
        if (have)
            dl->AddLine(prev, q, SERIES[k], 1.5f);
        prev = q;
        have = true;
    }
}

/* State changes: a line through every strip and the new name (where the
 * names do not crowd each other). */
static void draw_state_changes(ImDrawList *dl, const plotter *p, const plot_geom *g, int series)
{
    float bottom = g->at.y + (float)series * (STRIP_H + STRIP_GAP);
    float last_label = -1e9f;
    for (int i = 1; i < p->n; i++) {
        const plot_point *s = sample(p, i);
        if (strcmp(s->state, sample(p, i - 1)->state) == 0)
            continue;
        float x = tick_x(g, s->tick);
        dl->AddRectFilled(ImVec2(x, g->at.y), ImVec2(x + 1.0f, bottom - 4.0f), STATE);
        if (x - last_label > 40.0f && s->state[0]) {
            dl->AddText(ImVec2(x + 2.0f, bottom - 20.0f), STATE, s->state);
            last_label = x;
        }
    }
}

/* The strips that fit the space left in the window. */
static void draw_strips(app *a, const plotter *p)
{
    int series = 2 + p->nkeys;
    int fit = (int)((ImGui::GetContentRegionAvail().y + STRIP_GAP) / (STRIP_H + STRIP_GAP));
    series = fit < series ? fit : series;
    if (series <= 0)
        return;
    plot_geom g = {ImGui::GetCursorScreenPos(), ImGui::GetContentRegionAvail().x,
                   PLOT_SECONDS / (a->dt > 0.0 ? a->dt : 1.0 / 60.0), sample(p, p->n - 1)->tick};
    ImDrawList *dl = ImGui::GetWindowDrawList();
    for (int k = 0; k < series; k++)
        draw_series(dl, p, &g, k);
    draw_state_changes(dl, p, &g, series);
    ImGui::Dummy(ImVec2(g.w, (float)series * (STRIP_H + STRIP_GAP)));
}

void ui_window_plots(ui *u, app *a, render_ctx *c)
{
    plotter *p = a->plot;
    if (p == NULL)
        return;
    /* selected while paused (or just now): its first sample, taken here
     * (sampling only reads), so the window shows it at once */
    if (st_agent_alive(a->world, a->selected) &&
        (p->n == 0 || p->world != a->world || !st_id_equal(p->id, a->selected)))
        plot_sample(a);
    bool empty = p->n == 0 || !st_agent_alive(a->world, p->id) || !st_id_equal(p->id, a->selected);
    const ImGuiStyle &st = ImGui::GetStyle();
    float head = ImGui::GetFrameHeight() + 2.0f * st.WindowPadding.y + ImGui::GetTextLineHeightWithSpacing();
    float w = 400.0f, h = head + (empty ? 0.0f : (float)(2 + p->nkeys) * (STRIP_H + STRIP_GAP));
    bool left = st_agent_alive(a->world, a->selected) && ui_agent_left(u, a, c);
    ImVec2 dock(left ? 8.0f : (float)c->w - w - 8.0f, (float)c->h - h - 8.0f); /* up from the bottom */
    if (!ui_place(u, c, "plots", dock, ImVec2(w, h), empty ? h : head + STRIP_H + STRIP_GAP, true))
        return;
    bool open = ImGui::Begin("plots", &a->show_plots, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    if (open && empty) {
        ImGui::TextColored(UI_DIM, "select an agent (click one)");
    } else if (open) {
        const plot_point *last = sample(p, p->n - 1);
        ImGui::Text("agent %llu, last %.0f s%s%s", (unsigned long long)st_agent_serial(a->world, p->id), PLOT_SECONDS,
                    last->state[0] ? "   state: " : "", last->state);
        draw_strips(a, p);
    }
    ImGui::End();
}
