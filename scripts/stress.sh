#!/bin/sh
# Runs tests again and again while stress-ng loads the machine, and counts how each
# fares: the check that a test orders by events, not by the wall clock (issue 36: seven
# tests failed under load average 9-15 and passed alone).
#
# Usage: sh scripts/stress.sh [-n RUNS] [-l WORKERS] [-t SECONDS] TEST[:CASE] ...
#   TEST     a cmocka binary (build/tests/test_collision) or a script
#            (tests/scripts/test_instruments.sh); CASE runs only that cmocka case
#            (TEST_FILTER, tests/support/ts_filter.c; * and ? as wildcards)
#   -n RUNS     runs of each test (default 20)
#   -l WORKERS  stress-ng CPU workers (default 10: about load average 10 plus the tests)
#   -t SECONDS  each run's limit (default 300, as scripts/run-tests.sh)
# Prints one line per run (test, run, ok/FAILED, seconds, load average), then per test
# "N/RUNS passed"; exits 1 when any run failed. Logs of failed runs stay in $TMPDIR.
# Build first: make all build/tests/test_... (SIM_BIN and SIM_ROOT as make test sets).
set -u
runs=20 workers=10 limit=300
while getopts n:l:t: o; do
    case $o in
        n) runs=$OPTARG ;;
        l) workers=$OPTARG ;;
        t) limit=$OPTARG ;;
        *) sed -n '2,17p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,17p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
export SIM_BIN="${SIM_BIN:-$root/bin}" SIM_ROOT="${SIM_ROOT:-$root}"
command -v stress-ng > /dev/null || { echo "stress.sh: stress-ng is missing (sh scripts/deps.sh)" >&2; exit 2; }
logs=$(mktemp -d "${TMPDIR:-/tmp}/stress.XXXXXX")
stress_pid=""
stop_stress() { [ -n "$stress_pid" ] && kill "$stress_pid" 2> /dev/null; wait 2> /dev/null; }
trap 'stop_stress' EXIT
trap 'exit 130' INT TERM
if [ "$workers" -gt 0 ]; then
    stress-ng --cpu "$workers" --cpu-method matrixprod --timeout 0 --quiet &
    stress_pid=$!
    sleep 5 # the load average follows the load slowly
fi
loadavg() { cut -d' ' -f1 /proc/loadavg; }
echo "stress: $workers stress-ng CPU workers, $runs runs each, load average $(loadavg)"
failed=0
summary=""
for spec in "$@"; do
    t=${spec%%:*} case_=""
    [ "$spec" != "$t" ] && case_=${spec#*:}
    name=$(basename "$t")${case_:+:$case_}
    pass=0
    i=1
    while [ "$i" -le "$runs" ]; do
        log="$logs/$(basename "$t")${case_:+-$case_}.$i.log"
        start=$(date +%s)
        case $t in
            *.sh) timeout --kill-after=10 "$limit" sh "$t" > "$log" 2>&1 ;;
            *) TEST_FILTER="$case_" timeout --kill-after=10 "$limit" "$t" > "$log" 2>&1 ;;
        esac
        rc=$?
        secs=$(($(date +%s) - start))
        if [ "$rc" -eq 0 ]; then
            pass=$((pass + 1)); verdict=ok; rm -f "$log"
        else
            failed=1; verdict="FAILED (exit $rc, $log)"
        fi
        echo "$name run $i: $verdict, $secs s, load $(loadavg)"
        i=$((i + 1))
    done
    summary="$summary$name: $pass/$runs passed
"
done
stop_stress
stress_pid=""
printf '%s' "$summary"
[ "$failed" -eq 0 ] && rmdir "$logs" 2> /dev/null
exit "$failed"
