#!/bin/sh
# The red-team table: every escape tried on the sandbox (issue 15 and the
# ones closed before it), each in its own headless run of
# tests/app/scenes/redteam.lua, which holds the table of attempts and
# expected results. Prints one line per attempt by name:
#
#   ok   pattern_bomb_find: instruction budget exceeded (in string.find) (0.21 s)
#
# and fails at the end if any attempt did not get its expected outcome. An
# attempt stopped by the budget must end within 2 s of CPU time (not checked under
# valgrind or ASan), and one in a brain or in scene.update must leave the
# world stepping (the run reaches its last tick).
#
# usage: sh test_redteam.sh <steer binary> <source dir>
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"
SCENE=$SRC/tests/app/scenes/redteam.lua
TICKS=30
# Under valgrind (50 times slower) a tenth of the budget, and a minute of
# wall time, keep the budget the one that stops the runaway attempts, and
# the memory cap the one that stops the memory bomb. The 2 s bound is
# checked in builds without valgrind or ASan only.
slow=0 budget=""
case $APP in *valgrind*) slow=1 budget="--budget 5000000 --time-limit 60" ;; esac
ldd "$APP" 2>/dev/null | grep -q libasan && slow=1

"$APP" --headless --ticks 1 "$SCENE" -- list >"$TMP/list" 2>&1 || { cat "$TMP/list"; fail "cannot list the attempts"; }
n=$(grep -c '^ATTEMPT' "$TMP/list")
[ "$n" -ge 40 ] || fail "only $n attempts listed"

bad=0
tab=$(printf '\t')
grep '^ATTEMPT' "$TMP/list" >"$TMP/attempts"
while IFS="$tab" read -r _ name place options expect; do
    [ "$options" = - ] && options=""
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # $budget and $options are words
    /usr/bin/time -f '%U %S' -o "$TMP/cpu" \
        timeout 300 "$APP" --headless --ticks $TICKS --memory 128 $budget $options "$SCENE" -- "$name" >"$TMP/out" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s%N)
    secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", ($2 - $1) / 1e9 }')
    # The 2 s bound is on the CPU time the run took (user + system), which a
    # loaded machine does not stretch the way it stretches wall time.
    cpu=$(tail -n 1 "$TMP/cpu" | awk '{ printf "%.2f", $1 + $2 }')
    # the outcome: the attempt's RESULT line, else the first runtime error
    got=$(sed -n "s/^RESULT $name //p" "$TMP/out" | head -n 1)
    if [ -z "$got" ]; then
        got=$(sed -n 's/^steer: runtime error: \(.*\)$/\1/p' "$TMP/out" | head -n 1 \
              | sed 's/^scene\.[a-z]*: //; s/^[^ ]*:[0-9]*: //')
        [ -n "$got" ] && got="error: $got"
    fi
    [ -n "$got" ] || got="no outcome (exit status $rc)"
    why=""
    case $got in *"$expect"*) ;; *) why="expected '$expect'" ;; esac
    [ $rc -le 1 ] || why="${why:+$why; }exit status $rc"
    grep -q 'ESCAPED' "$TMP/out" && why="${why:+$why; }a script caught a fatal error"
    case $expect in *"instruction budget exceeded"*)
        [ $slow -eq 0 ] && awk "BEGIN { exit !($cpu > 2) }" && why="${why:+$why; }took $cpu s of CPU" ;;
    esac
    if [ "$place" != load ]; then
        grep -q "^ticks=$TICKS agents=[12] " "$TMP/out" || why="${why:+$why; }the world did not keep stepping"
        grep -q '^counter v1 n=20$' "$TMP/out" || why="${why:+$why; }the other brain stopped"
    fi
    if [ -z "$why" ]; then
        printf 'ok   %s: %s (%s s, %s s CPU)\n' "$name" "$got" "$secs" "$cpu"
    else
        printf 'FAIL %s: %s (%s s, %s s CPU): %s\n' "$name" "$got" "$secs" "$cpu" "$why"
        sed 's/^/    | /' "$TMP/out" | head -n 20
        bad=$((bad + 1))
    fi
done <"$TMP/attempts"
[ $bad -eq 0 ] || fail "$bad of $n attempts did not get their expected outcome"
echo "PASS: $n attempts, each refused or stopped as expected"
