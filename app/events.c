/*
 * events.c — decision events (issue 32) where a designer sees them: the
 * messages delivered to brains, the agents perceivers newly notice and the
 * noises they hear (the bindings report them: steer_lua_set_event_sink).
 * Each is drawn on the world for EVENT_SHOW ticks (a line from sender to
 * recipient, from perceiver to what it saw, a ring where a noise was
 * heard) and stays on the timeline as a tick under the track: the selected
 * agent's, or everyone's when none is selected.
 *
 * The ring follows time: an event from a tick before the newest kept (a
 * rewind, a restart) drops the kept ones from that tick on, and the
 * re-simulation reports them again. Nothing here touches the world or the
 * journal: a replay makes the same events.
 */
#include <string.h>

#include "app.h"
#include "render.h"
#include "steer_lua.h"

/// Ticks an event shows on the world view (0.75 s at 60 Hz).
#define EVENT_SHOW 45

static const SDL_Color EVENT_COL[3] = {
    {90, 210, 250, 255},  /* a message: cyan */
    {255, 150, 60, 255},  /* seen: orange */
    {190, 130, 255, 255}, /* heard: violet */
};

static void sink(void *ud, const steer_lua_event *e)
{
    app *a = ud;
    long tick = a->steps_run;
    /* time went back: what was kept from then on is another future */
    while (a->event_count > 0 && a->events[(a->event_count - 1) % APP_MAX_EVENTS].tick > tick)
        a->event_count--;
    app_event *v = &a->events[a->event_count % APP_MAX_EVENTS];
    v->tick = tick;
    v->kind = (int)e->kind;
    v->from = e->from;
    v->to = e->to;
    v->pos = e->pos;
    snprintf(v->what, sizeof v->what, "%s", e->what ? e->what : "");
    a->event_count++;
}

void app_events_install(app *a, lua_State *L)
{
    a->event_count = 0;
    steer_lua_set_event_sink(L, sink, a);
}

static SDL_Color faded(int kind, long age)
{
    SDL_Color c = EVENT_COL[kind >= 0 && kind < 3 ? kind : 0];
    c.a = (Uint8)(60 + 195 * (EVENT_SHOW - age) / EVENT_SHOW);
    return c;
}

void app_events_draw(app *a, render_ctx *c)
{
    const st_world *w = a->world;
    batch *b = &c->layer[LAYER_OVERLAY];
    int kept = a->event_count < APP_MAX_EVENTS ? a->event_count : APP_MAX_EVENTS;
    for (int k = a->event_count - 1; k >= a->event_count - kept; k--) {
        const app_event *e = &a->events[k % APP_MAX_EVENTS];
        long age = a->steps_run - e->tick;
        if (age >= EVENT_SHOW)
            break; /* in tick order: the rest are older */
        if (age < 0 || !st_agent_alive(w, e->to))
            continue;
        SDL_Color col = faded(e->kind, age);
        SDL_FPoint to = to_screen(c, st_agent_pos(w, e->to));
        if (e->kind == STEER_LUA_MESSAGE) {
            /* from the sender where it is now (where it was if it is gone) */
            st_vec2 from = st_agent_alive(w, e->from) ? st_agent_pos(w, e->from) : e->pos;
            if (!st_id_is_null(e->from))
                batch_line(b, to_screen(c, from), to, 1.5f, col);
            batch_circle(b, to, (float)(st_agent_radius(w, e->to) * c->scale) + 4.0f, col, false, 1.5f);
        } else if (e->kind == STEER_LUA_SEEN) {
            batch_line(b, to, to_screen(c, e->pos), 1.0f, col);
            batch_circle(b, to_screen(c, e->pos), 5.0f, col, false, 1.5f);
        } else {
            batch_circle(b, to_screen(c, e->pos), 4.0f + 10.0f * (float)age / EVENT_SHOW, col, false, 1.5f);
            batch_line(b, to, to_screen(c, e->pos), 1.0f, col);
        }
    }
}

void app_events_draw_timeline(const app *a, render_ctx *c, float x, float y, float w, float span, long now)
{
    batch *b = &c->layer[LAYER_HUD];
    bool all = st_id_is_null(a->selected);
    int kept = a->event_count < APP_MAX_EVENTS ? a->event_count : APP_MAX_EVENTS;
    for (int k = a->event_count - kept; k < a->event_count; k++) {
        const app_event *e = &a->events[k % APP_MAX_EVENTS];
        if (e->tick > now)
            break;
        if (!all && !st_id_equal(e->to, a->selected) && !st_id_equal(e->from, a->selected))
            continue;
        batch_rect(b, x + w * (float)e->tick / span - 0.5f, y, 1.0f, 4.0f, EVENT_COL[e->kind % 3]);
    }
}
