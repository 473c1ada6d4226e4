#!/bin/sh
# The Python client of docs/context.md (the block marked "<!-- tested:
# python-nearest-fuel -->") runs as written (bus port 7700 replaced by a free one)
# against a real session on scenarios/town.json: dispatcher, context-server, physics and
# the scripted driver in lockstep, the clock held until the client has joined. It must
# find the fuel station Ost, get a route with a left turn, and follow the guidance to
# the arrival while the car drives there.
set -u
. "$(dirname "$0")/lib.sh"
P=$(free_port); C=$(free_port)
doc_block docs/context.md python-nearest-fuel "$tmp/nearest_fuel.py"

scen="$root/scenarios/town.json"
"$bin/dispatcher" --listen "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" 2>/dev/null & pids="$! $pids"
"$bin/context-server" --bus "127.0.0.1:$P" --scenario "$scen" --db "$tmp/context.db" 2>/dev/null & pids="$! $pids"
"$bin/physics-node" --bus "127.0.0.1:$P" --lockstep --scenario "$scen" --wait-for input,context,nav 2>/dev/null & pids="$! $pids"
"$bin/input-node" --bus "127.0.0.1:$P" --driver script --lockstep --scenario "$scen" 2>/dev/null & pids="$! $pids"

# The dispatcher's port is open before the client starts (simbus reconnects anyway).
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $P)).close()" 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 1200 ] && { echo "FAIL dispatcher never listened"; exit 1; }
    sleep 0.05
done
PYTHONPATH="$root/clients/python" timeout 120 python3 "$tmp/nearest_fuel.py" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
fails=0
check() {
    if grep -q "$2" "$tmp/out"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
[ $rc -eq 0 ] && echo "ok   the example exits 0" || { echo "FAIL the example exited $rc"; fails=$((fails + 1)); }
check "nearest fuel station is Ost" '^nearest fuel station: Fuel station Ost, [0-9]* m$'
check "route turns left at J20" '^route: [0-9]* m, [0-9]* s: depart, .*left, arrive$'
check "guidance announces the left turn" '^left in [0-9]* m$'
check "guidance ends on arrival" '^arrive in [0-9]* m$'
[ "$fails" -eq 0 ]
