/*
 * headless.c — runs with no window and no display: a fixed number of steps
 * as fast as possible, or (--realtime) paced at the fixed step while the
 * files are watched exactly as in the window. Screenshots go through SDL's
 * software renderer into a plain SDL_Surface, which needs no video driver.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <SDL_image.h>
#include <SDL_ttf.h>

#include "render.h"
#include "sys.h"

#define DEFAULT_TICKS 600
#define MAX_SHOT_SIDE 4096

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void sleep_for(double seconds)
{
    app_sleep(seconds);
}

/* A software renderer over a w x h surface (no video driver needed). */
typedef struct offscreen {
    SDL_Surface *s;
    SDL_Renderer *r;
    render_ctx c;
} offscreen;

static bool offscreen_open(offscreen *o, int w, int h)
{
    memset(o, 0, sizeof *o);
    if (TTF_Init() != 0)
        fprintf(stderr, "steer: SDL_ttf: %s (no text)\n", TTF_GetError());
    o->s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    o->r = o->s ? SDL_CreateSoftwareRenderer(o->s) : NULL;
    if (o->r == NULL) {
        SDL_FreeSurface(o->s);
        TTF_Quit();
        return false;
    }
    render_ctx_init(&o->c, o->r);
    o->c.surface = o->s;
    o->c.w = w;
    o->c.h = h;
    return true;
}

static void offscreen_close(offscreen *o)
{
    if (o->r == NULL)
        return;
    render_ctx_free(&o->c);
    SDL_DestroyRenderer(o->r);
    SDL_FreeSurface(o->s);
    TTF_Quit();
    memset(o, 0, sizeof *o);
}

/// Renders `frames` frames into a w x h surface with SDL's software renderer
/// (no video driver needed), then saves the last one to `path` if given.
/// Returns the milliseconds per frame (building the batches and SDL
/// rasterising them, which the software renderer does as they are
/// submitted), or a negative number on failure.
static double render_offscreen(app *a, int w, int h, long frames, const char *path)
{
    offscreen o;
    double ms = -1.0;
    if (offscreen_open(&o, w, h)) {
        double t0 = app_clock();
        for (long f = 0; f < frames; f++) {
            render_frame(a, &o.c, true);
            SDL_RenderPresent(o.r);
        }
        ms = (app_clock() - t0) * 1000.0 / (double)frames;
        if (path && IMG_SavePNG(o.s, path) != 0)
            ms = -1.0;
        offscreen_close(&o);
    }
    if (ms < 0.0)
        fprintf(stderr, "steer: cannot render%s%s: %s\n", path ? " the screenshot " : "", path ? path : "",
                SDL_GetError());
    return ms;
}

/* The headless frame: the world's size (and the timeline's band under it,
 * as in the window), clamped. */
static void shot_size(const app *a, int *w, int *h)
{
    double ww = a->world ? st_world_width(a->world) : 800.0;
    double wh = (a->world ? st_world_height(a->world) : 600.0) + ((a->overlays & OV_HUD) ? RENDER_TIMELINE_BAND : 0);
    *w = ww < 64.0 ? 64 : ww > MAX_SHOT_SIDE ? MAX_SHOT_SIDE : (int)ww;
    *h = wh < 64.0 ? 64 : wh > MAX_SHOT_SIDE ? MAX_SHOT_SIDE : (int)wh;
}

/* --draw (and --screenshot): once after load and after every tick the
 * scripts draw, as in the window, into a context whose batches are dropped unrasterised, so a draw
 * error counts like any other and costs no pixels. */
static void draw_tick(app *a, offscreen *o)
{
    if (o->r == NULL || a->world == NULL)
        return;
    render_ctx *c = &o->c;
    render_fit_world(c, a);
    app_draw_scripts(a, c);
    for (int i = 0; i < LAYER_COUNT; i++)
        batch_clear(&c->layer[i]);
}

bool app_save_screenshot_headless(app *a, const char *path, int w, int h)
{
    return render_offscreen(a, w, h, 1, path) >= 0.0;
}

/* --realtime: steps paced at the world's dt, the files polled between them,
 * until the ticks are done (ticks < 0: until stopped). Returns the ticks run. */
static long run_realtime(app *a, long ticks, offscreen *shot)
{
    long done = 0;
    printf("realtime: %s (Ctrl-C to stop)\n", a->scene_path);
    draw_tick(a, shot); /* the window's first frame: before any step */
    double start = app_clock();
    long base = 0; /* ticks already accounted for when the clock restarted */
    while (!stop_requested && !a->quit && (ticks < 0 || done < ticks)) {
        double now = app_clock();
        double dt = a->dt > 0.0 ? a->dt : 1.0 / 60.0;
        long due = base + (long)((now - start) / dt);
        /* Fell far behind (a slow step, a stopped process): restart the
         * pacing clock rather than racing to catch up. */
        if (due - done > 30) {
            start = now;
            base = done;
            due = done + 1;
        }
        while (done < due && (ticks < 0 || done < ticks)) {
            app_step(a);
            draw_tick(a, shot);
            done++;
        }
        app_poll_files(a, now);
        sleep_for(dt * 0.5);
    }
    return done;
}

/* --select: the agent nearest the point, traced from the next step on. */
static void select_nearest(app *a)
{
    const app_options *o = &a->opt;
    st_query q = st_default_query(st_v2(o->select_x, o->select_y), 1e9);
    a->selected = st_world_nearest(a->world, &q, NULL);
    st_world_set_trace(a->world, a->selected);
    a->traced = a->selected;
    a->trace_world = a->world;
}

/* When --select chooses: before the last step, so that step traces it
 * (forces, ORCA) for the screenshot's overlays; with --plots, 10 s before
 * the end, so the plots fill up. */
static long select_tick(const app *a, long ticks)
{
    long at = ticks - 1;
    if (a->opt.plots && a->dt > 0.0)
        at = ticks - (long)(10.0 / a->dt + 0.5);
    return at < 0 ? 0 : at;
}

/* As fast as possible: `ticks` steps, with --select and --rewind-test done
 * on the way. Returns the ticks run. */
static long run_fixed(app *a, long ticks, offscreen *shot)
{
    const app_options *o = &a->opt;
    bool rewound = false;
    long done = 0;
    draw_tick(a, shot); /* the window's first frame: before any step */
    for (; done < ticks && !stop_requested; done++) {
        if (o->has_select && done == select_tick(a, ticks) && a->world != NULL)
            select_nearest(a);
        app_step(a);
        draw_tick(a, shot);
        if (o->rewind_at > 0 && a->steps_run == o->rewind_at && !rewound) {
            rewound = true;
            if (tt_rewind_test(a, o->rewind_by) != 0)
                a->status = 1;
            done = a->steps_run - 1; /* a branch goes on from the past: --ticks counts ticks, not steps */
        }
        if (a->quit || (a->rep != NULL && !tt_replaying(a))) {
            done++;
            break;
        }
    }
    return done;
}

/* The exit status of the run: the scene loaded, no script errors (but in
 * --realtime, where errors are expected while editing), a replay's verdict
 * or a module's own status. */
static int run_status(app *a)
{
    int status = a->scene_ok ? 0 : 1;
    if (!a->opt.realtime && a->error_total > 0)
        status = 1;
    if (a->rep != NULL) {
        /* the replay's verdict decides; errors replayed are the recording's own */
        status = tt_replay_finish(a);
    } else if (a->status != 0) {
        status = a->status;
    }
    return status;
}

/* --draw-frames and --screenshot, at the world's size (clamped); false when
 * either failed. */
static bool render_outputs(app *a, int agents)
{
    const app_options *o = &a->opt;
    int w, h;
    shot_size(a, &w, &h);
    bool ok = true;
    if (o->draw_frames > 0) {
        double ms = render_offscreen(a, w, h, o->draw_frames, NULL);
        if (ms >= 0.0)
            printf("draw: agents=%d frames=%ld ms_per_frame=%.3f (software renderer, %dx%d)\n", agents,
                   o->draw_frames, ms, w, h);
        else
            ok = false;
    }
    if (o->screenshot) {
        if (app_save_screenshot_headless(a, o->screenshot, w, h))
            printf("screenshot: %s (%dx%d)\n", o->screenshot, w, h);
        else
            ok = false;
    }
    return ok;
}

int app_run_headless(app *a)
{
    const app_options *o = &a->opt;
    long ticks = o->ticks >= 0 ? o->ticks : o->realtime ? -1 : DEFAULT_TICKS;
    if (a->rep != NULL)
        ticks = tt_replay_end(a);
    if (!a->scene_ok && !o->realtime) {
        fprintf(stderr, "steer: the scene %s did not load\n", a->scene_path);
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    offscreen shot;
    memset(&shot, 0, sizeof shot);
    int sw, sh;
    shot_size(a, &sw, &sh);
    if ((o->draw || o->screenshot) && a->world != NULL && !offscreen_open(&shot, sw, sh))
        fprintf(stderr, "steer: cannot draw headless: %s\n", SDL_GetError());
    long done = o->realtime ? run_realtime(a, ticks, &shot) : run_fixed(a, ticks, &shot);
    offscreen_close(&shot);
    if (o->plots)
        a->show_plots = true;

    int agents = a->world ? st_world_count(a->world, ST_TAG_ANY) : 0;
    unsigned long long sum = a->world ? (unsigned long long)st_world_checksum(a->world) : 0ull;
    printf("ticks=%ld agents=%d ms_per_step=%.4f checksum=%016llx errors=%d\n", done, agents,
           a->steps_run ? a->step_ms_total / (double)a->steps_run : 0.0, sum, a->error_total);
    int status = run_status(a);
    if (!render_outputs(a, agents))
        status = 1;
    return status;
}
