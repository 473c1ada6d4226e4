#!/bin/sh
# A lab's clocks and lost hosts (docs/lab.md, "Clocks and lost hosts"), on the
# namespaces of lab_netns.sh (tests/data/lab-3-hosts.json: simctl and the dispatcher in
# "op", physics/traffic/recorder in "sim", input/context in "aux"), aux's sshd in a time
# namespace whose CLOCK_MONOTONIC is 7 s ahead (unshare --time --monotonic 7):
#  1. simctl prints each host's clock; each host's best report of the session (the
#     smallest round trip, from the drive log): the real-time offsets of sim and aux (one kernel)
#     within 1 ms of 0, aux's monotonic offset within 1 ms of +7000 ms, sim's within 1 ms
#     of 0; the round trip at least the netem delay there and back (when the kernel has
#     netem) and at most that + 5 ms (a loaded machine); what keeps each host's clock:
#     a process named chronyd runs (a copy of sleep: "kept by chrony"), the kernel's
#     synchronised flag as adjtimex(2) gives it here;
#  2. aux's link taken down: "host aux lost" within 1 s (measured from the `ip link set
#     down` to the line in simctl's stderr), naming what ran there; link up: "back";
#  3. every process of aux killed (kill -9): "host aux lost" within 1 s; the agent's
#     ssh ending is said of "clock-aux" (its name in simctl's supervision messages);
#  4. the drive log (written on sim) has session.clock events of both hosts and the
#     host lost events; the session went on (sim.tick after the loss).
# Needs root (namespaces) and openssh-server (scripts/deps.sh installs it).
. "$(dirname "$0")/lib.sh"
for e in simctl dispatcher physics-node traffic-node recorder; do
    [ -x "$bin/$e" ] || { echo "FAIL $bin/$e not built"; exit 1; }
done
lab=$root/tests/data/lab-3-hosts.json
LAB_WRAP_aux="unshare --time --fork --monotonic 7"
. "$(dirname "$0")/lab_netns.sh"

fail=0
check() { if [ "$1" = ok ]; then echo "ok   $2"; else echo "FAIL $2"; fail=1; fi; }

lab_netns_up
[ $netem = yes ] && delay_ms=2 || delay_ms=0 # 1 ms out of op's link, 1 ms out of the host's

# a clock daemon as the agents look for one (the namespaces share the process list)
cp /bin/sleep "$tmp/chronyd" && "$tmp/chronyd" 600 &
pids="$pids $!"
kernel=$(python3 -c 'import ctypes; print("not synchronised" if ctypes.CDLL(None).adjtimex(ctypes.create_string_buffer(512)) == 5 else "synchronised")')

token=tok$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
cd "$root" || exit 1
SIM_BUS_TOKEN=$token ip netns exec "$pre-op" "$bin/simctl" run scenarios/lane-change.json --lab "$lab" \
    --ssh-config "$tmp/ssh_config" --headless --until 3600 --stall-s 0 --join-s 120 --no-analysis --out "$tmp/out" </dev/null \
    >"$tmp/run.out" 2>"$tmp/run.err" &
simctl_pid=$!
pids="$pids $simctl_pid"

# wait_for PATTERN SECONDS: until a line of simctl's stderr matches (bounded)
wait_for() {
    n=0
    until grep -q "$1" "$tmp/run.err"; do
        n=$((n + 1))
        [ $n -lt $(($2 * 10)) ] || return 1
        kill -0 "$simctl_pid" 2>/dev/null || return 1
        sleep 0.1
    done
}

# 1. offsets and round trips
for h in sim aux; do
    wait_for "simctl: clock of $h:" 120 || check no "no clock report of $h in 120 s"
done
for h in sim aux; do
    grep -q "^simctl: clock of $h: .*; kept by chrony, kernel $kernel\$" "$tmp/run.err" &&
        check ok "$h: kept by chrony, kernel $kernel (as adjtimex says here)" ||
        check no "$h: '$(grep "^simctl: clock of $h:" "$tmp/run.err" | head -1)', expected 'kept by chrony, kernel $kernel'"
done
for m in physics input; do wait_for "simctl: $m joined" 30 || check no "$m never joined"; done

# lost_after CMD...: runs CMD, then waits for the next "host aux lost" line; prints the
# milliseconds between the two (or "none" after 5 s)
lost_after() {
    python3 - "$tmp/run.err" "$@" <<'PY'
import subprocess, sys, time
path, cmd = sys.argv[1], sys.argv[2:]
seen = open(path, errors="replace").read().count("simctl: host aux lost")
t0 = time.monotonic()
subprocess.run(cmd)  # (a process gone before its kill is no failure)
while time.monotonic() - t0 < 5:
    if open(path, errors="replace").read().count("simctl: host aux lost") > seen:
        print("%.0f" % ((time.monotonic() - t0) * 1000)); sys.exit(0)
    time.sleep(0.005)
print("none")
PY
}

# 2. the link down
ms=$(lost_after ip -n "$pre-aux" link set eth0 down)
awk -v m="$ms" 'BEGIN { exit !(m ~ /^[0-9]+$/ && m + 0 < 1000) }' && check ok "aux's link down: named lost in $ms ms (< 1000)" ||
    check no "aux's link down: lost after '$ms' ms (expected < 1000)"
grep "simctl: host aux lost" "$tmp/run.err" | head -1 | grep -q "no answer to the clock exchange.*ran there: .*input-node" &&
    check ok "the announcement says why and what ran there: $(grep 'simctl: host aux lost' "$tmp/run.err" | head -1 | cut -c1-160)" ||
    check no "the announcement: '$(grep 'simctl: host aux lost' "$tmp/run.err" | head -1)'"
ip -n "$pre-aux" link set eth0 up
wait_for "simctl: host aux back" 10 && check ok "aux's link up: named back" || check no "aux never named back after its link came up"

# 3. every process of aux killed
ms=$(lost_after sh -c "for p in \$(ip netns pids $pre-aux); do kill -9 \$p 2>/dev/null; done")
awk -v m="$ms" 'BEGIN { exit !(m ~ /^[0-9]+$/ && m + 0 < 1000) }' && check ok "aux's processes killed: named lost in $ms ms (< 1000)" ||
    check no "aux's processes killed: lost after '$ms' ms (expected < 1000)"

# the agent's ssh ended with its host's sshd: supervision names it as the agent
n=0
until grep -q "simctl: lost clock-aux on host aux" "$tmp/run.err" || ! kill -0 "$simctl_pid" 2>/dev/null; do
    n=$((n + 1)); [ $n -lt 100 ] || break; sleep 0.1
done
grep -q "simctl: lost clock-aux on host aux" "$tmp/run.err" && ! grep -q "simctl: lost simctl on" "$tmp/run.err" &&
    check ok "supervision names the agent: $(grep -m1 'simctl: lost clock-aux' "$tmp/run.err")" ||
    check no "no 'simctl: lost clock-aux on host aux' line (or the agent named 'simctl')"

# 4. the session goes on; the drive log
kill -TERM "$simctl_pid"
wait "$simctl_pid"
log=$(find "$tmp/out/logs" -name '*.sqlite' | head -1)
q() { [ -n "$log" ] && sqlite3 "$log" "$1"; }
for h in sim aux; do
    n=$(q "SELECT count(*) FROM events WHERE kind = 'clock' AND name = '$h'")
    [ "${n:-0}" -ge 2 ] && check ok "the drive log has $n session.clock events of $h" || check no "session.clock events of $h in the drive log: '${n}'"
done
# 1. (from the drive log) each host's best report of the session: the one with the smallest round trip
within() { awk -v x="$1" -v want="$2" -v tol="$3" 'BEGIN { d = x - want; if (d < 0) d = -d; exit !(x != "" && d <= tol) }'; }
for h in sim aux; do
    best=$(q "SELECT json_extract(json, '\$.offset_ms'), json_extract(json, '\$.mono_offset_ms'), json_extract(json, '\$.rtt_ms')
              FROM events WHERE kind = 'clock' AND name = '$h' ORDER BY json_extract(json, '\$.rtt_ms') LIMIT 1")
    off=$(echo "$best" | cut -d'|' -f1) mono=$(echo "$best" | cut -d'|' -f2) rtt=$(echo "$best" | cut -d'|' -f3)
    [ $h = aux ] && want=7000 || want=0
    within "$off" 0 1 && check ok "$h: real-time offset $off ms (within 1 ms of 0: one kernel)" ||
        check no "$h: real-time offset '$off' ms, expected within 1 ms of 0"
    within "$mono" $want 1 && check ok "$h: monotonic offset $mono ms (within 1 ms of $want)" ||
        check no "$h: monotonic offset '$mono' ms, expected within 1 ms of $want"
    awk -v r="$rtt" -v d=$delay_ms 'BEGIN { exit !(r != "" && r >= d && r <= d + 5) }' &&
        check ok "$h: round trip $rtt ms (netem there and back: $delay_ms ms; bound $delay_ms + 5 ms)" ||
        check no "$h: round trip '$rtt' ms, expected in [$delay_ms, $delay_ms + 5] ms"
done
n=$(q "SELECT count(*) FROM events WHERE kind = 'host' AND name = 'lost' AND json LIKE '%\"aux\"%'")
[ "${n:-0}" -ge 2 ] && check ok "the drive log has $n 'host lost' events of aux" || check no "'host lost' events of aux in the drive log: '${n}'"
lost_t=$(q "SELECT min(t) FROM events WHERE kind = 'host' AND name = 'lost'")
tmax=$(q "SELECT max(t) FROM samples")
awk -v a="${lost_t:-}" -v b="${tmax:-0}" 'BEGIN { exit !(a != "" && b > a + 1) }' &&
    check ok "the drive went on after the loss (lost at t = $lost_t s, log to t = $tmax s)" ||
    check no "the drive did not go on: lost at t = '$lost_t', samples to '$tmax'"
[ $fail = 0 ] || grep -v '^sim: \|^aux: ' "$tmp/run.err" | tail -40 | sed 's/^/  | /'
exit $fail
