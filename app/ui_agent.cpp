/*
 * ui_agent.cpp — the selected agent's window: its motion and limits, each
 * behaviour's share of its last step, its behaviour tree, and its brain's
 * `self` as a tree (tables fold open).
 *
 * Every number that can be set is an edit field: click it, type, Enter.
 * The edit runs as the console line `agent(ID).self.KEY = TEXT` (or
 * `agent(ID).max_speed = TEXT`), so it is recorded, replayed and, in the
 * past, starts a branch exactly as a line typed into the console would.
 *
 * `self` is read raw (lua_next, lua_rawget: no metamethod, so no script
 * code runs while the window is drawn), into a snapshot first: Lua's
 * errors unwind through C code only, never through ImGui's.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <imgui_internal.h> /* GetCurrentWindow: the part of a field that shows */

#include "ui_internal.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>

#include "steer_lua.h"
}

#define SELF_MAX_NODES 400
#define SELF_MAX_DEPTH 4
#define SELF_MAX_KEYS 128
#define SELF_KEY_LEN 40 /* Lua's short strings: pushing one that exists allocates nothing */
#define VALUE_X 150.0f  /* where values start, at every depth */

typedef struct self_node {
    int depth;
    int end;        ///< a table: the index past its subtree
    bool table;
    bool number;    ///< editable when path is not empty
    char key[SELF_KEY_LEN + 8];
    char value[72]; ///< shown; a number's edit text
    char path[192]; ///< the Lua expression that names it ("" when it has none)
} self_node;

typedef struct self_snap {
    self_node n[SELF_MAX_NODES];
    int count;
    int left_out; ///< entries not shown (key types without a name, caps)
} self_snap;

typedef struct key_ref {
    int type;
    bool integer;
    lua_Number num;
    char str[SELF_KEY_LEN + 1];
} key_ref;

static int cmp_keys(const void *x, const void *y)
{
    const key_ref *a = (const key_ref *)x, *b = (const key_ref *)y;
    if (a->type != b->type)
        return a->type == LUA_TNUMBER ? -1 : b->type == LUA_TNUMBER ? 1 : a->type == LUA_TSTRING ? -1 : 1;
    if (a->type == LUA_TNUMBER)
        return a->num < b->num ? -1 : a->num > b->num;
    if (a->type == LUA_TSTRING)
        return strcmp(a->str, b->str);
    return (int)a->num - (int)b->num;
}

static bool lua_name(const char *s)
{
    static const char *const KEYWORDS[] = {"and", "break", "do", "else", "elseif", "end", "false", "for",
                                           "function", "goto", "if", "in", "local", "nil", "not", "or",
                                           "repeat", "return", "then", "true", "until", "while"};
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
        if (strcmp(s, KEYWORDS[i]) == 0)
            return false;
    return true;
}

/* The node's key as shown and its path from the parent's ("" when no Lua expression names it). */
static void name_node(self_node *n, const key_ref *k, const char *parent)
{
    char sub[SELF_KEY_LEN + 8] = "";
    if (k->type == LUA_TNUMBER && k->integer) {
        snprintf(n->key, sizeof n->key, "[%lld]", (long long)k->num);
        snprintf(sub, sizeof sub, "[%lld]", (long long)k->num);
    } else if (k->type == LUA_TNUMBER) {
        snprintf(n->key, sizeof n->key, "[%g]", (double)k->num);
    } else if (k->type == LUA_TBOOLEAN) {
        snprintf(n->key, sizeof n->key, "[%s]", k->num != 0 ? "true" : "false");
        snprintf(sub, sizeof sub, "[%s]", k->num != 0 ? "true" : "false");
    } else {
        snprintf(n->key, sizeof n->key, "%s", k->str);
        if (lua_name(k->str))
            snprintf(sub, sizeof sub, ".%s", k->str);
        else if (strpbrk(k->str, "\"\\\n\r") == NULL)
            snprintf(sub, sizeof sub, "[\"%s\"]", k->str);
    }
    size_t lp = strlen(parent), ls = strlen(sub);
    n->path[0] = '\0';
    if (lp > 0 && ls > 0 && lp + ls < sizeof n->path) {
        memcpy(n->path, parent, lp);
        memcpy(n->path + lp, sub, ls + 1);
    }
}

/* A value that is not a table walked into: what is shown for it. */
static void describe(lua_State *L, int idx, self_node *n)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        n->number = true;
        if (lua_isinteger(L, idx))
            snprintf(n->value, sizeof n->value, "%lld", (long long)lua_tointeger(L, idx));
        else
            snprintf(n->value, sizeof n->value, "%.14g", (double)lua_tonumber(L, idx));
        return;
    case LUA_TSTRING:
        snprintf(n->value, sizeof n->value, "\"%.60s\"", lua_tostring(L, idx));
        return;
    case LUA_TBOOLEAN:
        snprintf(n->value, sizeof n->value, "%s", lua_toboolean(L, idx) ? "true" : "false");
        return;
    case LUA_TTABLE:
        snprintf(n->value, sizeof n->value, "{...}");
        return;
    case LUA_TUSERDATA: {
        const char *name = NULL;
        if (lua_getmetatable(L, idx)) {
            lua_pushliteral(L, "__name"); /* interned by the metatable: no allocation */
            lua_rawget(L, -2);
            name = lua_tostring(L, -1);
            lua_pop(L, 2); /* the metatable keeps the string alive */
        }
        const st_vec2 *v = (const st_vec2 *)lua_touserdata(L, idx);
        if (name != NULL && strcmp(name, "steer.vec2") == 0 && lua_rawlen(L, idx) == sizeof *v)
            snprintf(n->value, sizeof n->value, "vec2(%.2f, %.2f)", v->x, v->y);
        else
            snprintf(n->value, sizeof n->value, "%s", name ? name : "userdata");
        return;
    }
    default:
        snprintf(n->value, sizeof n->value, "%s", lua_typename(L, lua_type(L, idx)));
        return;
    }
}

/* The table's keys that have a name, sorted (numbers, strings, booleans). */
static int table_keys(lua_State *L, int t, key_ref *keys, self_snap *s)
{
    int nk = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        int kt = lua_type(L, -1);
        bool named = kt == LUA_TNUMBER || kt == LUA_TBOOLEAN || (kt == LUA_TSTRING && lua_rawlen(L, -1) <= SELF_KEY_LEN);
        if (!named || nk == SELF_MAX_KEYS) {
            s->left_out++;
            continue;
        }
        key_ref *k = &keys[nk++];
        k->type = kt;
        k->integer = kt == LUA_TNUMBER && lua_isinteger(L, -1);
        k->num = kt == LUA_TBOOLEAN ? (lua_Number)lua_toboolean(L, -1) : kt == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        snprintf(k->str, sizeof k->str, "%s", kt == LUA_TSTRING ? lua_tostring(L, -1) : "");
    }
    qsort(keys, (size_t)nk, sizeof keys[0], cmp_keys);
    return nk;
}

static void push_key(lua_State *L, const key_ref *k)
{
    if (k->type == LUA_TSTRING)
        lua_pushstring(L, k->str);
    else if (k->type == LUA_TBOOLEAN)
        lua_pushboolean(L, k->num != 0);
    else if (k->integer)
        lua_pushinteger(L, (lua_Integer)k->num);
    else
        lua_pushnumber(L, k->num);
}

/* The table at t (depth deep) into s, each key then its subtree (pre-order). */
static void walk(lua_State *L, int t, self_snap *s, int depth, const char *path)
{
    key_ref keys[SELF_MAX_KEYS];
    luaL_checkstack(L, 6, "self is too deep to show");
    int nk = table_keys(L, t, keys, s);
    for (int i = 0; i < nk; i++) {
        if (s->count == SELF_MAX_NODES) {
            s->left_out += nk - i;
            return;
        }
        push_key(L, &keys[i]);
        lua_rawget(L, t);
        int at = s->count++;
        self_node *n = &s->n[at];
        memset(n, 0, sizeof *n);
        n->depth = depth;
        name_node(n, &keys[i], path);
        if (lua_istable(L, -1) && depth + 1 < SELF_MAX_DEPTH) {
            n->table = true;
            char sub[sizeof n->path];
            snprintf(sub, sizeof sub, "%s", n->path);
            walk(L, lua_gettop(L), s, depth + 1, sub);
            s->n[at].end = s->count;
        } else {
            describe(L, -1, n);
        }
        lua_pop(L, 1);
    }
}

typedef struct snap_call {
    app *a;
    st_agent_id id;
    self_snap *s;
} snap_call;

static int snapshot_fn(lua_State *L)
{
    snap_call *c = (snap_call *)lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->a->world_ref);
    steer_lua_pushself(L, lua_gettop(L), c->id);
    if (!lua_istable(L, -1))
        return 0;
    char root[64];
    snprintf(root, sizeof root, "agent(%llu).self", (unsigned long long)st_agent_serial(c->a->world, c->id));
    walk(L, lua_gettop(L), c->s, 0, root);
    return 0;
}

/* The agent's self into s; false when it has none or it cannot be read. */
static bool snapshot(app *a, st_agent_id id, self_snap *s)
{
    s->count = s->left_out = 0;
    if (a->L == NULL || a->world_ref == LUA_NOREF)
        return false;
    int top = lua_gettop(a->L);
    snap_call c = {a, id, s};
    lua_pushcfunction(a->L, snapshot_fn);
    lua_pushlightuserdata(a->L, &c);
    bool ok = lua_pcall(a->L, 1, 0, 0) == LUA_OK;
    lua_settop(a->L, top);
    return ok && s->count > 0;
}

/* ------------------------------------------------------------------ drawing */

/* A number as an edit field: Enter runs `path = TEXT` as a console line.
 * Noted in c->fields while it shows (where --events' click-field clicks). */
static void edit_number(ui *u, app *a, render_ctx *c, const char *path, const char *value)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", value);
    ImGui::PushID(path);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputText("##edit", buf, sizeof buf,
                         ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CallbackAlways,
                         ui_edit_callback, u)) {
        char line[sizeof buf + 200];
        snprintf(line, sizeof line, "%s = %s", path, buf);
        ui_run_edit(a, line);
    }
    /* the part of it that shows (not scrolled or cut out of the window) */
    ImRect shown(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    shown.ClipWithFull(ImGui::GetCurrentWindow()->ClipRect);
    if (c->nfields < RENDER_MAX_FIELDS && shown.GetWidth() > 0.0f && shown.GetHeight() > 0.0f) {
        render_ctx::render_field *f = &c->fields[c->nfields++];
        snprintf(f->edit, sizeof f->edit, "%s = %s", path, value);
        f->r = {shown.Min.x, shown.Min.y, shown.GetWidth(), shown.GetHeight()};
    }
    ImGui::PopID();
}

/* The nodes [i, end) of s: tables as tree nodes, the rest as key and value. */
static void draw_nodes(ui *u, app *a, render_ctx *c, const self_snap *s, int i, int end)
{
    while (i < end) {
        const self_node *n = &s->n[i];
        ImGui::PushID(i);
        if (n->table) {
            bool open = ImGui::TreeNodeEx("##t", ImGuiTreeNodeFlags_SpanAvailWidth, "%s", n->key);
            if (open) {
                draw_nodes(u, a, c, s, i + 1, n->end);
                ImGui::TreePop();
            }
            ImGui::PopID();
            i = n->end;
            continue;
        }
        bool edit = n->number && n->path[0];
        if (edit)
            ImGui::AlignTextToFramePadding();
        ImGui::Bullet();
        ImGui::SameLine();
        ImGui::TextUnformatted(n->key);
        ImGui::SameLine(VALUE_X);
        if (edit)
            edit_number(u, a, c, n->path, n->value);
        else
            ImGui::TextColored(UI_DIM, "%s", n->value);
        ImGui::PopID();
        i++;
    }
}

/* A limit of the agent that Lua can set (agent.KEY = V), as an edit field in a table cell. */
static void limit(ui *u, app *a, render_ctx *c, const char *key, double v)
{
    char path[96], value[64];
    snprintf(path, sizeof path, "agent(%llu).%s", (unsigned long long)st_agent_serial(a->world, a->selected), key);
    snprintf(value, sizeof value, "%.14g", v);
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(key);
    ImGui::TableNextColumn();
    edit_number(u, a, c, path, value);
}

/* Position, velocity, state, the limits (editable), the order it follows. */
static void draw_motion(ui *u, app *a, render_ctx *c, st_agent_id id)
{
    const st_world *w = a->world;
    st_vec2 p = st_agent_pos(w, id), v = st_agent_vel(w, id);
    char state[64] = "";
    app_state_name(a, id, state, sizeof state);
    ImGui::Text("pos (%.1f, %.1f)   vel (%.1f, %.1f)", p.x, p.y, v.x, v.y);
    ImGui::Text("speed %.1f   force %.1f   tag %ld%s%s", st_agent_speed(w, id), st_v2_len(st_agent_force(w, id)),
                (long)st_agent_tag(w, id), state[0] ? "   state " : "", state);
    if (ImGui::BeginTable("limits", 4)) {
        ImGui::TableSetupColumn("k1", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("v1", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn("k2", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("v2", ImGuiTableColumnFlags_WidthStretch);
        limit(u, a, c, "max_speed", st_agent_max_speed(w, id));
        limit(u, a, c, "max_force", st_agent_max_force(w, id));
        limit(u, a, c, "radius", st_agent_radius(w, id));
        limit(u, a, c, "mass", st_agent_mass(w, id));
        ImGui::EndTable();
    }
    st_move_state ms = st_agent_move_state(w, id);
    if (ms != ST_MOVE_IDLE) {
        int slot, group = st_agent_move_group(w, id, &slot);
        ImGui::Text("order: %s, %.0f left", st_move_state_name(ms), st_agent_move_remaining(w, id));
        if (group > 0 && slot >= 0) {
            ImGui::SameLine();
            ImGui::Text(", slot %d of group %d", slot + 1, group);
        }
    }
}

/* Each behaviour's share of the last step, in its arrow's colour (the traced agent). */
static void draw_forces(app *a, st_agent_id id)
{
    const st_trace_entry *tr = NULL;
    int n = a->trace_world == a->world && st_id_equal(a->traced, id) ? st_world_trace(a->world, &tr) : 0;
    for (int i = 0; i < n; i++) {
        SDL_Color col = behavior_color(tr[i].type);
        ImGui::TextColored(ImVec4(col.r / 255.0f, col.g / 255.0f, col.b / 255.0f, 1.0f), "%s %.1f x %g",
                           st_behavior_name(tr[i].type), st_v2_len(tr[i].force), tr[i].weight);
    }
}

/* app_describe_tree's lines: the running branch ("> ") lit, the rest dimmed. */
static void draw_tree(const char *tree)
{
    for (const char *p = tree; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        ImGui::TextColored(p[0] == '>' ? UI_WARN : UI_DIM, "%.*s", len, p);
        p += len + (nl != NULL);
    }
}

bool ui_agent_left(ui *u, app *a, const render_ctx *c)
{
    unsigned long long serial = st_agent_serial(a->world, a->selected);
    if (serial != u->side_serial) { /* chosen once a selection, so the windows stay put */
        u->side_serial = serial;
        u->side_left = to_screen(c, st_agent_pos(a->world, a->selected)).x > (float)c->w * 0.5f;
    }
    return u->side_left;
}

void ui_window_agent(ui *u, app *a, render_ctx *c)
{
    float w = 360.0f, h = fminf(ui_fit_h("agent", 300.0f), (float)c->h * (a->show_plots ? 0.36f : 0.62f));
    ImVec2 dock(ui_agent_left(u, a, c) ? 8.0f : (float)c->w - w - 8.0f, 8.0f);
    if (!ui_place(u, c, "agent", dock, ImVec2(w, h), ImGui::GetTextLineHeightWithSpacing() * 8.0f, false))
        return;
    bool open = ImGui::Begin("agent", NULL, ImGuiWindowFlags_NoSavedSettings);
    ui_note_drawn(c);
    st_agent_id id = a->selected;
    if (open) {
        ImGui::TextColored(UI_WARN, "agent %llu", (unsigned long long)st_agent_serial(a->world, id));
        if (ImGui::CollapsingHeader("motion", ImGuiTreeNodeFlags_DefaultOpen)) {
            draw_motion(u, a, c, id);
            draw_forces(a, id);
        }
        static char tree[2048];
        app_describe_tree(a, id, tree, sizeof tree);
        if (tree[0] && ImGui::CollapsingHeader("behaviour tree", ImGuiTreeNodeFlags_DefaultOpen))
            draw_tree(tree);
        static self_snap snap; /* 100 KB: not on the stack */
        if (ImGui::CollapsingHeader("self", ImGuiTreeNodeFlags_DefaultOpen)) {
            if (!snapshot(a, id, &snap))
                ImGui::TextColored(UI_DIM, "(no self table)");
            else
                draw_nodes(u, a, c, &snap, 0, snap.count);
            if (snap.left_out > 0)
                ImGui::TextColored(UI_DIM, "(%d more entries not shown)", snap.left_out);
        }
    }
    ImGui::End();
}
