#!/bin/sh
# usage: sh tests/platform/libm_free.sh LIBSTEER.a
# The core calls no C-library function whose bits differ between platforms
# (glibc, mingw-w64, Apple's libm): sin, cos, atan2, hypot and the rest go
# through src/dmath.c (st_sin ...), so a checksum is the same everywhere.
# What is left is exact by IEEE 754 (sqrt, floor, fmod, remainder, fmin,
# lround ...). Fails naming the file and function that calls one.
set -eu
lib=$1
bad=$(nm -A -u "$lib" | grep -E ' U (sin|cos|tan|sincos|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|expm1|log|log2|log10|log1p|pow|cbrt|hypot|erf|erfc|tgamma|lgamma)[fl]?$' || true)
if [ -n "$bad" ]; then
    echo "FAIL: the core calls the C library's platform-dependent math (use st_sin, st_cos, st_atan2, st_hypot):" >&2
    echo "$bad" >&2
    exit 1
fi
n=$(nm -u "$lib" | grep -cE ' U (sqrt|floor|fmod|remainder|fmin|fmax|lround|ceil|trunc|round)$' || true)
echo "libm_free: no platform-dependent math in $lib ($n references to exact functions)"
