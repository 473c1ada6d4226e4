#!/bin/sh
# A headless drive with a motion base (simctl run --motion hexapod) and a UDP listener:
# the drive log's motion table has one row per cueing step (step without a gap, each
# one a datagram the listener received with the same pose), every actuator length
# within the stroke of config/motion/hexapod.json and every pose within its workspace,
# the lengths' steps within the velocity limit; analysis motion reads the table.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
# The listener: every datagram's seq and pose (SIMM, little-endian, docs/motion.md),
# until 3 s without one after the first (or 180 s without any). It names its port
# through a FIFO once bound, so the drive starts after it listens.
mkfifo "$tmp/port"
python3 - "$tmp/port" "$tmp/udp.txt" <<'EOF' &
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.settimeout(180)
with open(sys.argv[1], "w") as f:
    f.write("%d\n" % s.getsockname()[1])
out = open(sys.argv[2], "w")
while True:
    try:
        b = s.recv(256)
    except socket.timeout:
        break
    s.settimeout(3)
    if len(b) != 120 or b[:4] != b"SIMM":
        out.write("bad\n")
        continue
    seq, = struct.unpack_from("<I", b, 8)
    pose = struct.unpack_from("<6d", b, 24)
    out.write("%d %s\n" % (seq, " ".join("%.17g" % v for v in pose)))
out.close()
EOF
listener=$!
pids="$listener"
read U <"$tmp/port"
"$bin/simctl" run "$root/scenarios/lane-change.json" --headless --motion hexapod --motion-udp "127.0.0.1:$U" \
    --until 30 --no-analysis --out "$tmp/out" --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" \
    >"$tmp/run.log" 2>&1 || { echo "FAIL the drive:"; tail -n 30 "$tmp/run.log"; exit 1; }
wait "$listener"
log=$(ls "$tmp"/out/logs/*/*.sqlite | head -n 1)
q() { sqlite3 "$log" "$1"; }

# one row per step, without a gap, in the order of simulation time
set -- $(q "SELECT count(*), count(DISTINCT step), min(step), max(step), sum(state = 'running') FROM motion" | tr '|' ' ')
rows=$1
[ "$rows" -ge 300 ] && [ "$2" -eq "$rows" ] && [ $(($4 - $3 + 1)) -eq "$rows" ] && [ "$5" -ge 50 ] ||
    { echo "FAIL motion rows: $rows, $2 distinct steps $3..$4, $5 running (expected >= 300 rows, steps without a gap, >= 50 running)"; exit 1; }
back=$(q "SELECT count(*) FROM (SELECT t, lag(t) OVER (ORDER BY step) AS p FROM motion) WHERE t < p")
[ "$back" -eq 0 ] || { echo "FAIL $back motion rows with a simulation time before the step before"; exit 1; }
echo "ok $rows motion rows, steps $3..$4 without a gap, $5 running"

# each row is a datagram the listener got, with the same pose
grep -q bad "$tmp/udp.txt" && { echo "FAIL a datagram that is not a pose"; exit 1; }
q "SELECT step, x, y, z, roll, pitch, yaw FROM motion ORDER BY step" | tr '|' ' ' >"$tmp/rows.txt"
awk 'NR == FNR { p[$1] = $0; n++; next }
     { if (!($1 in p)) { print "FAIL step " $1 " of the log was never received"; bad = 1; exit 1 }
       split(p[$1], u, " ")
       for (k = 2; k <= 7; k++) if ((u[k] - $k) > 1e-9 || ($k - u[k]) > 1e-9) {
           print "FAIL step " $1 ": pose " $0 " in the log, " p[$1] " sent"; bad = 1; exit 1 } m++ }
     END { if (bad) exit 1; if (m == 0) { print "FAIL no rows compared"; exit 1 }
           print "ok " m " rows each a datagram with the same pose (" n " received)" }' \
    "$tmp/udp.txt" "$tmp/rows.txt" || exit 1

# the platform's limits (config/motion/hexapod.json), at every step
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); a=p["actuator"]; w=p["workspace"]
print(a["min_length"], a["max_length"], a["max_velocity"], *w["x"], *w["y"], *w["z"],
      *[v * 0.017453292519943295 for k in ("roll_deg", "pitch_deg", "yaw_deg") for v in w[k]])' \
    "$root/config/motion/hexapod.json" >"$tmp/limits.txt"
set -- $(cat "$tmp/limits.txt")
lmin=$1 lmax=$2 vmax=$3
out=$(q "SELECT count(*) FROM motion WHERE
          min(len0, len1, len2, len3, len4, len5) < $lmin - 1e-9 OR max(len0, len1, len2, len3, len4, len5) > $lmax + 1e-9
          OR len5 IS NULL OR x NOT BETWEEN $4 - 1e-9 AND $5 + 1e-9 OR y NOT BETWEEN $6 - 1e-9 AND $7 + 1e-9
          OR z NOT BETWEEN $8 - 1e-9 AND $9 + 1e-9 OR roll NOT BETWEEN ${10} - 1e-9 AND ${11} + 1e-9
          OR pitch NOT BETWEEN ${12} - 1e-9 AND ${13} + 1e-9 OR yaw NOT BETWEEN ${14} - 1e-9 AND ${15} + 1e-9")
[ "$out" -eq 0 ] || { echo "FAIL $out rows beyond the stroke $lmin..$lmax m or the workspace"; exit 1; }
vel=$(q "SELECT max(max(abs(len0 - p0), abs(len1 - p1), abs(len2 - p2), abs(len3 - p3), abs(len4 - p4),
                        abs(len5 - p5)) / 0.01)
         FROM (SELECT len0, len1, len2, len3, len4, len5, lag(len0) OVER w AS p0, lag(len1) OVER w AS p1,
               lag(len2) OVER w AS p2, lag(len3) OVER w AS p3, lag(len4) OVER w AS p4, lag(len5) OVER w AS p5
               FROM motion WINDOW w AS (ORDER BY step)) WHERE p0 IS NOT NULL")
moved=$(q "SELECT max(max(len0, len1, len2, len3, len4, len5) - min(len0, len1, len2, len3, len4, len5)) FROM motion")
awk -v v="$vel" -v m="$vmax" -v d="$moved" 'BEGIN { exit !(v <= m + 1e-6 && d > 0.001) }' ||
    { echo "FAIL fastest actuator step $vel m/s (limit $vmax), spread of the lengths $moved m (expected > 1 mm)"; exit 1; }
echo "ok every length within $lmin..$lmax m, pose within the workspace, fastest actuator $vel m/s (limit $vmax)"

# analysis motion reads the table
"$bin/analysis" motion "$log" --json >"$tmp/fidelity.json" 2>"$tmp/fidelity.err" ||
    { echo "FAIL analysis motion:"; cat "$tmp/fidelity.err"; exit 1; }
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"])' "$tmp/fidelity.json")
[ "$got" -eq "$rows" ] || { echo "FAIL analysis motion read $got rows, the table has $rows"; exit 1; }
echo "ok analysis motion read the $got rows"

# the report's motion panel: the figure, the section and metrics.json's drive.motion,
# with the figures analysis motion gives
"$bin/analysis" report "$log" --out "$tmp/report" >"$tmp/report.txt" 2>&1 ||
    { echo "FAIL analysis report:"; cat "$tmp/report.txt"; exit 1; }
for f in motion.png motion.svg; do
    [ -s "$tmp/report/$f" ] || { echo "FAIL the report has no $f"; exit 1; }
done
grep -q '<h2>Motion cueing</h2>' "$tmp/report/report.html" && grep -q 'src="motion.png"' "$tmp/report/report.html" ||
    { echo "FAIL report.html has no motion section with its figure"; exit 1; }
python3 - "$tmp/report/metrics.json" "$tmp/fidelity.json" "$rows" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))["drive"].get("motion")
f = json.load(open(sys.argv[2]))
if m is None:
    sys.exit("FAIL metrics.json has no drive.motion")
if m["rows"] != int(sys.argv[3]) or m["limit_hits"] != f["limit_hits"] or m["platform"] != "hexapod":
    sys.exit("FAIL drive.motion rows %s, limit hits %s, platform %s (expected %s, %s, hexapod)"
             % (m["rows"], m["limit_hits"], m["platform"], sys.argv[3], f["limit_hits"]))
for axis, a in f["axes"].items():
    b = m["axes"][axis]
    for k in ("rmse", "corr"):
        if (a[k] is None) != (b[k] is None) or (a[k] is not None and abs(a[k] - b[k]) > 1e-5 * max(1, abs(a[k]))):
            sys.exit("FAIL drive.motion %s %s %s, analysis motion %s" % (axis, k, b[k], a[k]))
print("ok the report's motion section and figure; drive.motion: %d rows, f_y RMSE %.3f, corr %s"
      % (m["rows"], m["axes"]["f_y"]["rmse"], m["axes"]["f_y"]["corr"]))
PY
