# shellcheck shell=sh
# live_app.sh — for the app tests that run steer in the background and watch
# its output while they edit files; sourced, not run:
#
#   . "$(dirname "$0")/live_app.sh"
#
# takes <steer binary> <source dir> as APP and SRC, makes TMP (removed on
# exit, with the app in PID killed), OUT for the app's output, and defines
# fail (which prints the output), count and wait_count.
set -u
# shellcheck disable=SC2034 # used by the test that sources this
APP=$1 SRC=$2
TMP=$(mktemp -d)
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
OUT=$TMP/out
fail() {
    echo "FAIL: $*"
    echo "---- program output ----"
    cat "$OUT"
    exit 1
}

# count PATTERN: lines of the output matching (ERE); 0 before there is any.
count() {
    c=$(grep -cE "$1" "$OUT" 2>/dev/null)
    echo "${c:-0}"
}
# wait_count PATTERN N: until at least N lines of the output match (two
# minutes at most; fails at once if the app exits).
wait_count() {
    i=0
    while [ "$(count "$1")" -lt "$2" ]; do
        i=$((i + 1))
        [ $i -gt 1200 ] && fail "timed out waiting for $2 x /$1/"
        kill -0 "$PID" 2>/dev/null || fail "the app exited while waiting for /$1/"
        sleep 0.1
    done
}
