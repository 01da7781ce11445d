/*
 * watch.c — stat-polling file watcher. See watch.h.
 */
#define _XOPEN_SOURCE 700
#include "watch.h"
#include "sys.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define MAX_DEPTH 2
#define MAX_FILES 4096

typedef struct sig {
    bool exists;
    long long mtime_ns;
    long long size;
    unsigned long long ino;
} sig;

typedef struct entry {
    char *path;
    int root;
    sig stable;     ///< the signature last reported (or first seen)
    sig seen;       ///< the signature at the last poll
    double since;   ///< when `seen` was first observed
    bool pending;   ///< seen differs from stable
    bool present;   ///< found in the current scan
} entry;

struct watch {
    char **roots;
    int nroots;
    double settle;
    entry *e;
    int n, cap;
    char **ready;
    int *ready_root;
    int nready, ready_cap;
    bool primed;
};

static sig stat_sig(const char *path)
{
    sig s = {0};
    app_file f;
    if (!app_stat(path, &f) || !f.is_file)
        return s;
    s.exists = true;
    s.mtime_ns = f.mtime_ns;
    s.size = f.size;
    s.ino = f.id;
    return s;
}

static bool sig_equal(sig a, sig b)
{
    return a.exists == b.exists && a.mtime_ns == b.mtime_ns && a.size == b.size && a.ino == b.ino;
}

static entry *find(watch *w, const char *path)
{
    for (int i = 0; i < w->n; i++)
        if (strcmp(w->e[i].path, path) == 0)
            return &w->e[i];
    return NULL;
}

static bool ends_with_lua(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".lua") == 0;
}

static void add_ready(watch *w, const char *path, int root)
{
    if (w->nready == w->ready_cap) {
        int cap = w->ready_cap ? w->ready_cap * 2 : 16;
        char **r = realloc(w->ready, (size_t)cap * sizeof *r);
        int *rr = r ? realloc(w->ready_root, (size_t)cap * sizeof *rr) : NULL;
        if (r)
            w->ready = r;
        if (r == NULL || rr == NULL)
            return;
        w->ready_root = rr;
        w->ready_cap = cap;
    }
    w->ready[w->nready] = strdup(path);
    if (w->ready[w->nready] == NULL)
        return;
    w->ready_root[w->nready++] = root;
}

static void observe(watch *w, const char *path, int root, double now)
{
    entry *e = find(w, path);
    if (e == NULL) {
        if (w->n == MAX_FILES)
            return;
        if (w->n == w->cap) {
            int cap = w->cap ? w->cap * 2 : 64;
            entry *ne = realloc(w->e, (size_t)cap * sizeof *ne);
            if (ne == NULL)
                return;
            w->e = ne;
            w->cap = cap;
        }
        e = &w->e[w->n++];
        memset(e, 0, sizeof *e);
        e->path = strdup(path);
        if (e->path == NULL) {
            w->n--;
            return;
        }
        e->root = root;
        e->since = now;
        /* Files present at the first scan are the baseline; a file that
         * appears later is new content and goes through the settle wait. */
        if (w->primed)
            e->pending = true;
        else
            e->stable = stat_sig(path);
        e->seen = w->primed ? stat_sig(path) : e->stable;
    }
    e->present = true;
}

static void scan_dir(watch *w, const char *dir, int root, int depth, double now)
{
    app_dir *d = app_dir_open(dir);
    if (d == NULL)
        return;
    const char *name;
    char path[PATH_MAX];
    while ((name = app_dir_next(d)) != NULL) {
        if (name[0] == '.')
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
            continue;
        app_file f;
        if (!app_stat(path, &f))
            continue;
        if (f.is_dir) {
            if (depth < MAX_DEPTH)
                scan_dir(w, path, root, depth + 1, now);
        } else if (f.is_file && ends_with_lua(name)) {
            observe(w, path, root, now);
        }
    }
    app_dir_close(d);
}

watch *watch_open(const char *const *roots, int nroots, double settle)
{
    watch *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->roots = calloc((size_t)(nroots > 0 ? nroots : 1), sizeof *w->roots);
    if (w->roots == NULL) {
        free(w);
        return NULL;
    }
    w->settle = settle;
    for (int i = 0; i < nroots; i++) {
        char real[PATH_MAX];
        const char *r = app_realpath(roots[i], real) ? real : roots[i];
        bool dup = false;
        for (int k = 0; k < w->nroots; k++)
            dup = dup || strcmp(w->roots[k], r) == 0;
        /* Keep the caller's index even for a duplicate, so watch_root means
         * "the first root that holds it". */
        w->roots[i] = dup ? NULL : strdup(r);
        w->nroots = i + 1;
    }
    watch_poll(w, 0.0);
    w->primed = true;
    return w;
}

void watch_close(watch *w)
{
    if (w == NULL)
        return;
    for (int i = 0; i < w->n; i++)
        free(w->e[i].path);
    for (int i = 0; i < w->nready; i++)
        free(w->ready[i]);
    for (int i = 0; i < w->nroots; i++)
        free(w->roots[i]);
    free(w->roots);
    free(w->e);
    free(w->ready);
    free(w->ready_root);
    free(w);
}

int watch_poll(watch *w, double now)
{
    for (int i = 0; i < w->nready; i++)
        free(w->ready[i]);
    w->nready = 0;

    for (int i = 0; i < w->n; i++)
        w->e[i].present = false;
    for (int r = 0; r < w->nroots; r++)
        if (w->roots[r])
            scan_dir(w, w->roots[r], r, 0, now);

    for (int i = 0; i < w->n; i++) {
        entry *e = &w->e[i];
        /* A file missing from the scan is stat'ed anyway: it may be gone for
         * good (delete) or only for the instant of a rename-save. */
        sig now_sig = e->present ? stat_sig(e->path) : (sig){0};
        if (!sig_equal(now_sig, e->seen)) {
            e->seen = now_sig;
            e->since = now;
        }
        if (!sig_equal(e->seen, e->stable)) {
            e->pending = true;
        }
        if (e->pending && now - e->since >= w->settle) {
            e->stable = e->seen;
            e->pending = false;
            /* A deletion is not a change to load: the old code keeps
             * running until the file comes back. */
            if (e->stable.exists)
                add_ready(w, e->path, e->root);
        }
    }
    return w->nready;
}

const char *watch_path(const watch *w, int i) { return w->ready[i]; }

int watch_root(const watch *w, int i) { return w->ready_root[i]; }
