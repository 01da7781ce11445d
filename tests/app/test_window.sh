#!/bin/sh
# The app in a real window under Xvfb, driven by --events (inputs pushed
# through the same routing as a real key or click) for --frames frames:
#
#  - input routing: a click that selects an agent is the app's (the agent
#    count does not change, in a test scene and in the demo, where a click
#    the scene hears drops a prey); a click on empty space reaches
#    scene.mousepressed; a click on a panel (the HUD, the F1 help) reaches
#    nothing; a right click reaches the scene;
#  - the README's first brain and scene ("Writing a brain") run 120 frames
#    with errors=0, and headless with --draw too; the same brain without the
#    state its draw reads counts an error headless (so the check can fail);
#  - F1 + a selection + plots + the paused timeline open together (and the
#    console too): no two windows' rectangles overlap, and each lies inside
#    the window;
#  - a number of the selected agent's self edited in the agent window (click,
#    type, Enter) while in the past runs as a console line, branches, and
#    replays identically.
#
# Skipped with a message where xvfb-run is missing.
#
# usage: sh test_window.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

case $APP in /*) ;; *) APP=$(pwd)/$APP ;; esac # the README's scene runs in its own folder
command -v xvfb-run >/dev/null 2>&1 || { echo "SKIP: xvfb-run is not installed (apt-get install xvfb xauth)"; exit 0; }

# ctest gives the app tests SDL's dummy video driver; these run on X11, in
# Xvfb's screen: a real window, real events, a real renderer. Under
# valgrind (make test-valgrind's wrapper) they keep the dummy driver: the
# same window loop and event routing, without the X and GL libraries, whose
# own blocks lost at exit (Mesa's driver, an input method's D-Bus
# connection) valgrind would count as leaks of ours.
# (no X display at all there: D-Bus would find its session bus through it)
VG=
case $APP in
*steer-valgrind) VG=1 && echo "note: under valgrind: SDL's ${SDL_VIDEODRIVER:-default} video driver, not X11" ;;
*) SDL_VIDEODRIVER=x11 && export SDL_VIDEODRIVER ;;
esac
# xrun SCREEN CMD...: CMD in an Xvfb screen of that size (under valgrind: with no display)
xrun() {
    screen=$1
    shift
    if [ -n "$VG" ]; then
        timeout 900 env -u DISPLAY "$@"
    else
        timeout 300 xvfb-run -a -s "-screen 0 ${screen}x24" "$@"
    fi
}
# window SCENE FRAMES EVENTS OUT: the app in a 1280x800 Xvfb screen.
window() {
    xrun 1280x800 "$APP" "$1" --frames "$2" --events "$3" >"$4" 2>&1
}
# state N KEY OUT: the value of KEY in the `state:` line of frame N.
state() {
    sed -n "s/^state: frame=$1 .*\\b$2=\\([0-9]*\\).*/\\1/p" "$3"
}

# ---- routing in a scene whose every heard click spawns an agent
cat >"$TMP/clicks.ev" <<'EOF'
2 state
3 click-agent 0
5 state
6 click-world 700 250
8 state
9 click 20 20
11 state
12 key F1
14 click 400 200
16 state
17 key F1
18 click-agent 1 2
20 state
EOF
window "$SRC/tests/app/scenes/click_scene.lua" 24 "$TMP/clicks.ev" "$TMP/clicks.out" \
    || { cat "$TMP/clicks.out"; fail "the click scene's window run failed"; }
O=$TMP/clicks.out
[ "$(state 2 agents "$O")" = 3 ] || { cat "$O"; fail "the scene did not start with 3 agents"; }
[ "$(state 5 agents "$O")" = 3 ] || { cat "$O"; fail "a click that selects an agent reached the scene"; }
[ "$(state 5 selected "$O")" != 0 ] || { cat "$O"; fail "a click on an agent did not select it"; }
[ "$(state 8 agents "$O")" = 4 ] || { cat "$O"; fail "a click on empty space did not reach the scene"; }
grep -q '^heard click 1 at 700,250$' "$O" || { cat "$O"; fail "the scene heard the click elsewhere"; }
[ "$(state 8 selected "$O")" = 0 ] || { cat "$O"; fail "a click on empty space kept the selection"; }
[ "$(state 11 agents "$O")" = 4 ] || { cat "$O"; fail "a click on the HUD reached the scene"; }
[ "$(state 16 help "$O")" = 1 ] || { cat "$O"; fail "F1 did not open the help"; }
[ "$(state 16 agents "$O")" = 4 ] || { cat "$O"; fail "a click on the help panel reached the scene"; }
[ "$(state 20 agents "$O")" = 5 ] || { cat "$O"; fail "a right click did not reach the scene"; }
grep -q '^frames=24 .* errors=0$' "$O" || { cat "$O"; fail "no clean summary line"; }
echo "ok: selecting is the app's, empty space and right clicks the scene's, panels swallow clicks"

# ---- the issue's case: in the demo, selecting a hunter while paused adds no prey
cat >"$TMP/demo.ev" <<'EOF'
2 key Space
4 state
5 click-agent 0
7 state
EOF
window "$SRC/scripts/hunt.lua" 10 "$TMP/demo.ev" "$TMP/demo.out" || { cat "$TMP/demo.out"; fail "the demo's window run failed"; }
[ "$(state 4 agents "$TMP/demo.out")" = 43 ] || { cat "$TMP/demo.out"; fail "the demo did not have 43 agents"; }
[ "$(state 7 agents "$TMP/demo.out")" = 43 ] || { cat "$TMP/demo.out"; fail "selecting in the demo changed the agent count"; }
[ "$(state 7 selected "$TMP/demo.out")" != 0 ] || { cat "$TMP/demo.out"; fail "the demo's click selected nothing"; }
echo "ok: the demo keeps 43 agents when an agent is selected"

# ---- the README's first brain, as printed there
mkdir "$TMP/readme"
awk '/^## Writing a brain/{on=1} on && /^```lua$/{n++; f=(n==1?"chaser.lua":n==2?"my_scene.lua":""); next}
     on && /^```$/{f=""; next} f!=""{print > (dir "/" f)}' dir="$TMP/readme" "$SRC/README.md"
{ [ -s "$TMP/readme/chaser.lua" ] && [ -s "$TMP/readme/my_scene.lua" ]; } || fail "no brain and scene in the README"
: >"$TMP/none.ev"
(cd "$TMP/readme" && window my_scene.lua 120 "$TMP/none.ev" "$TMP/readme.out") \
    || { cat "$TMP/readme.out"; fail "the README's scene failed in the window"; }
grep -q '^frames=120 .* agents=21 .* errors=0$' "$TMP/readme.out" || { cat "$TMP/readme.out"; fail "the README's scene: errors in the window"; }
(cd "$TMP/readme" && "$APP" --headless --draw --ticks 120 my_scene.lua >"$TMP/readme_h.out" 2>&1) \
    || { cat "$TMP/readme_h.out"; fail "the README's scene failed headless with --draw"; }
grep -q 'errors=0$' "$TMP/readme_h.out" || fail "the README's scene: errors headless"
# the same brain with no state set in spawn: its first draw fails, which --draw shows
grep -v 'self.state = "wander"  --' "$TMP/readme/chaser.lua" >"$TMP/readme/c" && mv "$TMP/readme/c" "$TMP/readme/chaser.lua"
(cd "$TMP/readme" && "$APP" --headless --draw --ticks 120 my_scene.lua >"$TMP/readme_b.out" 2>&1)
grep -q 'errors=[1-9]' "$TMP/readme_b.out" || { cat "$TMP/readme_b.out"; fail "--draw missed the draw error"; }
echo "ok: the README's brain runs 120 frames in the window with errors=0"

# ---- R in a recorded window session: a restart mark on the timeline (and in
# the record), which replays identically; a rewind with --rewind-mb 0 says
# that it has no checkpoints
cat >"$TMP/restart.ev" <<'EOF2'
20 key R
40 key Space
42 key Left
44 state
EOF2
xrun 1280x800 "$APP" "$SRC/scripts/hunt.lua" --frames 50 --events "$TMP/restart.ev" \
    --record "$TMP/restart.rec" --rewind-mb 0 >"$TMP/restart.out" 2>&1 || { cat "$TMP/restart.out"; fail "the recorded window run failed"; }
R=$(sed -n 's/^restart \([0-9]*\)$/\1/p' "$TMP/restart.rec")
[ -n "$R" ] || { cat "$TMP/restart.rec"; fail "R was not recorded"; }
grep -q "^mark $R scene restart$" "$TMP/restart.rec" || fail "no restart mark at tick $R"
grep -q 'rewind: no checkpoints (--rewind-mb 0)' "$TMP/restart.out" || { cat "$TMP/restart.out"; fail "no 'no checkpoints' message"; }
"$APP" --headless --replay "$TMP/restart.rec" >"$TMP/replay.out" 2>&1 || { cat "$TMP/replay.out"; fail "the window session does not replay"; }
grep -q '^replay: identical' "$TMP/replay.out" || { cat "$TMP/replay.out"; fail "the window session replays differently"; }
echo "ok: R is marked at tick $R and replays identically; --rewind-mb 0 says so at the first rewind"

# ---- F1 + a selection + plots + the paused timeline (and a message) open
# together: every panel drawn, inside the window, no two overlapping, in the
# demo's own window; in a small one (700x560 screen) the layout cuts panels
# short or leaves out those that fit nowhere, and still overlaps none
cat >"$TMP/panels.ev" <<'EOF2'
3 key Space
5 click-agent 0
6 key F1
7 key G
9 panels
9 state
EOF2
# check_panels OUT [NEED]: the `panels` report of OUT, checked: inside the
# window, no two overlapping, and the panels named in NEED all drawn
check_panels() {
    grep -q '^state: frame=9 .*selected=[1-9].*paused=1 help=1 plots=1' "$1" || { cat "$1"; fail "not all open"; }
    awk '
        /^panel / { n++; name[n] = $2; x[n] = $3; y[n] = $4; w[n] = $5; h[n] = $6 }
        /^panels: / { split($4, s, "x"); W = s[1]; H = s[2] }
        END {
            bad = 0
            if (W == 0) { print "no panels report"; exit 1 }
            split(needed, need, " ")
            for (k in need) { found = 0; for (i = 1; i <= n; i++) if (name[i] == need[k]) found = 1
                if (!found) { print "panel " need[k] " not drawn"; bad = 1 } }
            for (i = 1; i <= n; i++) {
                if (x[i] < 0 || y[i] < 0 || x[i] + w[i] > W || y[i] + h[i] > H) { print name[i] " outside the window"; bad = 1 }
                for (j = i + 1; j <= n; j++)
                    if (x[i] < x[j] + w[j] && x[j] < x[i] + w[i] && y[i] < y[j] + h[j] && y[j] < y[i] + h[i]) {
                        print name[i] " overlaps " name[j]; bad = 1 }
            }
            if (name[1] != "timeline" || h[1] < 20) { print "the paused timeline is not the full panel"; bad = 1 }
            exit bad
        }' needed="$2" "$1" || { grep '^panel' "$1"; fail "the panels overlap or are missing"; }
}
window "$SRC/scripts/hunt.lua" 12 "$TMP/panels.ev" "$TMP/panels.out" || { cat "$TMP/panels.out"; fail "the panels run failed"; }
check_panels "$TMP/panels.out" "stats agent plots help timeline"
xrun 700x560 "$APP" "$SRC/scripts/hunt.lua" --frames 12 --events "$TMP/panels.ev" \
    >"$TMP/small.out" 2>&1 || { cat "$TMP/small.out"; fail "the small window's run failed"; }
check_panels "$TMP/small.out" "stats timeline" # what does not fit there is left out, never overlapped
echo "ok: help, selection, plots and the paused timeline open together, no two panels overlap ($(grep -c '^panel ' "$TMP/panels.out") panels)"

# ---- the inspector and the console: a click on a number of the selected
# agent's self opens the console on its edit; the edited value and a console
# line that spawns an agent take effect, are recorded as `console` lines and
# replay identically (a replay without them would diverge: one agent more)
cat >"$TMP/console.ev" <<'EOF2'
3 key Space
5 click-agent 0
7 click-field state_time
10 text  + 100
11 key Return
12 key Escape
14 key `
16 text world:spawn{ pos = {100, 100} }
17 key Return
18 text (function() for a in world:agents() do if (a.self.state_time or 0) >= 100 then return "edited" end end end)()
19 key Return
20 key Escape
21 state
22 key Space
23 key +
24 key +
25 key +
EOF2
# time x8 after the edits, so the run passes a recorded checksum (every 60 ticks)
xrun 1280x800 "$APP" "$SRC/scripts/hunt.lua" --frames 70 --events "$TMP/console.ev" \
    --record "$TMP/console.rec" >"$TMP/console.out" 2>&1 || { cat "$TMP/console.out"; fail "the console run failed"; }
O=$TMP/console.out
grep -q '^console: agent([0-9]*).self.state_time = [0-9.e-]* + 100$' "$O" || { cat "$O"; fail "the inspector's edit did not run"; }
grep -q '^= edited$' "$O" || { cat "$O"; fail "the edit did not change self.state_time"; }
[ "$(state 21 agents "$O")" = 44 ] || { cat "$O"; fail "the console's spawn did not add an agent"; }
[ "$(state 21 paused "$O")" = 1 ] || { cat "$O"; fail "keys typed into the console reached the app"; }
[ "$(grep -c '^console [0-9]* ' "$TMP/console.rec")" = 3 ] || { grep '^console' "$TMP/console.rec"; fail "not 3 console lines recorded"; }
"$APP" --headless --replay "$TMP/console.rec" >"$TMP/creplay.out" 2>&1 || { cat "$TMP/creplay.out"; fail "the console session does not replay"; }
grep -q '^replay: identical ([1-9]' "$TMP/creplay.out" || { cat "$TMP/creplay.out"; fail "the console session replays differently"; }
grep -q '^= edited$' "$TMP/creplay.out" || { cat "$TMP/creplay.out"; fail "the replay did not run the edit"; }
grep -v '^console ' "$TMP/console.rec" >"$TMP/noconsole.rec"
"$APP" --headless --replay "$TMP/noconsole.rec" >"$TMP/nreplay.out" 2>&1
grep -q '^replay: diverged' "$TMP/nreplay.out" || { cat "$TMP/nreplay.out"; fail "the replay ignores console lines"; }
echo "ok: an inspector edit and a console line are recorded and replay identically"

# ---- the console open with the rest (F1, a selection, plots, the paused
# timeline): six windows, none over another, in both screens
cat >"$TMP/all.ev" <<'EOF2'
3 key Space
5 click-agent 0
6 key F1
7 key G
8 key `
9 panels
9 state
EOF2
window "$SRC/scripts/hunt.lua" 12 "$TMP/all.ev" "$TMP/all.out" || { cat "$TMP/all.out"; fail "the all-windows run failed"; }
check_panels "$TMP/all.out" "stats agent plots help timeline console"
xrun 700x560 "$APP" "$SRC/scripts/hunt.lua" --frames 12 --events "$TMP/all.ev" \
    >"$TMP/all_small.out" 2>&1 || { cat "$TMP/all_small.out"; fail "the small all-windows run failed"; }
check_panels "$TMP/all_small.out" "stats timeline console"
echo "ok: with the console open too, no two windows overlap ($(grep -c '^panel ' "$TMP/all.out") windows)"

# ---- an edit in the agent window, in the past: paused, three ticks back, a
# number of the selected agent's self is clicked, typed into and entered;
# it runs as a console line, branches there, and the session replays
# identically (without the line the replay diverges: the edit mattered)
mkdir "$TMP/edit"
cat >"$TMP/edit/limited.lua" <<'EOF2'
-- its top speed is self.limit, which the test edits in the agent window
local brain = {}
function brain.update(self, agent, dt)
    agent.max_speed = self.limit
    agent:wander()
end
return brain
EOF2
cat >"$TMP/edit/edit_scene.lua" <<'EOF2'
local scene = { config = { width = 800, height = 600, seed = 3, title = "edit" } }
function scene.load(world)
    for i = 1, 5 do
        world:spawn{ pos = { 100 + 120 * i, 300 }, brain = "limited", limit = 40 }
    end
end
return scene
EOF2
cat >"$TMP/edit.ev" <<'EOF2'
30 key Space
32 click-agent 0
34 key Left
35 key Left
36 key Left
38 state
40 click-field limit
42 text  + 100
43 key Return
45 state
46 key Space
47 key +
48 key +
49 key +
EOF2
(cd "$TMP/edit" && xrun 1280x800 "$APP" edit_scene.lua --frames 80 --events "$TMP/edit.ev" --record "$TMP/edit.rec") \
    >"$TMP/edit.out" 2>&1 || { cat "$TMP/edit.out"; fail "the edit run failed"; }
O=$TMP/edit.out
T=$(state 38 tick "$O")
grep -q "^rewind: branch at tick $T " "$O" || { cat "$O"; fail "the edit in the past did not branch at tick $T"; }
grep -q '^console: agent([0-9]*).self.limit = 40 + 100$' "$O" || { cat "$O"; fail "the edit was not the line typed"; }
[ "$(state 45 tick "$O")" = "$T" ] || { cat "$O"; fail "the edit moved time"; }
(cd "$TMP/edit" && "$APP" --headless --replay "$TMP/edit.rec") >"$TMP/ereplay.out" 2>&1 \
    || { cat "$TMP/ereplay.out"; fail "the edit session does not replay"; }
grep -q '^replay: identical ([1-9]' "$TMP/ereplay.out" || { cat "$TMP/ereplay.out"; fail "the edit session replays differently"; }
grep -v '^console ' "$TMP/edit.rec" >"$TMP/enoedit.rec"
(cd "$TMP/edit" && "$APP" --headless --replay "$TMP/enoedit.rec") >"$TMP/enreplay.out" 2>&1
grep -q '^replay: diverged' "$TMP/enreplay.out" || { cat "$TMP/enreplay.out"; fail "the edit changed nothing: the check proves nothing"; }
echo "ok: an edit in the agent window, in the past, branches at tick $T and replays identically"
