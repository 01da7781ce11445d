/*
 * vec2.c — steer.vec2, an immutable 2D vector as a 16-byte userdata.
 *
 * Values, not objects: every operation makes a new vec2, so a vec2 handed to
 * a brain can never change under it. Results that are not finite raise, so
 * no nan or inf ever reaches a world through a vector.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"

/* ---- helpers shared with the other files ---- */

st_vec2 *sl_tovec2(lua_State *L, int idx)
{
#ifdef STEER_LUA_JIT
    if (lua_type(L, idx) == SL_LUA_TCDATA)
        return sl_ffi_tovec2(L, idx);
#endif
    return (st_vec2 *)sl_testudata(L, idx, &sl_key_vec2);
}

void steer_lua_pushvec2(lua_State *L, st_vec2 v)
{
    st_vec2 *u = (st_vec2 *)lua_newuserdatauv(L, sizeof *u, 0);
    *u = v;
    sl_setmetatable(L, &sl_key_vec2);
}

void sl_pushvec2_checked(lua_State *L, st_vec2 v)
{
    if (!st_v2_finite(v))
        luaL_error(L, "vec2 result is not finite");
    steer_lua_pushvec2(L, v);
}

/* Reads a number field of a point table; false when it is not a number. */
static bool point_component(lua_State *L, int t, const char *name, int i, double *out)
{
    int ty = lua_getfield(L, t, name);
    if (ty == LUA_TNIL) {
        lua_pop(L, 1);
        ty = lua_geti(L, t, i);
    }
    bool ok = ty == LUA_TNUMBER;
    if (ok)
        *out = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return ok;
}

st_vec2 sl_point(lua_State *L, int idx, const sl_src *src)
{
    st_vec2 *u = sl_tovec2(L, idx);
    if (u != NULL)
        return *u;
    if (lua_type(L, idx) != LUA_TTABLE)
        sl_raise_type(L, src, idx, SL_VEC2);
    idx = lua_absindex(L, idx);
    st_vec2 v;
    if (!point_component(L, idx, "x", 1, &v.x) || !point_component(L, idx, "y", 2, &v.y))
        sl_raise(L, src, "point {x, y} or {x =, y =} with numbers expected");
    if (!st_v2_finite(v))
        sl_raise(L, src, "point coordinates must be finite");
    return v;
}

void sl_point_list(lua_State *L, int idx, lua_Integer n, const sl_src *src, st_vec2 *out)
{
    idx = lua_absindex(L, idx);
    char ctx[32];
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        snprintf(ctx, sizeof ctx, "[%lld]", (long long)i);
        sl_src ps = *src;
        ps.ctx = ctx;
        out[i - 1] = sl_point(L, -1, &ps);
        lua_pop(L, 1);
    }
}

st_vec2 steer_lua_checkpoint(lua_State *L, int arg)
{
    sl_src src = sl_arg(arg);
    return sl_point(L, arg, &src);
}

/* ---- construction ---- */

/* The callable steer.vec2 table gets itself as argument 1, so the usual
 * helpers would number x as #2: this one reports the user's numbering. */
static double ctor_number(lua_State *L, int idx)
{
    int isnum;
    double d = lua_tonumberx(L, idx, &isnum);
    if (!isnum || lua_type(L, idx) != LUA_TNUMBER)
        luaL_error(L, "bad argument #%d to 'vec2' (number expected, got %s)", idx - 1,
                   luaL_typename(L, idx));
    if (!isfinite(d))
        luaL_error(L, "bad argument #%d to 'vec2' (finite number expected, got %s)", idx - 1,
                   sl_nonfinite_name(d));
    return d;
}

static int vec2_call(lua_State *L)
{
    double x = ctor_number(L, 2);
    double y = ctor_number(L, 3);
    steer_lua_pushvec2(L, st_v2(x, y));
    return 1;
}

static int vec2_from_angle(lua_State *L)
{
    double rad = sl_checkfinite(L, 1);
    double len = sl_optfinite(L, 2, 1.0);
    sl_pushvec2_checked(L, st_v2_from_angle(rad, len));
    return 1;
}

/* ---- metamethods ---- */

static int vec2_index(lua_State *L)
{
    const st_vec2 *v = (const st_vec2 *)lua_touserdata(L, 1);
    /* upvalue 2, the metatable: __index can be called by hand with any value */
    if (v == NULL || !lua_getmetatable(L, 1) || !sl_same_table(L, -1, lua_upvalueindex(2)))
        return luaL_typeerror(L, 1, SL_VEC2);
    lua_pop(L, 1);
    size_t n;
    const char *k = lua_tolstring(L, 2, &n);
    if (k != NULL && n == 1) {
        if (k[0] == 'x') { lua_pushnumber(L, v->x); return 1; }
        if (k[0] == 'y') { lua_pushnumber(L, v->y); return 1; }
    }
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

/* The metamethods and methods below are closures whose upvalue 1 is the
 * vec2 metatable: brains do vector arithmetic every step, and comparing
 * against an upvalue skips the registry lookups of sl_tovec2 and
 * steer_lua_pushvec2. */
static st_vec2 *uv_tovec2(lua_State *L, int idx)
{
#ifdef STEER_LUA_JIT
    if (lua_type(L, idx) == SL_LUA_TCDATA)
        return sl_ffi_tovec2(L, idx);
#endif
    st_vec2 *u = (st_vec2 *)lua_touserdata(L, idx);
    if (u == NULL || !lua_getmetatable(L, idx))
        return NULL;
    bool same = sl_same_table(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    return same ? u : NULL;
}

static st_vec2 uv_checkvec2(lua_State *L, int arg)
{
    st_vec2 *u = uv_tovec2(L, arg);
    if (u == NULL)
        luaL_typeerror(L, arg, SL_VEC2);
    return *u;
}

static void uv_push(lua_State *L, st_vec2 v)
{
    st_vec2 *u = (st_vec2 *)lua_newuserdatauv(L, sizeof *u, 0);
    *u = v;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setmetatable(L, -2);
}

static void uv_push_checked(lua_State *L, st_vec2 v)
{
    if (!st_v2_finite(v))
        luaL_error(L, "vec2 result is not finite");
    uv_push(L, v);
}

static int vec2_newindex(lua_State *L)
{
    return luaL_error(L, "steer.vec2 is immutable (cannot assign field '%s')",
                      luaL_tolstring(L, 2, NULL));
}

/* A point operand of + or -: anything else is the usual arithmetic error. */
static st_vec2 operand(lua_State *L, int idx)
{
    st_vec2 *u = uv_tovec2(L, idx);
    if (u != NULL)
        return *u;
    if (lua_type(L, idx) == LUA_TTABLE) {
        sl_src src = sl_arg(idx);
        return sl_point(L, idx, &src);
    }
    luaL_error(L, "attempt to perform vec2 arithmetic on a %s value (point expected)",
               luaL_typename(L, idx));
    return st_v2(0, 0);
}

static double scalar(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        luaL_error(L, "attempt to scale a steer.vec2 by a %s value (number expected)",
                   luaL_typename(L, idx));
    return lua_tonumber(L, idx);
}

static int vec2_add(lua_State *L)
{
    uv_push_checked(L, st_v2_add(operand(L, 1), operand(L, 2)));
    return 1;
}

static int vec2_sub(lua_State *L)
{
    uv_push_checked(L, st_v2_sub(operand(L, 1), operand(L, 2)));
    return 1;
}

static int vec2_unm(lua_State *L)
{
    uv_push(L, st_v2_neg(uv_checkvec2(L, 1)));
    return 1;
}

static int vec2_mul(lua_State *L)
{
    st_vec2 *a = uv_tovec2(L, 1);
    if (a != NULL)
        uv_push_checked(L, st_v2_scale(*a, scalar(L, 2)));
    else
        uv_push_checked(L, st_v2_scale(uv_checkvec2(L, 2), scalar(L, 1)));
    return 1;
}

static int vec2_div(lua_State *L)
{
    st_vec2 *a = uv_tovec2(L, 1);
    if (a == NULL)
        return luaL_error(L, "attempt to divide a %s value by a steer.vec2", luaL_typename(L, 1));
    double s = scalar(L, 2);
    uv_push_checked(L, st_v2(a->x / s, a->y / s));
    return 1;
}

static int vec2_eq(lua_State *L)
{
    st_vec2 *a = uv_tovec2(L, 1), *b = uv_tovec2(L, 2);
    lua_pushboolean(L, a != NULL && b != NULL && a->x == b->x && a->y == b->y);
    return 1;
}

static int vec2_tostring(lua_State *L)
{
    st_vec2 v = uv_checkvec2(L, 1);
    char buf[80];
    /* + 0.0 prints -0 as 0: "vec2(0, 4)" reads better than "vec2(-0, 4)" */
    snprintf(buf, sizeof buf, "vec2(%.14g, %.14g)", v.x + 0.0, v.y + 0.0);
    lua_pushstring(L, buf);
    return 1;
}

/* ---- methods ---- */

static st_vec2 other(lua_State *L, int arg)
{
    st_vec2 *u = uv_tovec2(L, arg);
    return u != NULL ? *u : steer_lua_checkpoint(L, arg);
}

/* Scalar results of finite inputs can still overflow (1e200 * 1e200). */
static int push_finite(lua_State *L, double d)
{
    if (!isfinite(d))
        return luaL_error(L, "vec2 result is not finite");
    lua_pushnumber(L, d);
    return 1;
}

static int vec2_len(lua_State *L) { return push_finite(L, st_v2_len_safe(uv_checkvec2(L, 1))); }
static int vec2_len2(lua_State *L) { return push_finite(L, st_v2_len2(uv_checkvec2(L, 1))); }

static int vec2_normalized(lua_State *L)
{
    uv_push(L, st_v2_normalize_safe(uv_checkvec2(L, 1)));
    return 1;
}

static int vec2_dot(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    return push_finite(L, st_v2_dot(a, other(L, 2)));
}

static int vec2_cross(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    return push_finite(L, st_v2_cross(a, other(L, 2)));
}

static int vec2_dist(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    return push_finite(L, st_v2_dist(a, other(L, 2)));
}

static int vec2_dist2(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    return push_finite(L, st_v2_dist2(a, other(L, 2)));
}

static int vec2_angle(lua_State *L)
{
    lua_pushnumber(L, st_v2_angle(uv_checkvec2(L, 1)));
    return 1;
}

static int vec2_rotated(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    uv_push_checked(L, st_v2_rotate(a, sl_checkfinite(L, 2)));
    return 1;
}

static int vec2_perp(lua_State *L)
{
    uv_push(L, st_v2_perp(uv_checkvec2(L, 1)));
    return 1;
}

static int vec2_truncated(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    double max = sl_checknonneg(L, 2), l2 = st_v2_len2(a);
    if (l2 > 1e-290 && l2 < INFINITY)
        a = st_v2_truncate(a, max);
    else if (st_v2_len_safe(a) > max)
        a = st_v2_scale(st_v2_normalize_safe(a), max);
    uv_push_checked(L, a);
    return 1;
}

static int vec2_lerp(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    st_vec2 b = other(L, 2);
    uv_push_checked(L, st_v2_lerp(a, b, sl_checkfinite(L, 3)));
    return 1;
}

static int vec2_unpack(lua_State *L)
{
    st_vec2 a = uv_checkvec2(L, 1);
    lua_pushnumber(L, a.x);
    lua_pushnumber(L, a.y);
    return 2;
}

static const luaL_Reg vec2_methods[] = {
    {"len", vec2_len},
    {"len2", vec2_len2},
    {"normalized", vec2_normalized},
    {"dot", vec2_dot},
    {"cross", vec2_cross},
    {"dist", vec2_dist},
    {"dist2", vec2_dist2},
    {"angle", vec2_angle},
    {"rotated", vec2_rotated},
    {"perp", vec2_perp},
    {"truncated", vec2_truncated},
    {"lerp", vec2_lerp},
    {"unpack", vec2_unpack},
    {NULL, NULL},
};

static const luaL_Reg vec2_meta[] = {
    {"__newindex", vec2_newindex},
    {"__add", vec2_add},
    {"__sub", vec2_sub},
    {"__unm", vec2_unm},
    {"__mul", vec2_mul},
    {"__div", vec2_div},
    {"__eq", vec2_eq},
    {"__tostring", vec2_tostring},
    {NULL, NULL},
};

/* x and y never reach the name table (vec2_index answers them first); they
 * are listed so that introspection (tests/spec/meta_spec.lua) sees them */
static const sl_code vec2_fields[] = {{"x", 1}, {"y", 2}, {NULL, 0}};

/* The metamethods, the methods and __index close over the vec2 metatable. */
static const void *const vec2_ups[] = {&sl_key_vec2, NULL};

/* Expects the steer table on top; sets steer.vec2. */
void sl_open_vec2(lua_State *L)
{
    static const sl_type t = {
        .name = SL_VEC2, .key = &sl_key_vec2, .meta = vec2_meta, .methods = vec2_methods,
        .fields = vec2_fields, .ups = vec2_ups, .index_ups = 1, .index = vec2_index,
    };
    sl_newtype(L, &t);
    lua_pop(L, 1);

    /* steer.vec2: a table (for from_angle) that is callable (for vec2(x, y)) */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, vec2_from_angle);
    lua_setfield(L, -2, "from_angle");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, vec2_call);
    lua_setfield(L, -2, "__call");
    steer_lua_protect_metatable(L, -1, "steer.vec2 (the table)", false);
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "vec2");
}
