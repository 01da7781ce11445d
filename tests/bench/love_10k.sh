#!/bin/sh
# usage: sh tests/bench/love_10k.sh LUAJIT_BUILD — make bench's row
# for the LÖVE example's 10k mode (examples/love --agents 10000): headless
# LÖVE under Xvfb (a software GL, llvmpipe, as tests/reach/love.sh runs it),
# one fixed step a frame, the median frame's CPU time for the step and the
# drawing (the rest of the frame is the software rasteriser's), with the
# FFI backend and without (STEER_FFI=0). Then whether the world's checksum
# equals tests/bench/hunt.lua's after as many steps. Prints figures, asserts
# nothing; skipped with a message without love or xvfb-run.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
FRAMES=48 # = tests/bench/hunt.lua --quick's steps (3 + 9 x 5): the checksums compare
command -v love >/dev/null 2>&1 || { echo "love 10k: SKIP (no love: apt-get install love)"; exit 0; }
command -v xvfb-run >/dev/null 2>&1 || { echo "love 10k: SKIP (no xvfb-run: apt-get install xvfb xauth)"; exit 0; }
SO_DIR=$(cd "$SRC/$BUILD" && pwd)
want=$(cd "$SRC" && LUA_CPATH="$SO_DIR/?.so;;" luajit tests/bench/hunt.lua --quick | sed 's/.*checksum //')
for ffi in 1 0; do
    line=$(STEER_FFI=$ffi timeout 600 xvfb-run -a -s "-screen 0 1024x768x24" \
        love "$SRC/examples/love" --steer "$SO_DIR" --agents 10000 --frames "$FRAMES" --bench 2>&1 | grep '^love ') \
        || { echo "love 10k (STEER_FFI=$ffi): no figures (love failed)"; continue; }
    echo "$line"
    got=$(echo "$line" | sed 's/.*checksum //')
    [ "$got" = "$want" ] && echo "  the same checksum as tests/bench/hunt.lua after $FRAMES steps" \
        || echo "  CHECKSUM DIFFERS from tests/bench/hunt.lua's $want"
done
