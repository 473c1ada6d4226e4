#!/bin/sh
# simctl run --lab across hosts (docs/lab.md): three network namespaces (op, sim, aux)
# joined by a bridge, each link with `tc netem delay 1ms` (where the kernel has netem;
# otherwise said, and the links carry no added delay), Debian's sshd in each with a
# generated host key and an authorized key in a temp dir. simctl runs in "op" with
# tests/data/lab-3-hosts.json: the dispatcher there, physics/traffic/recorder on "sim",
# input/context on "aux".
#  1. `--headless --until 10` drives to its end: status 0, the drive log (written on
#     "sim") reaches t = 10 s, remote stderr comes prefixed with the host's name;
#  2. a second session: the token and the secret are on no command line (ps), every
#     remote module runs in its namespace, and kill -9 of simctl ends them all.
# Needs root (namespaces) and openssh-server (scripts/deps.sh installs it).
. "$(dirname "$0")/lib.sh"
for e in simctl dispatcher physics-node traffic-node recorder; do
    [ -x "$bin/$e" ] || { echo "FAIL $bin/$e not built"; exit 1; }
done
lab=$root/tests/data/lab-3-hosts.json
. "$(dirname "$0")/lab_netns.sh"

fail=0
check() { if [ "$1" = ok ]; then echo "ok   $2"; else echo "FAIL $2"; fail=1; fi; }

lab_netns_up

token=tok$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
cd "$root" || exit 1
# 1. a drive to its end
SIM_BUS_TOKEN=$token ip netns exec "$pre-op" "$bin/simctl" run scenarios/lane-change.json --lab "$lab" \
    --ssh-config "$tmp/ssh_config" --headless --until 10 --no-analysis --out "$tmp/out1" </dev/null \
    >"$tmp/run1.out" 2>"$tmp/run1.err"
st=$?
[ $st = 0 ] && check ok "simctl run --lab ... --until 10: status 0" || check no "simctl run --lab: status $st"
log=$(find "$tmp/out1/logs" -name '*.sqlite' | head -1)
tmax=$( [ -n "$log" ] && sqlite3 "$log" 'SELECT max(t) FROM samples')
awk -v t="${tmax:-0}" 'BEGIN { exit !(t >= 9.98 && t <= 10.02) }' && check ok "the drive log written on sim reaches t = $tmax s" ||
    check no "the drive log ends at t = '${tmax}' (expected 10 s)"
grep -q '^sim: ' "$tmp/run1.err" && check ok "remote stderr prefixed with the host's name ($(grep -c '^sim: ' "$tmp/run1.err") lines 'sim: ')" ||
    check no "no line prefixed 'sim: ' in simctl's stderr"
for m in physics traffic recorder input; do
    grep -q "simctl: $m joined" "$tmp/run1.err" && check ok "$m joined across the lab" || check no "$m never joined"
done
[ $fail = 0 ] || sed 's/^/  | /' "$tmp/run1.err" | tail -40

# 2. a session killed with kill -9
SIM_BUS_TOKEN=$token ip netns exec "$pre-op" "$bin/simctl" run scenarios/lane-change.json --lab "$lab" \
    --ssh-config "$tmp/ssh_config" --headless --until 3600 --stall-s 0 --no-analysis --out "$tmp/out2" </dev/null \
    >"$tmp/run2.out" 2>"$tmp/run2.err" &
simctl_pid=$!
n=0
joined() { for m in physics traffic recorder input; do grep -q "simctl: $m joined" "$tmp/run2.err" || return 1; done; }
until joined; do
    n=$((n + 1))
    [ $n -lt 300 ] || { check no "the second session never had physics, traffic, recorder and input on the bus"; break; }
    sleep 0.1
done
modules_in() { for p in $(ip netns pids "$pre-$1"); do cat /proc/"$p"/comm 2>/dev/null; done | grep -cE '^(physics-node|traffic-node|recorder|input-node|context-server)$'; }
[ "$(modules_in sim)" -ge 3 ] && check ok "physics, traffic and recorder run in the sim namespace ($(modules_in sim))" ||
    check no "modules in the sim namespace: $(modules_in sim)"
[ "$(modules_in aux)" -ge 1 ] && check ok "input runs in the aux namespace" || check no "nothing runs in the aux namespace"
if ps -eo args | grep -v grep | grep -qF "$token"; then check no "the token shows on a command line (ps)"; else check ok "the token is on no command line (ps)"; fi
secret=$(tr '\0' '\n' <"/proc/$(pgrep -f -n 'recorder --bus')/environ" 2>/dev/null | sed -n 's/^SIM_BUS_SECRET=//p')
[ -n "$secret" ] && check ok "the recorder on sim has the session's secret in its environment" || check no "no SIM_BUS_SECRET in the remote recorder's environment"
if [ -n "$secret" ] && ps -eo args | grep -v grep | grep -qF "$secret"; then check no "the secret shows on a command line"; fi
kill -9 "$simctl_pid"
wait "$simctl_pid" 2>/dev/null
n=0
while [ "$(modules_in sim)" -gt 0 ] || [ "$(modules_in aux)" -gt 0 ] || [ "$(modules_in op)" -gt 0 ]; do
    n=$((n + 1))
    [ $n -lt 100 ] || break
    sleep 0.1
done
left=$(( $(modules_in sim) + $(modules_in aux) + $(modules_in op) ))
[ $left = 0 ] && check ok "kill -9 of simctl ended every remote module (within $((n * 100)) ms)" ||
    check no "$left modules still run after kill -9 of simctl"
[ $fail = 0 ] || sed 's/^/  | /' "$tmp/run2.err" | tail -30
exit $fail
