/*
 * kernel.c — a minimal flocking kernel: the limit steer's `flock` is
 * measured against (issue 14). The same three rules with the same
 * parameters and arithmetic as src/behaviors.c's flock and src/step.c's
 * integration, for the one case the benchmark runs: every agent flocks
 * (radius 50, view 270 degrees, separation/alignment/cohesion 1.5/1/1,
 * separation radius 25), max speed 150, max force 400, mass 1, wrap edges.
 *
 * What it leaves out, and steer pays for: handles and behaviour lists, tags,
 * removals, other behaviours, traces, the NaN and overflow guards, and the
 * pair of agents on one spot (steer pushes them apart in a direction of
 * their own; here they do not push).
 *
 * The state is SoA doubles, kept in cell order: each step counts the agents
 * into cells (per-thread histograms over fixed slices, so the order, and
 * every bit of the result, is the same on any thread count), scatters the
 * state into the other buffer, then computes every agent's forces from that
 * buffer and writes its integrated state back in place of the first. Each
 * row of a disc's cells is one contiguous run, as in steer's grid.
 */
#include "kernel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define K_RADIUS 50.0
#define K_SEP_RADIUS 25.0
#define K_FOV_DEG 270.0
#define K_W_SEP 1.5
#define K_W_ALI 1.0
#define K_W_COH 1.0
#define K_MAX_SPEED 150.0
#define K_MAX_FORCE 400.0
#define K_MASS 1.0
#define K_BATCH 64

struct kflock {
    int n, threads, nc;
    double side, cw;
    double *px, *py, *vx, *vy, *hx, *hy; // the state
    double *qx, *qy, *ux, *uy, *gx, *gy; // the state sorted by cell
    int32_t *id, *qid;                   // original index, along
    int32_t *cell, *start, *hist;
};

kflock *kflock_create(int n, double side, double cell, int threads, const double *px, const double *py,
                      const double *vx, const double *vy, const double *hx, const double *hy)
{
    kflock *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->n = n;
    k->threads = threads < 1 ? 1 : threads;
    k->side = side;
    k->nc = (int)floor(side / cell);
    if (k->nc < 3) k->nc = 3;
    k->cw = side / k->nc;
    size_t nd = (size_t)n * sizeof(double), cells = (size_t)k->nc * (size_t)k->nc;
    double **d[12] = {&k->px, &k->py, &k->vx, &k->vy, &k->hx, &k->hy,
                      &k->qx, &k->qy, &k->ux, &k->uy, &k->gx, &k->gy};
    for (int a = 0; a < 12; a++)
        if (!(*d[a] = malloc(nd ? nd : 1))) goto oom;
    k->id = malloc((size_t)n * sizeof(int32_t) + 1);
    k->qid = malloc((size_t)n * sizeof(int32_t) + 1);
    k->cell = malloc((size_t)n * sizeof(int32_t) + 1);
    k->start = malloc((cells + 1) * sizeof(int32_t));
    k->hist = malloc((size_t)k->threads * cells * sizeof(int32_t));
    if (!k->id || !k->qid || !k->cell || !k->start || !k->hist) goto oom;
    memcpy(k->px, px, nd);
    memcpy(k->py, py, nd);
    memcpy(k->vx, vx, nd);
    memcpy(k->vy, vy, nd);
    memcpy(k->hx, hx, nd);
    memcpy(k->hy, hy, nd);
    for (int i = 0; i < n; i++) k->id[i] = i;
    return k;
oom:
    kflock_destroy(k);
    return NULL;
}

void kflock_destroy(kflock *k)
{
    if (!k) return;
    double *d[12] = {k->px, k->py, k->vx, k->vy, k->hx, k->hy, k->qx, k->qy, k->ux, k->uy, k->gx, k->gy};
    for (int a = 0; a < 12; a++) free(d[a]);
    free(k->id);
    free(k->qid);
    free(k->cell);
    free(k->start);
    free(k->hist);
    free(k);
}

static inline void slice(int n, int t, int nt, int *i0, int *i1)
{
    *i0 = (int)((int64_t)n * t / nt);
    *i1 = (int)((int64_t)n * (t + 1) / nt);
}

/// Counting sort of the state into q (stable: the same order on any thread count).
static void sort_cells(kflock *k, int t, int nt)
{
    const int nc = k->nc, cells = nc * nc;
    const double inv = 1.0 / k->cw;
    int i0, i1;
    slice(k->n, t, nt, &i0, &i1);
    int32_t *h = k->hist + (size_t)t * cells;
    memset(h, 0, (size_t)cells * sizeof *h);
    for (int i = i0; i < i1; i++) {
        int cx = (int)(k->px[i] * inv), cy = (int)(k->py[i] * inv);
        cx = cx < 0 ? 0 : cx >= nc ? nc - 1 : cx;
        cy = cy < 0 ? 0 : cy >= nc ? nc - 1 : cy;
        int c = cy * nc + cx;
        k->cell[i] = c;
        h[c]++;
    }
#pragma omp barrier
#pragma omp single
    {
        int32_t run = 0;
        for (int c = 0; c < cells; c++) {
            k->start[c] = run;
            for (int s = 0; s < nt; s++) {
                int32_t m = k->hist[(size_t)s * cells + c];
                k->hist[(size_t)s * cells + c] = run;
                run += m;
            }
        }
        k->start[cells] = run;
    } // implied barrier
    for (int i = i0; i < i1; i++) {
        int32_t j = h[k->cell[i]]++;
        k->qx[j] = k->px[i];
        k->qy[j] = k->py[i];
        k->ux[j] = k->vx[i];
        k->uy[j] = k->vy[i];
        k->gx[j] = (float)k->hx[i]; // as steer's grid items keep them
        k->gy[j] = (float)k->hy[i];
        k->qid[j] = k->id[i];
    }
}

typedef struct sums {
    double sx, sy, hx, hy, ox, oy; // separation, heading sum, offset sum
    int n;
    // the candidates that passed, waiting to be summed
    int m;
    int32_t at[K_BATCH];
    double dx[K_BATCH], dy[K_BATCH], d2[K_BATCH];
} sums;

static inline void flush(const kflock *k, sums *s)
{
    const double sep2 = K_SEP_RADIUS * K_SEP_RADIUS;
    for (int m = 0; m < s->m; m++) {
        double dx = s->dx[m], dy = s->dy[m], d2 = s->d2[m];
        s->n++;
        s->hx += k->gx[s->at[m]];
        s->hy += k->gy[s->at[m]];
        s->ox += dx;
        s->oy += dy;
        if (d2 < sep2 && d2 > 0.0) {
            double r = 1.0 / d2;
            s->sx -= dx * r;
            s->sy -= dy * r;
        }
    }
    s->m = 0;
}

/// Candidates [k0, k1) of the sorted state, shifted by (shx, shy): in the
/// disc, in the view cone and not agent i, without a branch per candidate.
static inline void run(const kflock *k, sums *s, int i, int k0, int k1, double shx, double shy, double x, double y,
                       double hx, double hy, double cos2)
{
    const double r2 = K_RADIUS * K_RADIUS;
    int j = k0;
#if defined(__GNUC__)
    // Two candidates per vector operation (SSE2 doubles), as steer's kernel does.
    typedef double v2d __attribute__((vector_size(16)));
    typedef int64_t v2l __attribute__((vector_size(16)));
    const v2d SX = {shx, shx}, SY = {shy, shy}, CX = {x, x}, CY = {y, y}, R2 = {r2, r2}, HX = {hx, hx},
              HY = {hy, hy}, C2 = {cos2, cos2}, Z = {0.0, 0.0};
    for (; j + 1 < k1; j += 2) {
        if (s->m >= K_BATCH - 1) flush(k, s);
        v2d X, Y;
        memcpy(&X, &k->qx[j], sizeof X);
        memcpy(&Y, &k->qy[j], sizeof Y);
        v2d DX = X + SX - CX, DY = Y + SY - CY;
        v2d D2 = DX * DX + DY * DY;
        v2d DOT = DX * HX + DY * HY;
        v2l keep = (D2 <= R2) & ((DOT >= Z) | (DOT * DOT <= C2 * D2) | (D2 <= Z));
        int m = s->m;
        s->at[m] = j;
        s->dx[m] = DX[0];
        s->dy[m] = DY[0];
        s->d2[m] = D2[0];
        m += (int)(keep[0] & 1) & (j != i);
        s->at[m] = j + 1;
        s->dx[m] = DX[1];
        s->dy[m] = DY[1];
        s->d2[m] = D2[1];
        m += (int)(keep[1] & 1) & (j + 1 != i);
        s->m = m;
    }
#endif
    for (; j < k1; j++) {
        if (s->m == K_BATCH) flush(k, s);
        double dx = k->qx[j] + shx - x, dy = k->qy[j] + shy - y;
        double d2 = dx * dx + dy * dy;
        double dot = dx * hx + dy * hy;
        int keep = (d2 <= r2) & (j != i) & ((dot >= 0.0) | (dot * dot <= cos2 * d2) | (d2 <= 0.0));
        int m = s->m;
        s->at[m] = j;
        s->dx[m] = dx;
        s->dy[m] = dy;
        s->d2[m] = d2;
        s->m = m + keep;
    }
}

static inline void dir(double *x, double *y)
{
    double l = sqrt(*x * *x + *y * *y);
    if (l > 0.0) {
        double r = 1.0 / l;
        *x *= r;
        *y *= r;
    }
}

/// steer's steer_velocity: the force that reaches (dx, dy) + vel this step,
/// within max force; (dx, dy): desired - vel on entry.
static inline void steer_to(double *fx, double *fy, double desx, double desy, double vx, double vy, double gain,
                            double limit, double weight)
{
    double dx = desx - vx, dy = desy - vy;
    double need = sqrt(dx * dx + dy * dy);
    if (need >= limit) {
        dir(&dx, &dy);
        *fx += dx * K_MAX_FORCE * weight;
        *fy += dy * K_MAX_FORCE * weight;
    } else {
        *fx += dx * gain * weight;
        *fy += dy * gain * weight;
    }
}

static void agent(kflock *k, int i, double dt, double cos2)
{
    const int nc = k->nc;
    const double W = k->side, cw = k->cw, inv = 1.0 / cw;
    const double x = k->qx[i], y = k->qy[i], hx = k->gx[i], hy = k->gy[i];
    sums s;
    s.sx = s.sy = s.hx = s.hy = s.ox = s.oy = 0.0;
    s.n = s.m = 0;
    int cx0 = (int)floor((x - K_RADIUS) * inv), cx1 = (int)floor((x + K_RADIUS) * inv);
    int cy0 = (int)floor((y - K_RADIUS) * inv), cy1 = (int)floor((y + K_RADIUS) * inv);
    for (int cy = cy0; cy <= cy1; cy++) {
        int row = cy < 0 ? cy + nc : cy >= nc ? cy - nc : cy;
        double sy = cy < 0 ? -W : cy >= nc ? W : 0.0;
        const int32_t *rs = k->start + (size_t)row * nc;
        if (cx0 < 0) {
            run(k, &s, i, rs[cx0 + nc], rs[nc], -W, sy, x, y, hx, hy, cos2);
            run(k, &s, i, rs[0], rs[cx1 + 1], 0.0, sy, x, y, hx, hy, cos2);
        } else if (cx1 >= nc) {
            run(k, &s, i, rs[cx0], rs[nc], 0.0, sy, x, y, hx, hy, cos2);
            run(k, &s, i, rs[0], rs[cx1 - nc + 1], W, sy, x, y, hx, hy, cos2);
        } else {
            run(k, &s, i, rs[cx0], rs[cx1 + 1], 0.0, sy, x, y, hx, hy, cos2);
        }
    }
    flush(k, &s);

    // The three rules (behaviors.c: separation_force, alignment_force,
    // cohesion_force, flock), then step.c's integration.
    const double vx = k->ux[i], vy = k->uy[i];
    const double gain = K_MASS / dt, limit = K_MAX_FORCE / gain;
    double fx = 0.0, fy = 0.0;
    if (s.sx != 0.0 || s.sy != 0.0) {
        double ax = s.sx, ay = s.sy;
        dir(&ax, &ay);
        steer_to(&fx, &fy, ax * K_MAX_SPEED, ay * K_MAX_SPEED, vx, vy, gain, limit, K_W_SEP);
    }
    if (s.n > 0) {
        double ax = s.hx, ay = s.hy;
        dir(&ax, &ay);
        if (ax != 0.0 || ay != 0.0) steer_to(&fx, &fy, ax * K_MAX_SPEED, ay * K_MAX_SPEED, vx, vy, gain, limit, K_W_ALI);
        double r = 1.0 / s.n;
        ax = s.ox * r;
        ay = s.oy * r;
        if (ax != 0.0 || ay != 0.0) {
            dir(&ax, &ay);
            steer_to(&fx, &fy, ax * K_MAX_SPEED, ay * K_MAX_SPEED, vx, vy, gain, limit, K_W_COH);
        }
    }
    double l2 = fx * fx + fy * fy;
    if (l2 > K_MAX_FORCE * K_MAX_FORCE) { // flock's truncation (integration's is then a no-op)
        double r = K_MAX_FORCE / sqrt(l2);
        fx *= r;
        fy *= r;
    }
    double nvx = vx + fx * (dt / K_MASS), nvy = vy + fy * (dt / K_MASS);
    double v2 = nvx * nvx + nvy * nvy;
    if (v2 > K_MAX_SPEED * K_MAX_SPEED) {
        double r = K_MAX_SPEED / sqrt(v2);
        nvx *= r;
        nvy *= r;
    }
    double px = x + nvx * dt, py = y + nvy * dt;
    if (px < 0.0 || px >= W) px -= W * floor(px / W);
    if (py < 0.0 || py >= W) py -= W * floor(py / W);
    if (px >= W || px < 0.0) px = 0.0;
    if (py >= W || py < 0.0) py = 0.0;
    double nhx = hx, nhy = hy;
    if (nvx * nvx + nvy * nvy > 1e-12) {
        double m = fmax(fabs(nvx), fabs(nvy));
        double ux = nvx / m, uy = nvy / m, l = sqrt(ux * ux + uy * uy); // st_v2_normalize: divides
        nhx = ux / l;
        nhy = uy / l;
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

void kflock_step(kflock *k, double dt)
{
    double c = cos(0.5 * K_FOV_DEG * 3.14159265358979323846 / 180.0);
    double cos2 = c * c; // a cone wider than 180: seen when ahead or dot^2 <= cos2 d2
#pragma omp parallel num_threads(k->threads) if (k->threads > 1)
    {
#ifdef _OPENMP
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        int t = 0, nt = 1;
#endif
        sort_cells(k, t, nt);
#pragma omp barrier
#pragma omp for schedule(dynamic, 512)
        for (int i = 0; i < k->n; i++) agent(k, i, dt, cos2);
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

uint64_t kflock_checksum(const kflock *k)
{
    uint64_t sum = 0;
    for (int i = 0; i < k->n; i++) {
        uint64_t h = (uint64_t)k->id[i] * 0x9E3779B97F4A7C15ull, b;
        double v[4] = {k->px[i], k->py[i], k->vx[i], k->vy[i]};
        for (int a = 0; a < 4; a++) {
            memcpy(&b, &v[a], sizeof b);
            h = (h ^ b) * 0xff51afd7ed558ccdull;
            h ^= h >> 33;
        }
        sum += h;
    }
    return sum;
}
