#!/bin/sh
# math.random parity: a scene that calls math.random (in brains, in update,
# in every argument form) gives the same checksum in the app and in stock
# lua5.4 with steer.so, where tools/run_scene.lua calls
# steer.install_random(world) as the app routes math.random itself.
#
# usage: sh test_random_parity.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"
LUA=$(command -v lua5.4) || { echo "SKIP: no lua5.4"; exit 0; }
BUILD=$(cd "$(dirname "$APP")" && pwd)
[ -f "$BUILD/steer.so" ] || fail "no steer.so next to $APP"
# An ASan build's steer.so needs the runtime loaded into lua5.4 first.
if ldd "$BUILD/steer.so" 2>/dev/null | grep -q libasan; then
    CC=${CC:-cc}
    LD_PRELOAD="$($CC -print-file-name=libasan.so):$($CC -print-file-name=libubsan.so)"
    ASAN_OPTIONS=detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
SCENE=$SRC/tests/app/scenes/random_parity.lua

for seed in 21 5; do
    "$APP" --headless --ticks 400 --seed $seed "$SCENE" >"$TMP/app" 2>&1 || { cat "$TMP/app"; fail "the app run failed"; }
    LUA_CPATH="$BUILD/?.so;;" "$LUA" "$SRC/tools/run_scene.lua" "$SCENE" 400 $seed >"$TMP/lua" 2>&1 \
        || { cat "$TMP/lua"; fail "the stock Lua run failed"; }
    app=$(grep -o 'agents=[0-9]* .*checksum=[0-9a-f]*' "$TMP/app" | sed 's/ms_per_step=[0-9.]* //')
    lua=$(grep -o 'agents=[0-9]* .*checksum=[0-9a-f]*' "$TMP/lua")
    [ -n "$app" ] || { cat "$TMP/app"; fail "no summary from the app"; }
    echo "seed $seed: app:       $app"
    echo "seed $seed: stock Lua: $lua"
    [ "$app" = "$lua" ] || fail "seed $seed: the app and stock Lua differ"
    eval "sum_$seed=\$(echo \"\$app\" | sed 's/.*checksum=//')"
done
# shellcheck disable=SC2154
[ "$sum_21" != "$sum_5" ] || fail "seeds 21 and 5 gave the same checksum: math.random ignores the seed"
# Without install_random stock Lua draws from its own generator: the checksum
# must differ, or this test could not tell the two apart.
cat >"$TMP/plain.lua" <<LUA
local steer = require "steer"
steer.install_random = function() end
dofile("$SRC/tools/run_scene.lua")
LUA
LUA_CPATH="$BUILD/?.so;;" "$LUA" "$TMP/plain.lua" "$SCENE" 400 21 >"$TMP/plain" 2>&1 || { cat "$TMP/plain"; fail "plain run failed"; }
plain=$(grep -o 'checksum=[0-9a-f]*' "$TMP/plain" | sed 's/checksum=//')
echo "seed 21: stock Lua without install_random: checksum=$plain"
[ "$plain" != "$sum_21" ] || fail "stock math.random gave the app's checksum: the test cannot tell"
echo "PASS"
