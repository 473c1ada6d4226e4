# xosc_shared.sh: what the two halves of the shared OpenSCENARIO test share, sourced
# (not run): test_xosc_shared.sh runs the odd files of ../shared/openscenario/xosc (in
# name order) and the signal-controller and --params checks, test_xosc_shared_2.sh the
# even files and the --xosc-csv check, so that each stays well inside the test time
# limit under ASan and the two run side by side with make -j2. What is checked of each
# file is said in test_xosc_shared.sh.
xosc=$root/../shared/openscenario/xosc
[ -d "$xosc" ] || { echo "FAIL no $xosc (the shared OpenSCENARIO files)"; exit 1; }
P=$(free_port)
C=$(free_port)
cannot=""                                     # docs/openscenario.md would say why
needs_driver="cut-in:OverTaker cut-in_simple:OverTaker straight_500m:Target"
by_design="ltap-od:NPC synchronize:NPC4"      # the NPC synchronised to meet the ego; NPC4 stopping in
                                              # front of an ego made for a person (interactiveDriver)
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
# speed-profile: the ego (Car1) follows its SpeedProfileAction from 2 s (followingMode
# follow, jerk-limited corners; test_storyboard_profile solves it by hand): 4.22 m/s at
# 4 s, 8.89 at 6 s (the corner's 10 rounded), 7 at 8 s, 8 from 12.34 s; the drive
# log's car (physics on the storyboard's ego, a tick behind) within 0.05 m/s of it.
check_profile() {
    got=$(sqlite3 "$db" "select printf('%.2f', speed) from samples where abs(t - 4) < 0.006 or abs(t - 6) < 0.006
         or abs(t - 8) < 0.006 or abs(t - 13) < 0.006 order by t" | tr '\n' ' ')
    set -- $got
    [ $# -eq 4 ] && awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { e = 0.05
        exit !((a - 4.22)^2 < e^2 && (b - 8.89)^2 < e^2 && (c - 7)^2 < e^2 && (d - 8)^2 < e^2) }' ||
        fail "speed-profile: the ego's speed at 4, 6, 8, 13 s is [$got], expected 4.22 8.89 7.00 8.00 (within 0.05)"
}
ended() { grep -q "ending the session (the scenario's end was reached: the storyboard's stop trigger)" "$tmp/$1.$2.log"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }


# shared_files HALF: every second file (HALF 1: the first, third, ...), each as above;
# n counts the files run.
shared_files() {
    n=0
    k=0
    for f in "$xosc"/*.xosc; do
        name=$(basename "$f" .xosc)
        k=$((k + 1))
        [ $((k % 2)) -eq $(($1 % 2)) ] || continue # this half's files: every second one
        case " $cannot " in *" $name "*)
            grep -q "^| $name |.*\*\*no\*\*" "$root/docs/openscenario.md" ||
                fail "$name cannot run to its end but docs/openscenario.md's table does not say so"
            continue ;;
        esac
        n=$((n + 1))
        run "$name" scenario
        ended "$name" scenario || { fail "$name --driver scenario did not end by its stop trigger:"; tail -5 "$tmp/$name.scenario.log"; continue; }
        [ "$name" = traffic_lights ] && check_lights
        [ "$name" = speed-profile ] && check_profile
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
}
