/*
 * decide.c — steer_bench's rows for perception and brain scheduling
 * (--only decide).
 *
 * Perception: 1,000 guards among 10,000 agents (9,000 wanderers) in a
 * square world with one obstacle per 160 x 160 units and a wall for every
 * five, each guard perceiving with a 120-degree cone of range 100 and
 * hearing of range 50, 20 noises a step. "st_perceive (core)": the C calls
 * alone, in microseconds per call; "perceive (lua)": the same guards as Lua
 * brains calling a:perceive and a:memory every step, ms per step of the
 * whole world. The percepts are counted and printed: the work is real.
 *
 * Scheduling: 10,000 Lua brains, each a small decision (a clock from dt, a
 * nearest query, three conditions, a standing behaviour set when the
 * decision changes), with think_every = 1 and = 4: ms per step of the whole
 * world, and the checksum of each. Wall clock, one core for the brains.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "decide.h"
#include "steer.h"
#include "steer_lua.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

#define AGENTS 10000
#define GUARDS 1000

static double world_side(void) { return sqrt(AGENTS * 60.0 * 60.0); } /* ~one agent per 60 x 60 */

static void add_geometry(st_world *w, double side)
{
    int n = (int)(side * side / (160.0 * 160.0));
    for (int i = 0; i < n; i++) {
        st_vec2 c = st_v2(urand() * side, urand() * side);
        st_world_add_obstacle(w, c, 5 + urand() * 20);
        if (i % 5 == 0)
            st_world_add_wall(w, c, st_v2_add(c, st_v2_from_angle(urand() * 6.283185307179586, 20 + urand() * 60)));
    }
}

static void core_row(bool quick)
{
    double side = world_side();
    st_world_def d = st_default_world_def();
    d.width = d.height = side;
    st_world *w = st_world_create(&d);
    add_geometry(w, side);
    for (int i = 0; i < AGENTS; i++) {
        st_agent_def a = st_default_agent_def();
        a.pos = st_v2(urand() * side, urand() * side);
        a.vel = st_v2_from_angle(urand() * 6.283185307179586, 40);
        a.radius = 4;
        st_world_spawn(w, &a);
    }
    st_world_raycast_prepare(w);
    st_perception *p = st_perception_create();
    st_perception_reserve(p, st_world_slot_count(w));
    st_senses s = st_senses_default();
    s.sight_range = 100;
    s.fov = 120 * ST_PI / 180;
    s.hearing_range = 50;
    st_percept *out = (st_percept *)malloc(sizeof *out * (AGENTS + ST_NOISE_SLOTS));
    st_agent_id *scratch = (st_agent_id *)malloc(sizeof *scratch * AGENTS);
    int rounds = quick ? 5 : 30;
    long long seen = 0;
    double t = 0;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 20; k++)
            st_perception_noise(p, w, st_v2(urand() * side, urand() * side), 40, st_null_agent());
        double t0 = now();
        for (int g = 0; g < GUARDS; g++)
            seen += st_perceive(p, w, st_world_stored(w, g), &s, out, AGENTS + ST_NOISE_SLOTS, scratch, AGENTS);
        t += now() - t0;
        st_world_step(w, 1.0 / 60);
    }
    printf("%-22s %9d %7d %10.3f %12.2f %12s  us per perceive; %.1f percepts each; C only\n", "st_perceive (core)",
           GUARDS, 1, t * 1e3 / rounds, t * 1e6 / ((double)rounds * GUARDS), "",
           (double)seen / ((double)rounds * GUARDS));
    free(out);
    free(scratch);
    st_perception_destroy(p);
    st_world_destroy(w);
}

/* The Lua side: (now, kind, every, steps, side) -> ms per step, checksum, extra. */
static const char *lua_bench =
    "local now, kind, every, steps, side = ...\n"
    "local steer = require 'steer'\n"
    "local w = steer.world { width = side, height = side, seed = 9 }\n"
    "local extra = 0\n"
    "local SENSES = { sight = { range = 100, fov = math.rad(120) }, hearing = { range = 50 } }\n"
    "local guard = { update = function(self, a)\n"
    "  local p = a:perceive(SENSES)\n"
    "  extra = extra + #p\n"
    "  local m = a:memory()[1]\n"
    "  if p[1] and p[1].agent then a:seek(p[1].position) elseif m then a:seek(m.position) else a:wander() end\n"
    "end }\n"
    "local thinker = { update = function(self, a, dt)\n"
    "  self.t = (self.t or 0) + dt\n"
    "  local near = w:nearest(a, 60, 'hunter')\n"
    "  local mode\n"
    "  if near and self.t > 0.5 then mode = 'evade'\n"
    "  elseif a.speed < 5 or self.t > 3 then mode = 'wander'; self.t = 0\n"
    "  else mode = self.mode or 'wander' end\n"
    "  if mode ~= self.mode then\n"
    "    self.mode = mode; extra = extra + 1\n"
    "    if mode == 'evade' then a.behaviors = { { 'evade', target = near } } else a.behaviors = { { 'wander' } } end\n"
    "  end\n"
    "end }\n"
    "local n = 0\n"
    "for i = 1, side * side / 25600 do\n"
    "  local c = { w:random() * side, w:random() * side }\n"
    "  w:obstacle(c, 5 + w:random() * 20)\n"
    "  if i % 5 == 0 then w:wall(c, { c[1] + 40, c[2] + 20 }) end\n"
    "end\n"
    "for i = 1, 10000 do\n"
    "  local pos = { w:random() * side, w:random() * side }\n"
    "  if kind == 'perceive' then\n"
    "    if i <= 1000 then w:spawn { pos = pos, brain = guard, radius = 4 }\n"
    "    else w:spawn { pos = pos, radius = 4, behaviors = { { 'wander' } } } end\n"
    "  else\n"
    "    local a = w:spawn { pos = pos, brain = thinker, radius = 4, tag = i % 10 == 0 and 'hunter' or 'prey' }\n"
    "    a.think_every = every\n"
    "  end\n"
    "end\n"
    "for _ = 1, 8 do w:step() end\n"
    "if kind == 'perceive' then for _ = 1, 20 do w:noise({ w:random() * side, w:random() * side }, 40) end end\n"
    "local t0 = now()\n"
    "for _ = 1, steps do\n"
    "  if kind == 'perceive' then for _ = 1, 20 do w:noise({ w:random() * side, w:random() * side }, 40) end end\n"
    "  w:step()\n"
    "end\n"
    "return (now() - t0) * 1000 / steps, w:checksum(), extra\n";

static int lua_now(lua_State *L)
{
    lua_pushnumber(L, now());
    return 1;
}

static void lua_row(const char *what, const char *kind, int every, int steps, const char *note)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    if (luaL_loadstring(L, lua_bench) != LUA_OK)
        goto fail;
    lua_pushcfunction(L, lua_now);
    lua_pushstring(L, kind);
    lua_pushinteger(L, every);
    lua_pushinteger(L, steps);
    lua_pushnumber(L, world_side());
    if (lua_pcall(L, 5, 3, 0) != LUA_OK)
        goto fail;
    double ms = lua_tonumber(L, -3);
    printf("%-22s %9d %7d %10.3f %12.0f %12.1f  %s; checksum %s; %.0f %s\n", what, AGENTS, 1, ms, ms * 1e6 / AGENTS,
           1000.0 / ms, note, lua_tostring(L, -2), lua_tonumber(L, -1),
           !strcmp(kind, "perceive") ? "percepts" : "decisions changed");
    lua_close(L);
    return;
fail:
    fprintf(stderr, "steer_bench: %s: %s\n", what, lua_tostring(L, -1));
    lua_close(L);
}

void decide_rows(bool quick)
{
    printf("\nperception and brain scheduling (%d agents, %.0f x %.0f, obstacles and walls):\n", AGENTS,
           world_side(), world_side());
    core_row(quick);
    int steps = quick ? 10 : 60;
    lua_row("perceive (lua)", "perceive", 1, steps, "1,000 guards perceive every step among 10,000");
    lua_row("think_every = 1", "think", 1, steps, "10,000 brains every tick");
    lua_row("think_every = 4", "think", 4, steps, "10,000 brains, a quarter a tick");
}
