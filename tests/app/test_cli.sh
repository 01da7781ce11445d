#!/bin/sh
# The command line: --help lists every option, an unknown option is a usage
# error (exit 2), and with no display the window says so in one line,
# suggests --headless and exits 2 without crashing.
#
# usage: sh test_cli.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

"$APP" --help >"$TMP/help" 2>&1 || fail "--help did not exit 0"
for opt in --headless --ticks --seed --screenshot --draw-frames --realtime --threads --trust --budget --memory --help; do
    grep -q -- "$opt" "$TMP/help" || fail "--help does not list $opt"
done
echo "ok: --help lists every option"

"$APP" --no-such-option >"$TMP/out" 2>&1
[ $? -eq 2 ] || fail "an unknown option did not exit 2"
grep -q "unknown option '--no-such-option'" "$TMP/out" || fail "no message for the unknown option"
"$APP" --headless --ticks lots >"$TMP/out" 2>&1
[ $? -eq 2 ] || fail "a bad --ticks value did not exit 2"
"$APP" --headless --ticks 5 "$TMP/missing.lua" >"$TMP/out" 2>&1
[ $? -ne 0 ] || fail "a missing scene file exited 0"
echo "ok: usage errors exit 2"

# scene.config passes dt, cell_size and contacts on to steer.world, which checks them.
cat >"$TMP/config.lua" <<'EOF2'
local scene = { config = { width = 500, height = 400, dt = 1 / 30, cell_size = 80, contacts = true } }
function scene.load(world)
    print(string.format("config: dt=%.6f cell_size=%g width=%g contacts=%s", world.dt, world.cell_size, world.width,
                        tostring(world.contacts)))
end
return scene
EOF2
"$APP" --headless --ticks 3 "$TMP/config.lua" >"$TMP/out" 2>&1 || fail "a scene with dt and cell_size failed: $(cat "$TMP/out")"
grep -q "config: dt=0.033333 cell_size=80 width=500 contacts=true" "$TMP/out" || fail "scene.config dt/cell_size/contacts not applied: $(cat "$TMP/out")"
sed -i 's/cell_size = 80/cell_size = -1/' "$TMP/config.lua"
"$APP" --headless --ticks 3 "$TMP/config.lua" >"$TMP/out" 2>&1
[ $? -ne 0 ] || fail "a bad cell_size in scene.config was accepted"
grep -q "scene.config.*cell_size" "$TMP/out" || fail "no scene.config error naming cell_size: $(cat "$TMP/out")"
echo "ok: scene.config takes dt, cell_size and contacts, and a bad one is a scene.config error"

# The app makes the world with steer.world's own C function, taken before the
# scene runs: a scene that assigns steer.world does not change how it is made.
cat >"$TMP/hijack.lua" <<'EOF2'
local steer = require "steer"
steer.world = function() error("the scene's own steer.world ran") end
local scene = { config = { width = 321, height = 123 } }
function scene.load(world) print(string.format("world: %gx%g", world.width, world.height)) end
return scene
EOF2
# (In the sandbox steer's tables are read-only, so the assignment itself is
# refused; with --trust it goes through, and the app still makes its own.)
"$APP" --headless --ticks 1 --trust "$TMP/hijack.lua" >"$TMP/out" 2>&1 || fail "a scene that assigns steer.world did not load: $(cat "$TMP/out")"
grep -q "world: 321x123" "$TMP/out" || fail "the app's world is not scene.config's: $(cat "$TMP/out")"
"$APP" --headless --ticks 1 "$TMP/hijack.lua" >"$TMP/out" 2>&1
grep -q "cannot change 'steer.world'" "$TMP/out" || fail "the sandbox let a scene assign steer.world: $(cat "$TMP/out")"
echo "ok: a scene that assigns steer.world does not change how the app makes its world (refused in the sandbox)"

# No display at all: no X, no Wayland, and no driver forced (ctest sets the
# dummy one, which is a display of sorts).
env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$APP" >"$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
[ $rc -eq 2 ] || fail "with no display the exit status was $rc, not 2"
grep -q "no display" "$TMP/out" || fail "no 'no display' message"
grep -q -- "--headless" "$TMP/out" || fail "the message does not suggest --headless"
[ "$(grep -c . "$TMP/out")" -eq 1 ] || fail "more than one line of output"
echo "ok: no display -> one line, exit 2"
echo "PASS"
