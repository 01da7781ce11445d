/*
 * nav_parts.c — the connected parts of a navgrid's free cells (comp), so a
 * query between two parts fails at once instead of searching all of one.
 *
 * Moves are 8-way without corner cutting: a diagonal needs both cells
 * beside it free, which join its ends anyway, so the parts are those of
 * the 4-way moves. They are found by union-find in comp itself, with no
 * other memory (a 4096 x 4096 tile map's labels cost their 64 MB and
 * nothing more): each free cell joins its left and upper neighbours, a
 * part's root is its lowest cell (so a cell's parent is always lower), and
 * one pass in cell order turns parents into labels, numbered in the order
 * of the parts' lowest cells, as a flood fill in cell order numbers them.
 *
 * A tile changed on a tile grid keeps the labels when the change is local:
 * a freed tile joins the one part its neighbours share (or starts one), a
 * blocked tile whose free neighbours stay joined around it leaves the
 * parts as they were. Anything else marks them for labelling again.
 */
#include "nav_internal.h"

static int32_t find(int32_t *p, int32_t c)
{
    while (p[c] != c) {
        p[c] = p[p[c]]; // halving: parents only ever get lower
        c = p[c];
    }
    return c;
}

static void unite(int32_t *p, int32_t a, int32_t b)
{
    a = find(p, a);
    b = find(p, b);
    if (a < b) p[b] = a;
    else if (b < a) p[a] = b;
}

/// Whether cell (x, y) of row-major index c is blocked, read row by row.
static inline bool blocked_xy(const st_navgrid *g, int x, int y, int c)
{
    return g->tiles ? g->tiles->clr[nav__tile_index(g->tiles, x, y)] == 0 : g->count[c] > 0;
}

void nav__label_parts(st_navgrid *g)
{
    if (!g->comp_dirty) return;
    int32_t *p = g->comp;
    const int cols = g->cols;
    for (int y = 0, c = 0; y < g->rows; y++)
        for (int x = 0; x < cols; x++, c++) {
            if (blocked_xy(g, x, y, c)) {
                p[c] = -1;
                continue;
            }
            bool left = x > 0 && p[c - 1] >= 0, up = y > 0 && p[c - cols] >= 0;
            if (left) { // into the left one's part, which may meet the upper one's here
                p[c] = find(p, c - 1);
                if (up) unite(p, p[c], c - cols);
            } else {
                p[c] = up ? find(p, c - cols) : c;
            }
        }
    int32_t parts = 0;
    for (int c = 0; c < g->cells; c++) // a parent is lower: already a label
        if (p[c] >= 0) p[c] = p[c] == c ? parts++ : p[p[c]];
    g->parts = parts;
    g->comp_dirty = false;
}

/// Cell (x, y)'s part, -1 when blocked or outside.
static int32_t part_at(const st_navgrid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->cols || y >= g->rows) return -1;
    return g->comp[y * g->cols + x];
}

/// The tile's free 4-neighbours stay joined through the ring of eight
/// around it (each ring cell is 4-adjacent to the next): at most one run
/// of free ring cells holds any of them.
static bool ring_holds(const st_navgrid *g, int x, int y)
{
    static const int RX[8] = {-1, 0, 1, 1, 1, 0, -1, -1}, RY[8] = {-1, -1, -1, 0, 1, 1, 1, 0};
    bool free[8];
    int first_blocked = -1;
    for (int k = 0; k < 8; k++) {
        free[k] = part_at(g, x + RX[k], y + RY[k]) >= 0;
        if (!free[k] && first_blocked < 0) first_blocked = k;
    }
    if (first_blocked < 0) return true; // one run all round
    int runs = 0;
    bool in_run = false, has_side = false;
    for (int i = 1; i <= 8; i++) { // from just after a blocked cell, once round
        int k = (first_blocked + i) % 8;
        if (free[k]) {
            in_run = true;
            has_side |= (k & 1) != 0; // odd ring places are the 4-neighbours
        } else if (in_run) {
            runs += has_side;
            in_run = has_side = false;
        }
    }
    return runs <= 1;
}

void nav__parts_tile_changed(st_navgrid *g, int x, int y, bool blocked)
{
    if (g->comp_dirty) return;
    int c = y * g->cols + x;
    if (blocked) {
        g->comp[c] = -1;
        if (!ring_holds(g, x, y)) g->comp_dirty = true;
        return;
    }
    static const int SX[4] = {1, 0, -1, 0}, SY[4] = {0, 1, 0, -1};
    int32_t part = -1;
    for (int k = 0; k < 4; k++) {
        int32_t q = part_at(g, x + SX[k], y + SY[k]);
        if (q < 0) continue;
        if (part >= 0 && q != part) { // two parts meet here
            g->comp_dirty = true;
            return;
        }
        part = q;
    }
    g->comp[c] = part >= 0 ? part : g->parts++;
}
