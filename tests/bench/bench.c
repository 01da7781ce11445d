/*
 * bench.c — steer's benchmark: prints figures, asserts nothing about speed.
 *
 *   steer_bench [--quick] [--only flock|brains|draw|orca|goals|nav|tiles|orders|raycast|decide|snapshot|rewind] [--map F.map --scen F.scen]
 *               [--scripts DIR] [--app PATH]
 *
 * 1. standing flock (radius 50, view 270 deg, 1.5/1/1, wrap) at constant
 *    density (~15 neighbours in the radius), N = 1k .. 1M, 1 and 2 threads
 * 2. the same rules through the all-pairs loop for N <= 10k, with the ratio
 * 3. 10k agents with Lua hunter/prey brains: the lean ones of
 *    tests/bench/brains/ and the demo's own (scripts/), at the density and mix
 *    of the demo scene and in a crowd at the flock's density; 1 and 2
 *    threads; the lean ones once more inside the app (its sandbox, budget
 *    and allocator)
 * 4. drawing 10k and 100k agents headless through the app's renderer
 * 5. bytes per agent at 1M (peak RSS over N)
 * 6. the flock checksum with 1 and with 2 threads, which must be equal
 * 8. navigation (--only nav): nav:path per second on the maze scene's
 *    walls (960 x 640, cells of 10), a flow-field build there, and 100k
 *    agents following that field (a standing follow_flow), 1 and 2 threads
 * 7. ORCA (--only orca; orca.c): RVO2's Circle at 250 and 10,000 agents, a
 *    random-goal crowd of 100,000 agents at ~10 neighbours (and at sizes and
 *    densities it was not tuned for), and issue 26's goal crowd (10,000
 *    agents walking to goals 20-60 away: goals per agent per 1,000 steps;
 *    --only goals runs it alone, --quick its first row alone), 1 and 2
 *    threads, collisions counted
 * 8. snapshots (--only snapshot): world snapshot and restore of the 100k
 *    flock (no brains, re-sorted storage) through the C API, and of the 10k
 *    Lua-brain worlds (lean and demo brains) through world:snapshot /
 *    world:restore; bytes in memory and encoded
 *
 * 9. the app's rewind buffer after 30 s of the demo (--only rewind,
 *    --rewind-test): its memory, and the time one step back takes
 * 10. the minimal flocking kernel (kernel.c: the same rules, SoA float
 *    re-sorted into cells every step, four candidates a vector, no API) at
 *    10k, 100k and 1M, 1 and 2 threads, timed in blocks alternating with
 *    steer's flock from the same state: steer's ratio to it
 * 11. the lean brains at 1 agent per 14,000, 3,600, 900 and 400 square
 *    units, with each agent's cost split into step, dispatch, Lua and query
 *    (density.c)
 *
 * 12. the flock at 100k and 1M over 96 steps, every step timed (the mean,
 *    the median and the slowest: a big world re-sorts its storage every
 *    32 steps, which the short runs of 1. never reach)
 *
 * 14. tile maps (--only tiles; tiles.c): MovingAI-format maps generated
 *    (random 33%, mazes of width 1 and 8, rooms, caves; 512 and larger)
 *    or read (--map, --scen): solved, length / octile optimum, ms a query
 *
 * 15. raycasts (--only raycast; raycast.c): rays per second against 100 ..
 *    10,000 obstacles with walls, short and long rays, and with 10k agents
 *
 * 16. perception and brain scheduling (--only decide; decide.c): 1,000
 *    guards perceiving among 10,000 agents (C calls, and Lua brains), and
 *    10,000 Lua brains with think_every = 1 and = 4
 *
 * 13. each core's speed (cores.c), before the rows and after them: a
 *    2-thread row is held back by the slower core
 *
 * Each flock configuration runs in a child process (fork) so its peak RSS is
 * its own. The brains run in a bare Lua state (luaL_newstate and the standard
 * libraries, as stock lua5.4 makes) and, for the last rows, in the app. Timing uses CLOCK_MONOTONIC here, in the benchmark, never in the core.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "cores.h"
#include "density.h"
#include "kernel.h"
#include "orca.h"
#include "raycast.h"
#include "decide.h"
#include "tiles.h"
#include "orders.h"
#include "steer.h"
#include "steer_lua.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/// Peak resident set size of this process in bytes (VmHWM).
static long peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

typedef struct result {
    double ms_per_step;
    unsigned long long checksum;
    long rss;
    int steps;
} result;

/// World side for n agents at ~15 neighbours within radius 50.
static double side_for(int n)
{
    double density = 15.0 / (ST_PI * 50.0 * 50.0);
    return sqrt((double)n / density);
}

static st_world *make_flock(int n, int threads, bool brute)
{
    double side = side_for(n);
    st_world_def wd = st_default_world_def();
    wd.width = wd.height = side;
    wd.seed = 42;
    wd.threads = threads;
    wd.capacity = n;
    st_world *w = st_world_create(&wd);
    if (!w) return NULL;
    st_world_set_brute_force(w, brute);
    st_behavior fl = st_default_behavior(ST_FLOCK); // radius 50, 270 deg, 1.5/1/1
    for (int i = 0; i < n; i++) {
        st_agent_def d = st_default_agent_def();
        d.pos = st_v2(st_world_random(w) * side, st_world_random(w) * side);
        d.vel = st_v2_from_angle(st_world_random(w) * 2.0 * ST_PI, 100.0);
        st_agent_id id = st_world_spawn(w, &d);
        st_agent_set_behaviors(w, id, &fl, 1);
    }
    return w;
}

static result run_flock(int n, int threads, bool brute, int steps)
{
    result r = {0};
    long rss0 = peak_rss();
    st_world *w = make_flock(n, threads, brute);
    if (!w) return r;
    for (int i = 0; i < 3; i++) st_world_step(w, 1.0 / 60.0); // warm the arrays
    double t0 = now();
    for (int i = 0; i < steps; i++) st_world_step(w, 1.0 / 60.0);
    double el = now() - t0;
    r.ms_per_step = el / steps * 1e3;
    r.checksum = (unsigned long long)st_world_checksum(w);
    r.rss = peak_rss() - rss0;
    r.steps = steps;
    st_world_destroy(w);
    return r;
}

/// Runs fn(arg, out) in a child process, so its peak memory is its own, and
/// reads the `size` bytes of *out back through a pipe (zeroed when the child
/// fails; run here when there is no pipe).
static void run_in_child(void (*fn)(const void *arg, void *out), const void *arg, void *out, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0) {
        fn(arg, out);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        fn(arg, out);
        ssize_t wr = write(fd[1], out, size);
        _exit(wr == (ssize_t)size ? 0 : 1);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], out, size) != (ssize_t)size) memset(out, 0, size);
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
}

typedef struct flock_args {
    int n, threads, steps;
    bool brute;
} flock_args;

static void flock_child(const void *arg, void *out)
{
    const flock_args *f = arg;
    *(result *)out = run_flock(f->n, f->threads, f->brute, f->steps);
}

/// run_flock in a child process.
static result in_child(int n, int threads, bool brute, int steps)
{
    result r = {0};
    flock_args f = {n, threads, steps, brute};
    run_in_child(flock_child, &f, &r, sizeof r);
    return r;
}

static void row(const char *what, int n, int threads, const result *r, const char *extra)
{
    double ns = r->ms_per_step * 1e6 / n;
    printf("%-22s %9d %7d %10.3f %12.0f %12.1f  %s\n", what, n, threads, r->ms_per_step, ns,
           r->ms_per_step > 0 ? 1000.0 / r->ms_per_step : 0.0, extra ? extra : "");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the flock over a long run: every step timed ---- */

/// Over a long run a big world's steps are not all alike: every so often one
/// begins by re-sorting storage into grid order (st__reorder), which the
/// short runs above never reach. The mean, the median and the slowest step.
typedef struct spread {
    double mean, median, slowest;
    unsigned long long checksum;
} spread;

#define SPREAD_STEPS 96

static void spread_child(const void *arg, void *out)
{
    const flock_args *f = arg;
    spread r = {0};
    st_world *w = make_flock(f->n, f->threads, false);
    if (w) {
        double t[SPREAD_STEPS], sum = 0;
        for (int i = 0; i < 3; i++) st_world_step(w, 1.0 / 60.0);
        for (int i = 0; i < SPREAD_STEPS; i++) {
            double t0 = now();
            st_world_step(w, 1.0 / 60.0);
            t[i] = (now() - t0) * 1e3;
            sum += t[i];
        }
        qsort(t, SPREAD_STEPS, sizeof t[0], cmp_double);
        r = (spread){sum / SPREAD_STEPS, t[SPREAD_STEPS / 2], t[SPREAD_STEPS - 1], st_world_checksum(w)};
        st_world_destroy(w);
    }
    *(spread *)out = r;
}

/// The flock at 100k (and 1M without quick), 1 and 2 threads, over
/// SPREAD_STEPS steps each.
static void spread_rows(bool quick)
{
    printf("\nthe flock over %d steps, every step timed: the mean, the median step and the slowest (a step\n"
           "that begins by re-sorting storage into grid order, every 32 steps in worlds of 65,536 or more)\n",
           SPREAD_STEPS);
    int sizes[] = {100000, 1000000};
    for (int s = 0; s < (quick ? 1 : 2); s++) {
        unsigned long long one = 0;
        for (int threads = 1; threads <= 2; threads++) {
            flock_args f = {sizes[s], threads, SPREAD_STEPS, false};
            spread sp = {0};
            run_in_child(spread_child, &f, &sp, sizeof sp);
            if (sp.mean <= 0) continue;
            result r = {sp.mean, sp.checksum, 0, SPREAD_STEPS};
            char extra[160];
            snprintf(extra, sizeof extra, "median step %.2f ms, slowest %.2f (%.1fx the median)%s", sp.median,
                     sp.slowest, sp.slowest / sp.median,
                     threads == 1 ? "" : sp.checksum == one ? "; checksum == 1 thread" : "; checksum != 1 thread");
            row("flock (long run)", sizes[s], threads, &r, extra);
            if (threads == 1) one = sp.checksum;
        }
    }
}

/* ---- Lua brains ---- */

/* n agents on a wrap square of the given side, every `every`-th a hunter. */
static const char *brain_bench_lua =
    "local steer = require 'steer'\n"
    "local n, side, every, hunter_brain, prey_brain, threads, cell = ...\n"
    "local w = steer.world{ width = side, height = side, edges = 'wrap', seed = 7, threads = threads,\n"
    "                       cell_size = cell }\n"
    "for i = 1, n do\n"
    "  local hunter = i % every == 0\n"
    "  w:spawn{ pos = { w:random() * side, w:random() * side },\n"
    "           tag = hunter and 'hunter' or 'prey', brain = hunter and hunter_brain or prey_brain,\n"
    "           max_speed = hunter and 160 or 150 }\n"
    "end\n"
    "return w\n";

/* ---- navigation ---- */

/* The maze scene's walls and pillars in a bare world; then nav:path between
 * random free points, flow-field builds, and a crowd of n following one
 * field. Returns paths/s, ms per field build, ms per step with 1 and 2
 * threads and both checksums. */
static const char *nav_bench_lua =
    "local steer = require 'steer'\n"
    "local now, n, quick = ...\n"
    "local maze = require 'maze'\n"
    "local function build(threads)\n"
    "  local w = steer.world{ width = 960, height = 640, edges = 'bounce', seed = 5, threads = threads }\n"
    "  for _, r in ipairs(maze.walls) do\n"
    "    w:add_obstacle{ polygon = { { r[1], r[2] }, { r[3], r[2] }, { r[3], r[4] }, { r[1], r[4] } } }\n"
    "  end\n"
    "  for _, p in ipairs(maze.pillars) do w:add_obstacle{ pos = { p[1], p[2] }, radius = p[3] } end\n"
    "  return w, w:navgrid{ cell = 10, clearance = 9 }\n"
    "end\n"
    "local w, nav = build(1)\n"
    "local pts = {}\n"
    "while #pts < 400 do\n"
    "  local p = steer.vec2(w:random() * 960, w:random() * 640)\n"
    "  if not nav:blocked(p) then pts[#pts + 1] = p end\n"
    "end\n"
    "local q = quick and 400 or 3000\n"
    "nav:path(pts[1], pts[2])\n"
    "local t0, ok = now(), 0\n"
    "for i = 1, q do if nav:path(pts[i % 400 + 1], pts[(i * 7) % 400 + 1]) then ok = ok + 1 end end\n"
    "local paths = q / (now() - t0)\n"
    "local fb = quick and 5 or 20\n"
    "t0 = now()\n"
    "for _ = 1, fb do nav:flow_field(maze.exit) end\n"
    "local field_ms = (now() - t0) / fb * 1e3\n"
    "local res = { paths, field_ms, ok / q }\n"
    "for threads = 1, 2 do\n"
    "  local cw, cnav = build(threads)\n"
    "  local f = cnav:flow_field(maze.exit)\n"
    "  local list = { { 'follow_flow', field = f } }\n"
    "  for i = 1, n do cw:spawn{ pos = pts[i % 400 + 1], radius = 1, max_speed = 60, behaviors = list } end\n"
    "  for _ = 1, 3 do cw:step() end\n"
    "  local steps = quick and 5 or 30\n"
    "  t0 = now()\n"
    "  for _ = 1, steps do cw:step() end\n"
    "  res[#res + 1] = (now() - t0) / steps * 1e3\n"
    "  res[#res + 1] = cw:checksum()\n"
    "end\n"
    "return res\n";

static int lua_now(lua_State *L)
{
    lua_pushnumber(L, now());
    return 1;
}

static void nav_rows(const char *scripts, bool quick)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua", scripts);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    int n = 100000;
    if (luaL_loadstring(L, nav_bench_lua) != LUA_OK) goto fail;
    lua_pushcfunction(L, lua_now);
    lua_pushinteger(L, n);
    lua_pushboolean(L, quick);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) goto fail;
    double v[7];
    for (int i = 0; i < 7; i++) {
        lua_rawgeti(L, -1, i + 1);
        v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_rawgeti(L, -1, 5);
    long long sum1 = lua_tointeger(L, -1);
    lua_rawgeti(L, -2, 7);
    long long sum2 = lua_tointeger(L, -1);
    printf("\nnavigation (the maze scene's walls, 960 x 640, cells of 10, clearance 9):\n");
    printf("  nav:path             %10.0f paths/s   (%.0f%% of random pairs found a route)\n", v[0], v[2] * 100);
    printf("  flow-field build     %10.2f ms\n", v[1]);
    result r1 = {v[3], 0, 0, 0}, r2 = {v[5], 0, 0, 0};
    row("follow_flow", n, 1, &r1, "standing, C only");
    row("follow_flow", n, 2, &r2, sum1 == sum2 ? "checksum == 1 thread" : "checksum != 1 thread");
    lua_close(L);
    return;
fail:
    fprintf(stderr, "nav bench: %s\n", lua_tostring(L, -1));
    lua_close(L);
}

/// Runs `blocks` blocks of `steps` steps after 3 warm-up steps; ms[0..2]:
/// the median block's ms per step, the fastest and the slowest. A shared
/// 2-core machine is noisy: one timing of a few ms swings by 10%.
enum { BRAIN_BLOCKS = 9 };
static int run_lua_brains(const char *scripts, int n, double side, int every, const char *hunter,
                          const char *prey, int threads, double cell, int steps, double ms[3],
                          long long *checksum)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/../tests/bench/brains/?.lua", scripts, scripts);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    if (luaL_loadstring(L, brain_bench_lua) != LUA_OK) goto fail;
    lua_pushinteger(L, n);
    lua_pushnumber(L, side);
    lua_pushinteger(L, every);
    lua_pushstring(L, hunter);
    lua_pushstring(L, prey);
    lua_pushinteger(L, threads);
    lua_pushnumber(L, cell);
    if (lua_pcall(L, 7, 1, 0) != LUA_OK) goto fail;
    int world = lua_gettop(L);
    double block[BRAIN_BLOCKS];
    for (int b = -1; b < BRAIN_BLOCKS; b++) {
        int k = b < 0 ? 3 : steps; // block -1: warm-up
        double t0 = now();
        for (int i = 0; i < k; i++) {
            lua_getfield(L, world, "step");
            lua_pushvalue(L, world);
            if (lua_pcall(L, 1, 0, 0) != LUA_OK) goto fail;
        }
        if (b >= 0) block[b] = (now() - t0) / steps * 1e3;
    }
    qsort(block, BRAIN_BLOCKS, sizeof block[0], cmp_double);
    ms[0] = block[BRAIN_BLOCKS / 2];
    ms[1] = block[0];
    ms[2] = block[BRAIN_BLOCKS - 1];
    lua_getfield(L, world, "checksum");
    lua_pushvalue(L, world);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) goto fail;
    *checksum = (long long)strtoull(lua_tostring(L, -1), NULL, 16); /* 16 hex digits */
    lua_close(L);
    return 0;
fail:
    fprintf(stderr, "lua brains: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return -1;
}

/* ---- the minimal flocking kernel (tests/bench/kernel.c) ---- */

/// A kernel with the state of steer's flock world w (n agents, spawn order).
static kflock *kernel_of(st_world *w, int n, int threads)
{
    double *a = malloc((size_t)n * 6 * sizeof *a);
    if (!a) return NULL;
    int i = 0;
    for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && i < n;
         id = st_world_next(w, id, ST_TAG_ANY), i++) {
        st_vec2 p = st_agent_pos(w, id), v = st_agent_vel(w, id), h = st_agent_heading(w, id);
        a[i] = p.x, a[n + i] = p.y, a[2 * n + i] = v.x, a[3 * n + i] = v.y, a[4 * n + i] = h.x, a[5 * n + i] = h.y;
    }
    kflock *k = kflock_create(n, st_world_width(w), 50.0, threads, a, a + n, a + 2 * n, a + 3 * n, a + 4 * n, a + 5 * n);
    free(a);
    return k;
}

/// Steer's flock and the kernel from one state, timed in alternate blocks
/// of `steps` steps in one process, so both see the same load: the median
/// block of each and the median of the blocks' ratios (steer / kernel).
typedef struct kernel_pair {
    double steer_ms, kernel_ms, ratio, ratio_lo, ratio_hi;
    unsigned long long kernel_checksum;
    int blocks;
} kernel_pair;

enum { KERNEL_BLOCKS_MAX = 9 };

static kernel_pair run_kernel_pair(int n, int threads, int blocks, int steps)
{
    kernel_pair o = {0};
    st_world *w = make_flock(n, threads, false);
    kflock *k = w ? kernel_of(w, n, threads) : NULL;
    if (!k) {
        st_world_destroy(w);
        return o;
    }
    for (int i = 0; i < 3; i++) st_world_step(w, 1.0 / 60.0), kflock_step(k, 1.0 / 60.0);
    double sm[KERNEL_BLOCKS_MAX], km[KERNEL_BLOCKS_MAX], ra[KERNEL_BLOCKS_MAX];
    if (blocks > KERNEL_BLOCKS_MAX) blocks = KERNEL_BLOCKS_MAX;
    for (int b = 0; b < blocks; b++) {
        double t0 = now();
        for (int i = 0; i < steps; i++) st_world_step(w, 1.0 / 60.0);
        double t1 = now();
        for (int i = 0; i < steps; i++) kflock_step(k, 1.0 / 60.0);
        double t2 = now();
        sm[b] = (t1 - t0) / steps * 1e3;
        km[b] = (t2 - t1) / steps * 1e3;
        ra[b] = sm[b] / km[b];
    }
    qsort(sm, (size_t)blocks, sizeof sm[0], cmp_double);
    qsort(km, (size_t)blocks, sizeof km[0], cmp_double);
    qsort(ra, (size_t)blocks, sizeof ra[0], cmp_double);
    o.steer_ms = sm[blocks / 2];
    o.kernel_ms = km[blocks / 2];
    o.ratio = ra[blocks / 2];
    o.ratio_lo = ra[0];
    o.ratio_hi = ra[blocks - 1];
    o.kernel_checksum = kflock_checksum(k);
    o.blocks = blocks;
    kflock_destroy(k);
    st_world_destroy(w);
    return o;
}

typedef struct kernel_args {
    int n, threads, blocks, steps;
} kernel_args;

static void kernel_child(const void *arg, void *out)
{
    const kernel_args *k = arg;
    *(kernel_pair *)out = run_kernel_pair(k->n, k->threads, k->blocks, k->steps);
}

/// run_kernel_pair in a child process (its memory is its own).
static kernel_pair kernel_pair_in_child(int n, int threads, int blocks, int steps)
{
    kernel_pair r = {0};
    kernel_args k = {n, threads, blocks, steps};
    run_in_child(kernel_child, &k, &r, sizeof r);
    return r;
}

/// How a flock moves: its local order (agents binned into squares of 50,
/// the length of each square's heading sum over its agents, for squares of
/// two or more: 1 when neighbours fly alike, about 1/sqrt(n) at random) and
/// its mean speed. a: n x, then y, heading x, heading y, speed.
static void flock_stats(const double *a, int n, double side, double *order, double *speed)
{
    int nb = (int)(side / 50.0);
    if (nb < 1) nb = 1;
    double *cell = calloc((size_t)nb * nb * 3, sizeof *cell);
    double sum = 0.0, count = 0.0, sp = 0.0;
    if (!cell) return;
    for (int i = 0; i < n; i++) {
        int cx = (int)(a[i] / side * nb), cy = (int)(a[n + i] / side * nb);
        cx = cx < 0 ? 0 : cx >= nb ? nb - 1 : cx;
        cy = cy < 0 ? 0 : cy >= nb ? nb - 1 : cy;
        double *c = cell + 3 * ((size_t)cy * nb + cx);
        c[0] += a[2 * n + i];
        c[1] += a[3 * n + i];
        c[2] += 1.0;
        sp += a[4 * n + i];
    }
    for (size_t c = 0; c < (size_t)nb * nb; c++)
        if (cell[3 * c + 2] >= 2.0) {
            sum += sqrt(cell[3 * c] * cell[3 * c] + cell[3 * c + 1] * cell[3 * c + 1]);
            count += cell[3 * c + 2];
        }
    *order = count > 0.0 ? sum / count : 0.0;
    *speed = n ? sp / n : 0.0;
    free(cell);
}

/// flock_stats of steer's world.
static void steer_stats(st_world *w, int n, double *a, double *order, double *speed)
{
    int i = 0;
    for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && i < n;
         id = st_world_next(w, id, ST_TAG_ANY), i++) {
        st_vec2 p = st_agent_pos(w, id), h = st_agent_heading(w, id);
        a[i] = p.x, a[n + i] = p.y, a[2 * n + i] = h.x, a[3 * n + i] = h.y;
        a[4 * n + i] = st_v2_len(st_agent_vel(w, id));
    }
    flock_stats(a, n, st_world_width(w), order, speed);
}

/// The kernel does what steer's flock does, in float: both from one state,
/// the largest position difference after 1 step, and after 600 (10 s) the
/// flock each has made of it (local order, mean speed).
static void kernel_agrees(int n)
{
    st_world *w = make_flock(n, 1, false);
    kflock *k = w ? kernel_of(w, n, 1) : NULL;
    double *a = malloc((size_t)n * 5 * sizeof *a);
    if (!k || !a) goto out;
    double o0, s0, so, ss, ko, ks, diff = 0.0;
    steer_stats(w, n, a, &o0, &s0);
    for (int s = 1; s <= 600; s++) {
        st_world_step(w, 1.0 / 60.0);
        kflock_step(k, 1.0 / 60.0);
        if (s != 1) continue;
        kflock_state(k, a, a + n, a + 2 * n, a + 3 * n, a + 4 * n);
        int i = 0;
        for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id) && i < n;
             id = st_world_next(w, id, ST_TAG_ANY), i++) {
            st_vec2 d = st_world_offset(w, st_agent_pos(w, id), st_v2(a[i], a[n + i]));
            if (!(st_v2_len(d) <= diff)) diff = st_v2_len(d);
        }
    }
    steer_stats(w, n, a, &so, &ss);
    kflock_state(k, a, a + n, a + 2 * n, a + 3 * n, a + 4 * n);
    flock_stats(a, n, st_world_width(w), &ko, &ks);
    printf("flock kernel vs steer at N=%d from one state (local order %.3f, mean speed %.1f): largest position\n"
           "difference %.1e after 1 step (the kernel is float); after 600 steps local order %.3f in steer, %.3f in "
           "the kernel,\nmean speed %.1f and %.1f\n",
           n, o0, s0, diff, so, ko, ss, ks);
out:
    free(a);
    kflock_destroy(k);
    st_world_destroy(w);
}

/// The kernel at 10k, 100k and 1M (not 1M with --quick), and steer's
/// ratio to it, each pair timed in alternate blocks in one process.
static void kernel_rows(bool quick)
{
    printf("\n");
    kernel_agrees(10000);
    printf("%-22s %9s %7s %10s %12s %12s\n", "case", "N", "threads", "ms/step", "ns/agent", "steps/s");
    const int sizes[3] = {10000, 100000, 1000000};
    for (int s = 0; s < (quick ? 2 : 3); s++) {
        int n = sizes[s];
        int steps = n >= 1000000 ? 2 : n >= 100000 ? 5 : 20, blocks = quick ? 3 : n >= 1000000 ? 5 : 9;
        unsigned long long sum1 = 0;
        for (int t = 1; t <= 2; t++) {
            kernel_pair p = kernel_pair_in_child(n, t, blocks, steps);
            if (t == 1) sum1 = p.kernel_checksum;
            result k = {p.kernel_ms, p.kernel_checksum, 0, steps};
            char extra[200];
            snprintf(extra, sizeof extra, "steer %.2f ms: steer is %.2fx the kernel (blocks %.2f..%.2f)%s", p.steer_ms,
                     p.ratio, p.ratio_lo, p.ratio_hi,
                     t == 1 ? "" : p.kernel_checksum == sum1 ? "; checksum == 1 thread" : "; checksum != 1 thread");
            row("flock kernel", n, t, &k, extra);
        }
    }
}

/* ---- drawing through the app ---- */

static void run_draw(const char *app, const char *scripts, int n)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --headless --ticks 5 --draw-frames 20 %s/../tests/bench/crowd.lua -- %d 2>&1", app,
             scripts, n);
    FILE *p = popen(cmd, "r");
    if (!p) {
        printf("draw %d: cannot run %s\n", n, app);
        return;
    }
    char line[512];
    bool any = false;
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        any = true;
    }
    if (pclose(p) != 0 || !any) printf("draw %d: the app did not report (%s)\n", n, cmd);
}

/* ---- the app's windows (Dear ImGui) over the demo ---- */

/// The demo's frame with the stats window and timeline only, then with an
/// agent selected (its window: fields, behaviour shares, `self`), in SDL's
/// software renderer: what the windows cost a headless frame.
static void run_draw_windows(const char *app, const char *scripts)
{
    const char *modes[2][2] = {{"", "stats + timeline"}, {"--select 470,250", "+ agent window"}};
    for (int i = 0; i < 2; i++) {
        char cmd[1024], line[512];
        snprintf(cmd, sizeof cmd, "%s --headless --ticks 300 %s --draw-frames 40 %s/hunt.lua 2>&1", app,
                 modes[i][0], scripts);
        FILE *p = popen(cmd, "r");
        bool any = false;
        while (p && fgets(line, sizeof line, p)) {
            if (strncmp(line, "draw:", 5) != 0)
                continue;
            printf("windows (%s): %s", modes[i][1], line);
            any = true;
        }
        if (!p || pclose(p) != 0 || !any) printf("windows: the app did not report (%s)\n", cmd);
    }
}

/* ---- Lua brains inside the app ---- */

/// The app's own figure for the lean brains: its Lua state has the sandbox,
/// the instruction budget (a count hook: every VM instruction pays for it)
/// and a pooled allocator, unlike the bare state above. extra_opts: "" or
/// "--budget 0". Returns ms per step, or -1.
static double run_app_brains(const char *app, const char *scripts, const char *extra_opts, long long *checksum)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --headless --ticks 300 %s %s/../tests/bench/brains/scene.lua 2>&1", app, extra_opts,
             scripts);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    double ms = -1;
    unsigned long long sum = 0;
    while (fgets(line, sizeof line, p)) {
        double m;
        if (sscanf(line, "ticks=%*d agents=%*d ms_per_step=%lf checksum=%llx", &m, &sum) == 2) ms = m;
    }
    if (pclose(p) != 0) ms = -1;
    if (ms < 0) printf("lua brains (app): the app did not report (%s)\n", cmd);
    *checksum = (long long)sum;
    return ms;
}

/* ---- the app's rewind buffer ---- */

/// 30 s of the demo, then one tick back and forward again (--rewind-test):
/// the buffer's memory as the app reports it, and the time the step back
/// took (the worst case: it re-simulates every tick from the start).
static void run_rewind(const char *app, const char *scripts)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --headless --ticks 1800 --rewind-test 1800:1 %s/hunt.lua 2>&1", app, scripts);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    char line[512];
    double mb = -1, ms = -1;
    long ticks = 0, back = 0, resim = 0;
    bool equal = false;
    while (fgets(line, sizeof line, p)) {
        sscanf(line, "rewind: memory %lf MB for %ld ticks", &mb, &ticks);
        if (sscanf(line, "rewind: back %ld ticks to tick %*d (re-simulated %ld ticks from %*[^0-9]%*d in %lf ms", &back,
                   &resim, &ms) == 3)
            equal = strstr(line, "first pass: yes") != NULL;
    }
    if (pclose(p) != 0 || mb < 0 || ms < 0) {
        printf("rewind (app): the app did not report (%s)\n", cmd);
        return;
    }
    printf("rewind (app, demo)      %ld ticks (%.0f s): buffer %.2f MB (target <= 64 MB); %ld tick back = %ld ticks "
           "re-simulated in %.1f ms, %s the first pass\n",
           ticks, ticks / 60.0, mb, back, resim, ms, equal ? "equal to" : "DIFFERENT from");
}

/* ---- snapshots ---- */

enum { SNAP_REPS = 9 };

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/// The 100k flock through the C API: snapshot, restore, encode, decode.
static void snapshot_flock(int n)
{
    st_world *w = make_flock(n, 1, false);
    if (!w) return;
    for (int i = 0; i < 40; i++) st_world_step(w, 1.0 / 60.0); // re-sorted at ticks 0 and 32
    uint64_t sum = st_world_checksum(w);
    double new_ms[SNAP_REPS], snap_ms[SNAP_REPS], rest_ms[SNAP_REPS], enc_ms[SNAP_REPS], dec_ms[SNAP_REPS];
    st_snapshot *s = st_world_snapshot(w);
    size_t bytes = 0;
    bool same = s != NULL;
    // new snapshots (fresh memory: page faults included)
    for (int k = 0; k < SNAP_REPS; k++) {
        double t0 = now();
        st_snapshot *fresh = st_world_snapshot(w);
        new_ms[k] = (now() - t0) * 1e3;
        st_snapshot_destroy(fresh);
    }
    // taken again into the same snapshot (what a rewind ring does)
    for (int k = 0; k < SNAP_REPS && s; k++) {
        double t0 = now();
        same = st_snapshot_capture(s, w) && same;
        snap_ms[k] = (now() - t0) * 1e3;
    }
    // restored after a step
    for (int k = 0; k < SNAP_REPS && s; k++) {
        st_world_step(w, 1.0 / 60.0);
        double t0 = now();
        same = st_world_restore(w, s) && same;
        rest_ms[k] = (now() - t0) * 1e3;
        same = same && st_world_checksum(w) == sum;
    }
    for (int k = 0; k < SNAP_REPS && s; k++) {
        double t0 = now();
        void *b = st_snapshot_encode(s, &bytes);
        enc_ms[k] = (now() - t0) * 1e3;
        t0 = now();
        st_snapshot *d = st_snapshot_decode(b, bytes, NULL, 0);
        dec_ms[k] = (now() - t0) * 1e3;
        same = same && d && st_snapshot_checksum(d) == sum;
        st_snapshot_destroy(d);
        free(b);
    }
    if (!s) return;
    printf("%-22s %9d   snapshot %7.2f ms  restore %7.2f ms  (median of %d; capture into a reused snapshot; "
           "checksum %s)\n",
           "snapshot (no brains)", n, median(snap_ms, SNAP_REPS), median(rest_ms, SNAP_REPS), SNAP_REPS,
           same ? "equal" : "DIFFERENT");
    printf("%-22s %9s   new snapshot %.2f ms (fresh memory); %zu bytes in memory (%.0f per agent), %zu encoded; "
           "encode %.2f ms, decode %.2f ms\n",
           "", "", median(new_ms, SNAP_REPS), st_snapshot_memory(s), (double)st_snapshot_memory(s) / n, bytes,
           median(enc_ms, SNAP_REPS), median(dec_ms, SNAP_REPS));
    st_snapshot_destroy(s);
    st_world_destroy(w);
}

static const char *snapshot_lua =
    "local w, reps = ...\n"
    "local clock = os.clock\n"
    "local function med(t) table.sort(t) return t[(#t + 1) // 2] end\n"
    "local sum = w:checksum()\n"
    "local ts, tr, snap = {}, {}, nil\n"
    "for k = 1, reps do\n"
    "  local t0 = clock(); snap = w:snapshot(); ts[k] = (clock() - t0) * 1e3\n"
    "  w:step()\n"
    "  t0 = clock(); w:restore(snap); tr[k] = (clock() - t0) * 1e3\n"
    "  assert(w:checksum() == sum, 'restore changed the checksum')\n"
    "end\n"
    "return med(ts), med(tr), snap.memory, #snap:encode()\n";

/// The 10k Lua-brain world (as the brain rows make it): world:snapshot and
/// world:restore, brains' self tables included. os.clock: CPU time of this
/// process (one thread here), not wall time.
static void snapshot_brains(const char *scripts, const char *what, const char *hunter, const char *prey, int n,
                            double side)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/../tests/bench/brains/?.lua", scripts, scripts);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    if (luaL_loadstring(L, brain_bench_lua) != LUA_OK) goto fail;
    lua_pushinteger(L, n);
    lua_pushnumber(L, side);
    lua_pushinteger(L, 14);
    lua_pushstring(L, hunter);
    lua_pushstring(L, prey);
    lua_pushinteger(L, 1);
    lua_pushnumber(L, 50);
    if (lua_pcall(L, 7, 1, 0) != LUA_OK) goto fail;
    for (int i = 0; i < 30; i++) {
        lua_getfield(L, -1, "step");
        lua_pushvalue(L, -2);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) goto fail;
    }
    if (luaL_loadstring(L, snapshot_lua) != LUA_OK) goto fail;
    lua_insert(L, -2);
    lua_pushinteger(L, SNAP_REPS);
    if (lua_pcall(L, 2, 4, 0) != LUA_OK) goto fail;
    printf("%-22s %9d   snapshot %7.2f ms  restore %7.2f ms  (median of %d, CPU time; checksum equal)\n", what, n,
           lua_tonumber(L, -4), lua_tonumber(L, -3), SNAP_REPS);
    printf("%-22s %9s   %lld bytes in memory, %lld encoded (self tables and all)\n", "", "",
           (long long)lua_tointeger(L, -2), (long long)lua_tointeger(L, -1));
    lua_close(L);
    return;
fail:
    fprintf(stderr, "snapshot brains: %s\n", lua_tostring(L, -1));
    lua_close(L);
}

static void snapshot_rows(const char *scripts, bool quick)
{
    printf("\n");
    snapshot_flock(quick ? 20000 : 100000);
    int nb = 10000;
    double demo_side = sqrt(nb * (960.0 * 640.0) / 43.0);
    snapshot_brains(scripts, "snapshot (lean brains)", "lean_hunter", "lean_prey", nb, demo_side);
    snapshot_brains(scripts, "snapshot (demo brains)", "hunter", "prey", nb, demo_side);
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *scripts = "scripts";
    const char *app = "build/steer";
    const char *only = NULL, *map = NULL, *scen = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--scripts") && i + 1 < argc) scripts = argv[++i];
        else if (!strcmp(argv[i], "--app") && i + 1 < argc) app = argv[++i];
        else if (!strcmp(argv[i], "--map") && i + 1 < argc) map = argv[++i];
        else if (!strcmp(argv[i], "--scen") && i + 1 < argc) scen = argv[++i];
        else {
            fprintf(stderr, "usage: steer_bench [--quick] [--only flock|brains|draw|orca|goals|nav|tiles|orders|raycast|decide|snapshot|rewind] "
                            "[--map F.map --scen F.scen] [--scripts DIR] [--app PATH]\n");
            return 2;
        }
    }
    if (only && strcmp(only, "flock") && strcmp(only, "brains") && strcmp(only, "draw") && strcmp(only, "orca") &&
        strcmp(only, "goals") && strcmp(only, "nav") && strcmp(only, "tiles") && strcmp(only, "orders") && strcmp(only, "raycast") && strcmp(only, "decide") && strcmp(only, "snapshot") &&
        strcmp(only, "rewind")) {
        fprintf(stderr, "steer_bench: --only takes flock, brains, draw, orca, goals, nav, tiles, orders, raycast, decide, snapshot or rewind, not '%s'\n",
                only);
        return 2;
    }
    bool do_flock = !only || !strcmp(only, "flock"), do_brains = !only || !strcmp(only, "brains"),
         do_draw = !only || !strcmp(only, "draw"), do_orca = !only || !strcmp(only, "orca"),
         do_goals = do_orca || !strcmp(only, "goals"),
         do_nav = !only || !strcmp(only, "nav"), do_snapshot = !only || !strcmp(only, "snapshot"),
         do_rewind = !only || !strcmp(only, "rewind"), do_tiles = !only || !strcmp(only, "tiles"),
         do_orders = !only || !strcmp(only, "orders"), do_raycast = !only || !strcmp(only, "raycast"),
         do_decide = !only || !strcmp(only, "decide");

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("steer %s benchmark — %ld cores; flock radius 50, fov 270, sep/align/coh 1.5/1/1, wrap, ~15 neighbours\n",
           ST_VERSION, cores);
    cores_line("start");
    printf("\n%-22s %9s %7s %10s %12s %12s\n", "case", "N", "threads", "ms/step", "ns/agent", "steps/s");

    int sizes[] = {1000, 10000, 100000, 1000000};
    int nsizes = !do_flock ? 0 : quick ? 3 : 4;
    result grid1[4] = {{0}}, grid2[4] = {{0}};
    for (int s = 0; s < nsizes; s++) {
        int n = sizes[s];
        int steps = n >= 1000000 ? 5 : n >= 100000 ? 20 : n >= 10000 ? 100 : 400;
        if (quick) steps = steps / 4 + 1;
        grid1[s] = in_child(n, 1, false, steps);
        row("flock (grid)", n, 1, &grid1[s], "");
        grid2[s] = in_child(n, 2, false, steps);
        char eq[96];
        snprintf(eq, sizeof eq, "checksum %s 1 thread", grid1[s].checksum == grid2[s].checksum ? "==" : "!=");
        row("flock (grid)", n, 2, &grid2[s], eq);
    }
    for (int s = 0; s < (do_flock ? 2 : 0); s++) {
        int n = sizes[s];
        result ap = in_child(n, 1, true, n >= 10000 ? 3 : 40);
        char ratio[96];
        snprintf(ratio, sizeof ratio, "grid is %.0fx faster (1 thread), %.0fx (2 threads)",
                 ap.ms_per_step / grid1[s].ms_per_step, ap.ms_per_step / grid2[s].ms_per_step);
        row("flock (all-pairs)", n, 1, &ap, ratio);
    }
    if (do_flock) spread_rows(quick);
    if (do_flock) kernel_rows(quick);

    // The brains three times. "lean": the workload the issue defines (a
    // state machine, a nearest query and one or two behaviour calls per
    // step; tests/bench/brains/) at the density and mix of the demo scene
    // (scripts/hunt.lua: 40 prey and 3 hunters on 960 x 640). "demo": the
    // demo's own brains (scripts/hunter.lua, prey.lua: flocking, avoidance,
    // evasion, catches) at the same density. "crowd": the demo's brains at
    // the flock's density with one hunter in ten, where every prey evades a
    // dozen hunters (about 16 binding calls a prey per step).
    int nb = 10000;
    double crowd_side = side_for(nb), demo_side = sqrt(nb * (960.0 * 640.0) / 43.0);
    struct {
        const char *what, *hunter, *prey;
        double side, cell;
        int every, threads;
    } brains[] = {
        {"lua brains (lean)", "lean_hunter", "lean_prey", demo_side, 50, 14, 1},
        {"lua brains (lean)", "lean_hunter", "lean_prey", demo_side, 50, 14, 2},
        {"lua brains (demo)", "hunter", "prey", demo_side, 50, 14, 1},
        {"lua brains (demo)", "hunter", "prey", demo_side, 50, 14, 2},
        {"lua brains (crowd)", "hunter", "prey", crowd_side, 50, 10, 1},
        {"lua brains (crowd)", "hunter", "prey", crowd_side, 50, 10, 2},
    };
    // Two threads share the step's C part; the brains run on one (a Lua
    // state is single-threaded). A 2-thread row checks its checksum against
    // the 1-thread row above it.
    long long sum_prev = 0;
    for (size_t b = 0; b < (do_brains ? sizeof brains / sizeof brains[0] : 0); b++) {
        double ms[3];
        long long sum = 0;
        if (run_lua_brains(scripts, nb, brains[b].side, brains[b].every, brains[b].hunter, brains[b].prey,
                           brains[b].threads, brains[b].cell, quick ? 5 : 20, ms, &sum) != 0)
            continue;
        result r = {ms[0], (unsigned long long)sum, 0, 0};
        char extra[160];
        snprintf(extra, sizeof extra, "median of %d blocks (%.2f..%.2f)%s", BRAIN_BLOCKS, ms[1], ms[2],
                 brains[b].threads == 1 ? "" : sum == sum_prev ? "; checksum == 1 thread" : "; checksum != 1 thread");
        row(brains[b].what, nb, brains[b].threads, &r, extra);
        sum_prev = sum;
    }

    // The lean brains once more, in the app: with its default instruction
    // budget, and with --budget 0.
    for (int k = 0; k < (do_brains ? 2 : 0); k++) {
        long long sum = 0;
        double ms = run_app_brains(app, scripts, k == 0 ? "" : "--budget 0", &sum);
        if (ms < 0) continue;
        result r = {ms, (unsigned long long)sum, 0, 0};
        row(k == 0 ? "lua brains (app)" : "lua brains (app*)", nb, 1, &r,
            k == 0 ? "lean, in steer --headless (default budget)" : "lean, *with --budget 0");
    }

    if (do_brains) density_rows(scripts, quick);

    if (do_orca) orca_rows(quick);
    if (do_goals) goals_rows(quick);
    if (do_nav) nav_rows(scripts, quick);
    if (do_tiles) tile_rows(quick, map, scen);
    if (do_orders) order_rows(quick);
    if (do_raycast) raycast_rows(quick);
    if (do_decide) decide_rows(quick);
    if (do_snapshot) snapshot_rows(scripts, quick);

    if (do_draw) {
        printf("\n");
        run_draw(app, scripts, 10000);
        run_draw(app, scripts, 100000);
        run_draw_windows(app, scripts);
    }
    if (do_rewind) {
        printf("\n");
        run_rewind(app, scripts);
    }
    printf("\n");
    cores_line("end");
    if (!do_flock) return 0;

    printf("\nchecksums (flock, 1 vs 2 threads):\n");
    for (int s = 0; s < nsizes; s++)
        printf("  N=%-8d %016llx %016llx %s\n", sizes[s], grid1[s].checksum, grid2[s].checksum,
               grid1[s].checksum == grid2[s].checksum ? "equal" : "DIFFERENT");
    int last = nsizes - 1;
    if (grid1[last].rss > 0)
        printf("\nmemory: %.0f bytes per agent at N=%d (peak RSS growth / N, flock, no brains)\n",
               (double)grid1[last].rss / sizes[last], sizes[last]);
    return 0;
}
