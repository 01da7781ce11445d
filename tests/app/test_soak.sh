#!/bin/sh
# Soak: the hunter/prey demo headless for 100k ticks with a brain reload
# every 1k ticks (good and broken edits alternating). Resident memory stays
# flat after warm-up (at most 5% growth from tick 20000 to the end), every
# broken reload fails cleanly, every good one lands, and a rerun gives the
# same checksum.
#
# usage: sh test_soak.sh <steer binary> <source dir> [ticks]
# shellcheck source=tests/app/common.sh
. "$(dirname "$0")/common.sh"
TICKS=${3:-100000}

run() {
    rm -rf "$TMP/$1" && mkdir -p "$TMP/$1"
    cp "$SRC/tests/app/scenes/soak.lua" "$SRC/scripts/hunter.lua" "$TMP/$1/"
    # The rewind ring fills up to its bound and then stays there: a small
    # bound, reached long before tick 20000, puts its recycling under test.
    "$APP" --headless --trust --rewind-mb 4 --ticks "$TICKS" "$TMP/$1/soak.lua" -- "$TMP/$1" >"$TMP/$1.out" 2>&1
    rc=$?
    cat "$TMP/$1.out" | grep -v "load error" | head -40
    [ $rc -eq 0 ] || fail "run $1: exit status $rc"
}

run a
run b

sum_a=$(grep -o 'checksum=[0-9a-f]*' "$TMP/a.out")
sum_b=$(grep -o 'checksum=[0-9a-f]*' "$TMP/b.out")
[ -n "$sum_a" ] || fail "no summary line"
[ "$sum_a" = "$sum_b" ] || fail "rerun differs: $sum_a vs $sum_b"

last=$(grep '^soak tick=' "$TMP/a.out" | tail -1)
reloads=$(echo "$last" | sed 's/.*reloads=\([0-9]*\).*/\1/')
failed=$(echo "$last" | sed 's/.*failed=\([0-9]*\).*/\1/')
expect=$((TICKS / 1000))
[ "$reloads" -eq "$expect" ] || fail "expected $expect reloads, saw $reloads"
[ "$failed" -eq $((expect / 2)) ] || fail "expected $((expect / 2)) failed (broken) reloads, saw $failed"
grep -q "errors=0" "$TMP/a.out" || fail "a brain raised at run time during the soak"

warm=$(grep '^soak tick=20000 ' "$TMP/a.out" | sed 's/.*rss_kb=\([0-9]*\).*/\1/')
end=$(echo "$last" | sed 's/.*rss_kb=\([0-9]*\).*/\1/')
[ -n "$warm" ] && [ "$warm" -gt 0 ] || fail "no memory report at tick 20000"
# end <= warm * 1.05 plus the session journal's share, in integers: the
# journal (app/record.c, what rewinds and --record replay from) keeps the
# text of every reloaded source, so each reload after tick 20000 may add the
# brain file's size and 1 kB of bookkeeping, twice over: the journal is an
# open_memstream whose buffer doubles as it fills (massif over 12 reloads:
# the heap otherwise flat, the memstream 66 kB -> 132 kB). Nothing else may
# grow.
src_kb=$(( ($(wc -c <"$SRC/scripts/hunter.lua") + 1023) / 1024 + 1 ))
journal_kb=$(( 2 * (reloads - 20) * src_kb ))
[ $((end * 100)) -le $((warm * 105 + journal_kb * 100)) ] ||
    fail "resident memory grew from $warm kB to $end kB (> 5% + $journal_kb kB for the journal's sources)"
echo "ok: $TICKS ticks, $reloads reloads ($failed broken), rss $warm kB -> $end kB, $sum_a on both runs"
