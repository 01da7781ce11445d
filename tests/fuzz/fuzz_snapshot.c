/*
 * fuzz_snapshot.c — libFuzzer target over the snapshot loader
 * (st_snapshot_decode, src/snapshot_io.c).
 *
 * Input: one mode byte, then the bytes to load. Mode bit 0 clear: the
 * header's payload length and checksum are recomputed first ("resealed"),
 * so mutations reach the payload parser instead of stopping at the
 * checksum; set: the bytes are loaded as they are. A load must either fail
 * with a message or give a snapshot that restores into a world, shows the
 * snapshot's checksum, steps (positions and velocities stay finite) and
 * encodes to bytes that load again. The same bytes then go through the Lua
 * side (steer.decode_snapshot, which also parses the brains' state the
 * core carries as opaque bytes, and world:restore): a Lua error is fine, a
 * crash is not.
 *
 *   (built by tests/extra.cmake when the compiler is clang)
 *   ./fuzz_snapshot -max_total_time=60 tests/fuzz/corpus_snapshot
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "steer.h"
#include "steer_lua.h"

static const char *lua_side =
    "local steer = require 'steer'\n"
    "local bytes = ...\n"
    "local snap, err = steer.decode_snapshot(bytes)\n"
    "if not snap then assert(type(err) == 'string') return end\n"
    "local w = steer.world{}\n"
    "w:spawn{ pos = { 1, 1 } }\n"
    "w:restore(snap)\n"
    "assert(w:checksum() == snap.checksum)\n"
    "for a in w:agents() do local _ = a.self, a.behaviors end\n"
    "w:step()\n"
    "w:restore(snap)\n";

/// The bytes through the Lua bindings; errors raised in Lua are expected.
static void through_lua(const unsigned char *b, size_t n)
{
    lua_State *L = luaL_newstate();
    if (!L) return;
    luaL_openlibs(L);
    luaL_requiref(L, "steer", luaopen_steer, 0);
    lua_pop(L, 1);
    if (luaL_loadstring(L, lua_side) == LUA_OK) {
        lua_pushlstring(L, (const char *)b, n);
        (void)lua_pcall(L, 1, 0, 0);
    }
    lua_close(L);
}

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_snapshot: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int mode = data[0];
    size_t n = size - 1;
    unsigned char *b = malloc(n ? n : 1);
    if (!b) return 0;
    memcpy(b, data + 1, n);
    if (!(mode & 1) && n >= ST_SNAPSHOT_HEADER) {
        uint64_t payload = n - ST_SNAPSHOT_HEADER, sum = st_snapshot_hash(b + ST_SNAPSHOT_HEADER, (size_t)payload);
        memcpy(b + 24, &payload, 8);
        memcpy(b + 32, &sum, 8);
    }
    char err[256];
    err[0] = 0;
    st_snapshot *s = st_snapshot_decode(b, n, err, sizeof err);
    if (!s) {
        require(err[0] != 0, "a refused load gave no message");
        free(b);
        return 0;
    }
    through_lua(b, n);
    st_world_def wd = st_default_world_def();
    st_world *w = st_world_create(&wd);
    require(w != NULL, "no world");
    require(st_world_restore(w, s), "restore of a loaded snapshot failed");
    require(st_world_checksum(w) == st_snapshot_checksum(s), "restored checksum differs");
    for (int k = 0; k < 3; k++) {
        st_world_step(w, st_world_dt(w));
        for (int i = 0; i < st_world_stored_count(w); i++) {
            st_agent_id id = st_world_stored(w, i);
            if (st_id_is_null(id)) continue;
            st_vec2 p = st_agent_pos(w, id), v = st_agent_vel(w, id);
            require(isfinite(p.x) && isfinite(p.y) && isfinite(v.x) && isfinite(v.y), "a loaded world went non-finite");
        }
    }
    size_t size2 = 0;
    void *again = st_snapshot_encode(s, &size2);
    require(again != NULL, "encode failed");
    st_snapshot *s2 = st_snapshot_decode(again, size2, err, sizeof err);
    if (!s2) fprintf(stderr, "fuzz_snapshot: re-encoded snapshot refused: %s\n", err);
    require(s2 != NULL, "a snapshot's own encoding does not load");
    st_snapshot_destroy(s2);
    free(again);
    st_world_destroy(w);
    st_snapshot_destroy(s);
    free(b);
    return 0;
}
