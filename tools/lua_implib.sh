#!/bin/sh
# usage: sh tools/lua_implib.sh 5.4|5.1 OUTDIR
#
# An import library for linking a Windows steer.dll against a Lua DLL that
# this machine does not have: no Windows Lua is packaged in Debian, but the
# Lua API is the same on every platform, so the list of its functions comes
# from Debian's own shared Lua and mingw-w64's dlltool turns it into
#   5.4: OUTDIR/liblua54.a, for lua54.dll (Lua 5.4's Windows builds)
#   5.1: OUTDIR/liblua51.a, for lua51.dll (LuaJIT's, as LÖVE ships it)
# plus the .def it was made from. Only the names matter (a DLL's imports
# are names); the real DLL comes with the game or the interpreter.
set -eu
ver=$1
out=$2
case $ver in
    5.4) so=liblua5.4.so.0 dll=lua54 ;;
    5.1) so=libluajit-5.1.so.2 dll=lua51 ;;
    *) echo "lua_implib.sh: 5.4 or 5.1, not '$ver'" >&2; exit 2 ;;
esac
path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ { print $NF; exit }')
[ -n "$path" ] || { echo "lua_implib.sh: no $so (Debian: liblua5.4-dev / libluajit-5.1-dev)" >&2; exit 1; }
mkdir -p "$out"
{
    echo "LIBRARY $dll.dll"
    echo "EXPORTS"
    nm -D --defined-only "$path" | sed "s/@.*//" | awk '$2 == "T" && $3 ~ /^(lua_|luaL_|luaopen_|luaJIT_)/ { print "    " $3 }' | sort
} > "$out/$dll.def"
n=$(grep -c '^    ' "$out/$dll.def")
[ "$n" -gt 100 ] || { echo "lua_implib.sh: only $n functions in $path" >&2; exit 1; }
rm -f "$out/lib$dll.a"
x86_64-w64-mingw32-dlltool -d "$out/$dll.def" -l "$out/lib$dll.a" -D "$dll.dll" 2>"$out/dlltool.err" || true
# dlltool reports a bad .def on stderr and still exits 0
if [ -s "$out/dlltool.err" ] || [ ! -s "$out/lib$dll.a" ]; then
    cat "$out/dlltool.err" >&2
    exit 1
fi
echo "lua_implib.sh: $out/lib$dll.a for $dll.dll ($n functions from $path)"
