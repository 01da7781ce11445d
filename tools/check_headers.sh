#!/bin/sh
# tools/check_headers.sh SRC CC [CXX] — the public headers as a user meets
# them (ctest's "headers" test):
#   - every function include/steer.h and include/steer/*.h declare carries
#     ST_API (the export mark; tools/test_windows.sh checks libsteer.dll
#     exports each of them);
#   - each header compiles on its own, as C11 with -Wall -Wextra -Wpedantic
#     -Werror and, given a C++ compiler, as C++;
#   - `#include <steer.h>` alone gives the math, the types and the debug
#     traces (a program using one name of each compiles);
#   - each of the core's private headers (src/*.h) includes what it uses
#     and compiles on its own.
set -eu
SRC=$1 CC=$2 CXX=${3:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "check_headers: $*" >&2; exit 1; }

n=0
for h in "$SRC/include/steer.h" "$SRC"/include/steer/*.h; do
    bad=$(grep -nE '^[A-Za-z_][A-Za-z0-9_ ]*[ *]st_[a-z0-9_]+\(' "$h" | grep -vE '^[0-9]+:(ST_API|static|typedef) ' || true)
    [ -z "$bad" ] || fail "$h: declared without ST_API:
$bad"
    n=$((n + $(grep -c '^ST_API ' "$h" || true)))
    rel=${h#"$SRC/include/"}
    printf '#include "%s"\nint main(void) { return 0; }\n' "$rel" > "$TMP/one.c"
    $CC -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$SRC/include" "$TMP/one.c" ||
        fail "$rel does not compile on its own (C11)"
    if [ -n "$CXX" ]; then
        $CXX -x c++ -Wall -Wextra -Werror -fsyntax-only -I"$SRC/include" "$TMP/one.c" ||
            fail "$rel does not compile on its own (C++)"
    fi
done
[ "$n" -gt 200 ] || fail "only $n ST_API functions found: the headers moved?"

cat > "$TMP/all.c" <<'C'
#include <steer.h>
int main(void)
{
    st_vec2 v = st_v2(st_cos(0.0), 0.0);                 /* math_functions.h */
    st_world_def d = st_default_world_def();             /* types.h + the API */
    st_world *w = st_world_create(&d);
    const st_orca_trace *t = st_world_orca_trace(w);     /* debug.h */
    int ok = w != NULL && t != NULL && st_v2_len(v) == 1.0 && ST_ORCA_TRACE_LINES > 0;
    st_world_destroy(w);
    return ok ? 0 : 1;
}
C
$CC -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$SRC/include" "$TMP/all.c" ||
    fail "#include <steer.h> does not give everything"
p=0
for h in "$SRC"/src/*.h; do
    printf '#include "%s"\n' "$(basename "$h")" > "$TMP/private.c"
    $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$SRC/include" -I"$SRC/src" "$TMP/private.c" ||
        fail "src/$(basename "$h") does not compile on its own"
    p=$((p + 1))
done
echo "headers: $p private headers compile alone; $n ST_API functions, every header compiles on its own (C11${CXX:+ and C++})"
