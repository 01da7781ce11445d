/*
 * formation.c — steer.formation: slots in a pattern around a leader (or a
 * fixed anchor), members assigned to them by least total distance, and
 * f:update() to steer the members there once a step.
 *
 * A formation belongs to the world of its first agent (the leader, or the
 * first member added); it keeps that world's userdata in a uservalue, and a
 * function pattern in another. A function pattern is asked for n offsets
 * whenever the number of members changes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"

#define SL_FORMATION "steer.formation"

static const char sl_key_formation = 0;

enum { FUV_WORLD = 1, FUV_PATTERN, FUV_NAV, FUV_COUNT = FUV_NAV };

typedef struct sl_formation {
    st_formation *f;
    sl_world *sw;   /* NULL until the first agent names the world */
    int custom_n;   /* members the function pattern's offsets were made for; -1: none yet */
} sl_formation;

static const char *const pattern_names[] = {"wedge", "line", "column", "circle", NULL};

bool sl_isformation(lua_State *L, int idx) { return sl_testudata(L, idx, &sl_key_formation) != NULL; }

static sl_formation *checkformation(lua_State *L, int arg)
{
    sl_formation *sf = (sl_formation *)sl_checkudata(L, arg, &sl_key_formation, SL_FORMATION);
    if (sf->sw != NULL && sf->sw->w == NULL)
        luaL_error(L, "attempt to use a destroyed world");
    return sf;
}

/* The agent at arg, of this formation's world (binding the world on first use). */
static sl_agent *check_member(lua_State *L, int fidx, sl_formation *sf, int arg)
{
    sl_agent *a = sl_checkagent(L, arg);
    if (sf->sw == NULL) {
        sf->sw = a->sw;
        lua_getiuservalue(L, arg, SL_AUV_WORLD);
        lua_setiuservalue(L, fidx, FUV_WORLD);
    } else if (a->sw != sf->sw) {
        luaL_argerror(L, arg, "agent belongs to another world");
    }
    return a;
}

/* A function pattern's offsets for the current member count. */
static void refresh(lua_State *L, int fidx, sl_formation *sf)
{
    if (sf->sw == NULL)
        return;
    int n = st_formation_prune(sf->sw->w, sf->f);
    if (lua_getiuservalue(L, fidx, FUV_PATTERN) != LUA_TFUNCTION || n == sf->custom_n) {
        lua_pop(L, 1);
        return;
    }
    int fn = lua_gettop(L);
    st_vec2 *off = (st_vec2 *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *off, 0);
    for (int i = 0; i < n; i++) {
        lua_pushvalue(L, fn);
        lua_pushinteger(L, i + 1);
        lua_pushinteger(L, n);
        lua_call(L, 2, 2);
        if (lua_type(L, -2) == LUA_TNUMBER) {
            if (lua_type(L, -1) != LUA_TNUMBER)
                luaL_error(L, "formation pattern(%d, %d) returned x without y", i + 1, n);
            off[i] = st_v2(lua_tonumber(L, -2), lua_tonumber(L, -1));
        } else {
            char ctx[48];
            snprintf(ctx, sizeof ctx, "pattern(%d, %d)", i + 1, n);
            sl_src src = {0, NULL, NULL, ctx};
            lua_pop(L, 1);
            lua_pushnil(L); /* keep two slots */
            lua_insert(L, -2);
            if (lua_type(L, -1) != LUA_TTABLE && sl_tovec2(L, -1) == NULL)
                luaL_error(L, "formation %s must return x, y or a vec2 (got %s)", ctx, luaL_typename(L, -1));
            off[i] = sl_point(L, -1, &src);
        }
        lua_pop(L, 2);
        if (!isfinite(off[i].x) || !isfinite(off[i].y))
            luaL_error(L, "formation pattern(%d, %d) returned a non-finite offset", i + 1, n);
    }
    if (!st_formation_set_offsets(sf->sw->w, sf->f, off, n))
        luaL_error(L, "not enough memory");
    sf->custom_n = n;
    lua_pop(L, 2);
}

/* Pushes a new formation userdata made from def, with no world yet. */
static sl_formation *new_formation(lua_State *L, const st_formation_def *def)
{
    sl_formation *sf = (sl_formation *)lua_newuserdatauv(L, sizeof *sf, FUV_COUNT);
    sf->f = NULL;
    sf->sw = NULL;
    sf->custom_n = -1;
    sl_setmetatable(L, &sl_key_formation);
    st_formation_def d = *def;
    const st_mem *mem = sl_mem(L);
    if (mem != NULL)
        d.mem = *mem;
    sf->f = st_formation_create(&d);
    if (sf->f == NULL) {
        sl_collect(L);
        sf->f = st_formation_create(&d);
    }
    if (sf->f == NULL)
        luaL_error(L, "not enough memory");
    return sf;
}

/* Raises for a key of the def table (at 1) that steer.formation does not
 * know: a misspelt field would otherwise be a silent default. */
static void check_def_keys(lua_State *L)
{
    static const char *const keys[] = {"pattern", "spacing", "leader", "anchor", "heading",
                                       "reassign_angle", "slowing_radius", "weight", "nav", NULL};
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int i = 0; keys[i] != NULL && !ok; i++)
                ok = strcmp(lua_tostring(L, -1), keys[i]) == 0;
        if (!ok) {
            sl_src src = sl_arg(1);
            sl_raise(L, &src, "unknown formation field '%s'", luaL_tolstring(L, -1, NULL));
        }
    }
}

/* Pushes field name of the def table (at 1) and sets *src to name it;
 * returns its stack index, or 0 when it is nil. */
static int def_field(lua_State *L, const char *name, sl_src *src)
{
    lua_getfield(L, 1, name);
    *src = sl_field(1, name);
    return lua_isnil(L, -1) ? 0 : lua_gettop(L);
}

/* def.pattern from the pattern field, which stays pushed at 2 for
 * FUV_PATTERN: a name, or a function (ST_FORMATION_CUSTOM), "wedge" when
 * absent. */
static void parse_pattern(lua_State *L, st_formation_def *def)
{
    sl_src src;
    def_field(L, "pattern", &src);
    int ty = lua_type(L, 2);
    if (ty == LUA_TSTRING) {
        const char *s = lua_tostring(L, 2);
        int k = 0;
        while (pattern_names[k] != NULL && strcmp(pattern_names[k], s) != 0)
            k++;
        if (pattern_names[k] == NULL)
            sl_raise(L, &src, "invalid option '%s' (\"wedge\", \"line\", \"column\", \"circle\" or a function)", s);
        def->pattern = (st_formation_pattern)k;
    } else if (ty == LUA_TFUNCTION) {
        def->pattern = ST_FORMATION_CUSTOM;
    } else if (ty != LUA_TNIL) {
        sl_raise_type(L, &src, 2, "pattern name or function");
    } else {
        lua_pop(L, 1);
        lua_pushstring(L, "wedge");
    }
}

/* spacing, reassign_angle, slowing_radius and weight (each stays pushed). */
static void parse_sizes(lua_State *L, st_formation_def *def)
{
    sl_src src;
    int i;
    if ((i = def_field(L, "spacing", &src)) != 0)
        def->spacing = sl_number_min(L, i, &src, 0.0, true);
    if ((i = def_field(L, "reassign_angle", &src)) != 0) {
        def->reassign_angle = sl_number_min(L, i, &src, 0.0, false);
        if (def->reassign_angle > ST_PI)
            sl_raise(L, &src, "must be <= pi");
    }
    if ((i = def_field(L, "slowing_radius", &src)) != 0)
        def->slowing_radius = sl_number_min(L, i, &src, 0.0, true);
    if ((i = def_field(L, "weight", &src)) != 0)
        def->weight = sl_number(L, i, &src);
}

/* anchor and heading: a fixed anchor for a formation with no leader (each
 * stays pushed). */
static void parse_anchor(lua_State *L, st_formation_def *def)
{
    sl_src src;
    int i;
    if ((i = def_field(L, "anchor", &src)) != 0)
        def->anchor_pos = sl_point(L, i, &src);
    if ((i = def_field(L, "heading", &src)) != 0) {
        def->anchor_heading = sl_point(L, i, &src);
        if (def->anchor_heading.x == 0.0 && def->anchor_heading.y == 0.0)
            sl_raise(L, &src, "must be a non-zero vector");
    }
}

/* The leader field: a live agent, or nil (NULL). Stays pushed. */
static sl_agent *parse_leader(lua_State *L, st_formation_def *def)
{
    sl_src src;
    int i = def_field(L, "leader", &src);
    if (i == 0)
        return NULL;
    sl_agent *leader = sl_toagent(L, i);
    if (leader == NULL)
        sl_raise_type(L, &src, i, SL_AGENT);
    if (leader->removed)
        sl_raise(L, &src, "attempt to use a removed agent");
    def->leader = leader->id;
    return leader;
}

/* The nav field: a navgrid whose line of sight keeps the slots on free
 * space, or nil. Stays pushed; its index, or 0. */
static int parse_nav(lua_State *L, st_formation_def *def, sl_agent *leader)
{
    sl_src src;
    int i = def_field(L, "nav", &src);
    if (i == 0)
        return 0;
    def->nav = sl_tonavgrid(L, i);
    if (def->nav == NULL)
        sl_raise_type(L, &src, i, "steer.navgrid");
    if (leader != NULL && sl_navgrid_world(L, i) != leader->sw)
        sl_raise(L, &src, "belongs to another world than the leader");
    return i;
}

/* steer.formation{ pattern, spacing, leader | anchor, heading, reassign_angle, slowing_radius, weight, nav } */
static int formation_new(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    check_def_keys(L);
    st_formation_def def = st_default_formation_def();
    parse_pattern(L, &def); /* 2 */
    parse_sizes(L, &def);
    parse_anchor(L, &def);
    sl_agent *leader = parse_leader(L, &def);
    int leader_idx = lua_gettop(L);
    int nav_idx = parse_nav(L, &def, leader);
    sl_formation *sf = new_formation(L, &def);
    int fi = lua_gettop(L);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, fi, FUV_PATTERN);
    if (leader != NULL) {
        sf->sw = leader->sw;
        lua_getiuservalue(L, leader_idx, SL_AUV_WORLD);
        lua_setiuservalue(L, fi, FUV_WORLD);
    }
    if (nav_idx != 0) { /* the grid pins its world: the formation's, from now on */
        sf->sw = sl_navgrid_world(L, nav_idx);
        lua_getiuservalue(L, nav_idx, 1);
        lua_setiuservalue(L, fi, FUV_WORLD);
        lua_pushvalue(L, nav_idx);
        lua_setiuservalue(L, fi, FUV_NAV);
    }
    return 1;
}

static int formation_gc(lua_State *L)
{
    sl_formation *sf = (sl_formation *)sl_checkudata(L, 1, &sl_key_formation, SL_FORMATION);
    st_formation_destroy(sf->f);
    sf->f = NULL;
    return 0;
}

/* f:add(agent) -> true, or false when it is the leader or a member already */
static int formation_add(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    sl_agent *a = check_member(L, 1, sf, 2);
    bool ok = st_formation_add(sf->sw->w, sf->f, a->id);
    refresh(L, 1, sf);
    lua_pushboolean(L, ok);
    return 1;
}

/* f:remove(agent) -> whether it was a member */
static int formation_remove(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    sl_agent *a = (sl_agent *)sl_checkudata(L, 2, &sl_key_agent, SL_AGENT);
    bool ok = sf->sw != NULL && !a->removed && a->sw == sf->sw && st_formation_remove(sf->sw->w, sf->f, a->id);
    refresh(L, 1, sf);
    lua_pushboolean(L, ok);
    return 1;
}

/* The formation argument 1 with its offsets refreshed, or NULL when it has
 * no world yet (no agents: nothing to steer or assign). */
static sl_formation *with_world(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    if (sf->sw == NULL)
        return NULL;
    refresh(L, 1, sf);
    return sf;
}

/* f:update(): once a step, steers every member to its slot */
static int formation_update(lua_State *L)
{
    sl_formation *sf = with_world(L);
    if (sf != NULL)
        st_formation_update(sf->sw->w, sf->f);
    return 0;
}

/* f:reassign(): assign slots by least total distance now */
static int formation_reassign(lua_State *L)
{
    sl_formation *sf = with_world(L);
    if (sf != NULL)
        st_formation_reassign(sf->sw->w, sf->f);
    return 0;
}

/* Refreshes the formation at 1 and pushes a table for a list as long as
 * its members; returns that length, or -1 when it has no world yet (the
 * list stays empty). */
static int push_list(lua_State *L, sl_formation *sf)
{
    refresh(L, 1, sf);
    int n = st_formation_count(sf->f);
    lua_createtable(L, n, 0);
    return sf->sw == NULL ? -1 : n;
}

/* f:members() -> the member agents, in the order they joined */
static int formation_members(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    int n = push_list(L, sf);
    if (n < 0)
        return 1;
    lua_getiuservalue(L, 1, FUV_WORLD);
    int wi = lua_gettop(L), k = 0;
    for (int i = 0; i < n; i++) {
        sl_pushagent(L, wi, st_formation_member(sf->f, i));
        if (lua_isnil(L, -1))
            lua_pop(L, 1);
        else
            lua_rawseti(L, wi - 1, ++k);
    }
    lua_pop(L, 1);
    return 1;
}

static int member_of(const st_formation *f, st_agent_id id)
{
    for (int k = 0; k < st_formation_count(f); k++)
        if (st_id_equal(st_formation_member(f, k), id))
            return k;
    return -1;
}

/* The slot (0-based) of the agent argument 2 in the formation at 1, or -1
 * when it is not a member (removed, or of another world). */
static int arg_slot(lua_State *L, sl_formation *sf)
{
    sl_agent *a = (sl_agent *)sl_checkudata(L, 2, &sl_key_agent, SL_AGENT);
    refresh(L, 1, sf);
    int k = a->removed || sf->sw == NULL || a->sw != sf->sw ? -1 : member_of(sf->f, a->id);
    return k < 0 ? -1 : st_formation_slot_of(sf->f, k);
}

/* f:slot_of(agent) -> its slot number (1-based), or nil when not a member */
static int formation_slot_of(lua_State *L)
{
    int s = arg_slot(L, checkformation(L, 1));
    if (s < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, s + 1);
    return 1;
}

/* f:slots() -> every slot's position in the world, by slot number */
static int formation_slots(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    int n = push_list(L, sf);
    if (n < 0)
        return 1;
    for (int s = 0; s < n; s++) {
        steer_lua_pushvec2(L, st_formation_slot_pos(sf->sw->w, sf->f, s));
        lua_rawseti(L, -2, s + 1);
    }
    return 1;
}

/* f:slot(agent) -> the position of its slot, or nil when not a member */
static int formation_slot(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    int s = arg_slot(L, sf);
    if (s < 0)
        lua_pushnil(L);
    else
        steer_lua_pushvec2(L, st_formation_slot_pos(sf->sw->w, sf->f, s));
    return 1;
}

/* f:set_anchor(pos [, heading]): a fixed anchor instead of a leader */
static int formation_set_anchor(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    st_vec2 pos = steer_lua_checkpoint(L, 2);
    st_vec2 h = st_v2(0.0, 0.0);
    if (!lua_isnoneornil(L, 3)) {
        h = steer_lua_checkpoint(L, 3);
        luaL_argcheck(L, h.x != 0.0 || h.y != 0.0, 3, "must be a non-zero vector");
    }
    if (sf->sw == NULL) {
        /* no world yet: a formation without agents keeps the def's anchor */
        st_formation_set_anchor(NULL, sf->f, pos, h);
        return 0;
    }
    st_formation_set_anchor(sf->sw->w, sf->f, pos, h);
    return 0;
}

enum { FF_COUNT = 1, FF_LEADER, FF_PATTERN, FF_ANCHOR, FF_HEADING };

/* upvalue 1: name -> method or field code */
static int formation_index(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNUMBER)
        return 1; /* a method, or nil */
    int code = (int)lua_tointeger(L, -1);
    switch (code) {
    case FF_COUNT: lua_pushinteger(L, st_formation_count(sf->f)); break;
    case FF_LEADER: {
        st_agent_id id = st_formation_leader(sf->f);
        if (sf->sw == NULL || st_id_is_null(id)) {
            lua_pushnil(L);
            break;
        }
        lua_getiuservalue(L, 1, FUV_WORLD);
        sl_pushagent(L, lua_gettop(L), id);
        break;
    }
    case FF_PATTERN: lua_getiuservalue(L, 1, FUV_PATTERN); break; /* the name, or the function */
    case FF_ANCHOR:
    case FF_HEADING: {
        st_vec2 pos, h;
        if (sf->sw == NULL) {
            lua_pushnil(L);
            break;
        }
        st_formation_anchor(sf->sw->w, sf->f, &pos, &h);
        steer_lua_pushvec2(L, code == FF_ANCHOR ? pos : h);
        break;
    }
    default: lua_pushnil(L); break;
    }
    return 1;
}

static int formation_newindex(lua_State *L)
{
    sl_formation *sf = checkformation(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "leader") != 0)
        return luaL_error(L, "field '%s' of steer.formation is read-only", k);
    if (lua_isnil(L, 3)) {
        if (sf->sw != NULL)
            st_formation_set_leader(sf->sw->w, sf->f, st_null_agent());
        return 0;
    }
    sl_agent *a = sl_toagent(L, 3);
    if (a == NULL)
        return luaL_error(L, "invalid value for field 'leader' (steer.agent expected, got %s)", luaL_typename(L, 3));
    check_member(L, 1, sf, 3);
    if (!st_formation_set_leader(sf->sw->w, sf->f, a->id))
        return luaL_error(L, "invalid value for field 'leader' (a member cannot lead)");
    return 0;
}

static int formation_len(lua_State *L)
{
    lua_pushinteger(L, st_formation_count(checkformation(L, 1)->f));
    return 1;
}

static int formation_tostring(lua_State *L)
{
    sl_formation *sf = (sl_formation *)sl_checkudata(L, 1, &sl_key_formation, SL_FORMATION);
    lua_pushfstring(L, "formation(%d members)", sf->f ? st_formation_count(sf->f) : 0);
    return 1;
}

static const luaL_Reg formation_methods[] = {
    {"add", formation_add},
    {"remove", formation_remove},
    {"update", formation_update},
    {"reassign", formation_reassign},
    {"members", formation_members},
    {"slot_of", formation_slot_of},
    {"slot", formation_slot},
    {"slots", formation_slots},
    {"set_anchor", formation_set_anchor},
    {NULL, NULL},
};

static const luaL_Reg formation_meta[] = {
    {"__gc", formation_gc},
    {"__len", formation_len},
    {"__newindex", formation_newindex},
    {"__tostring", formation_tostring},
    {NULL, NULL},
};

/* A copy of the formation at idx (a formation userdata no script sees),
 * pushed: world snapshots keep one for every formation their Lua values
 * reach, and put it back at restore. */
void sl_formation_save(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    sl_formation *src = checkformation(L, idx);
    st_formation_def def = st_default_formation_def();
    sl_formation *c = new_formation(L, &def);
    c->sw = src->sw;
    c->custom_n = src->custom_n;
    if (!st_formation_copy(c->f, src->f))
        luaL_error(L, "not enough memory");
    for (int uv = 1; uv <= FUV_COUNT; uv++) {
        lua_getiuservalue(L, idx, uv);
        lua_setiuservalue(L, -2, uv);
    }
}

/* The formation at idx becomes the copy at saved_idx (sl_formation_save),
 * unless either belongs to a world other than sw: restoring one world
 * leaves another's formations alone. */
void sl_formation_load(lua_State *L, int idx, int saved_idx, const sl_world *sw)
{
    idx = lua_absindex(L, idx);
    saved_idx = lua_absindex(L, saved_idx);
    sl_formation *dst = checkformation(L, idx);
    sl_formation *src = checkformation(L, saved_idx);
    if ((src->sw != NULL && src->sw != sw) || (dst->sw != NULL && dst->sw != sw))
        return;
    if (!st_formation_copy(dst->f, src->f))
        luaL_error(L, "not enough memory");
    dst->sw = src->sw;
    dst->custom_n = src->custom_n;
    for (int uv = 1; uv <= FUV_COUNT; uv++) {
        lua_getiuservalue(L, saved_idx, uv);
        lua_setiuservalue(L, idx, uv);
    }
}

/* Expects the steer table on top; sets steer.formation. */
void sl_open_formation(lua_State *L)
{
    static const sl_code fields[] = {
        {"count", FF_COUNT}, {"leader", FF_LEADER}, {"pattern", FF_PATTERN},
        {"anchor", FF_ANCHOR}, {"heading", FF_HEADING}, {NULL, 0},
    };
    static const sl_type t = {
        .name = SL_FORMATION, .key = &sl_key_formation, .meta = formation_meta,
        .methods = formation_methods, .fields = fields, .index = formation_index,
    };
    sl_newtype(L, &t);
    lua_pop(L, 1);
    lua_pushcfunction(L, formation_new);
    lua_setfield(L, -2, "formation");
}
