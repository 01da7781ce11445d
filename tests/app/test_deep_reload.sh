#!/bin/sh
# Deep hot reload end to end, headless --realtime: 100 agents keep instances
# of a hand-written class (inheritance two levels deep, a mixin) in self,
# and a helper module with state; this script edits a class method, the
# mixin, the helper and the scene with sed while the app runs, and asserts
# from the output that every instance changed on the next step, the helper
# kept its count, world.user survived the scene's reload, the reload
# messages say what changed, and a save that changes nothing says so.
#
# usage: sh test_deep_reload.sh <steer binary> <source dir>
# shellcheck source=tests/app/live_app.sh
. "$(dirname "$0")/live_app.sh"
# field NAME LINE: the value of NAME= in LINE
field() { echo "$2" | sed "s/.* $1=\([^ ]*\).*/\1/"; }
# The summary lines printed after the line matching PATTERN (by line number).
after() { awk -v pat="$1" 'found && /^scene-v/ { print } $0 ~ pat { found = 1 }' "$OUT"; }
# Edits FILE in place the way an editor saves: a new file renamed over it.
edit() {
    sed "$2" "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

cp "$SRC/tests/app/scenes/deep_scene.lua" "$SRC/tests/app/scenes/deep_brain.lua" \
   "$SRC/tests/app/scenes/deep_tally.lua" "$TMP/"
: >"$OUT"
"$APP" --realtime "$TMP/deep_scene.lua" >"$OUT" 2>&1 &
PID=$!

wait_count '^scene-v1 .* said speak-v1/dog=50 speak-v1/puppy=50$' 2
echo "ok: 100 instances running v1"

# 1. A method of the root class, edited with sed while 100 instances exist.
edit "$TMP/deep_brain.lua" 's/return "speak-v1"/return "speak-v2"/'
wait_count '^reload: ok deep_brain ' 1
MSG=$(grep '^reload: ok deep_brain ' "$OUT" | head -n 1)
echo "$MSG"
echo "$MSG" | grep -qE '^reload: ok deep_brain \(1 function replaced, 1 class patched, 100 agents\) ' \
    || fail "the reload message does not tell what changed"
wait_count '^scene-v1 .* said speak-v2/dog=50 speak-v2/puppy=50$' 1
# The first summary after the reload reads the selves the last step left
# (a step may have run before it); the second must show all 100 changed.
i=0
while [ "$(after '^reload: ok deep_brain ' | wc -l)" -lt 2 ]; do
    i=$((i + 1)); [ $i -gt 600 ] && fail "no second summary after the reload"; sleep 0.1
done
SECOND=$(after '^reload: ok deep_brain ' | sed -n 2p)
echo "$SECOND" | grep -q 'said speak-v2/dog=50 speak-v2/puppy=50$' \
    || fail "not every instance changed on the next step: $SECOND"
echo "ok: every instance speaks v2 on the next step"

# 2. The mixin copied into Puppy.
edit "$TMP/deep_brain.lua" 's/function Wag:wag() return "" end/function Wag:wag() return "+wag" end/'
wait_count '^reload: ok deep_brain ' 2
wait_count 'said speak-v2/dog=50 speak-v2/puppy\+wag=50$' 1
echo "ok: the mixin's new body reached the puppies"

# 3. The helper module: its count goes on, the brains call its new add.
BEFORE=$(grep '^scene-v1 ' "$OUT" | tail -n 1)
T0=$(field tally "$BEFORE")
edit "$TMP/deep_tally.lua" 's/    M.n = M.n + 1/    M.n = M.n + 1; M.last = "tally-v2"/'
wait_count '^reload: ok deep_tally ' 1
grep '^reload: ok deep_tally ' "$OUT" | head -n 1
wait_count ' last=tally-v2 ' 1
T1=$(field tally "$(grep ' last=tally-v2 ' "$OUT" | head -n 1)")
[ "$T1" -gt "$T0" ] || fail "the helper's count went back from $T0 to $T1: its state was reset"
echo "ok: helper reloaded, its count kept ($T0 -> $T1), brains call its new add"

# 4. The scene itself: world.user survives, load does not run again.
U0=$(field ticks "$(grep '^scene-v1 ' "$OUT" | tail -n 1)")
edit "$TMP/deep_scene.lua" 's/local SCENE_VERSION = "scene-v1"/local SCENE_VERSION = "scene-v2"/'
wait_count '^reload: ok deep_scene ' 1
grep '^reload: ok deep_scene ' "$OUT" | head -n 1
wait_count '^scene-v2 ' 1
LINE=$(grep '^scene-v2 ' "$OUT" | head -n 1)
U1=$(field ticks "$LINE")
[ "$(field loads "$LINE")" = 1 ] || fail "scene.load ran again: $LINE"
[ "$U1" -gt "$U0" ] || fail "world.user.ticks went back from $U0 to $U1"
echo "ok: scene reloaded, world.user kept (ticks $U0 -> $U1, loads 1)"

# 5. A save that changes nothing.
cp "$TMP/deep_brain.lua" "$TMP/deep_brain.lua.tmp" && mv "$TMP/deep_brain.lua.tmp" "$TMP/deep_brain.lua"
touch "$TMP/deep_brain.lua"
wait_count '^reload: no change deep_brain ' 1
grep '^reload: no change deep_brain ' "$OUT" | head -n 1
echo "ok: an unchanged save says 'no change'"

kill -TERM "$PID"
wait "$PID"
PID=
grep -qE '^ticks=[0-9]+ agents=100 .* errors=0$' "$OUT" || fail "no clean summary line after SIGTERM"
echo "PASS"
