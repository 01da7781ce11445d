# shellcheck shell=sh
# common.sh — what every app test starts with; sourced, not run:
#
#   . "$(dirname "$0")/common.sh"
#
# takes the test's arguments <steer binary> <source dir> as APP and SRC,
# makes a temporary folder TMP removed on exit, and defines fail.
set -u
# shellcheck disable=SC2034 # used by the test that sources this
APP=$1 SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
