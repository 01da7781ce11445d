/*
 * slots.c — each world's agent userdata by handle slot (slots.h): kept
 * beside the agents table by world:spawn, world:remove and world:restore.
 */
#include <stdlib.h>
#include <string.h>

#include "slots.h"

/* Room for slot i; false when out of memory (nothing known is lost). */
static bool slots_reserve(sl_world *sw, uint32_t i)
{
    if (i < sw->slots_cap)
        return true;
    if (i >= (1u << 30))
        return false;
    uint32_t cap = sw->slots_cap > 0 ? sw->slots_cap : 64;
    while (cap <= i)
        cap *= 2;
    uint32_t *gen1 = (uint32_t *)realloc(sw->slot_gen1, (size_t)cap * sizeof *gen1);
    if (gen1 == NULL)
        return false;
    sw->slot_gen1 = gen1;
    sl_agent **ud = (sl_agent **)realloc(sw->slot_ud, (size_t)cap * sizeof *ud);
    if (ud == NULL)
        return false; /* gen1 grew alone: slots_cap stays, so nothing reads past ud */
    sw->slot_ud = ud;
    memset(gen1 + sw->slots_cap, 0, (size_t)(cap - sw->slots_cap) * sizeof *gen1);
    memset(ud + sw->slots_cap, 0, (size_t)(cap - sw->slots_cap) * sizeof *ud);
    sw->slots_cap = cap;
    return true;
}

void sl_slots_set(sl_world *sw, sl_agent *a)
{
    /* out of memory: the slot keeps reading 0 ("not known"), which only
     * costs the callers their check */
    if (a->removed)
        return;
    if (!slots_reserve(sw, a->id.index)) {
        sw->slots_lost = true;
        return;
    }
    sw->slot_gen1[a->id.index] = a->id.generation + 1u;
    sw->slot_ud[a->id.index] = a;
}

void sl_slots_clear(sl_world *sw, st_agent_id id)
{
    if (id.index < sw->slots_cap) {
        sw->slot_gen1[id.index] = 0;
        sw->slot_ud[id.index] = NULL;
    }
}

void sl_slots_rebuild(lua_State *L, sl_world *sw, int agents_idx)
{
    agents_idx = lua_absindex(L, agents_idx);
    if (sw->slots_cap > 0) {
        memset(sw->slot_gen1, 0, (size_t)sw->slots_cap * sizeof *sw->slot_gen1);
        memset(sw->slot_ud, 0, (size_t)sw->slots_cap * sizeof *sw->slot_ud);
    }
    sw->slots_lost = false;
    lua_pushnil(L);
    while (lua_next(L, agents_idx)) {
        sl_agent *a = sl_agent_at(L, -1);
        if (a != NULL && a->sw == sw && lua_type(L, -2) == LUA_TNUMBER
            && lua_tonumber(L, -2) == (lua_Number)a->id.index + 1)
            sl_slots_set(sw, a);
        lua_pop(L, 1);
    }
}

void sl_slots_free(sl_world *sw)
{
    free(sw->slot_gen1);
    free(sw->slot_ud);
    sw->slot_gen1 = NULL;
    sw->slot_ud = NULL;
    sw->slots_cap = 0;
}
