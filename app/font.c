/*
 * font.c — a glyph atlas: the printable ASCII glyphs of one font size
 * rendered once by SDL2_ttf into a single texture, so any amount of text
 * (the scripts' text, state names over every agent) is one batched draw call. Bytes outside
 * printable ASCII (UTF-8 sequences included) draw as '?'.
 */
#include <stdlib.h>

#include "render.h"

#define FIRST_GLYPH 32
#define LAST_GLYPH 126
#define GLYPHS (LAST_GLYPH - FIRST_GLYPH + 1)

typedef struct glyph {
    SDL_Rect src; ///< in the atlas
    int advance;
} glyph;

struct font {
    SDL_Texture *tex;
    int atlas_w, atlas_h;
    int line_h;
    glyph g[GLYPHS];
};

font *font_open(SDL_Renderer *r, const char *path, int size)
{
    TTF_Font *ttf = TTF_OpenFont(path, size);
    if (ttf == NULL)
        return NULL;
    font *f = calloc(1, sizeof *f);
    SDL_Surface *atlas = NULL;
    if (f == NULL)
        goto fail;
    f->line_h = TTF_FontLineSkip(ttf);
    int cell_h = TTF_FontHeight(ttf);
    /* One row per 16 glyphs, each cell as wide as the widest glyph. */
    int cell_w = 1;
    for (int ch = FIRST_GLYPH; ch <= LAST_GLYPH; ch++) {
        int minx, maxx, miny, maxy, adv;
        if (TTF_GlyphMetrics(ttf, (Uint16)ch, &minx, &maxx, &miny, &maxy, &adv) == 0 && adv + 2 > cell_w)
            cell_w = adv + 2;
    }
    f->atlas_w = cell_w * 16;
    f->atlas_h = cell_h * ((GLYPHS + 15) / 16);
    atlas = SDL_CreateRGBSurfaceWithFormat(0, f->atlas_w, f->atlas_h, 32, SDL_PIXELFORMAT_RGBA32);
    if (atlas == NULL)
        goto fail;
    SDL_FillRect(atlas, NULL, SDL_MapRGBA(atlas->format, 255, 255, 255, 0));
    SDL_Color white = {255, 255, 255, 255};
    for (int i = 0; i < GLYPHS; i++) {
        int ch = FIRST_GLYPH + i;
        int minx, maxx, miny, maxy, adv = cell_w;
        TTF_GlyphMetrics(ttf, (Uint16)ch, &minx, &maxx, &miny, &maxy, &adv);
        glyph *g = &f->g[i];
        g->advance = adv;
        g->src.x = (i % 16) * cell_w;
        g->src.y = (i / 16) * cell_h;
        g->src.w = adv;
        g->src.h = cell_h;
        if (ch == ' ')
            continue;
        SDL_Surface *s = TTF_RenderGlyph_Blended(ttf, (Uint16)ch, white);
        if (s == NULL)
            continue;
        SDL_SetSurfaceBlendMode(s, SDL_BLENDMODE_NONE);
        SDL_Rect dst = {g->src.x, g->src.y, s->w < cell_w ? s->w : cell_w, s->h < cell_h ? s->h : cell_h};
        SDL_Rect src = {0, 0, dst.w, dst.h};
        SDL_BlitSurface(s, &src, atlas, &dst);
        SDL_FreeSurface(s);
    }
    f->tex = SDL_CreateTextureFromSurface(r, atlas);
    if (f->tex == NULL)
        goto fail;
    SDL_SetTextureBlendMode(f->tex, SDL_BLENDMODE_BLEND);
    SDL_FreeSurface(atlas);
    TTF_CloseFont(ttf);
    return f;
fail:
    SDL_FreeSurface(atlas);
    free(f);
    TTF_CloseFont(ttf);
    return NULL;
}

void font_close(font *f)
{
    if (f == NULL)
        return;
    SDL_DestroyTexture(f->tex);
    free(f);
}

int font_line_height(const font *f) { return f ? f->line_h : 14; }

SDL_Texture *font_texture(const font *f) { return f ? f->tex : NULL; }

static const glyph *glyph_of(const font *f, unsigned char ch)
{
    if (ch < FIRST_GLYPH || ch > LAST_GLYPH)
        ch = '?';
    return &f->g[ch - FIRST_GLYPH];
}

/* A UTF-8 sequence counts as one '?' rather than one per byte. */
static bool continuation(unsigned char ch) { return (ch & 0xC0) == 0x80; }

float font_width(const font *f, const char *s, size_t len)
{
    if (f == NULL)
        return 0.0f;
    float w = 0.0f;
    for (size_t i = 0; i < len; i++) {
        if (continuation((unsigned char)s[i]))
            continue;
        w += (float)glyph_of(f, (unsigned char)s[i])->advance;
    }
    return w;
}

float font_draw(const font *f, batch *b, float x, float y, const char *s, size_t len, SDL_Color c)
{
    if (f == NULL)
        return x;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (continuation(ch) || ch == '\n' || ch == '\r')
            continue;
        if (ch == '\t')
            ch = ' ';
        const glyph *g = glyph_of(f, ch);
        if (ch != ' ') {
            SDL_FRect dst = {x, y, (float)g->src.w, (float)g->src.h};
            SDL_FRect uv = {(float)g->src.x / (float)f->atlas_w, (float)g->src.y / (float)f->atlas_h,
                            (float)g->src.w / (float)f->atlas_w, (float)g->src.h / (float)f->atlas_h};
            batch_quad_uv(b, dst, uv, c);
        }
        x += (float)g->advance;
    }
    return x;
}
