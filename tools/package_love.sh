#!/bin/sh
# usage: sh tools/package_love.sh GAME_DIR OUT_DIR [WINDOWS_LUA51_BUILD]
#
# What a LÖVE game that uses steer ships on Windows, laid out in OUT_DIR:
#   OUT_DIR/windows/steer.dll     steer's C API module built against LuaJIT's
#                                 lua51.dll, the one LÖVE ships (from
#                                 WINDOWS_LUA51_BUILD, default
#                                 build-windows-lua51: make test-windows
#                                 builds it); it goes beside love.exe, whose
#                                 folder LÖVE's require searches for C modules
#   OUT_DIR/windows/game/         GAME_DIR's Lua files and assets, as the
#                                 .love archive (or fused game) carries them
#   OUT_DIR/README.txt            the rest: copy LÖVE's own files in, run
#                                 love.exe game; and the macOS build, which
#                                 needs a Mac (no macOS toolchain in Debian)
# The core has no other dependency: steer.dll holds the core and the
# bindings, and needs only lua51.dll and the Windows C runtime (msvcrt).
# Fails unless the DLL imports lua51.dll and exports luaopen_steer.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
GAME=$1
OUT=$2
WIN=${3:-build-windows-lua51}
dll="$WIN/steer.dll"
[ -f "$GAME/main.lua" ] || { echo "package_love.sh: no main.lua in $GAME" >&2; exit 1; }
[ -f "$dll" ] || { echo "package_love.sh: no $dll (make test-windows builds it)" >&2; exit 1; }
x86_64-w64-mingw32-objdump -p "$dll" | grep -q "DLL Name: lua51.dll" || { echo "package_love.sh: $dll is not built for lua51.dll" >&2; exit 1; }
x86_64-w64-mingw32-objdump -p "$dll" | grep -q "luaopen_steer" || { echo "package_love.sh: $dll exports no luaopen_steer" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/windows/game"
OUT=$(cd "$OUT" && pwd)
cp "$dll" "$OUT/windows/steer.dll"
(cd "$GAME" && find . -type f \( -name '*.lua' -o -name '*.png' -o -name '*.ttf' -o -name '*.ogg' -o -name '*.wav' \) \
    -exec sh -c 'mkdir -p "$1/$(dirname "$2")" && cp "$2" "$1/$2"' _ "$OUT/windows/game" {} \;)
version=$(sed -n 's/^#define ST_VERSION "\(.*\)"/\1/p' "$SRC/include/steer.h")
cat > "$OUT/README.txt" <<TXT
steer $version for a LÖVE 11 game

Windows (64-bit LÖVE):
  1. Copy LÖVE's folder (love.exe, lua51.dll, SDL2.dll, ...) into windows/.
  2. Run:  love.exe game     (or fuse game/ into love.exe as LÖVE's wiki says;
     steer.dll stays beside the .exe either way)
  steer.dll was built against lua51.dll's import library; it needs no other DLL.

macOS (LÖVE.app): build steer.so on a Mac with Apple Clang against LuaJIT's headers
  cmake -S steer -B build-mac -DSTEER_LUA=luajit -DSTEER_LUA_INCDIR=<LuaJIT include dir> \\
        -DSTEER_APP=OFF -DSTEER_TESTS=OFF -DSTEER_INSTALL=OFF -DSTEER_OPENMP=OFF
  cmake --build build-mac --target steer_module
  and put build-mac/steer.so in the game's save folder or beside the .love
  (LÖVE's require searches both); it takes Lua's functions from LÖVE at load.
  Not built or tested on a Mac by steer's CI: Clang without OpenMP on Linux
  stands in for Apple Clang (make test-portable).
TXT
n=$(find "$OUT/windows/game" -type f | wc -l)
echo "package_love.sh: $OUT/windows/steer.dll and $n game files; see $OUT/README.txt"
