#!/bin/sh
# The shipped DRT study (studies/drt.json, docs/tasks.md) is valid, names the DRT scenario
# in both conditions and plans two drives for each of its two participants.
. "$(dirname "$0")/lib.sh"
"$bin/simctl" study check "$root/studies/drt.json" >"$tmp/check.txt" 2>&1 || { echo "FAIL study check:"; cat "$tmp/check.txt"; exit 1; }
grep -q "ok (2 conditions, 2 participants" "$tmp/check.txt" || { echo "FAIL study check said:"; cat "$tmp/check.txt"; exit 1; }
"$bin/simctl" study plan "$root/studies/drt.json" >"$tmp/plan.csv" || { echo "FAIL study plan"; exit 1; }
[ "$(grep -c 'scenarios/drt.json' "$tmp/plan.csv")" -eq 4 ] || { echo "FAIL plan:"; cat "$tmp/plan.csv"; exit 1; }
echo "ok drt study"
