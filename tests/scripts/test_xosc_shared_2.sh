#!/bin/sh
# The second half of the shared OpenSCENARIO files (every second file, from the second;
# what is checked of each: test_xosc_shared.sh), and simctl export --xosc-csv.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xosc_shared.sh"
shared_files 2
[ "$n" -ge 7 ] || fail "only $n shared files ran"

# simctl export --xosc-csv of a log recorded with --record-all: the rows at OpenSCENARIO's
# reference point (the rear axle), as another player logs them: straight_500m's Ego
# from s = 50 at 20 m/s is at x = 150 at 5 s (y -1.535, the lane's centre), Target
# stands at s = 350 (its box's centre, pos, is 1.4 m further on)
run straight_500m scenario --until 6 --record-all
if "$bin/simctl" export "$db" --xosc-csv "$tmp/s500.csv" >"$tmp/s500.export.log" 2>&1; then
    head -1 "$tmp/s500.csv" | tr -d '\r' | grep -qx 'time,entity,x,y,z,h,speed' || fail "--xosc-csv header: $(head -1 "$tmp/s500.csv")"
    ego=$(tr -d '\r' <"$tmp/s500.csv" | awk -F, '$1 == "5.000" && $2 == "Ego" { print $3, $4, $7 }')
    echo "$ego" | awk '{ exit !($1 > 149.79 && $1 < 150.21 && $2 == -1.535 && $3 == 20) }' ||
        fail "--xosc-csv: Ego at 5 s is [$ego], expected x 150 (one tick either way), y -1.535, speed 20"
    tgt=$(tr -d '\r' <"$tmp/s500.csv" | awk -F, '$1 == "5.000" && $2 == "Target" { print $3, $4, $7 }')
    [ "$tgt" = "350.000 -1.535 0.000" ] || fail "--xosc-csv: Target at 5 s is [$tgt], expected [350.000 -1.535 0.000]"
else
    fail "simctl export --xosc-csv: $(cat "$tmp/s500.export.log")"
fi

[ "$fails" -eq 0 ] || exit 1
echo "ok $n shared OpenSCENARIO files (the even half) run to their stop trigger (traffic_lights' signals as timed, when in this half); --xosc-csv at the reference point"
