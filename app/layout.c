/*
 * layout.c — where the panels go: each panel is placed clear of those
 * placed before it in the same frame (render_ctx.panels), so no two panels
 * are ever drawn over each other. A panel that meets another slides past
 * it (down from its wanted top, or up from its wanted bottom) or, when at
 * least its minimum height is free before the one in the way, is cut short
 * there; one that fits nowhere is not drawn this frame.
 */
#include "render.h"

#define GAP 6.0f

static bool overlaps(const SDL_FRect *r, float x, float y, float w, float h)
{
    return x < r->x + r->w && r->x < x + w && y < r->y + r->h && r->y < y + h;
}

/* The first panel placed that the rectangle meets, or NULL. */
static const SDL_FRect *in_the_way(const render_ctx *c, float x, float y, float w, float h)
{
    for (int i = 0; i < c->npanels; i++)
        if (overlaps(&c->panels[i].r, x, y, w, h))
            return &c->panels[i].r;
    return NULL;
}

/* From the top down: the panel's top starts at *y and only moves down. */
static bool place_down(const render_ctx *c, float x, float *y, float w, float *h, float min_h)
{
    float top = *y, want = *h;
    for (int guard = 0; guard < 4 * RENDER_MAX_PANELS; guard++) {
        float hh = want < (float)c->h - top ? want : (float)c->h - top;
        if (hh < min_h)
            return false;
        const SDL_FRect *p = in_the_way(c, x, top, w, hh);
        if (p == NULL) {
            *y = top;
            *h = hh;
            return true;
        }
        if (p->y > top && p->y - GAP - top >= min_h) {
            want = p->y - GAP - top; /* cut short above it */
        } else {
            top = p->y + p->h + GAP; /* past it */
            want = *h;
        }
    }
    return false;
}

/* From the bottom up: the panel's bottom starts at *y + *h and only moves up. */
static bool place_up(const render_ctx *c, float x, float *y, float w, float *h, float min_h)
{
    float bottom = *y + *h, want = *h;
    for (int guard = 0; guard < 4 * RENDER_MAX_PANELS; guard++) {
        float hh = want < bottom ? want : bottom;
        if (hh < min_h)
            return false;
        const SDL_FRect *p = in_the_way(c, x, bottom - hh, w, hh);
        if (p == NULL) {
            *y = bottom - hh;
            *h = hh;
            return true;
        }
        if (p->y + p->h < bottom && bottom - (p->y + p->h + GAP) >= min_h) {
            want = bottom - (p->y + p->h + GAP); /* cut short below it */
        } else {
            bottom = p->y - GAP; /* above it */
            want = *h;
        }
    }
    return false;
}

bool layout_place(render_ctx *c, const char *name, float x, float *y, float w, float *h, float min_h, bool up)
{
    if (min_h > *h)
        min_h = *h;
    if (c->npanels == RENDER_MAX_PANELS || !(up ? place_up(c, x, y, w, h, min_h) : place_down(c, x, y, w, h, min_h)))
        return false;
    render_panel(c, name, x, *y, w, *h);
    return true;
}
