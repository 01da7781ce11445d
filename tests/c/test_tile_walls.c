/*
 * test_tile_walls.c — st_tile_walls: the walls of a tile map that follow
 * st_tile_walls_set. Read back from the world's obstacles (not the walls'
 * own records): after every change the rectangles cover exactly the
 * blocked tiles of the changed map, once each (the coverage
 * st_world_add_tiles gives for that map), and a change replaces only the
 * rectangles at its tile.
 */
#include <string.h>

#include "../../tools/movingai.h"
#include "test_util.h"

#define TILE 3.0

/// How many of the world's polygon obstacles cover each tile's centre
/// (their bounding boxes: they are axis-aligned rectangles of whole tiles).
static void coverage(const st_world *w, int cols, int rows, int *cover)
{
    memset(cover, 0, (size_t)cols * rows * sizeof *cover);
    for (int i = 0; i < st_world_obstacle_count(w); i++) {
        st_obstacle_info o;
        st_world_obstacle_get(w, i, &o);
        if (o.kind == ST_OBSTACLE_CIRCLE || o.point_count != 4) continue;
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int k = 0; k < 4; k++) {
            st_vec2 p = st_v2_add(o.pos, o.points[k]);
            x0 = fmin(x0, p.x), y0 = fmin(y0, p.y), x1 = fmax(x1, p.x), y1 = fmax(y1, p.y);
        }
        for (int y = (int)floor(y0 / TILE + 0.5); y < (int)floor(y1 / TILE + 0.5); y++)
            for (int x = (int)floor(x0 / TILE + 0.5); x < (int)floor(x1 / TILE + 0.5); x++)
                if (x >= 0 && y >= 0 && x < cols && y < rows) cover[y * cols + x]++;
    }
}

static int covered_wrong(const st_world *w, const mai_map *m, int *cover)
{
    coverage(w, m->w, m->h, cover);
    int bad = 0;
    for (int i = 0; i < m->w * m->h; i++) bad += cover[i] != (m->blocked[i] ? 1 : 0);
    return bad;
}

static st_world *world_for(const mai_map *m)
{
    st_world_def d = st_default_world_def();
    d.width = m->w * TILE;
    d.height = m->h * TILE;
    return st_world_create(&d);
}

static void test_walls_follow_set(void)
{
    mai_map m = mai_rooms(64, 48, 7, 3);
    int *cover = malloc((size_t)m.w * m.h * sizeof *cover);
    st_world *w = world_for(&m);
    st_tile_walls *tw = st_tile_walls_create(w, m.blocked, m.w, m.h, TILE);
    if (!CHECK(tw != NULL, "created")) return;
    CHECK(covered_wrong(w, &m, cover) == 0, "the map as built");
    CHECK(st_tile_walls_count(tw) == st_world_obstacle_count(w) && st_tile_walls_count(tw) < m.w * m.h / 8,
          "%d rectangles", st_tile_walls_count(tw));
    // The same coverage as add_tiles on the map.
    st_world *w2 = world_for(&m);
    int first;
    CHECK(st_world_add_tiles(w2, m.blocked, m.w, m.h, TILE, &first) == st_tile_walls_count(tw), "same merge");
    st_world_destroy(w2);
    uint64_t seed = 9;
    int worst_change = 0;
    for (int k = 0; k < 400; k++) {
        int x = (int)(mai_next(&seed) % (uint64_t)m.w), y = (int)(mai_next(&seed) % (uint64_t)m.h);
        bool blocked = mai_next(&seed) % 2;
        int before = st_world_obstacle_count(w);
        CHECK(st_tile_walls_set(tw, x, y, blocked), "set %d %d", x, y);
        m.blocked[y * m.w + x] = blocked;
        int change = st_world_obstacle_count(w) - before;
        worst_change = change > worst_change ? change : worst_change;
        if (k % 20 == 0 || k == 399) CHECK(covered_wrong(w, &m, cover) == 0, "after change %d", k);
    }
    CHECK(worst_change <= 3, "one change adds at most 3 obstacles net (%d)", worst_change);
    // A rebuild of the changed map covers the same tiles.
    w2 = world_for(&m);
    CHECK(st_world_add_tiles(w2, m.blocked, m.w, m.h, TILE, &first) >= 0, "rebuild");
    CHECK(covered_wrong(w2, &m, cover) == 0, "the rebuild's coverage");
    st_world_destroy(w2);
    CHECK(!st_tile_walls_set(tw, -1, 0, true) && !st_tile_walls_set(tw, 0, m.h, true), "outside");
    CHECK(st_tile_walls_create(w, m.blocked, 0, 5, TILE) == NULL && st_tile_walls_create(w, m.blocked, 5, 5, NAN) == NULL,
          "bad arguments");
    st_tile_walls_destroy(tw);
    CHECK(st_world_obstacle_count(w) > 0, "the obstacles stay the world's");
    st_world_destroy(w);
    free(cover);
    mai_free(&m);
}

int main(void)
{
    RUN(test_walls_follow_set);
    return tu_summary();
}
