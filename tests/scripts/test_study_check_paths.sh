#!/bin/sh
# simctl study check loads each condition's scenario as its drives get it (the copy
# sim_scenario_rewrite makes, loaded from under the study's output): a condition over
# scenarios/motorway-sumo.json is ok (its SUMO route file resolves from the copy), and
# one over a scenario whose route file is missing fails naming traffic.sumo.routes.
. "$(dirname "$0")/lib.sh"
mkdir -p "$tmp/study" "$tmp/scen"
cp "$root/scenarios/motorway-sumo.json" "$tmp/scen/gone.json"
cat >"$tmp/study/ok.json" <<JSON
{"format": 1, "name": "paths", "participants": {"count": 1}, "design": {"type": "latin-square"},
 "conditions": [{"name": "sumo", "scenario": "$root/scenarios/motorway-sumo.json", "start": "curves"}]}
JSON
sed "s#$root/scenarios/motorway-sumo.json#../scen/gone.json#" "$tmp/study/ok.json" >"$tmp/study/gone.json"
"$bin/simctl" study check --out "$tmp/out" "$tmp/study/ok.json" >"$tmp/ok.txt" 2>&1 ||
    { echo "FAIL study check of a motorway-sumo condition:"; cat "$tmp/ok.txt"; exit 1; }
grep -q "ok (1 condition" "$tmp/ok.txt" || { echo "FAIL study check said:"; cat "$tmp/ok.txt"; exit 1; }
if "$bin/simctl" study check --out "$tmp/out" "$tmp/study/gone.json" >"$tmp/gone.txt" 2>&1; then
    echo "FAIL study check passed a condition whose SUMO route file is missing:"; cat "$tmp/gone.txt"; exit 1
fi
grep -q "traffic.sumo.routes: found \"$tmp/scen/motorway-sumo.rou.xml\", expected a readable file" "$tmp/gone.txt" ||
    { echo "FAIL study check said:"; cat "$tmp/gone.txt"; exit 1; }
echo "ok study check loads each condition's rewritten scenario"
