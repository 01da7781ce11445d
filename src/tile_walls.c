/*
 * tile_walls.c — a tile map's blocked tiles as obstacles of the world, so
 * steering, avoidance, ORCA and contacts meet the walls the navgrid plans
 * around. Blocked tiles are merged into rectangles (a run of blocked tiles
 * in a row, grown down over the rows where the same run is blocked), each
 * a closed polygon: a few hundred obstacles for a map of a hundred
 * thousand tiles, rather than one a tile.
 *
 * st_tile_walls keeps the map and which rectangle holds each blocked tile,
 * so a tile that changes changes only the rectangles at it: a tile blocked
 * adds a rectangle of one tile; a tile freed takes out the rectangle that
 * held it and puts back the (up to four) rectangles of the rest. The walls
 * then cover exactly the blocked tiles of the changed map, as new walls
 * from it would (merged differently).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "world_internal.h"

/// Whether tiles [x0, x1] of row y are all blocked and not yet taken.
static bool run_free(const uint8_t *tiles, const uint8_t *taken, int cols, int y, int x0, int x1)
{
    for (int x = x0; x <= x1; x++)
        if (!tiles[(size_t)y * cols + x] || taken[(size_t)y * cols + x]) return false;
    return true;
}

int st_world_add_tiles(st_world *w, const uint8_t *tiles, int cols, int rows, double tile, int *first_id)
{
    *first_id = 0;
    if (!w || !tiles || cols < 1 || rows < 1 || !st_finite(tile) || !(tile > 0.0)) return -1;
    uint8_t *taken = st__calloc(&w->mem, (size_t)cols * rows, 1);
    if (!taken) return -1;
    int added = 0;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
            if (!tiles[(size_t)y * cols + x] || taken[(size_t)y * cols + x]) continue;
            int x1 = x;
            while (x1 + 1 < cols && tiles[(size_t)y * cols + x1 + 1] && !taken[(size_t)y * cols + x1 + 1]) x1++;
            int y1 = y;
            while (y1 + 1 < rows && run_free(tiles, taken, cols, y1 + 1, x, x1)) y1++;
            for (int j = y; j <= y1; j++) memset(taken + (size_t)j * cols + x, 1, (size_t)(x1 - x + 1));
            st_vec2 r[4] = {{x * tile, y * tile}, {(x1 + 1) * tile, y * tile},
                            {(x1 + 1) * tile, (y1 + 1) * tile}, {x * tile, (y1 + 1) * tile}};
            int id = st_world_add_polygon(w, r, 4, true);
            if (id == 0) {
                st__free(taken);
                return -1;
            }
            if (added++ == 0) *first_id = id;
        }
    st__free(taken);
    return added;
}

typedef struct tw_rect {
    int id;              // the obstacle; 0: a free slot
    int x0, y0, x1, y1;  // tiles, inclusive
} tw_rect;

struct st_tile_walls {
    st_world *w;
    int cols, rows;
    double tile;
    uint8_t *map;        // nonzero: blocked
    int32_t *owner;      // per tile: the rectangle holding it, -1 none
    tw_rect *rect;       // a free slot keeps the next free one in x0
    int nrect, cap, live, free_head;
};

/// Adds the rectangle of tiles [x0, x1] x [y0, y1] as an obstacle and
/// marks its tiles; false when memory ran out.
static bool tw_add(st_tile_walls *tw, int x0, int y0, int x1, int y1)
{
    int k = tw->free_head >= 0 ? tw->free_head : tw->nrect;
    if (k == tw->nrect && !st__grow(&tw->w->mem, (void **)&tw->rect, &tw->cap, tw->nrect + 1, sizeof *tw->rect))
        return false;
    double t = tw->tile;
    st_vec2 r[4] = {{x0 * t, y0 * t}, {(x1 + 1) * t, y0 * t}, {(x1 + 1) * t, (y1 + 1) * t}, {x0 * t, (y1 + 1) * t}};
    int id = st_world_add_polygon(tw->w, r, 4, true);
    if (id == 0) return false;
    if (k == tw->nrect) tw->nrect++;
    else tw->free_head = tw->rect[k].x0;
    tw->rect[k] = (tw_rect){id, x0, y0, x1, y1};
    tw->live++;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) tw->owner[(size_t)y * tw->cols + x] = k;
    return true;
}

st_tile_walls *st_tile_walls_create(st_world *w, const uint8_t *tiles, int cols, int rows, double tile)
{
    if (!w || !tiles || cols < 1 || rows < 1 || !st_finite(tile) || !(tile > 0.0)) return NULL;
    st_tile_walls *tw = st__calloc(&w->mem, 1, sizeof *tw);
    if (!tw) return NULL;
    size_t n = (size_t)cols * rows;
    *tw = (st_tile_walls){w, cols, rows, tile, st__alloc(&w->mem, n), st__alloc(&w->mem, n * sizeof(int32_t)), NULL,
                          0, 0, 0, -1};
    uint8_t *taken = st__calloc(&w->mem, n, 1);
    if (!tw->map || !tw->owner || !taken) goto fail;
    for (size_t i = 0; i < n; i++) {
        tw->map[i] = tiles[i] != 0;
        tw->owner[i] = -1;
    }
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
            if (!tiles[(size_t)y * cols + x] || taken[(size_t)y * cols + x]) continue;
            int x1 = x;
            while (x1 + 1 < cols && tiles[(size_t)y * cols + x1 + 1] && !taken[(size_t)y * cols + x1 + 1]) x1++;
            int y1 = y;
            while (y1 + 1 < rows && run_free(tiles, taken, cols, y1 + 1, x, x1)) y1++;
            for (int j = y; j <= y1; j++) memset(taken + (size_t)j * cols + x, 1, (size_t)(x1 - x + 1));
            if (!tw_add(tw, x, y, x1, y1)) goto fail;
        }
    st__free(taken);
    return tw;
fail:
    st__free(taken);
    for (int k = 0; k < tw->nrect; k++)
        if (tw->rect[k].id) st_world_remove_obstacle(w, tw->rect[k].id);
    st_tile_walls_destroy(tw);
    return NULL;
}

void st_tile_walls_destroy(st_tile_walls *tw)
{
    if (!tw) return;
    st__free(tw->map);
    st__free(tw->owner);
    st__free(tw->rect);
    st__free(tw);
}

int st_tile_walls_count(const st_tile_walls *tw) { return tw->live; }

int st_tile_walls_id(const st_tile_walls *tw, int i)
{
    if (tw->free_head < 0) return i >= 0 && i < tw->nrect ? tw->rect[i].id : 0; // no holes: at once
    for (int k = 0; k < tw->nrect; k++)
        if (tw->rect[k].id && i-- == 0) return tw->rect[k].id;
    return 0;
}

bool st_tile_walls_set(st_tile_walls *tw, int x, int y, bool blocked)
{
    if (!tw || x < 0 || y < 0 || x >= tw->cols || y >= tw->rows) return false;
    size_t c = (size_t)y * tw->cols + x;
    if ((tw->map[c] != 0) == blocked) return true;
    if (blocked) {
        if (!tw_add(tw, x, y, x, y)) return false;
        tw->map[c] = 1;
        return true;
    }
    tw_rect r = tw->rect[tw->owner[c]];
    st_world_remove_obstacle(tw->w, r.id);
    tw->rect[tw->owner[c]] = (tw_rect){0, tw->free_head, 0, 0, 0};
    tw->free_head = tw->owner[c];
    tw->live--;
    for (int j = r.y0; j <= r.y1; j++)
        for (int i = r.x0; i <= r.x1; i++) tw->owner[(size_t)j * tw->cols + i] = -1;
    tw->map[c] = 0;
    // The rest of r: the rows above and below whole, the row's two sides.
    bool ok = (y == r.y0 || tw_add(tw, r.x0, r.y0, r.x1, y - 1)) && (y == r.y1 || tw_add(tw, r.x0, y + 1, r.x1, r.y1)) &&
              (x == r.x0 || tw_add(tw, r.x0, y, x - 1, y)) && (x == r.x1 || tw_add(tw, x + 1, y, r.x1, y));
    return ok;
}
