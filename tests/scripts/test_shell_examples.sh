#!/bin/sh
# The examples of docs/protocol.md marked "<!-- tested: NAME -->" run as written (bus
# port 7700 and control port 7701 replaced by free ones) against a real lockstep
# session: the bash, netcat and socat watchers see vehicle.state, the plain-socket
# Python module marks 50 km/h in the log, the bash marker's log.mark arrives, nanocat
# pauses.
set -u
. "$(dirname "$0")/lib.sh"
fails=0
P=$(free_port); C=$(free_port)
block() { doc_block docs/protocol.md "$1" "$2"; }
# wait_for WHAT CMD...: until CMD succeeds, for at most 60 s
wait_for() {
    what=$1; shift; i=0
    until "$@"; do
        i=$((i + 1))
        if [ $i -gt 1200 ]; then echo "FAIL $what (waited 60 s)"; fails=$((fails + 1)); return 1; fi
        sleep 0.05
    done
    echo "ok   $what"
}
block shell-watch "$tmp/watch.sh"; block shell-mark "$tmp/mark.sh"
block python-speed-watch "$tmp/speed.py"; block shell-control "$tmp/control.sh"
block nc-watch "$tmp/nc.sh"; block socat-watch "$tmp/socat.sh"

"$bin/dispatcher" --listen "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" 2>/dev/null & pids="$! $pids"
wait_for "dispatcher listening" python3 -c "import socket; socket.create_connection(('127.0.0.1', $P)).close()" 2>/dev/null
bash "$tmp/watch.sh" >"$tmp/watch.out" & pids="$! $pids"
sh "$tmp/nc.sh" >"$tmp/nc.out" & pids="$! $pids"
sh "$tmp/socat.sh" >"$tmp/socat.out" & pids="$! $pids"
python3 "$tmp/speed.py" & pids="$! $pids"
scen="$root/scenarios/motorway.json"
"$bin/physics-node" --bus "127.0.0.1:$P" --lockstep --scenario "$scen" --wait-for input,watcher,speed-watch,nc-watcher,socat-watcher 2>/dev/null & pids="$! $pids"
"$bin/input-node" --bus "127.0.0.1:$P" --driver script --lockstep --scenario "$scen" 2>/dev/null & pids="$! $pids"

wait_for "shell watcher receives vehicle.state" grep -q '^{"topic":"vehicle.state","src":"physics"' "$tmp/watch.out"
wait_for "netcat watcher receives vehicle.state" grep -q '^{"topic":"vehicle.state","src":"physics"' "$tmp/nc.out"
wait_for "socat watcher receives vehicle.state" grep -q '^{"topic":"vehicle.state","src":"physics"' "$tmp/socat.out"
wait_for "python module marks 50 km/h" grep -q '^{"topic": "log.mark", "src": "speed-watch", "seq": 1, "t": [0-9.]*, "name": "50 km/h"}$' "$tmp/watch.out"
bash "$tmp/mark.sh"
wait_for "shell mark arrives" grep -qx '{"topic":"log.mark","src":"marker","seq":1,"t":0,"name":"from the shell"}' "$tmp/watch.out"
out=$(bash "$tmp/control.sh" 2>&1)
case $out in '{"ok":true'[,}]*) ok=1 ;; *) ok=0 ;; esac
if [ $ok = 1 ]; then echo "ok   nanocat pause answered ok"; else echo "FAIL nanocat pause: $out"; fails=$((fails + 1)); fi
[ "$fails" -eq 0 ]
