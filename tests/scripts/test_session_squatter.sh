#!/bin/sh
# Name squatting and lockstep freezing (issue 45): a local client that says hello as
# "recorder" the moment the session's dispatcher listens (before the real recorder
# joins) and one that says "lockstep": true without the session's secret are both
# refused; the drive runs to its end and is recorded (samples in the log, end_utc,
# status 0). Before, physics' --wait-for took the squatter and 0 samples were logged,
# and the lockstep client held the clock for as long as it stayed. The session has a
# token: no process of it shows the token on its command line (ps), and simctl's
# sources put none there (a --screens render node once got it in argv).
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
token=tok-$(python3 -c 'import secrets; print(secrets.token_hex(12))')
python3 - "$P" "$token" >"$tmp/squat.log" 2>&1 <<'PY' &
import json, socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
print("polling", flush=True)
def join(hello):
    t0 = time.time()
    while time.time() - t0 < 30:
        try:
            s = socket.create_connection(("127.0.0.1", port), 0.5); break
        except OSError: time.sleep(0.005)  # polling for the dispatcher to listen
    else:
        print("never connected"); sys.exit(1)
    s.sendall((json.dumps(hello) + "\n").encode())
    s.settimeout(10)
    buf = b""
    while b"\n" not in buf:
        c = s.recv(65536)
        if not c: break
        buf += c
    return s, json.loads(buf.split(b"\n")[0] or b"{}")
s1, r1 = join({"topic": "hello", "name": "recorder", "subscribe": ["sim."], "token": token})
print("recorder:", r1.get("topic"), r1.get("error", ""))
s2, r2 = join({"topic": "hello", "name": "freezer", "subscribe": ["sim.tick"], "lockstep": True, "token": token})
print("lockstep:", r2.get("topic"), r2.get("error", ""))
import os
procs, shown = 0, 0
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid(): continue
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f: cmd = f.read()
    except OSError: continue
    if b"127.0.0.1:%d" % port in cmd:
        procs += 1
        shown += token.encode() in cmd
print("argv: %d processes of the session, %d show the token" % (procs, shown), flush=True)
time.sleep(60)  # stays connected through the drive: it must not matter (killed at the end)
PY
sq=$!
pids="$pids $sq"
# the squatter is up and polling before the session starts (it must be first)
i=0
while ! grep -q polling "$tmp/squat.log" && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
SIM_BUS_TOKEN=$token env -u DISPLAY -u WAYLAND_DISPLAY "$bin/simctl" run "$root/scenarios/lane-change.json" --headless --until 20 \
    --lockstep --no-analysis --out "$tmp/out" --bus 127.0.0.1:$P --control tcp://127.0.0.1:$C >"$tmp/run.log" 2>&1 &
run=$!
pids="$pids $run"
# the drive must end (a frozen clock would not): 60 s at most
i=0
while kill -0 $run 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $run 2>/dev/null && { echo "FAIL the drive did not end within 60 s (clock frozen?)"; tail -5 "$tmp/run.log"; exit 1; }
wait $run
rc=$?
kill $sq 2>/dev/null
cat "$tmp/squat.log"
# (refused as a session name; were the real recorder ever quicker, as a live name)
grep -Eq '^recorder: dispatcher.error hello: (that name belongs to a module of this session|a module of that name is connected)' "$tmp/squat.log" ||
    { echo "FAIL the squatter was not refused"; exit 1; }
grep -q '^lockstep: dispatcher.error hello: "lockstep" is for the session' "$tmp/squat.log" ||
    { echo "FAIL the lockstep client without the secret was not refused"; exit 1; }
grep -Eq '^argv: [1-9][0-9]* processes of the session, 0 show the token' "$tmp/squat.log" ||
    { echo "FAIL the token is on a command line (or no process was seen)"; exit 1; }
if grep -n '"--token"' "$root"/simctl/*.c; then echo "FAIL simctl puts --token on a child's command line"; exit 1; fi
[ $rc -eq 0 ] || { echo "FAIL simctl run exited $rc"; tail -20 "$tmp/run.log"; exit 1; }
log=$(find "$tmp/out/logs" -name '*.sqlite' | head -1)
n=$(sqlite3 "$log" "SELECT count(*) FROM samples")
end=$(sqlite3 "$log" "SELECT value FROM meta WHERE key='end_utc'")
[ "$n" -gt 100 ] && [ -n "$end" ] || { echo "FAIL the drive was not recorded: $n samples, end_utc '$end'"; exit 1; }
echo "ok   squatter and lockstep client refused; the drive recorded $n samples and closed ($end)"
