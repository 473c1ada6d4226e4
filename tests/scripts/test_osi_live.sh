#!/bin/sh
# osi-node (docs/osi.md, "Live: osi-node"): a headless lockstep drive of
# scenarios/motorway.json with `simctl run --osi PORT --osi-udp HOST:PORT --osi-wait 1
# --record-all`, watched by a Python consumer (Debian's python3-protobuf, classes made
# by protoc from common/osi/proto): consumer A is there from the start (the clock waits
# for it), consumer B joins at t 1 s (a lockstep client of the test holds the clock
# there until B has its first message, so B surely joins mid-drive). Asserted: the TCP
# framing; one message per tick from tick 0 (timestamps 10 ms apart, none missing or
# twice); every message byte for byte the one `simctl export --osi` makes of the drive
# log for the same tick (lanes aside), the host's box centre equal to the logged
# vehicle.state's (to the cm), the traffic ids and count equal to the logged
# traffic.state's; lanes in A's first message and in B's first (the newest message
# again), in no other; B's later messages those A got; every datagram one GroundTruth
# without lanes, equal to A's of its tick; the operator's `simctl light night` at B's
# join followed from that tick, by the export too. Then: a datagram over --udp-max not sent, said
# once and counted; beyond loopback the token required, checked, a wrong one disconnected.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
O=$(free_port)
U=$(free_port)
secret=osi-live-test-secret-0123456789
mkdir -p "$tmp/py"
protoc --proto_path="$root/common/osi/proto" --python_out="$tmp/py" "$root"/common/osi/proto/*.proto ||
    { echo "FAIL protoc"; exit 1; }
# the consumer first (it waits for the session's ports), then the session
/usr/bin/python3 - "$tmp/py" "$O" "$U" "$P" "$secret" "$tmp/live" "$bin/simctl" "$C" >"$tmp/consumer.log" 2>&1 <<'PY' &
import json, os, pickle, socket, struct, subprocess, sys, threading, time
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
O, U, P, secret, out = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]

def connect(port):
    t0 = time.time()
    while time.time() - t0 < 60:
        try:
            return socket.create_connection(("127.0.0.1", port), 1)
        except OSError:
            time.sleep(0.01)  # polling for the session to listen
    print("never connected to", port); sys.exit(1)

def read_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c: return None
        b += c
    return b

def read_frame(s):
    h = read_exact(s, 4)
    if h is None: return None
    n = struct.unpack("<I", h)[0]
    b = read_exact(s, n)
    if b is None: raise SystemExit("FAIL a TCP stream ended inside a message")
    return b

def reader(s, frames):
    s.settimeout(120)
    while True:
        f = read_frame(s)
        if f is None: return
        frames.append(f)

udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
udp.bind(("127.0.0.1", U))
udp.settimeout(0.5)
datagrams, done = [], threading.Event()
def udp_reader():
    while not done.is_set():
        try: datagrams.append(udp.recv(70000))
        except socket.timeout: pass
tu = threading.Thread(target=udp_reader); tu.start()

bus = connect(P)
bus.sendall((json.dumps({"topic": "hello", "name": "osi-late", "subscribe": ["sim.tick"], "lockstep": True,
                         "secret": secret}) + "\n").encode())
A, B, b_first = [], [], None
a = connect(O)
ta = threading.Thread(target=reader, args=(a, A)); ta.start()
print("consumer A connected", flush=True)
buf, tb = b"", None
bus.settimeout(120)
while True:
    c = bus.recv(65536)
    if not c: break
    buf += c
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        m = json.loads(line)
        if m.get("topic") != "sim.tick": continue
        if tb is None and m["t"] >= 1.0:
            b = connect(O)  # while the clock is held at this tick
            b.settimeout(60)
            b_first = read_frame(b)
            B.append(b_first)
            tb = threading.Thread(target=reader, args=(b, B)); tb.start()
            print("consumer B joined at t %.2f" % m["t"], flush=True)
            # the operator's light, still at this tick (no module of a headless session
            # answers it: simctl says so and exits 1; osi-node follows it all the same)
            r = subprocess.run([sys.argv[7], "light", "night", "--control", "tcp://127.0.0.1:" + sys.argv[8]],
                               capture_output=True, text=True)
            print("simctl light night: %d %s" % (r.returncode, r.stdout.strip() + r.stderr.strip()), flush=True)
        try: bus.sendall((json.dumps({"topic": "sim.ack", "src": "osi-late", "t": m["t"], "n": m["n"]}) + "\n").encode())
        except OSError: pass
ta.join()
if tb: tb.join()
done.set(); tu.join()
pickle.dump({"A": A, "B": B, "U": datagrams}, open(out, "wb"))
print("A %d B %d datagrams %d" % (len(A), len(B), len(datagrams)), flush=True)
PY
cons=$!
pids="$pids $cons"
SIM_BUS_SECRET=$secret "$bin/simctl" run "$root/scenarios/motorway.json" --headless --until 2 --no-analysis --record-all \
    --out "$tmp/out" --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" --osi "$O" --osi-udp "127.0.0.1:$U" \
    --osi-wait 1 >"$tmp/run.log" 2>&1 || { echo "FAIL the drive:"; tail -n 20 "$tmp/run.log"; cat "$tmp/consumer.log"; exit 1; }
wait $cons || { echo "FAIL the consumer:"; cat "$tmp/consumer.log"; tail -n 20 "$tmp/run.log"; exit 1; }
log=$(ls "$tmp"/out/logs/*/*.sqlite | head -n 1)
"$bin/simctl" export "$log" --osi "$tmp/gt.osi" >"$tmp/export.txt" 2>&1 || { echo "FAIL export:"; cat "$tmp/export.txt"; exit 1; }
/usr/bin/python3 - "$tmp/py" "$tmp/live" "$tmp/gt.osi" "$log" "$root/vehicles/bmw-318i.json" <<'PY' || { grep osi "$tmp/run.log"; cat "$tmp/consumer.log"; exit 1; }
import json, math, pickle, sqlite3, struct, sys
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
live = pickle.load(open(sys.argv[2], "rb"))
data = open(sys.argv[3], "rb").read()
db = sqlite3.connect(sys.argv[4])
veh = json.load(open(sys.argv[5]))["body"]
def fail(what):
    print("FAIL", what); sys.exit(1)
def parse(b):
    m = osi.GroundTruth(); m.ParseFromString(b); return m
def ts(m): return m.timestamp.seconds * 10**9 + m.timestamp.nanos
def bare(m):  # without the static content
    m2 = osi.GroundTruth(); m2.CopyFrom(m); del m2.lane[:]; del m2.lane_boundary[:]; return m2.SerializeToString()

trace, at = {}, 0
while at < len(data):
    n = struct.unpack_from("<I", data, at)[0]
    m = parse(data[at + 4:at + 4 + n]); trace[ts(m)] = m; at += 4 + n
A = [parse(b) for b in live["A"]]
B = [parse(b) for b in live["B"]]
U = [parse(b) for b in live["U"]]
if not A: fail("consumer A got nothing")
# one message per tick, from tick 0, none missing or twice; the stream ends with the
# trace (the drive's last tick, or the one before it when osi-node was stopped before
# that tick's vehicle.state reached it)
tsA = [ts(m) for m in A]
if tsA[0] != 0: fail(f"A's first message is at {tsA[0]} ns, not tick 0")
steps = {b - a for a, b in zip(tsA, tsA[1:])}
if steps != {10**7}: fail(f"A's messages are not 10 ms apart: steps {sorted(steps)[:5]} ns")
if len(A) not in (len(trace), len(trace) - 1): fail(f"A got {len(A)} messages, the drive has {len(trace)} ticks")
# lanes: A's first and B's first only
if len(A[0].lane) == 0 or len(A[0].lane_boundary) == 0: fail("no lanes in A's first message")
if any(len(m.lane) or len(m.lane_boundary) for m in A[1:]): fail("lanes in a later message of A")
# every message equals the export's of its tick (bytes, lanes aside; the first both with lanes)
for i, m in enumerate(A):
    e = trace.get(ts(m))
    if e is None: fail(f"A's message {i} (t {ts(m)} ns) is not in the export")
    if i == len(A) - 1 and i > 0:
        # the last: sent when osi-node stops, with the traffic.state that had reached it
        # (that tick's may still have been on its way, or unlogged): the host exactly
        if m.moving_object[0].SerializeToString() != e.moving_object[0].SerializeToString():
            fail(f"the host in A's last message (t {ts(m)} ns) differs from the export's")
    elif bare(m) != bare(e): fail(f"A's message {i} (t {ts(m)} ns) differs from the export's")
if A[0].SerializeToString() != trace[0].SerializeToString(): fail("A's first message (with lanes) differs from the export's")
# the host against the logged vehicle.state (box centre = COG + R box_offset), to the cm,
# and the traffic against the logged traffic.state of the tick
def rot(roll, pitch, yaw, b):
    cr, sr, cp, sp, cy, sy = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch), math.cos(yaw), math.sin(yaw)
    R = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr], [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
         [-sp, cp * sr, cp * cr]]
    return [sum(R[i][j] * b[j] for j in range(3)) for i in range(3)]
def fnv(name):
    h = 0xcbf29ce484222325
    for c in name.encode(): h = ((h ^ c) * 0x100000001b3) % (1 << 64)
    h &= (1 << 53) - 1
    return h + 2 if h < 2 else h
ego = {}
for (line,) in db.execute("SELECT line FROM messages WHERE topic = 'vehicle.state' ORDER BY rowid"):
    v = json.loads(line)
    if not v.get("replay"): ego[round(v["tick"])] = v
traffic = {}
for (line,) in db.execute("SELECT line FROM messages WHERE topic = 'traffic.state' ORDER BY rowid"):
    v = json.loads(line); traffic[round(v["t"] * 100)] = v["vehicles"]
worst, nveh = 0.0, 0
for m in A:
    tick = ts(m) // 10**7
    s = ego.get(tick)
    if s is None: fail(f"no logged vehicle.state of tick {tick}")
    off = rot(s["roll"], s["pitch"], s["heading"], veh["box_offset"])
    h = m.moving_object[0]
    for k, axis in enumerate("xyz"):
        d = abs(getattr(h.base.position, axis) - (s["pos"][k] + off[k]))
        worst = max(worst, d)
        if d > 0.01: fail(f"tick {tick}: host {axis} {getattr(h.base.position, axis)} live, {s['pos'][k] + off[k]} logged")
    ats = sorted((k for k in traffic if k <= tick), reverse=True)[:2 if m is A[-1] else 1]
    wants = [sorted(fnv(v["id"]) for v in traffic[at]) for at in ats] or [[]]
    got = sorted(o.id.value for o in m.moving_object[1:])
    if got not in wants: fail(f"tick {tick}: traffic ids {len(got)} live, {len(wants[0])} logged (or differ)")
    nveh += len(got)
# the operator's `simctl light night` at B's join: the scenario's day (cloudy: LEVEL7, 8)
# before, night (LEVEL1, 2) from the tick after it on (the export, compared above, too)
amb = [m.environmental_conditions.ambient_illumination for m in A]
switch = [i for i in range(1, len(A)) if amb[i] != amb[i - 1]]
if amb[0] != 8 or amb[-1] != 2 or len(switch) != 1: fail(f"ambient illumination {amb[0]} .. {amb[-1]}, changes at {switch}")
if abs(tsA[switch[0]] - ts(B[0])) > 3 * 10**7: fail(f"the light changed at {tsA[switch[0]]} ns, the command came at {ts(B[0])} ns")
# B: joined late; its first message the newest again, with lanes; then A's, in order
if len(B) < 2: fail(f"consumer B got {len(B)} messages")
if len(B[0].lane) != len(A[0].lane) or len(B[0].lane_boundary) != len(A[0].lane_boundary):
    fail(f"B's first message has {len(B[0].lane)} lanes, A's first {len(A[0].lane)}")
if any(len(m.lane) or len(m.lane_boundary) for m in B[1:]): fail("lanes in a later message of B")
if ts(B[0]) < 10**9 - 2 * 10**7: fail(f"B's first message is at {ts(B[0])} ns: it joined at t 1 s")
ia = tsA.index(ts(B[0]))
if [bare(m) for m in B] != [bare(m) for m in A[ia:ia + len(B)]] or ia + len(B) != len(A):
    fail(f"B's {len(B)} messages are not A's from index {ia} on")
# UDP: one GroundTruth per datagram, no lanes, equal to A's of the tick
byts = {ts(m): m for m in A}
for d in U:
    if len(d.lane) or len(d.lane_boundary): fail("lanes in a datagram")
    if ts(d) not in byts or d.SerializeToString() != bare(byts[ts(d)]): fail(f"the datagram at {ts(d)} ns differs from A's")
if not U: fail("no datagram came")
print(f"ok {len(A)} messages to A (trace {len(trace)}), one a tick from 0, equal to the export's; host within "
      f"{worst * 1000:.3f} mm of the log; {nveh} traffic vehicles by id; {len(A[0].lane)} lanes in A's first "
      f"and in B's first (joined at {ts(B[0]) / 1e9:.2f} s, {len(B)} messages); night from {tsA[switch[0]] / 1e9:.2f} s; "
      f"{len(U)} datagrams equal to A's")
PY
# a message larger than a datagram may carry (--udp-max) is not sent by UDP and said once
# (the test's own bus: the drive's first three vehicle.state lines published again)
sqlite3 "$log" "SELECT line FROM messages WHERE topic = 'vehicle.state' ORDER BY rowid LIMIT 3" >"$tmp/states.ndjson"
P2=$(free_port)
U2=$(free_port)
"$bin/dispatcher" --listen "127.0.0.1:$P2" --control none >"$tmp/disp2.txt" 2>&1 &
pids="$pids $!"
"$bin/osi-node" --bus "127.0.0.1:$P2" --udp "127.0.0.1:$U2" --udp-max 200 >"$tmp/small.txt" 2>&1 &
small=$!
pids="$pids $small"
/usr/bin/python3 - "$P2" "$tmp/states.ndjson" <<'PY' || exit 1
import json, socket, sys, time
P = int(sys.argv[1])
t0 = time.time()
while True:
    try: s = socket.create_connection(("127.0.0.1", P), 1); break
    except OSError:
        if time.time() - t0 > 30: print("FAIL no test bus"); sys.exit(1)
        time.sleep(0.01)  # polling for the dispatcher to listen
s.sendall(b'{"topic":"hello","name":"feeder","subscribe":["dispatcher.joined"]}\n')
s.settimeout(30)
buf, peers = b"", []
while "osi" not in peers:  # osi-node on the bus (it may have been there first: the welcome's peers)
    c = s.recv(65536)
    if not c: print("FAIL the test bus closed"); sys.exit(1)
    buf += c
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1); m = json.loads(line)
        peers += [p["name"] for p in m.get("peers", [])] + ([m["name"]] if m.get("topic") == "dispatcher.joined" else [])
for line in open(sys.argv[2]):
    m = json.loads(line); m.pop("src", None); m.pop("seq", None)
    s.sendall((json.dumps(m) + "\n").encode())
s.sendall(b'{"topic":"bye"}\n')
PY
i=0
while ! grep -q "more than one datagram" "$tmp/small.txt" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
grep -Eq "^osi-node: udp: the GroundTruth at t 0.000 s is [0-9]+ bytes, more than one datagram carries \(200\): not sent" \
    "$tmp/small.txt" || { echo "FAIL no note of the oversized datagram:"; cat "$tmp/small.txt"; exit 1; }
kill $small
wait $small 2>/dev/null
grep -q "^osi-node: 3 messages were too large for a datagram" "$tmp/small.txt" ||
    { echo "FAIL the oversized messages were not counted at the end:"; cat "$tmp/small.txt"; exit 1; }
echo "ok datagrams over --udp-max 200 not sent, said once and counted (3: two as the next state came, the last at the stop)"

# beyond loopback: refused without a token; with one, a consumer is admitted only after
# sending it as its first line, a wrong one is disconnected
T=$(free_port)
if "$bin/osi-node" --listen "0.0.0.0:$T" --bus 127.0.0.1:1 >"$tmp/notoken.txt" 2>&1; then
    echo "FAIL osi-node listened beyond loopback without a token"; exit 1
fi
grep -q "is not loopback: a token is required" "$tmp/notoken.txt" || { echo "FAIL no reason given:"; cat "$tmp/notoken.txt"; exit 1; }
SIM_BUS_TOKEN=osi-token-7 "$bin/osi-node" --listen "0.0.0.0:$T" --wait-consumers 1 --bus 127.0.0.1:1 >"$tmp/token.txt" 2>&1 &
tok=$!
pids="$pids $tok"
/usr/bin/python3 - "$T" <<'PY' || exit 1
import socket, sys, time
T = int(sys.argv[1])
def connect():
    t0 = time.time()
    while time.time() - t0 < 30:
        try: return socket.create_connection(("127.0.0.1", T), 1)
        except OSError: time.sleep(0.01)  # polling for osi-node to listen
    print("FAIL never connected"); sys.exit(1)
s = connect(); s.settimeout(10); s.sendall(b"wrong\n")
if s.recv(10) != b"": print("FAIL a wrong token was not disconnected"); sys.exit(1)
PY
grep -q "wrong token: disconnected" "$tmp/token.txt" || { echo "FAIL no note of the wrong token:"; cat "$tmp/token.txt"; exit 1; }
grep -q "joined" "$tmp/token.txt" && { echo "FAIL a consumer without the token was admitted"; exit 1; }
/usr/bin/python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5); s.sendall(b"osi-token-7\n"); s.close()' "$T"
# (the node admits it and goes on to the bus: it says so)
i=0
while ! grep -q "joined" "$tmp/token.txt" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "consumer 127.0.0.1:[0-9]* joined" "$tmp/token.txt" || { echo "FAIL the consumer with the token was not admitted:"; cat "$tmp/token.txt"; exit 1; }
echo "ok beyond loopback: refused without a token; a wrong token disconnected, the right one admitted"
