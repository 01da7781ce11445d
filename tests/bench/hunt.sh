#!/bin/sh
# usage: sh tests/bench/hunt.sh BUILD LUAJIT_BUILD [--quick]
#
# Issue 30's workload in make bench: 10,000 hunters and prey with Lua brains
# on the plain documented API (tests/bench/hunt.lua, the same file on both
# Luas), run by stock lua5.4 (BUILD's steer.so), by LuaJIT with its FFI
# backend and with it off (STEER_FFI=0; LUAJIT_BUILD's steer.so), and the
# same brains in C with no Lua (BUILD's steer_bench_hunt: the C work alone,
# the ceiling). The four take turns, 3 rounds, so a busy machine's load
# falls on all of them alike; each keeps its best round (the median block
# of a run). Prints the rows, the ratios and whether every checksum is the
# same, and the median round beside the best, with the load average (other
# work on the machine slows every row). Prints figures, asserts nothing
# (tests/reach/same_checksum.sh checks the checksums).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
JIT=$2
QUICK=${3:-}
ROUNDS=3
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # name command...
    name=$1; shift
    line=$("$@") || { echo "hunt.sh: $name failed" >&2; exit 1; }
    echo "$line"
    echo "$name $(echo "$line" | cut -c23- | awk '{print $3}') $(echo "$line" | sed 's/.*checksum //')" >> "$out"
}

echo "issue 30: 10k hunter/prey, plain API, 1 agent per 900 u2, wrap, 1 thread; $ROUNDS rounds taking turns"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
printf '%-22s %9s %7s %10s %12s %12s\n' case agents threads ms/step ns/agent steps/s
cd "$SRC"
for _ in $(seq $ROUNDS); do
    run c "$SRC/$BUILD/steer_bench_hunt" $QUICK
    run lua54 env LUA_CPATH="$SRC/$BUILD/?.so;;" lua5.4 tests/bench/hunt.lua $QUICK
    run ffi env STEER_FFI=1 LUA_CPATH="$SRC/$JIT/?.so;;" luajit tests/bench/hunt.lua $QUICK
    run jitc env STEER_FFI=0 LUA_CPATH="$SRC/$JIT/?.so;;" luajit tests/bench/hunt.lua $QUICK
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
awk '
    { if (!($1 in best) || $2 < best[$1]) best[$1] = $2; sums[$3] = 1; k = ++runs[$1]; t[$1, k] = $2 }
    END {
        n = 0; for (s in sums) n++
        # the median round of each case (3 rounds: the middle one)
        for (c in runs) {
            m = runs[c]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (t[c, j] < t[c, i]) { x = t[c, i]; t[c, i] = t[c, j]; t[c, j] = x }
            med[c] = t[c, int((m + 1) / 2)]
        }
        printf "median round, ms/step: C alone %.3f, Lua 5.4 %.3f, LuaJIT FFI %.3f, LuaJIT C backend %.3f (5.4 / FFI: %.2fx)\n",
               med["c"], med["lua54"], med["ffi"], med["jitc"], med["lua54"] / med["ffi"]
        printf "best round, ms/step: C alone %.3f, Lua 5.4 %.3f, LuaJIT FFI %.3f, LuaJIT C backend %.3f\n",
               best["c"], best["lua54"], best["ffi"], best["jitc"]
        printf "LuaJIT (FFI) is %.2fx as fast as stock Lua 5.4 (target >= 2.5x; the C backend: %.2fx)\n",
               best["lua54"] / best["ffi"], best["lua54"] / best["jitc"]
        printf "ceiling (the C work alone): %.2fx; the FFI path reaches %.0f%% of it (%.0f ns an agent above the C work)\n",
               best["lua54"] / best["c"], 100 * best["c"] / best["ffi"], (best["ffi"] - best["c"]) * 1e6 / 10000
        printf "checksums: %s\n", n == 1 ? "all the same" : "DIFFER"
    }' "$out"
