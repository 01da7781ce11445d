/*
 * test_events.c — the bindings' decision events (steer_lua_set_event_sink),
 * as a host such as the app sees them: a message delivered to a brain, an
 * agent newly seen (once: one still remembered is not news), a noise heard.
 * A C host with Lua and the bindings linked in.
 */
#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "steer_lua.h"
#include "test_util.h"

typedef struct seen_log {
    int n[3];
    char what[32];
    st_agent_id from, to;
} seen_log;

static void sink(void *ud, const steer_lua_event *e)
{
    seen_log *s = ud;
    s->n[e->kind]++;
    if (e->kind == STEER_LUA_MESSAGE) {
        snprintf(s->what, sizeof s->what, "%s", e->what ? e->what : "(none)");
        s->from = e->from;
        s->to = e->to;
    }
}

/* The world: a guard, a thief in plain view, a wall hiding a third agent. */
static const char *const SCENE =
    "local steer = require 'steer'\n"
    "local w = steer.world { width = 200, height = 200 }\n"
    "w:add_obstacle { polygon = { {90, 0}, {110, 0}, {110, 200}, {90, 200} } }\n"
    "local got = {}\n"
    "local brain = { message = function(self, a, msg) got[#got + 1] = msg.kind end }\n"
    "local guard = w:spawn { pos = {20, 100}, heading = {1, 0}, brain = brain }\n"
    "local thief = w:spawn { pos = {60, 100}, brain = brain }\n"
    "local hidden = w:spawn { pos = {150, 100}, brain = brain }\n"
    "G = { w = w, guard = guard, thief = thief, hidden = hidden, got = got }\n";

static int run(lua_State *L, const char *chunk)
{
    if (luaL_dostring(L, chunk) != LUA_OK) {
        printf("lua: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

static void events_reach_the_host(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    seen_log s = {{0}, "", {0}, {0}};
    steer_lua_set_event_sink(L, sink, &s);
    CHECK(run(L, SCENE), "the scene loads");
    // A message from the thief to the guard, delivered at the next step.
    CHECK(run(L, "G.thief:send(G.guard, 'alert', 1); G.w:step()"), "send");
    CHECK(s.n[STEER_LUA_MESSAGE] == 1 && strcmp(s.what, "alert") == 0, "one message 'alert' reported (%d, %s)",
          s.n[STEER_LUA_MESSAGE], s.what);
    CHECK(s.from.index == 1 && s.to.index == 0, "from the thief to the guard (%u -> %u)", (unsigned)s.from.index,
          (unsigned)s.to.index);
    // Sight: the thief is news once; the one behind the wall never.
    const char *look = "return #G.guard:perceive { sight = { range = 300, fov = 6.3 } }";
    CHECK(run(L, look), "perceive");
    CHECK(s.n[STEER_LUA_SEEN] == 1, "the thief seen once: %d events", s.n[STEER_LUA_SEEN]);
    CHECK(run(L, look), "perceive again");
    CHECK(s.n[STEER_LUA_SEEN] == 1, "remembered: no new event (%d)", s.n[STEER_LUA_SEEN]);
    // Hearing: a noise the guard's ears reach, heard once.
    const char *ears = "return #G.guard:perceive { hearing = { range = 100 } }";
    CHECK(run(L, "G.w:noise({40, 100}, 30, 'step')"), "noise");
    CHECK(run(L, ears) && run(L, ears), "listen twice");
    CHECK(s.n[STEER_LUA_HEARD] == 1, "the noise heard once: %d events", s.n[STEER_LUA_HEARD]);
    // Without a sink nothing is reported and the world is the same.
    steer_lua_set_event_sink(L, NULL, NULL);
    CHECK(run(L, "G.thief:send(G.guard, 'again'); G.w:step(); assert(G.got[#G.got] == 'again')"), "no sink");
    CHECK(s.n[STEER_LUA_MESSAGE] == 1, "no event without a sink (%d)", s.n[STEER_LUA_MESSAGE]);
    lua_close(L);
}

int main(void)
{
    RUN(events_reach_the_host);
    return tu_summary();
}
