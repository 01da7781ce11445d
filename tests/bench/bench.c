/*
 * bench.c — steer's benchmark: prints figures, asserts nothing about speed.
 *
 *   steer_bench [--quick] [--scripts DIR] [--app PATH]
 *
 * 1. standing flock (radius 50, view 270 deg, 1.5/1/1, wrap) at constant
 *    density (~15 neighbours in the radius), N = 1k .. 1M, 1 and 2 threads
 * 2. the same rules through the all-pairs loop for N <= 10k, with the ratio
 * 3. 10k agents with the Lua hunter/prey brains of scripts/, in a crowd at the
 *    flock's density and at the density and mix of the demo scene
 * 4. drawing 10k and 100k agents headless through the app's renderer
 * 5. bytes per agent at 1M (peak RSS over N)
 * 6. the flock checksum with 1 and with 2 threads, which must be equal
 *
 * Each configuration runs in a child process (fork) so its peak RSS is its
 * own. Timing uses CLOCK_MONOTONIC here, in the benchmark, never in the core.
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

/// Runs fn in a child process and reads its result back through a pipe.
static result in_child(int n, int threads, bool brute, int steps)
{
    int fd[2];
    result r = {0};
    if (pipe(fd) != 0) return run_flock(n, threads, brute, steps);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        result c = run_flock(n, threads, brute, steps);
        ssize_t wr = write(fd[1], &c, sizeof c);
        _exit(wr == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &r, sizeof r) != (ssize_t)sizeof r) memset(&r, 0, sizeof r);
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return r;
}

static void row(const char *what, int n, int threads, const result *r, const char *extra)
{
    double ns = r->ms_per_step * 1e6 / n;
    printf("%-22s %9d %7d %10.3f %12.0f %12.1f  %s\n", what, n, threads, r->ms_per_step, ns,
           r->ms_per_step > 0 ? 1000.0 / r->ms_per_step : 0.0, extra ? extra : "");
}

/* ---- Lua brains ---- */

/* n agents on a wrap square of the given side, every `every`-th a hunter. */
static const char *brain_bench_lua =
    "local steer = require 'steer'\n"
    "local n, side, every, hunter_brain, prey_brain = ...\n"
    "local w = steer.world{ width = side, height = side, edges = 'wrap', seed = 7 }\n"
    "for i = 1, n do\n"
    "  local hunter = i % every == 0\n"
    "  w:spawn{ pos = { w:random() * side, w:random() * side },\n"
    "           tag = hunter and 'hunter' or 'prey', brain = hunter and hunter_brain or prey_brain,\n"
    "           max_speed = hunter and 160 or 150 }\n"
    "end\n"
    "return w\n";

static int run_lua_brains(const char *scripts, int n, double side, int every, const char *hunter,
                          const char *prey, int steps, double *ms, long long *checksum)
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
    if (lua_pcall(L, 5, 1, 0) != LUA_OK) goto fail;
    int world = lua_gettop(L);
    for (int i = 0; i < steps + 3; i++) {
        if (i == 3) *ms = now();
        lua_getfield(L, world, "step");
        lua_pushvalue(L, world);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) goto fail;
    }
    *ms = (now() - *ms) / steps * 1e3;
    lua_getfield(L, world, "checksum");
    lua_pushvalue(L, world);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) goto fail;
    *checksum = (long long)lua_tointeger(L, -1);
    lua_close(L);
    return 0;
fail:
    fprintf(stderr, "lua brains: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return -1;
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

int main(int argc, char **argv)
{
    bool quick = false;
    const char *scripts = "scripts";
    const char *app = "build/steer";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--scripts") && i + 1 < argc) scripts = argv[++i];
        else if (!strcmp(argv[i], "--app") && i + 1 < argc) app = argv[++i];
        else {
            fprintf(stderr, "usage: steer_bench [--quick] [--scripts DIR] [--app PATH]\n");
            return 2;
        }
    }

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("steer %s benchmark — %ld cores; flock radius 50, fov 270, sep/align/coh 1.5/1/1, wrap, ~15 neighbours\n\n",
           ST_VERSION, cores);
    printf("%-22s %9s %7s %10s %12s %12s\n", "case", "N", "threads", "ms/step", "ns/agent", "steps/s");

    int sizes[] = {1000, 10000, 100000, 1000000};
    int nsizes = quick ? 3 : 4;
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
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        result ap = in_child(n, 1, true, n >= 10000 ? 3 : 40);
        char ratio[96];
        snprintf(ratio, sizeof ratio, "grid is %.0fx faster (1 thread), %.0fx (2 threads)",
                 ap.ms_per_step / grid1[s].ms_per_step, ap.ms_per_step / grid2[s].ms_per_step);
        row("flock (all-pairs)", n, 1, &ap, ratio);
    }

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
    struct { const char *what, *hunter, *prey; double side; int every; } brains[] = {
        {"lua brains (lean)", "lean_hunter", "lean_prey", demo_side, 14},
        {"lua brains (demo)", "hunter", "prey", demo_side, 14},
        {"lua brains (crowd)", "hunter", "prey", crowd_side, 10},
    };
    for (int b = 0; b < 3; b++) {
        double ms = 0;
        long long sum = 0;
        if (run_lua_brains(scripts, nb, brains[b].side, brains[b].every, brains[b].hunter, brains[b].prey,
                           quick ? 10 : 60, &ms, &sum) == 0) {
            result r = {ms, (unsigned long long)sum, 0, 0};
            char extra[64];
            snprintf(extra, sizeof extra, "side %.0f, 1 hunter in %d", brains[b].side, brains[b].every);
            row(brains[b].what, nb, 1, &r, extra);
        }
    }

    printf("\n");
    run_draw(app, scripts, 10000);
    run_draw(app, scripts, 100000);

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
