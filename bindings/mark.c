/*
 * mark.c — world:mark(label): a scene names a moment ("catch", "wave 2") for
 * the host; and the host's sink for decision events (steer_lua_set_event_sink:
 * messages delivered, agents noticed; message.c and perceive.c report them). The app puts it on its timeline and in --record files; with no
 * host listening (stock lua5.4) it only returns the tick. Marks never touch
 * the world, so they leave checksums alone.
 */
#include <lauxlib.h>

#include "bind.h"
#include "steer_lua.h"

#define MARK_MAX_LABEL 64

typedef struct mark_sink {
    steer_lua_mark_fn fn;
    void *ud;
} mark_sink;

static const char sl_key_mark_sink = 0;

void steer_lua_set_mark_sink(lua_State *L, steer_lua_mark_fn fn, void *ud)
{
    mark_sink *s = lua_newuserdatauv(L, sizeof *s, 0);
    s->fn = fn;
    s->ud = ud;
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sl_key_mark_sink);
}

/* world:mark(label) -> tick */
int sl_world_mark(lua_State *L)
{
    sl_world *sw = sl_checkworld(L, 1);
    size_t len;
    const char *label = luaL_checklstring(L, 2, &len);
    luaL_argcheck(L, len > 0 && len <= MARK_MAX_LABEL, 2, "label must be 1 to 64 bytes");
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_mark_sink) == LUA_TUSERDATA) {
        const mark_sink *s = lua_touserdata(L, -1);
        if (s->fn != NULL)
            s->fn(s->ud, label);
    }
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)st_world_tick(sw->w));
    return 1;
}

typedef struct event_sink {
    steer_lua_event_fn fn;
    void *ud;
} event_sink;

static const char sl_key_event_sink = 0;

void steer_lua_set_event_sink(lua_State *L, steer_lua_event_fn fn, void *ud)
{
    event_sink *s = lua_newuserdatauv(L, sizeof *s, 0);
    s->fn = fn;
    s->ud = ud;
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sl_key_event_sink);
}

bool sl_events_wanted(lua_State *L)
{
    bool on = lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_event_sink) == LUA_TUSERDATA &&
              ((const event_sink *)lua_touserdata(L, -1))->fn != NULL;
    lua_pop(L, 1);
    return on;
}

void sl_event(lua_State *L, const steer_lua_event *e)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_event_sink) == LUA_TUSERDATA) {
        const event_sink *s = lua_touserdata(L, -1);
        if (s->fn != NULL)
            s->fn(s->ud, e);
    }
    lua_pop(L, 1);
}
