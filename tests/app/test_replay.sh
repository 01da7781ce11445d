#!/bin/sh
# Record and replay (README "Time travel"): a headless session with two
# reloads (--reload-at) replays identically from the recorded sources even
# after the file on disk changed, on 1 or 2 threads; --with-current-scripts
# finds a planted divergence at its tick; recorded clicks and keys reach the
# scene; truncated, corrupt, foreign and newer files are clear errors.
#
# usage: sh test_replay.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

cp "$SRC/tests/app/scenes/replay_scene.lua" "$SRC/tests/app/scenes/replay_brain.lua" "$TMP/"
cd "$TMP" || fail "no temporary folder"
BRAIN=$TMP/replay_brain.lua
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 3.0/' "$BRAIN" >"$TMP/v1.lua"
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 0.2/' "$BRAIN" >"$TMP/v2.lua"
checksum() { sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }

# ---- record a session with two reloads
"$APP" --headless --ticks 300 --record rec.txt --reload-at "100:$BRAIN=$TMP/v1.lua" \
    --reload-at "200:$BRAIN=$TMP/v2.lua" replay_scene.lua >out 2>&1 || fail "the recording run failed: $(cat out)"
RECORDED=$(checksum out)
[ "$(grep -c '^reload: ok replay_brain' out)" -eq 2 ] || fail "two reloads expected: $(cat out)"
[ "$(grep -c '^reload ' rec.txt)" -eq 2 ] || fail "the recording does not hold two reloads"
[ "$(grep -c '^sum ' rec.txt)" -eq 5 ] || fail "a checksum every 60 ticks expected (5 in 300 ticks)"
grep -q '^mark 30 scene thirty$' rec.txt || fail "world:mark('thirty') at tick 30 is not in the recording"
cmp -s "$BRAIN" "$SRC/tests/app/scenes/replay_brain.lua" || fail "--reload-at changed the file on disk"
"$APP" --headless --ticks 300 replay_scene.lua >plain 2>&1 || fail "the plain run failed"
[ "$(checksum plain)" != "$RECORDED" ] || fail "the reloads made no difference: the test would prove nothing"
echo "ok: recorded 300 ticks with two reloads (checksum $RECORDED)"

# ---- replay: the disk's brain is now something else again; the recorded sources win
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 9.0/' "$SRC/tests/app/scenes/replay_brain.lua" >"$BRAIN"
for threads in 1 2; do
    "$APP" --headless --replay rec.txt --threads $threads >out 2>&1 || fail "replay ($threads threads) failed: $(cat out)"
    grep -q '^replay: identical (5 checksums)$' out || fail "replay ($threads threads) not identical: $(cat out)"
    [ "$(checksum out)" = "$RECORDED" ] || fail "replay ($threads threads) ended on another checksum"
done
echo "ok: replay: identical (5 checksums), 1 and 2 threads, from the recorded sources"

# ---- --with-current-scripts: a brain that changes from tick K on
cp "$SRC/tests/app/scenes/replay_brain.lua" "$BRAIN"
"$APP" --headless --ticks 240 --record plain.txt replay_scene.lua >out 2>&1 || fail "recording failed"
"$APP" --headless --replay plain.txt --with-current-scripts >out 2>&1 || fail "unchanged scripts diverged: $(cat out)"
grep -q '^replay: identical (240 checksums, every tick) against the current scripts$' out || fail "$(cat out)"
K=150
sed "s/^function brain.update(self, agent, dt)/&\n    if agent.world.tick >= $K then agent.max_force = 100 end/" \
    "$SRC/tests/app/scenes/replay_brain.lua" >"$BRAIN"
grep -q "tick >= $K" "$BRAIN" || fail "the planted change is missing"
"$APP" --headless --replay plain.txt --with-current-scripts >out 2>&1
[ $? -eq 3 ] || fail "a divergence must exit 3: $(cat out)"
# the brain sees world.tick == K during the step from K to K + 1
grep -q "^replay: diverged at tick $((K + 1)) (expected [0-9a-f]*, got [0-9a-f]*) against the current scripts$" out ||
    fail "divergence not found at tick $((K + 1)): $(cat out)"
echo "ok: --with-current-scripts: $(grep '^replay:' out)"
cp "$SRC/tests/app/scenes/replay_brain.lua" "$BRAIN"

# ---- recorded inputs reach the scene: a click and a key put in by hand
awk '/^sum 120 /{print "click 100 0x1.9p+6 0x1.2cp+7 1"; print "mouse 100 0x1p+5 0x1.8p+4"; print "key 100 k"} {print}' \
    plain.txt >click.txt
"$APP" --headless --replay click.txt >out 2>&1
[ $? -eq 3 ] || fail "a replay with an extra click must diverge: $(cat out)"
grep -q '^clicked 100 150 1 at tick 100$' out || fail "the click did not reach scene.mousepressed: $(cat out)"
grep -q '^key k at tick 100 mouse vec2(32, 24)$' out ||
    fail "the key did not reach scene.keypressed, or steer.mouse() there is not the recorded pointer: $(cat out)"
grep -q '^replay: diverged at tick 120 ' out || fail "the click's agent should show at the next checksum: $(cat out)"
echo "ok: a recorded click, pointer and key reach the scene at their tick"

# ---- bad files: a clear error, exit 2, never a crash
bad() { # name, expected message
    "$APP" --headless --replay "$1" >out 2>&1
    st=$?
    [ $st -eq 2 ] || fail "$1: exit $st, not 2: $(cat out)"
    grep -q "$2" out || fail "$1: no '$2' in: $(cat out)"
}
head -c 2000 rec.txt >cut.txt
bad cut.txt "steer: replay cut.txt: truncated"
grep -av "^end " plain.txt >cut2.txt
bad cut2.txt "truncated: no 'end' record"
printf 'hello\n' >foreign.txt
bad foreign.txt "not a steer recording"
sed '1s/.*/steer-record 99/' plain.txt >newer.txt
bad newer.txt "format version 99; this steer reads version 1"
sed 's/^sum 60 .*/sum 60 zz/' plain.txt >corrupt.txt
bad corrupt.txt "line [0-9]*: a bad 'sum' record"
sed 's/^file 0 0 \([0-9]*\)/file 0 0 9\1/' plain.txt >long.txt
bad long.txt "truncated: line [0-9]*: the source of"
bad missing.txt "cannot read it"
echo "ok: truncated, corrupt, foreign, newer and missing recordings are clear errors"
