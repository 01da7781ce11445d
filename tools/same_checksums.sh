#!/bin/sh
# usage: sh tools/same_checksums.sh LABEL=SHEET LABEL=SHEET...
#
# Sets the checksum sheets of several builds side by side (tools/
# checksum_sheet.sh makes them) and fails unless every checksum equals the
# first sheet's, the reference. A sheet may lack lines the reference has
# (Windows runs no Lua scenes: shown as -), never the other way round, and
# every sheet must hold the core's lines (math ... restored).
set -eu
[ $# -ge 2 ] || { echo "usage: same_checksums.sh LABEL=SHEET LABEL=SHEET..." >&2; exit 2; }
ref=${1#*=}
fail=0
header="name"
for a in "$@"; do header="$header ${a%%=*}"; done
{
    echo "$header"
    while read -r name sum; do
        row="$name $sum"
        for a in "$@"; do
            [ "${a#*=}" = "$ref" ] && continue
            got=$(awk -v n="$name" '$1 == n { print $2 }' "${a#*=}")
            [ -n "$got" ] || got=-
            row="$row $got"
        done
        echo "$row"
    done < "$ref"
} | awk '{ for (i = 1; i <= NF; i++) printf "%-24s", $i; print "" }'
for a in "$@"; do
    sheet=${a#*=}
    for core in math crowd orca big tiles flow restored embed_c; do
        grep -q "^$core " "$sheet" || { echo "FAIL: ${a%%=*} has no $core checksum" >&2; fail=1; }
    done
    while read -r name sum; do
        want=$(awk -v n="$name" '$1 == n { print $2 }' "$ref")
        if [ -z "$want" ]; then
            echo "FAIL: ${a%%=*} has $name, the reference has not" >&2; fail=1
        elif [ "$sum" != "$want" ]; then
            echo "FAIL: $name: ${a%%=*} $sum, ${1%%=*} $want" >&2; fail=1
        fi
    done < "$sheet"
done
n=$(wc -l < "$ref")
[ $fail -eq 0 ] && echo "same_checksums: $n checksums, equal in all $# builds"
exit $fail
