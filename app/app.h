/*
 * app.h — the steer app's shared state and the functions its modules offer
 * each other.
 *
 *   main.c      options, then the window or the headless run
 *   util.c      the app's clock and display text
 *   scene.c     the Lua host: scene load, restart, step, reload, errors
 *   scene_files.c  the scene's folder and module, which module a file is, the scene list
 *   watch.c     stat-polling file watcher (no SDL)
 *   batch.c     vertex batches: one SDL_RenderGeometry call per layer
 *   font.c      a glyph atlas from SDL2_ttf, drawn through a batch
 *   render.c    the world, agents and overlays
 *   gfx.c       the `gfx` table scripts draw with
 *   hud.c       the flash message, the help's key list, the panels registry
 *   ui*.cpp     the windows on Dear ImGui (ui.h): stats, agent, plots,
 *               timeline, help, scenes, overlays, errors, console
 *   input.c     keys and mouse
 *   window.c    the windowed loop
 *   headless.c  runs with no window; screenshots through a software renderer
 *   event.c     the one event stream: inputs applied (and journaled) in one place, one step
 *   event_source.c  the module searcher and the sources served to it
 *   record.c    the journal, --record / --replay, rewinds
 *   trace.c     --trace: a CSV row per tick per agent
 *   plot.c      the selected agent's history for its plots (key G)
 *   layout.c    where the panels go (never over each other)
 *   console.c   the Lua console's evaluation (key `) and its keys
 *   drive.c     --events / --frames: the window driven from a file
 */
#ifndef STEER_APP_H
#define STEER_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>
#include <lua.h>

#include "steer.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#ifndef STEER_SCRIPTS_DIR
#define STEER_SCRIPTS_DIR "scripts"
#endif
#ifndef STEER_FONT_PATH
#define STEER_FONT_PATH "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
#endif

/* ------------------------------------------------------------------ options */

typedef struct app_options {
    const char *scene;      ///< scene file; NULL: scripts/hunt.lua
    bool headless;
    bool realtime;          ///< headless, paced at the fixed step, watching files
    bool trust;             ///< no sandbox
    long ticks;             ///< headless steps; < 0: default (600, or forever with --realtime)
    bool has_seed;
    uint64_t seed;
    const char *screenshot; ///< PNG written after a headless run
    long draw_frames;       ///< headless: frames to render and time after the run (0: none)
    bool has_select;        ///< headless: select the agent nearest select_at before the last step
    double select_x, select_y;
    int threads;            ///< standing-pass threads, >= 1
    long budget;            ///< instructions per callback, 0: unlimited
    long time_limit;        ///< seconds of wall time per callback, 0: unlimited
    size_t memory_mb;       ///< Lua memory cap in MiB, 0: unlimited
    const char *record;     ///< --record FILE
    const char *replay;     ///< --replay FILE
    bool current_scripts;   ///< --with-current-scripts: replay against the files on disk
    bool reference;         ///< the recorded run a --with-current-scripts replay steps beside it
    const char *trace;      ///< --trace FILE.csv
    const char *trace_fields; ///< --trace-fields a,b,c (NULL: scene.trace, else self's numbers)
    bool plots;             ///< headless: show the plot panel (selection made 10 s before the end)
    int nreload_at;         ///< --reload-at TICK:FILE[=SOURCE], for tests
    struct reload_at { long tick; const char *file, *source; bool done; } reload_at[16];
    long rewind_at, rewind_by; ///< --rewind-test T:N (headless): after tick T go back N ticks and forward again
    const char *rewind_edit;  ///< --rewind-test T:N:FILE=SRC: instead, reload FILE with SRC's text there (a branch)
    long rewind_mb;         ///< --rewind-mb: the checkpoints' memory bound (default 64; 0: no checkpoints)
    long rewind_every;      ///< --rewind-every: ticks between checkpoints (default 30)
    long frames;            ///< window: quit after this many frames, printing a summary (0: run until closed)
    const char *events;     ///< window: --events FILE, inputs to feed at given frames (drive.c)
    bool draw;              ///< headless: call scene.draw / brain.draw every tick (software renderer)
    int argc;               ///< what follows the scene: handed to scene.load as args
    char **argv;
} app_options;

/* ------------------------------------------------------------------ errors */

typedef enum app_error_kind {
    APP_ERR_LOAD,    ///< a file failed to compile or load (keyed by file)
    APP_ERR_RUNTIME, ///< a brain or scene callback raised
} app_error_kind;

#define APP_MAX_ERRORS 6

typedef struct app_error {
    app_error_kind kind;
    char key[PATH_MAX]; ///< file for load errors, "" for runtime ones
    char *text;         ///< message (with traceback for runtime errors)
    int count;          ///< how many times the same message arrived
} app_error;

/* ------------------------------------------------------------------ overlays */

enum {
    OV_VELOCITY = 1 << 0,
    OV_FORCE = 1 << 1,
    OV_WANDER = 1 << 2,
    OV_CONE = 1 << 3,
    OV_FEELERS = 1 << 4,
    OV_LINKS = 1 << 5,
    OV_STATE = 1 << 6,
    OV_PATHS = 1 << 7,
    OV_HUD = 1 << 8,
    OV_ORCA = 1 << 9, ///< the selected agent's ORCA half-planes and velocities
};

/* ------------------------------------------------------------------ time travel */

typedef enum app_mark_kind {
    MARK_SCENE,  ///< world:mark(label)
    MARK_RELOAD, ///< a file reloaded (label: the module)
    MARK_ERROR,  ///< a script error
} app_mark_kind;

typedef struct app_mark {
    long tick;
    app_mark_kind kind;
    char label[48];
} app_mark;

#define APP_MAX_MARKS 1024
#define APP_MAX_EVENTS 512

/// A decision event (steer_lua_set_event_sink): a message delivered, an
/// agent noticed by sight, a noise heard; drawn on the world for a moment
/// and on the timeline (events.c).
typedef struct app_event {
    long tick;             ///< steps_run when it happened
    int kind;              ///< steer_lua_event_kind
    st_agent_id from, to;
    st_vec2 pos;
    char what[24];         ///< a message's kind
} app_event;

/* ------------------------------------------------------------------ the app */

typedef struct watch watch;
typedef struct render_ctx render_ctx;
typedef struct recorder recorder;
typedef struct replayer replayer;
typedef struct tracer tracer;
typedef struct plotter plotter;
typedef struct source_overlay source_overlay;
typedef struct rewinder rewinder;

typedef struct app {
    app_options opt;

    /* files */
    char scripts_dir[PATH_MAX]; ///< resolved built-in scripts folder
    char scene_path[PATH_MAX];  ///< resolved scene file
    char scene_dir[PATH_MAX];
    char scene_module[256];     ///< its module name (file name without .lua)
    watch *watcher;
    double next_poll;           ///< seconds (app clock) of the next watcher poll

    /* Lua */
    lua_State *L;
    int scene_ref;   ///< registry ref of the scene table, LUA_NOREF until loaded
    int world_ref;   ///< registry ref of the world userdata
    int gfx_ref;     ///< registry ref of the gfx table
    st_world *world; ///< the core world behind world_ref (NULL: none)
    lua_CFunction world_new; ///< steer.world's C function, taken as the state opens
    bool scene_ok;   ///< the scene module loaded and load() ran
    bool update_paused; ///< scene.update raised: skipped until the scene reloads
    bool draw_paused;
    uint64_t seed;
    char title[128];

    /* simulation */
    double dt;
    double accumulator;
    double time_scale;
    bool paused;
    int pending_steps;   ///< single steps requested while paused
    double ms_per_step;  ///< smoothed
    double step_ms_total;
    long steps_run;
    int error_total;     ///< script errors since start

    /* view and input */
    render_ctx *gfx_target; ///< where gfx calls draw (NULL outside drawing)
    bool mouse_valid;
    st_vec2 mouse;          ///< world units
    st_agent_id selected;
    st_agent_id traced;           ///< the agent the world traces forces for
    const st_world *trace_world;  ///< ... in this world
    unsigned overlays;
    bool help;
    double speed_factor, force_factor; ///< cumulative live adjustments, for the HUD
    char flash[256];        ///< a short-lived HUD message (screenshot saved...): app_flash
    double flash_until;
    bool flash_bad;         ///< the flash reports a failure (drawn in red)
    double fps;             ///< frames per second, smoothed (the HUD's)
    double fps_last;        ///< app clock of the last HUD frame (0: none yet)

    /* errors */
    app_error errors[APP_MAX_ERRORS];
    int error_count;

    /* time travel: ticks here count the app's steps since start (steps_run) */
    recorder *rec;          ///< --record (NULL: not recording)
    replayer *rep;          ///< --replay (NULL: not replaying)
    source_overlay *overlay; ///< module sources served instead of the disk's
    rewinder *rewind;       ///< checkpoints (rewind.c)
    unsigned lua_gen;       ///< counts Lua states opened: registry refs of an older one are gone
    struct tracer *tracer;  ///< --trace
    plotter *plot;          ///< the selected agent's history (always kept, drawn with G)
    bool show_plots;
    app_mark marks[APP_MAX_MARKS]; ///< a ring: the newest APP_MAX_MARKS
    int mark_count;         ///< marks made (the ring holds the last APP_MAX_MARKS)
    app_event events[APP_MAX_EVENTS]; ///< decision events (events.c), a ring in tick order
    int event_count;        ///< events kept (the ring holds the last APP_MAX_EVENTS)
    int status;             ///< exit status wanted by a module (replay divergence), 0: none
    bool quiet;             ///< a rewind (or a reference run) re-runs the past: its news were told the first time
    long branch_tick;       ///< the last tick a rewind branched from (0: none)
    long resim_from;        ///< where the last rewind re-simulated from (a checkpoint's tick, 0: the start)
    bool seek_pending;      ///< a timeline click or drag asked for seek_to (done once a frame)
    long seek_to;

    /* the Lua console (console.c) */
    bool console_open;
    bool console_skip;      ///< drop the text event of the ` that opened it
    bool console_bad;       ///< console_out is an error
    char console_text[256]; ///< the line being typed
    char console_out[256];  ///< the last line's values or error

    bool quit;
} app;

/* ------------------------------------------------------------------ util.c */

/// Seconds since start, monotonic.
double app_clock(void);
/// snprintf for display text, where cutting a long name short is fine.
void app_format(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ hud.c */

typedef enum app_flash_kind {
    FLASH_OK,  ///< news (drawn in green)
    FLASH_BAD, ///< a failure (drawn in red)
} app_flash_kind;

/// Shows a one-line message at the top of the HUD for `seconds`, replacing
/// any message shown.
void app_flash(app *a, app_flash_kind kind, double seconds, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ------------------------------------------------------------------ scene.c */

/// Resolves paths, opens the Lua host and loads the scene. False only when
/// the host cannot be created; a scene that fails to load leaves scene_ok
/// false with the error reported.
bool app_start(app *a, const app_options *opt);
void app_shutdown(app *a);
/// Closes the Lua state and loads the scene at path afresh (Tab cycling).
bool app_switch_scene(app *a, const char *path);
/// Reruns scene.load on a fresh world with the same seed (EV_RESTART's effect).
void scene_restart(app *a);
/// scene.update then world:step, timed; counts the step (steps_run).
void scene_step(app *a);
/// Whether the scene has a function `name` (a key with no keypressed is no input).
bool scene_has_callback(app *a, const char *name);
/// Calls scene.mousepressed / scene.keypressed (when present).
void scene_mousepressed(app *a, st_vec2 p, int button);
void scene_keypressed(app *a, const char *key);
/// Calls scene.draw and every brain's draw, with gfx aimed at ctx.
void app_draw_scripts(app *a, render_ctx *ctx);
/// The state name of an agent's `self` (self.state, or self.state.name) in buf.
bool app_state_name(app *a, st_agent_id id, char *buf, size_t n);
/// Listens for the decision events of the Lua state L (events.c).
void app_events_install(app *a, lua_State *L);
/// The recent decision events on the world view (events.c).
void app_events_draw(app *a, render_ctx *c);
/// The decision events up to now as ticks under the timeline's track from
/// (x, y), w wide for `span` ticks: the selected agent's, or all.
void app_events_draw_timeline(const app *a, render_ctx *c, float x, float y, float w, float span, long now);
/// The selected agent's `self` table as "key = value" lines in buf.
void app_describe_self(app *a, st_agent_id id, char *buf, size_t n);
/// The selected agent's behaviour tree (a steer.bt state in its `self`),
/// one node a line, "> " before the running leaf and its ancestors; "" when
/// it has none.
void app_describe_tree(app *a, st_agent_id id, char *buf, size_t n);
/// Records an error: printed once on stderr, kept for the HUD.
void app_report_error(app *a, app_error_kind kind, const char *key, const char *msg);
/// The scene files in scripts/ (sorted), for Tab; returns how many.
int app_list_scenes(const app *a, char paths[][PATH_MAX], int cap);
/// Number of agents with a brain paused by an error.
int app_paused_brains(app *a);

typedef enum scene_reload_result {
    SCENE_RELOAD_NONE,   ///< not a module in use: nothing happened
    SCENE_RELOAD_OK,     ///< reloaded (or the scene started afresh and loaded)
    SCENE_RELOAD_FAILED, ///< tried: the old code keeps running
} scene_reload_result;
/// Reloads the file at path (root: 0 scene folder, 1 scripts/, where it was
/// seen) in place, or starts a scene that never loaded afresh; the module's
/// name in module.
scene_reload_result scene_reload_file(app *a, const char *path, int root, char *module, size_t n);
/// A fresh Lua state and world for the same scene and options, quietly (rewinds).
void app_reopen(app *a);

/* ------------------------------------------------------------------ event.c */

/// The live inputs, each made an event and applied in one place (event.h):
/// key R; a key or click for the scene; a console line (the inspector's
/// edits are console lines); [ ] ; ' (every agent's max speed, or force,
/// times factor); a changed file (root: 0 scene folder, 1 scripts/).
void app_restart(app *a);
void app_keypressed(app *a, const char *key);
void app_mousepressed(app *a, st_vec2 p, int button);
void app_console_run(app *a, const char *line);
void app_scale(app *a, bool speed, double factor);
void app_reload_file(app *a, const char *path, int root);
/// Polls the watcher (at most every 50 ms) and reloads what changed.
void app_poll_files(app *a, double now);
/// One fixed step: the events due, the scene's step, its record, plots, checkpoints.
void app_step(app *a);
/// Scales every agent's max speed (speed) or max force by factor, and the
/// app's running factor (EV_SCALE's effect).
void app_scale_agents(app *a, bool speed, double factor);
/// Adds a mark to the timeline (and the journal).
void app_add_mark(app *a, app_mark_kind kind, const char *label);

/* ------------------------------------------------------------------ record.c */

/// Opens --record / --replay / --trace and installs the module loader; after
/// open_lua. False (message printed) when a file cannot be used.
bool tt_open(app *a);
/// Before app_start: reads --replay (filling o from its header) and opens
/// --record. False (message printed) when a file cannot be used.
bool tt_prepare(app *a, app_options *o);
void tt_close(app *a);
void tt_scene_switched(app *a, const char *path);
/// The marks of the whole recording being replayed (past and future) in out.
int tt_replay_marks(const app *a, app_mark *out, int cap);
/// The replay's last tick (its end), or -1 when not replaying.
long tt_replay_end(const app *a);
/// Prints the replay verdict; returns the exit status it calls for.
int tt_replay_finish(app *a);
/// Files are not polled while a --replay feeds its own reloads.
bool tt_replaying(const app *a);
/// --record is on (the journal is always kept, for rewinds).
bool tt_recording(const app *a);
/// The newest tick known (ahead of steps_run after a rewind).
long tt_head(const app *a);
/// Goes to tick target (0 .. tt_head): back by re-simulating from the start
/// with the journal's inputs and sources, forward by stepping through the
/// journal. Leaves the app paused. False when it cannot (a --replay runs).
bool tt_rewind_to(app *a, long target);
/// In the past: drops the future after the current tick and goes live from
/// here (a live input in the past does this first: event_live).
void tt_branch(app *a);
/// --rewind-test: back `by` ticks, then forward one tick at a time, checking
/// each tick's checksum against the first pass; prints the result, 0 if equal.
int tt_rewind_test(app *a, long by);
/// Once a frame in the window: a pending timeline seek.
void tt_frame(app *a);
/// The timeline bar's tick under the window point (x, y), or -1.
long timeline_hit(app *a, const render_ctx *c, int x, int y);

/* ------------------------------------------------------------------ console.c */

/// Opens the console with text on its line (NULL: empty).
void console_open(app *a, const char *text);
/// While the console is open: takes Esc and ` (closing it) and the text of
/// the ` that opened it (true); the rest is its line's (ui_event).
bool console_handle(app *a, const SDL_Event *e);
/// Evaluates a console line in the scene's state (EV_CONSOLE's effect); its
/// values or error are printed and shown.
void console_exec(app *a, const char *line);
/// While the console's text field does not have the keyboard (the frame it
/// opens, the frame after Enter): typed text, Enter and Backspace on its
/// line, so no key typed then is lost. True when the event was the line's.
bool console_type(app *a, const SDL_Event *e);

/* ------------------------------------------------------------------ plot.c */

plotter *plot_new(void);
void plot_free(plotter *p);
/// Samples the selected agent after a step (clears the history on a new selection).
void plot_sample(app *a);

/* ------------------------------------------------------------------ rewind.c */

rewinder *rewind_new(size_t budget_mb, long every);
void rewind_free(app *a);
/// After a step: a checkpoint every --rewind-every ticks (ring bounded by --rewind-mb).
void rewind_after_step(app *a);
/// A reload or a restart: the code or the world changed, older checkpoints no longer apply.
void rewind_new_epoch(app *a);
/// A branch at tick: checkpoints after it belong to the dropped future.
void rewind_branch(app *a, long tick);
/// Restores the newest usable checkpoint at or before target (and before
/// now); returns its tick, or -1 when there is none.
long rewind_restore(app *a, long target);
size_t rewind_bytes(const app *a);
int rewind_count(const app *a);

/* ------------------------------------------------------------------ trace.c */

tracer *trace_open(app *a, const char *path, const char *fields);
void trace_close(tracer *t);
void trace_rows(app *a, tracer *t);

/* ------------------------------------------------------------------ window.c */

/// Runs the windowed app. Returns the process exit status (2: no display).
int app_run_window(app *a);

/* ------------------------------------------------------------------ headless.c */

int app_run_headless(app *a);
/// Renders one frame of the current state into a w x h software surface and
/// saves it as PNG. Works with no display.
bool app_save_screenshot_headless(app *a, const char *path, int w, int h);

#endif
