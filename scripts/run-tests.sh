#!/bin/sh
# Runs test executables one after another and ends with the plain summary line
# "N passed, N failed" (counted per test binary). Exit status 1 if any failed.
set -u
kind=$1; shift
passed=0; failed=0; failed_names=""
for t in "$@"; do
    name=$(basename "$t")
    echo "== $name"
    if "$t"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failed_names="$failed_names $name"
    fi
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$kind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
