#!/bin/sh
# The demo's headless screenshot is a valid PNG that shows agents: compared
# with the same frame of the demo with its agents removed (same obstacles,
# HUD and scene text), it has more colours and less background. No display
# is needed: the frame comes from SDL's software renderer.
#
# usage: sh test_screenshot.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

CC=${CC:-cc}
# shellcheck disable=SC2046
$CC -O1 -o "$TMP/pngstat" "$SRC/tests/app/pngstat.c" $(pkg-config --cflags --libs sdl2 SDL2_image) \
    || fail "cannot build the PNG checker"

"$APP" --headless --ticks 120 --screenshot "$TMP/demo.png" >"$TMP/demo.out" 2>&1 \
    || { cat "$TMP/demo.out"; fail "the demo's headless run failed"; }
grep -q '^screenshot: ' "$TMP/demo.out" || fail "no screenshot line"
"$APP" --headless --ticks 120 --screenshot "$TMP/empty.png" "$SRC/tests/app/scenes/hunt_without_agents.lua" \
    >"$TMP/empty.out" 2>&1 || { cat "$TMP/empty.out"; fail "the agent-less demo's run failed"; }

# A PNG starts with \211PNG\r\n\032\n.
[ "$(od -An -tx1 -N8 "$TMP/demo.png" | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG file"

set -- $("$TMP/pngstat" "$TMP/demo.png") || fail "cannot read demo.png"
W=$1 H=$2 COLOURS=$3 BG=$4
set -- $("$TMP/pngstat" "$TMP/empty.png") || fail "cannot read empty.png"
E_COLOURS=$3 E_BG=$4
echo "demo:  ${W}x${H}, $COLOURS colours, background share $BG"
echo "no agents: $E_COLOURS colours, background share $E_BG"

# the scene's 960x640 at scale 1, and the timeline's band of 38 pixels under
# it (as in the window: the panels keep off the scene's own drawing)
[ "$W" -eq 960 ] && [ "$H" -eq 678 ] || fail "the screenshot is ${W}x${H}, not the scene's 960x640 + 38"
[ "$COLOURS" -ge 20 ] || fail "only $COLOURS colours: a blank frame"
[ "$COLOURS" -gt "$E_COLOURS" ] || fail "no more colours than the demo without agents"
# 43 agents of ~40 px each (plus the hunters' stamina bars) cover at least
# 0.15% of the frame more than the same frame without them.
awk -v d="$BG" -v e="$E_BG" 'BEGIN { exit !(d < e - 0.0015) }' \
    || fail "the demo's frame looks like a frame with no agents ($BG vs $E_BG)"
echo "ok: the demo's frame shows agents"

# gfx from a scene's draw lands where it should: a filled magenta disc of
# radius 30 is ~2827 pixels of exactly that colour.
"$APP" --headless --ticks 1 --screenshot "$TMP/gfx.png" "$SRC/tests/app/scenes/gfx_scene.lua" >"$TMP/gfx.out" 2>&1 \
    || { cat "$TMP/gfx.out"; fail "the gfx scene failed"; }
grep -q '^GFX OK$' "$TMP/gfx.out" || { cat "$TMP/gfx.out"; fail "gfx checks did not pass"; }
set -- $("$TMP/pngstat" "$TMP/gfx.png" 255,0,255) || fail "cannot read gfx.png"
echo "gfx: ${1}x${2}, magenta pixels $5"
[ "$5" -gt 2400 ] && [ "$5" -lt 3300 ] || fail "the magenta disc covers $5 pixels, not ~2827"
echo "ok: gfx draws in world units"
echo "PASS"
