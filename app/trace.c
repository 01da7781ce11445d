/*
 * trace.c — --trace FILE.csv: one row per tick per agent, for any plotting
 * tool. The columns are fixed at the first row:
 *
 *   id,tick,time,x,y,vx,vy,speed,force,tag   (id: the agent's serial, as agent.id;
 *                                             force: the last step's |force|)
 *
 * then one column per field of `self`: the --trace-fields list, else the
 * scene's `scene.trace` list, else every key of `self` holding a number in
 * some agent at the first traced tick (sorted). A field may be a dotted
 * path into nested tables ("state.name"). Numbers are written in full
 * (%.17g: they read back to the same double), booleans as 1 / 0, strings
 * quoted CSV-style, anything else (or nothing) as an empty cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "app.h"
#include "steer_lua.h"

#define TRACE_MAX_FIELDS 64

struct tracer {
    FILE *f;
    char path[PATH_MAX];
    char *fields[TRACE_MAX_FIELDS];
    int nfields;
    bool chosen;    ///< fields given (flag or scene); false: discovered at the first row
    bool header;    ///< written
    bool failed;
    long rows;
};

typedef struct trace_call {
    app *a;
    tracer *t;
} trace_call;

static bool add_field(tracer *t, const char *name, size_t len)
{
    if (len == 0)
        return true;
    if (t->nfields == TRACE_MAX_FIELDS)
        return false;
    for (int i = 0; i < t->nfields; i++)
        if (strlen(t->fields[i]) == len && strncmp(t->fields[i], name, len) == 0)
            return true;
    char *f = malloc(len + 1);
    if (f == NULL)
        return false;
    memcpy(f, name, len);
    f[len] = '\0';
    t->fields[t->nfields++] = f;
    return true;
}

static void push_world(app *a, lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref); }

/* scene.trace: a list of field names. */
static int scene_fields_fn(lua_State *L)
{
    trace_call *c = lua_touserdata(L, 1);
    if (c->a->scene_ref == LUA_NOREF || c->a->scene_ref == LUA_REFNIL)
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->a->scene_ref);
    lua_getfield(L, -1, "trace");
    if (lua_isnil(L, -1))
        return 0;
    if (!lua_istable(L, -1))
        return luaL_error(L, "scene.trace must be a list of field names (got %s)", luaL_typename(L, -1));
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        size_t len;
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (s == NULL || len == 0)
            return luaL_error(L, "scene.trace[%d] must be a field name (got %s)", (int)i, luaL_typename(L, -1));
        if (!add_field(c->t, s, len))
            return luaL_error(L, "scene.trace: at most %d fields", TRACE_MAX_FIELDS);
        lua_pop(L, 1);
    }
    c->t->chosen = true;
    return 0;
}

static bool call(app *a, lua_CFunction fn, tracer *t)
{
    if (a->L == NULL)
        return false;
    trace_call c = {a, t};
    int top = lua_gettop(a->L);
    lua_pushcfunction(a->L, fn);
    lua_pushlightuserdata(a->L, &c);
    bool ok = lua_pcall(a->L, 1, 0, 0) == LUA_OK;
    if (!ok)
        app_report_error(a, APP_ERR_RUNTIME, "", lua_tostring(a->L, -1));
    lua_settop(a->L, top);
    return ok;
}

tracer *trace_open(app *a, const char *path, const char *fields)
{
    tracer *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    snprintf(t->path, sizeof t->path, "%s", path);
    if (fields != NULL) {
        for (const char *p = fields; *p;) {
            size_t n = strcspn(p, ",");
            if (!add_field(t, p, n)) {
                fprintf(stderr, "steer: --trace-fields: at most %d fields\n", TRACE_MAX_FIELDS);
                trace_close(t);
                return NULL;
            }
            p += n + (p[n] == ',');
        }
        t->chosen = true;
    } else {
        call(a, scene_fields_fn, t);
    }
    t->f = fopen(path, "w");
    if (t->f == NULL) {
        fprintf(stderr, "steer: cannot write the trace %s\n", path);
        trace_close(t);
        return NULL;
    }
    return t;
}

void trace_close(tracer *t)
{
    if (t == NULL)
        return;
    if (t->f != NULL && fclose(t->f) != 0)
        fprintf(stderr, "steer: trace %s: write failed\n", t->path);
    for (int i = 0; i < t->nfields; i++)
        free(t->fields[i]);
    free(t);
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* Pushes self[path] following dots through nested tables (raw access: no
 * script code runs); nil when any step is missing. */
static void push_field(lua_State *L, int self, const char *path)
{
    lua_pushvalue(L, self);
    while (*path) {
        size_t n = strcspn(path, ".");
        if (!lua_istable(L, -1)) {
            lua_pop(L, 1);
            lua_pushnil(L);
            return;
        }
        lua_pushlstring(L, path, n);
        lua_rawget(L, -2);
        lua_remove(L, -2);
        path += n + (path[n] == '.');
    }
}

/* s quoted CSV-style: in double quotes, each quote doubled. */
static void put_quoted(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void put_cell(FILE *f, lua_State *L, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            fprintf(f, ",%lld", (long long)lua_tointeger(L, idx));
        else
            fprintf(f, ",%.17g", lua_tonumber(L, idx));
        break;
    case LUA_TBOOLEAN:
        fprintf(f, ",%d", lua_toboolean(L, idx));
        break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        fputc(',', f);
        put_quoted(f, s, len);
        break;
    }
    default:
        fputc(',', f);
    }
}

/* No fields named: every key holding a number in some agent's self, now, sorted. */
static void discover_fields(lua_State *L, tracer *t, const st_world *w, int world)
{
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (st_id_is_null(id))
            continue;
        steer_lua_pushself(L, world, id);
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                size_t len;
                if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER) {
                    const char *key = lua_tolstring(L, -2, &len);
                    add_field(t, key, len);
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    qsort(t->fields, (size_t)t->nfields, sizeof t->fields[0], cmp_str);
}

static void write_header(tracer *t)
{
    fputs("id,tick,time,x,y,vx,vy,speed,force,tag", t->f);
    for (int i = 0; i < t->nfields; i++) {
        fputc(',', t->f);
        put_quoted(t->f, t->fields[i], strlen(t->fields[i]));
    }
    fputc('\n', t->f);
}

/* One agent's row: the fixed columns, then its fields of self. */
static void write_row(lua_State *L, tracer *t, const st_world *w, int world, st_agent_id id)
{
    st_vec2 p = st_agent_pos(w, id), v = st_agent_vel(w, id);
    const char *tag = steer_lua_tagname(L, world, st_agent_tag(w, id));
    fprintf(t->f, "%llu,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,", (unsigned long long)st_agent_serial(w, id),
            (unsigned long long)st_world_tick(w), st_world_time(w), p.x, p.y, v.x, v.y, st_agent_speed(w, id),
            st_v2_len(st_agent_force(w, id)));
    if (tag != NULL && strpbrk(tag, ",\"\n") == NULL)
        fputs(tag, t->f);
    else if (tag != NULL)
        put_quoted(t->f, tag, strlen(tag));
    else
        fprintf(t->f, "%d", (int)st_agent_tag(w, id));
    if (t->nfields > 0) {
        steer_lua_pushself(L, world, id);
        int self = lua_gettop(L);
        for (int i = 0; i < t->nfields; i++) {
            push_field(L, self, t->fields[i]);
            put_cell(t->f, L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    fputc('\n', t->f);
    t->rows++;
}

static int rows_fn(lua_State *L)
{
    trace_call *c = lua_touserdata(L, 1);
    tracer *t = c->t;
    st_world *w = c->a->world;
    push_world(c->a, L);
    int world = lua_gettop(L);
    if (!t->header) {
        if (!t->chosen)
            discover_fields(L, t, w, world);
        write_header(t);
        t->header = true;
    }
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (!st_id_is_null(id))
            write_row(L, t, w, world, id);
    }
    return 0;
}

void trace_rows(app *a, tracer *t)
{
    if (t == NULL || t->failed || a->world == NULL)
        return;
    call(a, rows_fn, t);
    if (ferror(t->f)) {
        t->failed = true;
        fprintf(stderr, "steer: trace %s: write failed\n", t->path);
    }
}
