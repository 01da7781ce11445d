/*
 * test_nav_jump.c — the jump point search's straight runs read the map 64
 * tiles at a time (bit rows and columns); the readable definition reads
 * one tile at a time. Both, from thousands of tiles in every direction, for
 * point agents and two radii, on a cave map and a random one: they agree.
 */
#include "../../tools/movingai.h"
#include "nav_internal.h"
#include "test_util.h"

static void agree_on(const mai_map *m, uint64_t seed)
{
    nav_tiles *t = nav__tiles_create(NULL, m->w, m->h, m->blocked);
    nav_query *q = t ? nav__query_create(NULL, t->cells) : NULL;
    if (!CHECK(t && q, "set-up")) return;
    int tried = 0, bad = 0, jumps = 0;
    for (int need = 1; need <= 24; need += 11)
        for (int it = 0; it < 1500; it++) {
            int sx = (int)(mai_next(&seed) % (uint64_t)m->w), sy = (int)(mai_next(&seed) % (uint64_t)m->h);
            int gx = (int)(mai_next(&seed) % (uint64_t)m->w), gy = (int)(mai_next(&seed) % (uint64_t)m->h);
            if (it % 4 == 0) gx = sx; // goals on the same column or row too
            if (it % 4 == 1) gy = sy;
            nav__search_begin(q, t, nav__tile_index(t, sx, sy), nav__tile_index(t, gx, gy), need);
            int dirs[4] = {1, -1, t->stride, -t->stride};
            for (int k = 0; k < 4; k++) {
                int r = nav__jump_check(q, t, nav__tile_index(t, sx, sy), dirs[k]);
                tried++;
                jumps += r >= 0;
                if (r == -2) bad++;
            }
        }
    printf("  %dx%d: %d runs, %d end at a jump point, %d disagree\n", m->w, m->h, tried, jumps, bad);
    CHECK(bad == 0, "%d of %d runs disagree", bad, tried);
    CHECK(jumps > tried / 10, "the runs find jump points (%d)", jumps);
    nav__query_destroy(q);
    nav__tiles_destroy(t);
}

static void test_runs_agree(void)
{
    mai_map a = mai_caves(300, 200, 29), b = mai_random(130, 190, 20, 4);
    agree_on(&a, 5);
    agree_on(&b, 6);
    mai_free(&a);
    mai_free(&b);
}

int main(void)
{
    RUN(test_runs_agree);
    return tu_summary();
}
