/*
 * tiles.c — tile maps from Lua: the `tiles` and `walkable` fields of
 * world:navgrid{...}, checked and turned into one byte a tile.
 *
 * Two forms, as games keep them:
 *   - a list of strings, one a row, one character a tile ('.' free unless
 *     `walkable` says otherwise: a string of the free characters, a set
 *     table {['.'] = true, ...}, or a function(char) -> truthy, asked once
 *     a character, so a 4096 x 4096 map reads in a byte loop);
 *   - {width =, height =, data = {...}} with width * height numbers,
 *     row-major (a Tiled JSON layer, or STI's layer.data flattened): 0 free
 *     unless `walkable` says otherwise (a set table {[0] = true, [7] = true}
 *     or a function(value) -> truthy).
 * The bytes live in a userdata left on the stack, so an error half-way
 * leaks nothing.
 */
#include <string.h>

#include "bind.h"

/// Whether tile value v (at -1) is walkable by the rule at w (0: default).
static bool walkable(lua_State *L, int w, bool strings)
{
    if (w == 0) {
        if (strings) return strcmp(lua_tostring(L, -1), ".") == 0;
        return lua_tonumber(L, -1) == 0;
    }
    if (lua_type(L, w) == LUA_TSTRING) { // strings only: the free characters
        size_t n;
        const char *free_chars = lua_tolstring(L, w, &n);
        return memchr(free_chars, lua_tostring(L, -1)[0], n) != NULL;
    }
    if (lua_type(L, w) == LUA_TTABLE) {
        lua_pushvalue(L, -1);
        lua_gettable(L, w);
    } else {
        lua_pushvalue(L, w);
        lua_pushvalue(L, -2);
        lua_call(L, 1, 1);
    }
    bool ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return ok;
}

static uint8_t *new_bytes(lua_State *L, lua_Integer cols, lua_Integer rows)
{
    return (uint8_t *)lua_newuserdatauv(L, (size_t)(cols * rows), 0);
}

/// Rows of characters, from the list at t.
static uint8_t *string_rows(lua_State *L, int t, int w, int *cols, int *rows)
{
    sl_src src = sl_field(2, "tiles");
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    if (n < 1) sl_raise(L, &src, "no rows (a list of strings, or {width =, height =, data =})");
    lua_rawgeti(L, t, 1);
    if (lua_type(L, -1) != LUA_TSTRING) sl_raise(L, &src, "row 1: string expected, got %s", luaL_typename(L, -1));
    lua_Integer c = (lua_Integer)lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (c < 1) sl_raise(L, &src, "row 1 is empty");
    if ((double)c * (double)n > ST_NAV_MAX_TILES)
        sl_raise(L, &src, "%lld x %lld tiles is more than %d", (long long)c, (long long)n, ST_NAV_MAX_TILES);
    uint8_t *b = new_bytes(L, c, n);
    int ud = lua_gettop(L);
    signed char rule[256]; // per character: -1 not asked yet, else walkable
    memset(rule, -1, sizeof rule);
    for (lua_Integer y = 0; y < n; y++) {
        lua_rawgeti(L, t, y + 1);
        size_t len;
        const char *row = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!row) sl_raise(L, &src, "row %lld: string expected, got %s", (long long)(y + 1), luaL_typename(L, -1));
        if ((lua_Integer)len != c)
            sl_raise(L, &src, "row %lld has %lld tiles, row 1 has %lld", (long long)(y + 1), (long long)len,
                     (long long)c);
        for (lua_Integer x = 0; x < c; x++) {
            unsigned char ch = (unsigned char)row[x];
            if (rule[ch] < 0) { // the rule asked once a character
                lua_pushlstring(L, row + x, 1);
                rule[ch] = walkable(L, w, true);
                lua_pop(L, 1);
            }
            b[y * c + x] = !rule[ch];
        }
        lua_pop(L, 1);
    }
    lua_settop(L, ud);
    *cols = (int)c;
    *rows = (int)n;
    return b;
}

/// {width =, height =, data = {...}} at t.
static uint8_t *data_layer(lua_State *L, int t, int w, int *cols, int *rows)
{
    sl_src src = sl_field(2, "tiles");
    lua_getfield(L, t, "width");
    lua_getfield(L, t, "height");
    lua_getfield(L, t, "data");
    int isnum;
    lua_Integer c = lua_tointegerx(L, -3, &isnum);
    if (!isnum || c < 1) sl_raise(L, &src, "width must be an integer >= 1");
    lua_Integer r = lua_tointegerx(L, -2, &isnum);
    if (!isnum || r < 1) sl_raise(L, &src, "height must be an integer >= 1");
    if ((double)c * (double)r > ST_NAV_MAX_TILES)
        sl_raise(L, &src, "%lld x %lld tiles is more than %d", (long long)c, (long long)r, ST_NAV_MAX_TILES);
    if (!lua_istable(L, -1)) sl_raise(L, &src, "data: table expected, got %s", luaL_typename(L, -1));
    if ((lua_Integer)lua_rawlen(L, -1) != c * r)
        sl_raise(L, &src, "data has %lld values, width * height is %lld", (long long)lua_rawlen(L, -1),
                 (long long)(c * r));
    int data = lua_gettop(L);
    uint8_t *b = new_bytes(L, c, r);
    int ud = lua_gettop(L);
    for (lua_Integer i = 0; i < c * r; i++) {
        if (lua_rawgeti(L, data, i + 1) != LUA_TNUMBER)
            sl_raise(L, &src, "data[%lld]: number expected, got %s", (long long)(i + 1), luaL_typename(L, -1));
        b[i] = !walkable(L, w, false);
        lua_pop(L, 1);
    }
    lua_copy(L, ud, data - 2); // keep the bytes where width was, drop the rest
    lua_settop(L, data - 2);
    *cols = (int)c;
    *rows = (int)r;
    return b;
}

uint8_t *sl_tiles(lua_State *L, int def, int *cols, int *rows)
{
    lua_getfield(L, def, "walkable");
    int slot = lua_gettop(L), w = lua_isnil(L, slot) ? 0 : slot;
    lua_getfield(L, def, "tiles");
    int t = lua_gettop(L);
    sl_src src = sl_field(2, "tiles");
    if (!lua_istable(L, t)) sl_raise_type(L, &src, t, "table");
    lua_getfield(L, t, "data");
    bool layer = !lua_isnil(L, -1);
    lua_pop(L, 1);
    sl_src ws = sl_field(2, "walkable");
    int wt = w ? lua_type(L, w) : LUA_TNIL;
    if (w && wt != LUA_TTABLE && wt != LUA_TFUNCTION && (layer || wt != LUA_TSTRING))
        sl_raise_type(L, &ws, w, layer ? "table or function" : "string, table or function");
    uint8_t *b = layer ? data_layer(L, t, w, cols, rows) : string_rows(L, t, w, cols, rows);
    lua_copy(L, -1, slot); // leave only the bytes, where walkable was
    lua_settop(L, slot);
    return b;
}
