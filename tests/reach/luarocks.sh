#!/bin/sh
# usage: sh tests/reach/luarocks.sh — `luarocks make` of the rockspec into
# scratch trees for Lua 5.4 and 5.1 (a clean CMake build each, in
# build.luarocks), then `require "steer"` from each interpreter with only
# the tree's paths: the same little scene must give the same checksum, and
# steer.bt, steer.fsm and steer.utility load from the tree.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
command -v luarocks >/dev/null 2>&1 || { echo "SKIP: luarocks is not installed (apt-get install luarocks)"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$SRC/build.luarocks"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ROCKSPEC=$(ls "$SRC"/steer-*.rockspec | head -1)
SCENE='local steer = require "steer"
assert(package.loaded.steer == steer)
local bt, fsm, utility = require "steer.bt", require "steer.fsm", require "steer.utility"
assert(bt.sequence { bt.wait(0) }:tick({}, nil, 0.1) == "success" and fsm.new and utility.new)
local w = steer.world { seed = 9 }
for i = 1, 30 do w:spawn { pos = { w:random() * 800, w:random() * 600 }, behaviors = { { "wander" } } } end
for _ = 1, 120 do w:step() end
print(_VERSION .. " steer " .. steer.version .. " checksum=" .. w:checksum())'
for v in 5.4 5.1; do
    rm -rf "$SRC/build.luarocks"
    (cd "$SRC" && luarocks --lua-version "$v" make --tree "$TMP/tree$v" "$ROCKSPEC") >"$TMP/make$v.log" 2>&1 \
        || { tail -30 "$TMP/make$v.log"; fail "luarocks --lua-version $v make"; }
    so=$(find "$TMP/tree$v" -name steer.so | head -1)
    [ -n "$so" ] || fail "no steer.so in the $v tree"
    # only the tree: no build folder, no system steer.so
    out=$(cd "$TMP" && eval "$(luarocks --lua-version "$v" --tree "$TMP/tree$v" path)" && \
          LUA_CPATH="$(dirname "$so")/?.so" "lua$v" -e "$SCENE") || fail "require steer from the $v tree"
    echo "luarocks $v: $out"
    eval "sum_${v%.*}${v#*.}=\${out##*checksum=}"
done
[ "$sum_54" = "$sum_51" ] || fail "Lua 5.4 and 5.1 checksums differ: $sum_54 $sum_51"
echo "luarocks: 5.4 and 5.1 trees load steer and agree (checksum $sum_54)"
