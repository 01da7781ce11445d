/*
 * scene.c — the Lua side of the app: the host state, the scene and its
 * world, one fixed step, hot reload, and the error log.
 *
 * Every touch of the Lua state goes through one protected C function
 * (`protect`), so even an out-of-memory error raised by the memory cap while
 * the app pushes a value cannot reach Lua's panic handler. Script callbacks
 * inside it go through steer_lua_pcall, which gives each a fresh instruction
 * budget and a traceback.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "event.h"
#include "render.h"
#include "scene_files.h"
#include "steer_host.h"
#include "steer_lua.h"
#include "sys.h"
#include "watch.h"

/* Changes settle for 100 ms before loading (the folders are scanned every
 * 50 ms: event.c): a save shows up within ~150-250 ms, inside API.md's 0.3 s. */
#define WATCH_SETTLE 0.10

/* Output about reloads; quiet while a rewind re-runs the past. */
#define say(a, ...)                                                            \
    do {                                                                       \
        if (!(a)->quiet)                                                       \
            printf(__VA_ARGS__);                                               \
    } while (0)

/* ------------------------------------------------------------------ errors */

static void drop_error(app *a, int i)
{
    free(a->errors[i].text);
    memmove(&a->errors[i], &a->errors[i + 1], (size_t)(a->error_count - i - 1) * sizeof a->errors[0]);
    a->error_count--;
}

void app_report_error(app *a, app_error_kind kind, const char *key, const char *msg)
{
    if (msg == NULL)
        msg = "(error object is not a string)";
    if (key == NULL)
        key = "";
    for (int i = 0; i < a->error_count; i++) {
        app_error *e = &a->errors[i];
        if (e->kind == kind && strcmp(e->key, key) == 0 && strcmp(e->text, msg) == 0) {
            e->count++;
            return;
        }
    }
    a->error_total++;
    /* a rewind re-running the past has printed these once already */
    if (!a->quiet)
        fprintf(stderr, "steer: %s: %s\n", kind == APP_ERR_LOAD ? "load error" : "runtime error", msg);
    fflush(stderr);
    /* A newer load error for the same file replaces the older one. */
    for (int i = 0; i < a->error_count; i++)
        if (kind == APP_ERR_LOAD && a->errors[i].kind == APP_ERR_LOAD && strcmp(a->errors[i].key, key) == 0) {
            drop_error(a, i);
            break;
        }
    if (a->error_count == APP_MAX_ERRORS)
        drop_error(a, 0);
    app_error *e = &a->errors[a->error_count];
    e->text = strdup(msg);
    if (e->text == NULL)
        return;
    e->kind = kind;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->count = 1;
    a->error_count++;
    app_add_mark(a, MARK_ERROR, msg);
}

static void free_errors(app *a)
{
    for (int i = 0; i < a->error_count; i++)
        free(a->errors[i].text);
    a->error_count = 0;
}

static void clear_errors(app *a, app_error_kind kind, const char *key)
{
    for (int i = a->error_count - 1; i >= 0; i--)
        if (a->errors[i].kind == kind && (key == NULL || strcmp(a->errors[i].key, key) == 0))
            drop_error(a, i);
}

static void error_sink(void *ud, const char *message)
{
    app_report_error(ud, APP_ERR_RUNTIME, "", message);
}

/* ------------------------------------------------------------------ protect */

typedef struct call {
    app *a;
    void *arg;
} call;

static app *call_app(lua_State *L) { return ((call *)lua_touserdata(L, 1))->a; }
static void *call_arg(lua_State *L) { return ((call *)lua_touserdata(L, 1))->arg; }

/* Runs fn(L) with a call* at index 1 under lua_pcall. Errors that escape a
 * protected function are the app's own (memory cap, a destroyed world) and
 * are reported like script errors. */
static bool protect(app *a, lua_CFunction fn, void *arg)
{
    if (a->L == NULL)
        return false;
    lua_State *L = a->L;
    int top = lua_gettop(L);
    call c = {a, arg};
    lua_pushcfunction(L, fn);
    lua_pushlightuserdata(L, &c);
    bool ok = lua_pcall(L, 1, 0, 0) == LUA_OK;
    if (!ok)
        app_report_error(a, APP_ERR_RUNTIME, "", lua_tostring(L, -1));
    lua_settop(L, top);
    return ok;
}

/* Calls the function under the given values with steer_lua_pcall. On error
 * the message is reported and false returned. */
static bool script_call(app *a, lua_State *L, int nargs, const char *what, app_error_kind kind, const char *key)
{
    if (steer_lua_pcall(L, nargs, 0) == LUA_OK)
        return true;
    const char *m = lua_tostring(L, -1);
    if (what != NULL) {
        lua_pushfstring(L, "%s: %s", what, m ? m : "(error object is not a string)");
        m = lua_tostring(L, -1);
    }
    app_report_error(a, kind, key, m);
    lua_pop(L, what != NULL ? 2 : 1);
    return false;
}

static void push_scene(app *a, lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, a->scene_ref); }
static void push_world(app *a, lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref); }

/* Pushes scene[name] when it is a function and returns true; pushes nothing otherwise. */
static bool push_callback(app *a, lua_State *L, const char *name)
{
    if (a->scene_ref == LUA_NOREF || a->scene_ref == LUA_REFNIL || a->world == NULL)
        return false;
    push_scene(a, L);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
    if (lua_isfunction(L, -1))
        return true;
    lua_pop(L, 1);
    return false;
}

/* ------------------------------------------------------------------ loading */

/* steer.mouse(): the pointer in world units, nil when there is none (headless,
 * or the pointer outside the window). */
static int steer_mouse(lua_State *L)
{
    app *a = lua_touserdata(L, lua_upvalueindex(1));
    if (!a->mouse_valid) {
        lua_pushnil(L);
        return 1;
    }
    steer_lua_pushvec2(L, a->mouse);
    return 1;
}

/* world:mark(label): a mark on the timeline */
static void mark_sink(void *ud, const char *label)
{
    app_add_mark(ud, MARK_SCENE, label);
}

static int setup_fn(lua_State *L)
{
    app *a = call_app(L);
    gfx_push(L, a);
    a->gfx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "steer");
    /* Taken before any script runs: a scene that assigns steer.world does
     * not change how the app makes its world. */
    lua_getfield(L, -1, "world");
    a->world_new = lua_tocfunction(L, -1);
    if (a->world_new == NULL)
        return luaL_error(L, "steer.world is not the bindings' constructor");
    lua_pop(L, 1);
    lua_pushlightuserdata(L, a);
    lua_pushcclosure(L, steer_mouse, 1);
    lua_setfield(L, -2, "mouse");
    source_install(a, L);
    steer_lua_set_mark_sink(L, mark_sink, a);
    app_events_install(a, L);
    steer_host_seal(L);
    return 0;
}

static bool open_lua(app *a)
{
    steer_host_opts o = {0};
    o.scene_dir = a->scene_dir;
    o.scripts_dir = a->scripts_dir;
    o.trust = a->opt.trust;
    o.memory_limit = a->opt.memory_mb * 1024u * 1024u;
    o.seed = a->opt.has_seed ? a->opt.seed : 1;
    a->L = steer_host_open(&o);
    if (a->L == NULL)
        return false;
    a->lua_gen++;
    a->scene_ref = LUA_NOREF;
    a->world_ref = LUA_NOREF;
    a->gfx_ref = LUA_NOREF;
    a->world = NULL;
    steer_lua_set_budget(a->L, a->opt.budget);
    steer_lua_set_time_limit(a->L, (double)a->opt.time_limit);
    steer_lua_set_error_sink(a->L, error_sink, a);
    return protect(a, setup_fn, NULL);
}

static void close_lua(app *a)
{
    steer_host_close(a->L);
    a->L = NULL;
    a->world = NULL;
    a->scene_ok = false;
}

static lua_Number config_number(lua_State *L, int cfg, const char *k, lua_Number def)
{
    lua_getfield(L, cfg, k);
    lua_Number v = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : def;
    lua_pop(L, 1);
    return v;
}

/* The seed (--seed, else config.seed, else 1) and the title (config.title,
 * else the module's name). */
static void read_scene_settings(app *a, lua_State *L, int cfg)
{
    if (a->opt.has_seed) {
        a->seed = a->opt.seed;
    } else {
        lua_getfield(L, cfg, "seed");
        a->seed = lua_isinteger(L, -1) ? (uint64_t)lua_tointeger(L, -1)
                  : lua_isnumber(L, -1) ? (uint64_t)lua_tonumber(L, -1) : 1u;
        lua_pop(L, 1);
    }
    lua_getfield(L, cfg, "title");
    app_format(a->title, sizeof a->title, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : a->scene_module);
    lua_pop(L, 1);
}

/* Pushes the world's def: the size (a number, else the default), the edges
 * (default "wrap") and the seed the app chose, and the extensions as the
 * scene gave them, for steer.world to check. */
static void push_world_def(app *a, lua_State *L, int cfg)
{
    lua_createtable(L, 0, 7);
    lua_pushnumber(L, config_number(L, cfg, "width", 800));
    lua_setfield(L, -2, "width");
    lua_pushnumber(L, config_number(L, cfg, "height", 600));
    lua_setfield(L, -2, "height");
    lua_getfield(L, cfg, "edges");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "wrap");
    }
    lua_setfield(L, -2, "edges");
    lua_pushinteger(L, (lua_Integer)a->seed);
    lua_setfield(L, -2, "seed");
    const char *extensions[] = {"dt", "cell_size", "contacts"};
    for (size_t k = 0; k < sizeof extensions / sizeof extensions[0]; k++) {
        lua_getfield(L, cfg, extensions[k]);
        lua_setfield(L, -2, extensions[k]);
    }
}

/* Calls steer.world's C function on the def. Leaves the world on the stack
 * and returns its index; 0 (reported as a scene.config load error) when the
 * def is refused. */
static int make_world(app *a, lua_State *L, int cfg)
{
    lua_pushcfunction(L, a->world_new);
    push_world_def(a, L, cfg);
    if (steer_lua_pcall(L, 1, 1) != LUA_OK) {
        lua_pushfstring(L, "%s: scene.config: %s", a->scene_path, lua_tostring(L, -1));
        app_report_error(a, APP_ERR_LOAD, a->scene_path, lua_tostring(L, -1));
        return 0;
    }
    return lua_gettop(L);
}

/* The world at index world replaces the current one: its threads, the
 * random stream scripts draw from, and the app's state that belonged to the
 * old world (selection, stopped callbacks, live factors). */
static void adopt_world(app *a, lua_State *L, int world)
{
    st_world *w = steer_lua_checkworld(L, world);
    if (a->opt.threads > 1)
        st_world_set_threads(w, a->opt.threads);
    steer_host_set_world(L, world);
    if (a->world_ref != LUA_NOREF)
        luaL_unref(L, LUA_REGISTRYINDEX, a->world_ref);
    lua_pushvalue(L, world);
    a->world_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    a->world = w;
    a->dt = st_world_dt(w);
    a->selected = st_null_agent();
    a->update_paused = a->draw_paused = false;
    a->accumulator = 0.0;
    a->speed_factor = a->force_factor = 1.0;
}

/* scene.load(world, args) when the scene has one; false when it raised. */
static bool run_load(app *a, lua_State *L, int scene, int world)
{
    lua_getfield(L, scene, "load");
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return true;
    }
    lua_pushvalue(L, world);
    lua_createtable(L, a->opt.argc, 0);
    for (int i = 0; i < a->opt.argc; i++) {
        lua_pushstring(L, a->opt.argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return script_call(a, L, 2, "scene.load", APP_ERR_RUNTIME, "");
}

/* Makes a world from scene.config (or the defaults), replaces the current
 * one, and runs scene.load(world, args). */
static int new_world_fn(lua_State *L)
{
    app *a = call_app(L);
    push_scene(a, L);
    int scene = lua_gettop(L);
    lua_getfield(L, scene, "config");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    int cfg = lua_gettop(L);
    read_scene_settings(a, L, cfg);
    int world = make_world(a, L, cfg);
    if (world == 0)
        return 0;
    adopt_world(a, L, world);
    if (run_load(a, L, scene, world))
        a->scene_ok = true;
    return 0;
}

static int require_scene_fn(lua_State *L)
{
    app *a = call_app(L);
    /* Compile first, so a syntax error reads `file:line: message` rather
     * than require's "error loading module ..." wrapping. */
    if (source_loadfile(a, L, a->scene_path) != LUA_OK) {
        app_report_error(a, APP_ERR_LOAD, a->scene_path, lua_tostring(L, -1));
        return 0;
    }
    lua_pop(L, 1);
    lua_getglobal(L, "require");
    lua_pushstring(L, a->scene_module);
    if (steer_lua_pcall(L, 1, 1) != LUA_OK) {
        app_report_error(a, APP_ERR_LOAD, a->scene_path, lua_tostring(L, -1));
        return 0;
    }
    if (!lua_istable(L, -1)) {
        lua_pushfstring(L, "%s: a scene must return a table (got %s)", a->scene_path, luaL_typename(L, -1));
        app_report_error(a, APP_ERR_LOAD, a->scene_path, lua_tostring(L, -1));
        return 0;
    }
    a->scene_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    clear_errors(a, APP_ERR_LOAD, a->scene_path);
    return 0;
}

static void load_scene(app *a)
{
    a->scene_ok = false;
    protect(a, require_scene_fn, NULL);
    if (a->scene_ref != LUA_NOREF)
        protect(a, new_world_fn, NULL);
}

static bool set_scene_path(app *a, const char *path)
{
    if (app_realpath(path, a->scene_path) == NULL) {
        fprintf(stderr, "steer: cannot open scene '%s'\n", path);
        return false;
    }
    scene_dirname(a->scene_path, a->scene_dir, sizeof a->scene_dir);
    scene_module_of_file(a->scene_path, a->scene_module, sizeof a->scene_module);
    return true;
}

static void open_watcher(app *a)
{
    watch_close(a->watcher);
    const char *roots[2] = {a->scene_dir, a->scripts_dir};
    a->watcher = watch_open(roots, 2, WATCH_SETTLE);
}

bool app_start(app *a, const app_options *opt)
{
    a->opt = *opt;
    a->time_scale = 1.0;
    a->speed_factor = a->force_factor = 1.0;
    a->overlays = OV_PATHS | OV_HUD | OV_ORCA;
    a->selected = st_null_agent();
    if (app_realpath(STEER_SCRIPTS_DIR, a->scripts_dir) == NULL)
        snprintf(a->scripts_dir, sizeof a->scripts_dir, "%s", STEER_SCRIPTS_DIR);
    char def[PATH_MAX + 16];
    snprintf(def, sizeof def, "%s/hunt.lua", a->scripts_dir);
    if (!set_scene_path(a, opt->scene ? opt->scene : def))
        return false;
    if (!open_lua(a)) {
        fprintf(stderr, "steer: cannot create the Lua state\n");
        return false;
    }
    load_scene(a);
    open_watcher(a);
    return true;
}

void app_shutdown(app *a)
{
    close_lua(a);
    watch_close(a->watcher);
    a->watcher = NULL;
    free_errors(a);
}

/* A fresh Lua state and no errors, for a scene loaded afresh; false (the app
 * quits) when the state cannot be made. */
static bool fresh_lua(app *a)
{
    close_lua(a);
    free_errors(a);
    if (open_lua(a))
        return true;
    fprintf(stderr, "steer: cannot create the Lua state\n");
    a->quit = true;
    return false;
}

bool app_switch_scene(app *a, const char *path)
{
    char keep[PATH_MAX];
    snprintf(keep, sizeof keep, "%s", a->scene_path);
    if (!set_scene_path(a, path))
        return false;
    if (!fresh_lua(a))
        return false;
    a->paused = false;
    load_scene(a);
    if (strcmp(keep, a->scene_path) != 0)
        open_watcher(a);
    printf("scene: %s\n", a->scene_path);
    fflush(stdout);
    return true;
}

void app_reopen(app *a)
{
    if (fresh_lua(a))
        load_scene(a);
}

void scene_restart(app *a)
{
    if (a->scene_ref == LUA_NOREF) {
        app_switch_scene(a, a->scene_path);
        return;
    }
    a->scene_ok = false;
    /* The old world's runtime errors went with it; load errors stay until
     * their file is fixed. */
    clear_errors(a, APP_ERR_RUNTIME, NULL);
    protect(a, new_world_fn, NULL);
    printf("restart: %s (seed %llu)\n", a->scene_module, (unsigned long long)a->seed);
    fflush(stdout);
}

/* ------------------------------------------------------------------ step */

static int step_fn(lua_State *L)
{
    app *a = call_app(L);
    if (!a->update_paused && push_callback(a, L, "update")) {
        push_world(a, L);
        lua_pushnumber(L, a->dt);
        if (!script_call(a, L, 2, "scene.update", APP_ERR_RUNTIME, ""))
            a->update_paused = true;
    }
    push_world(a, L);
    lua_getfield(L, -1, "step");
    lua_insert(L, -2);
    script_call(a, L, 1, "world:step", APP_ERR_RUNTIME, "");
    return 0;
}

void scene_step(app *a)
{
    if (a->world == NULL)
        return;
    double t0 = app_clock();
    protect(a, step_fn, NULL);
    double ms = (app_clock() - t0) * 1000.0;
    a->step_ms_total += ms;
    a->steps_run++;
    a->ms_per_step = a->steps_run == 1 ? ms : a->ms_per_step * 0.95 + ms * 0.05;
}

/* ------------------------------------------------------------------ callbacks */

static int has_callback_fn(lua_State *L)
{
    app *a = call_app(L);
    const char **name = call_arg(L);
    if (push_callback(a, L, *name))
        *name = NULL;
    return 0;
}

/* A key or click the scene has no callback for changes nothing: it is not
 * recorded, and in a rewind's past it makes no branch (event_matters). */
bool scene_has_callback(app *a, const char *name)
{
    const char *n = name;
    protect(a, has_callback_fn, &n);
    return n == NULL;
}

/* An input for the scene: scene.keypressed(world, key) when key is set,
 * else scene.mousepressed(world, x, y, button). */
typedef struct input_args {
    const char *key;
    st_vec2 p; ///< world units
    int button;
} input_args;

static int input_fn(lua_State *L)
{
    app *a = call_app(L);
    input_args *in = call_arg(L);
    if (!push_callback(a, L, in->key ? "keypressed" : "mousepressed"))
        return 0;
    push_world(a, L);
    if (in->key != NULL) {
        lua_pushstring(L, in->key);
        script_call(a, L, 2, "scene.keypressed", APP_ERR_RUNTIME, "");
        return 0;
    }
    lua_pushnumber(L, in->p.x);
    lua_pushnumber(L, in->p.y);
    lua_pushinteger(L, in->button);
    script_call(a, L, 4, "scene.mousepressed", APP_ERR_RUNTIME, "");
    return 0;
}

void scene_mousepressed(app *a, st_vec2 p, int button)
{
    input_args in = {NULL, p, button};
    protect(a, input_fn, &in);
}

void scene_keypressed(app *a, const char *key)
{
    input_args in = {key, {0, 0}, 0};
    protect(a, input_fn, &in);
}

static int draw_fn(lua_State *L)
{
    app *a = call_app(L);
    if (a->world == NULL)
        return 0;
    push_world(a, L);
    int world = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->gfx_ref);
    int gfx = lua_gettop(L);
    steer_lua_draw_brains(L, world, gfx);
    if (!a->draw_paused && push_callback(a, L, "draw")) {
        lua_pushvalue(L, world);
        lua_pushvalue(L, gfx);
        if (!script_call(a, L, 2, "scene.draw", APP_ERR_RUNTIME, ""))
            a->draw_paused = true;
    }
    return 0;
}

void app_draw_scripts(app *a, render_ctx *ctx)
{
    a->gfx_target = ctx;
    protect(a, draw_fn, NULL);
    a->gfx_target = NULL;
}

/* ------------------------------------------------------------------ self */

typedef struct text_out {
    st_agent_id id;
    char *buf;
    size_t n;
    bool found;
} text_out;

/* Pushes the agent's `self`; true when it is a table. */
static bool push_self(app *a, lua_State *L, st_agent_id id)
{
    push_world(a, L);
    steer_lua_pushself(L, lua_gettop(L), id);
    return lua_istable(L, -1);
}

static int state_fn(lua_State *L)
{
    text_out *o = call_arg(L);
    if (!push_self(call_app(L), L, o->id))
        return 0;
    lua_getfield(L, -1, "state");
    if (lua_istable(L, -1))
        lua_getfield(L, -1, "name");
    if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(o->buf, o->n, "%s", lua_tostring(L, -1));
        o->found = true;
    }
    return 0;
}

bool app_state_name(app *a, st_agent_id id, char *buf, size_t n)
{
    text_out o = {id, buf, n, false};
    if (a->world == NULL || !st_agent_alive(a->world, id))
        return false;
    protect(a, state_fn, &o);
    return o.found;
}

/* A one-line picture of a value in out: no metamethods of the script's own
 * run here (raw access), except __tostring on userdata such as vec2. */
static void describe_value(lua_State *L, int idx, char *out, size_t n)
{
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            snprintf(out, n, "%lld", (long long)lua_tointeger(L, idx));
        else
            snprintf(out, n, "%.4g", lua_tonumber(L, idx));
        break;
    case LUA_TBOOLEAN:
        snprintf(out, n, "%s", lua_toboolean(L, idx) ? "true" : "false");
        break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        snprintf(out, n, "\"%.*s%s\"", len > 40 ? 40 : (int)len, s, len > 40 ? "..." : "");
        break;
    }
    case LUA_TTABLE: {
        lua_pushliteral(L, "name");
        lua_rawget(L, idx);
        if (lua_type(L, -1) == LUA_TSTRING) {
            app_format(out, n, "{name = %s, ...}", lua_tostring(L, -1));
        } else {
            int count = 0;
            lua_pushnil(L);
            while (lua_next(L, idx)) {
                count++;
                lua_pop(L, 1);
            }
            snprintf(out, n, "{%d fields}", count);
        }
        lua_pop(L, 1);
        break;
    }
    case LUA_TUSERDATA: {
        size_t len;
        const char *s = luaL_tolstring(L, idx, &len);
        snprintf(out, n, "%.*s", len > 48 ? 48 : (int)len, s);
        lua_pop(L, 1);
        break;
    }
    default:
        snprintf(out, n, "%s", luaL_typename(L, idx));
    }
}

static int key_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int describe_fn(lua_State *L)
{
    text_out *o = call_arg(L);
    if (!push_self(call_app(L), L, o->id))
        return 0;
    int self = lua_gettop(L);
    /* Lines sorted by key, so the panel does not jump about from frame to frame. */
    enum { MAX_LINES = 24 };
    char *lines[MAX_LINES];
    int n = 0;
    lua_pushnil(L);
    while (n < MAX_LINES && lua_next(L, self)) {
        char key[96], val[128], line[240];
        if (lua_type(L, -2) == LUA_TSTRING) {
            snprintf(key, sizeof key, "%s", lua_tostring(L, -2));
        } else {
            char k[90];
            describe_value(L, -2, k, sizeof k);
            app_format(key, sizeof key, "[%s]", k);
        }
        describe_value(L, -1, val, sizeof val);
        app_format(line, sizeof line, "%s = %s", key, val);
        lines[n] = strdup(line);
        if (lines[n])
            n++;
        lua_pop(L, 1);
    }
    qsort(lines, (size_t)n, sizeof lines[0], key_cmp);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w = snprintf(o->buf + used, o->n - used, "%s\n", lines[i]);
        if (w > 0 && (size_t)w < o->n - used)
            used += (size_t)w;
        free(lines[i]);
    }
    return 0;
}

void app_describe_self(app *a, st_agent_id id, char *buf, size_t n)
{
    buf[0] = '\0';
    if (a->world == NULL || !st_agent_alive(a->world, id) || n == 0)
        return;
    text_out o = {id, buf, n, false};
    protect(a, describe_fn, &o);
}

/* A behaviour tree's state in self (steer.bt keeps it in self.bt, or under
 * the root's key: any field whose table has a string `layout`, the first
 * by key): its node paths, one line each, the last part indented by depth,
 * "> " before the running leaf and its ancestors (`active`), "  " else. */
static int tree_fn(lua_State *L)
{
    text_out *o = call_arg(L);
    if (!push_self(call_app(L), L, o->id))
        return 0;
    int self = lua_gettop(L);
    const char *best = NULL;
    lua_pushnil(L);
    while (lua_next(L, self)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
            if (lua_getfield(L, -1, "layout") == LUA_TSTRING) {
                const char *k = lua_tostring(L, -3);
                if (best == NULL || strcmp(k, best) < 0)
                    best = k; /* a key of self: alive while self is on the stack */
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (best == NULL)
        return 0;
    lua_getfield(L, self, best);
    lua_getfield(L, -1, "layout");
    lua_getfield(L, -2, "active");
    const char *layout = lua_tostring(L, -2), *active = lua_tostring(L, -1);
    size_t used = (size_t)snprintf(o->buf, o->n, "  tree (self.%s):\n", best);
    for (const char *p = layout; *p && used < o->n;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int depth = 0;
        const char *leaf = p;
        for (const char *q = p; q < p + len; q++)
            if (*q == '/') {
                depth++;
                leaf = q + 1;
            }
        bool on = active != NULL && strncmp(active, p, len) == 0 && (active[len] == '\0' || active[len] == '/');
        int w = snprintf(o->buf + used, o->n - used, "%s%*s%.*s\n", on ? "> " : "  ", 2 * depth, "",
                         (int)(len - (size_t)(leaf - p)), leaf);
        used += w > 0 ? (size_t)w : 0;
        p = end ? end + 1 : p + len;
    }
    if (used >= o->n)
        o->buf[o->n - 1] = '\0';
    return 0;
}

void app_describe_tree(app *a, st_agent_id id, char *buf, size_t n)
{
    buf[0] = '\0';
    if (a->world == NULL || !st_agent_alive(a->world, id) || n == 0)
        return;
    text_out o = {id, buf, n, false};
    protect(a, tree_fn, &o);
}

static int paused_fn(lua_State *L)
{
    app *a = call_app(L);
    push_world(a, L);
    *(int *)call_arg(L) = steer_lua_paused_count(L, lua_gettop(L));
    return 0;
}

int app_paused_brains(app *a)
{
    int n = 0;
    if (a->world != NULL)
        protect(a, paused_fn, &n);
    return n;
}

/* ------------------------------------------------------------------ reload */

typedef struct reload_args {
    const char *module;
    const char *path;
    bool ok;
    steer_reload_info info;
} reload_args;

static int loaded_fn(lua_State *L)
{
    reload_args *r = call_arg(L);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, r->module);
    r->ok = !lua_isnil(L, -1);
    return 0;
}

static int reload_fn(lua_State *L)
{
    app *a = call_app(L);
    reload_args *r = call_arg(L);
    r->ok = steer_lua_reload_info(L, r->module, &r->info);
    if (!r->ok)
        app_report_error(a, APP_ERR_LOAD, r->path, lua_tostring(L, -1));
    return 0;
}

/* "3 functions replaced, 1 class patched, 40 agents": what a reload did. */
static void describe_reload(const steer_reload_info *in, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
#define PART(cond, ...)                                                        \
    do {                                                                       \
        if ((cond) && used < n) {                                              \
            int w = snprintf(out + used, n - used, "%s", used ? ", " : "");  \
            used += w > 0 ? (size_t)w : 0;                                     \
            if (used < n) {                                                    \
                w = snprintf(out + used, n - used, __VA_ARGS__);               \
                used += w > 0 ? (size_t)w : 0;                                 \
            }                                                                  \
        }                                                                      \
    } while (0)
    PART(1, "%d function%s replaced", in->functions, in->functions == 1 ? "" : "s");
    PART(in->added > 0, "%d added", in->added);
    PART(in->removed > 0, "%d removed", in->removed);
    PART(in->classes > 0, "%d class%s patched", in->classes, in->classes == 1 ? "" : "es");
    PART(in->values > 0, "%d value%s changed", in->values, in->values == 1 ? "" : "s");
    PART(1, "%d agent%s", in->agents, in->agents == 1 ? "" : "s");
#undef PART
}

/* Says what a reload did, on stdout and in the flash; a good one clears
 * the errors it may have fixed. */
static void report_reload(app *a, const reload_args *r, bool is_scene)
{
    if (!r->ok) {
        say(a, "reload: failed %s (%s); the old code keeps running\n", r->module, r->path);
        app_flash(a, FLASH_BAD, 2.0, "reload of %s failed", r->module);
        return;
    }
    clear_errors(a, APP_ERR_LOAD, r->path);
    clear_errors(a, APP_ERR_RUNTIME, NULL);
    if (is_scene)
        a->update_paused = a->draw_paused = false;
    char what[256];
    describe_reload(&r->info, what, sizeof what);
    if (r->info.changed)
        say(a, "reload: ok %s (%s) %s\n", r->module, what, r->path);
    else
        say(a, "reload: no change %s (%s) %s\n", r->module, what, r->path);
    if (r->info.truncated)
        say(a, "reload: %s is too big to merge whole: part of it was replaced, not merged\n", r->module);
    app_flash(a, FLASH_OK, 2.0, r->info.changed ? "reloaded %s" : "%s: no change", r->module);
}

scene_reload_result scene_reload_file(app *a, const char *path, int root, char *module, size_t n)
{
    char real[PATH_MAX];
    if (app_realpath(path, real) == NULL || !scene_module_of_path(a, real, root, module, n))
        return SCENE_RELOAD_NONE;
    /* A scene that never loaded has nothing to reload into: start it afresh
     * with whatever is on disk now. */
    if (a->scene_ref == LUA_NOREF || a->world == NULL) {
        say(a, "reload: %s changed, loading the scene afresh\n", real);
        fflush(stdout);
        app_switch_scene(a, a->scene_path);
        return a->scene_ok ? SCENE_RELOAD_OK : SCENE_RELOAD_FAILED;
    }
    reload_args r = {module, real, false, {0}};
    protect(a, loaded_fn, &r);
    if (!r.ok) {
        say(a, "reload: %s changed (module '%s' is not in use)\n", real, module);
        fflush(stdout);
        return SCENE_RELOAD_NONE;
    }
    r.ok = false;
    protect(a, reload_fn, &r);
    report_reload(a, &r, strcmp(real, a->scene_path) == 0);
    fflush(stdout);
    return r.ok ? SCENE_RELOAD_OK : SCENE_RELOAD_FAILED;
}
