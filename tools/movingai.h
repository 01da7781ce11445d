/*
 * movingai.h — tile maps in MovingAI's benchmark format (Sturtevant 2012,
 * movingai.com/benchmarks): generators of the kinds the benchmark holds
 * (mazes with corridors of width 1 and 8, rooms, random 33%), a reader and
 * writer for .map and .scen files, and an octile Dijkstra for the optimal
 * lengths. Header-only: the benchmark (tests/bench), the C tests and
 * tools/mapgen.c include it. Nothing here uses steer.
 *
 * Moves are 8-connected without corner cutting (a diagonal needs both
 * tiles beside it free), straight 1 and diagonal sqrt(2): the lengths the
 * benchmark's .scen files list.
 */
#ifndef STEER_MOVINGAI_H
#define STEER_MOVINGAI_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Every function is static (header-only) and may go unused by one includer.
#if defined(__GNUC__)
#define MAI_FN static __attribute__((unused))
#else
#define MAI_FN static
#endif

typedef struct mai_map {
    int w, h;
    uint8_t *blocked; // w * h, row-major, 1 = blocked
} mai_map;

typedef struct mai_scen {
    int sx, sy, gx, gy;
    double opt; // octile optimum
} mai_scen;

MAI_FN uint64_t mai_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

MAI_FN mai_map mai_new(int w, int h, uint8_t fill)
{
    mai_map m = {w, h, malloc((size_t)w * h)};
    if (m.blocked) memset(m.blocked, fill, (size_t)w * h);
    return m;
}

MAI_FN void mai_free(mai_map *m)
{
    free(m->blocked);
    m->blocked = NULL;
}

/// Random: each tile blocked with probability pct / 100.
MAI_FN mai_map mai_random(int w, int h, int pct, uint64_t seed)
{
    mai_map m = mai_new(w, h, 0);
    for (int i = 0; i < w * h; i++) m.blocked[i] = (int)(mai_next(&seed) % 100) < pct;
    return m;
}

MAI_FN void mai_fill(mai_map *m, int x0, int y0, int x1, int y1, uint8_t v)
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < m->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < m->w; x++) m->blocked[(size_t)y * m->w + x] = v;
}

/// A perfect maze (depth-first, iterative) with corridors and walls `c`
/// tiles wide (MovingAI's mazes: walls as wide as the corridors).
MAI_FN mai_map mai_maze(int w, int h, int c, uint64_t seed)
{
    mai_map m = mai_new(w, h, 1);
    int cw = (w - c) / (2 * c), ch = (h - c) / (2 * c); // rooms of the maze
    if (cw < 1 || ch < 1) return m;
    int *stack = malloc((size_t)cw * ch * sizeof *stack);
    uint8_t *seen = calloc((size_t)cw * ch, 1);
    int n = 0;
    stack[n++] = 0;
    seen[0] = 1;
    mai_fill(&m, c, c, 2 * c, 2 * c, 0);
    while (n > 0) {
        int cur = stack[n - 1], x = cur % cw, y = cur / cw, opts[4], k = 0;
        static const int DX[4] = {1, -1, 0, 0}, DY[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; d++) {
            int nx = x + DX[d], ny = y + DY[d];
            if (nx >= 0 && ny >= 0 && nx < cw && ny < ch && !seen[ny * cw + nx]) opts[k++] = d;
        }
        if (k == 0) {
            n--;
            continue;
        }
        int d = opts[mai_next(&seed) % (uint64_t)k], nx = x + DX[d], ny = y + DY[d];
        seen[ny * cw + nx] = 1;
        stack[n++] = ny * cw + nx;
        int ax = c + 2 * c * (x < nx ? x : nx), ay = c + 2 * c * (y < ny ? y : ny);
        int bx = c + 2 * c * (x > nx ? x : nx) + c, by = c + 2 * c * (y > ny ? y : ny) + c;
        mai_fill(&m, ax, ay, bx, by, 0);
    }
    free(stack);
    free(seen);
    return m;
}

/// Rooms of `room` x `room` tiles behind walls one tile thick, each wall
/// with a few random doors (MovingAI's room maps), some doors shut.
MAI_FN mai_map mai_rooms(int w, int h, int room, uint64_t seed)
{
    mai_map m = mai_new(w, h, 0);
    for (int y = 0; y < h; y += room + 1) mai_fill(&m, 0, y, w, y + 1, 1);
    for (int x = 0; x < w; x += room + 1) mai_fill(&m, x, 0, x + 1, h, 1);
    for (int y = 0; y < h; y += room + 1)
        for (int x = 0; x < w; x += room + 1) {
            // A door in the wall to the right and the one below, each
            // sometimes wider, and sometimes none.
            if (mai_next(&seed) % 8 != 0) {
                int d = y + 1 + (int)(mai_next(&seed) % (uint64_t)room);
                mai_fill(&m, x + room + 1, d, x + room + 2, d + 1 + (int)(mai_next(&seed) % 3), 0);
            }
            if (mai_next(&seed) % 8 != 0) {
                int d = x + 1 + (int)(mai_next(&seed) % (uint64_t)room);
                mai_fill(&m, d, y + room + 1, d + 1 + (int)(mai_next(&seed) % 3), y + room + 2, 0);
            }
        }
    // The map's own border stays a wall.
    mai_fill(&m, 0, 0, w, 1, 1);
    mai_fill(&m, 0, h - 1, w, h, 1);
    mai_fill(&m, 0, 0, 1, h, 1);
    mai_fill(&m, w - 1, 0, w, h, 1);
    return m;
}

/// Caves, as many game maps are: random 45% blocked, then five rounds of
/// the 4-5 cellular automaton (a tile is blocked when 5 or more of the 9
/// around it are), which leaves open areas joined by winding passages.
MAI_FN mai_map mai_caves(int w, int h, uint64_t seed)
{
    mai_map m = mai_random(w, h, 45, seed);
    uint8_t *next = malloc((size_t)w * h);
    for (int round = 0; next && round < 5; round++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int n = 0;
                for (int j = y - 1; j <= y + 1; j++)
                    for (int i = x - 1; i <= x + 1; i++)
                        n += i < 0 || j < 0 || i >= w || j >= h || m.blocked[(size_t)j * w + i];
                next[(size_t)y * w + x] = n >= 5;
            }
        memcpy(m.blocked, next, (size_t)w * h);
    }
    free(next);
    return m;
}

/* ---- files ---- */

MAI_FN int mai_write_map(const char *path, const mai_map *m)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "type octile\nheight %d\nwidth %d\nmap\n", m->h, m->w);
    for (int y = 0; y < m->h; y++) {
        for (int x = 0; x < m->w; x++) fputc(m->blocked[(size_t)y * m->w + x] ? '@' : '.', f);
        fputc('\n', f);
    }
    return fclose(f);
}

/// Reads a .map: '.', 'G' and 'S' are passable, everything else is not.
/// w = 0 on failure.
MAI_FN mai_map mai_read_map(const char *path)
{
    mai_map m = {0, 0, NULL};
    FILE *f = fopen(path, "r");
    if (!f) return m;
    int w = 0, h = 0;
    if (fscanf(f, " type %*s height %d width %d map", &h, &w) != 2 || w < 1 || h < 1 || w > 65536 || h > 65536) {
        fclose(f);
        return m;
    }
    m = mai_new(w, h, 1);
    int c = fgetc(f);
    for (int y = 0; y < h && c != EOF; y++) {
        while (c == '\n' || c == '\r') c = fgetc(f);
        for (int x = 0; x < w && c != EOF && c != '\n'; x++, c = fgetc(f))
            m.blocked[(size_t)y * w + x] = !(c == '.' || c == 'G' || c == 'S');
        while (c != EOF && c != '\n') c = fgetc(f);
    }
    fclose(f);
    return m;
}

MAI_FN int mai_write_scen(const char *path, const char *map_name, const mai_map *m, const mai_scen *s, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "version 1\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.8f\n", (int)(s[i].opt / 4), map_name, m->w, m->h,
                s[i].sx, s[i].sy, s[i].gx, s[i].gy, s[i].opt);
    return fclose(f);
}

/// Reads a .scen (version 1) into a new array; *n its count, -1 on failure.
MAI_FN mai_scen *mai_read_scen(const char *path, int *n)
{
    *n = -1;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char line[4096];
    int cap = 256, k = 0;
    mai_scen *s = malloc((size_t)cap * sizeof *s);
    while (s && fgets(line, sizeof line, f)) {
        mai_scen e;
        if (sscanf(line, "%*d %*s %*d %*d %d %d %d %d %lf", &e.sx, &e.sy, &e.gx, &e.gy, &e.opt) != 5) continue;
        if (k == cap) {
            mai_scen *t = realloc(s, (size_t)(cap *= 2) * sizeof *s);
            if (!t) break;
            s = t;
        }
        s[k++] = e;
    }
    fclose(f);
    *n = k;
    return s;
}

/* ---- octile Dijkstra ---- */

typedef struct mai_heap {
    int32_t *cell;
    double *key;
    int n;
} mai_heap;

MAI_FN void mai_heap_push(mai_heap *h, int32_t c, double k)
{
    int i = h->n++;
    while (i > 0 && h->key[(i - 1) / 2] > k) {
        h->cell[i] = h->cell[(i - 1) / 2];
        h->key[i] = h->key[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->cell[i] = c;
    h->key[i] = k;
}

MAI_FN int32_t mai_heap_pop(mai_heap *h, double *k)
{
    int32_t top = h->cell[0];
    *k = h->key[0];
    int32_t lc = h->cell[--h->n];
    double lk = h->key[h->n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, m = i;
        double mk = lk;
        if (l < h->n && h->key[l] < mk) m = l, mk = h->key[l];
        if (l + 1 < h->n && h->key[l + 1] < mk) m = l + 1, mk = h->key[l + 1];
        if (m == i) break;
        h->cell[i] = h->cell[m];
        h->key[i] = h->key[m];
        i = m;
    }
    h->cell[i] = lc;
    h->key[i] = lk;
    return top;
}

/// Octile distances from (sx, sy) to every tile over the tiles where
/// usable[i] != 0 (no corner cutting) into dist (INFINITY: unreachable).
/// The heap may hold a tile more than once (lazy deletion): room for 8 per
/// tile. Returns 0, or -1 when memory ran out.
MAI_FN int mai_dijkstra(int w, int h, const uint8_t *usable, int sx, int sy, double *dist)
{
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++) dist[i] = INFINITY;
    if (!usable[(size_t)sy * w + sx]) return 0;
    mai_heap hp = {malloc(8 * n * sizeof *hp.cell), malloc(8 * n * sizeof *hp.key), 0};
    if (!hp.cell || !hp.key) {
        free(hp.cell);
        free(hp.key);
        return -1;
    }
    dist[(size_t)sy * w + sx] = 0.0;
    mai_heap_push(&hp, sy * w + sx, 0.0);
    static const int DX[8] = {1, -1, 0, 0, 1, 1, -1, -1}, DY[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    while (hp.n > 0) {
        double d;
        int32_t c = mai_heap_pop(&hp, &d);
        if (d > dist[c]) continue;
        int x = c % w, y = c / w;
        for (int k = 0; k < 8; k++) {
            int nx = x + DX[k], ny = y + DY[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h || !usable[(size_t)ny * w + nx]) continue;
            if (k >= 4 && (!usable[(size_t)y * w + nx] || !usable[(size_t)ny * w + x])) continue;
            double nd = d + (k >= 4 ? 1.41421356237309504880 : 1.0);
            if (nd < dist[(size_t)ny * w + nx]) {
                dist[(size_t)ny * w + nx] = nd;
                mai_heap_push(&hp, ny * w + nx, nd);
            }
        }
    }
    free(hp.cell);
    free(hp.key);
    return 0;
}

/// n scenarios on m: `sources` random free tiles, each with n / sources
/// random goals it reaches, optimal lengths from one Dijkstra per source.
/// Returns the count made (fewer when the map has little free room).
MAI_FN int mai_make_scen(const mai_map *m, mai_scen *out, int n, int sources, uint64_t seed)
{
    size_t cells = (size_t)m->w * m->h;
    uint8_t *usable = malloc(cells);
    double *dist = malloc(cells * sizeof *dist);
    int k = 0;
    if (!usable || !dist) goto done;
    for (size_t i = 0; i < cells; i++) usable[i] = !m->blocked[i];
    for (int s = 0; s < sources && k < n; s++) {
        int sx, sy, tries = 0;
        do {
            sx = (int)(mai_next(&seed) % (uint64_t)m->w);
            sy = (int)(mai_next(&seed) % (uint64_t)m->h);
        } while (m->blocked[(size_t)sy * m->w + sx] && ++tries < 100000);
        if (m->blocked[(size_t)sy * m->w + sx] || mai_dijkstra(m->w, m->h, usable, sx, sy, dist) < 0) continue;
        int want = (n - k) / (sources - s);
        for (int g = 0, tries2 = 0; g < want && tries2 < 100000; tries2++) {
            int gx = (int)(mai_next(&seed) % (uint64_t)m->w), gy = (int)(mai_next(&seed) % (uint64_t)m->h);
            double d = dist[(size_t)gy * m->w + gx];
            if (!isfinite(d) || d == 0.0) continue;
            out[k++] = (mai_scen){sx, sy, gx, gy, d};
            g++;
        }
    }
done:
    free(usable);
    free(dist);
    return k;
}

#endif
