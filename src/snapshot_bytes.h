/*
 * snapshot_bytes.h — the byte writer and reader the snapshot sections are
 * written with (snapshot_io.c, snapshot_records.c), and the sections of
 * snapshot_records.c. See snapshot_io.c for the layout.
 */
#ifndef STEER_SNAPSHOT_BYTES_H
#define STEER_SNAPSHOT_BYTES_H

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "snapshot_internal.h"

/* ------------------------------------------------------------------------ */
/* writing and reading, one value at a time                                 */
/* ------------------------------------------------------------------------ */

typedef struct writer {
    unsigned char *p;
    size_t len, cap;
    bool fail;
    bool count; // only count the bytes (the sizing pass)
} writer;

static inline void *w_room(writer *o, size_t n)
{
    if (o->count) {
        o->len += n;
        return NULL;
    }
    if (o->fail) return NULL;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n) cap *= 2;
        unsigned char *q = realloc(o->p, cap);
        if (!q) {
            o->fail = true;
            return NULL;
        }
        o->p = q;
        o->cap = cap;
    }
    void *at = o->p + o->len;
    o->len += n;
    return at;
}

static inline void w_bytes(writer *o, const void *src, size_t n)
{
    if (o->count) {
        o->len += n;
        return;
    }
    void *at = w_room(o, n);
    if (at && n) memcpy(at, src, n);
}

static inline void w_u8(writer *o, uint8_t v) { w_bytes(o, &v, 1); }
static inline void w_u32(writer *o, uint32_t v) { w_bytes(o, &v, 4); }
static inline void w_i32(writer *o, int32_t v) { w_bytes(o, &v, 4); }
static inline void w_u64(writer *o, uint64_t v) { w_bytes(o, &v, 8); }
static inline void w_f64(writer *o, double v) { w_bytes(o, &v, 8); }
static inline void w_vec(writer *o, st_vec2 v)
{
    w_f64(o, v.x);
    w_f64(o, v.y);
}

typedef struct reader {
    const st_mem *mem; // what the snapshot's blocks count against
    const unsigned char *p, *end;
    const char *bad; // the first problem found (NULL: none)
    bool has_order;  // the world scalars said a spawn-order index follows
} reader;

static inline bool r_take(reader *r, void *dst, size_t n)
{
    if (r->bad) return false;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = "payload ends early";
        return false;
    }
    if (n) memcpy(dst, r->p, n);
    r->p += n;
    return true;
}

/// Room for n records of elem bytes in what is left (no overflow).
static inline bool r_fits(reader *r, uint64_t n, size_t elem)
{
    if (r->bad) return false;
    if (elem && n > (uint64_t)(r->end - r->p) / elem) {
        r->bad = "a count exceeds the bytes left";
        return false;
    }
    return true;
}

// One reader per width: a short payload leaves the value zero (and r->bad set).
#define READ_AS(name, type)                                                                                            \
    static inline type name(reader *r)                                                                                        \
    {                                                                                                                  \
        type v = 0;                                                                                                    \
        r_take(r, &v, sizeof v);                                                                                       \
        return v;                                                                                                      \
    }
READ_AS(r_u8, uint8_t)
READ_AS(r_u32, uint32_t)
READ_AS(r_i32, int32_t)
READ_AS(r_u64, uint64_t)
READ_AS(r_f64, double)
#undef READ_AS

static inline st_vec2 r_vec(reader *r)
{
    st_vec2 v;
    v.x = r_f64(r);
    v.y = r_f64(r);
    return v;
}

static inline void r_check(reader *r, bool ok, const char *what)
{
    if (!ok && !r->bad) r->bad = what;
}

/// malloc of n elements (at least one, so that n == 0 is not a failure).
static inline void *alloc_n(reader *r, size_t n, size_t elem) { return st__alloc(r->mem, (n > 0 ? n : 1) * elem); }

static inline bool pos_finite(double v) { return st_finite(v) && v > 0.0; }
static inline bool nonneg_finite(double v) { return st_finite(v) && v >= 0.0; }

/* ------------------------------------------------------------------------ */
/* the sections snapshot_records.c writes and reads                         */
/* ------------------------------------------------------------------------ */

void snap__write_avoid_defs(writer *o, const st_snapshot *s);
void snap__read_avoid_defs(reader *r, st_snapshot *s);
void snap__write_orients(writer *o, const st_snapshot *s);
void snap__read_orients(reader *r, st_snapshot *s);
void snap__write_obstacles(writer *o, const st_snapshot *s);
void snap__read_obstacles(reader *r, st_snapshot *s);
void snap__write_walls(writer *o, const st_snapshot *s);
void snap__read_walls(reader *r, st_snapshot *s);

#endif
