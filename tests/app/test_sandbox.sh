#!/bin/sh
# The script sandbox, the instruction budget, the memory cap and the seeded
# math.random, seen from scripts run headless.
#
# usage: sh test_sandbox.sh <steer binary> <source dir>
set -u
APP=$1
SRC=$2
S=$SRC/tests/app/scenes
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
fail() { echo "FAIL: $*"; echo "---- output ----"; cat "$TMP/out"; exit 1; }

"$APP" --headless --ticks 10 "$S/sandbox_scene.lua" >"$TMP/out" 2>&1 || fail "the sandboxed checks failed"
grep -q '^SANDBOX OK$' "$TMP/out" || fail "no SANDBOX OK"
[ ! -e "$S/sandbox_probe.txt" ] || fail "a sandboxed script created a file"
echo "ok: sandboxed scripts cannot run programs, write files, load C or binary code"

"$APP" --headless --trust --ticks 10 "$S/sandbox_scene.lua" -- trusted >"$TMP/out" 2>&1 || fail "--trust checks failed"
grep -q '^TRUSTED OK$' "$TMP/out" || fail "no TRUSTED OK"
echo "ok: --trust lifts the sandbox"

# Runaway loops hidden in pcall / xpcall / a coroutine, and a memory bomb in
# pcall: each raises in its own brain, the app goes on and finishes the run.
# A minute of wall time per callback: under valgrind the memory bomb takes
# longer than the default 5 s to reach the cap.
"$APP" --headless --ticks 30 --budget 2000000 --time-limit 60 --memory 64 "$S/runaway_scene.lua" >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit status $rc: script errors should make a headless run exit 1"
grep -q '^ticks=30 agents=5 ' "$TMP/out" || fail "the run did not finish its 30 ticks"
grep -q 'ESCAPED' "$TMP/out" && fail "a script caught the budget or memory error"
for b in runaway_pcall runaway_xpcall runaway_coroutine; do
    grep -A3 'runtime error: instruction budget exceeded' "$TMP/out" | grep -q "$b" \
        || fail "$b was not stopped by the instruction budget"
done
grep -q 'runtime error: not enough memory' "$TMP/out" || fail "the memory bomb was not stopped by the cap"
grep -q 'runtime error: scene.update: .*instruction budget exceeded' "$TMP/out" \
    || fail "the runaway scene.update was not stopped"
[ "$(grep -c 'runtime error:' "$TMP/out")" -eq 5 ] || fail "expected exactly 5 errors, each shown once"
grep -q '^counter v1 n=20$' "$TMP/out" || fail "the well-behaved brain did not keep running"
echo "ok: budget and memory cap stop runaway scripts, which cannot catch the error"

# math.random draws from the world's seeded stream.
"$APP" --headless --ticks 60 --seed 5 "$S/random_scene.lua" >"$TMP/a" 2>&1 || fail "random_scene failed"
"$APP" --headless --ticks 60 --seed 5 "$S/random_scene.lua" >"$TMP/b" 2>&1 || fail "random_scene failed"
"$APP" --headless --ticks 60 --seed 6 "$S/random_scene.lua" >"$TMP/c" 2>&1 || fail "random_scene failed"
# Everything but the timing must match.
sed -i 's/ms_per_step=[0-9.]*//' "$TMP/a" "$TMP/b" "$TMP/c"
cmp -s "$TMP/a" "$TMP/b" || { cat "$TMP/a" "$TMP/b"; fail "same seed, different runs"; }
cmp -s "$TMP/a" "$TMP/c" && fail "seeds 5 and 6 gave the same run"
DRAWS_A=$(grep '^first draws' "$TMP/a")
DRAWS_C=$(grep '^first draws' "$TMP/c")
[ -n "$DRAWS_A" ] && [ "$DRAWS_A" != "$DRAWS_C" ] || fail "math.random ignores the world's seed"
echo "ok: math.random follows the world's seed"
echo "PASS"
