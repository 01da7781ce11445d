/*
 * sandbox.c — the app's Lua state: memory cap, sandbox, guarded pcall,
 * seeded math.random. See steer_host.h.
 *
 * The sandbox edits the standard library tables in place (rather than
 * handing scripts a separate _ENV) so that every chunk the bindings load —
 * brains through require, reloads — runs under the same rules without the
 * bindings knowing about it. Originals a wrapper needs live only in C
 * upvalues; debug.getupvalue, the one way to reach them, is removed.
 */
#define _XOPEN_SOURCE 700
#include "sandbox.h"

#include "bind.h"
#include "sys.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "steer_lua.h"

/* ---------------------------------------------------------------- memory */

/* Small blocks come from a pool. Lua makes and drops many small objects: a
 * vec2 (about 40 bytes) for every behaviour call of every brain, closures,
 * short strings, small tables. Blocks up to POOL_MAX bytes are carved from
 * 64 KiB slabs into one free list per 16-byte size class, which costs a
 * few instructions a block where malloc and free cost a few hundred at
 * these rates. A block's class is known from the size Lua passes back, and
 * a block is the pool's when its slab (its address rounded down to the
 * slab size) is in `slabs`; any other block is malloc's, so whenever the
 * pool cannot grow, malloc serves instead. Slabs go back to the system when
 * the state closes. The valgrind build defines STEER_NO_POOL, so memcheck
 * sees every block on its own; under ASan the pool poisons what it holds. */
#if defined(__SANITIZE_ADDRESS__)
#define STEER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STEER_ASAN 1
#endif
#endif
#ifdef STEER_ASAN
/* Under ASan the pool marks what it holds as unaddressable: a use of a
 * freed or never handed out block is reported as it would be for malloc's
 * (all but a free block's first word, which links the free list). */
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_GRAIN 16
#define POOL_MAX 128
#define POOL_CLASSES (POOL_MAX / POOL_GRAIN)
#define POOL_SLAB ((size_t)64 * 1024)

typedef struct pool {
    void *free[POOL_CLASSES];  /* per class: freed blocks, linked through their first word */
    char *bump, *bump_end;     /* the newest slab's uncarved rest */
    uintptr_t *slabs;          /* open-addressing set of slab addresses (0: empty) */
    size_t nslabs, cap;        /* entries, and capacity (a power of two) */
    size_t *used, limit;       /* the budget a new slab is paid from (see host_lua_alloc) */
} pool;

typedef struct host_alloc {
    size_t used;   ///< Lua's bytes and the core's, together
    size_t limit;
    pool pool;
    st_mem mem;    ///< the core's side of the budget (sl_mem)
} host_alloc;

static inline size_t pool_class(size_t n) { return (n - 1) / POOL_GRAIN; }

static inline size_t slab_hash(uintptr_t s, size_t cap)
{
    return (size_t)((s / POOL_SLAB) * 0x9E3779B97F4A7C15u >> 17) & (cap - 1);
}

static bool pool_owns(const pool *p, const void *block)
{
    if (p->cap == 0)
        return false;
    uintptr_t s = (uintptr_t)block & ~(uintptr_t)(POOL_SLAB - 1);
    for (size_t i = slab_hash(s, p->cap);; i = (i + 1) & (p->cap - 1)) {
        if (p->slabs[i] == s)
            return true;
        if (p->slabs[i] == 0)
            return false;
    }
}

#ifndef STEER_NO_POOL
static bool slab_insert(pool *p, uintptr_t s)
{
    if (2 * (p->nslabs + 1) > p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        uintptr_t *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return false;
        for (size_t k = 0; k < p->cap; k++) {
            if (p->slabs[k] == 0)
                continue;
            size_t i = slab_hash(p->slabs[k], cap);
            while (t[i] != 0)
                i = (i + 1) & (cap - 1);
            t[i] = p->slabs[k];
        }
        free(p->slabs);
        p->slabs = t;
        p->cap = cap;
    }
    size_t i = slab_hash(s, p->cap);
    while (p->slabs[i] != 0)
        i = (i + 1) & (p->cap - 1);
    p->slabs[i] = s;
    p->nslabs++;
    return true;
}
#endif

/* A block of class c, or NULL when no slab can be had. */
static void *pool_get(pool *p, size_t c)
{
    size_t size = (c + 1) * POOL_GRAIN;
    void *b = p->free[c];
    if (b != NULL) {
        memcpy(&p->free[c], b, sizeof(void *));
        POOL_UNPOISON(b, size);
        return b;
    }
    if ((size_t)(p->bump_end - p->bump) < size) {
#ifdef STEER_NO_POOL
        return NULL;
#else
        if (p->limit && (*p->used > p->limit || p->limit - *p->used < POOL_SLAB))
            return NULL; /* malloc serves it, paid by its size */
        char *slab = sl_aligned_alloc(POOL_SLAB, POOL_SLAB);
        if (slab == NULL)
            return NULL;
        if (!slab_insert(p, (uintptr_t)slab)) {
            sl_aligned_free(slab);
            return NULL;
        }
        POOL_POISON(slab, POOL_SLAB);
        *p->used += POOL_SLAB;
        p->bump = slab; /* the old slab's rest (under 128 bytes) is left */
        p->bump_end = slab + POOL_SLAB;
#endif
    }
    b = p->bump;
    p->bump += size;
    POOL_UNPOISON(b, size);
    return b;
}

static inline void pool_put(pool *p, void *b, size_t c)
{
    memcpy(b, &p->free[c], sizeof(void *));
    p->free[c] = b;
    POOL_POISON((char *)b + sizeof(void *), (c + 1) * POOL_GRAIN - sizeof(void *));
}

static void pool_release(pool *p)
{
    for (size_t k = 0; k < p->cap; k++) {
        if (p->slabs[k] == 0)
            continue;
        POOL_UNPOISON((void *)p->slabs[k], POOL_SLAB);
        sl_aligned_free((void *)p->slabs[k]);
    }
    free(p->slabs);
    memset(p, 0, sizeof *p);
}

/* Lua's realloc, on the pool or malloc (see above). small_old: ptr is the
 * pool's; *small_new: so is the result. */
static void *block_realloc(pool *p, void *ptr, size_t osize, size_t nsize, bool small_old, bool *small_new)
{
    *small_new = false;
    if (nsize == 0) {
        if (small_old)
            pool_put(p, ptr, pool_class(osize));
        else
            free(ptr);
        return NULL;
    }
    if (ptr != NULL && small_old && nsize <= POOL_MAX && pool_class(nsize) == pool_class(osize)) {
        *small_new = true;
        return ptr;
    }
    void *q = nsize <= POOL_MAX ? pool_get(p, pool_class(nsize)) : NULL;
    *small_new = q != NULL;
    if (q == NULL) {
        if (ptr == NULL || !small_old)
            q = realloc(ptr, nsize); /* malloc's block, or malloc's turn */
        else
            q = malloc(nsize);
        if (q == NULL) {
            /* Lua requires shrinking to succeed: the old block still fits */
            *small_new = small_old;
            return ptr != NULL && nsize <= osize ? ptr : NULL;
        }
        if (ptr == NULL || !small_old)
            return q;
    }
    if (ptr != NULL) {
        memcpy(q, ptr, osize < nsize ? osize : nsize);
        if (small_old)
            pool_put(p, ptr, pool_class(osize));
        else
            free(ptr);
    }
    return q;
}

/* When ptr is NULL, osize is a type tag (LUA_TTABLE...), not a size: the
 * block is new and nothing is given back. Shrinking and freeing always
 * succeed, as Lua requires; only growth is refused past the cap, which Lua
 * turns into a "not enough memory" error after an emergency collection.
 * The cap is on what the process holds: a malloc'd block costs its size, a
 * pool block nothing, as its slab was paid for whole when it was carved
 * (slabs stay until the state closes, so blocks freed into the pool still
 * count, and cannot be spent again on the core's objects). */
static void *host_lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    host_alloc *a = ud;
    size_t old = ptr ? osize : 0;
    bool small_old = ptr != NULL && osize <= POOL_MAX && pool_owns(&a->pool, ptr);
    size_t old_cost = small_old ? 0 : old;
    bool small_new;
    if (nsize == 0) {
        block_realloc(&a->pool, ptr, osize, 0, small_old, &small_new);
        a->used -= old_cost;
        return NULL;
    }
    if (a->limit && nsize > old_cost && (a->used - old_cost > a->limit || a->limit - (a->used - old_cost) < nsize))
        return NULL;
    void *p = block_realloc(&a->pool, ptr, ptr ? osize : 0, nsize, small_old, &small_new);
    if (p == NULL)
        return NULL;
    a->used = a->used - old_cost + (small_new ? 0 : nsize);
    return p;
}

/* The core's blocks for what scripts make (worlds, navgrids, snapshots...)
 * count against the same cap as Lua's own memory: one budget. */
static bool host_reserve(void *ud, size_t n)
{
    host_alloc *a = ud;
    if (a->limit && (n > a->limit || a->used > a->limit - n))
        return false;
    a->used += n;
    return true;
}

static void host_release(void *ud, size_t n)
{
    host_alloc *a = ud;
    a->used -= n;
}

static host_alloc *host_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

size_t steer_host_memory(lua_State *L) { return host_of(L)->used; }
size_t steer_host_memory_limit(lua_State *L) { return host_of(L)->limit; }

/* ---------------------------------------------------------------- guarded pcall */

bool steer_host_is_fatal(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        return false;
    const char *m = lua_tostring(L, idx);
    return strstr(m, STEER_HOST_BUDGET_MSG) != NULL || strstr(m, "not enough memory") != NULL;
}

/* Memory errors and errors inside a message handler carry no budget text
 * but are just as fatal: a handler that loops until the budget trips
 * surfaces as LUA_ERRERR. */
static bool fatal_status(lua_State *L, int status)
{
    return status == LUA_ERRMEM || status == LUA_ERRERR || steer_host_is_fatal(L, -1);
}

static int finish_guarded(lua_State *L, int status, lua_KContext extra)
{
    if (status != LUA_OK && status != LUA_YIELD) {
        if (fatal_status(L, status))
            return lua_error(L);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int guarded_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_guarded);
    return finish_guarded(L, status, 0);
}

/* The user's handler never sees a fatal error: it could otherwise log it and
 * loop, or replace it with a harmless message that pcall would then return. */
static int guarded_handler(lua_State *L)
{
    if (steer_host_is_fatal(L, 1))
        return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int guarded_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_guarded);
    return finish_guarded(L, status, 2);
}

/* Calls the original function (upvalue 1) with the arguments as they are;
 * returns the number of its results. */
static int call_original(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* coroutine.resume is the other way to catch an error. */
static int guarded_resume(lua_State *L)
{
    call_original(L);
    if (lua_gettop(L) >= 2 && lua_isboolean(L, 1) && !lua_toboolean(L, 1) && steer_host_is_fatal(L, 2)) {
        lua_pushvalue(L, 2);
        return lua_error(L);
    }
    return lua_gettop(L);
}

/* ---------------------------------------------------------------- math.random */

static const char *const WORLD_KEY = "steer.host.world";

typedef struct host_rng {
    uint64_t s;
} host_rng;

static st_world *current_world(lua_State *L)
{
    st_world *w = NULL;
    if (lua_getfield(L, LUA_REGISTRYINDEX, WORLD_KEY) != LUA_TNIL)
        w = steer_lua_checkworld(L, -1);
    lua_pop(L, 1);
    return w;
}

/* math.random: the running scene's world stream, or before any world
 * exists (module top-level code) the host's own splitmix64 stream. */
static int host_random(lua_State *L)
{
    host_rng *r = lua_touserdata(L, lua_upvalueindex(1));
    return steer_lua_math_random(L, current_world(L), &r->s);
}

/* The world's seed is the only seed: reseeding from a script would make a
 * run differ from its replay, so randomseed only reseeds the pre-world
 * stream (used by module top-level code) and otherwise does nothing. */
static int host_randomseed(lua_State *L)
{
    host_rng *r = lua_touserdata(L, lua_upvalueindex(1));
    if (lua_gettop(L) >= 1)
        r->s = (uint64_t)luaL_checkinteger(L, 1);
    return 0;
}

void steer_host_set_world(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (!lua_isnil(L, idx))
        (void)steer_lua_checkworld(L, idx);
    lua_pushvalue(L, idx);
    lua_setfield(L, LUA_REGISTRYINDEX, WORLD_KEY);
}

/* ---------------------------------------------------------------- require */

static bool readable(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    fclose(f);
    return true;
}

/* Looks for name (dots become slashes) as dir/name.lua then dir/name/init.lua
 * in the scene folder, then scripts/. Fixed folders rather than package.path,
 * so a script cannot widen its own reach by editing package.path. */
static int host_searcher(lua_State *L)
{
    const host_dirs *d = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    const char *rel = luaL_gsub(L, name, ".", "/");
    const char *dirs[2] = {d->scene, d->scripts};
    const char *forms[2] = {"%s/%s.lua", "%s/%s/init.lua"};
    luaL_Buffer tried;
    luaL_buffinit(L, &tried);
    for (int i = 0; i < 2; i++) {
        if (dirs[i][0] == '\0' || (i == 1 && strcmp(dirs[0], dirs[1]) == 0))
            continue;
        for (int k = 0; k < 2; k++) {
            const char *path = lua_pushfstring(L, forms[k], dirs[i], rel);
            if (readable(path)) {
                if (luaL_loadfilex(L, path, d->trust ? "bt" : "t") != LUA_OK)
                    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s",
                                      name, path, lua_tostring(L, -1));
                lua_pushstring(L, path);
                return 2;
            }
            lua_pushfstring(L, "\n\tno file '%s'", path);
            lua_remove(L, -2);
            luaL_addvalue(&tried);
        }
    }
    luaL_pushresult(&tried);
    return 1;
}

/* ---------------------------------------------------------------- sandbox */

static int disabled(lua_State *L)
{
    return luaL_error(L, "'%s' is disabled in the sandbox (run steer with --trust to allow it)",
                      lua_tostring(L, lua_upvalueindex(1)));
}

static void disable(lua_State *L, int table, const char *lib, const char *field)
{
    lua_pushfstring(L, "%s%s%s", lib, lib[0] ? "." : "", field);
    lua_pushcclosure(L, disabled, 1);
    lua_setfield(L, table, field);
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/';
}

bool sandbox_in_script_folders(const host_dirs *d, const char *real)
{
    return under(real, d->scene) || under(real, d->scripts);
}

static int outside(lua_State *L, const char *fname)
{
    return luaL_error(L, "'%s' is outside the script folders (the sandbox allows only those)", fname);
}

/* A file a script may read: inside the script folders once links and ..
 * are resolved. A file that does not exist is fine when its folder is
 * inside (opening it then fails as usual, with nil and a message). */
static void check_readable_path(lua_State *L, const host_dirs *d, const char *fname)
{
    char real[PATH_MAX];
    if (sl_realpath(fname, real) != NULL) {
        if (!sandbox_in_script_folders(d, real))
            outside(L, fname);
        return;
    }
    const char *slash = strrchr(fname, '/');
    const char *dir = slash == NULL ? "." : slash == fname ? "/" : NULL;
    if (dir == NULL) {
        lua_pushlstring(L, fname, (size_t)(slash - fname));
        dir = lua_tostring(L, -1);
    }
    char realdir[PATH_MAX];
    bool ok = sl_realpath(dir, realdir) != NULL && (sandbox_in_script_folders(d, realdir) || strcmp(realdir, d->scene) == 0
                                                 || strcmp(realdir, d->scripts) == 0);
    if (slash != NULL && slash != fname)
        lua_pop(L, 1);
    if (!ok)
        outside(L, fname);
}

/* io.open for reading only, and only files in the script folders: scripts
 * may read their data files, never write, never read the user's others. */
static int sandbox_open(lua_State *L)
{
    const host_dirs *d = lua_touserdata(L, lua_upvalueindex(2));
    const char *fname = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    if (mode[0] != 'r' || strchr(mode, '+') != NULL)
        return luaL_error(L, "io.open: mode '%s' is disabled in the sandbox (read only)", mode);
    check_readable_path(L, d, fname);
    return call_original(L);
}

/* io.output(filename) opens a file for writing. */
static int sandbox_output(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING)
        return luaL_error(L, "io.output with a file name is disabled in the sandbox");
    return call_original(L);
}

/* io.lines(filename) only: with no file name it reads the terminal; and
 * only files in the script folders, as io.open. */
static int sandbox_lines(lua_State *L)
{
    check_readable_path(L, lua_touserdata(L, lua_upvalueindex(2)), luaL_checkstring(L, 1));
    return call_original(L);
}

/* load(chunk, name, mode, env) with mode forced to text. The argument count
 * is kept, because an absent env and an explicit nil env differ. */
static int sandbox_load(lua_State *L)
{
    if (lua_gettop(L) < 3)
        lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    return call_original(L);
}

/* dofile/loadfile: only files inside the script folders (after resolving
 * links and ..), and only as text. */
static const char *checked_script_path(lua_State *L, const host_dirs *d, int arg)
{
    const char *fname = luaL_checkstring(L, arg);
    char real[PATH_MAX];
    if (sl_realpath(fname, real) == NULL || !sandbox_in_script_folders(d, real))
        outside(L, fname);
    return fname;
}

static int sandbox_loadfile(lua_State *L)
{
    const host_dirs *d = lua_touserdata(L, lua_upvalueindex(1));
    const char *fname = checked_script_path(L, d, 1);
    int env = !lua_isnone(L, 3) ? 3 : 0;
    if (luaL_loadfilex(L, fname, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env != 0) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

static int dofile_cont(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L) - 1;
}

static int sandbox_dofile(lua_State *L)
{
    const host_dirs *d = lua_touserdata(L, lua_upvalueindex(1));
    const char *fname = checked_script_path(L, d, 1);
    lua_settop(L, 1);
    if (luaL_loadfilex(L, fname, "t") != LUA_OK)
        return lua_error(L);
    lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
    return dofile_cont(L, LUA_OK, 0);
}

/* Wraps t[field] (t at index table) in a C closure holding the original. */
static void wrap_field(lua_State *L, int table, const char *field, lua_CFunction fn)
{
    lua_getfield(L, table, field);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, table, field);
}

/* The same, with the script folders as a second upvalue. */
static void wrap_field_dirs(lua_State *L, int table, const char *field, lua_CFunction fn, host_dirs *d)
{
    lua_getfield(L, table, field);
    lua_pushlightuserdata(L, d);
    lua_pushcclosure(L, fn, 2);
    lua_setfield(L, table, field);
}

/* collectgarbage: only what reads the collector or helps it along. Stopping
 * it would let a script grow the heap out of the cap's sight of garbage,
 * a full collection of a big heap costs a frame, and the tuning options
 * change the collector for every script. */
static int sandbox_collectgarbage(lua_State *L)
{
    static const char *const allowed[] = {"count", "step", "isrunning"};
    const char *opt = luaL_optstring(L, 1, "collect");
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) {
        if (strcmp(opt, allowed[i]) == 0)
            return call_original(L);
    }
    return luaL_error(L, "collectgarbage('%s') is disabled in the sandbox (allowed: 'count', 'step', "
                         "'isrunning'; run steer with --trust to allow it)", opt);
}

/* The metatables the standard library shares with every script, of strings
 * and of files: getmetatable gives a read-only view of them (see
 * steer_lua_protect_metatable). The strings' shows __index, which is the
 * global string table anyway; the files' hides its methods table. */
static void protect_shared_metatables(lua_State *L)
{
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        steer_lua_protect_metatable(L, -1, "strings", true);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE)
        steer_lua_protect_metatable(L, -1, "files", false);
    lua_pop(L, 1);
}

/* os: no processes, no exit, no files renamed or removed; getenv too, as
 * environment variables often hold tokens and keys. */
static void sandbox_os(lua_State *L)
{
    static const char *const os_off[] = {"execute", "exit", "remove", "rename", "tmpname", "setlocale", "getenv"};
    lua_getglobal(L, "os");
    int os = lua_gettop(L);
    for (size_t i = 0; i < sizeof os_off / sizeof *os_off; i++)
        disable(L, os, "os", os_off[i]);
    lua_pop(L, 1);
}

/* io: reads in the script folders only, no writes, no processes. */
static void sandbox_io(lua_State *L, host_dirs *d)
{
    lua_getglobal(L, "io");
    int io = lua_gettop(L);
    disable(L, io, "io", "popen");
    disable(L, io, "io", "tmpfile");
    wrap_field_dirs(L, io, "open", sandbox_open, d);
    wrap_field(L, io, "output", sandbox_output);
    /* Reading the terminal would block the app outside the budget's reach. */
    disable(L, io, "io", "read");
    disable(L, io, "io", "input");
    wrap_field_dirs(L, io, "lines", sandbox_lines, d);
    lua_pushnil(L);
    lua_setfield(L, io, "stdin");
    lua_pop(L, 1);
}

/* package: only the preload searcher and ours, so no C modules at all. */
static void sandbox_package(lua_State *L)
{
    lua_getglobal(L, "package");
    int pkg = lua_gettop(L);
    disable(L, pkg, "package", "loadlib");
    lua_pushliteral(L, "");
    lua_setfield(L, pkg, "cpath");
    lua_getfield(L, pkg, "searchers");
    int s = lua_gettop(L);
    for (lua_Integer i = (lua_Integer)luaL_len(L, s); i > 2; i--) {
        lua_pushnil(L);
        lua_rawseti(L, s, i);
    }
    lua_settop(L, pkg - 1);
}

/* Snapshot files: scripts neither write files nor read outside their
 * folders. snap:encode and steer.decode_snapshot stay (bytes only); the
 * app's own code writes and reads its files. */
static void sandbox_snapshot_files(lua_State *L)
{
    int top = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "steer") == LUA_TTABLE)
        disable(L, lua_gettop(L), "steer", "load_snapshot");
    lua_pop(L, 2);
    if (luaL_getmetatable(L, "steer.snapshot") == LUA_TTABLE && lua_getfield(L, -1, "__methods") == LUA_TTABLE)
        disable(L, lua_gettop(L), "snapshot", "save");
    lua_settop(L, top);
}

/* load, loadfile and dofile take text only (and files from the script
 * folders only); collectgarbage keeps its harmless options. */
static void sandbox_globals(lua_State *L, host_dirs *d)
{
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    wrap_field(L, g, "load", sandbox_load);
    wrap_field(L, g, "collectgarbage", sandbox_collectgarbage);
    protect_shared_metatables(L);
    lua_pushlightuserdata(L, d);
    lua_pushcclosure(L, sandbox_loadfile, 1);
    lua_setfield(L, g, "loadfile");
    lua_pushlightuserdata(L, d);
    lua_pushcclosure(L, sandbox_dofile, 1);
    lua_setfield(L, g, "dofile");
    lua_pop(L, 1);
}

/* debug.sethook would lift the budget, getupvalue/getregistry would reach
 * the originals kept above: only the read-only helpers stay, in a new
 * table that is both the global and package.loaded.debug. */
static void sandbox_debug(lua_State *L)
{
    lua_getglobal(L, "debug");
    int dbg = lua_gettop(L);
    lua_createtable(L, 0, 2);
    lua_getfield(L, dbg, "traceback");
    lua_setfield(L, -2, "traceback");
    lua_getfield(L, dbg, "getinfo");
    lua_setfield(L, -2, "getinfo");
    lua_pushvalue(L, -1);
    lua_setglobal(L, "debug");
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_insert(L, -2);
    lua_setfield(L, -2, "debug");
    lua_settop(L, dbg - 1);
}

static void apply_sandbox(lua_State *L, host_dirs *d)
{
    sandbox_os(L);
    sandbox_io(L, d);
    sandbox_package(L);
    sandbox_confine_searchpath(L, d);
    sandbox_snapshot_files(L);
    sandbox_globals(L, d);
    sandbox_debug(L);
}

/* ---------------------------------------------------------------- opening */

/* require finds modules in the scene folder, then scripts/ (host_searcher
 * replaces the Lua file searcher); package.path says the same for tools
 * that read it. */
static void setup_require(lua_State *L, host_dirs *d)
{
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s/?.lua;%s/?/init.lua",
                    d->scene[0] ? d->scene : d->scripts, d->scene[0] ? d->scene : d->scripts,
                    d->scripts, d->scripts);
    lua_setfield(L, -2, "path");
    lua_getfield(L, -1, "searchers");
    lua_pushlightuserdata(L, d);
    lua_pushcclosure(L, host_searcher, 1);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 2);
}

/* math.random and math.randomseed on the world's stream (see above). */
static void setup_random(lua_State *L, uint64_t seed)
{
    host_rng *r = lua_newuserdatauv(L, sizeof *r, 0);
    r->s = seed;
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "steer.host.rng"); /* keeps r alive */
    lua_getglobal(L, "math");
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, host_random, 1);
    lua_setfield(L, -2, "random");
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, host_randomseed, 1);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 2);
}

/* The string and table functions whose C work counts against the budget,
 * with results capped below the memory cap. */
static void install_bounded(lua_State *L, size_t memory_limit)
{
    static const char *const libs[][2] = {{LUA_STRLIBNAME, "find"}, {LUA_STRLIBNAME, "match"},
                                          {LUA_STRLIBNAME, "gmatch"}, {LUA_STRLIBNAME, "gsub"},
                                          {LUA_STRLIBNAME, "rep"}, {LUA_STRLIBNAME, "upper"},
                                          {LUA_STRLIBNAME, "lower"}, {LUA_STRLIBNAME, "reverse"},
                                          {LUA_TABLIBNAME, "concat"},
                                          {LUA_TABLIBNAME, "sort"}};
    size_t max_result = (size_t)64 << 20;
    if (memory_limit > 0 && memory_limit / 4 < max_result)
        max_result = memory_limit / 4;
    steer_host_push_bounded(L, max_result);
    int bounded = lua_gettop(L);
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        lua_getglobal(L, libs[i][0]);
        lua_getfield(L, bounded, libs[i][1]);
        lua_setfield(L, -2, libs[i][1]);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* pcall, xpcall and coroutine.resume that never catch a fatal error. */
static void install_guarded(lua_State *L)
{
    lua_pushcfunction(L, guarded_pcall);
    lua_setglobal(L, "pcall");
    lua_pushcfunction(L, guarded_xpcall);
    lua_setglobal(L, "xpcall");
    lua_getglobal(L, "coroutine");
    wrap_field(L, lua_gettop(L), "resume", guarded_resume);
    lua_pop(L, 1);
}

static int host_setup(lua_State *L)
{
    const steer_host_opts *o = lua_touserdata(L, 1);
    host_dirs *d = lua_touserdata(L, 2);

    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    setup_require(L, d);
    setup_random(L, o->seed);
    install_bounded(L, o->memory_limit);
    install_guarded(L);
    if (!o->trust)
        apply_sandbox(L, d);
    return 0;
}

static void resolve_dir(char out[PATH_MAX], const char *dir)
{
    out[0] = '\0';
    if (dir == NULL || dir[0] == '\0')
        return;
    if (sl_realpath(dir, out) == NULL) {
        strncpy(out, dir, PATH_MAX - 1);
        out[PATH_MAX - 1] = '\0';
    }
}

static int host_panic(lua_State *L)
{
    const char *m = lua_tostring(L, -1);
    fprintf(stderr, "steer: unprotected Lua error: %s\n", m ? m : "(not a string)");
    return 0;
}

lua_State *steer_host_open(const steer_host_opts *opts)
{
    host_alloc *a = calloc(1, sizeof *a);
    host_dirs *d = calloc(1, sizeof *d);
    if (a == NULL || d == NULL) {
        free(a);
        free(d);
        return NULL;
    }
    a->limit = opts->memory_limit;
    a->pool.used = &a->used;
    a->pool.limit = a->limit;
    a->mem.reserve = host_reserve;
    a->mem.release = host_release;
    a->mem.ud = a;
    resolve_dir(d->scene, opts->scene_dir);
    resolve_dir(d->scripts, opts->scripts_dir);
    d->trust = opts->trust;

    lua_State *L = lua_newstate(host_lua_alloc, a);
    if (L == NULL) {
        free(a);
        free(d);
        return NULL;
    }
    lua_atpanic(L, host_panic);
    lua_pushlightuserdata(L, &a->mem);
    lua_setfield(L, LUA_REGISTRYINDEX, SL_HOST_MEM);
    /* The folders live as long as the state: a full userdata owns them. */
    host_dirs *kept = lua_newuserdatauv(L, sizeof *kept, 0);
    *kept = *d;
    free(d);
    lua_setfield(L, LUA_REGISTRYINDEX, "steer.host.dirs");

    lua_pushcfunction(L, host_setup);
    lua_pushlightuserdata(L, (void *)opts);
    lua_pushlightuserdata(L, kept);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        fprintf(stderr, "steer: cannot set up Lua: %s\n", lua_tostring(L, -1));
        steer_host_close(L);
        return NULL;
    }
    return L;
}

void steer_host_close(lua_State *L)
{
    if (L == NULL)
        return;
    host_alloc *a = host_of(L);
    lua_close(L);
    pool_release(&a->pool);
    free(a);
}
