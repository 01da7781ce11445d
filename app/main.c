/*
 * main.c — `steer [scene.lua] [options]`: parses the command line, then runs
 * the window (window.c) or a headless run (headless.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "app.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: steer [scene.lua] [options] [-- scene args...]\n"
            "\n"
            "Runs a steering scene (default: the hunter/prey demo, scripts/hunt.lua).\n"
            "\n"
            "options:\n"
            "  --headless          run with no window and no display; print one summary line\n"
            "                      (ticks, agents, ms per step, checksum) and exit\n"
            "  --ticks N           steps to run headless (default 600; with --realtime: until\n"
            "                      interrupted)\n"
            "  --seed S            world seed (default: the scene's config.seed, else 1)\n"
            "  --screenshot F.png  after a headless run, save a frame as PNG (software\n"
            "                      renderer, no display needed)\n"
            "  --select X,Y        headless: select the agent nearest the world point X,Y\n"
            "                      before the last step (its overlays show in --screenshot)\n"
            "  --draw-frames N     after a headless run, render N frames with the software\n"
            "                      renderer and print the milliseconds per frame\n"
            "  --realtime          headless, paced at the fixed step, watching and reloading\n"
            "                      files as the window does; prints each reload and error\n"
            "  --threads N         threads for the standing behaviours (default 1)\n"
            "  --trust             run scripts without the sandbox\n"
            "  --budget N          Lua instructions per callback before it is stopped\n"
            "                      (default 50000000; 0: unlimited)\n"
            "  --time-limit S      seconds of wall time per callback before it is stopped\n"
            "                      (default 5; 0: unlimited; needs a budget)\n"
            "  --memory MB         Lua memory cap in MiB (default 1024; 0: unlimited)\n"
            "\n"
            "time travel (README \"Time travel\"):\n"
            "  --record FILE       record the session: seed, scene, every source loaded or\n"
            "                      reloaded, keys, clicks, the mouse, a checksum every 60 ticks\n"
            "  --replay FILE       replay a recording (scene and options come from it) and\n"
            "                      print 'replay: identical (N checksums)' or the first tick\n"
            "                      whose checksum differs (exit status 3)\n"
            "  --with-current-scripts  with --replay: the recorded inputs against the scripts\n"
            "                      on disk now, compared with the recorded run every tick\n"
            "  --trace FILE.csv    one row per tick per agent (id, tick, time, x, y, vx, vy,\n"
            "                      speed, force, tag, then fields of self)\n"
            "  --trace-fields A,B  the self fields traced (default: scene.trace, else every\n"
            "                      number in self); dotted paths reach nested tables\n"
            "  --rewind-mb MB      memory for rewind checkpoints (default 64; 0: none, going\n"
            "                      back then re-runs the session from the start)\n"
            "  --rewind-every K    ticks between rewind checkpoints (default 30)\n"
            "  --plots             headless: show the plot panel of the --select agent (it is\n"
            "                      selected 10 s before the end so the plots are full)\n"
            "  --reload-at T:F[=S] headless, for tests: after tick T reload file F, with the\n"
            "                      text of file S if given (F on disk is left alone)\n"
            "  --rewind-test T:N   headless, for tests: after tick T rewind N ticks, step\n"
            "                      forward one tick at a time and compare every checksum\n"
            "                      with the first pass; T:N:F=S instead reloads file F with\n"
            "                      the text of S in the past (a branch) and runs on from there\n"
            "  --version           print the version\n"
            "  -h, --help          this text\n"
            "\n"
            "Arguments after the scene (or after --) reach scene.load(world, args).\n"
            "Keys in the window: F1 lists them.\n");
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* "--name value" or "--name=value". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (strcmp(arg, name) == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "steer: option %s needs a value\n", name);
            return NULL;
        }
        return argv[++*i];
    }
    return NULL;
}

static bool is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, app_options *o)
{
    memset(o, 0, sizeof *o);
    o->ticks = -1;
    o->threads = 1;
    o->budget = 50000000;
    o->time_limit = 5;
    o->memory_mb = 1024;
    o->rewind_mb = 64;
    o->rewind_every = 30;
    static char *rest[256];
    int nrest = 0;
    bool positional_only = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        long v;
        const char *val;
        if (positional_only || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (o->scene == NULL && !positional_only)
                o->scene = arg;
            else if (nrest < (int)(sizeof rest / sizeof rest[0]))
                rest[nrest++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            positional_only = true;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--version") == 0) {
            printf("steer %s\n", ST_VERSION);
            return 0;
        } else if (strcmp(arg, "--headless") == 0) {
            o->headless = true;
        } else if (strcmp(arg, "--realtime") == 0) {
            o->realtime = true;
        } else if (strcmp(arg, "--with-current-scripts") == 0) {
            o->current_scripts = true;
        } else if (strcmp(arg, "--plots") == 0) {
            o->plots = true;
        } else if (is_option(arg, "--record") || is_option(arg, "--replay") || is_option(arg, "--trace") ||
                   is_option(arg, "--trace-fields")) {
            const char *name = is_option(arg, "--record") ? "--record" : is_option(arg, "--replay") ? "--replay"
                               : is_option(arg, "--trace-fields") ? "--trace-fields" : "--trace";
            if ((val = option_value(argc, argv, &i, name)) == NULL || val[0] == '\0')
                goto bad_value;
            if (name[3] == 'e' && name[4] == 'c')
                o->record = val;
            else if (name[3] == 'e')
                o->replay = val;
            else if (strcmp(name, "--trace") == 0)
                o->trace = val;
            else
                o->trace_fields = val;
        } else if (is_option(arg, "--rewind-test")) {
            char *colon = NULL;
            if ((val = option_value(argc, argv, &i, "--rewind-test")) == NULL)
                goto bad_value;
            errno = 0;
            o->rewind_at = strtol(val, &colon, 10);
            if (colon == val || *colon != ':' || o->rewind_at <= 0 || errno != 0)
                goto bad_value;
            char *edit = strchr(colon + 1, ':');
            if (edit != NULL) {
                *edit++ = '\0';
                if (strchr(edit, '=') == NULL)
                    goto bad_value;
                o->rewind_edit = edit;
            }
            if (!parse_long(colon + 1, 1, o->rewind_at, &v))
                goto bad_value;
            o->rewind_by = v;
        } else if (is_option(arg, "--rewind-mb")) {
            if ((val = option_value(argc, argv, &i, "--rewind-mb")) == NULL || !parse_long(val, 0, 1 << 20, &v))
                goto bad_value;
            o->rewind_mb = v;
        } else if (is_option(arg, "--rewind-every")) {
            if ((val = option_value(argc, argv, &i, "--rewind-every")) == NULL || !parse_long(val, 1, 1000000, &v))
                goto bad_value;
            o->rewind_every = v;
        } else if (is_option(arg, "--reload-at")) {
            char *colon = NULL;
            if ((val = option_value(argc, argv, &i, "--reload-at")) == NULL || o->nreload_at == 16)
                goto bad_value;
            errno = 0;
            long t = strtol(val, &colon, 10);
            if (colon == val || *colon != ':' || colon[1] == '\0' || t < 0 || errno != 0)
                goto bad_value;
            struct reload_at *r = &o->reload_at[o->nreload_at++];
            r->tick = t;
            r->file = colon + 1;
            r->source = NULL;
            char *eq = strchr(colon + 1, '=');
            if (eq != NULL) {
                *eq = '\0';
                r->source = eq + 1;
            }
        } else if (strcmp(arg, "--trust") == 0) {
            o->trust = true;
        } else if (is_option(arg, "--ticks")) {
            if ((val = option_value(argc, argv, &i, "--ticks")) == NULL || !parse_long(val, 0, 2000000000L, &v))
                goto bad_value;
            o->ticks = v;
        } else if (is_option(arg, "--seed")) {
            char *end;
            if ((val = option_value(argc, argv, &i, "--seed")) == NULL)
                goto bad_value;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 0);
            if (errno != 0 || end == val || *end != '\0' || val[0] == '-')
                goto bad_value;
            o->seed = (uint64_t)s;
            o->has_seed = true;
        } else if (is_option(arg, "--screenshot")) {
            if ((val = option_value(argc, argv, &i, "--screenshot")) == NULL || val[0] == '\0')
                goto bad_value;
            o->screenshot = val;
        } else if (is_option(arg, "--select")) {
            char *mid = NULL;
            if ((val = option_value(argc, argv, &i, "--select")) == NULL)
                goto bad_value;
            o->select_x = strtod(val, &mid);
            if (mid == val || *mid != ',')
                goto bad_value;
            const char *ys = mid + 1;
            char *yend = NULL;
            o->select_y = strtod(ys, &yend);
            if (yend == ys || *yend != '\0' || !isfinite(o->select_x) || !isfinite(o->select_y))
                goto bad_value;
            o->has_select = true;
        } else if (is_option(arg, "--draw-frames")) {
            if ((val = option_value(argc, argv, &i, "--draw-frames")) == NULL || !parse_long(val, 1, 100000, &v))
                goto bad_value;
            o->draw_frames = v;
        } else if (is_option(arg, "--threads")) {
            if ((val = option_value(argc, argv, &i, "--threads")) == NULL || !parse_long(val, 1, 256, &v))
                goto bad_value;
            o->threads = (int)v;
        } else if (is_option(arg, "--budget")) {
            if ((val = option_value(argc, argv, &i, "--budget")) == NULL || !parse_long(val, 0, 2000000000L, &v))
                goto bad_value;
            o->budget = v;
        } else if (is_option(arg, "--time-limit")) {
            if ((val = option_value(argc, argv, &i, "--time-limit")) == NULL || !parse_long(val, 0, 86400, &v))
                goto bad_value;
            o->time_limit = v;
        } else if (is_option(arg, "--memory")) {
            if ((val = option_value(argc, argv, &i, "--memory")) == NULL || !parse_long(val, 0, 1 << 20, &v))
                goto bad_value;
            o->memory_mb = (size_t)v;
        } else {
            fprintf(stderr, "steer: unknown option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        continue;
    bad_value:
        fprintf(stderr, "steer: bad value for %s\n", arg);
        usage(stderr);
        return 2;
    }
    if (o->realtime)
        o->headless = true;
    if (o->screenshot && !o->headless) {
        fprintf(stderr, "steer: --screenshot needs --headless (press P in the window)\n");
        return 2;
    }
    if (o->draw_frames > 0 && !o->headless) {
        fprintf(stderr, "steer: --draw-frames needs --headless (the window shows FPS)\n");
        return 2;
    }
    if (o->rewind_at > 0 && !o->headless) {
        fprintf(stderr, "steer: --rewind-test needs --headless (use Left / Right in the window)\n");
        return 2;
    }
    if (o->nreload_at > 0 && !o->headless) {
        fprintf(stderr, "steer: --reload-at needs --headless (save the file in the window)\n");
        return 2;
    }
    if (o->plots && !o->screenshot) {
        fprintf(stderr, "steer: --plots needs --screenshot (press G in the window)\n");
        return 2;
    }
    o->argc = nrest;
    o->argv = rest;
    return -1;
}

int main(int argc, char **argv)
{
    /* Tests read the output while the app runs: one line at a time. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    app_options opt;
    int status = parse(argc, argv, &opt);
    if (status >= 0)
        return status;

    static app a;
    if (!tt_prepare(&a, &opt)) {
        tt_close(&a);
        return 2;
    }
    if (opt.headless) {
        if (!app_start(&a, &opt) || !tt_open(&a)) {
            tt_close(&a);
            return 1;
        }
        status = app_run_headless(&a);
    } else {
        /* The display first: with none there is nothing to load the scene for.
         * Left to itself SDL falls back to its "offscreen" driver, which
         * "succeeds" with no screen at all, so unless the user names a
         * driver only the real ones are tried. */
        if (getenv("SDL_VIDEODRIVER") == NULL)
            SDL_SetHint(SDL_HINT_VIDEODRIVER, getenv("WAYLAND_DISPLAY") ? "wayland,x11,KMSDRM" : "x11,KMSDRM");
        if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
            fprintf(stderr, "steer: no display available (SDL: %s); try --headless (see --help)\n",
                    SDL_GetError());
            return 2;
        }
        if (!app_start(&a, &opt) || !tt_open(&a)) {
            tt_close(&a);
            SDL_Quit();
            return 1;
        }
        status = app_run_window(&a);
        SDL_Quit();
    }
    app_shutdown(&a);
    tt_close(&a);
    return status;
}
