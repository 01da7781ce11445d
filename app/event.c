/*
 * event.c — the one event stream: every input to the running scene is an
 * event (event.h), applied in one place (event_apply), which is also where
 * the journal gets it. The live sources — keys and clicks (input.c), the
 * file watcher, the console and the inspector, R, the speed and force
 * keys, --reload-at — make events and hand them to event_live; a --replay
 * and a rewind's re-run (record.c) feed the journal's events to event_apply
 * at their tick. One step of the app (app_step) is: the events due, the
 * scene's step (scene.c), the step's record (record.c), plots, checkpoints.
 *
 * The scene runner (scene.c) knows nothing of the journal: it loads, steps,
 * calls callbacks and reloads; this file decides when, and records it.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "event.h"
#include "sys.h"
#include "watch.h"

/* The folders are scanned every 50 ms (changes settle for 100 ms, scene.c):
 * a save shows up within ~150-250 ms, inside API.md's 0.3 s. */
#define WATCH_PERIOD 0.05

/* Text that goes into the journal as the rest of a line: no newlines. */
static void one_line(const char *s, char *out, size_t n)
{
    app_format(out, n, "%s", s);
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* ------------------------------------------------------------------ marks */

void app_add_mark(app *a, app_mark_kind kind, const char *label)
{
    app_mark *m = &a->marks[a->mark_count % APP_MAX_MARKS];
    m->tick = a->steps_run;
    m->kind = kind;
    one_line(label ? label : "", m->label, sizeof m->label);
    a->mark_count++;
    rec_event e = {.tick = a->steps_run, .kind = EV_MARK, .button = (int)kind, .text = m->label};
    record_event(a, &e);
}

/* ------------------------------------------------------------------ applying */

void app_scale_agents(app *a, bool speed, double factor)
{
    st_world *w = a->world;
    if (w == NULL)
        return;
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (st_id_is_null(id))
            continue;
        if (speed)
            st_agent_set_max_speed(w, id, st_agent_max_speed(w, id) * factor);
        else
            st_agent_set_max_force(w, id, st_agent_max_force(w, id) * factor);
    }
    if (speed)
        a->speed_factor *= factor;
    else
        a->force_factor *= factor;
}

bool event_matters(app *a, const rec_event *e)
{
    switch (e->kind) {
    case EV_KEY:
        return scene_has_callback(a, "keypressed");
    case EV_CLICK:
        return scene_has_callback(a, "mousepressed");
    case EV_CONSOLE:
        return e->text != NULL && e->text[0] != '\0';
    case EV_SCALE:
        return a->world != NULL && isfinite(e->x) && e->x > 0.0;
    case EV_MARK:
    case EV_SUM:
        return false; /* what the run made, not inputs */
    default:
        return true;
    }
}

/* A reload: the file root/rel reloaded as the watcher would; the journal
 * gets it after the reload, behind the `file` records of what it loaded. */
static void apply_reload(app *a, const rec_event *e)
{
    char path[PATH_MAX * 2], module[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", e->root == 0 ? a->scene_dir : a->scripts_dir, e->text);
    scene_reload_result r = scene_reload_file(a, path, e->root, module, sizeof module);
    if (r == SCENE_RELOAD_NONE)
        return;
    record_event(a, e);
    rewind_new_epoch(a); /* the code changed: older checkpoints no longer apply */
    char label[sizeof a->marks[0].label];
    app_format(label, sizeof label, "%s%s", module, r == SCENE_RELOAD_OK ? "" : " (failed)");
    app_add_mark(a, MARK_RELOAD, label);
}

/* Applies an event that matters (the journal gets it as it is applied). */
static bool apply(app *a, const rec_event *in)
{
    rec_event e = *in;
    e.tick = a->steps_run; /* applied now: recorded now */
    switch (e.kind) {
    case EV_FILE:
        source_serve(a, e.root, e.text, e.data, e.len);
        break;
    case EV_MOUSE:
        /* from now on: a key or click after it may read steer.mouse() */
        a->mouse_valid = e.valid;
        a->mouse = st_v2(e.x, e.y);
        break;
    case EV_KEY:
        record_event(a, &e); /* behind the pointer: the handler may read steer.mouse() */
        scene_keypressed(a, e.text);
        break;
    case EV_CLICK:
        record_event(a, &e);
        scene_mousepressed(a, st_v2(e.x, e.y), e.button);
        break;
    case EV_CONSOLE:
        record_event(a, &e);
        console_exec(a, e.text);
        break;
    case EV_RESTART:
        rewind_new_epoch(a);
        record_event(a, &e);
        app_add_mark(a, MARK_SCENE, "restart");
        scene_restart(a);
        break;
    case EV_SCALE:
        record_event(a, &e);
        app_scale_agents(a, e.button != 0, e.x);
        break;
    case EV_RELOAD:
        apply_reload(a, &e);
        break;
    default:
        return false;
    }
    return true;
}

bool event_apply(app *a, const rec_event *e)
{
    return event_matters(a, e) && apply(a, e);
}

bool event_live(app *a, const rec_event *e)
{
    /* a --replay keeps the user's input from its scene; in a rewind's past
     * the input starts a new future from here */
    return event_matters(a, e) && record_live(a) && apply(a, e);
}

/* ------------------------------------------------------------------ live input */

void app_keypressed(app *a, const char *key)
{
    char k[128];
    one_line(key, k, sizeof k);
    rec_event e = {.tick = a->steps_run, .kind = EV_KEY, .text = k};
    event_live(a, &e);
}

void app_mousepressed(app *a, st_vec2 p, int button)
{
    rec_event e = {.tick = a->steps_run, .kind = EV_CLICK, .x = p.x, .y = p.y, .button = button};
    event_live(a, &e);
}

void app_console_run(app *a, const char *line)
{
    char l[sizeof a->console_text];
    one_line(line, l, sizeof l);
    rec_event e = {.tick = a->steps_run, .kind = EV_CONSOLE, .text = l};
    event_live(a, &e);
}

void app_restart(app *a)
{
    rec_event e = {.tick = a->steps_run, .kind = EV_RESTART};
    event_live(a, &e);
}

void app_scale(app *a, bool speed, double factor)
{
    rec_event e = {.tick = a->steps_run, .kind = EV_SCALE, .button = speed, .x = factor};
    event_live(a, &e);
}

void app_reload_file(app *a, const char *path, int root)
{
    char real[PATH_MAX];
    if (app_realpath(path, real) == NULL)
        return;
    /* the path under the root it was seen in (the journal's reload record) */
    const char *dir = root == 1 ? a->scripts_dir : a->scene_dir;
    size_t n = strlen(dir);
    const char *rel = real + n + 1;
    if (strncmp(real, dir, n) != 0 || real[n] != '/') {
        if (!source_split_root(a, real, &root, &rel))
            return;
    }
    rec_event e = {.tick = a->steps_run, .kind = EV_RELOAD, .root = root == 1, .text = (char *)rel};
    event_live(a, &e);
}

void app_poll_files(app *a, double now)
{
    /* a replay applies the recorded reloads, not the disk's */
    if (a->watcher == NULL || now < a->next_poll || tt_replaying(a))
        return;
    double t0 = app_clock();
    int n = watch_poll(a->watcher, now);
    /* A scene kept in a big folder makes each scan slow: scan less often
     * rather than spend the frame on it. */
    double took = app_clock() - t0;
    a->next_poll = now + (took * 4.0 > WATCH_PERIOD ? took * 4.0 : WATCH_PERIOD);
    for (int i = 0; i < n && !a->quit; i++) {
        bool was_loaded = a->scene_ref != LUA_NOREF && a->world != NULL;
        app_reload_file(a, watch_path(a->watcher, i), watch_root(a->watcher, i));
        /* A fresh start already read every file: the rest are loaded. */
        if (!was_loaded)
            break;
    }
}

/* Quits with status 2 after saying why (--reload-at's file is unusable). */
static void reload_at_fails(app *a, const char *fmt, const char *what)
{
    fprintf(stderr, fmt, what);
    a->status = 2;
    a->quit = true;
}

void event_reload_at(app *a)
{
    for (int i = 0; i < a->opt.nreload_at && !a->quit; i++) {
        struct reload_at *r = &a->opt.reload_at[i];
        /* once: a rewind's re-run has it in the journal */
        if (r->tick != a->steps_run || r->done)
            continue;
        r->done = true;
        char real[PATH_MAX];
        int root;
        const char *rel;
        if (app_realpath(r->file, real) == NULL || !source_split_root(a, real, &root, &rel)) {
            reload_at_fails(a, "steer: --reload-at: %s is not a file in the scene's folder or scripts/\n", r->file);
            return;
        }
        if (r->source) {
            rec_event f = {.tick = a->steps_run, .kind = EV_FILE, .root = root, .text = (char *)rel};
            if ((f.data = source_read_file(r->source, &f.len)) == NULL) {
                reload_at_fails(a, "steer: --reload-at: cannot read %s\n", r->source);
                return;
            }
            event_live(a, &f);
            free(f.data);
        }
        rec_event e = {.tick = a->steps_run, .kind = EV_RELOAD, .root = root, .text = (char *)rel};
        event_live(a, &e);
    }
}

/* ------------------------------------------------------------------ one step */

void app_step(app *a)
{
    event_reload_at(a); /* --reload-at's (live: never while a replay feeds its own) */
    record_feed(a);     /* a replay's or a rewind's events due now, and the pointer */
    if (a->world == NULL)
        return;
    scene_step(a);
    record_stepped(a, a->world ? st_world_checksum(a->world) : 0);
    if (a->plot)
        plot_sample(a);
    if (a->rewind)
        rewind_after_step(a);
}
