/*
 * record_read.c — parsing a recording (the grammar is in README "Time
 * travel"). Every line is checked; a file that is cut short, names an
 * unknown record, lets ticks go back or miscounts a source is refused with
 * the line that is wrong.
 */
#define _XOPEN_SOURCE 700
#include "record_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const REC_MARK_NAMES[3] = {"scene", "reload", "error"};

/* Splits the next line off *pos (NUL-terminating it); NULL at the end. */
static char *next_line(char **pos, char *end)
{
    if (*pos >= end)
        return NULL;
    char *line = *pos;
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (nl == NULL) {
        *pos = end;
        return NULL; /* a last line with no newline: the file was cut */
    }
    *nl = '\0';
    *pos = nl + 1;
    return line;
}

static bool parse_int(const char **s, long *out)
{
    char *e;
    errno = 0;
    long v = strtol(*s, &e, 10);
    if (e == *s || errno != 0 || (*e != ' ' && *e != '\0'))
        return false;
    *out = v;
    *s = *e == ' ' ? e + 1 : e;
    return true;
}

/* A finite number: a position or a factor (nan and inf would reach the world). */
static bool parse_double(const char **s, double *out)
{
    char *e;
    double v = strtod(*s, &e);
    if (e == *s || (*e != ' ' && *e != '\0') || !isfinite(v))
        return false;
    *out = v;
    *s = *e == ' ' ? e + 1 : e;
    return true;
}

/* A recording being read. */
typedef struct reader {
    rec_recording *p;
    char *pos, *end;   ///< what is left of the buffer
    long lineno;       ///< the line being read (1-based)
    long last;         ///< the tick of the last event read
    int cap;           ///< events allocated in p->ev
    bool failed;       ///< err says why
    char *err;
    size_t errn;
} reader;

static bool fail(reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Says why the recording cannot be read; returns false. */
static bool fail(reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err, rd->errn, fmt, ap);
    va_end(ap);
    rd->failed = true;
    return false;
}

/* The first line: "steer-record VERSION", of a version this steer reads. */
static bool read_magic(reader *rd, const char *line)
{
    long v;
    const char *s = line + strlen(RECORD_MAGIC) + 1;
    if (strncmp(line, RECORD_MAGIC " ", strlen(RECORD_MAGIC) + 1) != 0 || !parse_int(&s, &v))
        return fail(rd, "not a steer recording (no '%s' header)", RECORD_MAGIC);
    if (v > RECORD_VERSION || v < 1)
        return fail(rd, "format version %ld; this steer reads version %d", v, RECORD_VERSION);
    return true;
}

/* A line's first word into word (the record's name) and the rest into *rest. */
static bool split_word(reader *rd, const char *line, char *word, size_t n, const char **rest)
{
    size_t wl = strcspn(line, " ");
    if (wl == 0 || wl >= n)
        return fail(rd, "line %ld: not a record", rd->lineno);
    memcpy(word, line, wl);
    word[wl] = '\0';
    *rest = line[wl] ? line + wl + 1 : line + wl;
    return true;
}

/* ---- the header: the scene and the options it ran with */

static bool read_seed(reader *rd, const char *s)
{
    if (strcmp(s, "none") == 0)
        return true;
    char *e;
    errno = 0;
    rd->p->seed = strtoull(s, &e, 10);
    if (e == s || *e || errno)
        return fail(rd, "line %ld: bad seed", rd->lineno);
    rd->p->has_seed = true;
    return true;
}

static bool add_arg(reader *rd, const char *s)
{
    rec_recording *p = rd->p;
    char **na = realloc(p->argv, (size_t)(p->argc + 1) * sizeof *na);
    if (na == NULL)
        return fail(rd, "out of memory");
    p->argv = na;
    p->argv[p->argc++] = (char *)s;
    return true;
}

static bool read_header_line(reader *rd, const char *word, const char *s)
{
    rec_recording *p = rd->p;
    long v;
    if (strcmp(word, "engine") == 0)
        return true; /* informational: the format, not the engine, decides what replays */
    if (strcmp(word, "scene") == 0) {
        snprintf(p->scene, sizeof p->scene, "%s", s);
        return true;
    }
    if (strcmp(word, "seed") == 0)
        return read_seed(rd, s);
    if (strcmp(word, "arg") == 0)
        return add_arg(rd, s);
    if (strcmp(word, "trust") == 0 && parse_int(&s, &v)) {
        p->trust = v != 0;
        return true;
    }
    long *field = strcmp(word, "budget") == 0 ? &p->budget : strcmp(word, "time_limit") == 0 ? &p->time_limit
                                                           : strcmp(word, "memory") == 0 ? &p->memory_mb : NULL;
    if (field != NULL && parse_int(&s, &v) && v >= 0) {
        *field = v;
        return true;
    }
    return fail(rd, "line %ld: unknown or bad header line '%s'", rd->lineno, word);
}

/* ---- the events: one parser each, false for a bad record */

/* "file TICK ROOT LEN PATH", then LEN bytes of source and a newline. */
static bool parse_file_event(reader *rd, const char *s, rec_event *ev)
{
    long v = 0;
    bool ok = parse_int(&s, &v) && (v == 0 || v == 1);
    ev->root = (int)v;
    if (!ok || !parse_int(&s, &v) || v < 0 || !*s)
        return false;
    if ((size_t)v + 1 > (size_t)(rd->end - rd->pos))
        return fail(rd, "truncated: line %ld: the source of %s needs %ld bytes, %ld are left", rd->lineno, s, v + 1,
                    (long)(rd->end - rd->pos));
    ev->len = (size_t)v;
    ev->data = rd->pos;
    ev->text = (char *)s;
    rd->pos += ev->len;
    if (*rd->pos != '\n')
        return fail(rd, "line %ld: the source of %s does not end where its length says", rd->lineno, s);
    *rd->pos++ = '\0';
    return true;
}

static bool parse_reload_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    long v = 0;
    bool ok = parse_int(&s, &v) && (v == 0 || v == 1) && *s;
    ev->root = (int)v;
    ev->text = (char *)s;
    return ok;
}

static bool parse_key_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    ev->text = (char *)s;
    return *s != '\0';
}

static bool parse_click_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    long v = 0;
    bool ok = parse_double(&s, &ev->x) && parse_double(&s, &ev->y) && parse_int(&s, &v);
    ev->button = (int)v;
    return ok;
}

static bool parse_mouse_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    ev->valid = strcmp(s, "none") != 0;
    return !ev->valid || (parse_double(&s, &ev->x) && parse_double(&s, &ev->y));
}

static bool parse_restart_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    (void)s;
    (void)ev;
    return true;
}

/* "scale TICK speed|force FACTOR" (button: 1 speed, 0 force). */
static bool parse_scale_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    ev->button = strncmp(s, "speed ", 6) == 0;
    if (!ev->button && strncmp(s, "force ", 6) != 0)
        return false;
    s += 6;
    return parse_double(&s, &ev->x) && ev->x > 0.0;
}

/* "mark TICK KIND LABEL" (button: the kind). */
static bool parse_mark_event(reader *rd, const char *s, rec_event *ev)
{
    (void)rd;
    ev->button = -1;
    for (int k = 0; k < 3; k++)
        if (strncmp(s, REC_MARK_NAMES[k], strlen(REC_MARK_NAMES[k])) == 0 && s[strlen(REC_MARK_NAMES[k])] == ' ') {
            ev->button = k;
            ev->text = (char *)s + strlen(REC_MARK_NAMES[k]) + 1;
        }
    return ev->button >= 0;
}

static bool parse_sum_event(reader *rd, const char *s, rec_event *ev)
{
    char *e;
    errno = 0;
    ev->sum = strtoull(s, &e, 16);
    rd->p->nsums++;
    return e != s && *e == '\0' && errno == 0;
}

static const struct {
    const char *word;
    ev_kind kind;
    bool (*parse)(reader *rd, const char *s, rec_event *ev);
} EVENT_SYNTAX[] = {
    {"file", EV_FILE, parse_file_event},       {"reload", EV_RELOAD, parse_reload_event},
    {"key", EV_KEY, parse_key_event},          {"click", EV_CLICK, parse_click_event},
    {"mouse", EV_MOUSE, parse_mouse_event},    {"restart", EV_RESTART, parse_restart_event},
    {"scale", EV_SCALE, parse_scale_event},    {"mark", EV_MARK, parse_mark_event},
    {"sum", EV_SUM, parse_sum_event},          {"console", EV_CONSOLE, parse_key_event},
};

static bool push_event(reader *rd, const rec_event *ev)
{
    rec_recording *p = rd->p;
    if (p->n == rd->cap) {
        int cap = rd->cap ? rd->cap * 2 : 256;
        rec_event *ne = realloc(p->ev, (size_t)cap * sizeof *ne);
        if (ne == NULL)
            return fail(rd, "out of memory");
        p->ev = ne;
        rd->cap = cap;
    }
    p->ev[p->n++] = *ev;
    return true;
}

/* An event line: "WORD TICK ...", ticks never going back; "end TICK" ends
 * the recording (*ended). */
static bool read_event(reader *rd, const char *word, const char *s, bool *ended)
{
    rec_event ev;
    memset(&ev, 0, sizeof ev);
    if (!parse_int(&s, &ev.tick) || ev.tick < 0)
        return fail(rd, "line %ld: '%s' needs a tick", rd->lineno, word);
    if (ev.tick < rd->last)
        return fail(rd, "line %ld: tick %ld comes after tick %ld", rd->lineno, ev.tick, rd->last);
    rd->last = ev.tick;
    if (strcmp(word, "end") == 0) {
        rd->p->end = ev.tick;
        *ended = true;
        return true;
    }
    for (size_t k = 0; k < sizeof EVENT_SYNTAX / sizeof EVENT_SYNTAX[0]; k++) {
        if (strcmp(word, EVENT_SYNTAX[k].word) != 0)
            continue;
        ev.kind = EVENT_SYNTAX[k].kind;
        if (!EVENT_SYNTAX[k].parse(rd, s, &ev))
            return rd->failed ? false : fail(rd, "line %ld: a bad '%s' record", rd->lineno, word);
        return push_event(rd, &ev);
    }
    return fail(rd, "line %ld: unknown record '%s'", rd->lineno, word);
}

/* Every line up to "end": the magic, the header up to "begin", the events;
 * then what a recording must have. */
static bool read_records(reader *rd)
{
    bool in_events = false, ended = false;
    char *line;
    while (!ended && (line = next_line(&rd->pos, rd->end)) != NULL) {
        rd->lineno++;
        if (rd->lineno == 1) {
            if (!read_magic(rd, line))
                return false;
            continue;
        }
        char word[16];
        const char *s = NULL;
        if (!split_word(rd, line, word, sizeof word, &s))
            return false;
        bool ok = true;
        if (in_events)
            ok = read_event(rd, word, s, &ended);
        else if (strcmp(word, "begin") == 0)
            in_events = true;
        else
            ok = read_header_line(rd, word, s);
        if (!ok)
            return false;
    }
    if (!ended)
        return fail(rd, "truncated: no 'end' record (the file stops at line %ld, tick %ld)", rd->lineno, rd->last);
    if (rd->p->scene[0] == '\0')
        return fail(rd, "no 'scene' line in the header");
    return true;
}

bool rec_parse(rec_recording *r, char *buf, size_t size, char *err, size_t errn)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->budget = 50000000;
    r->time_limit = 5;
    r->memory_mb = 1024;
    reader rd = {r, buf, buf + size, 0, 0, 0, false, err, errn};
    return read_records(&rd);
}

void rec_recording_free(rec_recording *r)
{
    free(r->ev);
    free(r->argv);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
