/*
 * ffi_vec2.c — the vec2 arithmetic of LuaJIT's FFI backend (LuaJIT builds
 * only): one plain C entry point, sl_ffi_vec2_op, that bindings/ffi.lua
 * calls through the FFI for steer.vec2's constructor helpers and methods
 * on its FFI vec2 (a struct { const double x, y; }).
 *
 * Each operation is the very core call vec2.c's method makes (steer.h's
 * st_v2_*), with the same checks, so both backends give the same bits. An
 * input vec2.c would refuse or a result it would raise on (not finite)
 * returns -1: ffi.lua then calls vec2.c's own method, which raises its
 * usual error. Never calls into Lua.
 */
#include <math.h>

#include "bind.h"

/* Which operation (ffi.lua's V2OP names the same numbers). */
enum {
    V2_LEN = 1,    /* |a| (len_safe) */
    V2_LEN2,       /* |a|^2 */
    V2_DOT,        /* a . b */
    V2_CROSS,      /* a x b */
    V2_DIST,       /* |a - b| */
    V2_DIST2,      /* |a - b|^2 */
    V2_ANGLE,      /* atan2(a.y, a.x) */
    V2_NORMALIZED, /* a / |a| (normalize_safe) */
    V2_ROTATED,    /* a turned by t radians */
    V2_TRUNCATED,  /* a shortened to at most t */
    V2_LERP,       /* a + (b - a) t */
    V2_FROM_ANGLE, /* (cos a.x, sin a.x) * a.y */
    V2_COUNT
};

static bool finite2(st_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

/* vec2.c's vec2_truncated: max >= 0 and finite (sl_checknonneg). */
static int truncated(st_vec2 a, double max, double *out)
{
    if (!(max >= 0.0 && max < HUGE_VAL))
        return -1;
    double l2 = st_v2_len2(a);
    if (l2 > 1e-290 && l2 < INFINITY)
        a = st_v2_truncate(a, max);
    else if (st_v2_len_safe(a) > max)
        a = st_v2_scale(st_v2_normalize_safe(a), max);
    if (!finite2(a))
        return -1;
    out[0] = a.x;
    out[1] = a.y;
    return 2;
}

/* The vector result v of an operation that vec2.c checks (uv_push_checked);
 * unchecked: one it pushes as is (normalized). */
static int vector(st_vec2 v, bool checked, double *out)
{
    if (checked && !finite2(v))
        return -1;
    out[0] = v.x;
    out[1] = v.y;
    return 2;
}

/* A number result (vec2.c's push_finite when checked). */
static int number(double d, bool checked, double *out)
{
    if (checked && !isfinite(d))
        return -1;
    out[0] = d;
    return 1;
}

/* Operation op on a = (ax, ay), b = (bx, by) and the number t: 1 and a
 * number in out[0], 2 and a vector in out[0], out[1], or -1 for vec2.c
 * (which raises). a and b are the components of FFI vec2s (finite); t is
 * checked here as vec2.c checks it. */
int sl_ffi_vec2_op(int op, double ax, double ay, double bx, double by, double t, double *out)
{
    st_vec2 a = st_v2(ax, ay), b = st_v2(bx, by);
    switch (op) {
    case V2_LEN: return number(st_v2_len_safe(a), true, out);
    case V2_LEN2: return number(st_v2_len2(a), true, out);
    case V2_DOT: return number(st_v2_dot(a, b), true, out);
    case V2_CROSS: return number(st_v2_cross(a, b), true, out);
    case V2_DIST: return number(st_v2_dist(a, b), true, out);
    case V2_DIST2: return number(st_v2_dist2(a, b), true, out);
    case V2_ANGLE: return number(st_v2_angle(a), false, out);
    case V2_NORMALIZED: return vector(st_v2_normalize_safe(a), false, out);
    case V2_ROTATED: return isfinite(t) ? vector(st_v2_rotate(a, t), true, out) : -1;
    case V2_TRUNCATED: return truncated(a, t, out);
    case V2_LERP: return isfinite(t) ? vector(st_v2_lerp(a, b, t), true, out) : -1;
    case V2_FROM_ANGLE: /* a.x: the angle, a.y: the length (vec2_from_angle) */
        return isfinite(ax) && isfinite(ay) ? vector(st_v2_from_angle(ax, ay), true, out) : -1;
    default: return -1;
    }
}

/* Expects ffi.lua's context table on top: adds the entry point and the
 * operation codes (vec2_ops: name -> code). */
void sl_ffi_vec2_context(lua_State *L)
{
    static const char *const names[V2_COUNT] = {
        NULL, "len", "len2", "dot", "cross", "dist", "dist2", "angle", "normalized", "rotated", "truncated", "lerp",
        "from_angle",
    };
    lua_pushlightuserdata(L, (void *)(uintptr_t)sl_ffi_vec2_op);
    lua_setfield(L, -2, "vec2_op");
    lua_createtable(L, 0, V2_COUNT);
    for (int k = 1; k < V2_COUNT; k++) {
        lua_pushinteger(L, k);
        lua_setfield(L, -2, names[k]);
    }
    lua_setfield(L, -2, "vec2_ops");
}
