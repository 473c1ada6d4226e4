#!/bin/sh
# Every OpenSCENARIO file of ../shared/openscenario/xosc runs headless through `simctl
# run` (the whole session: physics, traffic-node's storyboard, input, recorder) to its
# storyboard's stop trigger (docs/openscenario.md, "The shared files"):
# - with --driver scenario (the storyboard drives its ego, physics puts the car on it)
#   with no collision in the drive log, except the three made for a driver to brake,
#   where the ego, which nothing in the scenario slows, hits the named vehicle, and
#   ltap-od, whose NPC is synchronised to meet the ego in the junction, and
#   synchronize, whose NPC4 stops in front of an ego made for a person at the wheel;
# - those three with --driver script (the scripted driver at the wheel, the physics
#   car is the storyboard's ego): the stop trigger with no collision;
# - the files that cannot run to their end are the ones docs/openscenario.md names;
# - --params reaches physics: the car starts at the overridden EgoStartS and EgoSpeed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xosc_shared.sh"
shared_files 1
[ "$n" -ge 7 ] || fail "only $n shared files ran"

# RoadNetwork signal controllers (tests/data/fabriksgatan_signal_controllers.xosc, solved
# by hand): main runs head 1 (go 8 s, caution 2 s, stop 10 s), ped heads 2 and 3 (walk
# 5 s, wait 15 s) from 2 s after main; main's stop at 10 s moves ped to walk (a
# TrafficSignalControllerCondition and -Action), so 2 and 3 turn green in that tick
shared_xosc=$xosc
xosc=$root/tests/data
run fabriksgatan_signal_controllers scenario
xosc=$shared_xosc
if ended fabriksgatan_signal_controllers scenario; then
    seq=$(sqlite3 "$db" "select printf('%.2f', t) || ' ' || json_extract(json, '\$.id') || ' ' || json_extract(json, '\$.state')
                         from events where kind = 'signal' and name = 'state' order by t, json_extract(json, '\$.id')" | tr '\n' ';')
    want="0.00 1 green;0.00 2 red;0.00 3 red;2.00 2 green;2.00 3 green;7.00 2 red;7.00 3 red;8.00 1 amber;10.00 1 red;"
    want="${want}10.00 2 green;10.00 3 green;15.00 2 red;15.00 3 red;"
    [ "$seq" = "$want" ] || fail "signal controllers: signal.state [$seq], expected [$want]"
else
    fail "fabriksgatan_signal_controllers did not end by its stop trigger:"
    tail -5 "$tmp/fabriksgatan_signal_controllers.scenario.log"
fi

# --params reaches physics: the ego's Init (s = EgoStartS, speed EgoSpeed km/h) moves
# the car's start; its centre is 1.4 m ahead of OpenSCENARIO's reference point
run cut-in script --until 0.5 --params EgoStartS=80,EgoSpeed=20
first=$(sqlite3 "$db" "select printf('%.2f %.2f', s, speed) from samples where tick = 0")
[ "$first" = "81.40 5.56" ] || fail "cut-in with EgoStartS=80,EgoSpeed=20 starts at s, speed = '$first', expected '81.40 5.56'"
# the recorder keeps them for the analysis, whose task then starts past the moved start
meta=$(sqlite3 "$db" "select value from meta where key = 'xosc_params'")
[ "$meta" = "EgoStartS=80,EgoSpeed=20" ] || fail "the drive log's meta xosc_params is '$meta', expected 'EgoStartS=80,EgoSpeed=20'"
run cut-in script --until 0.5
first=$(sqlite3 "$db" "select printf('%.2f %.2f', s, speed) from samples where tick = 0")
[ "$first" = "51.40 30.00" ] || fail "cut-in starts at s, speed = '$first', expected '51.40 30.00'"

[ "$fails" -eq 0 ] || exit 1
echo "ok $n shared OpenSCENARIO files (the odd half) run to their stop trigger (traffic_lights' signals as timed, when in this half); signal controllers; --params reaches physics"
