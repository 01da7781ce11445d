/*
 * event_source.c — where the scene's module sources come from: the app's
 * own module searcher and loader, over an overlay of texts served by a
 * replay, a rewind or --reload-at (an EV_FILE event), else the disk.
 *
 * The searcher takes the host's place (package.searchers[2], the same
 * folders, order and "no file" messages) and reads every module source the
 * scene requires: from the overlay when a text was served for it, else from
 * the disk. Each source is put in the journal as it is loaded (a `file`
 * record), so the journal holds the exact text of every file at start and
 * of every reload, and a replay needs nothing from the disk but the scene's
 * folder layout.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "event.h"
#include "sys.h"

/* ------------------------------------------------------------------ overlay */

typedef struct overlay_entry {
    int root;   ///< 0: the scene's folder, 1: scripts/
    char *rel;  ///< path under the root
    char *src;
    size_t len;
} overlay_entry;

struct source_overlay {
    overlay_entry *e;
    int n, cap;
};

static overlay_entry *overlay_find(source_overlay *o, int root, const char *rel)
{
    for (int i = 0; o != NULL && i < o->n; i++)
        if (o->e[i].root == root && strcmp(o->e[i].rel, rel) == 0)
            return &o->e[i];
    return NULL;
}

static bool overlay_set(source_overlay *o, int root, const char *rel, const char *src, size_t len)
{
    overlay_entry *e = overlay_find(o, root, rel);
    if (e == NULL) {
        if (o->n == o->cap) {
            int cap = o->cap ? o->cap * 2 : 16;
            overlay_entry *ne = realloc(o->e, (size_t)cap * sizeof *ne);
            if (ne == NULL)
                return false;
            o->e = ne;
            o->cap = cap;
        }
        e = &o->e[o->n];
        e->rel = strdup(rel);
        e->src = NULL;
        if (e->rel == NULL)
            return false;
        e->root = root;
        o->n++;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return false;
    memcpy(copy, src, len);
    copy[len] = '\0';
    free(e->src);
    e->src = copy;
    e->len = len;
    return true;
}

static void overlay_free(source_overlay *o)
{
    if (o == NULL)
        return;
    for (int i = 0; i < o->n; i++) {
        free(o->e[i].rel);
        free(o->e[i].src);
    }
    free(o->e);
    free(o);
}

bool source_fresh(app *a)
{
    source_overlay *o = calloc(1, sizeof *o);
    if (o == NULL)
        return false;
    overlay_free(a->overlay);
    a->overlay = o;
    return true;
}

bool source_split_root(const app *a, const char *path, int *root, const char **rel)
{
    const char *dirs[2] = {a->scene_dir, a->scripts_dir};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(path, dirs[i], n) == 0 && path[n] == '/') {
            *root = i;
            *rel = path + n + 1;
            return true;
        }
    }
    return false;
}

char *source_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}



bool source_serve(app *a, int root, const char *rel, const char *src, size_t len)
{
    return overlay_set(a->overlay, root, rel, src, len);
}

bool source_open(app *a)
{
    a->overlay = calloc(1, sizeof *a->overlay);
    return a->overlay != NULL;
}

void source_close(app *a)
{
    overlay_free(a->overlay);
    a->overlay = NULL;
}

/* ------------------------------------------------------------------ the searcher */

/* Loads src as a chunk the way luaL_loadfilex loads a file: a UTF-8 BOM and
 * a first line starting with '#' are skipped (the '#' line's newline kept,
 * so line numbers match the file's). */
static int load_source(lua_State *L, const char *src, size_t len, const char *path, bool trust)
{
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        src += 3;
        len -= 3;
    }
    if (len > 0 && src[0] == '#') {
        while (len > 0 && src[0] != '\n') {
            src++;
            len--;
        }
    }
    lua_pushfstring(L, "@%s", path);
    int st = luaL_loadbufferx(L, src, len, lua_tostring(L, -1), trust ? "bt" : "t");
    lua_remove(L, -2);
    return st;
}

/* Pushes the source of root/rel (overlay first, then the disk) as a string
 * and records it; false (nothing pushed) when there is none. */
static bool push_source(app *a, lua_State *L, int root, const char *rel, const char *path)
{
    overlay_entry *e = overlay_find(a->overlay, root, rel);
    if (e != NULL) {
        lua_pushlstring(L, e->src, e->len);
    } else {
        size_t len;
        char *src = source_read_file(path, &len);
        if (src == NULL)
            return false;
        lua_pushlstring(L, src, len); /* may raise (memory cap): src freed first */
        free(src);
    }
    /* the journal keeps every source as it is loaded */
    rec_event f = {.tick = a->steps_run, .kind = EV_FILE, .root = root, .text = (char *)rel};
    f.data = (char *)lua_tolstring(L, -1, &f.len);
    record_event(a, &f);
    return true;
}

static int app_searcher(lua_State *L)
{
    app *a = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    const char *rel = luaL_gsub(L, name, ".", "/");
    const char *dirs[2] = {a->scene_dir, a->scripts_dir};
    const char *forms[2] = {"%s.lua", "%s/init.lua"};
    char tried[4 * (PATH_MAX + 16)] = "";
    size_t used = 0;
    for (int i = 0; i < 2; i++) {
        if (dirs[i][0] == '\0' || (i == 1 && strcmp(dirs[0], dirs[1]) == 0))
            continue;
        for (int k = 0; k < 2; k++) {
            const char *r = lua_pushfstring(L, forms[k], rel);
            const char *path = lua_pushfstring(L, "%s/%s", dirs[i], r);
            if (!push_source(a, L, i, r, path)) {
                int w = snprintf(tried + used, sizeof tried - used, "\n\tno file '%s'", path);
                if (w > 0 && (size_t)w < sizeof tried - used)
                    used += (size_t)w;
                lua_pop(L, 2);
                continue;
            }
            size_t len;
            const char *src = lua_tolstring(L, -1, &len);
            if (load_source(L, src, len, path, a->opt.trust) != LUA_OK)
                return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path,
                                  lua_tostring(L, -1));
            lua_pushstring(L, path);
            return 2;
        }
    }
    lua_pushstring(L, tried);
    return 1;
}

void source_install(app *a, lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    if (lua_istable(L, -1)) {
        /* ours takes the host's place: the same folders, order and messages */
        lua_pushlightuserdata(L, a);
        lua_pushcclosure(L, app_searcher, 1);
        lua_rawseti(L, -2, 2);
    }
    lua_pop(L, 2);
}

int source_loadfile(app *a, lua_State *L, const char *path)
{
    int root;
    const char *rel;
    overlay_entry *e = source_split_root(a, path, &root, &rel) ? overlay_find(a->overlay, root, rel) : NULL;
    if (e == NULL)
        return luaL_loadfilex(L, path, a->opt.trust ? "bt" : "t");
    return load_source(L, e->src, e->len, path, a->opt.trust);
}
