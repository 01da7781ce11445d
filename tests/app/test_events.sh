#!/bin/sh
# The one event stream (README "Time travel", app/event.c): live input and a
# replay apply the same events through the same function, which is also
# where the journal gets them. So a replay, recorded again (--replay A
# --record B), must give back A byte for byte: the same events at the same
# ticks, the same sources, marks and checksums, on 1 or 2 threads. Checked
# for a headless session with two reloads (--reload-at) and for a window
# session (Xvfb) with keys, the speed and force keys, clicks (left and
# right), a console line, and R; a journal with an input taken out replays
# differently (so the comparison can fail).
#
# usage: sh test_events.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"

cp "$SRC/tests/app/scenes/replay_scene.lua" "$SRC/tests/app/scenes/replay_brain.lua" "$TMP/"
cd "$TMP" || fail "no temporary folder"
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 3.0/' replay_brain.lua >v1.lua
sed 's/^local SPEEDUP = 1.0/local SPEEDUP = 0.2/' replay_brain.lua >v2.lua
checksum() { sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' "$1"; }
# inputs REC: the journal's input records (what a user did), one a line
inputs() { grep -a -E '^(key|click|mouse|console|restart|scale|reload) [0-9]' "$1"; }

# ---- headless: two reloads (each a served source and a reload event)
"$APP" --headless --ticks 300 --record a.rec --reload-at 100:replay_brain.lua=v1.lua \
    --reload-at 200:replay_brain.lua=v2.lua replay_scene.lua >a.out 2>&1 || fail "the recording run failed: $(cat a.out)"
[ "$(grep -c '^reload ' a.rec)" -eq 2 ] || fail "two reload events expected in the journal: $(cat a.out)"
for threads in 1 2; do
    "$APP" --headless --replay a.rec --record "b$threads.rec" --threads $threads >b.out 2>&1 ||
        fail "replaying with --record ($threads threads) failed: $(cat b.out)"
    grep -q '^replay: identical (5 checksums)$' b.out || fail "not identical ($threads threads): $(cat b.out)"
    [ "$(checksum b.out)" = "$(checksum a.out)" ] || fail "the replay ends on another checksum ($threads threads)"
    cmp -s a.rec "b$threads.rec" || { diff a.rec "b$threads.rec" | head -20; fail "the replay's journal is not the recording ($threads threads)"; }
done
echo "ok: headless, two reloads: the replay's own journal equals the recording byte for byte (1 and 2 threads, checksum $(checksum a.out))"

"$APP" --headless --replay a.rec --record c.rec --with-current-scripts >c.out 2>&1
[ $? -eq 2 ] || fail "--record with --with-current-scripts must be refused: $(cat c.out)"
grep -q 'steer: --record does not go with --with-current-scripts' c.out || fail "no clear message: $(cat c.out)"

# ---- numbers that would put nan or inf into the world are bad records
for bad in 'scale 100 speed nan' 'scale 100 force 0x0p+0' 'scale 100 speed -0x1p+1' 'click 100 inf 0x1p+4 1' 'mouse 100 nan 0x1p+4'; do
    awk -v rec="$bad" '/^sum 120 /{print rec} {print}' a.rec >bad.rec
    "$APP" --headless --replay bad.rec >bad.out 2>&1
    st=$?
    [ $st -eq 2 ] || fail "'$bad': exit $st, not 2: $(cat bad.out)"
    grep -q "steer: replay bad.rec: line [0-9]*: a bad '${bad%% *}' record" bad.out || fail "'$bad': $(cat bad.out)"
done
echo "ok: a recorded scaling by nan, 0 or a negative factor, a click or pointer at nan or inf: a clear error (exit 2)"

# ---- a window session: every kind of live input
command -v xvfb-run >/dev/null 2>&1 || { echo "SKIP: the window part: xvfb-run is not installed"; exit 0; }
VG=
case $APP in
*steer-valgrind) VG=1 ;; # as test_window.sh: SDL's dummy driver, no X libraries under memcheck
*) SDL_VIDEODRIVER=x11 && export SDL_VIDEODRIVER ;;
esac
xrun() {
    if [ -n "$VG" ]; then timeout 900 env -u DISPLAY "$@"; else timeout 300 xvfb-run -a -s "-screen 0 1280x800x24" "$@"; fi
}
# time x8 first, so the session passes several checksums (every 60 ticks)
cat >w.ev <<'EOF'
2 key +
3 key +
4 key +
5 key ]
7 key ;
9 click-world 200 40
11 key K
13 key `
14 text world:spawn{ pos = {100, 100} }
15 key Return
16 key Escape
20 key R
24 key ]
26 click-world 350 260 2
28 move 100 100
29 key J
EOF
xrun "$APP" replay_scene.lua --frames 80 --events w.ev --record w.rec >w.out 2>&1 || fail "the window session failed: $(cat w.out)"
for kind in key click mouse console restart scale; do
    grep -q "^$kind [0-9]" w.rec || { inputs w.rec; fail "no '$kind' event recorded in the window session"; }
done
[ "$(grep -c '^sum ' w.rec)" -ge 2 ] || fail "the session is too short to pass two checksums: $(grep '^end' w.rec)"
"$APP" --headless --replay w.rec --record w2.rec >w2.out 2>&1 || fail "the window session does not replay: $(cat w2.out)"
grep -q '^replay: identical' w2.out || fail "the window session replays differently: $(cat w2.out)"
inputs w.rec >live.txt
inputs w2.rec >fed.txt
cmp -s live.txt fed.txt || { diff live.txt fed.txt; fail "the events applied by the replay are not the live ones"; }
cmp -s w.rec w2.rec || { diff w.rec w2.rec | head -20; fail "the replay's journal is not the window's"; }
echo "ok: a window session's $(wc -l <live.txt) input events ($(cut -d' ' -f1 live.txt | sort -u | tr '\n' ' ')) replay through the same function: the same journal, byte for byte"

# ---- without its first scaling the same session is another one
awk '/^scale / && !done { done = 1; next } { print }' w.rec >noscale.rec
"$APP" --headless --replay noscale.rec >n.out 2>&1
[ $? -eq 3 ] || fail "a journal without an input must diverge: $(cat n.out)"
echo "ok: without one of its inputs the journal replays differently ($(grep '^replay:' n.out))"
