/*
 * batch.c — vertex batches: triangles queued in screen space, flushed with
 * one SDL_RenderGeometry call per layer.
 *
 * Lines are quads rather than SDL_RenderDrawLine calls so that they batch
 * with everything else and keep a width under any renderer.
 */
#include <math.h>
#include <stdlib.h>

#include "render.h"

void batch_clear(batch *b)
{
    b->n = 0;
    b->failed = false;
}

void batch_free(batch *b)
{
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

static SDL_Vertex *batch_reserve(batch *b, int count)
{
    if (b->failed)
        return NULL;
    if (b->n + count > b->cap) {
        int cap = b->cap ? b->cap : 1024;
        while (cap < b->n + count)
            cap *= 2;
        SDL_Vertex *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            b->failed = true;
            return NULL;
        }
        b->v = v;
        b->cap = cap;
    }
    SDL_Vertex *out = b->v + b->n;
    b->n += count;
    return out;
}

static SDL_Vertex vert(SDL_FPoint p, SDL_Color c)
{
    SDL_Vertex v = {p, c, {0.0f, 0.0f}};
    return v;
}

void batch_tri(batch *b, SDL_FPoint p0, SDL_FPoint p1, SDL_FPoint p2, SDL_Color c)
{
    SDL_Vertex *v = batch_reserve(b, 3);
    if (v == NULL)
        return;
    v[0] = vert(p0, c);
    v[1] = vert(p1, c);
    v[2] = vert(p2, c);
}

void batch_rect(batch *b, float x, float y, float w, float h, SDL_Color c)
{
    SDL_FPoint p0 = {x, y}, p1 = {x + w, y}, p2 = {x + w, y + h}, p3 = {x, y + h};
    batch_tri(b, p0, p1, p2, c);
    batch_tri(b, p0, p2, p3, c);
}

void batch_line(batch *b, SDL_FPoint p0, SDL_FPoint p1, float width, SDL_Color c)
{
    float dx = p1.x - p0.x, dy = p1.y - p0.y;
    float len = sqrtf(dx * dx + dy * dy);
    if (!(len > 1e-4f))
        return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    SDL_FPoint a = {p0.x + nx, p0.y + ny}, bq = {p0.x - nx, p0.y - ny};
    SDL_FPoint cq = {p1.x - nx, p1.y - ny}, d = {p1.x + nx, p1.y + ny};
    batch_tri(b, a, bq, cq, c);
    batch_tri(b, a, cq, d, c);
}

/* Enough segments that a chord never strays more than ~0.3 px from the
 * circle, capped for huge radii. */
static int circle_segments(float r)
{
    int n = (int)(3.14159f / acosf(fmaxf(-1.0f, 1.0f - 0.3f / fmaxf(r, 0.5f))));
    if (n < 8)
        n = 8;
    if (n > 128)
        n = 128;
    return n;
}

void batch_circle(batch *b, SDL_FPoint c, float r, SDL_Color col, bool fill, float width)
{
    if (!(r > 0.0f) || !isfinite(r))
        return;
    int n = circle_segments(r);
    SDL_FPoint prev = {c.x + r, c.y};
    for (int i = 1; i <= n; i++) {
        float t = (float)i / (float)n * 6.2831853f;
        SDL_FPoint p = {c.x + r * cosf(t), c.y + r * sinf(t)};
        if (fill)
            batch_tri(b, c, prev, p, col);
        else
            batch_line(b, prev, p, width, col);
        prev = p;
    }
}

void batch_arrow(batch *b, SDL_FPoint from, SDL_FPoint to, float width, SDL_Color c)
{
    float dx = to.x - from.x, dy = to.y - from.y;
    float len = sqrtf(dx * dx + dy * dy);
    if (!(len > 1e-3f))
        return;
    float ux = dx / len, uy = dy / len;
    float head = fminf(8.0f, len * 0.4f) + width;
    SDL_FPoint base = {to.x - ux * head, to.y - uy * head};
    batch_line(b, from, base, width, c);
    SDL_FPoint l = {base.x - uy * head * 0.5f, base.y + ux * head * 0.5f};
    SDL_FPoint r = {base.x + uy * head * 0.5f, base.y - ux * head * 0.5f};
    batch_tri(b, to, l, r, c);
}

void batch_quad_uv(batch *b, SDL_FRect d, SDL_FRect uv, SDL_Color c)
{
    SDL_Vertex *v = batch_reserve(b, 6);
    if (v == NULL)
        return;
    SDL_Vertex q[4] = {
        {{d.x, d.y}, c, {uv.x, uv.y}},
        {{d.x + d.w, d.y}, c, {uv.x + uv.w, uv.y}},
        {{d.x + d.w, d.y + d.h}, c, {uv.x + uv.w, uv.y + uv.h}},
        {{d.x, d.y + d.h}, c, {uv.x, uv.y + uv.h}},
    };
    v[0] = q[0];
    v[1] = q[1];
    v[2] = q[2];
    v[3] = q[0];
    v[4] = q[2];
    v[5] = q[3];
}

void batch_flush(batch *b, SDL_Renderer *r, SDL_Texture *tex)
{
    if (b->n > 0)
        SDL_RenderGeometry(r, tex, b->v, b->n, NULL, 0);
    batch_clear(b);
}
