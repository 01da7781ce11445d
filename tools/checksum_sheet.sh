#!/bin/sh
# usage: sh tools/checksum_sheet.sh BUILD [RUNNER]
#
# Prints one build's checksums, a `name checksum` line each, for
# tools/same_checksums.sh to set beside another build's:
#   math, crowd, orca, big, tiles, flow, restored   steer_checksums (the core)
#   embed_c                                         examples/embed_c
#   scene/NAME                                      scripts/NAME.lua, 600 ticks
#                                                   under lua5.4 and BUILD's
#                                                   steer.so (tools/run_scene.lua)
#   scene/hunt_mixed                                scripts/hunt.lua -- mixed
# RUNNER runs the programs (wine for a Windows build: no Lua there, so no
# scenes). Fails when a program fails: steer_checksums itself fails when 1
# and 2 threads disagree.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
RUNNER=${2:-}
ext=""
[ -n "$RUNNER" ] && ext=.exe
# shellcheck disable=SC2086 # RUNNER is empty or one word
out=$($RUNNER "$BUILD/steer_checksums$ext") || { echo "checksum_sheet: steer_checksums failed in $BUILD" >&2; exit 1; }
echo "$out" | tr -d '\r' | sed 's/ *checksum=/ /'
# shellcheck disable=SC2086
out=$($RUNNER "$BUILD/steer_embed_c$ext") || { echo "checksum_sheet: embed_c failed in $BUILD" >&2; exit 1; }
echo "$out" | tr -d '\r' | sed -n 's/^agents=[0-9]* checksum=/embed_c /p'
if [ -z "$RUNNER" ] && [ -f "$BUILD/steer.so" ] && command -v lua5.4 >/dev/null 2>&1; then
    for scene in hunt flocking crowd_crossing maze tiles formation doors queue stealth; do
        line=$(cd "$SRC" && LUA_CPATH="$BUILD/?.so;;" lua5.4 tools/run_scene.lua "scripts/$scene.lua" 600) \
            || { echo "checksum_sheet: $scene failed with $BUILD/steer.so" >&2; exit 1; }
        echo "scene/$scene $(echo "$line" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p')"
    done
    # the hunt with every other hunter on a behaviour tree (steer.bt)
    line=$(cd "$SRC" && LUA_CPATH="$BUILD/?.so;;" lua5.4 tools/run_scene.lua scripts/hunt.lua 600 -- mixed) \
        || { echo "checksum_sheet: hunt -- mixed failed with $BUILD/steer.so" >&2; exit 1; }
    echo "scene/hunt_mixed $(echo "$line" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p')"
fi
