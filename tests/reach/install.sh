#!/bin/sh
# usage: sh tests/reach/install.sh BUILD — cmake --install of BUILD (a 5.4
# build) into a scratch prefix, then the embedding examples built against it
# three ways: find_package (steer::steer, steer::lua), pkg-config (steer.pc,
# steer-lua.pc), and embed_c once more with steer vendored through
# add_subdirectory. Every build must run and print the same checksum.
set -eu
BUILD=${1:-build}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
J=${JOBS:-2}

PREFIX=$TMP/prefix
cmake --install "$SRC/$BUILD" --prefix "$PREFIX" >"$TMP/install.log" || { cat "$TMP/install.log"; fail "cmake --install"; }
LIB=$(cd "$PREFIX" && ls -d lib*/libsteer.so.1 lib/*/libsteer.so.1 2>/dev/null | head -1 | xargs dirname)
[ -n "$LIB" ] || fail "no libsteer.so.1 under $PREFIX"
for f in include/steer.h include/steer/base.h include/steer/math_functions.h include/steer/types.h \
         include/steer/debug.h include/steer_lua.h "$LIB/libsteer.a" "$LIB/libsteer_lua.a" "$LIB/libsteer.so" \
         "$LIB/cmake/steer/steerConfig.cmake" "$LIB/cmake/steer/steerConfigVersion.cmake" \
         "$LIB/pkgconfig/steer.pc" "$LIB/pkgconfig/steer-lua.pc"; do
    [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
VER=$(sed -n 's/^#define ST_VERSION "\(.*\)"/\1/p' "$SRC/include/steer.h")
[ -e "$PREFIX/$LIB/libsteer.so.$VER" ] || fail "no versioned libsteer.so.$VER"
[ -e "$PREFIX/$LIB/lua/5.4/steer.so" ] || fail "steer.so not installed under $LIB/lua/5.4"
for m in bt fsm utility; do
    [ -e "$PREFIX/share/lua/5.4/steer/$m.lua" ] || fail "steer.$m not installed under share/lua/5.4/steer"
done
# the installed paths alone find steer and steer.bt
LUA_PATH="$PREFIX/share/lua/5.4/?.lua" LUA_CPATH="$PREFIX/$LIB/lua/5.4/?.so" lua5.4 -e '
local steer, bt = require "steer", require "steer.bt"
local t = bt.sequence { bt.wait(0.1), bt.action(function() return true end) }
assert(t:tick({}, nil, 0.1) == "success" and steer.version)' || fail "require steer.bt from the prefix"
echo "installed steer $VER to a scratch prefix ($LIB)"

run() { # name, program, args...
    name=$1; shift
    LD_LIBRARY_PATH="$PREFIX/$LIB" "$@" >"$TMP/$name.out" 2>&1 || { cat "$TMP/$name.out"; fail "$name failed"; }
    sum=$(sed -n 's/.*checksum=\([0-9a-f]\{16\}\)$/\1/p' "$TMP/$name.out")
    [ -n "$sum" ] || { cat "$TMP/$name.out"; fail "$name printed no checksum"; }
    echo "$name: $(tail -1 "$TMP/$name.out")"
    eval "sum_$name=$sum"
}

# 1. find_package(steer 1.1 CONFIG)
for ex in embed_c embed_lua; do
    cmake -S "$SRC/examples/$ex" -B "$TMP/fp_$ex" -DCMAKE_PREFIX_PATH="$PREFIX" >"$TMP/fp_$ex.log" 2>&1 \
        || { cat "$TMP/fp_$ex.log"; fail "configure $ex with find_package"; }
    cmake --build "$TMP/fp_$ex" -j "$J" >>"$TMP/fp_$ex.log" 2>&1 || { cat "$TMP/fp_$ex.log"; fail "build $ex with find_package"; }
done
run fp_c "$TMP/fp_embed_c/embed_c"
run fp_lua "$TMP/fp_embed_lua/embed_lua" "$SRC/examples/embed_lua/brain.lua"
# A version steer is not must be refused.
mkdir -p "$TMP/v2"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(v2 LANGUAGES C)\nfind_package(steer 2.0 CONFIG REQUIRED)\n' >"$TMP/v2/CMakeLists.txt"
if cmake -S "$TMP/v2" -B "$TMP/v2/b" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null 2>&1; then
    fail "find_package(steer 2.0) accepted steer $VER"
fi

# 2. pkg-config
export PKG_CONFIG_PATH="$PREFIX/$LIB/pkgconfig"
[ "$(pkg-config --modversion steer)" = "$VER" ] || fail "pkg-config steer --modversion"
# shellcheck disable=SC2046
cc -std=c11 -o "$TMP/pc_c" "$SRC/examples/embed_c/main.c" $(pkg-config --cflags --libs steer) \
    || fail "cc embed_c with pkg-config"
# shellcheck disable=SC2046
cc -std=c11 -o "$TMP/pc_lua" "$SRC/examples/embed_lua/main.c" $(pkg-config --cflags --libs steer-lua) -lm \
    || fail "cc embed_lua with pkg-config"
run pc_c "$TMP/pc_c"
run pc_lua "$TMP/pc_lua" "$SRC/examples/embed_lua/brain.lua"
LD_LIBRARY_PATH="$PREFIX/$LIB" ldd "$TMP/pc_c" | grep -q "libsteer.so.1 => $PREFIX" || fail "pc_c does not use the installed libsteer.so.1"

# 3. add_subdirectory: steer vendored in a game's tree (no app, no tests).
cmake -S "$SRC/examples/embed_c" -B "$TMP/sub" -DSTEER_SOURCE_DIR="$SRC" >"$TMP/sub.log" 2>&1 \
    || { cat "$TMP/sub.log"; fail "configure embed_c with add_subdirectory"; }
cmake --build "$TMP/sub" -j "$J" >>"$TMP/sub.log" 2>&1 || { cat "$TMP/sub.log"; fail "build embed_c with add_subdirectory"; }
[ ! -e "$TMP/sub/steer/steer" ] || fail "the vendored build made the app"
[ ! -e "$TMP/sub/steer/test_world" ] && [ ! -e "$TMP/sub/steer/steer_bench" ] || fail "the vendored build made steer's tests or benchmark"
run sub_c "$TMP/sub/embed_c"

[ "$sum_fp_c" = "$sum_pc_c" ] && [ "$sum_fp_c" = "$sum_sub_c" ] || fail "embed_c checksums differ: $sum_fp_c $sum_pc_c $sum_sub_c"
[ "$sum_fp_lua" = "$sum_pc_lua" ] || fail "embed_lua checksums differ: $sum_fp_lua $sum_pc_lua"
echo "install: find_package, pkg-config and add_subdirectory builds agree (embed_c $sum_fp_c, embed_lua $sum_fp_lua)"
