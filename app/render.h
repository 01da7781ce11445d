/*
 * render.h — drawing: vertex batches, the glyph atlas, and the render
 * context that render.c and gfx.c draw through (the windows over them are
 * ui.h's).
 *
 * Everything is queued as triangles in screen coordinates and flushed once
 * per layer with SDL_RenderGeometry, so a frame costs a handful of draw
 * calls however many agents there are. The same code draws into a window
 * and into a software renderer over an SDL_Surface (headless screenshots).
 */
#ifndef STEER_APP_RENDER_H
#define STEER_APP_RENDER_H

#include <SDL.h>
#include <SDL_ttf.h>

#include "app.h"

/* ------------------------------------------------------------------ batch.c */

typedef struct batch {
    SDL_Vertex *v;
    int n, cap;
    bool failed; ///< an allocation failed: the rest of this frame's layer is dropped
} batch;

void batch_clear(batch *b);
void batch_free(batch *b);
void batch_tri(batch *b, SDL_FPoint p0, SDL_FPoint p1, SDL_FPoint p2, SDL_Color c);
/// A filled axis-aligned rectangle.
void batch_rect(batch *b, float x, float y, float w, float h, SDL_Color c);
/// A segment drawn as a quad `width` pixels wide.
void batch_line(batch *b, SDL_FPoint p0, SDL_FPoint p1, float width, SDL_Color c);
/// Outline (width pixels) or filled disc; segment count follows the radius.
void batch_circle(batch *b, SDL_FPoint c, float r, SDL_Color col, bool fill, float width);
/// A line with a head at `to`.
void batch_arrow(batch *b, SDL_FPoint from, SDL_FPoint to, float width, SDL_Color c);
/// A textured quad (glyphs).
void batch_quad_uv(batch *b, SDL_FRect dst, SDL_FRect uv, SDL_Color c);
/// Draws and clears the batch (texture may be NULL).
void batch_flush(batch *b, SDL_Renderer *r, SDL_Texture *tex);

/* ------------------------------------------------------------------ font.c */

typedef struct font font;

/// An atlas of the printable ASCII glyphs at `size` points; NULL when the
/// font cannot be opened (text is then skipped).
font *font_open(SDL_Renderer *r, const char *path, int size);
void font_close(font *f);
int font_line_height(const font *f);
/// Width in pixels of the first `len` bytes of s.
float font_width(const font *f, const char *s, size_t len);
/// Queues s at (x, y) (top-left) into b; returns the pen's final x.
float font_draw(const font *f, batch *b, float x, float y, const char *s, size_t len, SDL_Color c);
SDL_Texture *font_texture(const font *f);

/* ------------------------------------------------------------------ render_ctx */

enum {
    LAYER_WORLD,    ///< obstacles, walls, paths
    LAYER_AGENTS,
    LAYER_SELECTED, ///< the selected agent's overlays, over the crowd
    LAYER_OVERLAY,  ///< velocity, force, cones...
    LAYER_SCRIPT,   ///< gfx calls from scenes and brains
    LAYER_TEXT,     ///< world-space text (glyph atlas)
    LAYER_HUD,      ///< drawn over the windows: the decision events' ticks on the timeline
    LAYER_COUNT
};

#define RENDER_MAX_PANELS 16
#define RENDER_MAX_FIELDS 32
/// Pixels under the world view kept for the timeline while the HUD is on.
#define RENDER_TIMELINE_BAND 38

struct render_ctx {
    SDL_Renderer *r;
    /// The surface a software renderer draws into, when the caller made it
    /// (headless): frames are cleared by plain stores (see render_frame).
    SDL_Surface *surface;
    int w, h;               ///< output size in pixels
    double scale, ox, oy;   ///< screen = o + world * scale
    int band;               ///< pixels along the bottom kept for the timeline, outside the world view
    /// How far the frame is into the next fixed step (0..1): agents are drawn
    /// at st_agent_render_pos(alpha), between their last two steps. 1 headless
    /// and while paused (where they are).
    double alpha;
    struct font *small;     ///< the world's text (scripts' gfx.text, state names); may be NULL
    batch layer[LAYER_COUNT];
    /// The panels (HUD, help, plots, timeline...) drawn in the last frame:
    /// input over one of them is the app's and never reaches the scene.
    struct render_panel {
        const char *name;
        SDL_FRect r;
    } panels[RENDER_MAX_PANELS];
    int npanels;
    /// The selected agent's numbers in its window (last frame), each with
    /// its edit `agent(ID).self.KEY = VALUE`: where --events' click-field clicks.
    struct render_field {
        char edit[128];
        SDL_FRect r;
    } fields[RENDER_MAX_FIELDS];
    int nfields;
    struct ui *gui;         ///< the windows (ui.h); NULL: none (no font texture)
    /// The timeline's bar in the last frame (timeline_hit): its rectangle and
    /// the tick at its right end; w == 0 when it was not drawn.
    SDL_FRect timeline_bar;
    long timeline_end;
};

static inline SDL_FPoint to_screen(const render_ctx *c, st_vec2 p)
{
    SDL_FPoint s = {(float)(c->ox + p.x * c->scale), (float)(c->oy + p.y * c->scale)};
    return s;
}

static inline st_vec2 to_world(const render_ctx *c, double x, double y)
{
    return st_v2((x - c->ox) / c->scale, (y - c->oy) / c->scale);
}

static inline SDL_Color rgba(Uint8 r, Uint8 g, Uint8 b, Uint8 a)
{
    SDL_Color c = {r, g, b, a};
    return c;
}

/// Sets up a context over a renderer (fonts from STEER_FONT_PATH).
bool render_ctx_init(render_ctx *c, SDL_Renderer *r);
void render_ctx_free(render_ctx *c);
/// Fits the world into the output (letterboxed) for this frame, above c->band.
void render_ctx_fit(render_ctx *c, int out_w, int out_h, double world_w, double world_h);
/// The world view of this frame: the band kept for the timeline when the
/// HUD is on, the world fitted above it (nothing without a world).
void render_fit_world(render_ctx *c, const app *a);

/* ------------------------------------------------------------------ render.c */

/// The colour a behaviour's force is drawn in (ST_BEHAVIOR_COUNT: st_agent_apply).
SDL_Color behavior_color(st_behavior_type type);

/// Notes a panel's rectangle for this frame (input routing, --events' `panels`; hud.c).
void render_panel(render_ctx *c, const char *name, float x, float y, float w, float h);
/// Places a panel of w x h at (x, *y) clear of the panels placed before it
/// this frame: moved down (up: moved up from its bottom) past any in the
/// way, or cut short before one when at least min_h is free; notes it as
/// render_panel does. Writes the place and height got; false (nothing noted)
/// when it fits nowhere (layout.c).
bool layout_place(render_ctx *c, const char *name, float x, float *y, float w, float *h, float min_h, bool up);
/// The name of the panel under the window point (x, y) in the last frame, or NULL.
const char *render_panel_at(const render_ctx *c, float x, float y);

/// A whole frame: world, agents, overlays, scripts' drawing, HUD. Does not present.
void render_frame(app *a, render_ctx *c, bool hud);

/* ------------------------------------------------------------------ gfx.c */

/// Pushes a new gfx table whose functions draw into a->gfx_target (no-ops
/// while it is NULL).
void gfx_push(lua_State *L, app *a);

/* ------------------------------------------------------------------ hud.c */

/// The F1 help's rows: a key (or "") and what it does.
extern const char *const hud_help[][2];
extern const int hud_help_count;
/// The frame rate (a->fps), smoothed, given this frame's clock.
void hud_update_fps(app *a, double now);

#endif
