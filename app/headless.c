/*
 * headless.c — runs with no window and no display: a fixed number of steps
 * as fast as possible, or (--realtime) paced at the fixed step while the
 * files are watched exactly as in the window. Screenshots go through SDL's
 * software renderer into a plain SDL_Surface, which needs no video driver.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
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

/// Renders `frames` frames into a w x h surface with SDL's software renderer
/// (no video driver needed), then saves the last one to `path` if given.
/// Returns the milliseconds per frame (building the batches and SDL
/// rasterising them, which the software renderer does as they are
/// submitted), or a negative number on failure.
static double render_offscreen(app *a, int w, int h, long frames, const char *path)
{
    if (TTF_Init() != 0)
        fprintf(stderr, "steer: SDL_ttf: %s (no text)\n", TTF_GetError());
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = s ? SDL_CreateSoftwareRenderer(s) : NULL;
    double ms = -1.0;
    if (r != NULL) {
        render_ctx c;
        render_ctx_init(&c, r);
        c.surface = s;
        c.w = w;
        c.h = h;
        double t0 = app_clock();
        for (long f = 0; f < frames; f++) {
            render_frame(a, &c, true);
            SDL_RenderPresent(r);
        }
        ms = (app_clock() - t0) * 1000.0 / (double)frames;
        if (path && IMG_SavePNG(s, path) != 0)
            ms = -1.0;
        render_ctx_free(&c);
        SDL_DestroyRenderer(r);
    }
    if (ms < 0.0)
        fprintf(stderr, "steer: cannot render%s%s: %s\n", path ? " the screenshot " : "", path ? path : "",
                SDL_GetError());
    SDL_FreeSurface(s);
    TTF_Quit();
    return ms;
}

bool app_save_screenshot_headless(app *a, const char *path, int w, int h)
{
    return render_offscreen(a, w, h, 1, path) >= 0.0;
}

/* --realtime: steps paced at the world's dt, the files polled between them,
 * until the ticks are done (ticks < 0: until stopped). Returns the ticks run. */
static long run_realtime(app *a, long ticks)
{
    long done = 0;
    printf("realtime: %s (Ctrl-C to stop)\n", a->scene_path);
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
static long run_fixed(app *a, long ticks)
{
    const app_options *o = &a->opt;
    bool rewound = false;
    long done = 0;
    for (; done < ticks && !stop_requested; done++) {
        if (o->has_select && done == select_tick(a, ticks) && a->world != NULL)
            select_nearest(a);
        app_step(a);
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
    int w = a->world ? (int)st_world_width(a->world) : 800;
    int h = a->world ? (int)st_world_height(a->world) : 600;
    w = w < 64 ? 64 : w > MAX_SHOT_SIDE ? MAX_SHOT_SIDE : w;
    h = h < 64 ? 64 : h > MAX_SHOT_SIDE ? MAX_SHOT_SIDE : h;
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
    long done = o->realtime ? run_realtime(a, ticks) : run_fixed(a, ticks);
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
