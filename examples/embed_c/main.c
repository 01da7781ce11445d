/*
 * embed_c — a C program that drives a steer world with no Lua at all: a
 * world, a hunter that pursues, prey that wander and evade it, standing
 * behaviours only, 600 fixed steps, then the positions and the checksum.
 *
 *   cmake -S examples/embed_c -B build-embed -DCMAKE_PREFIX_PATH=<prefix>
 *   cc main.c $(pkg-config --cflags --libs steer) -o embed_c
 */
#include <inttypes.h>
#include <stdio.h>

#include <steer.h>

int main(void)
{
    st_world_def wd = st_default_world_def();
    wd.width = 960;
    wd.height = 640;
    wd.seed = 42;
    st_world *w = st_world_create(&wd);
    if (w == NULL) {
        fprintf(stderr, "embed_c: cannot create the world\n");
        return 1;
    }

    st_agent_def hd = st_default_agent_def();
    hd.pos = st_v2(480, 320);
    hd.max_speed = 160;
    st_agent_id hunter = st_world_spawn(w, &hd);
    st_behavior wander = st_default_behavior(ST_WANDER);
    st_behavior chase[2] = {wander, st_default_behavior(ST_PURSUE)};

    enum { PREY = 8 };
    st_agent_id prey[PREY];
    for (int i = 0; i < PREY; i++) {
        st_agent_def pd = st_default_agent_def();
        pd.pos = st_v2(100 + 100 * i, 100 + 50 * (i % 3));
        pd.max_speed = 150;
        prey[i] = st_world_spawn(w, &pd);
        st_behavior flee[2] = {wander, st_default_behavior(ST_EVADE)};
        flee[1].target = st_target_agent(hunter);
        flee[1].radius = 150;
        flee[1].weight = 2;
        st_agent_set_behaviors(w, prey[i], flee, 2);
    }
    chase[1].target = st_target_agent(prey[0]);
    chase[0].weight = 0.3;
    st_agent_set_behaviors(w, hunter, chase, 2);

    for (int t = 0; t < 600; t++)
        st_world_step(w, 1.0 / 60.0);

    st_vec2 p = st_agent_pos(w, hunter);
    printf("hunter  at (%7.2f, %7.2f)\n", p.x, p.y);
    for (int i = 0; i < PREY; i++) {
        p = st_agent_pos(w, prey[i]);
        printf("prey %d  at (%7.2f, %7.2f)\n", i, p.x, p.y);
    }
    printf("agents=%d checksum=%016" PRIx64 "\n", st_world_count(w, ST_TAG_ANY), st_world_checksum(w));
    st_world_destroy(w);
    return 0;
}
