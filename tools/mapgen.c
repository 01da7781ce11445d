/*
 * mapgen.c — writes MovingAI benchmark files (tools/movingai.h): a map of
 * one of the benchmark's kinds and its scenarios, with octile optima from
 * the header's Dijkstra. steer_bench reads them back with --map / --scen,
 * as it reads the benchmark's own.
 *
 *   steer_mapgen KIND WIDTH HEIGHT [ARG] OUT.map [SCENARIOS] [SEED]
 *     KIND: random (ARG: percent blocked, default 33), maze (ARG: corridor
 *     width, default 1), rooms (ARG: room side, default 31), caves
 *   writes OUT.map and OUT.map.scen
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movingai.h"

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: steer_mapgen random|maze|rooms|caves WIDTH HEIGHT ARG OUT.map [SCENARIOS] [SEED]\n");
        return 2;
    }
    const char *kind = argv[1], *out = argv[5];
    int w = atoi(argv[2]), h = atoi(argv[3]), arg = atoi(argv[4]);
    int n = argc > 6 ? atoi(argv[6]) : 1000;
    uint64_t seed = argc > 7 ? strtoull(argv[7], NULL, 10) : 29;
    if (w < 4 || h < 4 || w > 16384 || h > 16384 || n < 1) {
        fprintf(stderr, "steer_mapgen: sizes 4..16384, scenarios >= 1\n");
        return 2;
    }
    mai_map m;
    if (!strcmp(kind, "random")) m = mai_random(w, h, arg > 0 ? arg : 33, seed);
    else if (!strcmp(kind, "maze")) m = mai_maze(w, h, arg > 0 ? arg : 1, seed);
    else if (!strcmp(kind, "rooms")) m = mai_rooms(w, h, arg > 0 ? arg : 31, seed);
    else if (!strcmp(kind, "caves")) m = mai_caves(w, h, seed);
    else {
        fprintf(stderr, "steer_mapgen: unknown kind '%s'\n", kind);
        return 2;
    }
    mai_scen *sc = malloc((size_t)n * sizeof *sc);
    if (!m.blocked || !sc) return 1;
    int k = mai_make_scen(&m, sc, n, n / 20 > 0 ? n / 20 : 1, seed + 1);
    char scen[4096];
    snprintf(scen, sizeof scen, "%s.scen", out);
    const char *base = strrchr(out, '/');
    if (mai_write_map(out, &m) != 0 || mai_write_scen(scen, base ? base + 1 : out, &m, sc, k) != 0) {
        fprintf(stderr, "steer_mapgen: cannot write %s\n", out);
        return 1;
    }
    printf("%s: %dx%d %s, %d scenarios in %s\n", out, w, h, kind, k, scen);
    free(sc);
    mai_free(&m);
    return 0;
}
