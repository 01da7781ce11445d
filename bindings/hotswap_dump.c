/*
 * hotswap_dump.c — whether two functions have the same code, by their
 * stripped dumps.
 *
 * On Lua 5.4 the dump is read by hand (the format of ldump.c) to leave out
 * the two line numbers a stripped dump keeps per function, so code moved up
 * or down by an edit elsewhere compares equal. That reader is compiled for
 * 5.4 only and runs only on a dump whose header says 5.4's format; any
 * other dump (Lua 5.3, LuaJIT, whose stripped dumps keep no line numbers,
 * or a header it does not know) is compared as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "hotswap.h"

#ifndef SL_NO_HOTSWAP

typedef struct dump_buf {
    char *p;
    size_t n, cap;
    bool failed;
} dump_buf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    dump_buf *b = (dump_buf *)ud;
    if (b->n + sz > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + sz)
            cap *= 2;
        char *q = (char *)realloc(b->p, cap);
        if (q == NULL) {
            b->failed = true;
            return 1;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, sz);
    b->n += sz;
    return 0;
}

#if LUA_VERSION_NUM == 504

/* A stripped dump without the line numbers it keeps (each function's
 * linedefined and lastlinedefined). Follows ldump.c of Lua 5.4; returns
 * false (the dump left as it was) on anything it does not expect. */
typedef struct dump_rd {
    const unsigned char *p, *end;
    unsigned char *out;
    size_t n;
    size_t isize, nsize; /* sizeof(Instruction), sizeof(lua_Number) and lua_Integer */
} dump_rd;

static bool rd_copy(dump_rd *r, size_t k, bool keep)
{
    if ((size_t)(r->end - r->p) < k)
        return false;
    if (keep)
        memcpy(r->out + r->n, r->p, k), r->n += k;
    r->p += k;
    return true;
}

static bool rd_size(dump_rd *r, size_t *x, bool keep)
{
    const unsigned char *start = r->p;
    size_t v = 0;
    for (;;) {
        if (r->p == r->end || r->p - start > 9)
            return false;
        unsigned char b = *r->p++;
        v = (v << 7) | (b & 0x7f);
        if (b & 0x80)
            break;
    }
    if (keep)
        memcpy(r->out + r->n, start, (size_t)(r->p - start)), r->n += (size_t)(r->p - start);
    *x = v;
    return true;
}

/* The constants of one function. */
static bool rd_constants(dump_rd *r)
{
    size_t n, k;
    if (!rd_size(r, &n, true))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (r->p == r->end)
            return false;
        unsigned char tt = *r->p;
        if (!rd_copy(r, 1, true))
            return false;
        if (tt == 0x13 || tt == 0x03) { /* float, integer */
            if (!rd_copy(r, r->nsize, true))
                return false;
        } else if (tt == 0x04 || tt == 0x14) { /* short, long string */
            if (!rd_size(r, &k, true) || (k > 0 && !rd_copy(r, k - 1, true)))
                return false;
        } else if (tt != 0x00 && tt != 0x01 && tt != 0x11) { /* nil, false, true */
            return false;
        }
    }
    return true;
}

static bool rd_function(dump_rd *r, int depth)
{
    size_t n, k;
    if (depth > 200 || !rd_size(r, &n, true) || (n > 0 && !rd_copy(r, n - 1, true))) /* source */
        return false;
    if (!rd_size(r, &k, false) || !rd_size(r, &k, false)) /* the two line numbers, dropped */
        return false;
    if (!rd_copy(r, 3, true) || !rd_size(r, &n, true) || n > (size_t)(r->end - r->p) / r->isize
        || !rd_copy(r, n * r->isize, true)) /* parameters, stack size; code */
        return false;
    if (!rd_constants(r))
        return false;
    if (!rd_size(r, &n, true) || n > (size_t)(r->end - r->p) / 3 || !rd_copy(r, n * 3, true)) /* upvalues */
        return false;
    if (!rd_size(r, &n, true)) /* nested functions */
        return false;
    for (size_t i = 0; i < n; i++)
        if (!rd_function(r, depth + 1))
            return false;
    for (int i = 0; i < 4; i++) /* debug information: empty when stripped */
        if (!rd_size(r, &n, true) || n != 0)
            return false;
    return true;
}

/* Whether the dump's header is 5.4's: signature, version 5.4, the official
 * format, LUAC_DATA. */
static bool is_54_dump(const unsigned char *h, size_t n)
{
    static const unsigned char head[12] = {0x1b, 'L', 'u', 'a', 0x54, 0x00, 0x19, 0x93, '\r', '\n', 0x1a, '\n'};
    return n >= 15 && memcmp(h, head, sizeof head) == 0;
}

static void drop_lines(dump_buf *b)
{
    /* header: signature 4, version, format, LUAC_DATA 6, three sizes,
     * LUAC_INT, LUAC_NUM; then the main function's upvalue count */
    const unsigned char *h = (const unsigned char *)b->p;
    if (b->failed || !is_54_dump(h, b->n))
        return;
    size_t isize = h[12], intsize = h[13], numsize = h[14];
    size_t head = 15 + intsize + numsize + 1;
    if (isize == 0 || intsize != numsize || b->n < head)
        return;
    unsigned char *out = (unsigned char *)malloc(b->n);
    if (out == NULL)
        return;
    dump_rd r = {h + head, h + b->n, out, head, isize, numsize};
    memcpy(out, h, head);
    if (rd_function(&r, 0) && r.p == r.end) {
        free(b->p);
        b->p = (char *)out;
        b->n = r.n;
    } else {
        free(out);
    }
}

#else
/* Other Luas: the stripped dump as it is. */
static void drop_lines(dump_buf *b)
{
    (void)b;
}
#endif

bool hs_same_code(lua_State *L, int a, int b)
{
    dump_buf da = {0}, db = {0};
    lua_pushvalue(L, a);
    lua_dump(L, dump_writer, &da, 1);
    lua_pop(L, 1);
    lua_pushvalue(L, b);
    lua_dump(L, dump_writer, &db, 1);
    lua_pop(L, 1);
    drop_lines(&da);
    drop_lines(&db);
    bool same = !da.failed && !db.failed && da.n == db.n && (da.n == 0 || memcmp(da.p, db.p, da.n) == 0);
    free(da.p);
    free(db.p);
    return same;
}

#endif /* SL_NO_HOTSWAP */
