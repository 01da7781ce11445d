/*
 * record.c — the journal (the session as a recording, kept in memory
 * always: rewinds re-run it, --record writes it out at exit), --replay, and
 * rewinds (going back re-runs the journal from a checkpoint or the start).
 *
 * The journal is written by the one event stream (event.c): each input as
 * it is applied, each module source as it is loaded (event_source.c), the
 * marks, and here a checksum every SUM_EVERY ticks. A replay or a rewind
 * hands the journal's events back to event_apply at their tick
 * (record_feed): the same events through the same function.
 *
 * Ticks here are the app's steps since start (a->steps_run): an event logged
 * at tick T happened after step T and before step T + 1, and a replay
 * applies it at the same point. The file is text lines, one record a line,
 * with each source as a counted blob after its line; see README "Time
 * travel" for the grammar. Floats are written in C's hex form (%a), so a
 * replayed mouse position is the recorded one to the bit.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "event.h"
#include "steer_lua.h"
#include "sys.h"

/* A checksum every SUM_EVERY ticks: a divergence is found within a second
 * of sim time while the file grows by ~25 bytes a second. */
#define SUM_EVERY 60

/* The journal: the session as a recording, kept in memory whether or not
 * --record asked for a file (rewinds replay it). --record writes it out
 * when the app ends, after any branch has cut the abandoned future. */
#define SUMS_RING 65536 /* per-tick checksums of the first pass: re-simulations are checked against them */

struct recorder {
    FILE *mem;          ///< open_memstream over membuf
    char *membuf;
    size_t memlen;
    size_t header_len;  ///< bytes of the header (through "begin\n")
    char path[PATH_MAX]; ///< --record FILE; "" for none
    bool mouse_valid;
    st_vec2 mouse;
    bool failed;
    uint64_t sums[SUMS_RING];
    long sums_head;     ///< ticks 1..sums_head have their checksum in sums[tick % SUMS_RING]
    long resim_checked, resim_bad; ///< re-simulated ticks checked against the first pass, and how many differed
};

struct replayer {
    char path[PATH_MAX];
    int next;           ///< the next event to apply
    bool current;       ///< --with-current-scripts
    bool finished;
    bool rewind;        ///< a rewind's re-run of the journal (not --replay)
    bool quiet;         ///< --with-current-scripts' reference run: its reloads are not news
    /* verdict */
    int compared;
    bool diverged;
    long div_tick;
    uint64_t expected, got;
    bool mouse_valid;
    st_vec2 mouse;
    /* --with-current-scripts: the recorded run, stepped alongside */
    app *ref;
    rec_recording rec;  ///< the file: header and events
};


/* The replay (or rewind) running, NULL for none; a rewind's and a
 * reference run's news were told the first time (a->quiet). */
static void set_rep(app *a, replayer *p)
{
    a->rep = p;
    a->quiet = p != NULL && (p->rewind || p->quiet);
}

/* ------------------------------------------------------------------ writing */

static void rec_printf(app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* While a rewind re-runs the journal, it is the journal's past: not logged again. */
static bool journal_on(const app *a)
{
    return a->rec != NULL && !a->rec->failed && !(a->rep != NULL && a->rep->rewind);
}

static void rec_printf(app *a, const char *fmt, ...)
{
    if (!journal_on(a))
        return;
    recorder *r = a->rec;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(r->mem, fmt, ap) < 0) {
        r->failed = true;
        fprintf(stderr, "steer: the session journal is lost (out of memory): no more rewinds or recording\n");
    }
    va_end(ap);
}

/* A label or key name as the rest of a line: no newlines. */
static void one_line(const char *s, char *out, size_t n)
{
    app_format(out, n, "%s", s);
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

static void write_event(FILE *f, const rec_event *e);

static void record_pointer(app *a);

void record_event(app *a, const rec_event *e)
{
    if (!journal_on(a))
        return;
    if (e->kind == EV_KEY || e->kind == EV_CLICK || e->kind == EV_CONSOLE)
        record_pointer(a);
    recorder *r = a->rec;
    write_event(r->mem, e);
    if (ferror(r->mem)) {
        r->failed = true;
        fprintf(stderr, "steer: the session journal is lost (out of memory): no more rewinds or recording\n");
    }
}

/* The journal so far as a complete recording ending at tick end: a copy. */
static char *journal_copy(recorder *r, long end, size_t *len)
{
    if (r->failed || fflush(r->mem) != 0)
        return NULL;
    char tail[64];
    int tl = snprintf(tail, sizeof tail, "end %ld\n", end);
    char *buf = malloc(r->memlen + (size_t)tl + 1);
    if (buf == NULL)
        return NULL;
    memcpy(buf, r->membuf, r->memlen);
    memcpy(buf + r->memlen, tail, (size_t)tl + 1);
    *len = r->memlen + (size_t)tl;
    return buf;
}

/* Writes the journal to --record's file, whole (a branch may have cut it),
 * through a temporary file renamed over it, so a crash leaves the last
 * complete version. */
static bool rec_write(recorder *r, long head)
{
    size_t len = 0;
    char *buf = journal_copy(r, head, &len);
    char tmp[PATH_MAX + 8];
    app_format(tmp, sizeof tmp, "%s.tmp", r->path);
    FILE *f = buf ? fopen(tmp, "wb") : NULL;
    bool ok = f != NULL && fwrite(buf, 1, len, f) == len;
    if (f != NULL && fclose(f) != 0)
        ok = false;
    if (ok && !app_replace_file(tmp, r->path))
        ok = false;
    if (!ok) {
        fprintf(stderr, "steer: cannot write the recording %s: %s\n", r->path,
                buf ? strerror(errno) : "the journal was lost");
        remove(tmp);
    }
    free(buf);
    return ok;
}

static void rec_close(app *a, const char *why)
{
    recorder *r = a->rec;
    if (r == NULL)
        return;
    /* the journal's head: a rewound app that never branched still owns the future it rewound from */
    long head = a->rep && a->rep->rewind ? a->rep->rec.end : a->steps_run;
    if (r->path[0] && rec_write(r, head)) {
        printf("record: %s (%ld ticks)%s%s\n", r->path, head, why ? " " : "", why ? why : "");
        fflush(stdout);
    }
    fclose(r->mem);
    free(r->membuf);
    free(r);
    a->rec = NULL;
}

/* ------------------------------------------------------------------ marks */

/* Drops the marks at or after tick: they belong to a future gone. */
static void drop_marks_from(app *a, long tick)
{
    int kept = 0, n = a->mark_count < APP_MAX_MARKS ? a->mark_count : APP_MAX_MARKS;
    for (int k = 0; k < n; k++) {
        app_mark m = a->marks[(a->mark_count - n + k) % APP_MAX_MARKS];
        if (m.tick < tick)
            a->marks[kept++ % APP_MAX_MARKS] = m;
    }
    a->mark_count = kept;
}

/* ------------------------------------------------------------------ reading */

static void free_replayer(replayer *p)
{
    if (p == NULL)
        return;
    rec_recording_free(&p->rec);
    free(p);
}

/* Parses a recording: the file at path, or buf (size bytes, taken over) when given. */
static replayer *load_replay(const char *path, char *buf, size_t size, char *err, size_t errn)
{
    replayer *p = calloc(1, sizeof *p);
    if (p == NULL) {
        free(buf);
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    if (buf == NULL && (buf = source_read_file(path, &size)) == NULL) {
        snprintf(err, errn, "cannot read it: %s", strerror(errno));
        free(p);
        return NULL;
    }
    if (!rec_parse(&p->rec, buf, size, err, errn)) {
        free_replayer(p);
        return NULL;
    }
    return p;
}

/* ------------------------------------------------------------------ opening */

/* The sources the scene loaded at start (the recording's tick 0 files):
 * served from the overlay before it loads. */
static void serve_start_sources(app *a, replayer *p)
{
    while (p->next < p->rec.n && p->rec.ev[p->next].kind == EV_FILE && p->rec.ev[p->next].tick == 0) {
        rec_event *e = &p->rec.ev[p->next++];
        source_serve(a, e->root, e->text, e->data, e->len);
    }
}

/* Opens the journal (a recording in memory) with the header for this
 * scene and options; file: where --record writes it at the end, or NULL. */
static bool journal_open(app *a, const app_options *o, const char *scene_arg, const char *file)
{
    recorder *r = calloc(1, sizeof *r);
    char scene[PATH_MAX];
    if (r == NULL)
        return false;
    if (file) {
        /* fail now, not after the session */
        FILE *f = fopen(file, "wb");
        if (f == NULL) {
            fprintf(stderr, "steer: cannot write the recording %s: %s\n", file, strerror(errno));
            free(r);
            return false;
        }
        fclose(f);
        snprintf(r->path, sizeof r->path, "%s", file);
    }
    r->mem = open_memstream(&r->membuf, &r->memlen);
    if (r->mem == NULL) {
        free(r);
        return false;
    }
    char def[PATH_MAX + 16];
    snprintf(def, sizeof def, "%s/hunt.lua", STEER_SCRIPTS_DIR);
    if (app_realpath(scene_arg ? scene_arg : def, scene) == NULL)
        app_format(scene, sizeof scene, "%s", scene_arg ? scene_arg : def);
    a->rec = r;
    rec_printf(a, "%s %d\nengine %s\nscene %s\n", RECORD_MAGIC, RECORD_VERSION, ST_VERSION, scene);
    if (o->has_seed)
        rec_printf(a, "seed %llu\n", (unsigned long long)o->seed);
    else
        rec_printf(a, "seed none\n");
    rec_printf(a, "trust %d\nbudget %ld\ntime_limit %ld\nmemory %zu\n", o->trust ? 1 : 0, o->budget,
               o->time_limit, o->memory_mb);
    for (int i = 0; i < o->argc; i++) {
        char arg[1024];
        one_line(o->argv[i], arg, sizeof arg);
        rec_printf(a, "arg %s\n", arg);
    }
    rec_printf(a, "begin\n");
    fflush(r->mem);
    r->header_len = r->memlen;
    return true;
}

/* A recording is a data file people send each other: replaying one never
 * runs with more rights than the command line gives. Its trust and limits
 * are what the session ran with, so a replay that differs may diverge
 * (said once on stderr); one recorded with --trust is refused without it,
 * since its sources (embedded, and run by a --with-current-scripts
 * reference too) would run unsandboxed. */
static bool replay_rights(const app_options *o, const replayer *p)
{
    if (p->rec.trust && !o->trust) {
        fprintf(stderr, "steer: replay %s: it was recorded with --trust and its scripts would run outside the "
                        "sandbox; add --trust to replay it (only if you trust where it came from)\n", o->replay);
        return false;
    }
    if (!o->reference && (p->rec.budget != o->budget || p->rec.time_limit != o->time_limit || (size_t)p->rec.memory_mb != o->memory_mb))
        fprintf(stderr, "steer: replay %s: recorded with --budget %ld --time-limit %ld --memory %ld; running with "
                        "the command line's --budget %ld --time-limit %ld --memory %zu\n", o->replay, p->rec.budget,
                p->rec.time_limit, p->rec.memory_mb, o->budget, o->time_limit, o->memory_mb);
    return true;
}

bool tt_prepare(app *a, app_options *o)
{
    if (o->replay && o->record && o->current_scripts) {
        fprintf(stderr, "steer: --record does not go with --with-current-scripts (--replay A --record B re-records A)\n");
        return false;
    }
    if (o->current_scripts && !o->replay) {
        fprintf(stderr, "steer: --with-current-scripts needs --replay FILE\n");
        return false;
    }
    if (!source_open(a))
        return false;
    if (o->replay) {
        char err[PATH_MAX + 256];
        replayer *p = load_replay(o->replay, NULL, 0, err, sizeof err);
        if (p == NULL) {
            fprintf(stderr, "steer: replay %s: %s\n", o->replay, err);
            return false;
        }
        if (o->scene && strcmp(o->scene, p->rec.scene) != 0) {
            char real[PATH_MAX];
            if (app_realpath(o->scene, real) == NULL || strcmp(real, p->rec.scene) != 0) {
                fprintf(stderr, "steer: replay %s: it recorded %s, not %s (leave the scene out)\n", o->replay,
                        p->rec.scene, o->scene);
                free_replayer(p);
                return false;
            }
        }
        if (!replay_rights(o, p)) {
            free_replayer(p);
            return false;
        }
        p->current = o->current_scripts;
        o->scene = p->rec.scene;
        o->has_seed = p->rec.has_seed;
        o->seed = p->rec.seed;
        o->argc = p->rec.argc;
        o->argv = p->rec.argv;
        set_rep(a, p);
        if (!p->current)
            serve_start_sources(a, p);
    }
    return journal_open(a, o, o->scene, o->record);
}

static bool start_reference(app *a);

bool tt_open(app *a)
{
    a->plot = plot_new();
    if (a->rep == NULL)
        a->rewind = rewind_new((size_t)a->opt.rewind_mb, a->opt.rewind_every);
    if (a->opt.trace) {
        a->tracer = trace_open(a, a->opt.trace, a->opt.trace_fields);
        if (a->tracer == NULL)
            return false;
    }
    if (a->rep && a->rep->current && !start_reference(a))
        return false;
    return true;
}

void tt_close(app *a)
{
    rec_close(a, NULL);
    trace_close(a->tracer);
    a->tracer = NULL;
    plot_free(a->plot);
    a->plot = NULL;
    rewind_free(a);
    if (a->rep) {
        if (a->rep->ref) {
            app_shutdown(a->rep->ref);
            tt_close(a->rep->ref);
            free(a->rep->ref);
        }
        free_replayer(a->rep);
        set_rep(a, NULL);
    }
    source_close(a);
}

/* --with-current-scripts: the recorded run itself, from the recorded
 * sources, stepped tick by tick beside the current one, so the first tick
 * whose checksums differ is found exactly (not to the nearest SUM_EVERY). */
static bool start_reference(app *a)
{
    app *ref = calloc(1, sizeof *ref);
    if (ref == NULL)
        return false;
    app_options o = a->opt;
    o.current_scripts = false;
    o.reference = true;
    o.headless = true; /* its verdict is the current run's to give */
    o.record = NULL;
    o.trace = NULL;
    o.nreload_at = 0;
    if (!tt_prepare(ref, &o) || !app_start(ref, &o)) {
        tt_close(ref);
        free(ref);
        return false;
    }
    ref->rep->quiet = true;
    set_rep(ref, ref->rep);
    a->rep->ref = ref;
    return true;
}

/* ------------------------------------------------------------------ the step hooks */

/* A replayed event: to event_apply, as the live one went. The pointer is
 * the replay's own from then on; --with-current-scripts takes the disk's
 * sources, not the recorded ones nor their reloads. */
static void replay_event(app *a, replayer *p, const rec_event *e)
{
    if (e->kind == EV_MOUSE) {
        p->mouse_valid = e->valid;
        p->mouse = st_v2(e->x, e->y);
    }
    if (p->current && (e->kind == EV_FILE || e->kind == EV_RELOAD))
        return;
    event_apply(a, e);
}

/* The pointer as steer.mouse() will read it, when it moved since last written. */
static void record_pointer(app *a)
{
    recorder *r = a->rec;
    if (r && journal_on(a) &&
        (r->mouse_valid != a->mouse_valid ||
         (a->mouse_valid && (r->mouse.x != a->mouse.x || r->mouse.y != a->mouse.y)))) {
        r->mouse_valid = a->mouse_valid;
        r->mouse = a->mouse;
        if (a->mouse_valid)
            rec_printf(a, "mouse %ld %a %a\n", a->steps_run, a->mouse.x, a->mouse.y);
        else
            rec_printf(a, "mouse %ld none\n", a->steps_run);
    }
}

void record_feed(app *a)
{
    replayer *p = a->rep;
    if (p && !p->finished) {
        /* the recorded pointer, not the user's, for the handlers fed below and the step */
        a->mouse_valid = p->mouse_valid;
        a->mouse = p->mouse;
        while (p->next < p->rec.n && p->rec.ev[p->next].tick <= a->steps_run && !a->quit) {
            rec_event *e = &p->rec.ev[p->next];
            if (e->kind == EV_SUM && e->tick == a->steps_run)
                break; /* checked after its step */
            p->next++;
            replay_event(a, p, e);
        }
        /* the user's pointer does not reach a replayed scene */
        a->mouse_valid = p->mouse_valid;
        a->mouse = p->mouse;
    }
    record_pointer(a);
}

static void diverged(replayer *p, long tick, uint64_t expected, uint64_t got)
{
    if (p->diverged)
        return;
    p->diverged = true;
    p->div_tick = tick;
    p->expected = expected;
    p->got = got;
}

/* The journal's side of a step: the checksum every SUM_EVERY ticks, the
 * --record file brought up to date every 10 s of sim time (not only at
 * exit), and every tick's checksum, kept from the first pass so that a
 * rewind's re-simulation is checked against it. */
static void journal_after_step(app *a, uint64_t sum)
{
    if (a->steps_run % SUM_EVERY == 0)
        rec_printf(a, "sum %ld %016llx\n", a->steps_run, (unsigned long long)sum);
    if (tt_recording(a) && journal_on(a) && a->steps_run % (10 * SUM_EVERY) == 0)
        rec_write(a->rec, a->steps_run);
    recorder *r = a->rec;
    if (r != NULL && !(a->rep && a->rep->rewind)) {
        r->sums[a->steps_run % SUMS_RING] = sum;
        r->sums_head = a->steps_run;
    } else if (r != NULL && a->steps_run <= r->sums_head && a->steps_run > r->sums_head - SUMS_RING) {
        /* a rewind re-simulates: it must give the first pass's worlds */
        r->resim_checked++;
        if (r->sums[a->steps_run % SUMS_RING] != sum && r->resim_bad++ == 0) {
            fprintf(stderr, "steer: rewind: the re-simulation differs from the first pass at tick %ld\n",
                    a->steps_run);
            app_flash(a, FLASH_BAD, 3.0, "rewind: tick %ld differs from the first pass", a->steps_run);
        }
    }
}

/* A replay's side: the recorded checksums (or the reference run's, taking
 * the same step) compared with this one, and the replay's end. */
static void replay_after_step(app *a, replayer *p, uint64_t sum)
{
    if (p->ref) {
        /* the recorded run takes the same step; its checksums are the truth */
        app_step(p->ref);
        uint64_t want = p->ref->world ? st_world_checksum(p->ref->world) : 0;
        p->compared++;
        if (want != sum)
            diverged(p, a->steps_run, want, sum);
    }
    while (p->next < p->rec.n && p->rec.ev[p->next].kind == EV_SUM && p->rec.ev[p->next].tick == a->steps_run) {
        rec_event *e = &p->rec.ev[p->next++];
        if (!p->ref)
            p->compared++;
        if (e->sum != sum)
            diverged(p, e->tick, e->sum, sum);
    }
    if (p->rewind) {
        if (a->steps_run >= p->rec.end) {
            /* back at the head: live again, the journal goes on */
            free_replayer(p);
            set_rep(a, NULL);
        }
    } else if (a->steps_run >= p->rec.end || p->diverged) {
        p->finished = true;
        if (!a->opt.headless) {
            /* the window stays on the last replayed tick */
            a->paused = true;
            a->status = tt_replay_finish(a);
        }
    }
}

void record_stepped(app *a, uint64_t sum)
{
    /* the trace has the past's rows already; a branch's go on from its tick */
    if (a->tracer && !(a->rep && a->rep->rewind))
        trace_rows(a, a->tracer);
    journal_after_step(a, sum);
    if (a->rep && !a->rep->finished)
        replay_after_step(a, a->rep, sum);
}

/* ------------------------------------------------------------------ state */

bool record_live(app *a)
{
    if (tt_replaying(a))
        return false;
    tt_branch(a);
    return true;
}

void tt_scene_switched(app *a, const char *path)
{
    bool recording = tt_recording(a);
    if (a->rep != NULL && a->rep->rewind) {
        /* leaving the past: the journal keeps the whole session */
        free_replayer(a->rep);
        set_rep(a, NULL);
    }
    if (a->rec)
        rec_close(a, "stopped: another scene was opened");
    /* the new scene's own journal (for rewinds), from its tick 0 */
    if (a->rep == NULL) {
        a->steps_run = 0;
        a->mark_count = 0;
        a->branch_tick = 0;
        if (!journal_open(a, &a->opt, path, NULL))
            fprintf(stderr, "steer: no journal for the new scene: no rewinds\n");
        else if (recording)
            printf("record: the new scene is not recorded (only rewinds keep its journal)\n");
    }
    if (a->rep && !a->rep->finished) {
        a->rep->finished = true;
        printf("replay: stopped at tick %ld (another scene was opened)\n", a->steps_run);
    }
}

void tt_frame(app *a)
{
    if (!a->seek_pending)
        return;
    a->seek_pending = false;
    a->paused = true;
    tt_rewind_to(a, a->seek_to);
}

bool tt_replaying(const app *a)
{
    return a->rep != NULL && !a->rep->finished && !a->rep->rewind;
}

bool tt_recording(const app *a)
{
    return a->rec != NULL && a->rec->path[0] != '\0';
}

long tt_head(const app *a)
{
    return a->rep != NULL && a->rep->rewind ? a->rep->rec.end : a->steps_run;
}

/* ------------------------------------------------------------------ rewind */

static void write_event(FILE *f, const rec_event *e)
{
    switch (e->kind) {
    case EV_FILE:
        fprintf(f, "file %ld %d %zu %s\n", e->tick, e->root, e->len, e->text);
        fwrite(e->data, 1, e->len, f);
        fputc('\n', f);
        break;
    case EV_RELOAD:
        fprintf(f, "reload %ld %d %s\n", e->tick, e->root, e->text);
        break;
    case EV_KEY:
        fprintf(f, "key %ld %s\n", e->tick, e->text);
        break;
    case EV_CLICK:
        fprintf(f, "click %ld %a %a %d\n", e->tick, e->x, e->y, e->button);
        break;
    case EV_MOUSE:
        if (e->valid)
            fprintf(f, "mouse %ld %a %a\n", e->tick, e->x, e->y);
        else
            fprintf(f, "mouse %ld none\n", e->tick);
        break;
    case EV_RESTART:
        fprintf(f, "restart %ld\n", e->tick);
        break;
    case EV_SCALE:
        fprintf(f, "scale %ld %s %a\n", e->tick, e->button ? "speed" : "force", e->x);
        break;
    case EV_MARK:
        fprintf(f, "mark %ld %s %s\n", e->tick, REC_MARK_NAMES[e->button], e->text);
        break;
    case EV_SUM:
        fprintf(f, "sum %ld %016llx\n", e->tick, (unsigned long long)e->sum);
        break;
    case EV_CONSOLE:
        fprintf(f, "console %ld %s\n", e->tick, e->text);
        break;
    }
}

/* The journal cut at tick t: its header, then the events before t's inputs
 * (t's own checksum kept), from the replay of it being re-run. */
static void cut_journal(recorder *r, const replayer *p, long t)
{
    /* closing a memstream settles its buffer (it may move): take it after */
    fclose(r->mem);
    char *old = r->membuf;
    size_t header = r->header_len;
    r->membuf = NULL;
    r->memlen = 0;
    r->mem = open_memstream(&r->membuf, &r->memlen);
    if (r->mem == NULL) {
        r->failed = true;
        free(old);
        return;
    }
    fwrite(old, 1, header, r->mem);
    free(old);
    for (int i = 0; i < p->rec.n; i++) {
        const rec_event *e = &p->rec.ev[i];
        if (e->tick < t || (e->tick == t && e->kind == EV_SUM))
            write_event(r->mem, e);
    }
}

void tt_branch(app *a)
{
    replayer *p = a->rep;
    recorder *r = a->rec;
    if (p == NULL || !p->rewind || r == NULL)
        return;
    long t = a->steps_run;
    /* the journal up to here: what happened before this tick's inputs */
    cut_journal(r, p, t);
    r->mouse_valid = p->mouse_valid;
    r->mouse = p->mouse;
    r->sums_head = t;
    drop_marks_from(a, t + 1); /* marks of the dropped future go with it */
    long end = p->rec.end;
    free_replayer(p);
    set_rep(a, NULL);
    a->branch_tick = t;
    rewind_branch(a, t);
    /* live again: sources come from the disk (the edit that made the branch) */
    source_fresh(a);
    printf("rewind: branch at tick %ld (ticks %ld..%ld dropped)\n", t, t + 1, end);
    fflush(stdout);
    app_flash(a, FLASH_OK, 2.5, "branch at tick %ld: a new future", t);
}

/* The journal as a replay to re-run from tick 0: the rewind's own when the
 * app is in the past already, else made from the journal so far (NULL,
 * said on stderr, when it cannot be). */
static replayer *journal_replay(app *a, long head)
{
    replayer *p = a->rep;
    if (p != NULL) {
        p->next = 0;
    } else {
        size_t len = 0;
        char *buf = journal_copy(a->rec, head, &len);
        char err[256];
        p = buf ? load_replay("(journal)", buf, len, err, sizeof err) : NULL;
        if (p == NULL) {
            fprintf(stderr, "steer: rewind: %s\n", buf ? err : "out of memory");
            return NULL;
        }
        p->rewind = true;
    }
    p->mouse_valid = false;
    p->mouse = st_v2(0, 0);
    p->finished = p->diverged = false;
    return p;
}

/* Back from the checkpoint restored at tick from: the journal from its
 * tick on, the sources and the pointer as they were then, marks up to it. */
static bool resume_at_checkpoint(app *a, replayer *p, long from)
{
    if (!source_fresh(a))
        return false;
    int i = 0;
    for (; i < p->rec.n && (p->rec.ev[i].tick < from || (p->rec.ev[i].tick == from && p->rec.ev[i].kind == EV_SUM)); i++) {
        const rec_event *e = &p->rec.ev[i];
        if (e->kind == EV_FILE)
            source_serve(a, e->root, e->text, e->data, e->len);
        else if (e->kind == EV_MOUSE) {
            p->mouse_valid = e->valid;
            p->mouse = st_v2(e->x, e->y);
        }
    }
    p->next = i;
    drop_marks_from(a, from);
    a->steps_run = from;
    a->resim_from = from;
    return true;
}

/* Back to tick 0 with no checkpoint: the same fresh state, the sources as
 * first loaded. */
static bool restart_from_zero(app *a, replayer *p)
{
    a->resim_from = 0;
    if (!source_fresh(a))
        return false;
    serve_start_sources(a, p);
    a->steps_run = 0;
    a->mark_count = 0;
    app_reopen(a);
    return true;
}

static void step_to(app *a, long target)
{
    while (a->steps_run < target && a->world != NULL && !a->quit)
        app_step(a);
}

bool tt_rewind_to(app *a, long target)
{
    if (a->rep != NULL && !a->rep->rewind) {
        app_flash(a, FLASH_BAD, 1.5, "no rewinding a --replay");
        return false;
    }
    if (a->rec == NULL || a->rec->failed || a->world == NULL)
        return false;
    long head = tt_head(a);
    target = target < 0 ? 0 : target > head ? head : target;
    if (target == a->steps_run)
        return true;
    if (target > a->steps_run) {
        /* forward through the known future: the journal feeds the steps */
        step_to(a, target);
        return true;
    }
    replayer *p = journal_replay(a, head);
    if (p == NULL)
        return false;
    set_rep(a, p);
    st_agent_id keep = a->selected;
    long from = rewind_restore(a, target);
    if (from >= 0) {
        if (!resume_at_checkpoint(a, p, from))
            return false;
        step_to(a, target);
        a->paused = true;
        return true;
    }
    if (!restart_from_zero(a, p))
        return false;
    step_to(a, target);
    if (a->world != NULL && st_agent_alive(a->world, keep))
        a->selected = keep;
    a->paused = true;
    return true;
}

long tt_replay_end(const app *a)
{
    return a->rep ? a->rep->rec.end : -1;
}

int tt_replay_marks(const app *a, app_mark *out, int cap)
{
    int n = 0;
    for (int i = 0; a->rep && i < a->rep->rec.n && n < cap; i++) {
        const rec_event *e = &a->rep->rec.ev[i];
        if (e->kind != EV_MARK)
            continue;
        out[n].tick = e->tick;
        out[n].kind = (app_mark_kind)e->button;
        snprintf(out[n].label, sizeof out[n].label, "%s", e->text);
        n++;
    }
    return n;
}

int tt_replay_finish(app *a)
{
    replayer *p = a->rep;
    if (p == NULL)
        return 0;
    const char *what = p->ref ? " against the current scripts" : "";
    if (p->diverged) {
        printf("replay: diverged at tick %ld (expected %016llx, got %016llx)%s\n", p->div_tick,
               (unsigned long long)p->expected, (unsigned long long)p->got, what);
        return 3;
    }
    if (a->steps_run < p->rec.end) {
        printf("replay: stopped at tick %ld of %ld (%d checksums equal so far)\n", a->steps_run, p->rec.end,
               p->compared);
        return 1;
    }
    if (p->ref)
        printf("replay: identical (%d checksums, every tick)%s\n", p->compared, what);
    else
        printf("replay: identical (%d checksums)\n", p->compared);
    return 0;
}

/* --rewind-test T:N:FILE=SOURCE, once back at tick `to`: an edit in the
 * past; the journal's future is dropped and the run goes on from there. */
static int rewind_test_edit(app *a, long to)
{
    char file[PATH_MAX], real[PATH_MAX];
    app_format(file, sizeof file, "%s", a->opt.rewind_edit);
    char *eq = strchr(file, '=');
    *eq = '\0';
    int root;
    const char *rel;
    rec_event e = {.tick = a->steps_run, .kind = EV_FILE};
    e.data = source_read_file(eq + 1, &e.len);
    if (e.data == NULL || app_realpath(file, real) == NULL || !source_split_root(a, real, &root, &rel)) {
        printf("rewind: cannot edit %s with %s\n", file, eq + 1);
        free(e.data);
        return 1;
    }
    /* the edit, as live input: in the past it branches first */
    e.root = root;
    e.text = (char *)rel;
    event_live(a, &e);
    free(e.data);
    app_reload_file(a, real, root);
    a->paused = false;
    return a->rep == NULL && a->branch_tick == to ? 0 : 1;
}

int tt_rewind_test(app *a, long by)
{
    recorder *r = a->rec;
    if (r == NULL || a->world == NULL)
        return 1;
    long from = a->steps_run, to = from - by < 0 ? 0 : from - by;
    fflush(r->mem);
    size_t cps = rewind_bytes(a);
    printf("rewind: memory %.3f MB for %ld ticks: %d checkpoints %zu bytes + journal %zu bytes + per-tick "
           "checksum ring %zu bytes\n",
           (double)(cps + r->memlen + sizeof r->sums) / (1024.0 * 1024.0), from, rewind_count(a), cps, r->memlen,
           sizeof r->sums);
    long c0 = r->resim_checked, b0 = r->resim_bad;
    double t0 = app_clock();
    if (!tt_rewind_to(a, to) || a->steps_run != to) {
        printf("rewind: could not go back to tick %ld\n", to);
        return 1;
    }
    double ms = (app_clock() - t0) * 1000.0;
    long back_checked = r->resim_checked - c0;
    printf("rewind: back %ld ticks to tick %ld (re-simulated %ld ticks from %s %ld in %.1f ms, "
           "every one equal to the first pass: %s)\n",
           from - to, to, back_checked, a->resim_from > 0 ? "the checkpoint at tick" : "the start, tick",
           a->resim_from, ms, r->resim_bad == b0 ? "yes" : "NO");
    if (a->opt.rewind_edit != NULL)
        return rewind_test_edit(a, to);
    long c1 = r->resim_checked, b1 = r->resim_bad;
    while (a->steps_run < from && !a->quit) /* Right, one tick at a time */
        if (!tt_rewind_to(a, a->steps_run + 1))
            break;
    long fwd = r->resim_checked - c1, bad = r->resim_bad - b1;
    if (a->steps_run == from && bad == 0 && r->resim_bad == b0 && fwd == from - to) {
        printf("rewind: forward %ld ticks one at a time: %ld checksums equal to the first pass; live again at tick %ld\n",
               from - to, fwd, a->steps_run);
        a->paused = false;
        return 0;
    }
    printf("rewind: forward to tick %ld: %ld of %ld checksums differ from the first pass\n", a->steps_run,
           bad + (r->resim_bad - b0 - bad), fwd + back_checked);
    return 1;
}
