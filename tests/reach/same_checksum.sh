#!/bin/sh
# usage: sh tests/reach/same_checksum.sh BUILD [OTHER_LUA_BUILD...] — the demo
# scenes run by tools/run_scene.lua under every Lua steer.so was built for
# (build: lua5.4, build-lua51: lua5.1, build-lua53: lua5.3, build-luajit:
# luajit) print the summary line the app prints (`steer --headless`),
# checksum included: one simulation, whichever Lua runs the brains. A
# scene:arg entry runs the scene with that argument (hunt:mixed, the hunt
# with behaviour-tree hunters: steer.bt).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1; shift
fail() { echo "FAIL: $*" >&2; exit 1; }
TICKS=600
for entry in hunt flocking crowd_crossing stealth hunt:mixed; do
    scene=${entry%%:*}
    extra=""
    [ "$entry" = "$scene" ] || extra="-- ${entry#*:}"
    # shellcheck disable=SC2086 # extra is empty or "-- word"
    app=$("$SRC/$BUILD/steer" --headless --ticks $TICKS "$SRC/scripts/$scene.lua" $extra | sed 's/ ms_per_step=[0-9.]*//') \
        || fail "the app on $entry"
    for dir in "$BUILD" "$@"; do
        case $dir in
            *lua51) lua=lua5.1 ;; *lua53) lua=lua5.3 ;; *luajit) lua=luajit ;; *) lua=lua5.4 ;;
        esac
        command -v $lua >/dev/null 2>&1 || { echo "SKIP: no $lua"; continue; }
        # shellcheck disable=SC2086
        got=$(cd "$SRC" && LUA_CPATH="$SRC/$dir/?.so;;" $lua tools/run_scene.lua "scripts/$scene.lua" $TICKS $extra) \
            || fail "$lua on $entry"
        [ "$got" = "$app" ] || fail "$entry: $lua printed '$got', the app '$app'"
    done
    echo "$entry: app, and run_scene.lua under every Lua built: $app"
done
