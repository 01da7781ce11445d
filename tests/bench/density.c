/*
 * density.c — steer_bench's lean-brain rows at four densities (issue 14):
 * 10k agents, one hunter in ten (tests/bench/brains/lean_hunter.lua,
 * lean_prey.lua), on wrap squares of 14,000 (the demo's density), 3,600,
 * 900 and 400 square units an agent, in a bare Lua state as stock lua5.4
 * makes it. Each density runs the full brains on 1 and 2 threads, and on
 * 1 thread the variants that split an agent's cost:
 *
 *   step     no brains: the grid build and the integration
 *   dispatch an empty brain (empty.lua): + calling update from C
 *   lua      the lean brains with their nearest query made once and kept
 *            (lean_*_cached.lua): + the Lua and the behaviour calls
 *   query    the full lean brains: + world:nearest
 *
 * and, outside the steps, every agent's st_world_nearest straight from C
 * ("C query"), so the query splits into the core's search and its binding.
 * The "lean (steer)" rows run the same brains written with agent:nearest
 * and agent:steer kept in locals from steer.agent (lean_*_steer.lua: no
 * __index call, no agent.world read, no vec2 per behaviour call), on 1 and
 * 2 threads: the same forces, so the same checksum as the lean rows.
 * The seven worlds of a density (each in its own Lua state) take turns, a
 * block of steps each, so a busy machine's load falls on all of them alike.
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

#include "density.h"
#include "steer.h"
#include "steer_lua.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *scene_lua =
    "local steer = require 'steer'\n"
    "local n, side, every, hunter_brain, prey_brain, threads = ...\n"
    "local w = steer.world{ width = side, height = side, edges = 'wrap', seed = 7, threads = threads }\n"
    "for i = 1, n do\n"
    "  local hunter = i % every == 0\n"
    "  local b = hunter and hunter_brain or prey_brain\n"
    "  w:spawn{ pos = { w:random() * side, w:random() * side },\n"
    "           tag = hunter and 'hunter' or 'prey', brain = b ~= '' and b or nil,\n"
    "           max_speed = hunter and 160 or 150 }\n"
    "end\n"
    "return w\n";

enum { BLOCKS = 7 };

typedef struct run_out {
    double ms, lo, hi;     // median block's ms per step, fastest, slowest
    long long checksum;
    double c_query_ns;     // ns an agent for st_world_nearest from C (when asked)
} run_out;

/// Every agent's nearest query as the lean brains make it, from C: the
/// median of 5 passes, in ns an agent.
static double time_c_queries(st_world *w, int every)
{
    int n = st_world_count(w, ST_TAG_ANY);
    st_agent_id *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return -1;
    int m = 0;
    for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && m < n;
         id = st_world_next(w, id, ST_TAG_ANY))
        ids[m++] = id;
    // Spawn order: the every-th agent is a hunter, the first a prey.
    int32_t prey = st_agent_tag(w, ids[0]), hunter = st_agent_tag(w, ids[every - 1]);
    double pass[6];
    volatile uint32_t sink = 0;
    for (int p = 0; p < 6; p++) { // pass 0 warms the grids
        double t0 = now();
        for (int k = 0; k < m; k++) {
            bool is_hunter = st_agent_tag(w, ids[k]) == hunter;
            st_query q = st_default_query(st_agent_pos(w, ids[k]), is_hunter ? 150.0 : 100.0);
            q.exclude = ids[k];
            q.tag = is_hunter ? prey : hunter;
            double d;
            sink += st_world_nearest(w, &q, &d).index;
        }
        pass[p] = (now() - t0) * 1e9 / m;
    }
    (void)sink;
    free(ids);
    qsort(pass + 1, 5, sizeof pass[0], cmp_double);
    return pass[3];
}

/// One world of the density rows in its own Lua state, stepped a block at
/// a time so the variants can take turns (see density_rows).
typedef struct variant {
    lua_State *L;
    int world;
    double block[BLOCKS];
} variant;

static void variant_close(variant *v)
{
    if (v->L) lua_close(v->L);
    v->L = NULL;
}

static bool variant_open(variant *v, const char *scripts, double side, int every, const char *hunter, const char *prey,
                         int threads)
{
    lua_State *L = luaL_newstate();
    v->L = L;
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/../tests/bench/brains/?.lua", scripts, scripts);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    if (luaL_loadstring(L, scene_lua) != LUA_OK) goto fail;
    lua_pushinteger(L, 10000);
    lua_pushnumber(L, side);
    lua_pushinteger(L, every);
    lua_pushstring(L, hunter);
    lua_pushstring(L, prey);
    lua_pushinteger(L, threads);
    if (lua_pcall(L, 6, 1, 0) != LUA_OK) goto fail;
    v->world = lua_gettop(L);
    return true;
fail:
    fprintf(stderr, "density brains: %s\n", lua_tostring(L, -1));
    variant_close(v);
    return false;
}

/// `steps` steps; the ms per step, or -1 on an error.
static double variant_steps(variant *v, int steps)
{
    double t0 = now();
    for (int i = 0; i < steps; i++) {
        lua_getfield(v->L, v->world, "step");
        lua_pushvalue(v->L, v->world);
        if (lua_pcall(v->L, 1, 0, 0) != LUA_OK) {
            fprintf(stderr, "density brains: %s\n", lua_tostring(v->L, -1));
            return -1;
        }
    }
    return (now() - t0) / steps * 1e3;
}

static long long variant_checksum(variant *v)
{
    lua_getfield(v->L, v->world, "checksum");
    lua_pushvalue(v->L, v->world);
    if (lua_pcall(v->L, 1, 1, 0) != LUA_OK) return 0;
    const char *hex = lua_tostring(v->L, -1); /* 16 hex digits */
    long long sum = hex ? (long long)strtoull(hex, NULL, 16) : 0;
    lua_pop(v->L, 1);
    return sum;
}

static run_out variant_out(variant *v)
{
    run_out o = {0};
    qsort(v->block, BLOCKS, sizeof v->block[0], cmp_double);
    o.ms = v->block[BLOCKS / 2];
    o.lo = v->block[0];
    o.hi = v->block[BLOCKS - 1];
    o.checksum = variant_checksum(v);
    return o;
}

void density_rows(const char *scripts, bool quick)
{
    const double area[4] = {14000, 3600, 900, 400};
    const int n = 10000, every = 10, steps = quick ? 4 : 10;
    printf("\nlean brains at four densities: %d agents, 1 hunter in %d, wrap; the seven worlds of a density take\n"
           "turns a block of %d steps at a time, median of %d blocks; the split from the 1-thread variants.\n"
           "lean (steer): the same brains with agent:nearest and agent:steer (no agent.world, no vec2 a call)\n",
           n, every, steps, BLOCKS);
    printf("%-22s %9s %7s %10s %12s  %s\n", "case", "area/agent", "threads", "ms/step", "ns/agent",
           "per agent: step + dispatch + lua + query (C query + binding), ns");
    // 0, 1: the full lean brains on 1 and 2 threads; 2: no brains; 3: empty
    // brains; 4: the lean brains with their query made once; 5, 6: the lean
    // brains with agent:nearest and agent:steer on 1 and 2 threads.
    enum { NV = 7 };
    const char *hb[NV] = {"lean_hunter", "lean_hunter", "", "empty", "lean_hunter_cached", "lean_hunter_steer",
                          "lean_hunter_steer"};
    const char *pb[NV] = {"lean_prey", "lean_prey", "", "empty", "lean_prey_cached", "lean_prey_steer",
                          "lean_prey_steer"};
    for (int d = 0; d < 4; d++) {
        double side = sqrt(n * area[d]);
        variant v[NV];
        memset(v, 0, sizeof v);
        bool ok = true;
        for (int k = 0; k < NV && ok; k++)
            ok = variant_open(&v[k], scripts, side, every, hb[k], pb[k], k == 1 || k == 6 ? 2 : 1);
        for (int k = 0; k < NV && ok; k++) ok = variant_steps(&v[k], 3) >= 0; // warm-up
        for (int b = 0; b < BLOCKS && ok; b++)
            for (int k = 0; k < NV && ok; k++) ok = (v[k].block[b] = variant_steps(&v[k], steps)) >= 0;
        if (ok) {
            run_out full[2] = {variant_out(&v[0]), variant_out(&v[1])}, r[3];
            for (int k = 0; k < 3; k++) r[k] = variant_out(&v[k + 2]);
            run_out fast[2] = {variant_out(&v[5]), variant_out(&v[6])};
            full[0].c_query_ns = time_c_queries(steer_lua_checkworld(v[0].L, v[0].world), every);
            for (int t = 1; t <= 2; t++) {
                const run_out *o = &full[t - 1];
                char extra[200];
                if (t == 1) {
                    double ns = 1e6 / n; // ms per step to ns per agent
                    double step = r[0].ms * ns, disp = (r[1].ms - r[0].ms) * ns, lua = (r[2].ms - r[1].ms) * ns,
                           query = (o->ms - r[2].ms) * ns;
                    snprintf(extra, sizeof extra, "%.0f + %.0f + %.0f + %.0f (%.0f + %.0f); blocks %.2f..%.2f", step,
                             disp, lua, query, o->c_query_ns, query - o->c_query_ns, o->lo, o->hi);
                } else {
                    snprintf(extra, sizeof extra, "blocks %.2f..%.2f; checksum %s 1 thread", o->lo, o->hi,
                             o->checksum == full[0].checksum ? "==" : "!=");
                }
                char what[40];
                snprintf(what, sizeof what, "lean brains 1/%.0f", area[d]);
                printf("%-22s %9.0f %7d %10.3f %12.0f  %s\n", what, area[d], t, o->ms, o->ms * 1e6 / n, extra);
            }
            for (int t = 1; t <= 2; t++) {
                const run_out *o = &fast[t - 1];
                char what[40];
                snprintf(what, sizeof what, "lean (steer) 1/%.0f", area[d]);
                printf("%-22s %9.0f %7d %10.3f %12.0f  blocks %.2f..%.2f; checksum %s lean, 1 thread\n", what, area[d], t,
                       o->ms, o->ms * 1e6 / n, o->lo, o->hi, o->checksum == full[0].checksum ? "==" : "!=");
            }
        }
        for (int k = 0; k < NV; k++) variant_close(&v[k]);
    }
}
