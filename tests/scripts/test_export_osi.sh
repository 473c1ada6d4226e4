#!/bin/sh
# simctl export --osi (docs/osi.md): a headless drive with traffic (scenarios/motorway.json,
# --record-all) exported as an OSI trace and read back by Google's protobuf (Debian's
# python3-protobuf, the message classes made by protoc from the same .proto files):
# the .osi framing (a 4-byte little-endian length before each message, nothing left
# over), one GroundTruth per sample row, each one's timestamp, the host's box centre,
# velocity and box against the logged vehicle.state and the vehicle file (worked out
# here again), and every traffic vehicle against the logged traffic.state of the same
# tick; the environmental conditions from the scenario's environment; the OSI file name
# in a directory; a log without raw messages and an existing file refused with the
# reason; a missing scenario leaves the environment out and says so. A drive of
# scenarios/crossing-lights.json: every head's bulbs as traffic lights, their modes
# from the logged signal.state, each head where the scenario puts it (found back with
# simctl where) and facing its traffic.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
"$bin/simctl" run "$root/scenarios/motorway.json" --headless --until 2 --no-analysis --record-all --out "$tmp/out" \
    --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" >"$tmp/run.log" 2>&1 ||
    { echo "FAIL the drive:"; tail -n 20 "$tmp/run.log"; exit 1; }
log=$(ls "$tmp"/out/logs/*/*.sqlite | head -n 1)
"$bin/simctl" export "$log" --osi "$tmp/gt.osi" >"$tmp/export.txt" 2>&1 ||
    { echo "FAIL export:"; cat "$tmp/export.txt"; exit 1; }
mkdir -p "$tmp/py"
protoc --proto_path="$root/common/osi/proto" --python_out="$tmp/py" "$root"/common/osi/proto/*.proto ||
    { echo "FAIL protoc"; exit 1; }
# (Debian's python3, which has python3-protobuf; a python3 earlier on PATH may not)
/usr/bin/python3 - "$tmp/py" "$tmp/gt.osi" "$log" "$root/vehicles/bmw-318i.json" "$(cat "$tmp/export.txt")" \
    "$root/scenarios/motorway.json" <<'PY' || exit 1
import json, math, sqlite3, struct, sys
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
data = open(sys.argv[2], "rb").read()
db = sqlite3.connect(sys.argv[3])
veh = json.load(open(sys.argv[4]))["body"]
said = sys.argv[5]
env = json.load(open(sys.argv[6]))["environment"]
def fail(what):
    print("FAIL", what); sys.exit(1)

# the .osi framing: length (uint32 little-endian), message, ... up to the last byte
frames, at = [], 0
while at < len(data):
    if at + 4 > len(data): fail(f"{len(data) - at} bytes left after message {len(frames)}: no whole length")
    n = struct.unpack_from("<I", data, at)[0]
    if at + 4 + n > len(data): fail(f"message {len(frames)} says {n} bytes, {len(data) - at - 4} are left")
    m = osi.GroundTruth()
    m.ParseFromString(data[at + 4:at + 4 + n])
    frames.append(m)
    at += 4 + n
samples = db.execute("SELECT run, tick, t FROM samples ORDER BY run, tick").fetchall()
if len(frames) != len(samples): fail(f"{len(frames)} GroundTruth messages, the log has {len(samples)} samples")
if f"({len(frames)} GroundTruth messages)" not in said: fail(f"export said {said!r}")

# the logged states by tick: vehicle.state by its own (run, tick), traffic.state by (run, t)
ego = {}
for (line,) in db.execute("SELECT line FROM messages WHERE topic = 'vehicle.state' ORDER BY rowid"):
    v = json.loads(line); ego[(v["run"], round(v["tick"]))] = v
traffic = {}
for (line,) in db.execute("SELECT line FROM messages WHERE topic = 'traffic.state' ORDER BY rowid"):
    v = json.loads(line); traffic[(v["run"], round(v["t"] * 100))] = v["vehicles"]

def rot(roll, pitch, yaw, b):  # Rz(yaw) Ry(pitch) Rx(roll) b, ISO 8855
    cr, sr, cp, sp, cy, sy = math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch), math.cos(yaw), math.sin(yaw)
    R = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
         [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
         [-sp, cp * sr, cp * cr]]
    return [sum(R[i][j] * b[j] for j in range(3)) for i in range(3)]

def fnv(name):
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) % (1 << 64)
    h &= (1 << 53) - 1
    return h + 2 if h < 2 else h

def near(a, b, what, tol=1e-9):
    if abs(a - b) > tol: fail(f"{what}: {a!r} in the trace, {b!r} from the log")

# OSI's classes: fog by visibility, ambient illumination by light (docs/osi.md)
fog = next(2 + i for i, v in enumerate([40000, 10000, 4000, 2000, 1000, 200, 50, 0]) if env["visibility_m"] >= v)
light = {"night": 2, "dawn": 5, "dusk": 5}.get(env["light"], 9 if env["weather"] == "clear" else 8)
rain = 1 if env["weather"] in ("rain", "snow") else 2
ind = {"off": 2, "left": 3, "right": 4, "hazard": 5}
vc = {"car": 4, "van": 6, "truck": 7, "bus": 12, "motorbike": 10, "bicycle": 11}
# an object's lane: the scenario's section holding its s (OSI ids as docs/osi.md)
sections = {}
for r in json.load(open(sys.argv[6]))["roads"]:
    sections[r["id"]] = r["lanes"] if isinstance(r["lanes"], list) else [r["lanes"]]
def lane_id(road, s, lane):
    secs = sections.get(road)
    if not secs or not lane or s is None: return []
    si = max(i for i, sec in enumerate(secs) if sec.get("s", 0) <= s)
    if not (1 <= lane <= len(secs[si].get("left", [])) or 1 <= -lane <= len(secs[si].get("right", []))): return []
    return [fnv(f"lane:{road}/{si}/{lane}")]
assigned = 0
moving = stale = 0
for m, (run, tick, t) in zip(frames, samples):
    w = f"t {t}"
    v = m.version
    if (v.version_major, v.version_minor, v.version_patch) != (3, 8, 0): fail(f"{w}: version {v}")
    if m.timestamp.seconds * 10**9 + m.timestamp.nanos != round(t * 1e9): fail(f"{w}: timestamp {m.timestamp}")
    if m.host_vehicle_id.value != 1 or m.moving_object[0].id.value != 1: fail(f"{w}: the host is not object 0 / id 1")
    e = m.environmental_conditions
    if (e.time_of_day.seconds_since_midnight != math.floor(env["time_of_day"] * 3600 + t) or e.fog != fog
            or e.ambient_illumination != light or e.precipitation != rain):
        fail(f"{w}: environment {e} for the scenario's {env}")
    s = ego.get((run, tick))
    if s is None: fail(f"{w}: no vehicle.state of run {run} tick {tick} in the log")
    h = m.moving_object[0]
    off = rot(s["roll"], s["pitch"], s["heading"], veh["box_offset"])
    for k, axis in enumerate("xyz"):
        near(getattr(h.base.position, axis), s["pos"][k] + off[k], f"{w}: host position {axis}")
    wv = rot(s["roll"], s["pitch"], s["heading"], s["ang_vel_body"])
    cross = [wv[1] * off[2] - wv[2] * off[1], wv[2] * off[0] - wv[0] * off[2], wv[0] * off[1] - wv[1] * off[0]]
    for k, axis in enumerate("xyz"):
        near(getattr(h.base.velocity, axis), s["vel"][k] + cross[k], f"{w}: host velocity {axis}")
    near(h.base.orientation.yaw, s["heading"], f"{w}: host yaw", 0)
    want = lane_id(s.get("road"), s.get("s"), s.get("lane"))
    if [i.value for i in h.moving_object_classification.assigned_lane_id] != want:
        fail(f"{w}: host lane {h.moving_object_classification} for {s.get('road')} s {s.get('s')} lane {s.get('lane')}")
    assigned += len(want)
    near(h.base.orientation.pitch, s["pitch"], f"{w}: host pitch", 0)
    if [h.base.dimension.length, h.base.dimension.width, h.base.dimension.height] != [2 * x for x in veh["box_half"]]:
        fail(f"{w}: host box {h.base.dimension}")
    # the traffic.state of the tick, else the newest before it in the run (the drive's
    # last tick may end before traffic-node's message of it is logged)
    at = max((k for k in traffic if k[0] == run and k[1] <= tick), default=None)
    if at is None: fail(f"{w}: no traffic.state of run {run} at or before that tick in the log")
    others = traffic[at]
    stale += at[1] != tick
    if len(m.moving_object) != 1 + len(others):
        fail(f"{w}: {len(m.moving_object)} moving objects, the log has the host and {len(others)} vehicles")
    for o, a in zip(m.moving_object[1:], others):
        ow = f"{w}, {a['id']}"
        if list(o.source_reference[0].identifier) != [a["id"]] or o.id.value != fnv(a["id"]): fail(f"{ow}: id {o.id.value}")
        b = o.base
        got = [b.position.x, b.position.y, b.position.z, b.orientation.yaw, b.velocity.x, b.velocity.y, b.velocity.z,
               b.dimension.length, b.dimension.width, b.dimension.height]
        want = [a["pos"][0], a["pos"][1], a["pos"][2] + a["size"][2] / 2, a["heading"], *a["velocity"], *a["size"]]
        if got != want: fail(f"{ow}: {got} in the trace, {want} from traffic.state")
        ls = o.vehicle_classification.light_state
        if ls.indicator_state != ind[a["indicator"]] or ls.brake_light_state != (3 if a["brake"] else 2):
            fail(f"{ow}: lights {ls} for indicator {a['indicator']}, brake {a['brake']}")
        if o.type != 2 or o.vehicle_classification.type != vc[a["model"]]: fail(f"{ow}: type of a {a['model']}")
        want = lane_id(a.get("road"), a.get("s"), a.get("lane"))
        if [i.value for i in o.moving_object_classification.assigned_lane_id] != want:
            fail(f"{ow}: lane {o.moving_object_classification} for {a.get('road')} s {a.get('s')} lane {a.get('lane')}")
        assigned += len(want)
    moving += len(others)
if stale > 2: fail(f"{stale} messages had no traffic.state of their own tick")
if assigned < moving: fail(f"only {assigned} of {moving + len(frames)} objects have a lane")
if moving < 100: fail(f"only {moving} traffic vehicles in {len(frames)} messages: the drive had no traffic to check")
print(f"ok {len(frames)} GroundTruth messages, {moving} traffic vehicles equal to the log's, {assigned} lanes; environment {env['light']}, "
      f"{env['weather']}, {env['visibility_m']} m as ambient illumination {light}, precipitation {rain}, fog {fog}")
PY
# The road network's lanes and lane boundaries, in the first message only: one Lane
# per lane of each road's lane sections (ids FNV-1a of "lane:<road>/<section>/<lane>"),
# each lane's middle centre-line point found back in that road and lane by simctl where,
# each boundary's middle point at the t the scenario's widths give (where's d), painted
# lines 0.15 m wide, types from the marks.
/usr/bin/python3 - "$tmp/py" "$tmp/gt.osi" "$root/scenarios/motorway.json" "$bin/simctl" <<'PY' || exit 1
import json, struct, subprocess, sys
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
data = open(sys.argv[2], "rb").read()
sc = json.load(open(sys.argv[3]))
def fail(what):
    print("FAIL", what); sys.exit(1)
def fnv(name):
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) % (1 << 64)
    h &= (1 << 53) - 1
    return h + 2 if h < 2 else h
def where(x, y):
    return json.loads(subprocess.run([sys.argv[4], "where", sys.argv[3], repr(x), repr(y)], capture_output=True,
                                     text=True, check=True).stdout)
frames, at = [], 0
while at < len(data):
    n = struct.unpack_from("<I", data, at)[0]
    m = osi.GroundTruth(); m.ParseFromString(data[at + 4:at + 4 + n]); frames.append(m); at += 4 + n
first = frames[0]
if any(len(m.lane) or len(m.lane_boundary) for m in frames[1:]): fail("lanes in a message after the first")
junction_roads = {c["connecting"] for j in sc.get("junctions", []) for c in j["connections"]}
lanes = {l.id.value: l for l in first.lane}
bounds = {b.id.value: b for b in first.lane_boundary}
want_lanes = want_bounds = checked = 0
mark = {"none": 2, "solid": 3, "dashed": 4}
for r in sc["roads"]:
    secs = r["lanes"] if isinstance(r["lanes"], list) else [dict(r["lanes"], s=0)]
    for si, sec in enumerate(secs):
        side = {k: sec.get(name, []) for k, name in ((1, "left"), (-1, "right"))}
        want_bounds += 1 + len(side[1]) + len(side[-1])
        for sg in (1, -1):
            t = 0.0
            for i, spec in enumerate(side[sg]):
                k = sg * (i + 1)
                lid, bid = fnv(f"lane:{r['id']}/{si}/{k}"), fnv(f"boundary:{r['id']}/{si}/{k}")
                want_lanes += 1
                l, b = lanes.get(lid), bounds.get(bid)
                if l is None or b is None: fail(f"{r['id']} section {si} lane {k}: no Lane {lid} / LaneBoundary {bid}")
                w = spec["width"]
                if "width_end" in spec: w = (w + spec["width_end"]) / 2  # a taper, at the section's middle
                cl = l.classification.centerline
                p = cl[len(cl) // 2]
                got = where(p.x, p.y)
                if got["road"] != r["id"] or got["lane"] != k or abs(got["d"] - sg * (t + w / 2)) > 0.05:
                    fail(f"{r['id']} lane {k}: centre-line point ({p.x}, {p.y}) is {got}, want d {sg * (t + w / 2)}")
                t += w
                q = b.boundary_line[len(b.boundary_line) // 2]
                got = where(q.position.x, q.position.y)
                if got["road"] != r["id"] or abs(got["d"] - sg * t) > 0.05:
                    fail(f"{r['id']} boundary of lane {k}: ({q.position.x}, {q.position.y}) is {got}, want d {sg * t}")
                wm = spec.get("mark", "none")
                if q.width != (0 if wm == "none" else 0.15) or b.classification.type != mark.get(wm, 1):
                    fail(f"{r['id']} boundary of lane {k}: width {q.width}, type {b.classification.type} for {wm}")
                typ = 4 if r["id"] in junction_roads else 2
                if spec.get("type", "driving") != "driving": typ = 3
                if l.classification.type != typ: fail(f"{r['id']} lane {k}: type {l.classification.type}, want {typ}")
                if typ == 2:
                    lb, rb = (bid, fnv(f"boundary:{r['id']}/{si}/{k - 1}")) if k > 0 else \
                             (fnv(f"boundary:{r['id']}/{si}/{k + 1}"), bid)
                    c = l.classification
                    if [i.value for i in c.left_lane_boundary_id] != [lb] or [i.value for i in c.right_lane_boundary_id] != [rb]:
                        fail(f"{r['id']} lane {k}: boundaries {c.left_lane_boundary_id} {c.right_lane_boundary_id}")
                    if c.centerline_is_driving_direction != (k < 0): fail(f"{r['id']} lane {k}: direction")
                checked += 1
if len(lanes) != want_lanes or len(bounds) != want_bounds:
    fail(f"{len(lanes)} lanes and {len(bounds)} boundaries, the scenario has {want_lanes} and {want_bounds}")
print(f"ok {len(lanes)} lanes and {len(bounds)} boundaries in the first message, {checked} lanes' centre and "
      f"border found back by simctl where")
PY
# In a directory: OSI's file name, the same bytes.
mkdir -p "$tmp/dir"
"$bin/simctl" export "$log" --osi "$tmp/dir" >"$tmp/export2.txt" 2>&1 || { echo "FAIL export to a dir:"; cat "$tmp/export2.txt"; exit 1; }
frames=$(sqlite3 "$log" "SELECT count(*) FROM samples")
pb=$(pkg-config --modversion libprotobuf-c | tr -d .)
name=$(ls "$tmp/dir")
echo "$name" | grep -Eq "^[0-9]{8}T[0-9]{6}Z_gt_380_${pb}_${frames}_motorway\.osi$" ||
    { echo "FAIL the file in the directory is named '$name'"; exit 1; }
cmp -s "$tmp/dir/$name" "$tmp/gt.osi" || { echo "FAIL $name differs from the file export"; exit 1; }
echo "ok named $name"
# --run 0 of this one-run log: the same messages (the first vehicle.state, filed under run
# -1 because it came before its sim.tick, is run 0's by its own "run")
"$bin/simctl" export "$log" --osi "$tmp/run0.osi" --run 0 >/dev/null 2>&1 || { echo "FAIL export --run 0"; exit 1; }
cmp -s "$tmp/run0.osi" "$tmp/gt.osi" || { echo "FAIL --run 0 differs from the whole log's trace"; exit 1; }
# An existing file needs --force; a log without raw messages says how to record one.
"$bin/simctl" export "$log" --osi "$tmp/gt.osi" >/dev/null 2>"$tmp/exists.txt" &&
    { echo "FAIL an existing file was overwritten without --force"; exit 1; }
grep -q "exists; give --force" "$tmp/exists.txt" || { echo "FAIL said:"; cat "$tmp/exists.txt"; exit 1; }
cp "$log" "$tmp/bare.sqlite"
sqlite3 "$tmp/bare.sqlite" "DELETE FROM messages"
"$bin/simctl" export "$tmp/bare.sqlite" --osi "$tmp/bare.osi" >/dev/null 2>"$tmp/bare.txt" &&
    { echo "FAIL a log without vehicle.state was exported"; exit 1; }
grep -q "record-all" "$tmp/bare.txt" || { echo "FAIL said:"; cat "$tmp/bare.txt"; exit 1; }
[ ! -e "$tmp/bare.osi" ] && [ ! -e "$tmp/bare.osi.part" ] || { echo "FAIL a failed export left a file"; exit 1; }
"$bin/simctl" export "$log" --osi "$tmp/noenv.osi" --scenario "$tmp/none.json" >/dev/null 2>"$tmp/noenv.txt" ||
    { echo "FAIL export without a scenario:"; cat "$tmp/noenv.txt"; exit 1; }
grep -q "environmental conditions, traffic lights and lanes left out" "$tmp/noenv.txt" || { echo "FAIL said:"; cat "$tmp/noenv.txt"; exit 1; }
[ "$(wc -c <"$tmp/noenv.osi")" -lt "$(wc -c <"$tmp/gt.osi")" ] || { echo "FAIL the trace without a scenario is no smaller"; exit 1; }
# Traffic lights: the crossing's four heads, three bulbs each.
"$bin/simctl" run "$root/scenarios/crossing-lights.json" --headless --until 1 --no-analysis --record-all \
    --out "$tmp/cl" --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" >"$tmp/cl.log" 2>&1 ||
    { echo "FAIL the crossing drive:"; tail -n 20 "$tmp/cl.log"; exit 1; }
cl=$(ls "$tmp"/cl/logs/*/*.sqlite | head -n 1)
"$bin/simctl" export "$cl" --osi "$tmp/cl.osi" >"$tmp/cl.txt" 2>&1 || { echo "FAIL export:"; cat "$tmp/cl.txt"; exit 1; }
/usr/bin/python3 - "$tmp/py" "$tmp/cl.osi" "$cl" "$root/scenarios/crossing-lights.json" "$bin/simctl" <<'PY' || exit 1
import json, math, sqlite3, struct, subprocess, sys
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
data = open(sys.argv[2], "rb").read()
db = sqlite3.connect(sys.argv[3])
heads = {h["id"]: h for h in json.load(open(sys.argv[4]))["traffic_lights"]["heads"]}
def fail(what):
    print("FAIL", what); sys.exit(1)
def where(x, y):
    return json.loads(subprocess.run([sys.argv[5], "where", sys.argv[4], repr(x), repr(y)], capture_output=True,
                                     text=True, check=True).stdout)
frames, at = [], 0
while at < len(data):
    n = struct.unpack_from("<I", data, at)[0]
    m = osi.GroundTruth(); m.ParseFromString(data[at + 4:at + 4 + n]); frames.append(m); at += 4 + n
signals = [(t, json.loads(l)) for t, l in db.execute("SELECT t, line FROM messages WHERE topic = 'signal.state' ORDER BY rowid")]
if not signals: fail("the crossing drive logged no signal.state")
lit = {"red": {2}, "red_amber": {2, 3}, "amber": {3}, "green": {4}, "flashing_amber": set(), "off": set()}
seen = set()
for m in frames:
    t = m.timestamp.seconds + m.timestamp.nanos * 1e-9
    state = {}
    for ts, s in signals:
        if ts <= t + 1e-9: state[s["id"]] = s["state"]
    by_head = {}
    for tl in m.traffic_light:
        by_head.setdefault(tl.source_reference[0].identifier[0], []).append(tl)
    if set(by_head) != set(state): fail(f"t {t}: lights of {sorted(by_head)}, signal.state of {sorted(state)}")
    for hid, bulbs in by_head.items():
        c = [b.classification for b in bulbs]
        if [x.color for x in c] != [2, 3, 4] or any(x.icon != 2 for x in c): fail(f"t {t}, {hid}: bulbs {c}")
        on = {x.color for x in c if x.mode == 3}
        flashing = {x.color for x in c if x.mode == 4}
        if on != lit[state[hid]] or flashing != ({3} if state[hid] == "flashing_amber" else set()):
            fail(f"t {t}, {hid}: lit {on}, flashing {flashing} for {state[hid]}")
        seen.add((hid, state[hid]))
# each head where the scenario puts it: the bulbs' centre less the housing's 0.195 m in
# front of the post is the post's foot at the head's road, s and t; 1 m further along
# the face's look goes against the traffic it controls (s down for "+", up for "-")
for hid, bulbs in by_head.items():
    b = bulbs[0].base
    yaw = b.orientation.yaw
    fx, fy = b.position.x - 0.195 * math.cos(yaw), b.position.y - 0.195 * math.sin(yaw)
    w, h = where(fx, fy), heads[hid]
    if w["road"] != h["road"] or abs(w["s"] - h["s"]) > 1e-6 or abs(w["d"] - h["t"]) > 1e-6:
        fail(f"{hid}: its post stands at {w}, the scenario says {h}")
    ahead = where(fx + math.cos(yaw), fy + math.sin(yaw))
    if round(ahead["s"] - w["s"]) != (-1 if h["orientation"] == "+" else 1):
        fail(f"{hid}: its face looks towards s {ahead['s']} from {w['s']} ({h['orientation']})")
    z = [x.base.position.z for x in bulbs]
    # z_offset: the scenario's default 3 m (docs/scenario.md); a head 0.8 m high (render-node's)
    want = [w["z"] + h.get("z_offset", 3) + 0.8 * k / 6 for k in (5, 3, 1)]
    if any(abs(a - b) > 1e-9 for a, b in zip(z, want)): fail(f"{hid}: bulbs at z {z}, want {want}")
print(f"ok {len(frames)} messages with {len(frames[0].traffic_light)} traffic lights each; states {sorted(seen)}")
PY
# A head the scenario does not have (SUMO's), placed by its signal.state: added to a copy
# of the log at t = 0.5 s; its bulbs from then on, where render-node draws such a head.
cp "$cl" "$tmp/sumo.sqlite"
sqlite3 "$tmp/sumo.sqlite" "INSERT INTO messages (run, t, topic, src, seq, hash, line) VALUES (0, 0.5, 'signal.state', \
'traffic', 99999, 4242, '{\"topic\":\"signal.state\",\"src\":\"traffic\",\"seq\":99999,\"t\":0.5,\"id\":\"sumo:106:3\",\"state\":\"amber\",\"controller\":\"sumo:106\",\"pos\":[8.01,-142.995,0.5],\"heading\":-1.5646,\"stop_a\":[7.31,-142.999,0],\"stop_b\":[3.81,-143.021,0]}')"
"$bin/simctl" export "$tmp/sumo.sqlite" --osi "$tmp/sumo.osi" --scenario "$root/scenarios/crossing-lights.json" \
    >"$tmp/sumo.txt" 2>&1 || { echo "FAIL export:"; cat "$tmp/sumo.txt"; exit 1; }
/usr/bin/python3 - "$tmp/py" "$tmp/sumo.osi" <<'PY' || exit 1
import math, struct, sys
sys.path.insert(0, sys.argv[1])
import osi_groundtruth_pb2 as osi
data, at, n_after = open(sys.argv[2], "rb").read(), 0, 0
while at < len(data):
    n = struct.unpack_from("<I", data, at)[0]
    m = osi.GroundTruth(); m.ParseFromString(data[at + 4:at + 4 + n]); at += 4 + n
    t = m.timestamp.seconds + m.timestamp.nanos * 1e-9
    sumo = [tl for tl in m.traffic_light if tl.source_reference[0].identifier[0] == "sumo:106:3"]
    if len(sumo) != (3 if t >= 0.5 - 1e-9 else 0): print(f"FAIL t {t}: {len(sumo)} bulbs of the SUMO head"); sys.exit(1)
    if not sumo: continue
    n_after += 1
    h = -1.5646
    for k, b in enumerate(sumo):
        p = b.base.position
        want = (8.01 + 0.195 * math.cos(h), -142.995 + 0.195 * math.sin(h), 0.5 + 2.5 + 0.8 * (5 - 2 * k) / 6)
        if max(abs(p.x - want[0]), abs(p.y - want[1]), abs(p.z - want[2])) > 1e-9 or b.base.orientation.yaw != h:
            print(f"FAIL t {t}: bulb {k} at {p}, want {want}"); sys.exit(1)
        if b.classification.mode != (3 if k == 1 else 2): print(f"FAIL t {t}: bulb {k} {b.classification}"); sys.exit(1)
print(f"ok a SUMO head placed by its signal.state in the {n_after} messages from t 0.5 s")
PY
echo "ok export osi"
