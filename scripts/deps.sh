#!/bin/sh
# Checks that the Debian packages the build needs are present (through pkg-config and
# a few commands) and installs the missing ones with apt-get when run as root; otherwise
# it stops with the exact apt-get command to run. Called by the Makefile before
# building, so `make test` and `make run` work as the first commands on a fresh machine
# (one that has only `make`, and `git` to clone). Verified in a debootstrap'd Debian 12
# minbase chroot: see scripts/fresh-check.sh.
set -eu
cd "$(dirname "$0")/.."

# pkg-config name -> Debian package. Every name the Makefile or a <dir>/module.mk asks
# pkg-config for must be here: a name that is not stops the check (below), because on a
# fresh machine nothing else would install it.
PKGS="libuv:libuv1-dev libcjson:libcjson-dev nanomsg:libnanomsg-dev sqlite3:libsqlite3-dev \
sdl2:libsdl2-dev epoxy:libepoxy-dev cairo:libcairo2-dev cmocka:libcmocka-dev libpng:libpng-dev \
zlib:zlib1g-dev fontconfig:libfontconfig-dev libxml-2.0:libxml2-dev \
libwebsockets:libwebsockets-dev assimp:libassimp-dev libzstd:libzstd-dev \
libprotobuf-c:libprotobuf-c-dev libavformat:libavformat-dev libavcodec:libavcodec-dev libswscale:libswscale-dev libavutil:libavutil-dev"
# command -> Debian package (tools the build, the tests and fuzzing start; Xvfb and
# xdotool drive the keyboard window in tests/integration/test_keyboard_window.c; python3
# runs the Python client's tests, tests/scripts/test_pyclient.sh; nc and socat run the
# shell examples of docs/protocol.md, tests/scripts/test_shell_examples.sh; chromium,
# node and npm run the console's browser tests, tests/scripts/test_console.sh; sumo and
# netconvert run SUMO's traffic, traffic-node with "engine": "sumo", test_sumo_session;
# stress-ng loads the machine for scripts/stress.sh; ssh and ssh-keygen start a lab's
# remote modules, simctl run --lab, docs/lab.md; protoc-c makes common/osi's C from its
# .proto files at build time, protoc the Python classes test_export_osi.sh decodes the
# OSI trace with, docs/osi.md; xmllint validates simctl codes export's .eaf against the
# EAF 3.0 schema, tests/scripts/test_codes.sh)
CMDS="pkg-config:pkg-config cc:gcc make:make nanocat:nanomsg-utils clang:clang \
sqlite3:sqlite3 Xvfb:xvfb xdotool:xdotool nc:netcat-openbsd socat:socat python3:python3 \
chromium:chromium node:nodejs npm:npm sumo:sumo netconvert:sumo stress-ng:stress-ng ssh:openssh-client ssh-keygen:openssh-client \
protoc-c:protobuf-c-compiler protoc:protobuf-compiler xmllint:libxml2-utils"
# library file -> Debian package, for what has neither a pkg-config name nor a command:
# render-node without a display (SDL_VIDEODRIVER=offscreen) needs EGL with Mesa's
# vendor library and its software rasteriser (llvmpipe), as do its tests
FILES="libEGL.so.1:libegl1 libEGL_mesa.so.0:libegl-mesa0 dri/swrast_dri.so:libgl1-mesa-dri"
# file -> Debian package, for files at a fixed place: SUMO's tools (randomTrips.py
# makes a scenario's demand, docs/traffic.md "SUMO"; sumo and netconvert are in CMDS);
# Debian's sshd, started in each network namespace of tests/scripts/test_lab_hosts.sh
DATA="/usr/share/sumo/tools/randomTrips.py:sumo-tools /usr/sbin/sshd:openssh-server"
# Python module -> Debian package, imported by Debian's own python3 (/usr/bin/python3):
# the eye-tracker bridge speaks Pupil Capture's network API, ZeroMQ + msgpack
# (clients/python/pupil_bridge.py, tests/scripts/test_instruments.sh); Google's
# protobuf decodes the OSI trace in tests/scripts/test_export_osi.sh (docs/osi.md)
PYMODS="zmq:python3-zmq msgpack:python3-msgpack google.protobuf:python3-protobuf"

# The pkg-config names the Makefile (PKG_CORE, PKG_ALL), the components (<c>_PKGS in
# common/<c>/component.mk) and the modules (<dir>_PKGS in
# <dir>/module.mk) use; $(...) references to other lists are skipped.
unknown=""
for mk in Makefile */module.mk common/*/component.mk; do
    [ -f "$mk" ] || continue
    # shellcheck disable=SC2013  # words, not lines: the names after :=
    for pc in $(sed -n 's/^[A-Za-z0-9_.-]*PKG[A-Z_]*[[:space:]]*[:+?]*=//p' "$mk"); do
        case $pc in \$*) continue ;; esac
        case " $PKGS " in
            *" $pc:"*) ;;
            *) unknown="$unknown $pc ($mk)" ;;
        esac
    done
done
if [ -n "$unknown" ]; then
    echo "deps: scripts/deps.sh does not know the Debian package of these pkg-config names:$unknown" >&2
    echo "deps: add each as NAME:DEBIAN-PACKAGE to PKGS in scripts/deps.sh" >&2
    exit 1
fi

# The version of clang that is, or would be, installed: its libFuzzer runtime is a
# separate package (libclang-rt-N-dev), which clang only recommends.
clang_version() {
    if command -v clang >/dev/null 2>&1; then
        clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1
    else
        apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9]*\)$/\1/p' | head -n 1
    fi
}

# Whether a library file is in one of the system's library directories.
have_lib() {
    for d in /usr/lib/*-linux-gnu /usr/lib64 /usr/lib; do
        [ -e "$d/$1" ] && return 0
    done
    return 1
}

missing_packages() {
    m=""
    command -v pkg-config >/dev/null 2>&1 || m="pkg-config"
    for pair in $PKGS; do
        pc=${pair%%:*}; deb=${pair#*:}
        if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$pc" 2>/dev/null; then
            m="$m $deb"
        fi
    done
    for pair in $CMDS; do
        cmd=${pair%%:*}; deb=${pair#*:}
        command -v "$cmd" >/dev/null 2>&1 || m="$m $deb"
    done
    for pair in $FILES; do
        f=${pair%%:*}; deb=${pair#*:}
        have_lib "$f" || m="$m $deb"
    done
    for pair in $DATA; do
        f=${pair%%:*}; deb=${pair#*:}
        [ -e "$f" ] || m="$m $deb"
    done
    for pair in $PYMODS; do
        mod=${pair%%:*}; deb=${pair#*:}
        /usr/bin/python3 -c "import $mod" >/dev/null 2>&1 || m="$m $deb"
    done
    v=$(clang_version)
    [ -n "$v" ] || v=14     # Debian 12's clang, when apt-cache cannot tell
    if ! ls /usr/lib/llvm-"$v"/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1; then
        m="$m libclang-rt-$v-dev"
    fi
    echo "$m" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# The browser tests' driver, playwright-core, and the MCAP reader the export test reads
# with (@mcap/core, fzstd for its zstd chunks), from the npm registry at the versions
# tests/browser/package-lock.json pins; playwright drives Debian's chromium, so no
# browser is downloaded.
npm_packages() {
    for p in playwright-core @mcap/core fzstd; do
        [ -f "tests/browser/node_modules/$p/package.json" ] || break
        [ "$p" = fzstd ] && return 0
    done
    echo "deps: installing tests/browser's npm packages (npm ci)" >&2
    (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
}

missing=$(missing_packages)
[ -z "$missing" ] && { npm_packages; exit $?; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing missing packages: $missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >&2
    still=$(missing_packages)
    if [ -n "$still" ]; then
        echo "deps: still missing after apt-get install: $still" >&2
        exit 1
    fi
    echo "deps: installed $missing" >&2
    npm_packages
    exit $?
fi
echo "deps: missing packages. Install them with:" >&2
if command -v sudo >/dev/null 2>&1; then
    echo "    sudo apt-get install -y $missing" >&2
else
    echo "    su -c 'apt-get install -y $missing'" >&2
fi
exit 1
