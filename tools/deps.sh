#!/bin/sh
# Installs the Debian packages steer needs, only those missing.
# Runs apt-get through sudo when not root.
set -e
PKGS="cmake make pkg-config gcc liblua5.4-dev lua5.4 lua-busted lua-check \
lua5.1 liblua5.1-0-dev lua5.3 liblua5.3-dev luajit libluajit-5.1-dev lua-compat53-dev \
luarocks love xvfb xauth doxygen \
libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev libimgui-dev fonts-dejavu-core valgrind \
clang libclang-rt-14-dev time \
gcc-mingw-w64-x86-64 wine64 wine"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "steer: installing missing packages:$missing"
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "steer: need root or sudo to install:$missing" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
