#!/bin/sh
# Rewind (README "Time travel"): after 300 ticks go back 120 and step
# forward one tick at a time (the window's Left / Right); every tick's
# checksum must equal the first pass's, from a checkpoint or from the start,
# across a reload in the past, and the run ends where a run without
# rewinding ends. An edit in the past branches:
# the result equals a run where that edit happened at that tick, and the
# journal written by --record replays identically.
#
# usage: sh test_rewind.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

cp "$SRC/tests/app/scenes/replay_scene.lua" "$SRC/tests/app/scenes/replay_brain.lua" "$TMP/"
cd "$TMP" || fail "no temporary folder"
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 3.0/' replay_brain.lua >v1.lua
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 0.2/' replay_brain.lua >v2.lua
checksum() { sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }

# ---- the demo: back 120, forward 120 (short: this runs under valgrind too)
"$APP" --headless --ticks 200 --rewind-test 150:120 "$SRC/scripts/hunt.lua" >out 2>&1 || fail "$(cat out)"
# from a checkpoint (world:snapshot) when there is one, else from the start
grep -Eq '^rewind: back 120 ticks to tick 30 \(re-simulated [0-9]+ ticks from (the start, tick 0|the checkpoint at tick [0-9]+) in [0-9.]+ ms, every one equal to the first pass: yes\)$' out ||
    fail "rewinding: $(cat out)"
grep -q '^rewind: forward 120 ticks one at a time: 120 checksums equal to the first pass; live again at tick 150$' out ||
    fail "stepping forward: $(cat out)"
"$APP" --headless --ticks 200 "$SRC/scripts/hunt.lua" >plain 2>&1 || fail "plain run failed"
[ "$(checksum out)" = "$(checksum plain)" ] || fail "the rewound run ends on another checksum than a plain run"
echo "ok: hunt.lua: $(grep '^rewind: forward' out)"

# ---- checkpoints (world:snapshot every 30 ticks): back 120 restores tick 180 and
# re-simulates nothing; with --rewind-mb 0 there are none and it re-runs from the start
"$APP" --headless --ticks 300 --rewind-test 300:120 replay_scene.lua >out 2>&1 || fail "$(cat out)"
grep -q '^rewind: memory [0-9.]* MB for 300 ticks: 10 checkpoints ' out || fail "no checkpoints: $(cat out)"
grep -q '^rewind: back 120 ticks to tick 180 (re-simulated 0 ticks from the checkpoint at tick 180 in ' out ||
    fail "not from the checkpoint: $(cat out)"
grep -q '^rewind: forward 120 ticks one at a time: 120 checksums equal to the first pass' out || fail "$(cat out)"
"$APP" --headless --ticks 300 --rewind-test 300:110 --rewind-every 50 replay_scene.lua >out 2>&1 || fail "$(cat out)"
grep -q '^rewind: back 110 ticks to tick 190 (re-simulated 40 ticks from the checkpoint at tick 150 in ' out ||
    fail "--rewind-every 50: $(cat out)"
"$APP" --headless --ticks 300 --rewind-test 300:120 --rewind-mb 0 replay_scene.lua >out 2>&1 || fail "$(cat out)"
grep -q '^rewind: back 120 ticks to tick 180 (re-simulated 180 ticks from the start, tick 0 in ' out ||
    fail "--rewind-mb 0: $(cat out)"
grep -q '^rewind: forward 120 ticks one at a time: 120 checksums equal to the first pass' out || fail "$(cat out)"
echo "ok: from a checkpoint (every 30 or 50 ticks) or, with --rewind-mb 0, from the start: the same checksums"

# ---- across a reload: the past runs the code it ran then
"$APP" --headless --ticks 360 --reload-at 100:replay_brain.lua=v1.lua --rewind-test 300:250 replay_scene.lua >out 2>&1 ||
    fail "$(cat out)"
grep -q '^rewind: forward 250 ticks one at a time: 250 checksums equal to the first pass' out || fail "$(cat out)"
# a checkpoint holds no code: going back past the reload (tick 100) re-runs from the start
grep -q '^rewind: back 250 ticks to tick 50 (re-simulated 50 ticks from the start, tick 0 in ' out || fail "$(cat out)"
"$APP" --headless --ticks 360 --reload-at 100:replay_brain.lua=v1.lua --rewind-test 300:150 replay_scene.lua >out 2>&1 ||
    fail "$(cat out)"
grep -q '^rewind: back 150 ticks to tick 150 (re-simulated 0 ticks from the checkpoint at tick 150 in ' out ||
    fail "after the reload, its checkpoints serve: $(cat out)"
grep -q '^rewind: forward 150 ticks one at a time: 150 checksums equal to the first pass' out || fail "$(cat out)"
echo "ok: rewinding across a reload re-runs the old code from the start, then the reload; after it, checkpoints serve"

# ---- an edit in the past is a branch from that tick
"$APP" --headless --ticks 400 --reload-at 100:replay_brain.lua=v1.lua --rewind-test 300:120:replay_brain.lua=v2.lua \
    --record branch.rec replay_scene.lua >out 2>&1 || fail "$(cat out)"
grep -q '^rewind: branch at tick 180 (ticks 181..300 dropped)$' out || fail "no branch: $(cat out)"
"$APP" --headless --ticks 400 --reload-at 100:replay_brain.lua=v1.lua --reload-at 180:replay_brain.lua=v2.lua \
    replay_scene.lua >direct 2>&1 || fail "$(cat direct)"
[ "$(checksum out)" = "$(checksum direct)" ] || fail "the branch differs from editing at tick 180 directly"
"$APP" --headless --ticks 400 --reload-at 100:replay_brain.lua=v1.lua replay_scene.lua >nobranch 2>&1
[ "$(checksum out)" != "$(checksum nobranch)" ] || fail "the edit in the past changed nothing: the test proves nothing"
[ "$(grep -c '^reload ' branch.rec)" -eq 2 ] || fail "the journal should hold the two reloads of the branch, not the dropped future"
"$APP" --headless --replay branch.rec >out 2>&1 || fail "the branched journal does not replay: $(cat out)"
grep -q '^replay: identical (6 checksums)$' out || fail "$(cat out)"
echo "ok: an edit at tick 180 in the past equals the same edit made at tick 180; its recording replays identically"
