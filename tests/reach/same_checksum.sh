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
        # LuaJIT twice: its FFI backend, then the C backend (STEER_FFI=0)
        for ffi in 1 $([ $lua = luajit ] && echo 0); do
            # shellcheck disable=SC2086 # extra is empty or "-- word"
            got=$(cd "$SRC" && STEER_FFI=$ffi LUA_CPATH="$SRC/$dir/?.so;;" $lua tools/run_scene.lua "scripts/$scene.lua" $TICKS $extra) \
                || fail "$lua (STEER_FFI=$ffi) on $entry"
            [ "$got" = "$app" ] || fail "$entry: $lua (STEER_FFI=$ffi) printed '$got', the app '$app'"
        done
    done
    echo "$entry: app, and run_scene.lua under every Lua built: $app"
done

# Issue 30's 10k hunter/prey workload (tests/bench/hunt.lua, --quick): its
# brains in C (steer_bench_hunt) and in Lua under every Lua built, LuaJIT
# with and without its FFI backend, end on the same checksum.
want=$("$SRC/$BUILD/steer_bench_hunt" --quick | sed 's/.*checksum //')
[ -n "$want" ] || fail "steer_bench_hunt printed no checksum"
for dir in "$BUILD" "$@"; do
    case $dir in
        *lua51) lua=lua5.1 ;; *lua53) lua=lua5.3 ;; *luajit) lua=luajit ;; *) lua=lua5.4 ;;
    esac
    command -v $lua >/dev/null 2>&1 || { echo "SKIP: no $lua"; continue; }
    for ffi in 1 $([ $lua = luajit ] && echo 0); do
        out=$(cd "$SRC" && STEER_FFI=$ffi LUA_CPATH="$SRC/$dir/?.so;;" $lua tests/bench/hunt.lua --quick) \
            || fail "$lua (STEER_FFI=$ffi) on tests/bench/hunt.lua"
        got=$(echo "$out" | sed 's/.*checksum //')
        [ "$got" = "$want" ] || fail "hunt.lua: $lua (STEER_FFI=$ffi) ended on $got, the C brains on $want"
        if [ $lua = luajit ]; then
            backend=$(echo "$out" | sed -n 's/.*backend \([a-z]*\);.*/\1/p')
            [ "$backend" = "$([ $ffi = 1 ] && echo ffi || echo c)" ] \
                || fail "luajit with STEER_FFI=$ffi ran the '$backend' backend"
        fi
    done
done
echo "hunt workload: C brains, and hunt.lua under every Lua built (LuaJIT: FFI and C backends): $want"
