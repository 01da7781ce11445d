/*
 * steer_lua.h — what the bindings give the app (and steer.so).
 *
 * The bindings wrap the core as Lua 5.4 userdata (steer.vec2, steer.world,
 * steer.agent, steer.path) and host brains: module tables whose functions are
 * called for each agent, hot-reloaded in place (a reload replaces functions,
 * never state). Every value from Lua is checked here before the core sees it.
 */
#ifndef STEER_LUA_H
#define STEER_LUA_H

#include <stdbool.h>
#include <lua.h>
#include "steer.h"

/// Opens the module: pushes the `steer` table. Also what `require "steer"`
/// calls in stock lua5.4 (through steer.so).
/* What a Windows steer.dll exports: luaopen_steer, all that Lua's loader
 * asks for (steer's own build defines STEER_LUA_BUILDING; a host linking
 * the static bindings needs no marking). */
#if defined(_WIN32) && defined(STEER_LUA_BUILDING)
#define STEER_LUA_API __declspec(dllexport)
#else
#define STEER_LUA_API
#endif
STEER_LUA_API int luaopen_steer(lua_State *L);

/* ---- values ---- */
void steer_lua_pushvec2(lua_State *L, st_vec2 v);
/// A vec2, a table {x=, y=} or a table {x, y}, with finite numbers; raises a
/// standard bad-argument error naming the argument otherwise.
st_vec2 steer_lua_checkpoint(lua_State *L, int arg);
/// The world userdata at idx (raises when it is not one, or is destroyed).
st_world *steer_lua_checkworld(lua_State *L, int idx);
/// Pushes the (one and only) userdata of a live agent of the world at world_idx.
void steer_lua_pushagent(lua_State *L, int world_idx, st_agent_id id);
/// Pushes the agent's `self` table (made on first use; nil when the agent
/// is not alive).
void steer_lua_pushself(lua_State *L, int world_idx, st_agent_id id);
/// The world and handle of the live agent userdata at idx; false (outputs
/// untouched) when the value is not one. Either output may be NULL.
bool steer_lua_toagent(lua_State *L, int idx, st_world **w, st_agent_id *id);
/// The tag name of an interned tag id ("" for none).
const char *steer_lua_tagname(lua_State *L, int world_idx, int32_t tag);

/// Makes the metatable at idx read-only for scripts: getmetatable then gives
/// a view (a userdata named what) whose writes raise "cannot change the
/// metatable of <what> ...", which shows only __name (and, with show_index,
/// __index when that is a table), and setmetatable refuses to replace it.
/// Every steer type's metatable is protected so; the app's sandbox protects
/// the strings' (showing __index, the string table, as stock Lua does) and
/// the files'.
void steer_lua_protect_metatable(lua_State *L, int idx, const char *what, bool show_index);
/* math.random([m [, n]]) with the arguments on the stack, by Lua's rules,
 * drawing from w's stream, or from the splitmix64 state *fallback when w is
 * NULL (draws before any world exists). */
int steer_lua_math_random(lua_State *L, st_world *w, uint64_t *fallback);

/* ---- calling scripts ---- */
/// lua_pcall with a traceback message handler and a fresh instruction budget.
/// On error the message (with traceback) is left on the stack.
int steer_lua_pcall(lua_State *L, int nargs, int nresults);
/// Instructions each callback may run before it raises
/// "instruction budget exceeded" (0: unlimited, the default).
/// Setting a budget also sets the wall-time limit to STEER_LUA_TIME_LIMIT
/// seconds unless one was set.
void steer_lua_set_budget(lua_State *L, long instructions);
/// Seconds of wall time a budgeted callback may take, checked at budget
/// points (every few thousand instructions, and in the bounded string and
/// table functions): past it the callback raises "instruction budget
/// exceeded (over N s of wall time)". 0: no limit. Needs a budget.
void steer_lua_set_time_limit(lua_State *L, double seconds);
#define STEER_LUA_TIME_LIMIT 5.0
/// Counts units of work done in C (a pattern-matching step, 64 bytes
/// copied) against the running callback's budget, as if they were
/// instructions; raises "instruction budget exceeded (in <what>)" past it.
/// Does nothing outside a budgeted callback.
void steer_lua_charge(lua_State *L, long units, const char *what);

/* ---- brains ---- */

/// What a reload did (see steer_lua_reload_info).
typedef struct steer_reload_info {
    int functions;  ///< functions whose code changed (fields, locals, class methods)
    int unchanged;  ///< functions paired with an old one of the same code
    int added;      ///< fields that hold a function only the new version has
    int removed;    ///< fields the new source no longer makes (functions or data)
    int classes;    ///< tables with an __index field whose functions changed
    int values;     ///< data values (fields, locals) taken from the new source
    int agents;     ///< agents whose brain is the module
    bool first;     ///< the module was not loaded before: this was its first load
    bool changed;   ///< false: the new version has the same code and literals
    bool truncated; ///< a graph was too big to walk whole (part of it was not merged)
} steer_reload_info;

/// Reloads module `name` (resolved like require): loads and runs the file
/// afresh; on success merges the new version into the loaded one in place
/// (bindings/hotswap*.c: tables keep their identity, functions come from the
/// new source with their upvalues joined to the old variables, data changes
/// only where the source changed it), resumes paused brains that use it and
/// calls brain.reload(self, agent) for each of them. Returns true, or false
/// with the error message (`file:line: message`, or "not enough memory")
/// pushed and the module as it was: the merge applies whole or not at all.
/// info may be NULL.
bool steer_lua_reload_info(lua_State *L, const char *name, steer_reload_info *info);
/// steer_lua_reload_info without the report.
bool steer_lua_reload(lua_State *L, const char *name);

/// Where brain runtime errors go when a world has no on_error: instead of
/// world:step raising the first one, each is handed to fn once.
typedef void (*steer_lua_error_fn)(void *ud, const char *message);
void steer_lua_set_error_sink(lua_State *L, steer_lua_error_fn fn, void *ud);

/// Where world:mark(label) goes (bindings/mark.c): the app's timeline. With
/// none set, world:mark only returns the tick.
typedef void (*steer_lua_mark_fn)(void *ud, const char *label);
void steer_lua_set_mark_sink(lua_State *L, steer_lua_mark_fn fn, void *ud);

/// Decision events for a host's timeline and overlays (the app's): a
/// message delivered to a brain (from: its sender, null when the world sent
/// it; to: the recipient; what: its kind when a string), an agent a
/// perceiver newly noticed by sight (from: the one seen, to: the perceiver;
/// one it still remembered is not news) or a noise it heard (from: its
/// source, null for none). pos: where the sender, the one seen or the noise
/// was. Reported as they happen, inside world:step or a:perceive; `what`
/// lives until fn returns. With no sink set nothing is looked up.
typedef enum steer_lua_event_kind { STEER_LUA_MESSAGE, STEER_LUA_SEEN, STEER_LUA_HEARD } steer_lua_event_kind;
typedef struct steer_lua_event {
    steer_lua_event_kind kind;
    st_agent_id from, to;
    st_vec2 pos;
    const char *what;
} steer_lua_event;
typedef void (*steer_lua_event_fn)(void *ud, const steer_lua_event *e);
void steer_lua_set_event_sink(lua_State *L, steer_lua_event_fn fn, void *ud);

/// Calls brain.draw(self, agent, gfx) for every live agent of the world at
/// world_idx whose brain has a draw function; gfx is the value at gfx_idx.
void steer_lua_draw_brains(lua_State *L, int world_idx, int gfx_idx);

/// Number of agents of the world whose brain is paused by an error.
int steer_lua_paused_count(lua_State *L, int world_idx);

#endif
