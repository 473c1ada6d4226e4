#!/bin/sh
# Every OpenSCENARIO file of ../shared/openscenario/xosc runs headless through `simctl
# run` (the whole session: physics, traffic-node's storyboard, input, recorder) to its
# storyboard's stop trigger (docs/openscenario.md, "The shared files"):
# - with --driver scenario (the storyboard drives its ego, physics puts the car on it)
#   with no collision in the drive log, except the three made for a driver to brake,
#   where the ego, which nothing in the scenario slows, hits the named vehicle, and
#   ltap-od, whose NPC is synchronised to meet the ego in the junction;
# - those three with --driver script (the scripted driver at the wheel, the physics
#   car is the storyboard's ego): the stop trigger with no collision;
# - the files that cannot run to their end are the ones docs/openscenario.md names;
# - --params reaches physics: the car starts at the overridden EgoStartS and EgoSpeed.
. "$(dirname "$0")/lib.sh"
xosc=$root/../shared/openscenario/xosc
[ -d "$xosc" ] || { echo "FAIL no $xosc (the shared OpenSCENARIO files)"; exit 1; }
P=$(free_port)
C=$(free_port)
cannot=""                                     # docs/openscenario.md would say why
needs_driver="cut-in:OverTaker cut-in_simple:OverTaker straight_500m:Target"
by_design="ltap-od:NPC"                       # the NPC synchronised to meet the ego
fails=0
runs=0

# run NAME DRIVER [simctl options...]: one session; its stderr in $tmp/NAME.DRIVER.log
# (the first of that name and driver, which ended reads)
# and the drive log's collisions ("t other;" each) in $coll
run() {
    name=$1 driver=$2
    shift 2
    runs=$((runs + 1))
    out=$tmp/$name.$driver
    [ -e "$out" ] && out=$tmp/$name.$driver.$runs
    "$bin/simctl" run "$xosc/$name.xosc" --headless --driver "$driver" --no-analysis --stall-s 30 \
        --bus 127.0.0.1:$P --control tcp://127.0.0.1:$C --out "$out" "$@" >"$out.log" 2>&1
    db=$(ls "$out"/logs/*/*.sqlite 2>/dev/null | head -1)
    coll=$([ -n "$db" ] && sqlite3 "$db" "select t || ' ' || name || ';' from events where kind = 'collision'" | tr -d '\n')
}
# traffic_lights: its TrafficSignalStateActions reach the lights model and signal.state
# in the order and at the gaps its TrafficSignalConditions give: head 1 green and the
# pedestrian heads 2, 3 red from Init; 1 amber when the ego is near; red 3 s after the
# amber is seen (a condition sees an action's light the tick after it: +0.01 s), green
# 10.01 s after red; 2 and 3 green 3.01 s and red again 9.01 s after red.
check_lights() {
    sig="with s as (select t, json_extract(json, '\$.id') id, json_extract(json, '\$.state') st from events
         where kind = 'signal' and name = 'state')"
    seq=$(sqlite3 "$db" "$sig select id || ' ' || st from s order by t, id" | tr '\n' ';')
    [ "$seq" = "1 green;2 red;3 red;1 amber;1 red;2 green;3 green;2 red;3 red;1 green;" ] ||
        fail "traffic_lights: signal.state in the drive log: [$seq]"
    gaps=$(sqlite3 "$db" "$sig, r as (select t from s where id = '1' and st = 'red')
         select printf('%.2f %.2f %.2f %.2f', (select t from r) - (select t from s where id = '1' and st = 'amber'),
                       (select max(t) from s where id = '1' and st = 'green') - (select t from r),
                       (select t from s where id = '2' and st = 'green') - (select t from r),
                       (select max(t) from s where id = '2' and st = 'red') - (select t from r))")
    [ "$gaps" = "3.01 10.01 3.01 9.01" ] || fail "traffic_lights: gaps red-amber, green-red, walk-red, stop-red: $gaps s"
}
ended() { grep -q "ending the session (the scenario's end was reached: the storyboard's stop trigger)" "$tmp/$1.$2.log"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

n=0
for f in "$xosc"/*.xosc; do
    name=$(basename "$f" .xosc)
    case " $cannot " in *" $name "*)
        grep -q "^| $name |.*\*\*no\*\*" "$root/docs/openscenario.md" ||
            fail "$name cannot run to its end but docs/openscenario.md's table does not say so"
        continue ;;
    esac
    n=$((n + 1))
    run "$name" scenario
    ended "$name" scenario || { fail "$name --driver scenario did not end by its stop trigger:"; tail -5 "$tmp/$name.scenario.log"; continue; }
    [ "$name" = traffic_lights ] && check_lights
    want="" script=""
    for nd in $needs_driver; do [ "${nd%%:*}" = "$name" ] && want=${nd#*:} script=yes; done
    for nd in $by_design; do [ "${nd%%:*}" = "$name" ] && want=${nd#*:}; done
    if [ -z "$want" ]; then
        [ -z "$coll" ] || fail "$name --driver scenario: collision(s) $coll"
    else
        case "$coll" in *" $want;"*) ;; *) fail "$name --driver scenario: expected the ego to hit $want, the log has [$coll]" ;; esac
        [ -n "$script" ] || continue
        run "$name" script
        ended "$name" script || { fail "$name --driver script did not end by its stop trigger:"; tail -5 "$tmp/$name.script.log"; }
        [ -z "$coll" ] || fail "$name --driver script: collision(s) $coll"
    fi
done
[ "$n" -ge 15 ] || fail "only $n shared files ran"

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
echo "ok $n shared OpenSCENARIO files run to their stop trigger (traffic_lights' signals as timed); signal controllers; --params reaches physics; --xosc-csv at the reference point"
