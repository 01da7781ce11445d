/*
 * test_reload_fault.c — a hot reload that runs out of memory part way
 * leaves the module as it was. A C host whose Lua allocator fails from the
 * k-th allocation on (once armed): for k = 1, 2, 3, ... a reload of a
 * module whose new version changes several functions, a class, a nested
 * table, an upvalue and the brains' update is tried until one succeeds.
 * After each failed one the module must be the old one, whole and working
 * (its functions called, its state kept, every brain's self the same table
 * and stepping with the old update); after the one that succeeds, the new
 * one, whole. A mixture of the two is the failure this test is for. The
 * reload is the host's (steer_lua_reload_info): steer.reload's report table
 * is made after the reload, when there is nothing left to undo.
 */
#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "steer_lua.h"
#include "test_util.h"

/* ---- an allocator that fails on request ---- */

typedef struct fault_alloc {
    long count;   /* allocations (growing calls) since arming */
    long fail_at; /* 0: never; k: the k-th and every later one fail */
    int armed;
} fault_alloc;

/* From the k-th on, not just the k-th: Lua 5.4 retries a failed allocation
 * after an emergency collection, so a single failure would go unseen. */
static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    fault_alloc *f = ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (f->armed && (ptr == NULL || nsize > osize) && ++f->count >= f->fail_at)
        return NULL;
    return realloc(ptr, nsize);
}

/* ---- the module, in two versions ---- */

static const char *const MOD_V1 =
    "local M = {}\n"
    "local count = 0\n"
    "local scale = 2\n"
    "M.config = { speed = 1, old_only = 1, inner = { tag = 'v1', list = { 1, 2, 3 } } }\n"
    "M.Point = {}\n"
    "M.Point.__index = M.Point\n"
    "function M.Point.len(p) return p.x + p.y end\n"
    "function M.bump() count = count + 1; return count end\n"
    "function M.area(r) return r * r * scale end\n"
    "function M.name() return 'v1' end\n"
    "function M.spawn(self, a) self.n = 0; self.kind = 'v1'; self.say = M.name end\n"
    "function M.update(self, a, dt) self.n = self.n + 1 end\n"
    "return M\n";

/* Changed: name, bump (its count joined to the old one), Point.len,
 * update; scale 2 -> 3; inner.tag, a field added to inner, old_only gone;
 * a function added. spawn and the list are the same. */
static const char *const MOD_V2 =
    "local M = {}\n"
    "local count = 0\n"
    "local scale = 3\n"
    "M.config = { speed = 1, inner = { tag = 'v2', extra = true, list = { 1, 2, 3 } } }\n"
    "M.Point = {}\n"
    "M.Point.__index = M.Point\n"
    "function M.Point.len(p) return (p.x + p.y) * 10 end\n"
    "function M.bump() count = count + 1; return count, 'v2' end\n"
    "function M.area(r) return r * r * scale end\n"
    "function M.name() return 'v2' end\n"
    "function M.added() return 'added' end\n"
    "function M.spawn(self, a) self.n = 0; self.kind = 'v1'; self.say = M.name end\n"
    "function M.update(self, a, dt) self.n = self.n + 10 end\n"
    "return M\n";

static const char *mod_source;

/* package.searchers' first entry: module "mod" from mod_source. */
static int searcher(lua_State *L)
{
    if (strcmp(luaL_checkstring(L, 1), "mod") != 0) {
        lua_pushliteral(L, "\n\tnot the test's module");
        return 1;
    }
    if (luaL_loadbuffer(L, mod_source, strlen(mod_source), "=mod") != LUA_OK)
        return lua_error(L);
    lua_pushliteral(L, ":memory:");
    return 2;
}

static const char *const SETUP =
    "table.insert(package.searchers, 1, ...)\n"
    "local steer = require 'steer'\n"
    "local M = require 'mod'\n"
    "local w = steer.world { width = 200, height = 200 }\n"
    "local agents, selves = {}, {}\n"
    "for i = 1, 3 do\n"
    "  agents[i] = w:spawn { pos = { 40 * i, 100 }, brain = M }\n"
    "  selves[i] = agents[i].self\n"
    "end\n"
    "REF = { M = M, config = M.config, inner = M.config.inner, Point = M.Point,\n"
    "        pt = setmetatable({ x = 1, y = 2 }, M.Point),\n"
    "        w = w, agents = agents, selves = selves, bumps = 0 }\n"
    "return M.name\n";

/* Says which version the module is ("v1", "v2", or "mixed: ..." naming
 * what disagrees) and checks what both must keep ("broken: ..."): the
 * tables' identities, the count, every brain's self. Calls the module's
 * functions and steps the world once. Its argument: v1's M.name, kept
 * where a reload's sweep does not look (the registry), since the sweep
 * points every reference it finds at the new function. */
static const char *const PROBE =
    "local OLD_NAME = ...\n"
    "local R, M = REF, package.loaded.mod\n"
    "local bad, votes = {}, {}\n"
    "local function must(c, what) if not c then bad[#bad + 1] = what end end\n"
    "local function vote(what, v1, v2) votes[#votes + 1] = { what, v1 and 'v1' or v2 and 'v2' or '?' } end\n"
    "must(M == R.M, 'module table replaced')\n"
    "must(M.config == R.config and M.config.inner == R.inner, 'nested tables replaced')\n"
    "must(M.Point == R.Point and getmetatable(R.pt) == R.Point, 'class table replaced')\n"
    "must(#M.config.inner.list == 3 and M.config.speed == 1, 'unchanged data lost')\n"
    "vote('name', M.name() == 'v1', M.name() == 'v2')\n"
    "vote('name function', M.name == OLD_NAME, M.name ~= OLD_NAME)\n"
    "vote('area (upvalue scale)', M.area(3) == 18, M.area(3) == 27)\n"
    "vote('inner.tag', M.config.inner.tag == 'v1', M.config.inner.tag == 'v2')\n"
    "vote('inner.extra', M.config.inner.extra == nil, M.config.inner.extra == true)\n"
    "vote('old_only', M.config.old_only == 1, M.config.old_only == nil)\n"
    "vote('added', M.added == nil, M.added and M.added() == 'added')\n"
    "vote('Point.len', R.pt:len() == 3, R.pt:len() == 30)\n"
    "local c, tag = M.bump()\n"
    "must(c == R.bumps + 1, 'count lost: ' .. tostring(c) .. ' after ' .. R.bumps)\n"
    "R.bumps = R.bumps + 1\n"
    "vote('bump', tag == nil, tag == 'v2')\n"
    "local before = {}\n"
    "for i, a in ipairs(R.agents) do\n"
    "  must(a.self == R.selves[i] and a.self.kind == 'v1', 'self ' .. i .. ' replaced')\n"
    "  vote('self.say ' .. i, a.self.say == OLD_NAME, a.self.say == M.name and M.name ~= OLD_NAME)\n"
    "  before[i] = a.self.n\n"
    "end\n"
    "R.w:step()\n"
    "for i, a in ipairs(R.agents) do\n"
    "  vote('update ' .. i, a.self.n - before[i] == 1, a.self.n - before[i] == 10)\n"
    "end\n"
    "if #bad > 0 then return 'broken: ' .. table.concat(bad, ', ') end\n"
    "local first, mixed = votes[1][2], {}\n"
    "for _, v in ipairs(votes) do mixed[#mixed + 1] = v[1] .. '=' .. v[2] end\n"
    "for _, v in ipairs(votes) do\n"
    "  if v[2] ~= first or first == '?' then return 'mixed: ' .. table.concat(mixed, ', ') end\n"
    "end\n"
    "return first\n";

/* Runs the probe (kept in the registry) and copies its verdict to out. */
static void probe(lua_State *L, char *out, size_t n)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "test.probe");
    lua_getfield(L, LUA_REGISTRYINDEX, "test.old_name");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK)
        snprintf(out, n, "probe failed: %s", lua_tostring(L, -1));
    else
        snprintf(out, n, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
}

static lua_State *new_host(fault_alloc *f)
{
    lua_State *L = lua_newstate(alloc, f);
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    mod_source = MOD_V1;
    int ok = luaL_loadstring(L, SETUP) == LUA_OK;
    if (ok) {
        lua_pushcfunction(L, searcher);
        ok = lua_pcall(L, 1, 1, 0) == LUA_OK;
    }
    if (ok)
        lua_setfield(L, LUA_REGISTRYINDEX, "test.old_name");
    ok = ok && luaL_loadstring(L, PROBE) == LUA_OK;
    if (!CHECK(ok, "setup: %s", lua_tostring(L, -1))) {
        lua_close(L);
        return NULL;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "test.probe");
    return L;
}

/* One reload with the allocator failing from the k-th allocation on.
 * Returns whether it succeeded; a failure's message goes to msg. */
static bool reload_failing_at(lua_State *L, fault_alloc *f, long k, char *msg, size_t n)
{
    steer_reload_info info;
    f->count = 0;
    f->fail_at = k;
    f->armed = 1;
    bool ok = steer_lua_reload_info(L, "mod", &info);
    f->armed = 0;
    if (!ok) {
        snprintf(msg, n, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return ok;
}

static void reload_out_of_memory_keeps_the_old_module(void)
{
    fault_alloc f = {0, 0, 0};
    lua_State *L = new_host(&f);
    if (L == NULL)
        return;
    char verdict[512], msg[256];
    probe(L, verdict, sizeof verdict);
    CHECK(strcmp(verdict, "v1") == 0, "before any reload: %s", verdict);

    mod_source = MOD_V2;
    long k, failed = 0;
    for (k = 1; k <= 100000; k++) {
        bool ok = reload_failing_at(L, &f, k, msg, sizeof msg);
        probe(L, verdict, sizeof verdict);
        if (ok)
            break;
        failed++;
        CHECK(strstr(msg, "memory") != NULL, "k = %ld: a memory error is reported: %s", k, msg);
        if (!CHECK(strcmp(verdict, "v1") == 0, "k = %ld: after a failed reload (%s): %s", k, msg, verdict))
            break;
    }
    printf("  %ld reloads failed, each leaving the old module; the one failing from allocation %ld on succeeded\n",
           failed, k);
    CHECK(failed > 0, "the reload allocates: failures were tried");
    CHECK(k <= 100000 && strcmp(verdict, "v2") == 0, "the reload that succeeds gives the new module: %s", verdict);
    lua_close(L);
}

int main(void)
{
    RUN(reload_out_of_memory_keeps_the_old_module);
    return tu_summary();
}
