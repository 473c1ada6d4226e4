#!/bin/sh
# The shipped signalised crossing (scenarios/crossing-lights.json) and its study
# (studies/crossing.json): the scripted driver meets red, stops before the line, waits
# and drives on at green, without a red run; the study plans two drives of it for each
# of its two participants.
. "$(dirname "$0")/lib.sh"
"$bin/simctl" study check "$root/studies/crossing.json" >"$tmp/check.txt" 2>&1 ||
    { echo "FAIL study check:"; cat "$tmp/check.txt"; exit 1; }
grep -q "ok (2 conditions, 2 participants" "$tmp/check.txt" || { echo "FAIL study check said:"; cat "$tmp/check.txt"; exit 1; }
"$bin/simctl" study plan "$root/studies/crossing.json" >"$tmp/plan.csv" || { echo "FAIL study plan"; exit 1; }
[ "$(grep -c 'scenarios/crossing-lights.json' "$tmp/plan.csv")" -eq 4 ] || { echo "FAIL plan:"; cat "$tmp/plan.csv"; exit 1; }
P=$(free_port)
C=$(free_port)
"$bin/simctl" run "$root/scenarios/crossing-lights.json" --headless --until end --no-analysis --out "$tmp/out" \
    --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" >"$tmp/run.log" 2>&1 ||
    { echo "FAIL the drive:"; tail -n 30 "$tmp/run.log"; exit 1; }
log=$(ls "$tmp"/out/logs/*/*.sqlite | head -n 1)
q() { sqlite3 "$log" "$1"; }
# West's light is red until t = 30 and green from 31 (the controller's first phases):
# the car stands with its front before the line at s 290 (the log's s is the car's
# reference point, about 3 m behind its front) from before 30 s until after 31 s.
stop=$(q "SELECT round(min(t), 1) || ' ' || round(max(t), 1) || ' ' || round(max(s), 2) FROM samples
          WHERE road = 'west' AND speed < 0.1 AND t > 5")
set -- $stop
[ $# -eq 3 ] || { echo "FAIL the car never stood on west after 5 s"; exit 1; }
awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(a < 28 && b >= 31 && b < 33 && s > 280 && s < 288) }' ||
    { echo "FAIL stood from $1 s to $2 s at s $3 m (expected from before 28 s to 31-33 s, 280-288 m)"; exit 1; }
echo "ok stood at the red line from $1 s to $2 s at s $3 m"
[ "$(q "SELECT count(*) FROM events WHERE kind = 'signal' AND name = 'red_run'")" = 0 ] || { echo "FAIL a red run"; exit 1; }
for task in stop_at_red drive_on; do
    [ "$(q "SELECT count(*) FROM events WHERE kind = 'task' AND json LIKE '%\"$task\"%'")" = 2 ] ||
        { echo "FAIL task $task did not start and end once"; exit 1; }
done
echo "ok crossing lights"
