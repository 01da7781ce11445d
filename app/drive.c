/*
 * drive.c — `--events FILE` and `--frames N`: the window driven by a script
 * of inputs, for tests under Xvfb and for reproducing a session by hand.
 *
 * Each line of the file is `FRAME ACTION ARGS...` ('#' starts a comment):
 *
 *   F key NAME            a key press (SDL's key name: Space, F1, G, Left;
 *                         `shift+NAME` holds Shift)
 *   F click X Y [B]       a click at window pixel X,Y (button B: 1 left,
 *                         2 right, 3 middle; default 1)
 *   F click-world X Y [B] a click where the world point X,Y is drawn
 *   F click-agent K [B]   a click where the K-th live agent (0-based, in the
 *                         world's order) is drawn
 *   F move X Y            the mouse moves to window pixel X,Y
 *   F text WORDS...       typed text (the rest of the line), as SDL text
 *                         input: what the console (key `) reads
 *   F click-field KEY     a click on the number KEY of the selected agent's
 *                         self in its panel (the inspector: opens the console
 *                         on its edit)
 *   F panels              prints `panel NAME X Y W H` for every panel drawn
 *                         in the last frame, then `panels: N in WxH`
 *   F screenshot          saves this frame as P does (even while the
 *                         console has the keys)
 *   F state               prints `state: frame=F tick=T agents=N selected=S
 *                         paused=0|1 help=0|1 plots=0|1 errors=E`
 *
 * Inputs are pushed as SDL events before the frame polls its queue, so they
 * go through exactly the routing a real key or click goes through
 * (input.c). Lines run in frame order; several may share a frame.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"

#define DRIVE_MAX_LINES 1024

typedef enum drive_kind {
    D_KEY,
    D_CLICK,
    D_CLICK_WORLD,
    D_CLICK_AGENT,
    D_MOVE,
    D_PANELS,
    D_STATE,
    D_TEXT,
    D_CLICK_FIELD,
    D_SCREENSHOT
} drive_kind;

typedef struct drive_line {
    long frame;
    drive_kind kind;
    SDL_Keycode key;
    bool shift;
    double x, y;
    int button;
    char text[128]; ///< D_TEXT: the text; D_CLICK_FIELD: the key
} drive_line;

struct drive {
    drive_line line[DRIVE_MAX_LINES];
    int n, next;
};

static const struct {
    const char *name;
    drive_kind kind;
    int nargs; ///< numbers after the action (the key's name counts as one)
} ACTIONS[] = {
    {"key", D_KEY, 1},           {"click", D_CLICK, 2},     {"click-world", D_CLICK_WORLD, 2},
    {"click-agent", D_CLICK_AGENT, 1}, {"move", D_MOVE, 2}, {"panels", D_PANELS, 0},
    {"state", D_STATE, 0},       {"screenshot", D_SCREENSHOT, 0},
};

/* `F text WORDS...` and `F click-field KEY`: the rest of the line in l->text. */
static bool parse_text(const char *text, const char *action, drive_line *l)
{
    bool field = strcmp(action, "click-field") == 0;
    if (!field && strcmp(action, "text") != 0)
        return false;
    const char *rest = strstr(text, action) + strlen(action);
    rest += *rest == ' ';
    size_t n = strcspn(rest, "\r\n");
    if (n == 0 || n >= sizeof l->text)
        return false;
    memcpy(l->text, rest, n);
    l->text[n] = '\0';
    l->kind = field ? D_CLICK_FIELD : D_TEXT;
    return true;
}

/* One line's action and arguments into l; false (said on stderr) when bad. */
static bool parse_line(char *text, drive_line *l, const char *path, int lineno)
{
    char action[32], arg[3][64];
    int got = sscanf(text, "%ld %31s %63s %63s %63s", &l->frame, action, arg[0], arg[1], arg[2]);
    if (got >= 3 && l->frame >= 0 && parse_text(text, action, l))
        return true;
    for (size_t k = 0; got >= 2 && l->frame >= 0 && k < sizeof ACTIONS / sizeof ACTIONS[0]; k++) {
        if (strcmp(action, ACTIONS[k].name) != 0 || got - 2 < ACTIONS[k].nargs)
            continue;
        l->kind = ACTIONS[k].kind;
        l->button = 1;
        if (l->kind == D_KEY) {
            const char *name = arg[0];
            l->shift = strncmp(name, "shift+", 6) == 0;
            l->key = SDL_GetKeyFromName(l->shift ? name + 6 : name);
            if (l->key == SDLK_UNKNOWN)
                break;
            return true;
        }
        char *end = NULL;
        if (ACTIONS[k].nargs >= 1 && ((l->x = strtod(arg[0], &end)), *end != '\0'))
            break;
        if (ACTIONS[k].nargs >= 2 && ((l->y = strtod(arg[1], &end)), *end != '\0'))
            break;
        int extra = got - 2 - ACTIONS[k].nargs;
        if (extra > 0 && l->kind != D_MOVE && l->kind != D_PANELS && l->kind != D_STATE)
            l->button = atoi(arg[ACTIONS[k].nargs]);
        if (l->button < 1 || l->button > 3)
            break;
        return true;
    }
    fprintf(stderr, "steer: %s:%d: bad event line (see --help: --events)\n", path, lineno);
    return false;
}

drive *drive_open(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "steer: cannot read the events file %s\n", path);
        return NULL;
    }
    drive *d = calloc(1, sizeof *d);
    char text[512];
    int lineno = 0;
    bool ok = d != NULL;
    while (ok && fgets(text, sizeof text, f)) {
        lineno++;
        char *hash = strchr(text, '#');
        if (hash)
            *hash = '\0';
        if (strspn(text, " \t\r\n") == strlen(text))
            continue;
        if (d->n == DRIVE_MAX_LINES) {
            fprintf(stderr, "steer: %s: more than %d event lines\n", path, DRIVE_MAX_LINES);
            ok = false;
        } else {
            ok = parse_line(text, &d->line[d->n], path, lineno);
            if (ok && d->n > 0 && d->line[d->n].frame < d->line[d->n - 1].frame) {
                fprintf(stderr, "steer: %s:%d: frames must not go back\n", path, lineno);
                ok = false;
            }
            d->n++;
        }
    }
    fclose(f);
    if (!ok) {
        free(d);
        return NULL;
    }
    return d;
}

void drive_free(drive *d)
{
    free(d);
}

static void push_key(const drive_line *l)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = l->key;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(l->key);
    e.key.keysym.mod = l->shift ? KMOD_LSHIFT : KMOD_NONE;
    SDL_PushEvent(&e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

static void push_mouse(int x, int y, int button, bool click)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = x;
    e.motion.y = y;
    SDL_PushEvent(&e);
    if (!click)
        return;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.button = (Uint8)(button == 2 ? SDL_BUTTON_RIGHT : button == 3 ? SDL_BUTTON_MIDDLE : SDL_BUTTON_LEFT);
    e.button.state = SDL_PRESSED;
    e.button.clicks = 1;
    e.button.x = x;
    e.button.y = y;
    SDL_PushEvent(&e);
    e.type = SDL_MOUSEBUTTONUP;
    e.button.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

/* The K-th live agent's id (null when there are fewer). */
static st_agent_id agent_at(const st_world *w, long k)
{
    st_agent_id id = st_null_agent();
    for (long i = 0; i <= k; i++) {
        id = st_world_next(w, id, ST_TAG_ANY);
        if (st_id_is_null(id))
            break;
    }
    return id;
}

static void print_state(app *a, long frame)
{
    int agents = a->world ? st_world_count(a->world, ST_TAG_ANY) : 0;
    unsigned long long sel = a->world && st_agent_alive(a->world, a->selected)
                                 ? (unsigned long long)st_agent_serial(a->world, a->selected)
                                 : 0ull;
    printf("state: frame=%ld tick=%ld agents=%d selected=%llu paused=%d help=%d plots=%d errors=%d\n", frame,
           a->steps_run, agents, sel, a->paused, a->help, a->show_plots, a->error_total);
}

static void print_panels(const render_ctx *c)
{
    for (int i = 0; i < c->npanels; i++) {
        const SDL_FRect *r = &c->panels[i].r;
        printf("panel %s %.0f %.0f %.0f %.0f\n", c->panels[i].name, r->x, r->y, r->w, r->h);
    }
    printf("panels: %d in %dx%d\n", c->npanels, c->w, c->h);
}

static void push_text(const char *s)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_TEXTINPUT;
    for (size_t n = strlen(s), at = 0; at < n;) {
        size_t k = n - at < sizeof e.text.text - 1 ? n - at : sizeof e.text.text - 1;
        memcpy(e.text.text, s + at, k);
        e.text.text[k] = '\0';
        SDL_PushEvent(&e);
        at += k;
    }
}

/* The middle of the inspector's number KEY (last frame), or false. */
static bool field_at(const render_ctx *c, const char *key, SDL_FPoint *p)
{
    char dot[80];
    snprintf(dot, sizeof dot, ".self.%s = ", key);
    for (int i = 0; i < c->nfields; i++) {
        if (strstr(c->fields[i].edit, dot) != NULL) {
            p->x = c->fields[i].r.x + 20.0f;
            p->y = c->fields[i].r.y + c->fields[i].r.h * 0.5f;
            return true;
        }
    }
    return false;
}

/* One line's effect: events pushed, or a report printed. */
static void run_line(app *a, const drive_line *l, const render_ctx *c, long frame)
{
    SDL_FPoint p = {(float)l->x, (float)l->y};
    switch (l->kind) {
    case D_SCREENSHOT:
        return; /* drive_frame's caller saves it */
    case D_KEY:
        push_key(l);
        return;
    case D_PANELS:
        print_panels(c);
        return;
    case D_STATE:
        print_state(a, frame);
        return;
    case D_TEXT:
        push_text(l->text);
        return;
    case D_CLICK_FIELD:
        if (!field_at(c, l->text, &p)) {
            fprintf(stderr, "steer: --events: no field %s in the inspector at frame %ld\n", l->text, frame);
            return;
        }
        break;
    case D_CLICK_WORLD:
        p = to_screen(c, st_v2(l->x, l->y));
        break;
    case D_CLICK_AGENT: {
        st_agent_id id = a->world ? agent_at(a->world, (long)l->x) : st_null_agent();
        if (st_id_is_null(id)) {
            fprintf(stderr, "steer: --events: no agent %ld at frame %ld\n", (long)l->x, frame);
            return;
        }
        p = to_screen(c, st_agent_pos(a->world, id));
        break;
    }
    default:
        break;
    }
    push_mouse((int)(p.x + 0.5f), (int)(p.y + 0.5f), l->button, l->kind != D_MOVE);
}

bool drive_frame(app *a, drive *d, const render_ctx *c, long frame)
{
    bool shot = false;
    while (d != NULL && d->next < d->n && d->line[d->next].frame <= frame) {
        shot |= d->line[d->next].kind == D_SCREENSHOT;
        run_line(a, &d->line[d->next++], c, frame);
    }
    return shot;
}

void drive_summary(app *a, long frames)
{
    int agents = a->world ? st_world_count(a->world, ST_TAG_ANY) : 0;
    unsigned long long sum = a->world ? (unsigned long long)st_world_checksum(a->world) : 0ull;
    printf("frames=%ld ticks=%ld agents=%d checksum=%016llx errors=%d\n", frames, a->steps_run, agents, sum,
           a->error_total);
}
