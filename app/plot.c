/*
 * plot.c — the selected agent's last 10 s of sim time as small strip charts
 * (key G; --plots for headless screenshots): speed, |force|, and up to
 * PLOT_KEYS numbers of its `self` (scene.trace's fields when the scene names
 * them, else the numeric keys of self in sorted order, chosen when the agent
 * is selected). Changes of its state name (self.state or self.state.name)
 * are marked as vertical lines with the new name.
 *
 * Sampling runs after every step whatever is shown, so the history is
 * there when the panel is opened; it reads the world and `self` (raw, no
 * script code runs) and never writes to either.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "render.h"
#include "steer_lua.h"

#define PLOT_SECONDS 10.0
#define PLOT_CAP 4096 /* samples: 10 s at dt >= 1/400 s */
#define PLOT_KEYS 4
#define PLOT_SERIES (2 + PLOT_KEYS)

typedef struct plot_point {
    long tick;
    float v[PLOT_SERIES];
    unsigned has; ///< bit i: v[i] is a number at this tick
    char state[24];
} plot_point;

struct plotter {
    st_agent_id id;
    const st_world *world;
    char keys[PLOT_KEYS][32];
    int nkeys;
    int n, head; ///< ring: the newest is s[(head + n - 1) % PLOT_CAP]
    plot_point s[PLOT_CAP];
};

plotter *plot_new(void)
{
    plotter *p = calloc(1, sizeof *p);
    if (p != NULL)
        p->id = st_null_agent();
    return p;
}

void plot_free(plotter *p) { free(p); }

typedef struct plot_call {
    app *a;
    plotter *p;
    plot_point *out;
    bool choose;
} plot_call;

static int cmp_key(const void *x, const void *y) { return strcmp(x, y); }

/* scene.trace names the fields worth watching: those of them that hold a
 * number in self now. */
static void keys_from_scene(lua_State *L, app *a, plotter *p, int self)
{
    if (a->scene_ref == LUA_NOREF || a->scene_ref == LUA_REFNIL)
        return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->scene_ref);
    lua_getfield(L, -1, "trace");
    if (lua_istable(L, -1)) {
        for (lua_Integer i = 1; p->nkeys < PLOT_KEYS && lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            lua_pushvalue(L, -1);
            lua_rawget(L, self);
            if (lua_type(L, -1) == LUA_TNUMBER)
                snprintf(p->keys[p->nkeys++], sizeof p->keys[0], "%s", lua_tostring(L, -2));
            lua_pop(L, 2);
        }
    }
    lua_settop(L, self);
}

/* Else the keys of self holding a number, in sorted order. */
static void keys_from_self(lua_State *L, plotter *p, int self)
{
    char found[64][32];
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, self)) {
        if (n < 64 && lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER &&
            strlen(lua_tostring(L, -2)) < sizeof found[0])
            snprintf(found[n++], sizeof found[0], "%s", lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    qsort(found, (size_t)n, sizeof found[0], cmp_key);
    for (int i = 0; i < n && p->nkeys < PLOT_KEYS; i++)
        app_format(p->keys[p->nkeys++], sizeof p->keys[0], "%s", found[i]);
}

/* The sample's numbers of self and its state name (self.state or self.state.name). */
static void read_self(lua_State *L, const plotter *p, int self, plot_point *out)
{
    for (int i = 0; i < p->nkeys; i++) {
        lua_pushstring(L, p->keys[i]);
        lua_rawget(L, self);
        if (lua_type(L, -1) == LUA_TNUMBER) {
            out->v[2 + i] = (float)lua_tonumber(L, -1);
            out->has |= 1u << (2 + i);
        }
        lua_pop(L, 1);
    }
    lua_pushliteral(L, "state");
    lua_rawget(L, self);
    if (lua_istable(L, -1)) {
        lua_pushliteral(L, "name");
        lua_rawget(L, -2);
    }
    if (lua_type(L, -1) == LUA_TSTRING)
        snprintf(out->state, sizeof out->state, "%s", lua_tostring(L, -1));
}

static int sample_fn(lua_State *L)
{
    plot_call *c = lua_touserdata(L, 1);
    plotter *p = c->p;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->a->world_ref);
    steer_lua_pushself(L, lua_gettop(L), p->id);
    int self = lua_gettop(L);
    if (!lua_istable(L, self))
        return 0;
    if (c->choose) {
        p->nkeys = 0;
        keys_from_scene(L, c->a, p, self);
        if (p->nkeys == 0)
            keys_from_self(L, p, self);
    }
    read_self(L, p, self, c->out);
    return 0;
}

void plot_sample(app *a)
{
    plotter *p = a->plot;
    st_world *w = a->world;
    if (p == NULL || w == NULL || a->L == NULL)
        return;
    if (!st_agent_alive(w, a->selected)) {
        p->n = 0;
        p->id = st_null_agent();
        return;
    }
    bool fresh = p->world != w || !st_id_equal(p->id, a->selected);
    /* time went back (a rewind): the samples from here on are re-made */
    while (!fresh && p->n > 0 && p->s[(p->head + p->n - 1) % PLOT_CAP].tick >= a->steps_run)
        p->n--;
    if (fresh) {
        p->world = w;
        p->id = a->selected;
        p->n = p->head = 0;
    }
    plot_point *s = &p->s[(p->head + p->n) % PLOT_CAP];
    memset(s, 0, sizeof *s);
    s->tick = a->steps_run;
    s->v[0] = (float)st_agent_speed(w, p->id);
    s->v[1] = (float)st_v2_len(st_agent_force(w, p->id));
    s->has = 3u;
    plot_call c = {a, p, s, fresh};
    int top = lua_gettop(a->L);
    lua_pushcfunction(a->L, sample_fn);
    lua_pushlightuserdata(a->L, &c);
    lua_pcall(a->L, 1, 0, 0); /* a failure (memory cap) only loses this sample's self values */
    lua_settop(a->L, top);
    int keep = a->dt > 0.0 ? (int)(PLOT_SECONDS / a->dt + 0.5) : 600;
    keep = keep > PLOT_CAP ? PLOT_CAP : keep < 2 ? 2 : keep;
    if (p->n < keep) {
        p->n++;
    } else {
        p->head = (p->head + 1) % PLOT_CAP;
        while (p->n > keep) {
            p->head = (p->head + 1) % PLOT_CAP;
            p->n--;
        }
    }
}

/* ------------------------------------------------------------------ drawing */

static const SDL_Color BG = {0, 0, 0, 215};
static const SDL_Color AXIS = {90, 96, 110, 255};
static const SDL_Color TEXT = {225, 228, 235, 255};
static const SDL_Color DIM = {150, 156, 170, 255};
static const SDL_Color STATE = {255, 200, 90, 200};
static const SDL_Color SERIES[PLOT_SERIES] = {
    {120, 200, 255, 255}, {255, 140, 110, 255}, {140, 230, 140, 255},
    {230, 170, 255, 255}, {255, 230, 120, 255}, {120, 230, 220, 255},
};

#define STRIP_H 44.0f  /* pixels a series' strip is high */
#define STRIP_GAP 4.0f /* between strips */

/* Where the panel and its strips are, and the time axis. */
typedef struct plot_geom {
    float gx, gw;  ///< the strips' left edge and width
    float top;     ///< the first strip's top
    double span;   ///< ticks across the width (PLOT_SECONDS of them)
    long newest;   ///< the newest sample's tick, drawn at the right edge
} plot_geom;

static float tick_x(const plot_geom *g, long t)
{
    return g->gx + g->gw * (float)(1.0 - (double)(g->newest - t) / g->span);
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
static void draw_series(render_ctx *c, const plotter *p, const plot_geom *g, int k)
{
    batch *b = &c->layer[LAYER_HUD];
    const plot_point *last = sample(p, p->n - 1);
    float sy = g->top + (float)k * (STRIP_H + STRIP_GAP);
    float lo, hi;
    series_range(p, k, &lo, &hi);
    batch_rect(b, g->gx, sy + STRIP_H, g->gw, 1.0f, AXIS);
    const char *name = k == 0 ? "speed" : k == 1 ? "force" : p->keys[k - 2];
    char line[160];
    if (last->has & (1u << k))
        snprintf(line, sizeof line, "%s %.3g   [%.3g, %.3g]", name, last->v[k], lo, hi);
    else
        snprintf(line, sizeof line, "%s -", name);
    hud_text(c, c->small, g->gx + 2.0f, sy, line, SERIES[k]);
    if (!(lo <= hi))
        return;
    if (hi - lo < 1e-6f) {
        lo -= 0.5f;
        hi += 0.5f;
    }
    SDL_FPoint prev = {0, 0};
    bool have = false;
    for (int i = 0; i < p->n; i++) {
        const plot_point *s = sample(p, i);
        if (!(s->has & (1u << k))) {
            have = false;
            continue;
        }
        SDL_FPoint q = {tick_x(g, s->tick), sy + STRIP_H - (s->v[k] - lo) / (hi - lo) * (STRIP_H - 14.0f)};
        if (have)
            batch_line(b, prev, q, 1.5f, SERIES[k]);
        prev = q;
        have = true;
    }
}

/* State changes: a line through every strip and the new name (where the
 * names do not crowd each other). */
static void draw_state_changes(render_ctx *c, const plotter *p, const plot_geom *g, int series)
{
    float bottom = g->top + (float)series * (STRIP_H + STRIP_GAP);
    float last_label = -1e9f;
    for (int i = 1; i < p->n; i++) {
        const plot_point *s = sample(p, i);
        if (strcmp(s->state, sample(p, i - 1)->state) == 0)
            continue;
        float x = tick_x(g, s->tick);
        batch_rect(&c->layer[LAYER_HUD], x, g->top, 1.0f, bottom - g->top - 4.0f, STATE);
        if (x - last_label > 40.0f && s->state[0]) {
            hud_text(c, c->small, x + 2.0f, bottom - 16.0f, s->state, STATE);
            last_label = x;
        }
    }
}

void plot_draw(app *a, render_ctx *c)
{
    plotter *p = a->plot;
    if (!a->show_plots || p == NULL || a->world == NULL)
        return;
    /* selected while paused (or just now): its first sample, taken here
     * (sampling only reads), so the panel shows it at once */
    if (a->world != NULL && st_agent_alive(a->world, a->selected) &&
        (p->n == 0 || p->world != a->world || !st_id_equal(p->id, a->selected)))
        plot_sample(a);
    bool empty = p->n == 0 || !st_agent_alive(a->world, p->id) || !st_id_equal(p->id, a->selected);
    int series = 2 + p->nkeys;
    float pad = 8.0f, w = 380.0f;
    float h = empty ? 26.0f : (float)series * (STRIP_H + STRIP_GAP) + 26.0f;
    float x0 = (float)c->w - w - pad;
    float y0 = (float)c->h - h - pad; /* from the bottom up, clear of the timeline and the rest */
    float min_h = empty ? h : STRIP_H + STRIP_GAP + 26.0f;
    if (!layout_place(c, "plots", x0, &y0, w, &h, min_h, true))
        return;
    series = empty ? 0 : (int)((h - 26.0f) / (STRIP_H + STRIP_GAP)); /* the strips that fit */
    series = series > 2 + p->nkeys ? 2 + p->nkeys : series;
    batch_rect(&c->layer[LAYER_HUD], x0, y0, w, h, BG);
    if (empty) {
        hud_text(c, c->small, x0 + 8.0f, y0 + 6.0f, "plots: select an agent (click)", DIM);
        return;
    }
    const plot_point *last = sample(p, p->n - 1);
    char line[160];
    snprintf(line, sizeof line, "agent %llu, last %.0f s%s%s",
             (unsigned long long)st_agent_serial(a->world, p->id), PLOT_SECONDS, last->state[0] ? "   state: " : "",
             last->state);
    hud_text(c, c->small, x0 + 8.0f, y0 + 4.0f, line, TEXT);
    plot_geom g = {x0 + 8.0f, w - 16.0f, y0 + 22.0f, PLOT_SECONDS / (a->dt > 0.0 ? a->dt : 1.0 / 60.0), last->tick};
    for (int k = 0; k < series; k++)
        draw_series(c, p, &g, k);
    if (series > 0)
        draw_state_changes(c, p, &g, series);
}
