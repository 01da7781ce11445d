/*
 * ffi_api.c — the FFI backend of steer.so under LuaJIT (built only for
 * STEER_LUA=luajit): plain C entry points that bindings/ffi.lua calls
 * through LuaJIT's FFI, and sl_ffi_open, which loads ffi.lua (compiled into
 * the module) at the end of luaopen_steer.
 *
 * The entry points take the payload addresses of the binding's own world
 * and agent userdata (ffi.cast("void *", ud)) and check everything: any
 * input they do not take (a removed agent, another world's agent, a
 * negative radius, a call outside a step) returns -1, and ffi.lua then
 * calls the C binding's own function, which raises its usual error. They
 * compute with the very core calls the C methods make, in the same order,
 * so both backends give the same results bit for bit. They never call
 * into Lua: an FFI call must not.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "slots.h"
#include "steer_ffi_lua.h" /* generated from bindings/ffi.lua: sl_ffi_lua[], sl_ffi_lua_len */

/* ffi.lua reads these through its own cdef of the same layouts. */
typedef struct sl_ffi_hit {
    uint32_t index, generation; /* the agent found */
    uint32_t epoch;             /* the world's agents_epoch */
    uint32_t known;             /* 1: the agents table holds it at index + 1,
                                 * live (slots.h); 0: ffi.lua must check */
    double dist;
} sl_ffi_hit;

/* The agent at payload p when it is one, alive, in a live world. Only
 * called on userdata whose metatable ffi.lua has checked. */
static sl_agent *live_agent(void *p)
{
    sl_agent *a = (sl_agent *)p;
    if (a == NULL || a->mark != &sl_key_agent || a->removed || a->sw == NULL || a->sw->w == NULL)
        return NULL;
    return a;
}

static bool plain_nonneg(double d) { return d >= 0.0 && d < HUGE_VAL; }
static bool plain_finite(double d) { return d > -HUGE_VAL && d < HUGE_VAL; }

/* The query's nearest agent into out (ffi.lua's hit): 1, or 0 for nobody
 * (out untouched: it still names ffi.lua's last answer). */
static int nearest_hit(sl_world *sw, const st_query *q, sl_ffi_hit *out)
{
    double d = 0.0;
    st_agent_id id = st_world_nearest(sw->w, q, &d);
    if (st_id_is_null(id))
        return 0;
    out->epoch = sw->agents_epoch;
    out->index = id.index;
    out->generation = id.generation;
    out->dist = d;
    out->known = sl_slots_known(sw, id);
    return 1;
}

/* world:nearest(agent, radius [, tag]) for the world at wp: 1 and the hit,
 * 0 for nobody, -1 for the C binding to answer. tag: ST_TAG_ANY or an id
 * the world has interned. */
static int ffi_nearest(void *wp, void *ap, double radius, int32_t tag, sl_ffi_hit *out)
{
    sl_world *sw = (sl_world *)wp;
    sl_agent *a = live_agent(ap);
    if (a == NULL || a->sw != sw || !plain_nonneg(radius) || (tag != ST_TAG_ANY && (tag < 1 || tag > sw->ntags)))
        return -1;
    st_query q = st_default_query(st_agent_pos(sw->w, a->id), radius);
    q.exclude = a->id;
    q.tag = tag;
    return nearest_hit(sw, &q, out);
}

/* world:nearest(point, radius [, tag]) for the world at wp, the point c:
 * as ffi_nearest, around a point (world.c's query_around: nobody left
 * out, no view cone). -1 for the C binding (a point that is not finite). */
static int ffi_nearest_at(void *wp, const double *c, double radius, int32_t tag, sl_ffi_hit *out)
{
    sl_world *sw = (sl_world *)wp;
    st_vec2 p = st_v2(c[0], c[1]);
    if (sw->w == NULL || !st_v2_finite(p) || !plain_nonneg(radius)
        || (tag != ST_TAG_ANY && (tag < 1 || tag > sw->ntags)))
        return -1;
    st_query q = st_default_query(p, radius);
    q.tag = tag;
    return nearest_hit(sw, &q, out);
}

enum { NB_POINT = 1, NB_HEADING = 2, NB_FOV = 4 };

/* The centre and cone of ffi_neighbors' query (world.c's query_around and
 * the options of its neighbors, the same checks and the same heading):
 * false for the C binding. */
static bool neighbors_query(sl_world *sw, sl_agent *a, const double c[2], const double h[2], double fov,
                            unsigned flags, st_query *q)
{
    if (flags & NB_POINT) {
        st_vec2 p = st_v2(c[0], c[1]);
        if (!st_v2_finite(p))
            return false;
        *q = st_default_query(p, 0.0);
    } else {
        if (a == NULL || a->sw != sw)
            return false;
        *q = st_default_query(st_agent_pos(sw->w, a->id), 0.0);
        q->exclude = a->id;
        q->heading = st_agent_heading(sw->w, a->id);
    }
    if (flags & NB_HEADING) {
        st_vec2 v = st_v2(h[0], h[1]);
        if (!st_v2_finite(v) || (v.x == 0.0 && v.y == 0.0))
            return false;
        double l2 = st_v2_len2(v), m = fmax(fabs(v.x), fabs(v.y));
        q->heading = l2 > 1e-290 && l2 < INFINITY ? st_v2_normalize(v) : st_v2_normalize(st_v2(v.x / m, v.y / m));
    }
    if (flags & NB_FOV) {
        if (!plain_nonneg(fov) || ((flags & NB_POINT) && !(flags & NB_HEADING)))
            return false;
        q->fov = fov;
    }
    return true;
}

/* world:neighbors(centre, radius [, { tag =, fov =, heading = }]) for the
 * world at wp (world.c's neighbors, the same query): the centre is the
 * agent at ap, or with NB_POINT the point c; h the opts.heading (with
 * NB_HEADING), fov the opts.fov (with NB_FOV). How many agents the query
 * found, their handles in out[0 .. min(n, cap)) (call again with room for
 * n when n > cap), each known to be the live agent the world's agents
 * table holds (slots.h); -1 for the C binding (which also answers when one
 * is not known). tag: ST_TAG_ANY or an id the world has interned. */
static int ffi_neighbors(void *wp, void *ap, const double *c, double radius, int32_t tag, const double *h,
                         double fov, unsigned flags, st_agent_id *out, int cap)
{
    sl_world *sw = (sl_world *)wp;
    st_query q;
    if (sw->w == NULL || !neighbors_query(sw, (flags & NB_POINT) ? NULL : live_agent(ap), c, h, fov, flags, &q)
        || !plain_nonneg(radius) || (tag != ST_TAG_ANY && (tag < 1 || tag > sw->ntags)))
        return -1;
    q.radius = radius;
    q.tag = tag;
    int n = st_world_query(sw->w, &q, out, NULL, cap);
    for (int i = 0; i < n && i < cap; i++)
        if (!sl_slots_known(sw, out[i]))
            return -1;
    return n;
}

/* Whether the userdata payload p is the live agent with this id. */
static int ffi_agent_is(void *p, uint32_t index, uint32_t generation)
{
    sl_agent *a = live_agent(p);
    return a != NULL && a->id.index == index && a->id.generation == generation;
}

/* A world's key for ffi.lua's table of worlds: its payload address as a
 * number (exact: addresses fit in 53 bits), a plain Lua number through the
 * FFI where a pointer would be a cdata to allocate. */
static double ffi_world_key(void *wp) { return (double)(uintptr_t)wp; }

/* The key of the live agent at p's world, else 0. */
static double ffi_agent_world(void *p)
{
    sl_agent *a = live_agent(p);
    return a != NULL ? ffi_world_key(a->sw) : 0.0;
}

/* The world's agents_epoch (ffi.lua refreshes its cached tables on a change). */
static uint32_t ffi_world_epoch(void *wp) { return ((sl_world *)wp)->agents_epoch; }

enum { FFI_TARGET = 1, FFI_RADIUS = 2, FFI_WEIGHT = 4 };

/* A behaviour method of a brain, inside the step (agent.c's hot path:
 * behavior_method with a live agent of the same world as the target): the
 * world's default behaviour of `type`, weight 1 unless given. Writes the
 * unweighted force to out[0], out[1]; 0, or -1 for the C binding. */
static int steer_at(sl_agent *a, int type, st_agent_id target, double radius, double weight, unsigned flags,
                    double *out);

static int ffi_steer(void *ap, int type, void *tp, double radius, double weight, unsigned flags, double *out)
{
    sl_agent *a = live_agent(ap);
    st_agent_id target = st_null_agent();
    if (a == NULL)
        return -1;
    if (flags & FFI_TARGET) {
        sl_agent *o = live_agent(tp);
        if (o == NULL || o->sw != a->sw)
            return -1;
        target = o->id;
    }
    return steer_at(a, type, target, radius, weight, flags, out);
}

/* ffi_steer toward the agent of world wp's last nearest answer h, which
 * ffi.lua knows is the target it was given (the very userdata that answer
 * returned): the slot tells whether it is still live, without reading it
 * (slots.h). -1 for ffi_steer's way. */
static int ffi_steer_hit(void *ap, int type, void *wp, const sl_ffi_hit *h, double radius, double weight,
                         unsigned flags, double *out)
{
    sl_agent *a = live_agent(ap);
    st_agent_id target = {h->index, h->generation};
    if (a == NULL || (void *)a->sw != wp || h->epoch != a->sw->agents_epoch || !(flags & FFI_TARGET)
        || !sl_slots_known(a->sw, target))
        return -1;
    return steer_at(a, type, target, radius, weight, flags, out);
}

/* The behaviour of ffi_steer for the live agent a (target: already
 * checked, of a's world). */
static int steer_at(sl_agent *a, int type, st_agent_id target, double radius, double weight, unsigned flags,
                    double *out)
{
    if (!a->sw->stepping || type < 0 || type >= ST_BEHAVIOR_COUNT)
        return -1;
    st_behavior b = a->sw->defaults[type];
    b.weight = 1.0;
    if (flags & FFI_TARGET)
        b.target = st_target_agent(target);
    if (flags & FFI_RADIUS) {
        if (!plain_nonneg(radius))
            return -1;
        b.radius = radius;
    }
    if (flags & FFI_WEIGHT) {
        if (!plain_finite(weight))
            return -1;
        b.weight = weight;
    }
    st_vec2 f = st_agent_steer(a->sw->w, a->id, &b);
    out[0] = f.x;
    out[1] = f.y;
    return 0;
}

/* agent:render_pos([alpha]) (agent.c's agent_render_pos) for the live agent
 * at ap; has_alpha 0: alpha 1. -1 for the C binding (alpha outside [0, 1]). */
static int ffi_render_pos(void *ap, double alpha, int has_alpha, double *out)
{
    sl_agent *a = live_agent(ap);
    if (a == NULL || (has_alpha && !(alpha >= 0.0 && alpha <= 1.0)))
        return -1;
    st_vec2 v = st_agent_render_pos(a->sw->w, a->id, has_alpha ? alpha : 1.0);
    out[0] = v.x;
    out[1] = v.y;
    return 0;
}

/* Agent fields ffi_field reads (ffi.lua's FIELD names them). */
enum {
    FF_POS = 1, FF_VEL, FF_HEADING, FF_SIDE, FF_FORCE, /* vec2s */
    FF_SPEED, FF_MAX_SPEED, FF_MAX_FORCE, FF_MASS, FF_RADIUS, /* numbers */
    FF_ID, FF_ALIVE,
    FF_TAG, /* read: 4 and the tag id; written: the id (ffi.lua interned it) */
    FF_COUNT
};

/* A field of the agent at ap (agent.c's agent_index, the same core call):
 * 2 and a vec2 in out[0], out[1]; 1 and a number in out[0]; 3 and a
 * boolean (0 or 1) in out[0]; 4 and a tag id (ST_TAG_NONE: no tag) in
 * out[0]; -1 for the C binding (a removed agent, which raises there, but
 * for id and alive). */
static int ffi_field(void *ap, int code, double *out)
{
    sl_agent *a = (sl_agent *)ap;
    if (a == NULL || a->mark != &sl_key_agent)
        return -1;
    if (code == FF_ALIVE) {
        out[0] = !a->removed;
        return 3;
    }
    if (code == FF_ID) {
        out[0] = (double)a->serial; /* lua_pushinteger's number on LuaJIT: exact to 2^53 */
        return a->serial <= (UINT64_C(1) << 53) ? 1 : -1;
    }
    if (live_agent(ap) == NULL)
        return -1;
    st_world *w = a->sw->w;
    st_vec2 v;
    switch (code) {
    case FF_POS: v = st_agent_pos(w, a->id); break;
    case FF_VEL: v = st_agent_vel(w, a->id); break;
    case FF_HEADING: v = st_agent_heading(w, a->id); break;
    case FF_SIDE: v = st_agent_side(w, a->id); break;
    case FF_FORCE: v = st_agent_force(w, a->id); break;
    case FF_SPEED: out[0] = st_agent_speed(w, a->id); return 1;
    case FF_MAX_SPEED: out[0] = st_agent_max_speed(w, a->id); return 1;
    case FF_MAX_FORCE: out[0] = st_agent_max_force(w, a->id); return 1;
    case FF_MASS: out[0] = st_agent_mass(w, a->id); return 1;
    case FF_RADIUS: out[0] = st_agent_radius(w, a->id); return 1;
    case FF_TAG: out[0] = st_agent_tag(w, a->id); return 4;
    default: return -1;
    }
    out[0] = v.x;
    out[1] = v.y;
    return 2;
}

/* a.<field> = value for the agent at ap (agent.c's agent_newindex, the
 * same core call and checks): pos and vel (x, y), max_speed, max_force,
 * radius (x >= 0), mass (x > 0), each finite; tag (x: ST_TAG_NONE or an id
 * the world has interned). 0, or -1 for the C binding (which raises, or
 * interns a new tag). */
static int ffi_set_field(void *ap, int code, double x, double y)
{
    sl_agent *a = live_agent(ap);
    if (a == NULL || !plain_finite(x))
        return -1;
    st_world *w = a->sw->w;
    st_agent_id id = a->id;
    switch (code) {
    case FF_POS:
    case FF_VEL:
        if (!plain_finite(y))
            return -1;
        if (code == FF_POS)
            st_agent_set_pos(w, id, st_v2(x, y));
        else
            st_agent_set_vel(w, id, st_v2(x, y));
        return 0;
    case FF_MAX_SPEED: if (!(x >= 0.0)) return -1; st_agent_set_max_speed(w, id, x); return 0;
    case FF_MAX_FORCE: if (!(x >= 0.0)) return -1; st_agent_set_max_force(w, id, x); return 0;
    case FF_RADIUS: if (!(x >= 0.0)) return -1; st_agent_set_radius(w, id, x); return 0;
    case FF_MASS: if (!(x > 0.0)) return -1; st_agent_set_mass(w, id, x); return 0;
    case FF_TAG:
        if (x != ST_TAG_NONE && !(x >= 1.0 && x <= a->sw->ntags && x == (int32_t)x))
            return -1;
        st_agent_set_tag(w, id, (int32_t)x);
        return 0;
    default: return -1;
    }
}

/* ---- loading ffi.lua ---- */

/* uservalues(ud) -> the table of a userdata's uservalues (slow paths of
 * ffi.lua: refreshing its caches), or nil */
static int ffi_uservalues(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TUSERDATA || lua_getuservalue(L, 1) != LUA_TTABLE)
        lua_pushnil(L);
    return 1;
}

/* self(agent) -> the brain's state table, made on first need (the C
 * loop's sl_pushself) */
static int ffi_self(lua_State *L)
{
    lua_settop(L, 1);
    sl_pushself(L, 1);
    return 1;
}

/* set_hooks(world_hook, isvec2, brains): kept in the registry for sl_ffi_world and
 * sl_ffi_tovec2 */
static int ffi_set_hooks(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "steer.ffi.world");
    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, "steer.ffi.isvec2");
    luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_pushvalue(L, 3);
    lua_setfield(L, LUA_REGISTRYINDEX, "steer.ffi.brains");
    return 0;
}

/* world_index(w) -> the world's own index table (its methods: see
 * set_world_metatable in world.c), which getmetatable cannot reach */
static int ffi_world_index(lua_State *L)
{
    if (sl_toworld(L, 1) == NULL || !lua_getmetatable(L, 1))
        return luaL_typeerror(L, 1, SL_WORLD);
    lua_getfield(L, -1, "__index");
    return 1;
}

static void set_pointer(lua_State *L, const char *name, void *p)
{
    lua_pushlightuserdata(L, p);
    lua_setfield(L, -2, name);
}

static void set_int(lua_State *L, const char *name, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, name);
}

/* fields: agent field name -> ffi_field's code */
static void push_field_codes(lua_State *L)
{
    static const char *const names[FF_COUNT] = {
        NULL, "pos", "vel", "heading", "side", "force", "speed", "max_speed", "max_force", "mass", "radius", "id",
        "alive", "tag",
    };
    lua_createtable(L, 0, FF_COUNT);
    for (int k = 1; k < FF_COUNT; k++)
        set_int(L, names[k], k);
}

/* The table ffi.lua gets: the entry points, the metatables and keys. */
static void push_ffi_context(lua_State *L)
{
    lua_createtable(L, 0, 24);
    set_pointer(L, "nearest", (void *)(uintptr_t)ffi_nearest);
    set_pointer(L, "nearest_at", (void *)(uintptr_t)ffi_nearest_at);
    set_pointer(L, "neighbors", (void *)(uintptr_t)ffi_neighbors);
    set_pointer(L, "agent_is", (void *)(uintptr_t)ffi_agent_is);
    set_pointer(L, "agent_world", (void *)(uintptr_t)ffi_agent_world);
    set_pointer(L, "world_key", (void *)(uintptr_t)ffi_world_key);
    set_pointer(L, "world_epoch", (void *)(uintptr_t)ffi_world_epoch);
    set_pointer(L, "steer", (void *)(uintptr_t)ffi_steer);
    set_pointer(L, "steer_hit", (void *)(uintptr_t)ffi_steer_hit);
    set_pointer(L, "render_pos", (void *)(uintptr_t)ffi_render_pos);
    set_pointer(L, "field", (void *)(uintptr_t)ffi_field);
    set_pointer(L, "set_field", (void *)(uintptr_t)ffi_set_field);
    sl_ffi_vec2_context(L);
    push_field_codes(L);
    lua_setfield(L, -2, "fields");
    set_pointer(L, "brain_next", (void *)(uintptr_t)sl_ffi_brain_next);
    set_pointer(L, "brain_due", (void *)(uintptr_t)sl_ffi_brain_due);
    set_pointer(L, "brain_begin", (void *)(uintptr_t)sl_ffi_brain_begin);
    set_pointer(L, "brain_end", (void *)(uintptr_t)sl_ffi_brain_end);
    lua_pushcfunction(L, sl_ffi_brain_update);
    lua_setfield(L, -2, "brain_update");
    lua_pushcfunction(L, ffi_self);
    lua_setfield(L, -2, "self");
    set_int(L, "AUV_SELF", SL_AUV_SELF);
    set_int(L, "AUV_BRAIN", SL_AUV_BRAIN);
    set_int(L, "SEEK", ST_SEEK);
    set_int(L, "FLEE", ST_FLEE);
    set_int(L, "PURSUE", ST_PURSUE);
    set_int(L, "EVADE", ST_EVADE);
    set_int(L, "INTERCEPT", ST_INTERCEPT);
    set_int(L, "WANDER", ST_WANDER);
    set_int(L, "STOP", ST_STOP);
    set_int(L, "TAG_ANY", ST_TAG_ANY);
    set_int(L, "WUV_AGENTS", SL_WUV_AGENTS);
    set_int(L, "WUV_TAGS", SL_WUV_TAGS);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_agent);
    lua_setfield(L, -2, "agent_mt");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_vec2);
    lua_setfield(L, -2, "vec2_mt");
    lua_pushcfunction(L, ffi_uservalues);
    lua_setfield(L, -2, "uservalues");
    lua_pushcfunction(L, ffi_world_index);
    lua_setfield(L, -2, "world_index");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sl_key_world);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, "nearest");
    lua_setfield(L, -4, "world_nearest");
    lua_getfield(L, -1, "neighbors");
    lua_setfield(L, -4, "world_neighbors");
    lua_pop(L, 2);
    lua_pushcfunction(L, ffi_set_hooks);
    lua_setfield(L, -2, "set_hooks");
}

/* Whether the FFI backend is wanted: LuaJIT with its ffi module, and the
 * environment's STEER_FFI not "0". */
static bool ffi_wanted(void)
{
    const char *env = getenv("STEER_FFI");
    return env == NULL || strcmp(env, "0") != 0;
}

/* Expects the steer table on top. Sets steer.backend: "ffi" when ffi.lua
 * took over the hot paths, else "c". */
void sl_ffi_open(lua_State *L)
{
    int top = lua_gettop(L);
    const char *backend = "c";
    if (ffi_wanted() && luaL_loadbuffer(L, (const char *)sl_ffi_lua, sl_ffi_lua_len, "=steer/ffi.lua") == LUA_OK) {
        lua_pushvalue(L, top);
        push_ffi_context(L);
        /* ffi.lua returns true when it installed itself (false: no ffi
         * module); its errors are bugs, raised from require */
        lua_call(L, 2, 1);
        if (lua_toboolean(L, -1))
            backend = "ffi";
    }
    lua_settop(L, top);
    lua_pushstring(L, backend);
    lua_setfield(L, top, "backend");
}

/* Called by sl_world_new with the new world on top: ffi.lua's hook (in the
 * registry once ffi.lua installed itself) gives it the FFI methods. */
void sl_ffi_world(lua_State *L)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "steer.ffi.world");
    if (lua_type(L, -1) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return;
    }
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
}

/* The FFI vec2 (a cdata of ffi.lua's steer_vec2 type) at idx, else NULL:
 * wherever the bindings take a steer.vec2 they take this one too. */
st_vec2 *sl_ffi_tovec2(lua_State *L, int idx)
{
    if (lua_type(L, idx) != SL_LUA_TCDATA)
        return NULL;
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, "steer.ffi.isvec2");
    if (lua_type(L, -1) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    bool is = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* finite, as every vec2 is: one made with ffi.new by hand is not taken */
    st_vec2 *v = is ? (st_vec2 *)(uintptr_t)lua_topointer(L, idx) : NULL;
    return v != NULL && st_v2_finite(*v) ? v : NULL;
}

const char *sl_ffi_typename(lua_State *L, int idx)
{
    return lua_type(L, idx) == SL_LUA_TCDATA && sl_ffi_tovec2(L, idx) != NULL ? SL_VEC2 : NULL;
}
