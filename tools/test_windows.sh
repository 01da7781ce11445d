#!/bin/sh
# usage: sh tools/test_windows.sh LINUX_BUILD [WINDOWS_BUILD]   (make test-windows)
#
# steer for 64-bit Windows, built here with Debian's mingw-w64 and run under
# Wine:
#  1. WINDOWS_BUILD (default build-windows): the core (libsteer.a and
#     libsteer.dll), the C tests, steer_checksums, examples/embed_c, and
#     steer.dll for Lua 5.4, linked against a lua54.dll import library
#     (tools/lua_implib.sh: no Windows Lua is packaged);
#  2. WINDOWS_BUILD-lua51: steer.dll for LÖVE, against LuaJIT's lua51.dll;
#  3. the DLLs' tables: steer.dll exports luaopen_steer and imports its
#     Lua's DLL; libsteer.dll exports every function steer.h declares (ST_API);
#  4. under Wine: a few C tests (Wine starts slowly: not all of them), then
#     the checksums of steer_checksums and embed_c, which must equal
#     LINUX_BUILD's (tools/same_checksums.sh).
# The Lua modules are linked, not loaded: there is no Windows Lua to load
# them into here.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
LIN=$1
WIN=${2:-build-windows}
case $WIN in /*) ;; *) WIN=$PWD/$WIN ;; esac
JOBS=${JOBS:-2}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v x86_64-w64-mingw32-gcc >/dev/null || fail "no mingw-w64 (sh tools/deps.sh installs gcc-mingw-w64-x86-64)"
WINE=$(command -v wine || command -v wine-stable || command -v /usr/lib/wine/wine64 || true)
[ -n "$WINE" ] || fail "no wine (sh tools/deps.sh installs wine64)"
OBJDUMP=x86_64-w64-mingw32-objdump

sh "$SRC/tools/lua_implib.sh" 5.4 "$WIN/lua"
cmake -S "$SRC" -B "$WIN" -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/mingw-w64-x86_64.cmake" -DCMAKE_BUILD_TYPE=Release \
      -DSTEER_LUA=5.4 -DSTEER_LUA_INCDIR=/usr/include/lua5.4 -DSTEER_LUA_LIBRARY="$WIN/lua/liblua54.a" \
      -DSTEER_APP=OFF -DSTEER_BENCH=OFF >/dev/null
cmake --build "$WIN" -j "$JOBS"

sh "$SRC/tools/lua_implib.sh" 5.1 "$WIN-lua51/lua"
cmake -S "$SRC" -B "$WIN-lua51" -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/mingw-w64-x86_64.cmake" -DCMAKE_BUILD_TYPE=Release \
      -DSTEER_LUA=luajit -DSTEER_LUA_INCDIR=/usr/include/luajit-2.1 -DSTEER_COMPAT53_C=/usr/include/lua5.1/compat-5.3.c \
      -DSTEER_LUA_LIBRARY="$WIN-lua51/lua/liblua51.a" -DSTEER_TESTS=OFF -DSTEER_INSTALL=OFF >/dev/null
cmake --build "$WIN-lua51" -j "$JOBS" --target steer_module

# 3. what the DLLs export and import
exports() { $OBJDUMP -p "$1" | awk '/\[Ordinal\/Name Pointer\] Table/ { on = 1; next } on && NF == 0 { on = 0 } on { print $NF }'; }
for pair in "$WIN:lua54.dll" "$WIN-lua51:lua51.dll"; do
    dll=${pair%%:*}/steer.dll lua=${pair#*:}
    [ "$(exports "$dll")" = "luaopen_steer" ] || fail "$dll exports '$(exports "$dll" | tr '\n' ' ')', not luaopen_steer alone"
    $OBJDUMP -p "$dll" | grep -q "DLL Name: $lua" || fail "$dll does not import $lua"
    echo "$dll: exports luaopen_steer, imports $lua"
done
want=$(cat "$SRC/include/steer.h" "$SRC"/include/steer/*.h |
       sed -n 's/^ST_API [A-Za-z][A-Za-z0-9_ ]*[ *]\(st_[a-z0-9_]*\)(.*/\1/p' | sort -u)
have=$(exports "$WIN/libsteer.dll" | sort -u)
missing=$(echo "$want" | while read -r f; do echo "$have" | grep -qx "$f" || echo "$f"; done)
[ -z "$missing" ] || fail "libsteer.dll does not export: $missing"
echo "$WIN/libsteer.dll: exports all $(echo "$want" | wc -l) ST_API functions of steer.h"

# 4. under Wine, in a prefix of the build's own
WINEPREFIX="$WIN/wine"
WINEDEBUG=-all
export WINEPREFIX WINEDEBUG
for t in test_portable test_alloc test_dmath test_determinism test_snapshot; do
    "$WINE" "$WIN/$t.exe" > "$WIN/$t.log" 2>&1 || { cat "$WIN/$t.log"; fail "$t under Wine"; }
    echo "$t (Windows, under Wine): $(tr -d '\r' < "$WIN/$t.log" | tail -1)"
done
sh "$SRC/tools/checksum_sheet.sh" "$LIN" > "$WIN/linux.sheet"
sh "$SRC/tools/checksum_sheet.sh" "$WIN" "$WINE" > "$WIN/windows.sheet"
sh "$SRC/tools/same_checksums.sh" "linux=$WIN/linux.sheet" "windows=$WIN/windows.sheet"
