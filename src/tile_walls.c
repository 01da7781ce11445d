/*
 * tile_walls.c — a tile map's blocked tiles as obstacles of the world, so
 * steering, avoidance, ORCA and contacts meet the walls the navgrid plans
 * around. Blocked tiles are merged into rectangles (a run of blocked tiles
 * in a row, grown down over the rows where the same run is blocked), each
 * a closed polygon: a few hundred obstacles for a map of a hundred
 * thousand tiles, rather than one a tile.
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
