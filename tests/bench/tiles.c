/*
 * tiles.c — steer_bench's tile-map rows: MovingAI-format maps of the kinds
 * the benchmark holds (random 33%, mazes with corridors of width 1 and 8,
 * rooms, and caves as a stand-in for game maps), 512 x 512 and larger,
 * with scenarios whose octile optima come from tools/movingai.h's own
 * Dijkstra; or a .map/.scen pair from disk (--map, --scen).
 *
 * Each row: the scenarios solved, the mean and worst path length over the
 * octile optimum, the mean and worst milliseconds a query (one core;
 * st_navgrid_path_radius on a tile navgrid: point agents, or agents of a
 * radius, whose optima come from the tiles with room for it), the build
 * time, and the
 * memory the world, the grid and its search buffers held at the most, as
 * the world's memory budget counts it (every block the core takes asks
 * it first), with its bytes a tile. Each map in a child process of its
 * own. Asserts nothing.
 *
 * The big rows (4096 x 4096, not in --quick) take 100 scenarios from two
 * Dijkstra sources each: the optima of a 16.7-million-tile map cost
 * seconds a source.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/movingai.h"
#include "steer.h"
#include "tiles.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/// A budget that counts the bytes held and the most held at once.
typedef struct counter {
    size_t now, peak;
} counter;

static bool count_reserve(void *ud, size_t n)
{
    counter *c = ud;
    c->now += n;
    if (c->now > c->peak) c->peak = c->now;
    return true;
}

static void count_release(void *ud, size_t n) { ((counter *)ud)->now -= n; }

/// Builds a tile navgrid over m, runs the scenarios for agents of radius
/// r (tiles), prints the row.
static void run_map(const char *name, const mai_map *m, const mai_scen *sc, int n, double r)
{
    counter use = {0, 0};
    st_world_def wd = st_default_world_def();
    wd.width = m->w;
    wd.height = m->h;
    wd.mem = (st_mem){count_reserve, count_release, &use};
    st_world *w = st_world_create(&wd);
    st_navgrid_def d = st_default_navgrid_def();
    d.cell = 1.0;
    d.clearance = 0.0;
    d.tiles = m->blocked;
    d.tile_cols = m->w;
    d.tile_rows = m->h;
    double t0 = now();
    st_navgrid *g = st_navgrid_create(w, &d);
    double build = now() - t0;
    if (!g) {
        printf("%-14s %9s  could not build the grid\n", name, "");
        st_world_destroy(w);
        return;
    }
    int solved = 0;
    double sum_ratio = 0.0, worst_ratio = 0.0, sum_ms = 0.0, worst_ms = 0.0;
    for (int i = 0; i < n; i++) {
        const st_vec2 *p;
        int k;
        st_vec2 a = st_v2(sc[i].sx + 0.5, sc[i].sy + 0.5), b = st_v2(sc[i].gx + 0.5, sc[i].gy + 0.5);
        double q0 = now();
        st_nav_result res = st_navgrid_path_radius(g, a, b, r, &p, &k);
        double ms = (now() - q0) * 1e3;
        sum_ms += ms;
        worst_ms = ms > worst_ms ? ms : worst_ms;
        if (res != ST_NAV_OK) continue;
        solved++;
        double len = 0.0;
        for (int j = 1; j < k; j++) len += st_v2_dist(p[j - 1], p[j]);
        double ratio = sc[i].opt > 0 ? len / sc[i].opt : 1.0;
        sum_ratio += ratio;
        worst_ratio = ratio > worst_ratio ? ratio : worst_ratio;
    }
    char size[32];
    snprintf(size, sizeof size, "%dx%d", m->w, m->h);
    printf("%-14s %9s %6d/%-6d %7.4f %7.4f %8.3f %8.2f %8.1f %8.1f %6.2f\n", name, size, solved, n,
           solved ? sum_ratio / solved : 0.0, worst_ratio, n ? sum_ms / n : 0.0, worst_ms, build * 1e3,
           use.peak / 1048576.0, (double)use.peak / ((double)m->w * m->h));
    fflush(stdout);
    st_navgrid_destroy(g);
    st_world_destroy(w);
}

typedef struct gen {
    const char *name;
    int kind, w, h, arg; // kind: 0 random, 1 maze, 2 rooms, 3 caves
    double radius;       // agents' radius in tiles (0: points)
} gen;

/// The map of tiles an agent of radius r may stand on (blocked: the tiles
/// whose centre is nearer than r to a blocked tile or the map's edge), by
/// brute force, for the scenarios' optima.
static mai_map room_for(const mai_map *m, double r)
{
    mai_map u = mai_new(m->w, m->h, 0);
    int reach = (int)ceil(r) + 1;
    for (int y = 0; y < m->h && u.blocked; y++)
        for (int x = 0; x < m->w; x++) {
            bool room = true;
            for (int j = y - reach; room && j <= y + reach; j++)
                for (int i = x - reach; room && i <= x + reach; i++) {
                    bool b = i < 0 || j < 0 || i >= m->w || j >= m->h || m->blocked[(size_t)j * m->w + i];
                    double dx = fmax(abs(i - x) - 0.5, 0.0), dy = fmax(abs(j - y) - 0.5, 0.0);
                    if (b && ((i == x && j == y) || dx * dx + dy * dy < r * r)) room = false;
                }
            u.blocked[(size_t)y * m->w + x] = !room;
        }
    return u;
}

static void generated(const gen *ge, int nscen)
{
    mai_map m = ge->kind == 0   ? mai_random(ge->w, ge->h, ge->arg, 29)
                : ge->kind == 1 ? mai_maze(ge->w, ge->h, ge->arg, 29)
                : ge->kind == 2 ? mai_rooms(ge->w, ge->h, ge->arg, 29)
                                : mai_caves(ge->w, ge->h, 29);
    mai_map room = ge->radius > 0 ? room_for(&m, ge->radius) : m;
    mai_scen *sc = malloc((size_t)nscen * sizeof *sc);
    int sources = ge->w * ge->h > 4 << 20 ? 2 : nscen / 20;
    if (ge->w * ge->h > 4 << 20) nscen = nscen < 100 ? nscen : 100;
    int n = sc && room.blocked ? mai_make_scen(&room, sc, nscen, sources, 7) : 0;
    run_map(ge->name, &m, sc, n, ge->radius);
    free(sc);
    if (ge->radius > 0) mai_free(&room);
    mai_free(&m);
}

/// Each map in a child process, so its resident set is its own.
static void in_child(void (*fn)(const void *, int), const void *arg, int nscen)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fn(arg, nscen);
        fflush(stdout);
        _exit(0);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
}

static void generated_fn(const void *arg, int nscen) { generated((const gen *)arg, nscen); }

typedef struct files {
    const char *map, *scen;
} files;

static void files_fn(const void *arg, int nscen)
{
    (void)nscen;
    const files *f = arg;
    mai_map m = mai_read_map(f->map);
    int n = 0;
    mai_scen *sc = mai_read_scen(f->scen, &n);
    if (m.w == 0 || n < 0) {
        printf("cannot read %s / %s\n", f->map, f->scen);
        free(sc);
        mai_free(&m);
        return;
    }
    const char *base = strrchr(f->map, '/');
    run_map(base ? base + 1 : f->map, &m, sc, n, 0.0);
    free(sc);
    mai_free(&m);
}

void tile_rows(bool quick, const char *map, const char *scen)
{
    static const gen maps[] = {
        {"random33", 0, 512, 512, 33, 0.0},    {"maze w1", 1, 512, 512, 1, 0.0},
        {"maze w8", 1, 512, 512, 8, 0.0},      {"rooms 32", 2, 512, 512, 31, 0.0},
        {"caves", 3, 768, 768, 0, 0.0},        {"caves r1.5", 3, 768, 768, 0, 1.5},
        {"maze w8 r3", 1, 512, 512, 8, 3.0},   {"maze w1", 1, 1024, 1024, 1, 0.0},
        {"random33", 0, 1024, 1024, 33, 0.0},  {"rooms 32", 2, 4096, 4096, 31, 0.0},
        {"caves", 3, 4096, 4096, 0, 0.0},
    };
    int nscen = quick ? 200 : 2000, count = quick ? 7 : (int)(sizeof maps / sizeof maps[0]);
    printf("\ntile maps: point agents (rN: agents of radius N tiles on the same kind of grid), octile optima\n"
           "by Dijkstra over the tiles with room; ms a query on one core (wall clock)\n");
    printf("%-14s %9s %13s %7s %7s %8s %8s %8s %8s %6s\n", "map", "size", "solved", "len/opt", "worst", "mean ms",
           "worst ms", "build ms", "peak MB", "B/tile");
    if (map && scen) {
        files f = {map, scen};
        in_child(files_fn, &f, 0);
    }
    for (int i = 0; i < count && !(map && scen); i++) in_child(generated_fn, &maps[i], nscen);
}
