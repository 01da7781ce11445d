/*
 * scene_files.c — the scene's files: its folder and module name, which
 * module a changed file is (hot reload), and the scenes in scripts/ (Tab).
 * Paths and text only: no Lua.
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "scene_files.h"
#include "sys.h"

/* ------------------------------------------------------------------ paths */

void scene_dirname(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash == out)
        out[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(out, n, ".");
}

void scene_module_of_file(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    app_format(out, n, "%s", base);
    size_t len = strlen(out);
    if (len > 4 && strcmp(out + len - 4, ".lua") == 0)
        out[len - 4] = '\0';
}

/* The module name of a file under root: sub/x.lua -> sub.x, sub/init.lua -> sub. */
static bool module_under(const char *root, const char *path, char *out, size_t n)
{
    size_t rl = strlen(root);
    if (strncmp(path, root, rl) != 0 || path[rl] != '/')
        return false;
    snprintf(out, n, "%s", path + rl + 1);
    size_t len = strlen(out);
    if (len <= 4 || strcmp(out + len - 4, ".lua") != 0)
        return false;
    out[len - 4] = '\0';
    len -= 4;
    if (len > 5 && strcmp(out + len - 5, "/init") == 0)
        out[len - 5] = '\0';
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '.';
    return strchr(out, '.') == NULL || out[0] != '.';
}

/* Where require would find module name: the scene's folder first. */
static bool resolve_module(const app *a, const char *name, char *out, size_t n)
{
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "%s", name);
    for (char *p = rel; *p; p++)
        if (*p == '.')
            *p = '/';
    const char *dirs[2] = {a->scene_dir, a->scripts_dir};
    for (int i = 0; i < 2; i++) {
        char cand[PATH_MAX + 300];
        snprintf(cand, sizeof cand, "%s/%s.lua", dirs[i], rel);
        app_file f;
        if (!app_stat(cand, &f)) {
            snprintf(cand, sizeof cand, "%s/%s/init.lua", dirs[i], rel);
            if (!app_stat(cand, &f))
                continue;
        }
        if (app_realpath(cand, out) == NULL)
            app_format(out, n, "%s", cand);
        return true;
    }
    return false;
}

/* The module that the file real is (the scene's own, or what require
 * names it under the root it was seen in, else the other); false when it is
 * no module, or one that require would find elsewhere. */
bool scene_module_of_path(const app *a, const char *real, int root, char *module, size_t n)
{
    if (strcmp(real, a->scene_path) == 0) {
        snprintf(module, n, "%s", a->scene_module);
        return true;
    }
    const char *roots[2] = {a->scene_dir, a->scripts_dir};
    if (!module_under(roots[root == 1 ? 1 : 0], real, module, n) &&
        !module_under(roots[root == 1 ? 0 : 1], real, module, n))
        return false;
    /* A file shadowed by one of the same name in the scene's folder is
     * not what require loads: leave it be. */
    char resolved[PATH_MAX];
    return resolve_module(a, module, resolved, sizeof resolved) && strcmp(resolved, real) == 0;
}

/* ------------------------------------------------------------------ scene list */

/* A scene assigns a `load` or `config` field on its table; brains have
 * spawn/update/draw/reload. Reading the text (rather than running the file)
 * keeps Tab free of side effects. */
static bool looks_like_scene(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *keys[] = {".load", ".config"};
    for (int k = 0; k < 2; k++) {
        for (const char *p = strstr(buf, keys[k]); p; p = strstr(p + 1, keys[k])) {
            const char *q = p + strlen(keys[k]);
            if (isalnum((unsigned char)*q) || *q == '_')
                continue;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '(' || (*q == '=' && q[1] != '='))
                return true;
        }
    }
    return false;
}

static int path_cmp(const void *x, const void *y) { return strcmp(x, y); }

int app_list_scenes(const app *a, char paths[][PATH_MAX], int cap)
{
    app_dir *d = app_dir_open(a->scripts_dir);
    if (d == NULL)
        return 0;
    int n = 0;
    const char *name;
    while (n < cap && (name = app_dir_next(d)) != NULL) {
        size_t len = strlen(name);
        if (name[0] == '.' || len <= 4 || strcmp(name + len - 4, ".lua") != 0)
            continue;
        if (snprintf(paths[n], PATH_MAX, "%s/%s", a->scripts_dir, name) >= PATH_MAX)
            continue;
        if (looks_like_scene(paths[n]))
            n++;
    }
    app_dir_close(d);
    qsort(paths, (size_t)n, PATH_MAX, path_cmp);
    return n;
}
