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

static int sample_fn(lua_State *L)
{
    plot_call *c = lua_touserdata(L, 1);
    app *a = c->a;
    plotter *p = c->p;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref);
    steer_lua_pushself(L, lua_gettop(L), p->id);
    int self = lua_gettop(L);
    if (!lua_istable(L, self))
        return 0;
    if (c->choose) {
        p->nkeys = 0;
        /* scene.trace names the fields worth watching */
        if (a->scene_ref != LUA_NOREF && a->scene_ref != LUA_REFNIL) {
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
        if (p->nkeys == 0) {
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
    }
    for (int i = 0; i < p->nkeys; i++) {
        lua_pushstring(L, p->keys[i]);
        lua_rawget(L, self);
        if (lua_type(L, -1) == LUA_TNUMBER) {
            c->out->v[2 + i] = (float)lua_tonumber(L, -1);
            c->out->has |= 1u << (2 + i);
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
        snprintf(c->out->state, sizeof c->out->state, "%s", lua_tostring(L, -1));
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

static const SDL_Color BG = {0, 0, 0, 175};
static const SDL_Color AXIS = {90, 96, 110, 255};
static const SDL_Color TEXT = {225, 228, 235, 255};
static const SDL_Color DIM = {150, 156, 170, 255};
static const SDL_Color STATE = {255, 200, 90, 200};
static const SDL_Color SERIES[PLOT_SERIES] = {
    {120, 200, 255, 255}, {255, 140, 110, 255}, {140, 230, 140, 255},
    {230, 170, 255, 255}, {255, 230, 120, 255}, {120, 230, 220, 255},
};

static void rect(batch *b, float x, float y, float w, float h, SDL_Color c)
{
    SDL_FPoint p0 = {x, y}, p1 = {x + w, y}, p2 = {x + w, y + h}, p3 = {x, y + h};
    batch_tri(b, p0, p1, p2, c);
    batch_tri(b, p0, p2, p3, c);
}

static void label(render_ctx *c, float x, float y, const char *s, SDL_Color col)
{
    if (c->small != NULL)
        font_draw(c->small, &c->layer[LAYER_HUD_TEXT], x, y, s, strlen(s), col);
}

void plot_draw(app *a, render_ctx *c)
{
    plotter *p = a->plot;
    if (!a->show_plots || p == NULL || a->world == NULL)
        return;
    batch *b = &c->layer[LAYER_HUD];
    int series = 2 + p->nkeys;
    float strip = 44.0f, pad = 8.0f, w = 380.0f;
    float h = (float)series * (strip + 4.0f) + 26.0f;
    float x0 = (float)c->w - w - pad;
    float y0 = (float)c->h - h - 40.0f; /* above the timeline */
    if (y0 < pad)
        y0 = pad;
    rect(b, x0, y0, w, h, BG);
    char line[160];
    if (p->n == 0) {
        label(c, x0 + 8.0f, y0 + 6.0f, "plots: select an agent (click)", DIM);
        return;
    }
    const plot_point *last = &p->s[(p->head + p->n - 1) % PLOT_CAP];
    snprintf(line, sizeof line, "agent %llu, last %.0f s%s%s",
             (unsigned long long)st_agent_serial(a->world, p->id), PLOT_SECONDS, last->state[0] ? "   state: " : "",
             last->state);
    label(c, x0 + 8.0f, y0 + 4.0f, line, TEXT);
    double span = PLOT_SECONDS / (a->dt > 0.0 ? a->dt : 1.0 / 60.0);
    float gx = x0 + 8.0f, gw = w - 16.0f;
    float top = y0 + 22.0f;
    /* ticks -> x: the newest sample at the right edge */
#define TX(t) (gx + gw * (float)(1.0 - (double)(last->tick - (t)) / span))
    for (int k = 0; k < series; k++) {
        float sy = top + (float)k * (strip + 4.0f);
        float lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < p->n; i++) {
            const plot_point *s = &p->s[(p->head + i) % PLOT_CAP];
            if (s->has & (1u << k)) {
                lo = fminf(lo, s->v[k]);
                hi = fmaxf(hi, s->v[k]);
            }
        }
        rect(b, gx, sy + strip, gw, 1.0f, AXIS);
        const char *name = k == 0 ? "speed" : k == 1 ? "force" : p->keys[k - 2];
        if (last->has & (1u << k))
            snprintf(line, sizeof line, "%s %.3g   [%.3g, %.3g]", name, last->v[k], lo, hi);
        else
            snprintf(line, sizeof line, "%s -", name);
        label(c, gx + 2.0f, sy, line, SERIES[k]);
        if (!(lo <= hi))
            continue;
        if (hi - lo < 1e-6f) {
            lo -= 0.5f;
            hi += 0.5f;
        }
        SDL_FPoint prev = {0, 0};
        bool have = false;
        for (int i = 0; i < p->n; i++) {
            const plot_point *s = &p->s[(p->head + i) % PLOT_CAP];
            if (!(s->has & (1u << k))) {
                have = false;
                continue;
            }
            SDL_FPoint q = {TX(s->tick), sy + strip - (s->v[k] - lo) / (hi - lo) * (strip - 14.0f)};
            if (have)
                batch_line(b, prev, q, 1.5f, SERIES[k]);
            prev = q;
            have = true;
        }
    }
    /* state changes: a line through every strip and the new name */
    float bottom = top + (float)series * (strip + 4.0f);
    float last_label = -1e9f;
    for (int i = 1; i < p->n; i++) {
        const plot_point *s = &p->s[(p->head + i) % PLOT_CAP];
        const plot_point *prev = &p->s[(p->head + i - 1) % PLOT_CAP];
        if (strcmp(s->state, prev->state) == 0)
            continue;
        float x = TX(s->tick);
        rect(b, x, top, 1.0f, bottom - top - 4.0f, STATE);
        if (x - last_label > 40.0f && s->state[0]) {
            label(c, x + 2.0f, bottom - 16.0f, s->state, STATE);
            last_label = x;
        }
    }
#undef TX
}
