#!/bin/sh
# simctl study answer sends its answers again when no verdict comes while the runner
# still shows the same questionnaire pending (once, in a day at the terminal, the
# answers to a questionnaire got no verdict). A stand-in runner on a real dispatcher
# publishes study.state (questionnaire "post", drive 1) and drops the first study.answer;
# the command must send again, take the second verdict and exit 0.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
cat >"$tmp/s.json" <<JSON
{"name": "resend-test", "conditions": [{"name": "a", "scenario": "$root/scenarios/motorway.json", "until_s": 2}],
 "participants": {"count": 1}, "design": {"type": "explicit", "orders": [["a"]]},
 "questionnaires": [{"id": "post", "when": "after_each", "instruments": ["kss"]}]}
JSON
"$bin/dispatcher" --listen "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" >"$tmp/disp.log" 2>&1 &
pids="$pids $!"
python3 - "$P" >"$tmp/runner.txt" 2>&1 <<'PY' &
import json, socket, sys, time
port = int(sys.argv[1])
for _ in range(300):  # until the dispatcher listens
    try:
        s = socket.create_connection(("127.0.0.1", port)); break
    except OSError:
        time.sleep(0.05)
s.settimeout(0.5)
send = lambda m: s.sendall((json.dumps(m) + "\n").encode())
send({"topic": "hello", "name": "study", "subscribe": ["study.answer", "dispatcher.left"]})
state = {"topic": "study.state", "src": "study", "seq": 0, "t": 0, "study": "resend-test", "participant": "P01",
         "phase": "questionnaire", "drive": 1, "drives": 1, "condition": "a", "kind": "condition", "questionnaire": "post",
         "items": [{"id": "kss", "instrument": "kss", "text": "Sleepy?", "type": "scale", "min": 1, "max": 9, "step": 1}]}
got, buf, end = [], b"", time.time() + 60
while time.time() < end and len(got) < 2:
    state["seq"] += 1
    send(state)  # as the runner: study.state once every half second
    try:
        buf += s.recv(65536)
    except socket.timeout:
        pass
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)
        if m.get("topic") == "study.answer":
            got.append(m)
if len(got) == 2:  # the first was dropped: the verdict on the second
    send({"topic": "study.answered", "src": "study", "seq": 9999, "t": 0, "study": "resend-test", "participant": "P01",
          "drive": 1, "questionnaire": "post", "ok": True})
    left, end = False, time.time() + 30  # until the command has left (it took the verdict)
    while not left and time.time() < end:
        try:
            buf += s.recv(65536)
        except socket.timeout:
            continue
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            m = json.loads(line)
            left = left or (m.get("topic") == "dispatcher.left" and m.get("name") == "simctl-answer")
print("answers received:", len(got), [a.get("answers") for a in got])
PY
fake=$!
pids="$pids $fake"
"$bin/simctl" study answer "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 30 kss=3 >"$tmp/ans.txt" 2>&1
rc=$?
wait "$fake"
[ $rc -eq 0 ] || { echo "FAIL study answer exited $rc:"; cat "$tmp/ans.txt" "$tmp/runner.txt"; exit 1; }
grep -q "no verdict on the answers in 3 s while P01 drive 1 'post' is still pending: sent again" "$tmp/ans.txt" ||
    { echo "FAIL study answer did not say it sent again:"; cat "$tmp/ans.txt"; exit 1; }
grep -q "answers received: 2 \[{'kss': 3}, {'kss': 3}\]" "$tmp/runner.txt" ||
    { echo "FAIL the stand-in runner got:"; cat "$tmp/runner.txt"; exit 1; }
grep -q "P01 drive 1 'post': answered and stored" "$tmp/ans.txt" || { echo "FAIL no verdict:"; cat "$tmp/ans.txt"; exit 1; }
echo "ok study answer sends its answers again when the runner still waits for them without a verdict"
