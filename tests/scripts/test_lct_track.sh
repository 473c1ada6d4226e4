#!/bin/sh
# The shipped Lane Change Test track is what its documented command writes
# (docs/tasks.md), and a bad track number is refused with the reason.
. "$(dirname "$0")/lib.sh"
doc_block docs/tasks.md lct-track "$tmp/cmd.sh"
grep -q 'simctl lct-track' "$tmp/cmd.sh" || { echo "FAIL the documented block does not run simctl lct-track"; exit 1; }
(cd "$tmp" && mkdir scenarios && PATH="$bin:$PATH" sh "$tmp/cmd.sh" 2>/dev/null) || { echo "FAIL the documented command failed"; exit 1; }
cmp -s "$tmp/scenarios/lct.json" "$root/scenarios/lct.json" || { echo "FAIL scenarios/lct.json is not what the documented command writes"; exit 1; }
"$bin/simctl" validate "$root/scenarios/lct.json" >/dev/null || { echo "FAIL scenarios/lct.json does not validate"; exit 1; }
out=$("$bin/simctl" lct-track --track 0 2>&1) && { echo "FAIL track 0 accepted"; exit 1; }
echo "$out" | grep -q "track 0, expected 1 or more" || { echo "FAIL track 0: $out"; exit 1; }
# the normative model's figures and the legibility distance are options (docs/tasks.md)
out=$("$bin/simctl" lct-track --legible -1 2>&1) && { echo "FAIL a negative legibility accepted"; exit 1; }
echo "$out" | grep -q "legibility distance -1 m, expected 0 or more" || { echo "FAIL --legible -1: $out"; exit 1; }
"$bin/simctl" lct-track --lc-start 10 --lc-length 15 --legible 60 | python3 -c '
import json, sys
d = json.load(sys.stdin)
lc = d["tasks"][0]["ideal"]["lane_changes"][0]
signs = [s for s in d["roads"][0]["signs"] if s["type"] == "lane_change"]
assert lc["s"] == signs[0]["s"] - 10 and lc["ramp_length"] == 15, lc
assert all(s["legible_m"] == 60 for s in signs) and len(signs) == 18
' || { echo "FAIL --lc-start/--lc-length/--legible not in the track"; exit 1; }
# the shipped LCT study: a baseline and a SuRT drive on that track for each participant
"$bin/simctl" study check "$root/studies/lct.json" >"$tmp/check.txt" 2>&1 || { echo "FAIL study check:"; cat "$tmp/check.txt"; exit 1; }
"$bin/simctl" study plan "$root/studies/lct.json" >"$tmp/plan.csv" || { echo "FAIL study plan"; exit 1; }
[ "$(grep -c 'scenarios/lct.json' "$tmp/plan.csv")" -eq 4 ] && [ "$(grep -c ',baseline,' "$tmp/plan.csv")" -eq 2 ] ||
    { echo "FAIL studies/lct.json plan:"; cat "$tmp/plan.csv"; exit 1; }
echo "ok lct track"
