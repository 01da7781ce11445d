#!/bin/sh
# steer.bt under the app's hot reload (headless, sandboxed): five agents run
# a behaviour tree whose "work" action counts its ticks in its run's mem.
# A reload at tick 25 edits the action's code (v1 -> v2): on the next report
# every agent says v2 with the count going on (the same run of the same
# node). A reload at tick 45 renames the node (work -> labour): its run
# starts afresh (the count restarts) under the new path. The checksum is the
# same on 1 and 2 threads.
#
# usage: sh test_bt_reload.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

cp "$SRC/tests/app/scenes/bt_scene.lua" "$SRC/tests/app/scenes/bt_brain.lua" "$TMP/"
sed 's/"v1:"/"v2:"/' "$TMP/bt_brain.lua" >"$TMP/v2.lua"
sed 's/"v1:"/"v3:"/; s/"work"/"labour"/' "$TMP/bt_brain.lua" >"$TMP/v3.lua"
grep -q '"v2:"' "$TMP/v2.lua" || fail "the v2 edit did not apply"
grep -q '"labour"' "$TMP/v3.lua" || fail "the rename did not apply"

for t in 1 2; do
    "$APP" --headless --ticks 60 --threads "$t" \
        --reload-at "25:$TMP/bt_brain.lua=$TMP/v2.lua" --reload-at "45:$TMP/bt_brain.lua=$TMP/v3.lua" \
        "$TMP/bt_scene.lua" >"$TMP/out$t" 2>&1 || { cat "$TMP/out$t"; fail "the app failed ($t threads)"; }
done
OUT=$TMP/out1
cat "$OUT"
grep -q "errors=0" "$OUT" || fail "a brain raised"
line() { grep "^bt tick=$1 " "$OUT"; }
# scene.update runs before the step: its 20th call sees 19 steps, work ran in
# each (settle succeeds at once, in the first)
line 20 | grep -q 'said=v1:19,v1:19,v1:19,v1:19,v1:19 active=job/work$' || fail "tick 20: $(line 20)"
line 30 | grep -q 'said=v2:29,v2:29,v2:29,v2:29,v2:29 active=job/work$' || fail "the edited node did not carry on: $(line 30)"
# labour ran in steps 46..49 (the sequence lost its running child and began again)
line 50 | grep -q 'said=v3:4,v3:4,v3:4,v3:4,v3:4 active=job/labour$' || fail "the renamed node did not start afresh: $(line 50)"
s1=$(grep -o 'checksum=[0-9a-f]*' "$TMP/out1")
s2=$(grep -o 'checksum=[0-9a-f]*' "$TMP/out2")
[ -n "$s1" ] || fail "no summary line"
[ "$s1" = "$s2" ] || fail "1 and 2 threads differ: $s1 $s2"
echo "ok: a running node kept its run across an edit, a renamed one restarted; $s1 on 1 and 2 threads"
