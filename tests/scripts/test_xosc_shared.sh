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
echo "ok $n shared OpenSCENARIO files run to their stop trigger; --params reaches physics"
