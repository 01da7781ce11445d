/*
 * fuzz_lua.c — libFuzzer target over the Lua bindings (luaopen_steer).
 *
 * Each input is a program run in a fresh lua_State: a pool of 16 values
 * (worlds, agents, removed agents, vec2s, paths, anything a call returned)
 * and a sequence of calls on them — every world, agent, vec2 and path
 * method, field reads and writes, steer.world/path/vec2, steps with brains
 * that misbehave (remove themselves, spawn, step their world, throw tables,
 * recurse), iteration with removals, steer.reload of a module whose versions
 * fail in every way, garbage collection with agents still referenced, the
 * app's C entry points — with hostile arguments: nan, inf, huge numbers,
 * wrong types, removed agents, tables in place of vectors, strings, nested
 * tables, tables whose metamethods throw. And the app's bounded string
 * functions (steer_host_push_bounded) with hostile patterns: malformed ones,
 * random bytes, random pattern items, backtracking bombs over long subjects,
 * run budgeted; whenever one finishes within the budget its result must be
 * stock Lua's.
 *
 * Every call runs through lua_pcall: an error is a fine answer. What must
 * never happen: a crash, a sanitizer report, a leak at lua_close, a live
 * agent whose field reads raise or read back non-finite, or an API call
 * that returns a non-finite number or vec2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "steer_host.h"
#include "steer_lua.h"
#include "fuzz_input.h"

#define POOL 16
#define MAX_OPS 160

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "fuzz_lua: %s:%d: ", __FILE__, __LINE__);                  \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
        abort();                                                                   \
    } while (0)

/* The Lua half: brains that misbehave, a module searcher for reloads,
 * operators, and CHECK, which reads back every live agent it can reach. */
static const char prelude[] =
    "local steer = ...\n"
    "STEER = steer\n"
    "local STOCK = {find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub}\n"
    "local function pack(...) return {n = select('#', ...), ...} end\n"
    "local function gm(f) return function(s, p, init)\n"
    "  local it, out = f(s, p, init), {}\n"
    "  for i = 1, 50 do local r = pack(it()); if r[1] == nil then break end\n"
    "    for k = 1, r.n do out[#out + 1] = tostring(r[k]) end out[#out + 1] = '|' end\n"
    "  return table.concat(out, ',') end end\n"
    "local BFN = {find = BOUNDED.find, match = BOUNDED.match, gmatch = gm(BOUNDED.gmatch), gsub = BOUNDED.gsub}\n"
    "local SFN = {find = STOCK.find, match = STOCK.match, gmatch = gm(STOCK.gmatch), gsub = STOCK.gsub}\n"
    "-- the bounded function; when it finished within the budget, the stock one\n"
    "-- must agree (same values, or the same error)\n"
    "function STRCALL(name, compare, s, p, init, repl)\n"
    "  local x, y = init, repl\n"
    "  if name == 'gsub' then x, y = repl, init elseif name == 'find' then y = repl == 'x' end\n"
    "  local b = pack(pcall(BFN[name], s, p, x, y))\n"
    "  if not compare or (not b[1] and tostring(b[2]):find('budget', 1, true)) then return end\n"
    "  local a = pack(pcall(SFN[name], s, p, x, y))\n"
    "  -- argument errors name the function as found ('string.gsub' or '?')\n"
    "  if not a[1] then a[2] = tostring(a[2]):gsub(\"to '[^']*'\", 'to ?') end\n"
    "  if not b[1] then b[2] = tostring(b[2]):gsub(\"to '[^']*'\", 'to ?') end\n"
    "  local same = a.n == b.n\n"
    "  for i = 1, a.n do if a[i] ~= b[i] or math.type(a[i]) ~= math.type(b[i]) then same = false end end\n"
    "  if not same then\n"
    "    local function show(r) local t = {} for i = 1, r.n do t[i] = tostring(r[i]) end return table.concat(t, ', ') end\n"
    "    error(string.format('FUZZDIFF %s(%q, %q): stock %s, bounded %s', name, s, p, show(a), show(b)), 0)\n"
    "  end\n"
    "end\n"
    "REPLS = {'%0', '%1', '<%2>', '%%', '%', 'x', function(a, ...) return a end, {a = 'A', b = false}}\n"
    "local nan, inf = 0/0, math.huge\n"
    "local W = steer.world{}\n"
    "WORLD_MT = debug.getmetatable(W)\n"
    "AGENT_MT = debug.getmetatable(W:spawn{})\n"
    "VEC_MT = debug.getmetatable(steer.vec2(1, 2))\n"
    "PATH_MT = debug.getmetatable(steer.path{{0, 0}})\n"
    "REF_WORLD, REF_AGENT = W, W:spawn{}\n"
    "local function errtable() error({code = 42}) end\n"
    "local function errmeta() error(setmetatable({}, {__tostring = function() error('nested') end})) end\n"
    "local function deep(n) return deep(n + 1) + 1 end\n"
    "FUNCS = {\n"
    "  function() return nan end, errtable, errmeta, function(...) return ... end,\n"
    "  function() return {x = 1, y = 2} end, function() return inf, -inf end,\n"
    "  function() deep(1) end,\n"
    "}\n"
    "THROWING = setmetatable({}, {__index = function() error({thrown = 'table'}) end,\n"
    "                             __len = function() error('len') end})\n"
    "HUGE_LEN = setmetatable({}, {__len = function() return math.maxinteger end})\n"
    "NAN_LEN = setmetatable({}, {__len = function() return 0/0 end})\n"
    "BIG = string.rep(string.rep('x', 1024), 1024)\n"
    "local keep = {}\n"
    "BRAINS = {\n"
    "  {update = function(self, a, dt) a:seek({100, 100}); a:wander(0.5) end},\n"
    "  {update = function(self, a) a.world:remove(a) end},\n"
    "  {update = function(self, a) if a.world:count() < 60 then a.world:spawn{pos = a.pos, brain = BRAINS[1]} end end},\n"
    "  {update = function(self, a) a.world:step() end},\n"
    "  {update = errtable},\n"
    "  {update = errmeta},\n"
    "  {update = function() deep(1) end},\n"
    "  {update = function(self, a) a.vel = {1e308, 1e308}; a.max_speed = 1e308; a.mass = 5e-324;\n"
    "                               a.pos = {-1e308, 1e308}; a:apply({1e308, -1e308}, 1e308) end},\n"
    "  {update = function(self, a) keep[#keep + 1] = a; if #keep > 3 then local b = table.remove(keep, 1);\n"
    "                               if b.alive then b.world:remove(b) else b:seek({0, 0}) end end end},\n"
    "  {update = function(self, a) for b in a.world:agents() do a.world:remove(b) end end},\n"
    "  {update = function(self, a) collectgarbage() end},\n"
    "  setmetatable({}, {__index = {update = function(self, a) self.n = (self.n or 0) + 1 end}}),\n"
    "  {update = function(self, a) steer.reload('fuzzbrain') end},\n"
    "  {spawn = errtable, update = function(self, a) a.behaviors = {{'flock'}, {'wander'}, {'contain'}} end},\n"
    "  {update = function(self, a) local o = steer.world{}; local b = o:spawn{brain = BRAINS[4]}; o:step() end},\n"
    "  {draw = function(self, a, gfx) a:seek(gfx) end, update = function(self, a) a:flock{radius = 1e308} end},\n"
    "  'fuzzbrain',\n"
    "}\n"
    "FUZZ_VERSION = 0\n"
    "table.insert(package.searchers, 2, function(name)\n"
    "  if name ~= 'fuzzbrain' then return '\\n\\tnot fuzzbrain' end\n"
    "  local v = FUZZ_VERSION\n"
    "  if v == 1 then error('fuzzbrain.lua:1: unexpected symbol near x') end\n"
    "  return function()\n"
    "    if v == 2 then error('fuzzbrain.lua:3: runtime error in the module body') end\n"
    "    if v == 3 then return 42 end\n"
    "    local M = {}\n"
    "    function M.spawn(self, a) self.n = 0 end\n"
    "    function M.update(self, a, dt) self.n = (self.n or 0) + 1; a:wander()\n"
    "      if v == 4 and self.n % 3 == 0 then error({tbl = true}) end end\n"
    "    function M.reload(self, a)\n"
    "      if v == 5 then a.world:remove(a) elseif v == 6 then a.world:spawn{pos = a.pos}\n"
    "      elseif v == 7 then steer.reload('fuzzbrain') elseif v == 8 then error('reload failed') end\n"
    "    end\n"
    "    function M.draw(self, a, gfx) if v == 4 then error('draw') end end\n"
    "    return M\n"
    "  end, 'fuzzbrain.lua'\n"
    "end)\n"
    "OPS = {\n"
    "  function(a, b) return a + b end, function(a, b) return a - b end, function(a, b) return a * b end,\n"
    "  function(a, b) return a / b end, function(a) return -a end, function(a, b) return a == b end,\n"
    "  function(a) return tostring(a) end, function(a) return #a end, function(a, b) return a .. b end,\n"
    "  function(a, b) return a < b end, function(a) return a() end, function(a, b) return a[b] end,\n"
    "  function(a) for k, v in pairs(a) do end end, function(a) return a:unpack() end,\n"
    "}\n"
    "function ITER(w, mode)\n"
    "  local n = 0\n"
    "  for a in w:agents() do\n"
    "    n = n + 1\n"
    "    if mode == 1 then w:remove(a)\n"
    "    elseif mode == 2 then for b in w:agents() do if b ~= a then w:remove(b) break end end\n"
    "    elseif mode == 3 and n < 40 then w:spawn{pos = {n, n}}\n"
    "    elseif mode == 4 and n < 40 then w:remove(a); w:spawn{pos = {n, n}} end\n"
    "    if n > 5000 then return 'iteration does not end' end\n"
    "  end\n"
    "  return n\n"
    "end\n"
    "local function finite(x) return type(x) == 'number' and x == x and x ~= inf and x ~= -inf end\n"
    "local function vfinite(v) return debug.getmetatable(v) == VEC_MT and finite(v.x) and finite(v.y) end\n"
    "local vfields = {'pos', 'vel', 'heading', 'side', 'force'}\n"
    "local nfields = {'speed', 'max_speed', 'max_force', 'mass', 'radius', 'wander_distance',\n"
    "                 'wander_radius', 'wander_jitter'}\n"
    "local function check_agent(a, where)\n"
    "  if not a.alive then return end\n"
    "  for _, f in ipairs(vfields) do\n"
    "    if not vfinite(a[f]) then return where .. ': agent ' .. a.id .. ' field ' .. f .. ' = ' .. tostring(a[f]) end\n"
    "  end\n"
    "  for _, f in ipairs(nfields) do\n"
    "    if not finite(a[f]) then return where .. ': agent ' .. a.id .. ' field ' .. f .. ' = ' .. tostring(a[f]) end\n"
    "  end\n"
    "  local _ = a.tag, a.color, a.combine, a.self, a.behaviors, a.world\n"
    "end\n"
    "function CHECK(pool)\n"
    "  for i = 1, 16 do\n"
    "    local v = pool[i]\n"
    "    local mt = debug.getmetatable(v)\n"
    "    if mt == AGENT_MT then local e = check_agent(v, 'pool ' .. i); if e then return e end\n"
    "    elseif mt == VEC_MT then if not vfinite(v) then return 'pool ' .. i .. ': vec2 ' .. tostring(v) end\n"
    "    elseif mt == WORLD_MT then\n"
    "      for _, f in ipairs({'time', 'dt', 'width', 'height'}) do\n"
    "        if not finite(v[f]) then return 'world field ' .. f .. ' = ' .. tostring(v[f]) end\n"
    "      end\n"
    "      local n = 0\n"
    "      for a in v:agents() do\n"
    "        n = n + 1\n"
    "        local e = check_agent(a, 'world ' .. i); if e then return e end\n"
    "        if n > 5000 then return 'iteration does not end' end\n"
    "      end\n"
    "      if n ~= v:count() then return 'count ' .. v:count() .. ' but iterated ' .. n end\n"
    "    end\n"
    "  end\n"
    "end\n";

/* whether the budget is on (op 17 turns it off and on) */
static bool sl_budget_on;

/* ---- argument kinds ---- */

enum {
    K_ANY, K_NUM, K_POINT, K_TARGET, K_AGENT, K_TAG, K_DEF, K_BEHAVIORS, K_AGENTLIST, K_FLOCK,
    K_PATH, K_DECEL, K_QOPTS, K_INT, K_WORLDDEF, K_PATHDEF, K_STRING, K_OBSTDEF, K_RECT, K_COUNT
};

static const char *const vocab[] = {
    "pos", "vel", "heading", "max_speed", "max_force", "mass", "radius", "tag", "color", "combine",
    "wander_distance", "wander_radius", "wander_jitter", "behaviors", "brain", "x", "y", "weight",
    "target", "panic_radius", "slowing_radius", "threat_radius", "deceleration", "leader", "offset",
    "a", "b", "threat", "path", "fov", "separation", "alignment", "cohesion", "separation_radius",
    "width", "height", "edges", "seed", "dt", "cell_size", "threads", "loop", "on_error", "id",
    "alive", "world", "self", "speed", "side", "force", "stamina", "__index", "seek", "flock",
    "wander", "prey", "hunter", "wrap", "bounce", "none", "sum", "priority", "slow", "fast", "", "1",
    "avoidance", "orca", "avoid_range", "avoid_priority", "avoid_layer", "avoid_mask", "locked",
    "avoid_horizon", "avoid_max_neighbors", "contacts", "rect", "polygon", "polyline", "points", "kind",
    "turn_rate", "mode", "predict", "waypoints", "distance", "zone", "time",
};
#define N_VOCAB (sizeof vocab / sizeof vocab[0])

static const char *const behavior_names[] = {
    "seek", "flee", "arrive", "pursue", "evade", "intercept", "wander", "separate", "align", "cohere",
    "flock", "avoid_obstacles", "avoid_walls", "contain", "follow_path", "offset_pursue", "interpose",
    "hide", "avoid_agents", "face", "look_where_going", "match_velocity", "follow_leader", "queue", "bogus",
};
#define N_BEHAVIORS (sizeof behavior_names / sizeof behavior_names[0])

static const char *const entry_fields[] = {
    "weight", "target", "panic_radius", "slowing_radius", "threat_radius", "deceleration", "leader",
    "offset", "a", "b", "threat", "path", "radius", "fov", "tag", "separation", "alignment", "cohesion",
    "separation_radius", "rect", "mode", "predict", "distance", "zone", "time", "offset",
};
static const int entry_kinds[] = {
    K_NUM, K_TARGET, K_NUM, K_NUM, K_NUM, K_DECEL, K_AGENT, K_POINT, K_AGENT, K_AGENT, K_AGENT, K_PATH,
    K_NUM, K_NUM, K_TAG, K_NUM, K_NUM, K_NUM, K_NUM, K_RECT, K_STRING, K_NUM, K_NUM, K_NUM, K_NUM, K_NUM,
};
#define N_ENTRY_FIELDS (sizeof entry_fields / sizeof entry_fields[0])

typedef struct fz_lua {
    lua_State *L;
    fz_in *in;
    int pool; /* stack index of the pool table */
} fz_lua;

static void push_value(fz_lua *z, int depth);
static void push_kind(fz_lua *z, int kind, int depth);

static void push_pool(fz_lua *z)
{
    lua_rawgeti(z->L, z->pool, 1 + fz_pick(z->in, POOL));
}

/* The pool value at a random slot when it has this metatable, else nil. */
static void push_pool_typed(fz_lua *z, const char *mt_global)
{
    lua_State *L = z->L;
    int start = (int)fz_pick(z->in, POOL);
    for (int k = 0; k < POOL; k++) {
        lua_rawgeti(L, z->pool, 1 + (start + k) % POOL);
        if (lua_getmetatable(L, -1)) {
            lua_getglobal(L, mt_global);
            int same = lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (same) return;
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
}

static void push_number(fz_lua *z)
{
    lua_State *L = z->L;
    if (fz_pick(z->in, 6) == 0) {
        static const lua_Integer ints[] = {0, 1, -1, 2, 3, 255, 256, 1024, LUA_MAXINTEGER, LUA_MININTEGER,
                                           (lua_Integer)1 << 31, (lua_Integer)1 << 53};
        lua_pushinteger(L, ints[fz_pick(z->in, sizeof ints / sizeof ints[0])]);
    } else {
        lua_pushnumber(L, fz_double(z->in));
    }
}

static void push_string(fz_lua *z)
{
    lua_State *L = z->L;
    unsigned k = fz_pick(z->in, 16);
    if (k == 0) lua_getglobal(L, "BIG");
    else if (k == 1) lua_pushlstring(L, "a\0b", 3);
    else if (k == 2) lua_pushstring(L, behavior_names[fz_pick(z->in, N_BEHAVIORS)]);
    else lua_pushstring(L, vocab[fz_pick(z->in, N_VOCAB)]);
}

static void push_point(fz_lua *z, int depth)
{
    lua_State *L = z->L;
    switch (fz_pick(z->in, 6)) {
    case 0: steer_lua_pushvec2(L, st_v2(fz_finite(z->in), fz_finite(z->in))); break;
    case 1:
        lua_createtable(L, 0, 2);
        push_number(z);
        lua_setfield(L, -2, "x");
        push_number(z);
        lua_setfield(L, -2, "y");
        break;
    case 2: /* a table with something odd in it */
        lua_createtable(L, 2, 0);
        push_value(z, depth + 1);
        lua_rawseti(L, -2, 1);
        push_value(z, depth + 1);
        lua_rawseti(L, -2, 2);
        break;
    default:
        lua_createtable(L, 2, 0);
        push_number(z);
        lua_rawseti(L, -2, 1);
        push_number(z);
        lua_rawseti(L, -2, 2);
        break;
    }
}

static void push_table(fz_lua *z, int depth)
{
    lua_State *L = z->L;
    int n = (int)fz_pick(z->in, 5);
    lua_createtable(L, n, n);
    for (int i = 0; i < n; i++) {
        if (fz_pick(z->in, 3) == 0) {
            push_value(z, depth + 1);
            lua_rawseti(L, -2, i + 1);
        } else {
            push_value(z, depth + 1);
            lua_setfield(L, -2, vocab[fz_pick(z->in, N_VOCAB)]);
        }
    }
}

static void push_value(fz_lua *z, int depth)
{
    lua_State *L = z->L;
    unsigned k = fz_pick(z->in, depth > 2 ? 6 : 16);
    switch (k) {
    case 0: lua_pushnil(L); break;
    case 1: lua_pushboolean(L, fz_pick(z->in, 2)); break;
    case 2: case 3: push_number(z); break;
    case 4: push_string(z); break;
    case 5: push_pool(z); break;
    case 6: push_point(z, depth); break;
    case 7: push_table(z, depth); break;
    case 8: {
        lua_getglobal(L, "FUNCS");
        lua_rawgeti(L, -1, 1 + fz_pick(z->in, 7));
        lua_remove(L, -2);
        break;
    }
    case 9: {
        static const char *const odd[] = {"THROWING", "HUGE_LEN", "NAN_LEN", "REF_WORLD", "REF_AGENT", "STEER"};
        lua_getglobal(L, odd[fz_pick(z->in, 6)]);
        break;
    }
    case 10: lua_newuserdatauv(L, fz_pick(z->in, 2) * 16, 0); break;
    case 11: lua_pushlightuserdata(L, (void *)z); break;
    case 12: lua_newthread(L); break;
    default: push_kind(z, 1 + (int)fz_pick(z->in, K_COUNT - 1), depth + 1); break;
    }
}

static void push_behaviors(fz_lua *z, int depth)
{
    lua_State *L = z->L;
    int n = (int)fz_pick(z->in, 5);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        if (fz_pick(z->in, 8) == 0) {
            push_value(z, depth + 1);
        } else if (fz_pick(z->in, 6) == 0) {
            lua_pushstring(L, behavior_names[fz_pick(z->in, N_BEHAVIORS)]);
        } else {
            lua_createtable(L, 1, 4);
            lua_pushstring(L, behavior_names[fz_pick(z->in, N_BEHAVIORS)]);
            lua_rawseti(L, -2, 1);
            unsigned fields = fz_u16(z->in) | (unsigned)fz_u8(z->in) << 16;
            for (size_t f = 0; f < N_ENTRY_FIELDS; f++) {
                if (!(fields & (1u << f)) || fz_pick(z->in, 3)) continue;
                push_kind(z, entry_kinds[f], depth + 1);
                lua_setfield(L, -2, entry_fields[f]);
            }
        }
        lua_rawseti(L, -2, i + 1);
    }
}

/* A value of the kind an argument wants, hostile now and then. */
static void push_kind(fz_lua *z, int kind, int depth)
{
    lua_State *L = z->L;
    if (depth > 4 || fz_pick(z->in, 10) == 0) {
        if (depth > 4) lua_pushnil(L);
        else push_value(z, depth + 1);
        return;
    }
    switch (kind) {
    case K_NUM: push_number(z); break;
    case K_INT: lua_pushinteger(L, (lua_Integer)(int16_t)fz_u16(z->in)); break;
    case K_POINT: push_point(z, depth); break;
    case K_TARGET:
        if (fz_pick(z->in, 2)) push_pool_typed(z, "AGENT_MT");
        else push_point(z, depth);
        break;
    case K_AGENT: push_pool_typed(z, "AGENT_MT"); break;
    case K_PATH: push_pool_typed(z, "PATH_MT"); break;
    case K_TAG: {
        static const char *const tags[] = {"prey", "hunter", "", "x"};
        if (fz_pick(z->in, 5) == 0) lua_pushnil(L);
        else lua_pushstring(L, tags[fz_pick(z->in, 4)]);
        break;
    }
    case K_STRING: push_string(z); break;
    case K_DECEL: {
        static const char *const d[] = {"slow", "normal", "fast", "linear"};
        lua_pushstring(L, d[fz_pick(z->in, 4)]);
        break;
    }
    case K_AGENTLIST: {
        int n = (int)fz_pick(z->in, 6);
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            push_pool_typed(z, "AGENT_MT");
            lua_rawseti(L, -2, i + 1);
        }
        break;
    }
    case K_FLOCK:
    case K_QOPTS: {
        static const char *const f[] = {"radius", "fov", "tag", "separation", "alignment", "cohesion",
                                        "separation_radius", "weight", "heading", "bogus"};
        static const int fk[] = {K_NUM, K_NUM, K_TAG, K_NUM, K_NUM, K_NUM, K_NUM, K_NUM, K_POINT, K_NUM};
        lua_createtable(L, 0, 4);
        unsigned bits = fz_u16(z->in);
        for (int i = 0; i < 10; i++) {
            if (!(bits & (1u << i)) || fz_pick(z->in, 2)) continue;
            push_kind(z, fk[i], depth + 1);
            lua_setfield(L, -2, f[i]);
        }
        break;
    }
    case K_BEHAVIORS: push_behaviors(z, depth); break;
    case K_DEF: {
        static const char *const f[] = {"pos", "vel", "heading", "max_speed", "max_force", "mass", "radius",
                                        "tag", "color", "combine", "wander_distance", "wander_radius",
                                        "wander_jitter", "behaviors", "brain", "stamina"};
        static const int fk[] = {K_POINT, K_POINT, K_POINT, K_NUM, K_NUM, K_NUM, K_NUM, K_TAG, K_ANY, K_ANY,
                                 K_NUM, K_NUM, K_NUM, K_BEHAVIORS, K_ANY, K_ANY};
        lua_createtable(L, 0, 8);
        unsigned bits = fz_u16(z->in);
        for (int i = 0; i < 16; i++) {
            if (!(bits & (1u << i)) || fz_pick(z->in, 2)) continue;
            if (i == 14) { /* brain */
                lua_getglobal(L, "BRAINS");
                lua_rawgeti(L, -1, 1 + fz_pick(z->in, 17));
                lua_remove(L, -2);
            } else if (i == 8) { /* color */
                lua_createtable(L, 3, 0);
                for (int c = 0; c < 3; c++) {
                    push_number(z);
                    lua_rawseti(L, -2, c + 1);
                }
            } else if (i == 9) {
                lua_pushstring(L, fz_pick(z->in, 2) ? "sum" : "priority");
            } else {
                push_kind(z, fk[i], depth + 1);
            }
            lua_setfield(L, -2, f[i]);
        }
        break;
    }
    case K_WORLDDEF: {
        static const char *const f[] = {"width", "height", "edges", "seed", "dt", "cell_size", "threads"};
        lua_createtable(L, 0, 7);
        unsigned bits = fz_u8(z->in);
        for (int i = 0; i < 7; i++) {
            if (!(bits & (1u << i))) continue;
            if (i == 2) {
                static const char *const e[] = {"wrap", "bounce", "none", "torus"};
                lua_pushstring(L, e[fz_pick(z->in, 4)]);
            } else if (i == 6) {
                lua_pushinteger(L, fz_pick(z->in, 3));
            } else {
                push_number(z);
            }
            lua_setfield(L, -2, f[i]);
        }
        break;
    }
    case K_OBSTDEF: {
        static const char *const shapes[] = {"polygon", "polyline"};
        lua_createtable(L, 0, 2);
        unsigned k = fz_pick(z->in, 4);
        if (k < 2) {
            int n = (int)fz_pick(z->in, 7);
            lua_createtable(L, n, 0);
            for (int i = 0; i < n; i++) {
                push_point(z, depth + 1);
                lua_rawseti(L, -2, i + 1);
            }
            lua_setfield(L, -2, shapes[k]);
        } else {
            push_point(z, depth + 1);
            lua_setfield(L, -2, "pos");
            if (k == 2 || fz_pick(z->in, 2)) {
                push_number(z);
                lua_setfield(L, -2, "radius");
            }
        }
        break;
    }
    case K_RECT: {
        lua_createtable(L, 4, 0);
        int n = 3 + (int)fz_pick(z->in, 3);
        for (int i = 0; i < n; i++) {
            push_number(z);
            lua_rawseti(L, -2, i + 1);
        }
        break;
    }
    case K_PATHDEF: {
        int n = (int)fz_pick(z->in, 5);
        lua_createtable(L, n, 2);
        for (int i = 0; i < n; i++) {
            push_point(z, depth + 1);
            lua_rawseti(L, -2, i + 1);
        }
        if (fz_pick(z->in, 2)) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, "loop");
        }
        if (fz_pick(z->in, 2)) {
            push_number(z);
            lua_setfield(L, -2, "radius");
        }
        break;
    }
    default: push_value(z, depth + 1); break;
    }
}

/* ---- the calls ---- */

typedef struct sig {
    const char *name;
    int kinds[4];
} sig;

static const sig world_methods[] = {
    {"spawn", {K_DEF}},
    {"spawn", {K_DEF}},
    {"remove", {K_AGENT}},
    {"count", {K_TAG}},
    {"agents", {K_TAG}},
    {"neighbors", {K_TARGET, K_NUM, K_QOPTS}},
    {"nearest", {K_TARGET, K_NUM, K_TAG}},
    {"obstacle", {K_POINT, K_NUM}},
    {"wall", {K_POINT, K_POINT}},
    {"step", {K_NUM}},
    {"step", {0}},
    {"random", {K_INT, K_INT}},
    {"checksum", {0}},
    {"add_obstacle", {K_OBSTDEF}},
    {"add_obstacle", {K_OBSTDEF}},
    {"remove_obstacle", {K_ANY}},
    {"obstacles", {0}},
};

static const sig agent_methods[] = {
    {"seek", {K_TARGET, K_NUM}},
    {"flee", {K_TARGET, K_NUM, K_NUM}},
    {"arrive", {K_TARGET, K_NUM, K_NUM, K_DECEL}},
    {"pursue", {K_AGENT, K_NUM}},
    {"evade", {K_AGENT, K_NUM, K_NUM}},
    {"intercept", {K_AGENT, K_NUM}},
    {"wander", {K_NUM}},
    {"separate", {K_AGENTLIST, K_NUM}},
    {"align", {K_AGENTLIST, K_NUM}},
    {"cohere", {K_AGENTLIST, K_NUM}},
    {"flock", {K_FLOCK, K_NUM}},
    {"avoid_obstacles", {K_NUM}},
    {"avoid_walls", {K_NUM}},
    {"contain", {K_NUM}},
    {"contain", {K_RECT, K_NUM}},
    {"avoid_agents", {K_NUM}},
    {"follow_path", {K_PATH, K_NUM}},
    {"offset_pursue", {K_AGENT, K_POINT, K_NUM}},
    {"interpose", {K_AGENT, K_AGENT, K_NUM}},
    {"hide", {K_AGENT, K_NUM}},
    {"apply", {K_POINT, K_NUM}},
    {"follow_path", {K_PATH, K_ANY, K_NUM}},
    {"face", {K_TARGET}},
    {"look_where_going", {0}},
    {"match_velocity", {K_TARGET, K_NUM, K_NUM}},
    {"follow_leader", {K_AGENT, K_ANY, K_NUM}},
    {"queue", {K_ANY, K_NUM}},
    {"steer", {K_STRING, K_TARGET, K_NUM, K_NUM}},
    {"steer", {K_STRING, K_AGENT, K_NUM}},
    {"nearest", {K_NUM, K_TAG}},
    {"neighbors", {K_NUM, K_QOPTS}},
};

static const sig vec2_methods[] = {
    {"len", {0}}, {"len2", {0}}, {"normalized", {0}}, {"dot", {K_POINT}}, {"cross", {K_POINT}},
    {"dist", {K_POINT}}, {"dist2", {K_POINT}}, {"angle", {0}}, {"rotated", {K_NUM}}, {"perp", {0}},
    {"truncated", {K_NUM}}, {"lerp", {K_POINT, K_NUM}}, {"unpack", {0}},
};

/* Field writes: name and the kind of value. */
static const sig agent_fields[] = {
    {"pos", {K_POINT}}, {"vel", {K_POINT}}, {"max_speed", {K_NUM}}, {"max_force", {K_NUM}},
    {"mass", {K_NUM}}, {"radius", {K_NUM}}, {"tag", {K_TAG}}, {"color", {K_ANY}}, {"combine", {K_STRING}},
    {"wander_distance", {K_NUM}}, {"wander_radius", {K_NUM}}, {"wander_jitter", {K_NUM}},
    {"behaviors", {K_BEHAVIORS}}, {"behaviors", {K_ANY}}, {"heading", {K_POINT}}, {"speed", {K_NUM}},
    {"id", {K_NUM}}, {"self", {K_ANY}}, {"seek", {K_ANY}}, {"bogus", {K_ANY}},
    {"avoidance", {K_STRING}}, {"avoid_range", {K_NUM}}, {"avoid_priority", {K_NUM}}, {"avoid_layer", {K_INT}},
    {"avoid_mask", {K_INT}}, {"locked", {K_ANY}}, {"avoid_max_neighbors", {K_INT}}, {"avoid_horizon", {K_NUM}},
    {"avoid_horizon_obstacles", {K_NUM}},
    {"turn_rate", {K_NUM}},
};

/* Pushes the function `name` looked up through a reference object, so
 * that it can then be called with any self at all. */
static void push_method(lua_State *L, const char *ref, const char *name)
{
    lua_getglobal(L, ref);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
}

static int nargs_for(fz_lua *z, const sig *s)
{
    int n = 0;
    while (n < 4 && s->kinds[n] != 0) n++;
    switch (fz_pick(z->in, 8)) {
    case 0: return n > 0 ? n - 1 : 0;         /* one short */
    case 1: return n + 1;                     /* one extra */
    default: return n;
    }
}

static void push_args(fz_lua *z, const sig *s, int nargs)
{
    for (int i = 0; i < nargs; i++) {
        if (i < 4 && s->kinds[i] != 0) push_kind(z, s->kinds[i], 0);
        else push_value(z, 0);
    }
}

/* Every number and vec2 our API hands back is finite. */
static void check_results(fz_lua *z, int base, const char *what)
{
    lua_State *L = z->L;
    for (int i = base; i <= lua_gettop(L); i++) {
        if (lua_type(L, i) == LUA_TNUMBER) {
            double d = lua_tonumber(L, i);
            if (!isfinite(d)) FAIL("%s returned a non-finite number %g", what, d);
        } else if (lua_type(L, i) == LUA_TUSERDATA && lua_getmetatable(L, i)) {
            lua_getglobal(L, "VEC_MT");
            int is_vec = lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (is_vec) {
                const st_vec2 *v = (const st_vec2 *)lua_touserdata(L, i);
                if (!isfinite(v->x) || !isfinite(v->y))
                    FAIL("%s returned a non-finite vec2 (%g, %g)", what, v->x, v->y);
            }
        }
    }
}

/* Calls the function below nargs arguments on top; keeps the first result
 * in the pool now and then. Returns the status. */
static int call(fz_lua *z, int nargs, const char *what, int checked)
{
    lua_State *L = z->L;
    int base = lua_gettop(L) - nargs;
    int status = lua_pcall(L, nargs, LUA_MULTRET, 0);
    if (status == LUA_OK) {
        if (checked) check_results(z, base, what);
        if (lua_gettop(L) >= base && !lua_isnil(L, base) && fz_pick(z->in, 2)) {
            lua_pushvalue(L, base);
            lua_rawseti(L, z->pool, 1 + fz_pick(z->in, POOL));
        }
    } else if (status != LUA_ERRRUN && status != LUA_ERRMEM) {
        FAIL("%s: status %d", what, status);
    }
    lua_settop(L, base - 1);
    return status;
}

/* Pattern items string_op builds patterns from: classes, sets, anchors,
 * captures, back-references, balances, frontiers, quantifiers, and the
 * pieces of malformed patterns. */
static const char *const pat_items[] = {
    "a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%c", "%l", "%u", "%x", "%g", "%z", "%A", "%S",
    "%.", "%%", "[ab]", "[^a]", "[a-c]", "[%d_]", "[]a]", "[^]a]", "[%a-]", "[a-]", "%b()", "%bab",
    "%f[%w]", "%f[%W]", "%1", "%2", "%0", "(", ")", "()", "$", "^", "[", "]", "%", "%f", "%b", "*",
    "+", "-", "?", "\0", "\200",
};
#define N_PAT_ITEMS (sizeof pat_items / sizeof pat_items[0])

static const char *const bombs[] = {
    ".-.-.-.-.-b", "a*a*a*a*a*b", "(.-)%1(.-)%2b", "(a*)*b", "(.-)(.-)(.-)(.-)b", "%f[a]a-a-a-a-b",
    "(((((a*)*)*)*)*)b", "[a-z]*[a-z]*[a-z]*[a-z]*1", "%ba" ,
};
#define N_BOMBS (sizeof bombs / sizeof bombs[0])

/* string.find/match/gmatch/gsub, bounded, through steer_lua_pcall (so with
 * the budget when it is on): a long subject only with the budget on. */
static void string_op(fz_lua *z)
{
    lua_State *L = z->L;
    fz_in *in = z->in;
    static const char *const names[] = {"find", "match", "gmatch", "gsub"};
    bool budget_on = sl_budget_on;
    bool long_subject = budget_on && fz_pick(in, 4) == 0;
    lua_getglobal(L, "STRCALL");
    lua_pushstring(L, names[fz_pick(in, 4)]);
    lua_pushboolean(L, !long_subject);
    luaL_Buffer b;
    if (long_subject) {
        char c = (char)("ab(x"[fz_pick(in, 4)]);
        size_t n = 1000 + (size_t)fz_u16(in) % 30000;
        luaL_buffinit(L, &b);
        for (size_t i = 0; i < n; i++)
            luaL_addchar(&b, c);
        luaL_pushresult(&b);
    } else {
        char s[24];
        size_t n = fz_pick(in, sizeof s + 1);
        for (size_t i = 0; i < n; i++)
            s[i] = (char)("ab()x1 %.\0"[fz_pick(in, 10)]);
        lua_pushlstring(L, s, n);
    }
    switch (fz_pick(in, 4)) {
    case 0: { /* raw bytes */
        char p[16];
        size_t n = fz_pick(in, sizeof p + 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (char)fz_u8(in);
        lua_pushlstring(L, p, n);
        break;
    }
    case 1: /* a known bomb */
        if (long_subject) {
            lua_pushstring(L, bombs[fz_pick(in, N_BOMBS)]);
            break;
        }
        /* fall through: a short subject gets random items */
    default: { /* pattern items */
        luaL_buffinit(L, &b);
        unsigned n = fz_pick(in, 9);
        for (unsigned i = 0; i < n; i++) {
            const char *it = pat_items[fz_pick(in, N_PAT_ITEMS)];
            size_t len = strlen(it);
            luaL_addlstring(&b, it, len ? len : 1); /* "\0" is one NUL */
        }
        luaL_pushresult(&b);
        break;
    }
    }
    if (fz_pick(in, 4) == 0)
        lua_pushinteger(L, (lua_Integer)(int8_t)fz_u8(in));
    else
        lua_pushnil(L);
    lua_getglobal(L, "REPLS");
    lua_rawgeti(L, -1, 1 + fz_pick(in, 8));
    lua_remove(L, -2);
    int status = steer_lua_pcall(L, 6, 0);
    if (status != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        if (m != NULL && strstr(m, "FUZZDIFF") != NULL)
            FAIL("%s", m);
        if (status != LUA_ERRRUN && status != LUA_ERRMEM)
            FAIL("string op: status %d", status);
    }
}

static void op(fz_lua *z)
{
    lua_State *L = z->L;
    fz_in *in = z->in;
    int top = lua_gettop(L);
    switch (fz_pick(in, 20)) {
    case 0: case 1: case 2: { /* world method */
        const sig *s = &world_methods[fz_pick(in, sizeof world_methods / sizeof world_methods[0])];
        push_method(L, "REF_WORLD", s->name);
        if (fz_pick(in, 8)) push_pool_typed(z, "WORLD_MT");
        else push_value(z, 0);
        int n = nargs_for(z, s);
        push_args(z, s, n);
        if (strcmp(s->name, "agents") == 0) {
            /* run the iterator it returns for a while */
            if (lua_pcall(L, n + 1, 3, 0) == LUA_OK && lua_isfunction(L, -3)) {
                for (int k = 0; k < 10000; k++) {
                    lua_pushvalue(L, -3);
                    lua_pushvalue(L, -3);
                    lua_pushvalue(L, -3);
                    if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_isnil(L, -1)) break;
                    lua_replace(L, -2);
                    if (k == 9999) FAIL("world:agents() does not end");
                }
            }
            lua_settop(L, top);
            break;
        }
        call(z, n + 1, s->name, 1);
        break;
    }
    case 3: case 4: case 5: { /* agent method */
        const sig *s = &agent_methods[fz_pick(in, sizeof agent_methods / sizeof agent_methods[0])];
        push_method(L, "REF_AGENT", s->name);
        if (fz_pick(in, 8)) push_pool_typed(z, "AGENT_MT");
        else push_value(z, 0);
        int n = nargs_for(z, s);
        push_args(z, s, n);
        call(z, n + 1, s->name, 1);
        break;
    }
    case 6: { /* vec2 method or an operator */
        if (fz_pick(in, 2)) {
            const sig *s = &vec2_methods[fz_pick(in, sizeof vec2_methods / sizeof vec2_methods[0])];
            /* __index is a function: look the method up through a vec2 */
            steer_lua_pushvec2(L, st_v2(1, 2));
            lua_getfield(L, -1, s->name);
            lua_remove(L, -2);
            if (fz_pick(in, 6)) push_pool_typed(z, "VEC_MT");
            else push_point(z, 0);
            int n = nargs_for(z, s);
            push_args(z, s, n);
            call(z, n + 1, s->name, 1);
        } else {
            lua_getglobal(L, "OPS");
            lua_rawgeti(L, -1, 1 + fz_pick(in, 14));
            lua_remove(L, -2);
            push_value(z, 0);
            push_value(z, 0);
            int base = lua_gettop(L) - 2;
            if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TUSERDATA)
                check_results(z, base, "vec2 operator");
            lua_settop(L, top);
        }
        break;
    }
    case 7: case 8: { /* field read */
        push_pool(z);
        if (fz_pick(in, 4)) push_string(z);
        else push_value(z, 0);
        lua_getglobal(L, "OPS");
        lua_rawgeti(L, -1, 12); /* a[b] */
        lua_remove(L, -2);
        lua_insert(L, -3);
        call(z, 2, "field read", 0);
        break;
    }
    case 9: case 10: { /* field write */
        const sig *s = &agent_fields[fz_pick(in, sizeof agent_fields / sizeof agent_fields[0])];
        if (luaL_loadstring(L, "local o, k, v = ...; o[k] = v") != LUA_OK) FAIL("loadstring");
        if (fz_pick(in, 4)) push_pool_typed(z, fz_pick(in, 4) ? "AGENT_MT" : "WORLD_MT");
        else push_pool(z);
        if (fz_pick(in, 6)) lua_pushstring(L, s->name);
        else push_value(z, 0);
        push_kind(z, s->kinds[0], 0);
        call(z, 3, "field write", 0);
        break;
    }
    case 11: { /* constructors */
        switch (fz_pick(in, 4)) {
        case 0: lua_getglobal(L, "STEER"); lua_getfield(L, -1, "world"); lua_remove(L, -2);
                push_kind(z, K_WORLDDEF, 0); call(z, 1, "steer.world", 1); break;
        case 1: lua_getglobal(L, "STEER"); lua_getfield(L, -1, "path"); lua_remove(L, -2);
                push_kind(z, K_PATHDEF, 0); call(z, 1, "steer.path", 1); break;
        case 2: lua_getglobal(L, "STEER"); lua_getfield(L, -1, "vec2"); lua_remove(L, -2);
                push_number(z); push_number(z); call(z, 2, "steer.vec2", 1); break;
        default: lua_getglobal(L, "STEER"); lua_getfield(L, -1, "vec2"); lua_getfield(L, -1, "from_angle");
                 lua_remove(L, -2); lua_remove(L, -2);
                 push_number(z); push_number(z); call(z, 2, "vec2.from_angle", 1); break;
        }
        break;
    }
    case 12: { /* step a world with dt */
        push_method(L, "REF_WORLD", "step");
        push_pool_typed(z, "WORLD_MT");
        int n = (int)fz_pick(in, 2);
        if (n) lua_pushnumber(L, fz_pick(in, 3) ? 1.0 / 60.0 : fz_double(in));
        call(z, n + 1, "world:step", 0);
        break;
    }
    case 13: { /* iterate with removals / spawns */
        lua_getglobal(L, "ITER");
        push_pool_typed(z, "WORLD_MT");
        lua_pushinteger(L, fz_pick(in, 5));
        if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
            FAIL("ITER: %s", lua_tostring(L, -1));
        lua_settop(L, top);
        break;
    }
    case 14: { /* set on_error, or collect garbage */
        unsigned k = fz_pick(in, 4);
        if (k == 0) {
            lua_gc(L, LUA_GCCOLLECT);
        } else if (k == 1) { /* drop a pool slot and collect */
            lua_pushnil(L);
            lua_rawseti(L, z->pool, 1 + fz_pick(in, POOL));
            lua_gc(L, LUA_GCCOLLECT);
        } else {
            if (luaL_loadstring(L, "local w, k = ...; w.on_error = k == 0 and function(a, m) end or "
                                   "k == 1 and function(a, m) error({}) end or k == 2 and function(a, m) "
                                   "a.world:remove(a) end or nil") != LUA_OK)
                FAIL("loadstring");
            push_pool_typed(z, "WORLD_MT");
            lua_pushinteger(L, fz_pick(in, 4));
            call(z, 2, "on_error", 0);
        }
        break;
    }
    case 15: { /* reload the fuzz module, in some version */
        lua_pushinteger(L, fz_pick(in, 9));
        lua_setglobal(L, "FUZZ_VERSION");
        if (fz_pick(in, 2)) {
            bool ok = steer_lua_reload(L, fz_pick(in, 8) ? "fuzzbrain" : "no_such_module");
            if (!ok && lua_type(L, -1) != LUA_TSTRING) FAIL("steer_lua_reload left a %s", luaL_typename(L, -1));
        } else {
            lua_getglobal(L, "STEER");
            lua_getfield(L, -1, "reload");
            lua_remove(L, -2);
            push_kind(z, K_STRING, 0);
            call(z, 1, "steer.reload", 0);
        }
        lua_settop(L, top);
        break;
    }
    case 16: { /* the app's entry points */
        push_pool_typed(z, "WORLD_MT");
        int w = lua_gettop(L);
        if (lua_isnil(L, w)) {
            lua_settop(L, top);
            break;
        }
        switch (fz_pick(in, 4)) {
        case 0:
            push_value(z, 0);
            steer_lua_draw_brains(L, w, -1);
            break;
        case 1: {
            int n = steer_lua_paused_count(L, w);
            if (n < 0) FAIL("paused count %d", n);
            break;
        }
        case 2: {
            st_agent_id id = {fz_u8(in) % 80, fz_pick(in, 3)};
            steer_lua_pushagent(L, w, id);
            steer_lua_pushself(L, w, id);
            (void)steer_lua_tagname(L, w, (int32_t)fz_pick(in, 4));
            break;
        }
        default:
            push_pool(z);
            st_world *sw;
            st_agent_id id;
            if (steer_lua_toagent(L, -1, &sw, &id) && !st_agent_alive(sw, id)) FAIL("toagent: dead agent");
            break;
        }
        lua_settop(L, top);
        break;
    }
    case 17: { /* budget on or off */
        sl_budget_on = fz_pick(in, 2);
        steer_lua_set_budget(L, sl_budget_on ? 200000 : 0);
        break;
    }
    case 19: string_op(z); break;
    default: { /* a spawn with a plausible def into a pool world */
        push_method(L, "REF_WORLD", "spawn");
        push_pool_typed(z, "WORLD_MT");
        push_kind(z, K_DEF, 1);
        call(z, 2, "spawn", 1);
        break;
    }
    }
    lua_settop(L, top);
}

static void check(fz_lua *z, int k)
{
    lua_State *L = z->L;
    lua_getglobal(L, "CHECK");
    lua_pushvalue(L, z->pool);
    /* reading a live agent's fields never raises */
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        if (m == NULL || strstr(m, "not enough memory") == NULL)
            FAIL("CHECK raised after op %d: %s", k, m ? m : luaL_typename(L, -1));
    } else if (!lua_isnil(L, -1)) {
        FAIL("after op %d: %s", k, lua_tostring(L, -1));
    }
    lua_pop(L, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    lua_State *L = luaL_newstate();
    if (L == NULL) return 0;
    luaL_openlibs(L);
    steer_host_push_bounded(L, (size_t)1 << 20);
    lua_setglobal(L, "BOUNDED");
    luaL_requiref(L, "steer", luaopen_steer, 0);
    steer_lua_set_budget(L, 2000000);
    sl_budget_on = true;
    if (luaL_loadbuffer(L, prelude, sizeof prelude - 1, "=prelude") != LUA_OK)
        FAIL("prelude: %s", lua_tostring(L, -1));
    lua_pushvalue(L, -2);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) FAIL("prelude: %s", lua_tostring(L, -1));
    lua_pop(L, 1); /* steer */

    /* the pool: two worlds, agents (one with a brain, one removed), a vec2, a path */
    static const char init[] =
        "local steer = STEER\n"
        "local A = steer.world{width = 400, height = 300, edges = 'wrap'}\n"
        "local B = steer.world{width = 400, height = 300, edges = 'bounce'}\n"
        "local dead = A:spawn{}\n"
        "A:remove(dead)\n"
        "return {A, B, A:spawn{pos = {10, 10}, brain = BRAINS[1]}, A:spawn{pos = {20, 20}},\n"
        "        B:spawn{pos = {30, 30}}, steer.vec2(3, 4), steer.path{{0, 0}, {100, 0}, loop = true}, dead}\n";
    if (luaL_dostring(L, init) != LUA_OK) FAIL("init: %s", lua_tostring(L, -1));
    fz_lua z = {L, &in, lua_gettop(L)};

    for (int k = 0; k < MAX_OPS && fz_more(&in); k++) {
        op(&z);
        if (lua_gettop(L) != z.pool) FAIL("stack %d after op %d", lua_gettop(L), k);
        check(&z, k);
    }
    lua_close(L);
    return 0;
}
