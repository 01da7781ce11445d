#!/bin/sh
# usage: sh tests/reach/love.sh BUILD_LUAJIT — the LÖVE example
# (examples/love) under Xvfb for 300 frames with the LuaJIT steer.so: it must
# print the same summary line (checksum included) as the same scene run by
# tools/run_scene.lua in plain LuaJIT, and a screenshot of its last frame
# must show the world (the background, the five obstacles, the agents); then 3 s
# of real time, whose simulated time must match the wall clock. Skipped
# with a message where love or xvfb-run is missing.
set -eu
BUILD=${1:-build-luajit}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
command -v love >/dev/null 2>&1 || { echo "SKIP: love is not installed (apt-get install love): LÖVE example not run"; exit 0; }
command -v xvfb-run >/dev/null 2>&1 || { echo "SKIP: xvfb-run is not installed (apt-get install xvfb xauth): LÖVE example not run"; exit 0; }
command -v luajit >/dev/null 2>&1 || { echo "SKIP: no luajit: LÖVE example not run"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
SO_DIR=$(cd "$SRC/$BUILD" 2>/dev/null && pwd) || fail "no $BUILD (make build-luajit)"
[ -f "$SO_DIR/steer.so" ] || fail "no $BUILD/steer.so (make build-luajit)"
FRAMES=300

# LÖVE under Xvfb, a software GL (llvmpipe) is enough.
timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" \
    love "$SRC/examples/love" --steer "$SO_DIR" --frames $FRAMES --checksum --screenshot "$TMP/love.png" \
    >"$TMP/love.out" 2>"$TMP/love.err" || { cat "$TMP/love.out" "$TMP/love.err"; fail "love exited with an error"; }
love_line=$(grep '^ticks=' "$TMP/love.out") || { cat "$TMP/love.out" "$TMP/love.err"; fail "no summary line from love"; }
LUA_CPATH="$SO_DIR/?.so;;" luajit "$SRC/tools/run_scene.lua" "$SRC/scripts/hunt.lua" $FRAMES >"$TMP/jit.out" 2>&1 \
    || { cat "$TMP/jit.out"; fail "run_scene.lua under luajit"; }
jit_line=$(grep '^ticks=' "$TMP/jit.out")
echo "love:   $love_line"
echo "luajit: $jit_line"
[ "$love_line" = "$jit_line" ] || fail "LÖVE and plain LuaJIT disagree"
echo "$love_line" | grep -q "^ticks=$FRAMES agents=43 checksum=[0-9a-f]\{16\} errors=0$" || fail "unexpected summary: $love_line"

# The screenshot: 960 x 640, mostly background, the obstacles, the agents.
[ -s "$TMP/love.png" ] || fail "no screenshot"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$TMP/love.png" <<'PY' || fail "the screenshot does not show the scene"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert (w, h) == (960, 640), (w, h)
bpp = {2: 3, 6: 4}[ctype]
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts, orange = {}, 0
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        counts[px] = counts.get(px, 0) + 1
        if px == b"\x3c\x46\x55":  # obstacles: (60, 70, 85)
            orange += 1
bg, n = max(counts.items(), key=lambda kv: kv[1])
share = n / (w * h)
others = w * h - n - orange
print("screenshot: %dx%d, %d colours, background %s on %.0f%%, obstacles %d px, agents and text %d px"
      % (w, h, len(counts), bg.hex(), share * 100, orange, others))
assert 0.5 < share < 0.99, "background share %.2f" % share
# five obstacle circles of radius 34..55: about 33,000 pixels
assert 25000 < orange < 40000, "obstacles: %d pixels" % orange
assert others > 1500, "no agents drawn"
PY
fi
echo "love: the LÖVE example matches plain LuaJIT ($FRAMES frames)"

# Pacing: 3 s of real time through world:advance. The simulated time plus
# the steps dropped on slow frames must account for the wall time, to
# within a step and the frames' own rounding: the world runs in real time
# whatever the frame rate (Xvfb's is far from 60 Hz).
timeout 300 xvfb-run -a -s "-screen 0 1024x768x24" \
    love "$SRC/examples/love" --steer "$SO_DIR" --seconds 3 --pace \
    >"$TMP/pace.out" 2>"$TMP/pace.err" || { cat "$TMP/pace.out" "$TMP/pace.err"; fail "love --pace exited with an error"; }
pace=$(grep '^pace: ' "$TMP/pace.out") || { cat "$TMP/pace.out" "$TMP/pace.err"; fail "no pace line from love"; }
echo "love $pace"
echo "$pace" | awk '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    sim = v["time"] + v["dropped"] / 60.0
    if (v["frames"] < 30) { print "FAIL: only " v["frames"] " frames in 3 s"; exit 1 }
    if (v["wall"] < 3) { print "FAIL: stopped before 3 s of wall time"; exit 1 }
    d = v["wall"] - sim
    if (d < -0.02 || d > 1 / 60.0 + 0.05) { printf "FAIL: simulated %.4f s (dropped included) in %.4f s of wall time\n", sim, v["wall"]; exit 1 }
    printf "love: real time: %.4f s simulated (%d steps dropped) in %.4f s, %d frames\n", sim, v["dropped"], v["wall"], v["frames"]
}' || fail "the LÖVE example does not run in real time"
