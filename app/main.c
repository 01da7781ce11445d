/*
 * main.c — `steer [scene.lua] [options]`: parses the command line, then runs
 * the window (window.c) or a headless run (headless.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
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
            "                      renderer, no display needed; the world's size plus the\n"
            "                      timeline's band); implies --draw\n"
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
            "  --memory MB         memory cap in MiB for Lua and the worlds, navgrids,\n"
            "                      snapshots... scripts make (default 1024; 0: unlimited)\n"
            "\n");
    fprintf(out,
            "time travel (README \"Time travel\"):\n"
            "  --record FILE       record the session: seed, scene, every source loaded or\n"
            "                      reloaded, keys, clicks, the mouse, a checksum every 60 ticks\n"
            "  --replay FILE       replay a recording (scene, seed and arguments come from it;\n"
            "                      trust and limits from the command line; with --record,\n"
            "                      the replay is recorded again, the same file) and\n"
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
            "  --draw              headless: draw every tick (scene.draw, brain.draw) with the\n"
            "                      software renderer, so draw errors count as in the window\n"
            "                      (--screenshot implies it; with --realtime too)\n"
            "  --frames N          window: quit after N frames, printing a summary line\n"
            "                      (frames, ticks, agents, checksum, errors)\n"
            "  --events FILE       window: feed the inputs in FILE (lines 'FRAME key F1',\n"
            "                      'FRAME click X Y [B]', 'FRAME click-world X Y [B]',\n"
            "                      'FRAME click-agent K [B]', 'FRAME move X Y', 'FRAME panels',\n"
            "                      'FRAME state'), as if typed, through the same routing\n"
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

/* ------------------------------------------------------------------ options with a shape of their own */

static bool set_seed(app_options *o, char *val)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(val, &end, 0);
    if (errno != 0 || end == val || *end != '\0' || val[0] == '-')
        return false;
    o->seed = (uint64_t)s;
    o->has_seed = true;
    return true;
}

/* --select X,Y: two finite numbers. */
static bool set_select(app_options *o, char *val)
{
    char *mid = NULL, *yend = NULL;
    o->select_x = strtod(val, &mid);
    if (mid == val || *mid != ',')
        return false;
    const char *ys = mid + 1;
    o->select_y = strtod(ys, &yend);
    if (yend == ys || *yend != '\0' || !isfinite(o->select_x) || !isfinite(o->select_y))
        return false;
    o->has_select = true;
    return true;
}

static bool set_threads(app_options *o, char *val)
{
    long v;
    if (!parse_long(val, 1, 256, &v))
        return false;
    o->threads = (int)v;
    return true;
}

static bool set_memory(app_options *o, char *val)
{
    long v;
    if (!parse_long(val, 0, 1 << 20, &v))
        return false;
    o->memory_mb = (size_t)v;
    return true;
}

/* --rewind-test T:N or T:N:FILE=SOURCE (the value is cut in place). */
static bool set_rewind_test(app_options *o, char *val)
{
    char *colon = NULL;
    errno = 0;
    o->rewind_at = strtol(val, &colon, 10);
    if (colon == val || *colon != ':' || o->rewind_at <= 0 || errno != 0)
        return false;
    char *edit = strchr(colon + 1, ':');
    if (edit != NULL) {
        *edit++ = '\0';
        if (strchr(edit, '=') == NULL)
            return false;
        o->rewind_edit = edit;
    }
    return parse_long(colon + 1, 1, o->rewind_at, &o->rewind_by);
}

/* --reload-at T:FILE[=SOURCE], up to 16 of them (the value is cut in place). */
static bool add_reload_at(app_options *o, char *val)
{
    char *colon = NULL;
    if (o->nreload_at == (int)(sizeof o->reload_at / sizeof o->reload_at[0]))
        return false;
    errno = 0;
    long t = strtol(val, &colon, 10);
    if (colon == val || *colon != ':' || colon[1] == '\0' || t < 0 || errno != 0)
        return false;
    struct reload_at *r = &o->reload_at[o->nreload_at++];
    r->tick = t;
    r->file = colon + 1;
    r->source = NULL;
    char *eq = strchr(colon + 1, '=');
    if (eq != NULL) {
        *eq = '\0';
        r->source = eq + 1;
    }
    return true;
}

/* ------------------------------------------------------------------ the table */

typedef enum option_kind {
    OPT_FLAG, ///< no value: sets a bool field
    OPT_TEXT, ///< a non-empty string field
    OPT_LONG, ///< a long field in lo..hi
    OPT_FN,   ///< parsed by fn
} option_kind;

typedef struct cli_option {
    const char *name;
    option_kind kind;
    size_t field; ///< offsetof the app_options field (OPT_FLAG, OPT_TEXT, OPT_LONG)
    long lo, hi;
    bool (*fn)(app_options *o, char *val);
} cli_option;

#define FLAG_OPT(name, f) {name, OPT_FLAG, offsetof(app_options, f), 0, 0, NULL}
#define TEXT_OPT(name, f) {name, OPT_TEXT, offsetof(app_options, f), 0, 0, NULL}
#define LONG_OPT(name, f, lo, hi) {name, OPT_LONG, offsetof(app_options, f), lo, hi, NULL}
#define FN_OPT(name, fn) {name, OPT_FN, 0, 0, 0, fn}

static const cli_option OPTIONS[] = {
    FLAG_OPT("--headless", headless),
    FLAG_OPT("--realtime", realtime),
    FLAG_OPT("--trust", trust),
    FLAG_OPT("--with-current-scripts", current_scripts),
    FLAG_OPT("--plots", plots),
    LONG_OPT("--ticks", ticks, 0, 2000000000L),
    FN_OPT("--seed", set_seed),
    TEXT_OPT("--screenshot", screenshot),
    FN_OPT("--select", set_select),
    LONG_OPT("--draw-frames", draw_frames, 1, 100000),
    FN_OPT("--threads", set_threads),
    LONG_OPT("--budget", budget, 0, 2000000000L),
    LONG_OPT("--time-limit", time_limit, 0, 86400),
    FN_OPT("--memory", set_memory),
    TEXT_OPT("--record", record),
    TEXT_OPT("--replay", replay),
    TEXT_OPT("--trace", trace),
    TEXT_OPT("--trace-fields", trace_fields),
    LONG_OPT("--rewind-mb", rewind_mb, 0, 1 << 20),
    LONG_OPT("--rewind-every", rewind_every, 1, 1000000),
    FN_OPT("--reload-at", add_reload_at),
    FN_OPT("--rewind-test", set_rewind_test),
    LONG_OPT("--frames", frames, 1, 100000000L),
    TEXT_OPT("--events", events),
    FLAG_OPT("--draw", draw),
};

#undef FLAG_OPT
#undef TEXT_OPT
#undef LONG_OPT
#undef FN_OPT

/* The option arg names: flags exactly, the others as "--name" or "--name=...". */
static const cli_option *find_option(const char *arg)
{
    for (size_t k = 0; k < sizeof OPTIONS / sizeof OPTIONS[0]; k++) {
        const cli_option *opt = &OPTIONS[k];
        size_t n = strlen(opt->name);
        if (opt->kind == OPT_FLAG ? strcmp(arg, opt->name) == 0
                                  : strncmp(arg, opt->name, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
            return opt;
    }
    return NULL;
}

/* The value of argv[*i] ("--name value", taking the next argument, or
 * "--name=value"); NULL, said on stderr, when there is none. */
static char *option_value(int argc, char **argv, int *i, const char *name)
{
    char *arg = argv[*i];
    size_t n = strlen(name);
    if (arg[n] == '=')
        return arg + n + 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "steer: option %s needs a value\n", name);
        return NULL;
    }
    return argv[++*i];
}

/* Sets what argv[*i] says; false when its value is missing or bad. */
static bool apply_option(const cli_option *opt, int argc, char **argv, int *i, app_options *o)
{
    char *field = (char *)o + opt->field;
    if (opt->kind == OPT_FLAG) {
        *(bool *)field = true;
        return true;
    }
    char *val = option_value(argc, argv, i, opt->name);
    if (val == NULL)
        return false;
    switch (opt->kind) {
    case OPT_TEXT:
        *(const char **)field = val;
        return val[0] != '\0';
    case OPT_LONG:
        return parse_long(val, opt->lo, opt->hi, (long *)field);
    case OPT_FN:
        return opt->fn(o, val);
    default:
        return false;
    }
}

/* ------------------------------------------------------------------ parse */

static void set_defaults(app_options *o)
{
    memset(o, 0, sizeof *o);
    o->ticks = -1;
    o->threads = 1;
    o->budget = 50000000;
    o->time_limit = 5;
    o->memory_mb = 1024;
    o->rewind_mb = 64;
    o->rewind_every = 30;
}

/* Options that only make sense with another: -1 when all is well, else the
 * exit status (2, said on stderr). */
static int check_combinations(const app_options *o)
{
    const struct {
        bool bad;
        const char *why;
    } rules[] = {
        {o->screenshot && !o->headless, "--screenshot needs --headless (press P in the window)"},
        {o->draw_frames > 0 && !o->headless, "--draw-frames needs --headless (the window shows FPS)"},
        {o->rewind_at > 0 && !o->headless, "--rewind-test needs --headless (use Left / Right in the window)"},
        {o->nreload_at > 0 && !o->headless, "--reload-at needs --headless (save the file in the window)"},
        {o->plots && !o->screenshot, "--plots needs --screenshot (press G in the window)"},
        {o->frames > 0 && o->headless, "--frames is for the window (headless: --ticks)"},
        {o->events && o->headless, "--events is for the window (headless: --select, --reload-at)"},
        {o->draw && !o->headless, "--draw needs --headless (the window always draws)"},
    };
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        if (rules[k].bad) {
            fprintf(stderr, "steer: %s\n", rules[k].why);
            return 2;
        }
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, app_options *o)
{
    set_defaults(o);
    static char *rest[256];
    int nrest = 0;
    bool positional_only = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (positional_only || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (o->scene == NULL && !positional_only)
                o->scene = arg;
            else if (nrest < (int)(sizeof rest / sizeof rest[0]))
                rest[nrest++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            positional_only = true;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(arg, "--version") == 0) {
            printf("steer %s\n", ST_VERSION);
            return 0;
        }
        const cli_option *opt = find_option(arg);
        if (opt == NULL) {
            fprintf(stderr, "steer: unknown option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        if (!apply_option(opt, argc, argv, &i, o)) {
            fprintf(stderr, "steer: bad value for %s\n", arg);
            usage(stderr);
            return 2;
        }
    }
    if (o->realtime)
        o->headless = true;
    o->argc = nrest;
    o->argv = rest;
    return check_combinations(o);
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
