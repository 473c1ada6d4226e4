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
# The check itself is scripts/check_layers.py: one pass that reads each file once (this
# script ran a process per include, about 38 s of CPU a run; the program takes under 1 s).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/.." && pwd)}
exec python3 "$here/check_layers.py" "$root"
