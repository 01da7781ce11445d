/*
 * plot.c — the selected agent's last 10 s of sim time, sampled for the
 * plots window (key G; --plots for headless screenshots): speed, |force|,
 * and up to PLOT_KEYS numbers of its `self` (scene.trace's fields when the scene names
 * them, else the numeric keys of self in sorted order, chosen when the agent
 * is selected). Changes of its state name (self.state or self.state.name)
 * are marked as vertical lines with the new name.
 *
 * Sampling runs after every step whatever is shown, so the history is
 * there when the window is opened; it reads the world and `self` (raw, no
 * script code runs) and never writes to either. The window is ui_plot.cpp.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "plot.h"
#include "render.h"
#include "steer_lua.h"

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
