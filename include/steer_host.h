/*
 * steer_host.h — the Lua state the app runs scripts in.
 *
 * A host state is a stock Lua 5.4 state with the standard libraries, `steer`
 * preloaded, a counting allocator that caps Lua memory, and (unless trusted)
 * a sandbox: no process control, no writing files, no C modules, no binary
 * chunks, no os.getenv, collectgarbage limited to count/step/isrunning,
 * require/dofile/loadfile and reading files limited to the scene's folder
 * and the built-in scripts/ folder, the strings' metatable read-only. In
 * every mode pcall, xpcall and coroutine.resume refuse to swallow the two
 * errors that protect the app (the instruction budget and the memory cap),
 * the string and table functions that work in C count that work against the
 * budget (steer_host_push_bounded), and math.random draws from the attached
 * world's seeded stream so runs are reproducible.
 *
 * steer.so does not use this: stock lua5.4 is its own host.
 */
#ifndef STEER_HOST_H
#define STEER_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lua.h>

typedef struct steer_host_opts {
    const char *scene_dir;   ///< searched first by require; NULL or "" for none
    const char *scripts_dir; ///< the built-in scripts, searched second
    bool trust;              ///< true: no sandbox (budget and memory cap still apply)
    size_t memory_limit;     ///< bytes of Lua memory; 0 = unlimited
    uint64_t seed;           ///< seeds math.random until a world is attached
} steer_host_opts;

/// A new host state, or NULL when it cannot be built (out of memory, or the
/// limit is too small for the standard libraries).
lua_State *steer_host_open(const steer_host_opts *opts);
/// Closes the state and frees the allocator's bookkeeping.
void steer_host_close(lua_State *L);

/// Sandbox only (a trusted state is left alone): makes the standard library
/// tables, steer's tables and the globals naming them read-only to scripts
/// (writes raise "cannot change 'string.find' ..."). Call once, after the
/// host has added its own fields (the app: steer.mouse, its searcher).
void steer_host_seal(lua_State *L);

/// Bytes of Lua memory in use, and the cap (0: none).
size_t steer_host_memory(lua_State *L);
size_t steer_host_memory_limit(lua_State *L);

/// math.random draws from the world at idx from now on (nil: the host's own
/// stream seeded by opts.seed).
void steer_host_set_world(lua_State *L, int idx);

/// True when the error value at idx is one a script must not catch: the
/// instruction budget ran out, or memory did.
bool steer_host_is_fatal(lua_State *L, int idx);

/// Pushes a table of string and table functions whose work in C counts
/// against the instruction budget (steer_lua_charge): find, match, gmatch
/// and gsub (steer's own matcher, Lua 5.4 pattern semantics), rep and concat
/// (refuse results over max_result bytes) and sort (pays n·log2 n before
/// sorting). rep, concat and sort wrap the state's current string.rep,
/// table.concat and table.sort. steer_host_open installs them in place of
/// the stock ones.
void steer_host_push_bounded(lua_State *L, size_t max_result);

/// The substring that marks an instruction-budget error (what the bindings'
/// hook raises).
#define STEER_HOST_BUDGET_MSG "instruction budget exceeded"

#endif
