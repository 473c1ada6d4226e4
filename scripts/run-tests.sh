#!/bin/sh
# Runs test executables, several at a time, each under a time limit, and ends with the
# plain summary line "KIND: N passed, N failed" (counted per test binary). Exit status
# 1 if any failed.
#
#   sh scripts/run-tests.sh KIND TEST...
#
# Jobs: SIM_TEST_JOBS, else the -j of the make that runs this (MAKEFLAGS; a bare -j
# means one per core), else one per core up to 4 (a plain `make test`, as CI runs it:
# one at a time took 17 min on 2 cores, and the suite is built to run side by side). Each binary is killed after SIM_TEST_TIMEOUT seconds
# (default 300) and then counts as failed. Every test's output is printed in one piece
# when it ends, so parallel tests never interleave their lines. The tests named (by
# file name) in SIM_TEST_SERIAL judge real-time behaviour (a fade within 50 ms, say):
# they run after the others, one at a time, so that a neighbour's load does not decide
# their outcome.
set -u

# One test (the script calls itself so: "--one TEST", with SIM_TEST_TMP set): its
# output and verdict into files, then printed under a lock.
if [ "${1:-}" = --one ]; then
    t=$2
    name=$(basename "$t")
    limit=${SIM_TEST_TIMEOUT:-300}
    # The end-to-end browser suites (SIM_TEST_LONG) get twice the limit: test_console.sh
    # drives a dozen sessions in Chromium, 2 min alone, and passed 300 s beside the
    # longest tests in a full run.
    case " ${SIM_TEST_LONG:-} " in *" $name "*) limit=$((limit * 2)) ;; esac
    start=$(date +%s)
    # A script runs through sh: a test committed without its executable bit still runs.
    case "$t" in
    *.sh) timeout --kill-after=10 "$limit" sh "$t" > "$SIM_TEST_TMP/$name.log" 2>&1 ;;
    *) timeout --kill-after=10 "$limit" "$t" > "$SIM_TEST_TMP/$name.log" 2>&1 ;;
    esac
    rc=$?
    secs=$(($(date +%s) - start))
    if [ "$rc" -eq 0 ]; then
        verdict=ok
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        verdict="FAILED: killed after $limit s (SIM_TEST_TIMEOUT)"
    else
        verdict="FAILED (exit $rc)"
    fi
    [ "$rc" -eq 0 ] && echo pass > "$SIM_TEST_TMP/$name.rc"
    {
        echo "== $name"
        cat "$SIM_TEST_TMP/$name.log"
        echo "== $name: $verdict, $secs s"
    } > "$SIM_TEST_TMP/$name.out"
    if command -v flock > /dev/null 2>&1; then
        flock "$SIM_TEST_TMP/lock" cat "$SIM_TEST_TMP/$name.out"
    else
        cat "$SIM_TEST_TMP/$name.out"
    fi
    exit 0
fi

kind=$1; shift
# The OpenDRIVE tests read road files from ../shared/opendrive/ beside the checkout.
root=${SIM_ROOT:-.}
[ -d "$root/../shared/opendrive" ] ||
    echo "run-tests: $root/../shared/opendrive/ is missing: the tests that read its road files will fail (README.md)" >&2
jobs=${SIM_TEST_JOBS:-}
if [ -z "$jobs" ]; then
    for w in ${MAKEFLAGS:-}; do
        case $w in
            -j) jobs=$(nproc 2> /dev/null || echo 2) ;;
            -j[0-9]*) jobs=${w#-j} ;;
            --jobs=*) jobs=${w#--jobs=} ;;
        esac
    done
fi
if [ -z "$jobs" ]; then
    jobs=$(nproc 2> /dev/null || echo 1)
    [ "$jobs" -gt 4 ] && jobs=4
fi
SIM_TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sim-tests.XXXXXX") || exit 2
export SIM_TEST_TMP
trap 'rm -rf "$SIM_TEST_TMP"' EXIT INT TERM
: > "$SIM_TEST_TMP/lock"

# The longest tests (SIM_TEST_FIRST, by file name) start first: started last, one of
# them kept a core busy for a minute and a half after the others had finished.
serial=""; first=""; parallel=""
for t in "$@"; do
    case " ${SIM_TEST_SERIAL:-} " in
        *" $(basename "$t") "*) serial="$serial $t"; continue ;;
    esac
    case " ${SIM_TEST_FIRST:-} " in
        *" $(basename "$t") "*) first="$first $t" ;;
        *) parallel="$parallel $t" ;;
    esac
done
parallel=$(echo $first $parallel)
[ -n "$parallel" ] && printf '%s\n' $parallel | xargs -P "${jobs:-1}" -I{} sh "$0" --one {}
for t in $serial; do sh "$0" --one "$t"; done

passed=0; failed=0; failed_names=""
for t in "$@"; do
    name=$(basename "$t")
    if [ -f "$SIM_TEST_TMP/$name.rc" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failed_names="$failed_names $name"
    fi
done
# The last lines of each failed test once more, just above the summary: CI shows only
# the end of a run's output, and a failure's cause was scrolled out of it.
for name in $failed_names; do
    echo "== the last lines of $name:"
    tail -n 40 "$SIM_TEST_TMP/$name.out" 2> /dev/null
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$kind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
