#!/bin/sh
# --trace FILE.csv: one row per tick per agent; the agent columns, then the
# self fields named by scene.trace (or --trace-fields, or self's numbers);
# strings quoted; the values are the world's (the last row's tick is the
# run's, positions match a second run's, and tracing leaves the checksum
# alone).
#
# usage: sh test_trace.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

cp "$SRC/tests/app/scenes/replay_scene.lua" "$SRC/tests/app/scenes/replay_brain.lua" "$TMP/"
cd "$TMP" || fail "no temporary folder"
checksum() { sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }

"$APP" --headless --ticks 120 replay_scene.lua >plain 2>&1 || fail "plain run failed"
"$APP" --headless --ticks 120 --trace t.csv replay_scene.lua >out 2>&1 || fail "traced run failed: $(cat out)"
[ "$(checksum out)" = "$(checksum plain)" ] || fail "tracing changed the checksum"
head -n 1 t.csv | grep -qx 'id,tick,time,x,y,vx,vy,speed,force,tag,"energy","state","turns"' ||
    fail "header: $(head -n 1 t.csv)"
[ "$(wc -l <t.csv)" -eq $((1 + 6 * 120)) ] || fail "$(wc -l <t.csv) lines, not 1 + 6 agents x 120 ticks"
awk -F, 'NR > 1 && NF != 13 { bad = 1 } END { exit bad }' t.csv || fail "a row without 13 columns"
awk -F, 'NR > 1 && ($2 < 1 || $2 > 120) { bad = 1 } END { exit bad }' t.csv || fail "a tick outside 1..120"
[ "$(tail -n 1 t.csv | cut -d, -f2)" = 120 ] || fail "the last row is not tick 120"
awk -F, 'NR > 1 && $12 != "\"roam\"" && $12 != "\"rest\"" { bad = 1 } END { exit bad }' t.csv ||
    fail "state is not a quoted roam/rest"
grep -q ',"rest",' t.csv || fail "no agent ever rested: the state column never changed"
# speed is |v| to the bit: recompute it from vx, vy
awk -F, 'NR > 1 { s = sqrt($6 * $6 + $7 * $7); d = s - $8; if (d < 0) d = -d; if (d > 1e-9 * (1 + s)) bad = 1 }
         END { exit bad }' t.csv || fail "speed is not |(vx, vy)|"
echo "ok: scene.trace columns, $(($(wc -l <t.csv) - 1)) rows for 6 agents x 120 ticks"

"$APP" --headless --ticks 10 --trace f.csv --trace-fields turns,nothing.here replay_scene.lua >out 2>&1 || fail "$(cat out)"
head -n 1 f.csv | grep -qx 'id,tick,time,x,y,vx,vy,speed,force,tag,"turns","nothing.here"' || fail "$(head -n 1 f.csv)"
awk -F, 'NR > 1 && ($11 != "0" || $12 != "") { bad = 1 } END { exit bad }' f.csv || fail "turns / a missing field wrong"
echo "ok: --trace-fields overrides scene.trace; a missing field is an empty cell"

"$APP" --headless --ticks 5 --trace h.csv "$SRC/scripts/hunt.lua" >out 2>&1 || fail "$(cat out)"
head -n 1 h.csv | grep -q '"stamina"' || fail "hunt.lua's self numbers (stamina) not traced by default: $(head -n 1 h.csv)"
grep -q ',hunter,' h.csv || fail "no row tagged hunter"
echo "ok: with no list, the numbers in self (hunters' stamina) are the columns"

sed 's/^scene.trace = .*/scene.trace = { "energy", {} }/' replay_scene.lua >bad_trace.lua
"$APP" --headless --ticks 3 --trace b.csv bad_trace.lua >out 2>&1
[ $? -eq 1 ] || fail "a bad scene.trace should be a script error (exit 1): $(cat out)"
grep -q "scene.trace\[2\] must be a field name (got table)" out || fail "no clear scene.trace error: $(cat out)"
head -n 1 b.csv | grep -q '"energy"' || fail "after a bad scene.trace, self's numbers should be traced: $(head -n 1 b.csv)"
echo "ok: a bad scene.trace is a clear error and the trace falls back to self's numbers"
