/*
 * nav_tiles.c — the tile map: which tiles are blocked, each free tile's
 * clearance (one field serves every agent radius), and the exact line
 * walk that decides whether a straight move keeps a radius from the walls.
 *
 * Clearance: the distance from a free tile's centre to the nearest point
 * of a blocked tile (or of the outside of the map), which for a blocked
 * tile dx, dy tiles away is hypot(max(0, |dx| - 1/2), max(0, |dy| - 1/2)).
 * It is found in two passes, as separable distance transforms are: each
 * column's nearest blocked tile above and below, then across the columns
 * outwards until no column can be nearer. Twice a coordinate is an odd
 * integer, so the squared distance is an exact integer and the stored
 * eighths (rounded down) are exact too.
 *
 * Why the centres are enough: an agent of radius r may stand on a tile
 * whose clearance is >= r. A straight or diagonal move between such tiles
 * (with both tiles beside a diagonal usable too, the no-corner-cutting
 * rule) stays inside the square their centres span, and a box's nearest
 * point to another box is always a face that holds a corner: the move
 * keeps r wherever its tiles' centres do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "nav_tiles.h"

/// Beyond this many tiles the clearance is "plenty" (NAV_CLR_MAX).
#define NAV_CLR_REACH 33

/// floor(sqrt(v)) exactly, for v < 2^52.
static int64_t isqrt(int64_t v)
{
    int64_t s = (int64_t)sqrt((double)v);
    while (s * s > v) s--;
    while ((s + 1) * (s + 1) <= v) s++;
    return s;
}

/// Twice the gap between a tile centre and a blocked tile k tiles away.
static inline int64_t twice_gap(int64_t k) { return k == 0 ? 0 : 2 * k - 1; }

/// Pass one: for every tile, how many tiles up or down its column the
/// nearest blocked one is (the rows outside the map count), up to REACH.
/// Row by row (each column's last blocked row in `last`, cols of them),
/// so a big map is read in the order it lies in memory.
static void column_gaps(int cols, int rows, const uint8_t *blocked, uint8_t *vd, int32_t *last)
{
    for (int x = 0; x < cols; x++) last[x] = -1; // the row above the map
    for (int y = 0; y < rows; y++) {
        const uint8_t *b = blocked + (size_t)y * cols;
        uint8_t *v = vd + (size_t)y * cols;
        for (int x = 0; x < cols; x++) {
            if (b[x]) last[x] = y;
            int d = y - last[x];
            v[x] = (uint8_t)(d > NAV_CLR_REACH ? NAV_CLR_REACH : d);
        }
    }
    for (int x = 0; x < cols; x++) last[x] = rows; // the row below
    for (int y = rows - 1; y >= 0; y--) {
        const uint8_t *b = blocked + (size_t)y * cols;
        uint8_t *v = vd + (size_t)y * cols;
        for (int x = 0; x < cols; x++) {
            if (b[x]) last[x] = y;
            int d = last[x] - y;
            if (d < v[x]) v[x] = (uint8_t)d;
        }
    }
}

/// The stored clearance of a squared twice-distance q: 8 * sqrt(q) / 2,
/// rounded down, at most NAV_CLR_MAX.
static uint8_t eighths_of(int64_t q)
{
    int64_t e = isqrt(16 * q);
    return (uint8_t)(e > NAV_CLR_MAX ? NAV_CLR_MAX : e);
}

/// Pass two for tile x of a row: the nearest column's blocked tile, in
/// eighths. row[i - base] holds column i's gap (pass one); the columns
/// outside [0, cols) are blocked.
static uint8_t tile_clearance(const uint8_t *row, int base, int cols, int x)
{
    int64_t cap = 4 * (int64_t)NAV_CLR_REACH * NAV_CLR_REACH, best = cap;
    for (int k = 0;; k++) {
        int64_t gx = twice_gap(k);
        if (gx * gx >= best) break;
        // Columns x - k and x + k; the columns outside the map are blocked.
        for (int side = 0; side < (k ? 2 : 1); side++) {
            int i = side ? x + k : x - k;
            int64_t gy = i < 0 || i >= cols ? 0 : twice_gap(row[i - base]);
            int64_t q = gx * gx + gy * gy;
            if (q < best) best = q;
        }
    }
    return eighths_of(best);
}

/// Pass two over a whole row, as tile_clearance for each free tile, in
/// the form that reads fastest: sq[i + REACH] the squared twice-gap of
/// column i (0 beyond the map: blocked), eighths[q] the stored value of a
/// squared twice-distance q.
static void row_clearance(nav_tiles *t, const uint8_t *blocked, const uint8_t *vd, int y, uint16_t *sq,
                          const uint8_t *eighths)
{
    const int cols = t->cols, R = NAV_CLR_REACH;
    const int cap = 4 * R * R;
    for (int x = 0; x < cols; x++) {
        int g = twice_gap(vd[x]);
        sq[x + R] = (uint16_t)(g * g);
    }
    uint8_t *out = t->clr + nav__tile_index(t, 0, y);
    for (int x = 0; x < cols; x++) {
        if (blocked[x]) continue;
        const uint16_t *c = sq + x + R;
        int best = c[0] < cap ? c[0] : cap;
        for (int k = 1; k <= R; k++) {
            int gx = (2 * k - 1) * (2 * k - 1);
            if (gx >= best) break;
            int lo = gx + c[-k], hi = gx + c[k];
            best = lo < best ? lo : best;
            best = hi < best ? hi : best;
        }
        out[x] = eighths[best];
    }
}

nav_tiles *nav__tiles_create(const st_mem *mem, int cols, int rows, const uint8_t *blocked)
{
    if (cols < 1 || rows < 1) return NULL;
    nav_tiles *t = st__calloc(mem, 1, sizeof *t);
    if (!t) return NULL;
    t->cols = cols;
    t->rows = rows;
    t->stride = cols + 2;
    t->cells = t->stride * (rows + 2);
    t->clr = st__calloc(mem, (size_t)t->cells, 1);
    uint8_t *vd = st__alloc(mem, (size_t)cols * rows);
    const int R = NAV_CLR_REACH, cap = 4 * R * R;
    uint16_t *sq = st__calloc(mem, (size_t)cols + 2 * R, sizeof *sq); // the padding stays 0: blocked
    uint8_t *eighths = st__alloc(mem, (size_t)cap + 1);
    int32_t *last = st__alloc(mem, (size_t)cols * sizeof *last);
    if (!t->clr || !vd || !sq || !eighths || !last) {
        st__free(vd);
        st__free(sq);
        st__free(eighths);
        st__free(last);
        nav__tiles_destroy(t);
        return NULL;
    }
    for (int q = 0; q <= cap; q++) eighths[q] = eighths_of(q);
    column_gaps(cols, rows, blocked, vd, last);
    st__free(last);
    for (int y = 0; y < rows; y++)
        row_clearance(t, blocked + (size_t)y * cols, vd + (size_t)y * cols, y, sq, eighths);
    st__free(vd);
    st__free(sq);
    st__free(eighths);
    return t;
}

/* ---- one tile changed ---- */

/// A tile's clearance reads blocked tiles up to NAV_CLR_REACH away in each
/// axis (farther ones give the capped value anyway), and its column gap
/// reads that far up and down: a change at (x, y) reaches the tiles within
/// REACH of it, whose clearance reads the gaps of the columns within REACH
/// of them.
#define NAV_SET_R NAV_CLR_REACH
#define NAV_SET_W (4 * NAV_SET_R + 1) // columns of gaps: x - 2R .. x + 2R
#define NAV_SET_H (2 * NAV_SET_R + 1) // rows: y - R .. y + R

/// Column i's gap at row j (pass one for a single tile), from the map.
static uint8_t column_gap(const nav_tiles *t, int i, int j)
{
    int d = 0;
    while (d < NAV_CLR_REACH && !nav__tile_blocked(t, i, j - d) && !nav__tile_blocked(t, i, j + d)) d++;
    return (uint8_t)d;
}

void nav__tiles_set(nav_tiles *t, int x, int y, bool blocked)
{
    int c = nav__tile_index(t, x, y);
    if ((t->clr[c] == 0) == blocked) return;
    t->clr[c] = blocked ? 0 : NAV_CLR_FREE; // provisional: a free tile's gap reads it as free
    uint8_t gaps[NAV_SET_H][NAV_SET_W];
    int base = x - 2 * NAV_SET_R;
    for (int j = 0; j < NAV_SET_H; j++)
        for (int i = 0; i < NAV_SET_W; i++) {
            int gx = base + i, gy = y - NAV_SET_R + j;
            gaps[j][i] = gx < 0 || gx >= t->cols || gy < 0 || gy >= t->rows ? 0 : column_gap(t, gx, gy);
        }
    for (int j = 0; j < NAV_SET_H; j++) {
        int gy = y - NAV_SET_R + j;
        if (gy < 0 || gy >= t->rows) continue;
        for (int gx = x - NAV_SET_R; gx <= x + NAV_SET_R; gx++) {
            if (gx < 0 || gx >= t->cols || nav__tile_blocked(t, gx, gy)) continue;
            t->clr[nav__tile_index(t, gx, gy)] = tile_clearance(gaps[j], base, t->cols, gx);
        }
    }
    t->version++;
}

void nav__tiles_destroy(nav_tiles *t)
{
    if (!t) return;
    st__free(t->clr);
    st__free(t);
}

int nav__tiles_need(double r)
{
    if (!(r <= NAV_CLR_MAX)) return NAV_CLR_MAX + 1;
    double e = ceil(r * NAV_CLR_SCALE);
    if (e > NAV_CLR_MAX) return NAV_CLR_MAX + 1;
    return e < 1.0 ? 1 : (int)e;
}

/* ---- the line walk ---- */

static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
// fmin/fmax are calls into libm unless the compiler may ignore NaNs, and
// the walk below calls them for every column: these are inlined (the
// values here are finite).
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }
// floor and ceil, likewise: without SSE4.1 the compiler expands them into
// some forty instructions each, and the walk takes four a column. Exact
// for the tile coordinates here (|v| < 2^31).
static inline int ifloor(double v)
{
    int i = (int)v;
    return i - (v < i);
}
static inline int iceil(double v)
{
    int i = (int)v;
    return i + (v > i);
}

/// Distance from p to the box [x0, x1] x [y0, y1].
static double point_box(st_vec2 p, double x0, double y0, double x1, double y1)
{
    double dx = p.x - clampd(p.x, x0, x1), dy = p.y - clampd(p.y, y0, y1);
    return sqrt(dx * dx + dy * dy);
}

static double point_segment(st_vec2 p, st_vec2 a, st_vec2 b)
{
    st_vec2 d = st_v2_sub(b, a);
    double l2 = st_v2_len2(d);
    double s = l2 > 0.0 ? clampd(st_v2_dot(st_v2_sub(p, a), d) / l2, 0.0, 1.0) : 0.0;
    return st_v2_dist(p, st_v2_add(a, st_v2_scale(d, s)));
}

/// Whether segment a-b meets the closed box (Liang-Barsky clipping).
static bool segment_meets_box(st_vec2 a, st_vec2 b, double x0, double y0, double x1, double y1)
{
    double t0 = 0.0, t1 = 1.0;
    double p[4] = {-(b.x - a.x), b.x - a.x, -(b.y - a.y), b.y - a.y};
    double q[4] = {a.x - x0, x1 - a.x, a.y - y0, y1 - a.y};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0.0) {
            if (q[k] < 0.0) return false;
        } else {
            double s = q[k] / p[k];
            if (p[k] < 0.0) t0 = s > t0 ? s : t0;
            else t1 = s < t1 ? s : t1;
            if (t0 > t1) return false;
        }
    }
    return true;
}

/// Whether segment a-b comes nearer than r to the box (touching it
/// counts): for disjoint convex shapes the nearest pair holds an end of
/// the segment or a corner, so the segment is nearer than r when one of
/// those six distances is. The first that is decides.
static bool segment_box_near(st_vec2 a, st_vec2 b, double x0, double y0, double x1, double y1, double r)
{
    if (segment_meets_box(a, b, x0, y0, x1, y1)) return true;
    return point_box(a, x0, y0, x1, y1) < r || point_box(b, x0, y0, x1, y1) < r ||
           point_segment(st_v2(x0, y0), a, b) < r || point_segment(st_v2(x1, y0), a, b) < r ||
           point_segment(st_v2(x0, y1), a, b) < r || point_segment(st_v2(x1, y1), a, b) < r;
}

static inline bool blocked_sw(const nav_tiles *t, int i, int j, bool swap)
{
    return swap ? nav__tile_blocked(t, j, i) : nav__tile_blocked(t, i, j);
}

bool nav__tiles_clear(const nav_tiles *t, st_vec2 a, st_vec2 b, double r)
{
    // Walk along the longer axis ("columns"), so each column holds few rows.
    bool swap = fabs(b.y - a.y) > fabs(b.x - a.x);
    if (swap) {
        a = st_v2(a.y, a.x);
        b = st_v2(b.y, b.x);
    }
    // The columns are walked from a's end: a blocked tile near a (where the
    // callers move their points) ends the walk soonest.
    bool back = a.x > b.x;
    if (back) {
        st_vec2 tmp = a;
        a = b;
        b = tmp;
    }
    double dx = b.x - a.x, dy = b.y - a.y;
    int i0 = iceil(a.x - 1.0 - r), i1 = ifloor(b.x + r);
    for (int k = i0; k <= i1; k++) {
        int i = back ? i0 + i1 - k : k;
        // The part of the segment within the column, widened by r.
        double xa = dmax(a.x, i - r), xb = dmin(b.x, i + 1 + r);
        double ya = a.y, yb = b.y;
        if (dx > 0.0) {
            ya = a.y + (xa - a.x) * dy / dx;
            yb = a.y + (xb - a.x) * dy / dx;
        }
        double ylo = dmin(ya, yb), yhi = dmax(ya, yb);
        int j0 = iceil(ylo - 1.0 - r), j1 = ifloor(yhi + r);
        for (int j = j0; j <= j1; j++) {
            if (!blocked_sw(t, i, j, swap)) continue;
            if (r == 0.0) return false; // the column's piece meets the closed tile
            if (segment_box_near(a, b, i, j, i + 1, j + 1, r)) return false;
        }
    }
    return true;
}
