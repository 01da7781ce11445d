#!/bin/sh
# Hot reload end to end, with no display: a headless --realtime run while
# this script rewrites a brain and the scene the ways editors do, asserting
# from the program's output that each change was handled and that the
# brain's `self` (a counter) survived every reload.
#
# usage: sh test_hot_reload.sh <steer binary> <source dir>
# Waits on output with generous timeouts; never asserts how fast anything is.
# shellcheck source=tests/app/live_app.sh
. "$(dirname "$0")/live_app.sh"
# The n= of the last / first line matching PATTERN.
last_n() { grep -E "$1" "$OUT" | tail -n 1 | sed 's/.*n=\([0-9]*\).*/\1/'; }
first_n() { grep -E "$1" "$OUT" | head -n 1 | sed 's/.*n=\([0-9]*\).*/\1/'; }

cp "$SRC/tests/app/scenes/reload_scene.lua" "$SRC/tests/app/scenes/counter.lua" "$TMP/"
BRAIN=$TMP/counter.lua
# The brain as shipped, at version $1.
brain_version() {
    sed "s/^local VERSION = 1/local VERSION = $1/" "$SRC/tests/app/scenes/counter.lua"
}

# The output file exists before the app starts: the background shell may not
# have opened it yet when the first wait looks.
: >"$OUT"
"$APP" --realtime "$TMP/reload_scene.lua" >"$OUT" 2>&1 &
PID=$!

wait_count '^counter v1 n=' 2
echo "ok: running v1"

# 1. A good edit, written in place (truncate then write).
N1=$(last_n '^counter v1 n=')
brain_version 2 >"$BRAIN"
wait_count '^reload: ok counter ' 1
grep -q '^reload: ok counter (0 functions replaced, 1 value changed, 1 agent) ' "$OUT" \
    || fail "the reload message does not say what changed (VERSION 1 -> 2: one value)"
wait_count '^reloaded v2 n=' 1
wait_count '^counter v2 n=' 1
R2=$(last_n '^reloaded v2 n=')
[ "$R2" -ge "$N1" ] || fail "self.n went back from $N1 to $R2: state lost on reload"
[ "$(count '^scene load')" -eq 1 ] || fail "the scene's load ran again on a brain reload"
echo "ok: good edit reloaded, self.n kept ($N1 -> $R2)"

# 2. A syntax error: reported as file:line: message, the old code keeps running.
printf 'local brain = {\nfunction brain.update(self) end\nreturn brain\n' >"$BRAIN"
wait_count 'load error: .*counter\.lua:[0-9]+:' 1
BEFORE=$(count '^counter v2 n=')
wait_count '^counter v2 n=' $((BEFORE + 2))
echo "ok: syntax error reported, v2 keeps running"

# 3. A runtime error: the brain pauses, the error shows once with a traceback.
brain_version 3 | sed 's/^    self.n = self.n + 1$/    self.n = self.n + 1; if self.n > 0 then error("boom at " .. self.n) end/' >"$BRAIN"
grep -q 'boom at' "$BRAIN" || fail "test setup: could not write the failing brain"
wait_count '^reload: ok counter ' 2
wait_count 'runtime error: .*boom at' 1
grep -q 'stack traceback' "$OUT" || fail "the runtime error came without a traceback"
# Give it time to (wrongly) repeat: the app keeps stepping meanwhile.
sleep 1
[ "$(count 'runtime error: .*boom at')" -eq 1 ] || fail "the runtime error was shown more than once"
[ "$(count '^counter v3 n=')" -eq 0 ] || fail "a paused brain kept printing"
kill -0 "$PID" || fail "the app died on a runtime error"
echo "ok: runtime error shown once, brain paused, app alive"

# 4. A rename-save (write a temporary file, rename it over the brain): the
# good code resumes the paused brain with its state.
brain_version 4 >"$TMP/.counter.lua.swp"
mv "$TMP/.counter.lua.swp" "$BRAIN"
wait_count '^reloaded v4 n=' 1
wait_count '^counter v4 n=' 1
# The first line after the reload: a counter restarted from 0 would show 20.
N4=$(first_n '^counter v4 n=')
[ "$N4" -gt "$R2" ] || fail "self.n after the rename-save ($N4) is not past $R2: state lost"
echo "ok: rename-save reloaded, brain resumed, self.n kept ($R2 -> $N4)"

# 5. Delete, then recreate.
rm "$BRAIN"
sleep 0.5
brain_version 5 >"$BRAIN"
wait_count '^counter v5 n=' 1
N5=$(first_n '^counter v5 n=')
[ "$N5" -gt "$N4" ] || fail "self.n after delete+recreate ($N5) is not past $N4"
echo "ok: delete then recreate reloaded ($N4 -> $N5)"

# 5b. The brain replaced by a directory, then a file again: nothing is
# loaded from the directory, the app keeps running, the file reloads.
# The file comes back unchanged: the reload says so (and still resumes and
# calls brain.reload, as any save does).
R5=$(count '^reload: (ok|no change) counter ')
rm "$BRAIN"
mkdir "$BRAIN"
sleep 1
kill -0 "$PID" 2>/dev/null || fail "the app exited when the brain became a directory"
N5B=$(last_n '^counter v5 n=')
RL5=$(count '^reloaded v5 n=')
rmdir "$BRAIN"
brain_version 5 >"$BRAIN"
wait_count '^reload: (ok|no change) counter ' $((R5 + 1))
wait_count '^reloaded v5 n=' $((RL5 + 1))
grep -E '^reload: (ok|no change) counter ' "$OUT" | tail -n 1 | grep -q '^reload: no change counter ' \
    || fail "the same file again did not report 'reload: no change'"
N6=$(last_n '^reloaded v5 n=')
[ "$N6" -ge "$N5B" ] || fail "self.n after the directory ($N6) went back from $N5B"
echo "ok: a directory in the brain's place was ignored, the same file back is 'no change' ($N5B -> $N6)"

# 6. The scene itself: new callbacks, and load does not run again.
sed 's/^return scene$/function scene.update(world)\n    if world.tick % 30 == 0 then print("scene v2 update " .. world.tick) end\nend\nreturn scene/' \
    "$SRC/tests/app/scenes/reload_scene.lua" >"$TMP/reload_scene.lua.new"
mv "$TMP/reload_scene.lua.new" "$TMP/reload_scene.lua"
wait_count '^scene v2 update ' 1
[ "$(count '^scene load')" -eq 1 ] || fail "scene.load ran again on a scene reload"
BEFORE=$(count '^counter v5 n=')
wait_count '^counter v5 n=' $((BEFORE + 1))
echo "ok: scene reloaded in place, load not rerun, agents kept"

kill -TERM "$PID"
wait "$PID"
PID=
grep -qE '^ticks=[0-9]+ agents=1 ' "$OUT" || fail "no summary line after SIGTERM"
echo "ok: clean exit with a summary"

# 7. A scene broken from the start: the app keeps running and loads it once
# it is fixed.
: >"$OUT"
printf 'local scene = {\nreturn scene\n' >"$TMP/reload_scene.lua"
cp "$SRC/tests/app/scenes/counter.lua" "$BRAIN"
"$APP" --realtime "$TMP/reload_scene.lua" >"$OUT" 2>&1 &
PID=$!
wait_count 'load error: .*reload_scene\.lua:[0-9]+:' 1
wait_count '^realtime: ' 1
cp "$SRC/tests/app/scenes/reload_scene.lua" "$TMP/reload_scene.lua"
wait_count '^counter v1 n=' 1
kill -TERM "$PID"
wait "$PID"
PID=
echo "ok: a scene that failed to load starts once fixed"
echo "PASS"
