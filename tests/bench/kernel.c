/*
 * kernel.c — a minimal flocking kernel: the limit steer's `flock` is
 * measured against (issue 14). The three rules with steer's parameters, for
 * the one case the benchmark runs: every agent flocks (radius 50, view 270
 * degrees, separation/alignment/cohesion 1.5/1/1, separation radius 25),
 * max speed 150, max force 400, mass 1, wrap edges, cells of at least 50.
 *
 * Written for speed and nothing else, so it is not steer's arithmetic:
 * - the state is SoA float (position, velocity, heading) and is re-sorted
 *   into cell order every step (a counting sort: per-slice histograms, then
 *   every agent's state scattered to its cell's slot), so an agent's
 *   neighbours, and the agent itself, are read from a few contiguous runs;
 * - the neighbour loop takes four candidates per vector operation (GCC's
 *   vector extensions; SSE on the default x86-64 target) and adds each
 *   lane's share under a mask: no branch, no list of neighbours;
 * - the forces and the integration are float too;
 * - none of steer's guards (NaN, overflow, a pair on one spot), handles,
 *   behaviour lists, tags or removals.
 * The slices of the sort are fixed by the agent count, not by the threads,
 * so every bit of the result is the same on any thread count.
 */
#include "kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define K_RADIUS 50.0f
#define K_SEP_RADIUS 25.0f
#define K_FOV_DEG 270.0
#define K_W_SEP 1.5f
#define K_W_ALI 1.0f
#define K_W_COH 1.0f
#define K_MAX_SPEED 150.0f
#define K_MAX_FORCE 400.0f
#define K_MASS 1.0f
/// The sort's slices (each its own histogram), whatever the thread count.
#define K_SLICES 2
/// Vector lanes read past the last agent: the arrays carry this much slack.
#define K_PAD 4

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

struct kflock {
    int n, threads, nc;
    float side, cw;
    float *px, *py, *vx, *vy, *hx, *hy; // the state, in last step's cell order
    float *qx, *qy, *ux, *uy, *gx, *gy; // the same, sorted by cell this step
    int32_t *id, *qid;                  // original index, along
    int32_t *cell, *start, *hist;
};

static float *falloc(int n) { return malloc(((size_t)n + K_PAD) * sizeof(float)); }

kflock *kflock_create(int n, double side, double cell, int threads, const double *px, const double *py,
                      const double *vx, const double *vy, const double *hx, const double *hy)
{
    kflock *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->n = n;
    k->threads = threads < 1 ? 1 : threads;
    k->side = (float)side;
    k->nc = (int)floor(side / cell);
    if (k->nc < 3) k->nc = 3;
    k->cw = (float)(side / k->nc);
    size_t cells = (size_t)k->nc * (size_t)k->nc;
    float **f[12] = {&k->px, &k->py, &k->vx, &k->vy, &k->hx, &k->hy, &k->qx, &k->qy, &k->ux, &k->uy, &k->gx, &k->gy};
    for (int a = 0; a < 12; a++)
        if (!(*f[a] = falloc(n))) goto oom;
    k->id = malloc(((size_t)n + 1) * sizeof(int32_t));
    k->qid = malloc(((size_t)n + 1) * sizeof(int32_t));
    k->cell = malloc(((size_t)n + 1) * sizeof(int32_t));
    k->start = malloc((cells + 1) * sizeof(int32_t));
    k->hist = malloc((size_t)K_SLICES * cells * sizeof(int32_t));
    if (!k->id || !k->qid || !k->cell || !k->start || !k->hist) goto oom;
    for (int i = 0; i < n; i++) {
        k->px[i] = (float)px[i];
        k->py[i] = (float)py[i];
        if (k->px[i] >= k->side) k->px[i] = 0.0f; // rounding up to the edge wraps
        if (k->py[i] >= k->side) k->py[i] = 0.0f;
        k->vx[i] = (float)vx[i];
        k->vy[i] = (float)vy[i];
        k->hx[i] = (float)hx[i];
        k->hy[i] = (float)hy[i];
        k->id[i] = i;
    }
    // The slack past the last agent: read by whole vectors, masked off.
    for (int a = 6; a < 12; a++)
        for (int p = 0; p < K_PAD; p++) (*f[a])[n + p] = 0.0f;
    return k;
oom:
    kflock_destroy(k);
    return NULL;
}

void kflock_destroy(kflock *k)
{
    if (!k) return;
    float *f[12] = {k->px, k->py, k->vx, k->vy, k->hx, k->hy, k->qx, k->qy, k->ux, k->uy, k->gx, k->gy};
    for (int a = 0; a < 12; a++) free(f[a]);
    free(k->id);
    free(k->qid);
    free(k->cell);
    free(k->start);
    free(k->hist);
    free(k);
}

static inline void slice(int n, int s, int ns, int *i0, int *i1)
{
    *i0 = (int)((int64_t)n * s / ns);
    *i1 = (int)((int64_t)n * (s + 1) / ns);
}

/// The counting sort of the state into q, shared out among the team.
static void sort_cells(kflock *k, int t, int nt)
{
    const int nc = k->nc, cells = nc * nc;
    const float inv = 1.0f / k->cw;
    for (int s = t; s < K_SLICES; s += nt) {
        int i0, i1;
        slice(k->n, s, K_SLICES, &i0, &i1);
        int32_t *h = k->hist + (size_t)s * cells;
        memset(h, 0, (size_t)cells * sizeof *h);
        for (int i = i0; i < i1; i++) {
            int cx = (int)(k->px[i] * inv), cy = (int)(k->py[i] * inv);
            cx = cx >= nc ? nc - 1 : cx;
            cy = cy >= nc ? nc - 1 : cy;
            int c = cy * nc + cx;
            k->cell[i] = c;
            h[c]++;
        }
    }
#pragma omp barrier
#pragma omp single
    {
        int32_t run = 0;
        for (int c = 0; c < cells; c++) {
            k->start[c] = run;
            for (int s = 0; s < K_SLICES; s++) {
                int32_t m = k->hist[(size_t)s * cells + c];
                k->hist[(size_t)s * cells + c] = run;
                run += m;
            }
        }
        k->start[cells] = run;
    } // implied barrier
    for (int s = t; s < K_SLICES; s += nt) {
        int i0, i1;
        slice(k->n, s, K_SLICES, &i0, &i1);
        int32_t *h = k->hist + (size_t)s * cells;
        for (int i = i0; i < i1; i++) {
            int32_t j = h[k->cell[i]]++;
            k->qx[j] = k->px[i];
            k->qy[j] = k->py[i];
            k->ux[j] = k->vx[i];
            k->uy[j] = k->vy[i];
            k->gx[j] = k->hx[i];
            k->gy[j] = k->hy[i];
            k->qid[j] = k->id[i];
        }
    }
}

/// The sums of one agent's neighbours, one per lane.
typedef struct sums {
    v4f sx, sy, hx, hy, ox, oy; // separation, heading sum, offset sum
    v4i n;
} sums;

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// Four candidates from j on (the lanes of `live`), offsets from (CX, CY):
/// those in the disc and in the view cone added to the sums.
static inline void four(const kflock *k, sums *s, int j, v4i live, v4f CX, v4f CY, v4f HX, v4f HY, v4f C2)
{
    const float r2 = K_RADIUS * K_RADIUS, sep2 = K_SEP_RADIUS * K_SEP_RADIUS;
    v4f DX = load4(k->qx + j) - CX, DY = load4(k->qy + j) - CY;
    v4f D2 = DX * DX + DY * DY;
    v4f DOT = DX * HX + DY * HY;
    // in the disc and in the cone (wider than 180 degrees: ahead, or
    // dot^2 <= cos^2 d^2)
    v4i in = live & (D2 <= r2) & ((DOT >= 0.0f) | (DOT * DOT <= C2 * D2));
    s->n -= in;
    s->hx += (v4f)((v4i)load4(k->gx + j) & in);
    s->hy += (v4f)((v4i)load4(k->gy + j) & in);
    s->ox += (v4f)((v4i)DX & in);
    s->oy += (v4f)((v4i)DY & in);
    // Separation: away / distance^2. At distance 0 (the agent itself, or
    // one on the same spot) the offset is 0 and so is its share; the tiny
    // term keeps 0 / 0 out and is below any distance's rounding.
    v4i close = in & (D2 < sep2);
    v4f R = 1.0f / (D2 + 1e-30f);
    s->sx -= (v4f)((v4i)(DX * R) & close);
    s->sy -= (v4f)((v4i)(DY * R) & close);
}

/// Candidates [j0, j1) of the sorted state, shifted by (shx, shy), against
/// the agent at (x, y) heading (hx, hy). Whole vectors, then one masked.
static inline void run(const kflock *k, sums *s, int j0, int j1, float shx, float shy, float x, float y, float hx,
                       float hy, float cos2)
{
    static const v4i TAIL[4] = {{0, 0, 0, 0}, {-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}};
    const v4f Z = {0};
    const v4f CX = Z + (x - shx), CY = Z + (y - shy), HX = Z + hx, HY = Z + hy, C2 = Z + cos2;
    const v4i ALL = {-1, -1, -1, -1};
    int j = j0;
    for (; j + 4 <= j1; j += 4) four(k, s, j, ALL, CX, CY, HX, HY, C2);
    if (j < j1) four(k, s, j, TAIL[j1 - j], CX, CY, HX, HY, C2);
}

static inline float hsum(v4f v) { return (v[0] + v[1]) + (v[2] + v[3]); }

static inline v4f sqrt4(v4f v)
{
#if defined(__SSE__)
    return __builtin_ia32_sqrtps(v);
#else
    v4f r;
    for (int l = 0; l < 4; l++) r[l] = sqrtf(v[l]);
    return r;
#endif
}

/// One rule for four agents, a lane each: toward max speed along (X, Y)
/// as steer's steer_velocity does (the force that reaches that velocity
/// this step, within max force), weighted, added to (FX, FY); `on`: the
/// lanes that have a sum.
static inline void rule4(v4f X, v4f Y, v4i on, v4f VX, v4f VY, float gain, float limit, float weight, v4f *FX,
                         v4f *FY)
{
    const v4f Z = {0.0f, 0.0f, 0.0f, 0.0f};
    v4f L2 = X * X + Y * Y;
    v4i live = on & (L2 > Z);
    v4f INV = (Z + 1.0f) / sqrt4(L2);
    v4f DX = X * INV * K_MAX_SPEED - VX, DY = Y * INV * K_MAX_SPEED - VY;
    v4f NEED = sqrt4(DX * DX + DY * DY);
    v4i past = NEED >= limit;
    v4f G = (v4f)(((v4i)((Z + K_MAX_FORCE) / NEED) & past) | ((v4i)(Z + gain) & ~past));
    *FX += (v4f)((v4i)(DX * G * weight) & live);
    *FY += (v4f)((v4i)(DY * G * weight) & live);
}

/// The forces of the four agents from i on (m of them) from their sums:
/// the three rules, a vector each, then truncated to max force.
static void forces4(const kflock *k, int i, int m, const sums *s, float dt, float *fx, float *fy)
{
    const v4f Z = {0.0f, 0.0f, 0.0f, 0.0f};
    // An agent's inputs a row, into vectors a column at a time (a vector
    // read of scalars just written would wait for them).
    float row[4][8];
    int32_t on[4];
    for (int l = 0; l < 4; l++) {
        if (l >= m) {
            for (int c = 0; c < 8; c++) row[l][c] = 0.0f;
            on[l] = 0;
            continue;
        }
        const sums *a = &s[l];
        row[l][0] = hsum(a->sx), row[l][1] = hsum(a->sy);
        row[l][2] = hsum(a->hx), row[l][3] = hsum(a->hy);
        row[l][4] = hsum(a->ox), row[l][5] = hsum(a->oy);
        row[l][6] = k->ux[i + l], row[l][7] = k->uy[i + l];
        on[l] = a->n[0] + a->n[1] + a->n[2] + a->n[3] > 0 ? -1 : 0;
    }
    v4f X[3], Y[3];
    for (int r = 0; r < 3; r++) {
        X[r] = (v4f){row[0][2 * r], row[1][2 * r], row[2][2 * r], row[3][2 * r]};
        Y[r] = (v4f){row[0][2 * r + 1], row[1][2 * r + 1], row[2][2 * r + 1], row[3][2 * r + 1]};
    }
    const v4f VX = {row[0][6], row[1][6], row[2][6], row[3][6]}, VY = {row[0][7], row[1][7], row[2][7], row[3][7]};
    const v4i has = {on[0], on[1], on[2], on[3]};
    const float gain = K_MASS / dt, limit = K_MAX_FORCE / gain;
    const v4i all = {-1, -1, -1, -1};
    v4f FX = Z, FY = Z;
    rule4(X[0], Y[0], all, VX, VY, gain, limit, K_W_SEP, &FX, &FY);
    rule4(X[1], Y[1], has, VX, VY, gain, limit, K_W_ALI, &FX, &FY);
    rule4(X[2], Y[2], has, VX, VY, gain, limit, K_W_COH, &FX, &FY);
    v4f L2 = FX * FX + FY * FY;
    v4i over = L2 > K_MAX_FORCE * K_MAX_FORCE;
    v4f R = (v4f)(((v4i)((Z + K_MAX_FORCE) / sqrt4(L2)) & over) | ((v4i)(Z + 1.0f) & ~over));
    FX *= R;
    FY *= R;
    for (int l = 0; l < m; l++) fx[l] = FX[l], fy[l] = FY[l];
}

/// Agent i's neighbour sums.
static void gather(const kflock *k, int i, float cos2, sums *s)
{
    const int nc = k->nc;
    const float W = k->side, inv = 1.0f / k->cw;
    const float x = k->qx[i], y = k->qy[i], hx = k->gx[i], hy = k->gy[i];
    // The agent is among its own candidates (distance 0, so in the disc and
    // the cone): the sums start without it.
    s->sx = s->sy = s->ox = s->oy = (v4f){0};
    s->hx = (v4f){-hx, 0.0f, 0.0f, 0.0f};
    s->hy = (v4f){-hy, 0.0f, 0.0f, 0.0f};
    s->n = (v4i){-1, 0, 0, 0};
    // Cells are at least as wide as the radius: the disc spans three rows
    // and three columns at most, each row's cells one contiguous run.
    // (x - radius) / cw > -1: floor as a truncation of a positive number.
    int cx0 = (int)((x - K_RADIUS) * inv + 1.0f) - 1, cx1 = (int)((x + K_RADIUS) * inv);
    int cy0 = (int)((y - K_RADIUS) * inv + 1.0f) - 1, cy1 = (int)((y + K_RADIUS) * inv);
    for (int cy = cy0; cy <= cy1; cy++) {
        int row = cy < 0 ? cy + nc : cy >= nc ? cy - nc : cy;
        float sy = cy < 0 ? -W : cy >= nc ? W : 0.0f;
        const int32_t *rs = k->start + (size_t)row * nc;
        if (cx0 < 0) {
            run(k, s, rs[cx0 + nc], rs[nc], -W, sy, x, y, hx, hy, cos2);
            run(k, s, rs[0], rs[cx1 + 1], 0.0f, sy, x, y, hx, hy, cos2);
        } else if (cx1 >= nc) {
            run(k, s, rs[cx0], rs[nc], 0.0f, sy, x, y, hx, hy, cos2);
            run(k, s, rs[0], rs[cx1 - nc + 1], W, sy, x, y, hx, hy, cos2);
        } else {
            run(k, s, rs[cx0], rs[cx1 + 1], 0.0f, sy, x, y, hx, hy, cos2);
        }
    }
}

/// Agent i's move, with force (fx, fy).
static void move(kflock *k, int i, float fx, float fy, float dt)
{
    const float W = k->side;
    const float x = k->qx[i], y = k->qy[i], hx = k->gx[i], hy = k->gy[i];
    const float vx = k->ux[i], vy = k->uy[i];
    float nvx = vx + fx * (dt / K_MASS), nvy = vy + fy * (dt / K_MASS);
    float v2 = nvx * nvx + nvy * nvy;
    if (v2 > K_MAX_SPEED * K_MAX_SPEED) {
        float r = K_MAX_SPEED / sqrtf(v2);
        nvx *= r;
        nvy *= r;
    }
    float px = x + nvx * dt, py = y + nvy * dt;
    px = px < 0.0f ? px + W : px >= W ? px - W : px;
    py = py < 0.0f ? py + W : py >= W ? py - W : py;
    if (!(px >= 0.0f && px < W)) px = 0.0f; // rounding onto the edge
    if (!(py >= 0.0f && py < W)) py = 0.0f;
    float nhx = hx, nhy = hy;
    if (v2 > 1e-12f) {
        float r = 1.0f / sqrtf(nvx * nvx + nvy * nvy);
        nhx = nvx * r;
        nhy = nvy * r;
    }
    // In place of the unsorted state: the sorted order becomes the state's.
    k->px[i] = px;
    k->py[i] = py;
    k->vx[i] = nvx;
    k->vy[i] = nvy;
    k->hx[i] = nhx;
    k->hy[i] = nhy;
    k->id[i] = k->qid[i];
}

/// Agents whose sums are gathered before their forces are worked out (the
/// three rules four agents a vector) and before they move: the forces are a
/// chain of square roots and divisions an agent, which the processor
/// overlaps when several come in a row.
#define K_BATCH 8

void kflock_step(kflock *k, double dt)
{
    double c = cos(0.5 * K_FOV_DEG * 3.14159265358979323846 / 180.0);
    float cos2 = (float)(c * c); // a cone wider than 180: seen when ahead or dot^2 <= cos2 d2
    const int batches = (k->n + K_BATCH - 1) / K_BATCH;
#pragma omp parallel num_threads(k->threads) if (k->threads > 1)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        int t = 0, nt = 1;
#endif
        sort_cells(k, t, nt);
#pragma omp barrier
#pragma omp for schedule(dynamic, 64)
        for (int b = 0; b < batches; b++) {
            int i0 = b * K_BATCH, i1 = i0 + K_BATCH < k->n ? i0 + K_BATCH : k->n;
            sums s[K_BATCH];
            float fx[K_BATCH], fy[K_BATCH];
            for (int i = i0; i < i1; i++) gather(k, i, cos2, &s[i - i0]);
            for (int i = i0; i < i1; i += 4)
                forces4(k, i, i1 - i < 4 ? i1 - i : 4, &s[i - i0], (float)dt, &fx[i - i0], &fy[i - i0]);
            for (int i = i0; i < i1; i++) move(k, i, fx[i - i0], fy[i - i0], (float)dt);
        }
    }
}

void kflock_pos(const kflock *k, int orig, double *x, double *y)
{
    for (int i = 0; i < k->n; i++)
        if (k->id[i] == orig) {
            *x = k->px[i];
            *y = k->py[i];
            return;
        }
    *x = *y = NAN;
}

void kflock_state(const kflock *k, double *x, double *y, double *hx, double *hy, double *speed)
{
    for (int i = 0; i < k->n; i++) {
        int o = k->id[i];
        x[o] = k->px[i];
        y[o] = k->py[i];
        hx[o] = k->hx[i];
        hy[o] = k->hy[i];
        speed[o] = sqrt((double)k->vx[i] * k->vx[i] + (double)k->vy[i] * k->vy[i]);
    }
}

uint64_t kflock_checksum(const kflock *k)
{
    uint64_t sum = 0;
    for (int i = 0; i < k->n; i++) {
        uint64_t h = (uint64_t)k->id[i] * 0x9E3779B97F4A7C15ull;
        float v[4] = {k->px[i], k->py[i], k->vx[i], k->vy[i]};
        for (int a = 0; a < 4; a++) {
            uint32_t b;
            memcpy(&b, &v[a], sizeof b);
            h = (h ^ b) * 0xff51afd7ed558ccdull;
            h ^= h >> 33;
        }
        sum += h;
    }
    return sum;
}
