#!/bin/sh
# usage: threads_exit.sh LUA SRC — runs threads_exit.lua five times under
# stock Lua and fails on any non-zero exit (a crash at exit is a 139).
lua=$1 src=$2
i=1
while [ $i -le 5 ]; do
    out=$("$lua" "$src/tests/stock/threads_exit.lua" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "run $i: exit status $rc"
        echo "$out"
        exit 1
    fi
    i=$((i + 1))
done
echo "$out; 5 runs, each exited with status 0"
