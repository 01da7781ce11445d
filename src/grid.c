/*
 * grid.c — the uniform neighbour grid and the queries built on it.
 *
 * A counting sort of agents into cells, rebuilt from positions at the start
 * of every step: two linear passes and no allocation once the arrays have
 * grown to the agent count. In a wrap world the cells divide the world
 * evenly so a cell index wraps exactly like a position does; elsewhere
 * positions outside the rectangle fall into the border cells, which keeps
 * every query correct (a clamp is monotone) at some cost for stragglers.
 */
#include <assert.h>
#include <stdlib.h>

#include "grid_iter.h"

// Bounds memory for absurd width/cell ratios; a query of any radius stays
// correct with bigger cells, only slower.
#define ST_MAX_CELLS (1 << 22)

void st__grid_free(st_grid *g)
{
    free(g->cell_start);
    free(g->items);
    g->cell_start = NULL;
    g->items = NULL;
    g->cell_cap = g->agent_cap = 0;
}

static void grid_dims(const st_world *w, st_grid *g)
{
    double cell = w->cell_size;
    for (;;) {
        double fx = w->edges == ST_EDGES_WRAP ? floor(w->width / cell) : ceil(w->width / cell);
        double fy = w->edges == ST_EDGES_WRAP ? floor(w->height / cell) : ceil(w->height / cell);
        if (fx < 1.0) fx = 1.0;
        if (fy < 1.0) fy = 1.0;
        if (fx * fy <= (double)ST_MAX_CELLS) {
            g->nx = (int)fx;
            g->ny = (int)fy;
            break;
        }
        cell *= 2.0;
    }
    if (w->edges == ST_EDGES_WRAP) {
        g->cell_w = w->width / g->nx;
        g->cell_h = w->height / g->ny;
    } else {
        g->cell_w = g->cell_h = cell;
    }
}


static inline int clamp_index(double f, int n)
{
    if (!(f >= 0.0)) return 0; // also catches NaN, which never enters a world
    if (f >= (double)(n - 1)) return n - 1;
    return (int)f;
}

static inline int cell_of(const st_world *w, const st_grid *g, st_vec2 p)
{
    int cx, cy;
    if (w->edges == ST_EDGES_WRAP) {
        double fx = floor(p.x / g->cell_w), fy = floor(p.y / g->cell_h);
        // Positions are inside the world after a step; a user's set_pos may
        // put one anywhere, so reduce in floating point before converting.
        fx -= g->nx * floor(fx / g->nx);
        fy -= g->ny * floor(fy / g->ny);
        cx = clamp_index(fx, g->nx);
        cy = clamp_index(fy, g->ny);
    } else {
        cx = clamp_index(floor(p.x / g->cell_w), g->nx);
        cy = clamp_index(floor(p.y / g->cell_h), g->ny);
    }
    return cy * g->nx + cx;
}

static bool grow_i32(int32_t **p, int *cap, int need)
{
    if (need <= *cap) return true;
    int n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    int32_t *q = realloc(*p, (size_t)n * sizeof *q);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

void st__grid_build(st_world *w, int count)
{
    st_grid *g = &w->grid;
    grid_dims(w, g);
    int cells = g->nx * g->ny;

    int cell_cap = g->cell_cap;
    if (!grow_i32(&g->cell_start, &cell_cap, cells + 1)) goto fail;
    g->cell_cap = cell_cap;
    if (count > g->agent_cap) {
        int n = g->agent_cap ? g->agent_cap : 64;
        while (n < count) n *= 2;
        st_grid_item *it = realloc(g->items, (size_t)n * sizeof *it);
        if (!it) goto fail;
        g->items = it;
        g->agent_cap = n;
    }

    int32_t *start = g->cell_start;
    for (int c = 0; c <= cells; c++) start[c] = 0;
    // Two passes, the cell computed in each rather than stored: 4 bytes an
    // agent saved for a few arithmetic operations.
    for (int i = 0; i < count; i++)
        if (w->agents[i].alive) start[cell_of(w, g, w->bodies[i].pos) + 1]++;
    for (int c = 0; c < cells; c++) start[c + 1] += start[c];
    // Place in dense (spawn) order so each cell lists its agents in spawn
    // order: queries then visit candidates deterministically.
    for (int i = 0; i < count; i++) {
        if (!w->agents[i].alive) continue;
        int c = cell_of(w, g, w->bodies[i].pos);
        // start[c] is used as the cursor and restored below.
        st_grid_item *it = &g->items[start[c]++];
        it->pos = w->bodies[i].pos;
        if (w->edges == ST_EDGES_WRAP) {
            it->pos.x = st__wrap_coord(it->pos.x, w->width);
            it->pos.y = st__wrap_coord(it->pos.y, w->height);
        }
        it->hx = (float)w->bodies[i].heading.x;
        it->hy = (float)w->bodies[i].heading.y;
        it->index = (uint32_t)i;
        it->tag = w->agents[i].tag;
    }
    for (int c = cells; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
    g->item_count = start[cells];
    w->grid_dirty = false;
    return;

fail:
    // Out of memory: an empty grid answers every query with nothing rather
    // than reading freed cells.
    g->nx = g->ny = 1;
    if (g->cell_start && g->cell_cap >= 2) g->cell_start[0] = g->cell_start[1] = 0;
    g->item_count = 0;
}

void st__grid_ensure(st_world *w)
{
    if (w->in_step || !w->grid_dirty) return;
    st__grid_build(w, w->count);
}

typedef struct visit_ctx {
    const st_world *w;
    const st_query *q;
    int exclude;
    bool cone;
    double cos_half;
    st__visit_fn fn;
    void *ctx;
} visit_ctx;

static void visit_one(void *ctx, const st_grid_item *it, st_vec2 d, double d2)
{
    const visit_ctx *v = ctx;
    if ((int)it->index == v->exclude) return;
    if (v->q->tag != ST_TAG_ANY && it->tag != v->q->tag) return;
    if (v->w->removed_in_step && !v->w->agents[it->index].alive) return;
    if (v->cone && d2 > 0.0 && !st__in_cone(d, d2, v->q->heading, v->cos_half)) return;
    v->fn(v->ctx, it->index, d, d2);
}

void st__grid_visit(const st_world *w, const st_query *q, st__visit_fn fn, void *ctx)
{
    visit_ctx v = {w, q, st__dense(w, q->exclude), q->fov > 0.0 && q->fov < 2.0 * ST_PI, 0.0, fn, ctx};
    v.cos_half = v.cone ? cos(0.5 * q->fov) : -2.0;
    st__grid_foreach(w, q->center, q->radius, visit_one, &v);
}

void st_world_set_brute_force(st_world *w, bool on) { w->brute_force = on; }

st_query st_default_query(st_vec2 center, double radius)
{
    st_query q;
    q.center = center;
    q.radius = radius;
    q.tag = ST_TAG_ANY;
    q.exclude = st_null_agent();
    q.fov = 0.0;
    q.heading = st_v2(1.0, 0.0);
    return q;
}

typedef struct collect_ctx {
    st_world *w;
    int n;
    bool oom;
} collect_ctx;

static void collect(void *ctx, uint32_t index, st_vec2 offset, double dist2)
{
    (void)offset;
    collect_ctx *c = ctx;
    st_world *w = c->w;
    if (c->n >= w->scratch_cap) {
        int cap = w->scratch_cap ? w->scratch_cap * 2 : 256;
        st_query_hit *s = realloc(w->scratch, (size_t)cap * sizeof *s);
        if (!s) {
            c->oom = true;
            return;
        }
        w->scratch = s;
        w->scratch_cap = cap;
    }
    w->scratch[c->n].dist2 = dist2;
    w->scratch[c->n].index = index;
    c->n++;
}

static int hit_cmp(const void *pa, const void *pb)
{
    const st_query_hit *a = pa, *b = pb;
    if (a->dist2 < b->dist2) return -1;
    if (a->dist2 > b->dist2) return 1;
    return (a->index > b->index) - (a->index < b->index);
}

static bool query_ok(const st_query *q)
{
    return q && st_v2_finite(q->center) && st_finite(q->radius) && q->radius >= 0.0 && !isnan(q->fov) &&
           st_v2_finite(q->heading);
}

int st_world_query(const st_world *cw, const st_query *q, st_agent_id *out, double *dist, int cap)
{
    // The grid and the scratch buffer are caches: refreshing them does not
    // change what the world is.
    st_world *w = (st_world *)cw;
    assert(query_ok(q));
    if (!query_ok(q)) return 0;
    st__grid_ensure(w);
    collect_ctx c = {w, 0, false};
    st__grid_visit(w, q, collect, &c);
    if (c.n > 1) qsort(w->scratch, (size_t)c.n, sizeof *w->scratch, hit_cmp);
    int m = c.n < cap ? c.n : cap;
    for (int k = 0; k < m; k++) {
        const st_agent *a = &w->agents[w->scratch[k].index];
        if (out) {
            out[k].index = a->slot;
            out[k].generation = w->slots[a->slot].generation;
        }
        if (dist) dist[k] = sqrt(w->scratch[k].dist2);
    }
    return c.n;
}

typedef struct nearest_ctx {
    double best;
    int64_t index;
} nearest_ctx;

static void nearest(void *ctx, uint32_t index, st_vec2 offset, double dist2)
{
    (void)offset;
    nearest_ctx *c = ctx;
    if (dist2 < c->best || (dist2 == c->best && (int64_t)index < c->index)) {
        c->best = dist2;
        c->index = index;
    }
}

st_agent_id st_world_nearest(const st_world *cw, const st_query *q, double *dist)
{
    st_world *w = (st_world *)cw;
    assert(query_ok(q));
    if (!query_ok(q)) return st_null_agent();
    st__grid_ensure(w);
    nearest_ctx c = {INFINITY, -1};
    st__grid_visit(w, q, nearest, &c);
    if (c.index < 0) return st_null_agent();
    const st_agent *a = &w->agents[c.index];
    if (dist) *dist = sqrt(c.best);
    st_agent_id id = {a->slot, w->slots[a->slot].generation};
    return id;
}
