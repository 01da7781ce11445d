/*
 * console.c — the Lua console (key `): one line of Lua run in the scene's
 * own state (its sandbox, its instruction budget and memory cap), with
 * `world`, `scene` and `agent(id)` (the live agent whose agent.id is id)
 * in reach; an expression's values are shown. Every line run is an input
 * like a key (app_console_run makes it an event, event.c): recorded in
 * the journal (`console T LINE`), replayed at its tick, and in the past it
 * starts a branch. The agent window's edits
 * (ui_agent.cpp) are console lines too: `agent(ID).self.KEY = VALUE`.
 *
 * The console's window and its line are ui.cpp's. While the console is
 * open every key is its own: none reaches the app's controls or the scene
 * (ui_event); Enter runs the line, Esc or ` closes it.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "render.h"
#include "steer_lua.h"

void console_open(app *a, const char *text)
{
    a->console_open = true;
    a->console_skip = true; /* the ` that opened it arrives as text too */
    snprintf(a->console_text, sizeof a->console_text, "%s", text ? text : "");
    SDL_StartTextInput();
}

static void console_close(app *a)
{
    a->console_open = false; /* ui_frame stops the text input when nothing else wants it */
}

/* agent(id): the live agent whose agent.id (its serial) is id, or nil. */
static int agent_fn(lua_State *L)
{
    st_world *w = steer_lua_checkworld(L, lua_upvalueindex(1));
    lua_Integer want = luaL_checkinteger(L, 1);
    for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
         id = st_world_next(w, id, ST_TAG_ANY)) {
        if ((lua_Integer)st_agent_serial(w, id) == want) {
            steer_lua_pushagent(L, lua_upvalueindex(1), id);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

typedef struct eval_call {
    app *a;
    const char *line;
    char *out;
    size_t n;
} eval_call;

/* The line as `return LINE` (an expression) or else as a statement, with an
 * environment of world, scene and agent over the state's globals. */
static int eval_fn(lua_State *L)
{
    eval_call *c = lua_touserdata(L, 1);
    app *a = c->a;
    lua_pushfstring(L, "return %s", c->line);
    if (luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=console", "t") != LUA_OK) {
        lua_pop(L, 1);
        if (luaL_loadbufferx(L, c->line, strlen(c->line), "=console", "t") != LUA_OK)
            return lua_error(L);
    }
    int fn = lua_gettop(L);
    lua_newtable(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->world_ref);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "world");
    lua_pushcclosure(L, agent_fn, 1);
    lua_setfield(L, -2, "agent");
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->scene_ref);
    lua_setfield(L, -2, "scene");
    lua_newtable(L);
    lua_pushglobaltable(L);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setupvalue(L, fn, 1); /* _ENV */
    lua_pushvalue(L, fn);
    if (steer_lua_pcall(L, 0, LUA_MULTRET) != LUA_OK)
        return lua_error(L);
    int top = lua_gettop(L);
    size_t used = 0;
    c->out[0] = '\0';
    for (int i = fn + 1; i <= top && i <= fn + 4 && used + 1 < c->n; i++) {
        const char *s = luaL_tolstring(L, i, NULL);
        int k = snprintf(c->out + used, c->n - used, "%s%s", i > fn + 1 ? ", " : "", s);
        used += k > 0 ? (size_t)k : 0;
        lua_pop(L, 1);
    }
    return 0;
}

/* Runs the line; its values or its error in out. False on an error. */
static bool console_eval(app *a, const char *line, char *out, size_t n)
{
    if (a->L == NULL || a->world == NULL || a->scene_ref == LUA_NOREF) {
        snprintf(out, n, "no scene is running");
        return false;
    }
    lua_State *L = a->L;
    int top = lua_gettop(L);
    eval_call c = {a, line, out, n};
    lua_pushcfunction(L, eval_fn);
    lua_pushlightuserdata(L, &c);
    bool ok = lua_pcall(L, 1, 0, 0) == LUA_OK;
    if (!ok)
        snprintf(out, n, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object is not a string)");
    lua_settop(L, top);
    return ok;
}

void console_exec(app *a, const char *line)
{
    char out[sizeof a->console_out];
    bool ok = console_eval(a, line, out, sizeof out);
    if (!a->quiet)
        printf("console: %s\n%s %s\n", line, ok ? "=" : "error:", out[0] ? out : "ok");
    app_format(a->console_out, sizeof a->console_out, "%s%s", ok ? "" : "error: ", out[0] ? out : "ok");
    char *nl = strchr(a->console_out, '\n'); /* one line in the panel */
    if (nl != NULL)
        *nl = '\0';
    a->console_bad = !ok;
}

/* Backspace: the last UTF-8 character off the line. */
static void erase(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && ((unsigned char)s[n - 1] & 0xC0) == 0x80)
        n--;
    s[n > 0 ? n - 1 : 0] = '\0';
}

bool console_type(app *a, const SDL_Event *e)
{
    if (!a->console_open)
        return false;
    if (e->type == SDL_TEXTINPUT) {
        size_t len = strlen(a->console_text), add = strlen(e->text.text);
        if (len + add < sizeof a->console_text)
            memcpy(a->console_text + len, e->text.text, add + 1);
        return true;
    }
    if (e->type != SDL_KEYDOWN)
        return false;
    SDL_Keycode k = e->key.keysym.sym;
    if (k == SDLK_RETURN || k == SDLK_KP_ENTER) {
        app_console_run(a, a->console_text);
        a->console_text[0] = '\0';
    } else if (k == SDLK_BACKSPACE) {
        erase(a->console_text);
    }
    return true;
}

bool console_handle(app *a, const SDL_Event *e)
{
    if (!a->console_open)
        return false;
    if (e->type == SDL_TEXTINPUT) {
        bool opener = a->console_skip && strcmp(e->text.text, "`") == 0;
        a->console_skip = false;
        return opener; /* the rest is the line's (ImGui's text field) */
    }
    if (e->type != SDL_KEYDOWN)
        return false;
    a->console_skip = false;
    if (e->key.keysym.sym != SDLK_ESCAPE && e->key.keysym.sym != SDLK_BACKQUOTE)
        return false;
    console_close(a);
    return true;
}
