#!/bin/sh
# The layer check: holds every component of the shared library and every module to what
# it may use, and fails naming each offending include.
#   - common/<c>/component.mk lists the components (<c>_USES) and pkg-config names
#     (<c>_PKGS) that <c> may include; a component marked <c>_PURE (vehicle, metrics,
#     the world geometry, the new pure cores) may list no I/O library at all.
#     A pure component includes no POSIX I/O header either (<stdio.h>, <unistd.h>,
#     <sys/...>, sockets, threads, signals, clocks): its functions compute, the module
#     around them does the I/O and passes the clock in.
#   - Includes in quotes are by name, never by path ("/" or ".."): a header is found in
#     the includer's own directory or through the component that owns it.
#   - <c>_PRIVATE in component.mk lists headers only <c> itself may include (and its
#     white-box tests: tests/unit, tests/support).
#   - A module (a directory with main.c) includes its own headers and the shared
#     library's, never another module's; library headers only from PKG_CORE in the
#     Makefile plus its module.mk's <dir>_PKGS.
#   - Tests, benchmarks and fuzz targets include their own directory's headers,
#     tests/support's (benchmarks too) and the shared library's public ones; a module's headers only
#     from that module's unit tests (tests/unit/test_<dir>_*.c).
# Usage: sh scripts/check-layers.sh [ROOT]   (ROOT defaults to the repository)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# Library header (prefix of the include's path) -> the pkg-config name it belongs to,
# in $pkg (set, not printed: no subshell per include, which made the check slow).
header_pkg() {
    case $1 in
        uv.h|uv/*) pkg=libuv ;;
        cjson/*) pkg=libcjson ;;
        nanomsg/*) pkg=nanomsg ;;
        sqlite3.h|sqlite3ext.h) pkg=sqlite3 ;;
        png.h|pngconf.h) pkg=libpng ;;
        SDL.h|SDL_*|SDL2/*) pkg=sdl2 ;;
        epoxy/*|GL/*|GLES*/*|EGL/*) pkg=epoxy ;;
        cairo.h|cairo-*|cairo/*) pkg=cairo ;;
        zlib.h) pkg=zlib ;;
        fontconfig/*) pkg=fontconfig ;;
        libxml/*) pkg=libxml-2.0 ;;
        libwebsockets.h|libwebsockets/*) pkg=libwebsockets ;;
        cmocka.h) pkg=cmocka ;;
        *) pkg="" ;;
    esac
}
# The libraries a pure component may not use: they mean I/O, a GUI or a network.
IMPURE="libuv nanomsg sqlite3 sdl2 epoxy cairo libpng zlib fontconfig libxml-2.0"
# System headers that mean I/O, processes, threads, signals or a clock, in $posix_io.
posix_io_header() {
    case $1 in
        stdio.h|unistd.h|fcntl.h|dirent.h|poll.h|netdb.h|pthread.h|signal.h|termios.h|dlfcn.h|time.h|\
        sys/*|netinet/*|arpa/*|linux/*) posix_io=1 ;;
        *) posix_io="" ;;
    esac
}

# Value of a make variable assignment `NAME := words` in a file (first match).
mkvar() { sed -n "s/^$2[[:space:]]*[:+?]*=[[:space:]]*//p" "$1" | head -n 1; }
contains() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

fail=0
report() { echo "layers: $*"; fail=1; }

# Which component owns each shared-library header, in $owner: looked up in a list
# made once (" name:component ..."), without a subshell per include.
HEADERS=" "
for f in common/*/*.h; do
    [ -f "$f" ] || continue
    c=${f#common/}; HEADERS="$HEADERS${f##*/}:${c%%/*} "
done
owner_of() {
    case $HEADERS in
        *" $1:"*) owner=${HEADERS#* "$1":}; owner=${owner%% *} ;;
        *) owner="" ;;
    esac
}
# Private headers (" name:component ..."), from every component.mk's <c>_PRIVATE.
PRIVATE=" "
for mk in common/*/component.mk; do
    c=${mk#common/}; c=${c%/component.mk}
    for h in $(mkvar "$mk" "${c}_PRIVATE"); do
        [ -f "common/$c/$h" ] || report "$mk: ${c}_PRIVATE names $h, which is not in common/$c"
        PRIVATE="$PRIVATE$h:$c "
    done
done
private_of() {   # header -> $private_owner ("" when public)
    case $PRIVATE in
        *" $1:"*) private_owner=${PRIVATE#* "$1":}; private_owner=${private_owner%% *} ;;
        *) private_owner="" ;;
    esac
}
quoted_includes() { grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/'; }

check_file_libs() {   # file allowed-pkgs who
    grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]*>' "$1" | sed 's/.*<\(.*\)>/\1/' |
    while read -r h; do
        header_pkg "$h"
        [ -z "$pkg" ] && continue
        contains "$2" "$pkg" || echo "$1: includes <$h> ($pkg), which $3 may not use (allowed: ${2:-none})"
    done
}

for mk in common/*/component.mk; do
    c=${mk#common/}; c=${c%/component.mk}
    uses=$(mkvar "$mk" "${c}_USES")
    pkgs=$(mkvar "$mk" "${c}_PKGS")
    pure=$(mkvar "$mk" "${c}_PURE")
    for u in $uses; do
        [ -f "common/$u/component.mk" ] || report "$mk: ${c}_USES names '$u', which is no component"
    done
    if [ -n "$pure" ]; then
        for p in $pkgs; do
            contains "$IMPURE" "$p" && report "$mk: $c is pure but lists $p"
        done
        for u in $uses; do
            [ "$u" = base ] && continue
            [ -n "$(mkvar "common/$u/component.mk" "${u}_PURE")" ] ||
                report "$mk: $c is pure but uses $u, which is not"
        done
    fi
    for f in common/"$c"/*.c common/"$c"/*.h; do
        [ -f "$f" ] || continue
        out=$(check_file_libs "$f" "$pkgs" "component $c")
        [ -n "$out" ] && report "$out"
        if [ -n "$pure" ]; then
            for h in $(grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]*>' "$f" | sed 's/.*<\(.*\)>/\1/'); do
                posix_io_header "$h"
                [ -n "$posix_io" ] && report "$f: includes <$h>, I/O in pure component $c (its module does the I/O)"
            done
        fi
        for h in $(quoted_includes "$f"); do
            case $h in */*) report "$f: includes \"$h\" by path; components include headers by name"; continue ;; esac
            [ -f "common/$c/$h" ] && continue
            owner_of "$h"; o=$owner
            if [ -z "$o" ]; then
                report "$f: includes \"$h\", which is in no component"
            elif ! contains "$uses" "$o"; then
                report "$f: includes \"$h\" from component $o, which $c may not use (${c}_USES: ${uses:-none})"
            fi
        done
    done
done

core=$(mkvar Makefile PKG_CORE)
for m in */main.c; do
    d=${m%/main.c}
    extra=""
    [ -f "$d/module.mk" ] && extra=$(mkvar "$d/module.mk" "${d}_PKGS")
    for f in "$d"/*.c "$d"/*.h; do
        [ -f "$f" ] || continue
        out=$(check_file_libs "$f" "$core $extra" "module $d")
        [ -n "$out" ] && report "$out"
        for h in $(quoted_includes "$f"); do
            case $h in */*) report "$f: includes \"$h\" by path; modules include their own headers and the shared library's by name"; continue ;; esac
            [ -f "$d/$h" ] && continue
            owner_of "$h"
            if [ -n "$owner" ]; then
                private_of "$h"
                [ -n "$private_owner" ] && report "$f: includes \"$h\", private to component $private_owner"
                continue
            fi
            other=$(for g in */"$h"; do [ -f "$g" ] && echo "${g%%/*}"; done | head -n 1)
            if [ -n "$other" ]; then
                report "$f: includes \"$h\" of module $other; modules never include each other"
            else
                report "$f: includes \"$h\", which is neither in $d nor in the shared library"
            fi
        done
    done
done

# Tests, benchmarks, fuzz targets. Modules as "name_with_underscores:dir".
MODULES=""
for m in */main.c; do
    d=${m%/main.c}
    u=""; rest=$d
    while :; do
        case $rest in
            *-*) u="$u${rest%%-*}_"; rest=${rest#*-} ;;
            *) u="$u$rest"; break ;;
        esac
    done
    MODULES="$MODULES $u:$d"
done
for f in tests/unit/*.c tests/integration/*.c tests/support/*.c tests/support/*.h bench/*.c bench/*.h fuzz/*.c; do
    [ -f "$f" ] || continue
    dir=${f%/*}
    own_module=""   # the module a tests/unit/test_<dir>_*.c tests
    case $f in
        tests/unit/test_*)
            for m in $MODULES; do
                case $f in tests/unit/test_"${m%%:*}"_*.c) own_module=${m#*:} ;; esac
            done ;;
        fuzz/fuzz_*) # a module's pure rules fuzzed: fuzz/fuzz_<module>_*.c
            for m in $MODULES; do
                case $f in fuzz/fuzz_"${m%%:*}"_*.c) own_module=${m#*:} ;; esac
            done ;;
    esac
    for h in $(quoted_includes "$f"); do
        case $h in */*) report "$f: includes \"$h\" by path; include headers by name"; continue ;; esac
        [ -f "$dir/$h" ] && continue
        [ -f "tests/support/$h" ] && case $dir in tests/*|bench) continue ;; esac
        [ -n "$own_module" ] && [ -f "$own_module/$h" ] && continue
        owner_of "$h"
        if [ -n "$owner" ]; then
            private_of "$h"
            if [ -n "$private_owner" ]; then
                case $dir in
                    tests/unit|tests/support) ;;
                    *) report "$f: includes \"$h\", private to component $private_owner (only its unit tests may)" ;;
                esac
            fi
            continue
        fi
        mod=$(for g in */"$h"; do [ -f "$g" ] && [ -f "${g%%/*}/main.c" ] && echo "${g%%/*}"; done | head -n 1)
        if [ -n "$mod" ]; then
            u=$(echo "$mod" | tr - _)
            report "$f: includes \"$h\" of module $mod; only tests/unit/test_${u}_*.c and fuzz/fuzz_${u}_*.c may"
        else
            report "$f: includes \"$h\", which is in none of $dir, tests/support or the shared library"
        fi
    done
done

[ "$fail" = 0 ] && echo "layers: ok ($(ls -d common/*/ | wc -l) components, $(ls */main.c | wc -l) modules)"
exit "$fail"
