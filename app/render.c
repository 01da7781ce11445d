/*
 * render.c — one frame: the world (obstacles, walls, paths), the agents as
 * oriented triangles, the debug overlays, what scripts draw, then the windows (ui.h).
 *
 * Overlays (toggled by keys) apply to every agent; the selected agent
 * always shows all of its own, so clicking an agent is the quick way to see
 * what it is doing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "ui.h"

/* View cone and neighbour radius drawn for agents without a flock entry:
 * API.md's flock defaults. */
#define DRAW_VIEW_RADIUS 50.0
#define DRAW_VIEW_FOV (1.5 * ST_PI)
/* Pixels that a force of max_force is drawn as. */
#define FORCE_PX 40.0
/* Agents are drawn at least this big (pixels) so small radii stay visible. */
#define MIN_AGENT_PX 4.0f

static const SDL_Color COL_BG = {18, 20, 26, 255};
static const SDL_Color COL_BORDER = {60, 66, 80, 255};
static const SDL_Color COL_OBSTACLE = {52, 62, 78, 255};
static const SDL_Color COL_OBSTACLE_EDGE = {105, 120, 145, 255};
static const SDL_Color COL_WALL = {175, 185, 200, 255};
static const SDL_Color COL_PATH = {90, 150, 110, 200};
static const SDL_Color COL_VEL = {90, 220, 120, 255};
static const SDL_Color COL_FORCE = {245, 85, 85, 255};
static const SDL_Color COL_WANDER = {120, 130, 255, 200};
static const SDL_Color COL_CONE = {255, 255, 255, 26};
static const SDL_Color COL_FEELER = {255, 205, 60, 220};
static const SDL_Color COL_LINK = {110, 180, 255, 90};
static const SDL_Color COL_SELECT = {255, 255, 255, 230};
static const SDL_Color COL_STATE = {220, 220, 220, 220};
/* The ORCA overlay (draw_orca): the max-speed circle, agent and obstacle
 * lines, the forbidden side, the preferred and the chosen velocity. */
static const SDL_Color COL_ORCA_SPEED = {255, 255, 255, 70};
static const SDL_Color COL_ORCA_AGENT = {110, 170, 255, 200};
static const SDL_Color COL_ORCA_OBST = {255, 160, 70, 210};
static const SDL_Color COL_ORCA_SHADE = {255, 80, 80, 22};
static const SDL_Color COL_ORCA_PREF = {255, 225, 60, 255};
static const SDL_Color COL_ORCA_CHOSEN = {80, 240, 120, 255};

/* One colour per behaviour, so the selected agent's forces can be told apart. */
static const SDL_Color BEHAVIOR_COLORS[ST_BEHAVIOR_COUNT + 1] = {
    [ST_SEEK] = {90, 230, 120, 255},        [ST_FLEE] = {255, 120, 60, 255},
    [ST_ARRIVE] = {60, 200, 255, 255},      [ST_PURSUE] = {255, 160, 0, 255},
    [ST_EVADE] = {255, 70, 70, 255},        [ST_INTERCEPT] = {255, 90, 200, 255},
    [ST_WANDER] = {150, 150, 255, 255},     [ST_SEPARATE] = {255, 255, 120, 255},
    [ST_ALIGN] = {120, 255, 255, 255},      [ST_COHERE] = {200, 140, 255, 255},
    [ST_FLOCK] = {230, 230, 230, 255},      [ST_AVOID_OBSTACLES] = {255, 210, 60, 255},
    [ST_AVOID_WALLS] = {255, 235, 150, 255}, [ST_CONTAIN] = {180, 180, 120, 255},
    [ST_FOLLOW_PATH] = {120, 220, 160, 255}, [ST_OFFSET_PURSUE] = {100, 160, 255, 255},
    [ST_INTERPOSE] = {0, 220, 200, 255},    [ST_HIDE] = {170, 120, 90, 255},
    [ST_STOP] = {200, 60, 60, 255},         [ST_GRAZE] = {130, 200, 110, 255},
    [ST_BEHAVIOR_COUNT] = {255, 255, 255, 255},
};

SDL_Color behavior_color(st_behavior_type type)
{
    return BEHAVIOR_COLORS[(unsigned)type <= ST_BEHAVIOR_COUNT ? type : ST_BEHAVIOR_COUNT];
}

/* ------------------------------------------------------------------ context */

bool render_ctx_init(render_ctx *c, SDL_Renderer *r)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->scale = 1.0;
    c->alpha = 1.0;
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    c->small = font_open(r, STEER_FONT_PATH, 12);
    if (c->small == NULL)
        fprintf(stderr, "steer: cannot open the font %s (%s); drawing without text\n", STEER_FONT_PATH,
                TTF_GetError());
    c->gui = ui_new(r);
    return true;
}

void render_ctx_free(render_ctx *c)
{
    for (int i = 0; i < LAYER_COUNT; i++)
        batch_free(&c->layer[i]);
    font_close(c->small);
    c->small = NULL;
    ui_free(c->gui);
    c->gui = NULL;
}

void render_ctx_fit(render_ctx *c, int out_w, int out_h, double world_w, double world_h)
{
    c->w = out_w;
    c->h = out_h;
    int view_h = out_h - c->band > 1 ? out_h - c->band : 1;
    double sx = out_w / world_w, sy = view_h / world_h;
    c->scale = sx < sy ? sx : sy;
    if (!(c->scale > 0.0) || !isfinite(c->scale))
        c->scale = 1.0;
    c->ox = (out_w - world_w * c->scale) * 0.5;
    c->oy = (view_h - world_h * c->scale) * 0.5;
}

void render_fit_world(render_ctx *c, const app *a)
{
    if (a->world == NULL)
        return;
    c->band = (a->overlays & OV_HUD) ? RENDER_TIMELINE_BAND : 0;
    render_ctx_fit(c, c->w, c->h, st_world_width(a->world), st_world_height(a->world));
}

/* ------------------------------------------------------------------ helpers */

static SDL_FPoint fp(float x, float y)
{
    SDL_FPoint p = {x, y};
    return p;
}

static SDL_FPoint local_pt(const render_ctx *c, st_vec2 pos, st_vec2 h, double along, double side)
{
    st_vec2 s = st_v2_perp(h);
    return to_screen(c, st_v2_add(pos, st_v2_add(st_v2_scale(h, along), st_v2_scale(s, side))));
}

/* The flock entry of the agent's standing list, if any: its radius and view
 * cone are what the overlays show. */
static bool flock_params(const st_world *w, st_agent_id id, double *radius, double *fov)
{
    const st_behavior *list = NULL;
    int n = st_agent_behaviors(w, id, &list);
    for (int i = 0; i < n; i++) {
        if (list[i].type == ST_FLOCK || list[i].type == ST_SEPARATE || list[i].type == ST_ALIGN ||
            list[i].type == ST_COHERE) {
            *radius = list[i].flock.radius;
            *fov = list[i].flock.fov;
            return true;
        }
    }
    *radius = DRAW_VIEW_RADIUS;
    *fov = DRAW_VIEW_FOV;
    return false;
}

/* ------------------------------------------------------------------ world */

static void draw_path(render_ctx *c, const st_path *p)
{
    batch *b = &c->layer[LAYER_WORLD];
    int n = st_path_count(p);
    float r = (float)(st_path_radius(p) * c->scale);
    for (int i = 0; i < n; i++) {
        SDL_FPoint a = to_screen(c, st_path_point(p, i));
        batch_circle(b, a, r, COL_PATH, false, 1.0f);
        if (i + 1 < n || (st_path_loop(p) && n > 1))
            batch_line(b, a, to_screen(c, st_path_point(p, (i + 1) % n)), 2.0f, COL_PATH);
    }
}

/* A polygon obstacle filled (a fan from its mean point, which lies inside
 * convex shapes; concave ones are filled by ear clipping) and outlined; a
 * polyline is a thick segment chain with round joints, solid both sides. */
static void draw_polygon(render_ctx *c, const st_obstacle_info *o)
{
    batch *b = &c->layer[LAYER_WORLD];
    enum { MAX_PTS = 256 };
    SDL_FPoint s[MAX_PTS];
    int n = o->point_count < MAX_PTS ? o->point_count : MAX_PTS;
    for (int i = 0; i < n; i++)
        s[i] = to_screen(c, st_v2_add(o->pos, o->points[i]));
    if (o->kind == ST_OBSTACLE_POLYLINE) {
        for (int i = 0; i + 1 < n; i++)
            batch_line(b, s[i], s[i + 1], 4.0f, COL_OBSTACLE_EDGE);
        for (int i = 0; i < n; i++)
            batch_circle(b, s[i], 2.0f, COL_OBSTACLE_EDGE, true, 0.0f);
        return;
    }
    /* Ear clipping over screen points (any winding). */
    int idx[MAX_PTS], m = n;
    for (int i = 0; i < n; i++)
        idx[i] = i;
    double area = 0.0;
    for (int i = 0; i < n; i++) {
        SDL_FPoint p = s[i], q = s[(i + 1) % n];
        area += (double)p.x * q.y - (double)q.x * p.y;
    }
    double sign = area >= 0.0 ? 1.0 : -1.0;
    int guard = 0;
    while (m > 3 && guard++ < 4 * MAX_PTS) {
        bool clipped = false;
        for (int k = 0; k < m && !clipped; k++) {
            SDL_FPoint p0 = s[idx[(k + m - 1) % m]], p1 = s[idx[k]], p2 = s[idx[(k + 1) % m]];
            double cr = ((double)p1.x - p0.x) * ((double)p2.y - p0.y) - ((double)p1.y - p0.y) * ((double)p2.x - p0.x);
            if (cr * sign <= 0.0)
                continue; /* reflex corner */
            bool inside = false;
            for (int j = 0; j < m && !inside; j++) {
                if (j == k || j == (k + m - 1) % m || j == (k + 1) % m)
                    continue;
                SDL_FPoint q = s[idx[j]];
                double d0 = ((double)p1.x - p0.x) * ((double)q.y - p0.y) - ((double)p1.y - p0.y) * ((double)q.x - p0.x);
                double d1 = ((double)p2.x - p1.x) * ((double)q.y - p1.y) - ((double)p2.y - p1.y) * ((double)q.x - p1.x);
                double d2 = ((double)p0.x - p2.x) * ((double)q.y - p2.y) - ((double)p0.y - p2.y) * ((double)q.x - p2.x);
                inside = d0 * sign >= 0.0 && d1 * sign >= 0.0 && d2 * sign >= 0.0;
            }
            if (inside)
                continue;
            batch_tri(b, p0, p1, p2, COL_OBSTACLE);
            for (int j = k; j + 1 < m; j++)
                idx[j] = idx[j + 1];
            m--;
            clipped = true;
        }
        if (!clipped)
            break; /* degenerate: the fan below fills what is left */
    }
    for (int k = 1; k + 1 < m; k++)
        batch_tri(b, s[idx[0]], s[idx[k]], s[idx[k + 1]], COL_OBSTACLE);
    for (int i = 0; i < n; i++)
        batch_line(b, s[i], s[(i + 1) % n], 1.5f, COL_OBSTACLE_EDGE);
}

/* Paths reach the core only through standing behaviours; each is drawn
 * once however many agents follow it. */
static void draw_followed_paths(render_ctx *c, const st_world *w)
{
    enum { MAX_PATHS = 32 };
    const st_path *seen[MAX_PATHS];
    int nseen = 0;
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (st_id_is_null(id))
            continue;
        const st_behavior *list = NULL;
        int n = st_agent_behaviors(w, id, &list);
        for (int i = 0; i < n; i++) {
            if (list[i].type != ST_FOLLOW_PATH || list[i].path == NULL)
                continue;
            bool dup = false;
            for (int j = 0; j < nseen; j++)
                dup = dup || seen[j] == list[i].path;
            if (!dup && nseen < MAX_PATHS) {
                seen[nseen++] = list[i].path;
                draw_path(c, list[i].path);
            }
        }
    }
}

static void draw_world(app *a, render_ctx *c)
{
    st_world *w = a->world;
    batch *b = &c->layer[LAYER_WORLD];
    /* The world's rectangle, when the window is larger than it. */
    SDL_FPoint tl = to_screen(c, st_v2(0, 0));
    SDL_FPoint br = to_screen(c, st_v2(st_world_width(w), st_world_height(w)));
    batch_line(b, tl, fp(br.x, tl.y), 1.0f, COL_BORDER);
    batch_line(b, fp(br.x, tl.y), br, 1.0f, COL_BORDER);
    batch_line(b, br, fp(tl.x, br.y), 1.0f, COL_BORDER);
    batch_line(b, fp(tl.x, br.y), tl, 1.0f, COL_BORDER);

    for (int i = 0; i < st_world_obstacle_count(w); i++) {
        st_obstacle_info o;
        st_world_obstacle_get(w, i, &o);
        if (o.kind == ST_OBSTACLE_CIRCLE || o.point_count < 2 || o.points == NULL) {
            SDL_FPoint s = to_screen(c, o.pos);
            batch_circle(b, s, (float)(o.radius * c->scale), COL_OBSTACLE, true, 0.0f);
            batch_circle(b, s, (float)(o.radius * c->scale), COL_OBSTACLE_EDGE, false, 1.5f);
        } else {
            draw_polygon(c, &o);
        }
    }
    for (int i = 0; i < st_world_wall_count(w); i++) {
        st_vec2 p, q;
        st_world_wall(w, i, &p, &q);
        batch_line(b, to_screen(c, p), to_screen(c, q), 3.0f, COL_WALL);
    }

    if (a->overlays & OV_PATHS)
        draw_followed_paths(c, w);
}

/* ------------------------------------------------------------------ agents */

static void draw_agent(render_ctx *c, const st_world *w, st_agent_id id)
{
    st_vec2 pos = st_agent_render_pos(w, id, c->alpha), h = st_agent_heading(w, id);
    uint8_t rgb[3];
    st_agent_color(w, id, rgb);
    double r = st_agent_radius(w, id);
    if (r * c->scale < MIN_AGENT_PX)
        r = MIN_AGENT_PX / c->scale;
    SDL_Color col = {rgb[0], rgb[1], rgb[2], 255};
    batch_tri(&c->layer[LAYER_AGENTS], local_pt(c, pos, h, 1.6 * r, 0), local_pt(c, pos, h, -r, 0.9 * r),
              local_pt(c, pos, h, -r, -0.9 * r), col);
}

static void draw_cone(batch *b, render_ctx *c, st_vec2 pos, st_vec2 h, double radius, double fov)
{
    SDL_FPoint center = to_screen(c, pos);
    if (!(fov > 0.0) || fov >= 2.0 * ST_PI) {
        batch_circle(b, center, (float)(radius * c->scale), COL_CONE, true, 0.0f);
        return;
    }
    int n = 24;
    double a0 = st_v2_angle(h) - fov * 0.5;
    SDL_FPoint prev = to_screen(c, st_v2_add(pos, st_v2_from_angle(a0, radius)));
    for (int i = 1; i <= n; i++) {
        SDL_FPoint p = to_screen(c, st_v2_add(pos, st_v2_from_angle(a0 + fov * i / n, radius)));
        batch_tri(b, center, prev, p, COL_CONE);
        prev = p;
    }
}

/* An agent as its overlays draw it. */
typedef struct agent_view {
    st_agent_id id;
    st_vec2 pos, h, vel;
    double r;
    SDL_FPoint sp; ///< pos on the screen
} agent_view;

/* Lines to the neighbours it sees (its flock radius and view cone). */
static void draw_links(batch *b, const render_ctx *c, const st_world *w, const agent_view *v)
{
    double radius, fov;
    flock_params(w, v->id, &radius, &fov);
    st_query q = st_default_query(v->pos, radius);
    q.exclude = v->id;
    q.fov = fov;
    q.heading = v->h;
    enum { MAX_LINKS = 32 };
    st_agent_id near[MAX_LINKS];
    int n = st_world_query(w, &q, near, NULL, MAX_LINKS);
    if (n > MAX_LINKS)
        n = MAX_LINKS;
    for (int i = 0; i < n; i++) {
        /* Through the shortest offset, so links across a wrapped edge
         * point the way the agent actually sees its neighbour. */
        st_vec2 off = st_world_offset(w, v->pos, st_agent_pos(w, near[i]));
        batch_line(b, v->sp, to_screen(c, st_v2_add(v->pos, off)), 1.0f, COL_LINK);
    }
}

/* The wander circle ahead of it and the target on it. */
static void draw_wander(batch *b, const render_ctx *c, const st_world *w, const agent_view *v)
{
    double dist = st_agent_wander_distance(w, v->id), wr = st_agent_wander_radius(w, v->id);
    st_vec2 center = st_v2_add(v->pos, st_v2_scale(v->h, dist));
    st_vec2 t = st_agent_wander_target(w, v->id);
    st_vec2 target = st_v2_add(center, st_v2_add(st_v2_scale(v->h, t.x), st_v2_scale(st_v2_perp(v->h), t.y)));
    SDL_FPoint sc = to_screen(c, center), st = to_screen(c, target);
    batch_circle(b, sc, (float)(wr * c->scale), COL_WANDER, false, 1.0f);
    batch_line(b, v->sp, sc, 1.0f, COL_WANDER);
    batch_circle(b, st, 3.0f, COL_WANDER, true, 0.0f);
}

/* The obstacle detection box and the wall feelers, when it has them. */
static void draw_feelers(batch *b, const render_ctx *c, const st_world *w, const agent_view *v)
{
    st_sensors sn;
    if (!st_agent_sensors(w, v->id, &sn))
        return;
    double box = sn.box_length, hw = sn.box_half_width;
    SDL_FPoint p0 = local_pt(c, v->pos, v->h, 0, hw), p1 = local_pt(c, v->pos, v->h, box, hw);
    SDL_FPoint p2 = local_pt(c, v->pos, v->h, box, -hw), p3 = local_pt(c, v->pos, v->h, 0, -hw);
    batch_line(b, p0, p1, 1.0f, COL_FEELER);
    batch_line(b, p1, p2, 1.0f, COL_FEELER);
    batch_line(b, p2, p3, 1.0f, COL_FEELER);
    for (int k = 0; k < 3; k++)
        batch_line(b, v->sp, to_screen(c, sn.feelers[k]), 1.0f, COL_FEELER);
}

/* The steering force, scaled so that max_force is FORCE_PX pixels whatever
 * the scene's units and clipped to three times that; the traced agent also
 * shows each behaviour's weighted force in its colour. */
static void draw_forces(app *a, batch *b, const render_ctx *c, const agent_view *v)
{
    const st_world *w = a->world;
    double max_force = st_agent_max_force(w, v->id);
    double k = FORCE_PX / c->scale / (max_force > 1e-9 ? max_force : 1.0);
    double clip = 3.0 * FORCE_PX / c->scale;
    if (st_id_equal(v->id, a->traced) && a->trace_world == w) {
        const st_trace_entry *e = NULL;
        int n = st_world_trace(w, &e);
        for (int i = 0; i < n; i++) {
            st_vec2 f = st_v2_truncate(st_v2_scale(e[i].force, e[i].weight * k), clip);
            batch_arrow(b, v->sp, to_screen(c, st_v2_add(v->pos, f)), 1.0f, behavior_color(e[i].type));
        }
    }
    st_vec2 f = st_v2_truncate(st_v2_scale(st_agent_force(w, v->id), k), clip);
    batch_arrow(b, v->sp, to_screen(c, st_v2_add(v->pos, f)), 2.0f, COL_FORCE);
}

/* Its state name (self.state or self.state.name) under it. */
static void draw_state_name(app *a, render_ctx *c, const agent_view *v)
{
    char name[64];
    if (!app_state_name(a, v->id, name, sizeof name))
        return;
    float tw = font_width(c->small, name, strlen(name));
    font_draw(c->small, &c->layer[LAYER_TEXT], v->sp.x - tw * 0.5f, v->sp.y + (float)(v->r * c->scale) + 4.0f, name,
              strlen(name), COL_STATE);
}

static void draw_overlays(app *a, render_ctx *c, st_agent_id id, unsigned ov)
{
    const st_world *w = a->world;
    batch *b = &c->layer[st_id_equal(id, a->selected) ? LAYER_SELECTED : LAYER_OVERLAY];
    st_vec2 pos = st_agent_render_pos(w, id, c->alpha); /* with the body */
    agent_view v = {id, pos, st_agent_heading(w, id), st_agent_vel(w, id), st_agent_radius(w, id), to_screen(c, pos)};
    if (ov & OV_CONE) {
        double radius, fov;
        flock_params(w, id, &radius, &fov);
        draw_cone(b, c, pos, v.h, radius, fov);
    }
    if (ov & OV_LINKS)
        draw_links(b, c, w, &v);
    if (ov & OV_WANDER)
        draw_wander(b, c, w, &v);
    if (ov & OV_FEELERS)
        draw_feelers(b, c, w, &v);
    /* Velocity drawn as the distance covered in half a second. */
    if (ov & OV_VELOCITY)
        batch_arrow(b, v.sp, to_screen(c, st_v2_add(pos, st_v2_scale(v.vel, 0.5))), 1.5f, COL_VEL);
    if (ov & OV_FORCE)
        draw_forces(a, b, c, &v);
    if (ov & OV_STATE)
        draw_state_name(a, c, &v);
}

/* ------------------------------------------------------------------ ORCA */

/* The traced agent's last ORCA pass, drawn around it in velocity space: a
 * velocity v is drawn at pos + v * k, with max_speed at ORCA_PX pixels. Each
 * half-plane is its line (obstacle lines orange, agent lines blue, the ones
 * kept when infeasible thicker) with its forbidden side lightly shaded; the
 * max-speed circle, the preferred velocity (yellow) and the chosen one (green). */
#define ORCA_PX 70.0

static void draw_orca(app *a, render_ctx *c, st_agent_id id)
{
    const st_world *w = a->world;
    if (!st_id_equal(id, a->traced) || a->trace_world != w)
        return;
    const st_orca_trace *t = st_world_orca_trace(w);
    if (t == NULL || !t->valid)
        return;
    batch *b = &c->layer[LAYER_SELECTED];
    st_vec2 pos = st_agent_pos(w, id);
    double max_speed = st_agent_max_speed(w, id);
    double k = ORCA_PX / c->scale / (max_speed > 1e-9 ? max_speed : 1.0);
    double R = 1.25 * ORCA_PX / c->scale; /* clip lines to this world radius */
    SDL_FPoint sp = to_screen(c, pos);
    batch_circle(b, sp, (float)ORCA_PX, COL_ORCA_SPEED, false, 1.0f);
    for (int i = 0; i < t->line_count; i++) {
        st_vec2 d = t->lines[i].direction;
        st_vec2 p = st_v2_add(pos, st_v2_scale(t->lines[i].point, k)); /* the line in world space */
        /* Clip the line to the disc of radius R around pos. */
        st_vec2 rel = st_v2_sub(p, pos);
        double along = st_v2_dot(rel, d);
        st_vec2 foot = st_v2_sub(rel, st_v2_scale(d, along)); /* closest point to pos */
        double f2 = st_v2_dot(foot, foot);
        if (f2 >= R * R)
            continue; /* the whole view is on one side */
        double half = sqrt(R * R - f2);
        st_vec2 a0 = st_v2_add(pos, st_v2_sub(foot, st_v2_scale(d, half)));
        st_vec2 a1 = st_v2_add(pos, st_v2_add(foot, st_v2_scale(d, half)));
        /* Permitted velocities v have det(d, v - point) >= 0: the side
         * perp(d) points to. The other side is shaded, a band R/4 deep. */
        st_vec2 left = st_v2_perp(d);
        st_vec2 right = st_v2_scale(left, -0.25 * R);
        SDL_FPoint s0 = to_screen(c, a0), s1 = to_screen(c, a1);
        SDL_FPoint s2 = to_screen(c, st_v2_add(a1, right)), s3 = to_screen(c, st_v2_add(a0, right));
        batch_tri(b, s0, s1, s2, COL_ORCA_SHADE);
        batch_tri(b, s0, s2, s3, COL_ORCA_SHADE);
        bool obst = i < t->obstacle_lines, hard = i < t->hard_lines;
        batch_line(b, s0, s1, hard ? 2.0f : 1.0f, obst ? COL_ORCA_OBST : COL_ORCA_AGENT);
    }
    batch_arrow(b, sp, to_screen(c, st_v2_add(pos, st_v2_scale(t->preferred, k))), 2.0f, COL_ORCA_PREF);
    batch_arrow(b, sp, to_screen(c, st_v2_add(pos, st_v2_scale(t->chosen, k))), 2.0f, COL_ORCA_CHOSEN);
}

/* ------------------------------------------------------------------ frame */

/* Clears a software renderer's own surface. SDL_RenderClear fills it with
 * non-temporal stores, which write around the caches: every agent triangle
 * drawn next then fetches its pixels from memory. Plain stores leave the
 * frame in cache; 10k agents draw in 2.9 ms a frame instead of 4.9. */
static void clear_surface(render_ctx *c)
{
    SDL_Surface *s = c->surface;
    SDL_RenderFlush(c->r); /* anything queued lands first */
    if (SDL_MUSTLOCK(s) && SDL_LockSurface(s) != 0) {
        SDL_RenderClear(c->r);
        return;
    }
    Uint32 bg = SDL_MapRGB(s->format, COL_BG.r, COL_BG.g, COL_BG.b);
    for (int y = 0; y < s->h; y++) {
        Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + (size_t)y * (size_t)s->pitch);
        for (int x = 0; x < s->w; x++)
            row[x] = bg;
    }
    if (SDL_MUSTLOCK(s))
        SDL_UnlockSurface(s);
}

/* The background, and empty batches. */
static void clear_frame(render_ctx *c)
{
    SDL_SetRenderDrawBlendMode(c->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(c->r, COL_BG.r, COL_BG.g, COL_BG.b, 255);
    if (c->surface != NULL && c->surface->format->BytesPerPixel == 4)
        clear_surface(c);
    else
        SDL_RenderClear(c->r);
    for (int i = 0; i < LAYER_COUNT; i++)
        batch_clear(&c->layer[i]);
}

/* A removed agent is no longer selected; the world traces the behaviours
 * of the selected agent from the next step on. */
static void follow_selection(app *a)
{
    const st_world *w = a->world;
    if (!st_agent_alive(w, a->selected))
        a->selected = st_null_agent();
    if (a->trace_world != w || !st_id_equal(a->traced, a->selected)) {
        st_world_set_trace(a->world, a->selected);
        a->traced = a->selected;
        a->trace_world = w;
    }
}

/* Every agent, with the overlays switched on for all. */
static void draw_agents(app *a, render_ctx *c)
{
    const st_world *w = a->world;
    unsigned all = a->overlays & (OV_VELOCITY | OV_FORCE | OV_WANDER | OV_CONE | OV_FEELERS | OV_LINKS | OV_STATE);
    /* Storage order: spawn order in all but big worlds, which keep their
     * agents sorted by place, and then drawing them in that order reads
     * memory in order too. */
    for (int k = 0; k < st_world_stored_count(w); k++) {
        st_agent_id id = st_world_stored(w, k);
        if (st_id_is_null(id))
            continue;
        draw_agent(c, w, id);
        if (all && !st_id_equal(id, a->selected))
            draw_overlays(a, c, id, all);
    }
}

/* The selected agent's order: the route left (from the agent on), and a
 * ring at its goal (a group member's: its slot). */
static void draw_order(render_ctx *c, const st_world *w, st_agent_id id)
{
    const st_vec2 *p;
    int next, n = st_agent_move_route(w, id, &p, &next);
    st_vec2 goal;
    if (!st_agent_move_goal(w, id, &goal))
        return;
    batch *b = &c->layer[LAYER_SELECTED];
    const SDL_Color col = {250, 220, 90, 220};
    st_vec2 from = st_agent_pos(w, id);
    for (int k = next; k < n; k++) {
        batch_line(b, to_screen(c, from), to_screen(c, p[k]), 1.5f, col);
        batch_circle(b, to_screen(c, p[k]), 2.5f, col, true, 1.0f);
        from = p[k];
    }
    double r = st_agent_radius(w, id) * c->scale;
    batch_circle(b, to_screen(c, goal), (float)(r > 3.0 ? r : 3.0), col, false, 1.5f);
}

/* The selected agent: every overlay of its own, its ORCA view, its order, a ring. */
static void draw_selection(app *a, render_ctx *c)
{
    const st_world *w = a->world;
    draw_order(c, w, a->selected);
    draw_overlays(a, c, a->selected, OV_VELOCITY | OV_FORCE | OV_WANDER | OV_CONE | OV_FEELERS | OV_LINKS | OV_STATE);
    if (a->overlays & OV_ORCA)
        draw_orca(a, c, a->selected);
    double rad = st_agent_radius(w, a->selected) * c->scale + 6.0;
    batch_circle(&c->layer[LAYER_SELECTED], to_screen(c, st_agent_pos(w, a->selected)), (float)rad, COL_SELECT, false,
                 1.5f);
}

/* The layers to the renderer, bottom up. */
static void flush_layers(app *a, render_ctx *c, bool hud)
{
    SDL_Renderer *r = c->r;
    batch_flush(&c->layer[LAYER_WORLD], r, NULL);
    batch_flush(&c->layer[LAYER_OVERLAY], r, NULL);
    /* Agents are opaque: without blending SDL's software renderer fills
     * their triangles on a faster path (a GPU does not care). */
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
    batch_flush(&c->layer[LAYER_AGENTS], r, NULL);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    batch_flush(&c->layer[LAYER_SELECTED], r, NULL);
    batch_flush(&c->layer[LAYER_SCRIPT], r, NULL);
    batch_flush(&c->layer[LAYER_TEXT], r, font_texture(c->small));
    if (hud) {
        ui_frame(c->gui, a, c); /* the windows (ui.h) */
        batch_flush(&c->layer[LAYER_HUD], r, NULL);
    }
}

void render_frame(app *a, render_ctx *c, bool hud)
{
    clear_frame(c);
    c->npanels = 0;
    c->nfields = 0;
    if (a->world != NULL) {
        render_fit_world(c, a);
        draw_world(a, c);
        follow_selection(a);
        draw_agents(a, c);
        if (!st_id_is_null(a->selected))
            draw_selection(a, c);
        app_events_draw(a, c);
        /* The scripts' own drawing (scene.draw, brain.draw) goes on top of
         * the agents and under the windows. */
        app_draw_scripts(a, c);
    }
    flush_layers(a, c, hud);
}
