/*
 * gfx.c — the `gfx` table handed to scene.draw and brain.draw:
 * gfx.line(a, b [, color]), gfx.circle(c, r [, color [, fill]]),
 * gfx.text(pos, string [, color]), gfx.arrow(from, vector [, color]).
 *
 * Points are in world units and accept anything steer_lua_checkpoint does
 * (vec2, {x=, y=}, {x, y}). A color is {r, g, b [, a]} or {r=, g=, b= [, a=]},
 * each 0-255. Calls queue into the frame's script layer; outside a draw
 * (or in a headless run with no screenshot) they check their arguments and
 * draw nothing.
 */
#include <math.h>
#include <string.h>

#include <lauxlib.h>

#include "render.h"
#include "steer_lua.h"

#define GFX_LINE_WIDTH 1.5f

static app *gfx_app(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

static Uint8 component(lua_State *L, int t, int i, const char *k, int def)
{
    lua_Integer n = i;
    int type = lua_rawgeti(L, t, n);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        type = lua_getfield(L, t, k);
    }
    double v = def;
    if (type != LUA_TNIL) {
        int ok;
        v = lua_tonumberx(L, -1, &ok);
        if (!ok || !isfinite(v))
            luaL_error(L, "color component '%s' must be a finite number", k);
    }
    lua_pop(L, 1);
    return (Uint8)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
}

static SDL_Color check_color(lua_State *L, int arg, SDL_Color def)
{
    if (lua_isnoneornil(L, arg))
        return def;
    luaL_checktype(L, arg, LUA_TTABLE);
    SDL_Color c;
    c.r = component(L, arg, 1, "r", 255);
    c.g = component(L, arg, 2, "g", 255);
    c.b = component(L, arg, 3, "b", 255);
    c.a = component(L, arg, 4, "a", 255);
    return c;
}

static const SDL_Color DEFAULT_COLOR = {230, 230, 230, 255};

/* gfx.line(a, b [, color]) and gfx.arrow(from, vector [, color]): two
 * points, or a point and a vector, in world units. */
static int segment(lua_State *L, bool arrow)
{
    app *a = gfx_app(L);
    st_vec2 p = steer_lua_checkpoint(L, 1);
    st_vec2 q = steer_lua_checkpoint(L, 2);
    SDL_Color c = check_color(L, 3, DEFAULT_COLOR);
    render_ctx *ctx = a->gfx_target;
    if (ctx == NULL)
        return 0;
    batch *b = &ctx->layer[LAYER_SCRIPT];
    if (arrow)
        batch_arrow(b, to_screen(ctx, p), to_screen(ctx, st_v2_add(p, q)), GFX_LINE_WIDTH, c);
    else
        batch_line(b, to_screen(ctx, p), to_screen(ctx, q), GFX_LINE_WIDTH, c);
    return 0;
}

static int gfx_line(lua_State *L) { return segment(L, false); }
static int gfx_arrow(lua_State *L) { return segment(L, true); }

static int gfx_circle(lua_State *L)
{
    app *a = gfx_app(L);
    st_vec2 p = steer_lua_checkpoint(L, 1);
    double r = luaL_checknumber(L, 2);
    luaL_argcheck(L, isfinite(r) && r >= 0, 2, "must be a finite number >= 0");
    SDL_Color c = check_color(L, 3, DEFAULT_COLOR);
    bool fill = lua_toboolean(L, 4) || (lua_type(L, 4) == LUA_TSTRING && lua_tostring(L, 4)[0] == 'f');
    render_ctx *ctx = a->gfx_target;
    if (ctx)
        batch_circle(&ctx->layer[LAYER_SCRIPT], to_screen(ctx, p), (float)(r * ctx->scale), c, fill, GFX_LINE_WIDTH);
    return 0;
}

static int gfx_text(lua_State *L)
{
    app *a = gfx_app(L);
    st_vec2 p = steer_lua_checkpoint(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    SDL_Color c = check_color(L, 3, DEFAULT_COLOR);
    render_ctx *ctx = a->gfx_target;
    if (ctx == NULL)
        return 0;
    /* Lines break on '\n'. */
    SDL_FPoint at = to_screen(ctx, p);
    const char *line = s, *end = s + len;
    while (line <= end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        font_draw(ctx->small, &ctx->layer[LAYER_TEXT], at.x, at.y, line, n, c);
        at.y += (float)font_line_height(ctx->small);
        if (nl == NULL)
            break;
        line = nl + 1;
    }
    return 0;
}

void gfx_push(lua_State *L, app *a)
{
    static const luaL_Reg fns[] = {
        {"line", gfx_line}, {"circle", gfx_circle}, {"text", gfx_text}, {"arrow", gfx_arrow}, {NULL, NULL},
    };
    lua_createtable(L, 0, 4);
    lua_pushlightuserdata(L, a);
    luaL_setfuncs(L, fns, 1);
}
