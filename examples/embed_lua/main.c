/*
 * embed_lua — a host with its own loop and its own lua_State: it opens the
 * standard libraries and steer (luaL_requiref with luaopen_steer, from the
 * installed bindings library), runs a brain script, and steps the world
 * itself, reading the agents back from C between steps.
 *
 *   embed_lua brain.lua
 */
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <steer.h>
#include <steer_lua.h>

static int fail(lua_State *L)
{
    fprintf(stderr, "embed_lua: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return 1;
}

int main(int argc, char **argv)
{
    const char *script = argc > 1 ? argv[1] : "brain.lua";
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);

    /* The script returns the world it made (agents with brains). */
    if (luaL_loadfile(L, script) != LUA_OK || steer_lua_pcall(L, 0, 1) != LUA_OK)
        return fail(L);
    int world = lua_gettop(L);
    st_world *w = steer_lua_checkworld(L, world);

    /* The host's loop: world:step runs the brains, then C reads the core. */
    for (int frame = 0; frame < 300; frame++) {
        lua_getfield(L, world, "step");
        lua_pushvalue(L, world);
        if (steer_lua_pcall(L, 1, 0) != LUA_OK)
            return fail(L);
        if (frame % 100 == 99) {
            int n = 0;
            double cx = 0, cy = 0;
            for (st_agent_id id = st_world_next(w, st_null_agent(), ST_TAG_ANY); !st_id_is_null(id);
                 id = st_world_next(w, id, ST_TAG_ANY)) {
                st_vec2 p = st_agent_pos(w, id);
                cx += p.x, cy += p.y, n++;
            }
            printf("frame %d: %d agents, centre (%.1f, %.1f)\n", frame + 1, n, cx / n, cy / n);
        }
    }
    lua_getfield(L, world, "checksum");
    lua_pushvalue(L, world);
    if (steer_lua_pcall(L, 1, 1) != LUA_OK)
        return fail(L);
    printf("checksum=%s\n", lua_tostring(L, -1));
    lua_close(L);
    return 0;
}
