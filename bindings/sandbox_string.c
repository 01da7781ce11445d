/*
 * sandbox_string.c — string and table functions whose work in C counts
 * against the instruction budget. See steer_host.h.
 *
 * Lua's own string.find/match/gmatch/gsub match in C: a backtracking
 * pattern such as ".-.-.-.-.-b" over a long subject runs for hours without
 * executing one VM instruction, so no count hook ever sees it. These
 * replacements implement the pattern language of the Lua 5.4 manual
 * (§6.4.1) with a matcher written for steer that counts its steps and
 * charges them to the running callback (steer_lua_charge), which raises
 * "instruction budget exceeded (in string.find)" when the budget, or the
 * wall-time limit, runs out. For every input that stays within budget the
 * results, and the error messages, are those of the stock functions
 * (tests/stock/string_diff.lua compares them over many patterns).
 *
 * string.rep and table.concat refuse results over a size cap (below the
 * memory cap, so a script gets a clear error rather than an allocation
 * storm), and charge a unit per 64 bytes they produce; string.upper, lower
 * and reverse a unit per 16 bytes; table.sort charges n·log2(n) units
 * before it sorts, so a sort the budget could not pay for never starts.
 * Those call the stock functions for the work itself, after checking the
 * arguments the way they do, so that argument errors name the function.
 * Outside a budgeted callback (or with --budget 0) nothing is counted.
 */
#include "steer_host.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "steer_lua.h"

/* ---------------------------------------------------------------- matcher */

#define PAT_ESC '%'
#define PAT_MAXCAPTURES 32 /* as stock Lua (LUA_MAXCAPTURES) */
#define PAT_MAXDEPTH 200   /* nested match calls before "pattern too complex" */
#define PAT_CHARGE_EVERY 1024

enum { CAP_OPEN = -1, CAP_POS = -2 };

typedef struct matcher {
    lua_State *L;
    const char *what;       /* "string.find"... for the budget message */
    const char *s0, *s_end; /* the subject */
    const char *p_end;      /* end of the pattern */
    int depth;              /* match calls still allowed */
    int ncap;               /* captures opened so far */
    long steps;             /* steps not yet charged */
    struct {
        const char *at;
        ptrdiff_t len; /* a length, CAP_OPEN or CAP_POS */
    } cap[PAT_MAXCAPTURES];
} matcher;

static void pay(matcher *m)
{
    long n = m->steps;
    m->steps = 0;
    steer_lua_charge(m->L, n, m->what);
}

static inline void step(matcher *m)
{
    if (++m->steps >= PAT_CHARGE_EVERY)
        pay(m);
}

/* Does c belong to the class letter k (%a, %d...; upper case: the
 * complement)? Any other k stands for itself. */
static bool in_class(int c, int k)
{
    bool r;
    switch (tolower(k)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    case 'z': r = c == 0; break; /* deprecated in the manual, still in 5.4 */
    default: return k == c;
    }
    return isupper(k) ? !r : r;
}

/* The end of the single-character class starting at p: past "%x", past a
 * set's closing ']', or p + 1. */
static const char *item_end(matcher *m, const char *p)
{
    if (*p == PAT_ESC) {
        if (p + 1 >= m->p_end)
            luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 2;
    }
    if (*p != '[')
        return p + 1;
    const char *q = p + 1;
    if (q < m->p_end && *q == '^')
        q++;
    /* the set's first character is a member even when it is ']' */
    for (bool first = true;; first = false) {
        if (q >= m->p_end)
            luaL_error(m->L, "malformed pattern (missing ']')");
        if (*q == ']' && !first)
            return q + 1;
        if (*q == PAT_ESC && q + 1 < m->p_end)
            q++;
        q++;
    }
}

/* c against the set [ ... ] from open (its '[') to close (its ']'). A '%'
 * inside a set is always followed by another character before close
 * (item_end skipped it), and a first member ']' lies before close. */
static bool in_set(int c, const char *open, const char *close)
{
    const char *q = open + 1;
    bool negate = *q == '^';
    if (negate)
        q++;
    while (q < close) {
        if (*q == PAT_ESC) {
            if (in_class(c, (unsigned char)q[1]))
                return !negate;
            q += 2;
        } else if (q + 2 < close && q[1] == '-') {
            if ((unsigned char)q[0] <= c && c <= (unsigned char)q[2])
                return !negate;
            q += 3;
        } else {
            if ((unsigned char)*q == c)
                return !negate;
            q++;
        }
    }
    return negate;
}

/* Does the subject character at s match the item p..e (e: item_end)? */
static bool item_matches(const matcher *m, const char *s, const char *p, const char *e)
{
    if (s >= m->s_end)
        return false;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return true;
    case PAT_ESC: return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, e - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_here(matcher *m, const char *s, const char *p);

/* %bxy at s: x, then text balanced in x and y, then y. */
static const char *match_balanced(matcher *m, const char *s, const char *p)
{
    if (p + 1 >= m->p_end)
        luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->s_end || *s != p[0])
        return NULL;
    int open = p[0], close = p[1];
    long level = 1;
    for (s++; s < m->s_end; s++) {
        step(m);
        if (*s == close) {
            if (--level == 0)
                return s + 1;
        } else if (*s == open) {
            level++;
        }
    }
    return NULL;
}

/* Greedy: as many repetitions as match, then back off one at a time. */
static const char *match_greedy(matcher *m, const char *s, const char *p, const char *e)
{
    ptrdiff_t n = 0;
    while (item_matches(m, s + n, p, e)) {
        step(m);
        n++;
    }
    for (; n >= 0; n--) {
        const char *r = match_here(m, s + n, e + 1);
        if (r != NULL)
            return r;
    }
    return NULL;
}

/* Lazy: the rest of the pattern first, one more repetition when it fails. */
static const char *match_lazy(matcher *m, const char *s, const char *p, const char *e)
{
    for (;;) {
        const char *r = match_here(m, s, e + 1);
        if (r != NULL)
            return r;
        if (!item_matches(m, s, p, e))
            return NULL;
        s++;
    }
}

static const char *open_capture(matcher *m, const char *s, const char *p, ptrdiff_t kind)
{
    if (m->ncap >= PAT_MAXCAPTURES)
        luaL_error(m->L, "too many captures");
    m->cap[m->ncap].at = s;
    m->cap[m->ncap].len = kind;
    m->ncap++;
    const char *r = match_here(m, s, p);
    if (r == NULL)
        m->ncap--;
    return r;
}

static const char *close_capture(matcher *m, const char *s, const char *p)
{
    int k = m->ncap - 1;
    while (k >= 0 && m->cap[k].len != CAP_OPEN)
        k--;
    if (k < 0)
        luaL_error(m->L, "invalid pattern capture");
    m->cap[k].len = s - m->cap[k].at;
    const char *r = match_here(m, s, p);
    if (r == NULL)
        m->cap[k].len = CAP_OPEN;
    return r;
}

/* %1..%9 in a pattern: the text of a closed capture again. */
static const char *match_backref(matcher *m, const char *s, int digit)
{
    int k = digit - '1';
    if (k < 0 || k >= m->ncap || m->cap[k].len == CAP_OPEN)
        luaL_error(m->L, "invalid capture index %%%d", k + 1);
    ptrdiff_t len = m->cap[k].len;
    if (len < 0 || m->s_end - s < len)
        return NULL; /* a position capture never matches text */
    for (ptrdiff_t i = 0; i < len; i += 64)
        step(m);
    return memcmp(m->cap[k].at, s, (size_t)len) == 0 ? s + len : NULL;
}

/* How an item leaves the match: decided (the cursor's s is the end of the
 * match from here, or NULL), moved on to the next item, or not of the kind
 * the helper handles (the next helper tries it). */
typedef enum { ITEM_DONE, ITEM_NEXT, ITEM_OTHER } item_step;

/* Where the match stands: subject position s, pattern position p. */
typedef struct cursor {
    const char *s, *p;
} cursor;

/* '(' and ')' (captures) and a final '$': each decides the rest. */
static item_step match_group_or_end(matcher *m, cursor *c)
{
    const char *p = c->p;
    if (*p == '(') {
        if (p + 1 < m->p_end && p[1] == ')')
            c->s = open_capture(m, c->s, p + 2, CAP_POS);
        else
            c->s = open_capture(m, c->s, p + 1, CAP_OPEN);
        return ITEM_DONE;
    }
    if (*p == ')') {
        c->s = close_capture(m, c->s, p + 1);
        return ITEM_DONE;
    }
    if (*p == '$' && p + 1 == m->p_end) {
        if (c->s != m->s_end)
            c->s = NULL;
        return ITEM_DONE;
    }
    return ITEM_OTHER;
}

/* %f[set]: the character before s is not in the set and the one at s is
 * (the subject's ends count as '\0'). Matches no text. */
static void match_frontier(matcher *m, cursor *c)
{
    const char *p = c->p + 2;
    if (p >= m->p_end || *p != '[')
        luaL_error(m->L, "missing '[' after '%%f' in pattern");
    const char *e = item_end(m, p);
    int before = c->s > m->s0 ? (unsigned char)c->s[-1] : 0;
    int at = c->s < m->s_end ? (unsigned char)*c->s : 0;
    if (in_set(before, p, e - 1) || !in_set(at, p, e - 1))
        c->s = NULL;
    c->p = e;
}

/* %bxy, %f[set] and %1..%9: the escapes that are not a character class. */
static item_step match_escape(matcher *m, cursor *c)
{
    const char *p = c->p;
    if (*p != PAT_ESC || p + 1 >= m->p_end)
        return ITEM_OTHER;
    int k = (unsigned char)p[1];
    if (k == 'b') {
        c->s = match_balanced(m, c->s, p + 2);
        c->p = p + 4;
    } else if (k == 'f') {
        match_frontier(m, c);
    } else if (isdigit(k)) {
        c->s = match_backref(m, c->s, k);
        c->p = p + 2;
    } else {
        return ITEM_OTHER;
    }
    return c->s == NULL ? ITEM_DONE : ITEM_NEXT;
}

/* A single-character item (a character, '.', %x or a set), maybe with a
 * quantifier. Without one, or with '?', it matches in place; '*', '+' and
 * '-' backtrack, so they recurse and decide the rest. */
static item_step match_single(matcher *m, cursor *c)
{
    const char *s = c->s, *p = c->p;
    const char *e = item_end(m, p);
    int q = e < m->p_end ? *e : 0;
    if (!item_matches(m, s, p, e)) {
        if (q == '*' || q == '?' || q == '-') {
            c->p = e + 1; /* zero repetitions are fine */
            return ITEM_NEXT;
        }
        c->s = NULL;
        return ITEM_DONE;
    }
    switch (q) {
    case '?': {
        const char *r = match_here(m, s + 1, e + 1);
        if (r != NULL) {
            c->s = r;
            return ITEM_DONE;
        }
        c->p = e + 1;
        return ITEM_NEXT;
    }
    case '+': c->s = match_greedy(m, s + 1, p, e); return ITEM_DONE;
    case '*': c->s = match_greedy(m, s, p, e); return ITEM_DONE;
    case '-': c->s = match_lazy(m, s, p, e); return ITEM_DONE;
    default:
        c->s = s + 1;
        c->p = e;
        return ITEM_NEXT;
    }
}

/* Matches the pattern from p at subject position s: the end of the match,
 * or NULL. Items that cannot backtrack loop here; the others recurse. Each
 * item is a step for the budget. */
static const char *match_here(matcher *m, const char *s, const char *p)
{
    if (m->depth-- == 0)
        luaL_error(m->L, "pattern too complex");
    cursor c = {s, p};
    item_step r = ITEM_NEXT;
    while (r != ITEM_DONE) {
        step(m);
        if (c.p >= m->p_end)
            break;
        r = match_group_or_end(m, &c);
        if (r == ITEM_OTHER)
            r = match_escape(m, &c);
        if (r == ITEM_OTHER)
            r = match_single(m, &c);
    }
    m->depth++;
    return c.s;
}

static void matcher_init(matcher *m, lua_State *L, const char *what, const char *s, size_t ls,
                         const char *p, size_t lp)
{
    m->L = L;
    m->what = what;
    m->s0 = s;
    m->s_end = s + ls;
    m->p_end = p + lp;
    m->steps = 0;
    m->ncap = 0;
    m->depth = PAT_MAXDEPTH;
}

static void matcher_reset(matcher *m)
{
    m->ncap = 0;
    m->depth = PAT_MAXDEPTH;
}

/* Pushes capture k of the match s..e (k 0 with no captures: the match). */
static void push_capture(matcher *m, int k, const char *s, const char *e)
{
    if (k >= m->ncap) {
        if (k != 0)
            luaL_error(m->L, "invalid capture index %%%d", k + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t len = m->cap[k].len;
    if (len == CAP_OPEN)
        luaL_error(m->L, "unfinished capture");
    if (len == CAP_POS)
        lua_pushinteger(m->L, (lua_Integer)(m->cap[k].at - m->s0) + 1);
    else
        lua_pushlstring(m->L, m->cap[k].at, (size_t)len);
}

/* Pushes every capture (or the whole match when s is given and there are
 * none); returns how many. */
static int push_captures(matcher *m, const char *s, const char *e)
{
    int n = (m->ncap == 0 && s != NULL) ? 1 : m->ncap;
    luaL_checkstack(m->L, n, "too many captures");
    for (int k = 0; k < n; k++)
        push_capture(m, k, s, e);
    return n;
}

/* ---------------------------------------------------------------- the string functions */

/* A 1-based start position, negative from the end, clamped to >= 1. */
static size_t start_pos(lua_Integer pos, size_t len)
{
    if (pos > 0)
        return (size_t)pos;
    if (pos == 0)
        return 1;
    if (pos < -(lua_Integer)len)
        return 1;
    return len + (size_t)pos + 1;
}

static bool has_specials(const char *p, size_t lp)
{
    for (size_t i = 0; i < lp; i++)
        if (strchr("^$*+?.([%-", p[i]) != NULL && p[i] != '\0')
            return true;
    return false;
}

static const char *plain_find(matcher *m, const char *s, size_t ls, const char *p, size_t lp)
{
    if (lp == 0)
        return s;
    if (lp > ls)
        return NULL;
    m->steps += (long)(ls / 16);
    pay(m);
    const char *last = s + (ls - lp);
    for (;;) {
        const char *q = memchr(s, p[0], (size_t)(last - s) + 1);
        if (q == NULL)
            return NULL;
        if (memcmp(q + 1, p + 1, lp - 1) == 0)
            return q;
        step(m);
        s = q + 1;
        if (s > last)
            return NULL;
    }
}

static int find_or_match(lua_State *L, bool find)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_pos(luaL_optinteger(L, 3, 1), ls);
    if (init > ls + 1) {
        luaL_pushfail(L);
        return 1;
    }
    matcher m;
    matcher_init(&m, L, find ? "string.find" : "string.match", s, ls, p, lp);
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        const char *at = plain_find(&m, s + init - 1, ls - init + 1, p, lp);
        if (at != NULL) {
            lua_pushinteger(L, (lua_Integer)(at - s) + 1);
            lua_pushinteger(L, (lua_Integer)(at - s + (ptrdiff_t)lp));
            return 2;
        }
        luaL_pushfail(L);
        return 1;
    }
    bool anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    m.p_end = p + lp;
    const char *from = s + init - 1;
    for (;;) {
        matcher_reset(&m);
        const char *e = match_here(&m, from, p);
        if (e != NULL) {
            pay(&m);
            if (find) {
                lua_pushinteger(L, (lua_Integer)(from - s) + 1);
                lua_pushinteger(L, (lua_Integer)(e - s));
                return push_captures(&m, NULL, NULL) + 2;
            }
            return push_captures(&m, from, e);
        }
        if (anchored || from >= m.s_end)
            break;
        from++;
    }
    pay(&m);
    luaL_pushfail(L);
    return 1;
}

static int bounded_find(lua_State *L) { return find_or_match(L, true); }
static int bounded_match(lua_State *L) { return find_or_match(L, false); }

typedef struct gmatch_state {
    matcher m;
    const char *p;
    size_t next;          /* offset where the next search starts (> length: done) */
    const char *last_end; /* end of the last match (NULL: none yet) */
} gmatch_state;

static int gmatch_next(lua_State *L)
{
    gmatch_state *g = lua_touserdata(L, lua_upvalueindex(3));
    g->m.L = L;
    size_t len = (size_t)(g->m.s_end - g->m.s0);
    for (; g->next <= len; g->next++) {
        const char *from = g->m.s0 + g->next;
        matcher_reset(&g->m);
        const char *e = match_here(&g->m, from, g->p);
        if (e != NULL && e != g->last_end) {
            g->last_end = e;
            g->next = (size_t)(e - g->m.s0);
            pay(&g->m);
            return push_captures(&g->m, from, e);
        }
    }
    pay(&g->m);
    return 0;
}

static int bounded_gmatch(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_pos(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls)
        init = ls + 1; /* past the end: no match at all */
    lua_settop(L, 2); /* the closure keeps both strings alive */
    gmatch_state *g = lua_newuserdatauv(L, sizeof *g, 0);
    matcher_init(&g->m, L, "string.gmatch", s, ls, p, lp);
    g->p = p;
    g->next = init;
    g->last_end = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/* Appends the replacement of the match s..e to b; the replacement is at
 * index 3 of type type. */
static void add_replacement(matcher *m, luaL_Buffer *b, const char *s, const char *e, int type)
{
    lua_State *L = m->L;
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
        size_t lr;
        const char *r = lua_tolstring(L, 3, &lr);
        const char *r_end = r + lr;
        while (r < r_end) {
            const char *pc = memchr(r, PAT_ESC, (size_t)(r_end - r));
            if (pc == NULL) {
                luaL_addlstring(b, r, (size_t)(r_end - r));
                break;
            }
            luaL_addlstring(b, r, (size_t)(pc - r));
            int d = pc + 1 < r_end ? (unsigned char)pc[1] : 0;
            if (d == PAT_ESC) {
                luaL_addchar(b, PAT_ESC);
            } else if (isdigit(d)) {
                if (d == '0') {
                    luaL_addlstring(b, s, (size_t)(e - s));
                } else {
                    push_capture(m, d - '1', s, e);
                    luaL_tolstring(L, -1, NULL);
                    lua_remove(L, -2);
                    luaL_addvalue(b);
                }
            } else {
                luaL_error(L, "invalid use of '%c' in replacement string", PAT_ESC);
            }
            r = pc + 2;
        }
        return;
    }
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else { /* a table */
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int bounded_gsub(lua_State *L)
{
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION
                            || type == LUA_TTABLE, 3, "string/function/table");
    bool anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    matcher m;
    matcher_init(&m, L, "string.gsub", s, ls, p, lp);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *at = s, *last_end = NULL;
    lua_Integer n = 0;
    while (n < max_n) {
        matcher_reset(&m);
        const char *e = match_here(&m, at, p);
        if (e != NULL && e != last_end) {
            n++;
            add_replacement(&m, &b, at, e, type);
            at = last_end = e;
        } else if (at < m.s_end) {
            luaL_addchar(&b, *at++);
        } else {
            break;
        }
        if (anchored)
            break;
    }
    pay(&m);
    luaL_addlstring(&b, at, (size_t)(m.s_end - at));
    luaL_pushresult(&b);
    lua_pushinteger(L, n);
    return 2;
}

/* ---------------------------------------------------------------- sizes and sorts */

static size_t result_cap(lua_State *L)
{
    return (size_t)lua_tointeger(L, lua_upvalueindex(2));
}

static int too_large(lua_State *L, const char *what, size_t cap)
{
    return luaL_error(L, "%s: result too large (the limit is %d MiB)", what, (int)(cap >> 20));
}

/* Calls the stock function (upvalue 1) with the arguments as they are. */
static int call_stock(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* string.upper, lower, reverse: a unit per 16 bytes (they touch each). */
static int bounded_bytewise(lua_State *L)
{
    size_t l;
    luaL_checklstring(L, 1, &l);
    steer_lua_charge(L, (long)(l / 16), lua_tostring(L, lua_upvalueindex(2)));
    return call_stock(L);
}

/* A table, or a value with a metatable (the stock function looks closer). */
static void check_table_like(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TTABLE)
        return;
    if (lua_getmetatable(L, 1))
        lua_pop(L, 1);
    else
        luaL_checktype(L, 1, LUA_TTABLE);
}

static int bounded_rep(lua_State *L)
{
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    size_t cap = result_cap(L);
    if (n > 0 && l + lsep == 0) {
        /* the stock function would copy nothing n times: up to 2^63 */
        lua_pushliteral(L, "");
        return 1;
    }
    if (n > 0) {
        /* n·l + (n - 1)·lsep without overflow */
        if ((lua_Unsigned)n > cap / (l + lsep) + 1 || (size_t)n * (l + lsep) - lsep > cap)
            return too_large(L, "string.rep", cap);
        steer_lua_charge(L, (long)(((size_t)n * (l + lsep)) / 64), "string.rep");
    }
    return call_stock(L);
}

/* table.concat: a raw pass over a plain table bounds the result (numbers
 * count as 48 bytes, more than any of them prints) and pays for it; the
 * stock function then does the work. A table with a metatable goes straight
 * to the stock function: the elements its __index finds come from a Lua
 * function (budgeted) or from tables (as many as were built, budgeted), it
 * stops at the first missing one, and the result still meets the memory
 * cap. */
static int bounded_concat(lua_State *L)
{
    size_t cap = result_cap(L);
    /* the stock function's argument checks, so that errors name this one */
    check_table_like(L);
    size_t lsep = 0;
    luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
        bool plain = !lua_getmetatable(L, 1);
        if (!plain)
            lua_pop(L, 1);
        if (!plain)
            return call_stock(L);
        size_t total = 0;
        long units = 0;
        for (; i <= last; i++) {
            if (++units >= PAT_CHARGE_EVERY) {
                steer_lua_charge(L, units, "table.concat");
                units = 0;
            }
            int t = lua_rawgeti(L, 1, i);
            size_t len = 0;
            if (t == LUA_TSTRING)
                lua_tolstring(L, -1, &len);
            else if (t == LUA_TNUMBER)
                len = 48;
            lua_pop(L, 1);
            if (t != LUA_TSTRING && t != LUA_TNUMBER)
                break; /* the stock function raises there */
            total += len + (i < last ? lsep : 0);
            if (total > cap)
                return too_large(L, "table.concat", cap);
            units += (long)(len / 64);
            if (i == LUA_MAXINTEGER)
                break;
        }
        steer_lua_charge(L, units, "table.concat");
    }
    return call_stock(L);
}

/* table.sort: n·log2(n) comparisons, paid before sorting. */
static int bounded_sort(lua_State *L)
{
    /* the stock function's argument checks, so that errors name this one */
    check_table_like(L);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TFUNCTION);
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_Integer n = luaL_len(L, 1);
        if (n > 1) {
            long lg = 1;
            while (lg < 62 && ((lua_Integer)1 << lg) < n)
                lg++;
            long units = n > LONG_MAX / lg ? LONG_MAX : (long)n * lg;
            steer_lua_charge(L, units, "table.sort");
        }
    }
    return call_stock(L);
}

/* ---------------------------------------------------------------- installing */

/* Pushes package.loaded[lib][name] when it is a function. */
static bool push_stock(lua_State *L, const char *lib, const char *name)
{
    int top = lua_gettop(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, lib) != LUA_TTABLE || lua_getfield(L, -1, name) != LUA_TFUNCTION) {
        lua_settop(L, top);
        return false;
    }
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return true;
}

void steer_host_push_bounded(lua_State *L, size_t max_result)
{
    lua_createtable(L, 0, 7);
    static const luaL_Reg matchers[] = {
        {"find", bounded_find},
        {"match", bounded_match},
        {"gmatch", bounded_gmatch},
        {"gsub", bounded_gsub},
        {NULL, NULL},
    };
    luaL_setfuncs(L, matchers, 0);
    static const struct {
        const char *lib, *name;
        lua_CFunction fn;
    } wrapped[] = {
        {LUA_STRLIBNAME, "rep", bounded_rep},
        {LUA_TABLIBNAME, "concat", bounded_concat},
        {LUA_TABLIBNAME, "sort", bounded_sort},
    };
    static const char *const bytewise[] = {"upper", "lower", "reverse"};
    for (size_t i = 0; i < sizeof bytewise / sizeof *bytewise; i++) {
        if (!push_stock(L, LUA_STRLIBNAME, bytewise[i]))
            continue;
        lua_pushfstring(L, "string.%s", bytewise[i]);
        lua_pushcclosure(L, bounded_bytewise, 2);
        lua_setfield(L, -2, bytewise[i]);
    }
    for (size_t i = 0; i < sizeof wrapped / sizeof *wrapped; i++) {
        if (!push_stock(L, wrapped[i].lib, wrapped[i].name))
            continue;
        lua_pushinteger(L, (lua_Integer)max_result);
        lua_pushcclosure(L, wrapped[i].fn, 2);
        lua_setfield(L, -2, wrapped[i].name);
    }
}
