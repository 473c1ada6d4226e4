#!/bin/sh
# Checks that the Debian packages the build needs are present (through pkg-config and
# a few commands) and installs the missing ones with apt-get when run as root; otherwise
# it stops with the exact apt-get command to run. Called by the Makefile before
# building, so `make test` and `make run` work as the first commands on a fresh machine.
set -eu

# pkg-config name -> Debian package
PKGS="libuv:libuv1-dev libcjson:libcjson-dev nanomsg:libnanomsg-dev sqlite3:libsqlite3-dev \
sdl2:libsdl2-dev epoxy:libepoxy-dev cairo:libcairo2-dev cmocka:libcmocka-dev libpng:libpng-dev"
# command -> Debian package (tools the tests and fuzzing start)
CMDS="pkg-config:pkg-config cc:gcc make:make nanocat:nanomsg-utils clang:clang \
sqlite3:sqlite3 Xvfb:xvfb"

missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for pair in $PKGS; do
    pc=${pair%%:*}; deb=${pair#*:}
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$pc" 2>/dev/null; then
        missing="$missing $deb"
    fi
done
for pair in $CMDS; do
    cmd=${pair%%:*}; deb=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $deb"
done
# libFuzzer's runtime for clang (make fuzz); Debian ships it separately.
if command -v clang >/dev/null 2>&1; then
    v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
    if [ -n "$v" ] && ! ls /usr/lib/llvm-"$v"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 \
       && ! ls /usr/lib/llvm-"$v"/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
        missing="$missing libclang-rt-$v-dev"
    fi
else
    missing="$missing libclang-rt-14-dev"
fi

missing=$(echo "$missing" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing missing packages: $missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
    exit 0
fi
echo "deps: missing packages. Install them with:" >&2
echo "    sudo apt-get install -y $missing" >&2
exit 1
