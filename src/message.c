/*
 * message.c — the queue of messages between agents (gdx-ai's
 * MessageDispatcher, Buckland's telegrams): when and to whom, never what.
 *
 * Entries sit in one array sorted by (tick, seq), the delivery order: a
 * send appends in the common case (a later or equal tick than the last
 * entry) and otherwise is placed by binary search. Delivery takes the
 * front; a head offset makes that O(1) and the array is compacted when the
 * head passes half of it. The host (the Lua bindings) keeps each message's
 * contents under its seq; seqs grow from 1 and are never reused, so a
 * restored queue (st_msgq_reset then st_msgq_put) names the same contents.
 */
#include <string.h>

#include "alloc.h"

struct st_msgq {
    st_message *items;
    int head, end, cap;   /* live entries: items[head .. end) */
    uint64_t next_seq;
};

st_msgq *st_msgq_create(void)
{
    st_msgq *q = (st_msgq *)st__calloc(NULL, 1, sizeof *q);
    if (q != NULL)
        q->next_seq = 1;
    return q;
}

void st_msgq_destroy(st_msgq *q)
{
    if (q == NULL)
        return;
    st__free(q->items);
    st__free(q);
}

/// Whether a goes before b in delivery order.
static bool before(st_message a, st_message b)
{
    return a.tick < b.tick || (a.tick == b.tick && a.seq < b.seq);
}

/// Room for one more entry at the end: compacts, else doubles.
static bool room(st_msgq *q)
{
    if (q->end < q->cap)
        return true;
    if (q->head > 0) {
        memmove(q->items, q->items + q->head, (size_t)(q->end - q->head) * sizeof *q->items);
        q->end -= q->head;
        q->head = 0;
        return true;
    }
    int cap = q->cap ? q->cap * 2 : 64;
    st_message *p = (st_message *)st__realloc(NULL, q->items, (size_t)cap * sizeof *p);
    if (p == NULL)
        return false;
    q->items = p;
    q->cap = cap;
    return true;
}

/// Inserts m at its place in delivery order.
static bool insert(st_msgq *q, st_message m)
{
    if (!room(q))
        return false;
    int lo = q->head, hi = q->end;
    if (lo < hi && before(m, q->items[hi - 1])) {
        while (lo < hi) { /* the first entry m goes before */
            int mid = lo + (hi - lo) / 2;
            if (before(m, q->items[mid])) hi = mid;
            else lo = mid + 1;
        }
    } else {
        lo = hi;
    }
    memmove(q->items + lo + 1, q->items + lo, (size_t)(q->end - lo) * sizeof *q->items);
    q->items[lo] = m;
    q->end++;
    return true;
}

uint64_t st_msgq_push(st_msgq *q, uint64_t tick, st_agent_id to)
{
    st_message m;
    m.tick = tick;
    m.seq = q->next_seq;
    m.to = to;
    if (!insert(q, m))
        return 0;
    q->next_seq++;
    return m.seq;
}

int st_msgq_count(const st_msgq *q) { return q->end - q->head; }

st_message st_msgq_at(const st_msgq *q, int i) { return q->items[q->head + i]; }

void st_msgq_pop(st_msgq *q, int n)
{
    if (n > q->end - q->head)
        n = q->end - q->head;
    q->head += n > 0 ? n : 0;
    if (q->head == q->end)
        q->head = q->end = 0;
}

int st_msgq_due(const st_msgq *q, uint64_t tick)
{
    int n = 0;
    while (q->head + n < q->end && q->items[q->head + n].tick <= tick)
        n++;
    return n;
}

uint64_t st_msgq_next_seq(const st_msgq *q) { return q->next_seq; }

void st_msgq_reset(st_msgq *q, uint64_t next_seq)
{
    q->head = q->end = 0;
    q->next_seq = next_seq >= 1 ? next_seq : 1;
}

bool st_msgq_put(st_msgq *q, st_message m)
{
    if (m.seq == 0 || m.seq >= q->next_seq)
        return false;
    return insert(q, m);
}
