/*
 * window.c — the windowed loop: events, fixed steps from an accumulator,
 * file polling, drawing, screenshots.
 *
 * Simulation time advances in fixed steps of the world's dt whatever the
 * frame rate; the accumulator carries the remainder to the next frame. A
 * frame runs at most MAX_STEPS_PER_FRAME steps and then drops the backlog,
 * so a slow scene slows down instead of spiralling.
 */
#include <stdio.h>
#include <string.h>

#include <SDL_image.h>
#include <SDL_ttf.h>

#include "drive.h"
#include "input.h"
#include "ui.h"

#define MAX_STEPS_PER_FRAME 16
#define MIN_FRAME_SECONDS (1.0 / 120.0)

static bool save_screenshot(app *a, SDL_Renderer *r, int w, int h)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "steer-%s-%06llu.png", a->scene_module,
             a->world ? (unsigned long long)st_world_tick(a->world) : 0ull);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = s != NULL && SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0 &&
              IMG_SavePNG(s, path) == 0;
    SDL_FreeSurface(s);
    if (ok) {
        printf("screenshot: %s\n", path);
        app_flash(a, FLASH_OK, 2.0, "saved %s", path);
    } else {
        fprintf(stderr, "steer: screenshot failed: %s\n", SDL_GetError());
        app_flash(a, FLASH_BAD, 2.0, "screenshot failed");
    }
    return ok;
}

static void window_size(app *a, int *w, int *h)
{
    double ww = a->world ? st_world_width(a->world) : 800.0;
    double wh = (a->world ? st_world_height(a->world) : 600.0) + RENDER_TIMELINE_BAND;
    SDL_Rect usable;
    if (SDL_GetDisplayUsableBounds(0, &usable) == 0 && usable.w > 0 && usable.h > 0) {
        double s = 1.0;
        if (ww > usable.w * 0.95)
            s = usable.w * 0.95 / ww;
        if (wh * s > usable.h * 0.9)
            s = usable.h * 0.9 / wh;
        ww *= s;
        wh *= s;
    }
    *w = ww < 320 ? 320 : (int)ww;
    *h = wh < 240 ? 240 : (int)wh;
}

/* The window and its renderer (vsync'd and accelerated if possible, else
 * software); NULL, said on stderr, when there is no display. */
static SDL_Window *open_window(app *a, SDL_Renderer **out)
{
    int w, h;
    window_size(a, &w, &h);
    char title[200];
    app_format(title, sizeof title, "steer - %s", a->title[0] ? a->title : a->scene_module);
    SDL_Window *win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                                       SDL_WINDOW_RESIZABLE);
    if (win == NULL) {
        fprintf(stderr, "steer: no display available (cannot open a window: %s); run with --headless\n",
                SDL_GetError());
        return NULL;
    }
    SDL_Renderer *r = SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (r == NULL)
        r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (r == NULL) {
        fprintf(stderr, "steer: cannot create a renderer: %s\n", SDL_GetError());
        SDL_DestroyWindow(win);
        return NULL;
    }
    *out = r;
    return win;
}

/* The simulation's share of a frame of `frame` seconds: the single steps
 * asked for while paused, else the fixed steps the accumulator holds. */
static void advance(app *a, double frame)
{
    if (a->paused) {
        for (; a->pending_steps > 0; a->pending_steps--)
            app_step(a);
        return;
    }
    if (a->world == NULL || !(a->dt > 0.0))
        return;
    a->accumulator += frame * a->time_scale;
    int steps = 0;
    while (a->accumulator >= a->dt && steps < MAX_STEPS_PER_FRAME) {
        app_step(a);
        a->accumulator -= a->dt;
        steps++;
    }
    if (steps == MAX_STEPS_PER_FRAME)
        a->accumulator = 0.0;
}

/* The title follows the scene (Tab, a reload that renames it). */
static void update_title(app *a, SDL_Window *win)
{
    char title[200];
    app_format(title, sizeof title, "steer - %s", a->title[0] ? a->title : a->scene_module);
    if (strcmp(title, SDL_GetWindowTitle(win)) != 0)
        SDL_SetWindowTitle(win, title);
}

/* One frame: events, steps, files, drawing (cut short when the app quits). */
static void run_frame(app *a, SDL_Window *win, render_ctx *c, double *last, drive *d, long frame_no)
{
    SDL_GetRendererOutputSize(c->r, &c->w, &c->h);
    render_fit_world(c, a);
    input_result in = {drive_frame(a, d, c, frame_no)};
    SDL_Event e;
    while (SDL_PollEvent(&e))
        if (!ui_event(c->gui, a, &e)) /* keys typed into a window are the window's alone */
            input_handle(a, c, &e, &in);
    if (a->quit)
        return;
    tt_frame(a);

    double now = app_clock();
    double frame = now - *last;
    *last = now;
    advance(a, frame > 0.25 ? 0.25 : frame);
    app_poll_files(a, now);
    if (a->quit)
        return;

    update_title(a, win);
    /* agents between their last two steps, so motion is smooth at any refresh rate */
    c->alpha = a->paused || !(a->dt > 0.0) ? 1.0 : a->accumulator / a->dt;
    if (!(c->alpha <= 1.0))
        c->alpha = 1.0;
    render_frame(a, c, true);
    if (in.screenshot)
        save_screenshot(a, c->r, c->w, c->h);
    SDL_RenderPresent(c->r);

    /* Without vsync (software renderer, some drivers) do not spin. */
    double spent = app_clock() - now;
    if (spent < MIN_FRAME_SECONDS)
        SDL_Delay((Uint32)((MIN_FRAME_SECONDS - spent) * 1000.0) + 1);
}

int app_run_window(app *a)
{
    if (TTF_Init() != 0)
        fprintf(stderr, "steer: SDL_ttf: %s (no text)\n", TTF_GetError());
    IMG_Init(IMG_INIT_PNG);
    SDL_Renderer *r = NULL;
    SDL_Window *win = open_window(a, &r);
    if (win == NULL)
        return 2;
    drive *d = NULL;
    if (a->opt.events != NULL && (d = drive_open(a->opt.events)) == NULL) {
        SDL_DestroyRenderer(r);
        SDL_DestroyWindow(win);
        return 2;
    }
    render_ctx c;
    render_ctx_init(&c, r);
    double last = app_clock();
    long frame = 0;
    for (; !a->quit && (a->opt.frames <= 0 || frame < a->opt.frames); frame++)
        run_frame(a, win, &c, &last, d, frame);
    int status = 0;
    if (a->opt.frames > 0) {
        /* a scripted run: its summary, and the headless run's verdict */
        drive_summary(a, frame);
        status = a->scene_ok && a->error_total == 0 ? 0 : 1;
    }
    drive_free(d);
    render_ctx_free(&c);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    IMG_Quit();
    TTF_Quit();
    return status;
}
