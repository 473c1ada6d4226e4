#!/bin/sh
# analysis batch --lct-baseline-match: each subject's baseline drive gives the adaptive
# LCT model of that subject's drives (docs/metrics.md, "Lane Change Test"). Cases solved
# by hand on the track of tests/unit/test_measures.c (lct_adaptive_model_by_hand): lane
# d = 0, a change to d = 3.85 with normative ramp [100, 120], back over [300, 320], task
# 0..500 m. The "late" driver changes 10 m later over 30 m, f(x) = (x - 10)/30; against
# the normative path that is MDEV = 2 * 3.85 * 15 / 500 = 0.231 m.
#   A: baseline late;            A_late     -> adaptive 0,     normative 0.231
#                                A_norm (drives the normative path) -> adaptive 0.231, normative 0
#   B: baseline late + 0.2 m;    B_baseline -> adaptive 0 (its own path)
#                                B_late     -> adaptive 0.2 (the path is the driver's + 0.2)
#   C: no baseline               C_late     -> adaptive NA, a warning naming C, exit 1
. "$(dirname "$0")/lib.sh"
cat >"$tmp/track.json" <<'EOF'
{"format": 1, "name": "adaptive",
 "roads": [{"id": "r", "start": {"x": 0, "y": 0, "heading_deg": 0},
            "segments": [{"type": "line", "length": 600}],
            "lanes": {"left": [{"width": 3.85}, {"width": 3.85}], "right": [{"width": 3.85}]}}],
 "tasks": [{"id": "T", "road": "r", "s_start": 0, "s_end": 500, "tube_half_width": 1,
            "ideal": {"points": [[0, 0], [100, 0], [120, 3.85], [300, 3.85], [320, 0], [500, 0]]}}]}
EOF
# drive SUBJECT NAME KIND OFFSET: samples every 0.5 m at 10 m/s; KIND late or norm
drive() {
    mkdir -p "$tmp/drives/$1/$2"
    printf 'key,value\nsubject,%s\nstudy,lct\n' "$1" >"$tmp/drives/$1/$2/meta.csv"
    awk -v kind="$3" -v off="$4" 'BEGIN {
        print "run,tick,t,s,d,speed"
        for (i = 0; i <= 1200; i++) {
            s = i * 0.5
            if (kind == "late") { a = 110; w = 30 } else { a = 100; w = 20 }
            f1 = (s - a) / w; if (f1 < 0) f1 = 0; if (f1 > 1) f1 = 1
            f2 = (s - a - 200) / w; if (f2 < 0) f2 = 0; if (f2 > 1) f2 = 1
            printf "0,%d,%.2f,%.1f,%.17g,10\n", i, i * 0.05, s, 3.85 * (f1 - f2) + off
        }
    }' >"$tmp/drives/$1/$2/samples.csv"
}
drive A baseline late 0
drive A late late 0
drive A norm norm 0
drive B baseline late 0.2
drive B late late 0
drive C late late 0
"$bin/analysis" batch "$tmp/drives" --out "$tmp/out" --scenario "$tmp/track.json" --no-plots --jobs 1 \
    --lct-baseline-match baseline >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" = 1 ] || { echo "FAIL exit $rc with subject C lacking its baseline, expected 1"; cat "$tmp/stderr"; exit 1; }
grep -q 'subject "C": no drive whose name holds "baseline"' "$tmp/stderr" ||
    { echo "FAIL no warning naming subject C:"; cat "$tmp/stderr"; exit 1; }
grep -q 'subject "A"\|subject "B"' "$tmp/stderr" && { echo "FAIL a warning for A or B:"; cat "$tmp/stderr"; exit 1; }
# drive, mdev_m, mdev_adaptive_m and the message of each row of study.csv
python3 - "$tmp/out/study.csv" <<'EOF' || exit 1
import csv, math, sys
want = {  # drive: (normative (None: not solved here), adaptive (None: none), baseline in the message)
    "A_baseline": (0.231, 0.0, "A_baseline"), "A_late": (0.231, 0.0, "A_baseline"),
    "A_norm": (0.0, 0.231, "A_baseline"), "B_baseline": (None, 0.0, "B_baseline"),
    "B_late": (0.231, 0.2, "B_baseline"), "C_late": (0.231, None, None)}
rows = {r["drive"]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
for d, (norm, ad, base) in want.items():
    r = rows.get(d)
    if r is None:
        bad.append(f"{d}: no row"); continue
    if norm is not None and abs(float(r["mdev_m"]) - norm) > 1e-9: bad.append(f"{d}: mdev_m {r['mdev_m']}, expected {norm}")
    got = r["mdev_adaptive_m"]
    if ad is None:
        if got not in ("", "NA", "nan"): bad.append(f"{d}: mdev_adaptive_m {got}, expected none")
    elif got in ("", "NA") or abs(float(got) - ad) > 1e-9:
        bad.append(f"{d}: mdev_adaptive_m {got!r}, expected {ad}")
    if base and f"LCT baseline {base}" not in r["message"]: bad.append(f"{d}: message {r['message']!r}")
    if not base and "LCT baseline" in r["message"]: bad.append(f"{d}: message {r['message']!r}")
if bad:
    print("FAIL " + "; ".join(bad)); sys.exit(1)
EOF
# each drive's report says it too (A_norm against A's baseline, C without one)
grep -q "Lane Change Test: 2 lane changes; MDEV 0.000 m against the normative model, 0.231 m against the adaptive model (from the baseline drive's 2 lane changes, lane offset 0.000 m)" \
    "$tmp/out/drives/A_norm/report.html" || { echo "FAIL A_norm's report has no LCT paragraph"; exit 1; }
grep -q "Lane Change Test: 2 lane changes; MDEV 0.231 m against the normative model, none against the adaptive model" \
    "$tmp/out/drives/C_late/report.html" || { echo "FAIL C_late's report has no LCT paragraph"; exit 1; }
# Two matching drives for one subject: neither is taken
mkdir -p "$tmp/drives/A/baseline2" && cp "$tmp/drives/A/baseline/"*.csv "$tmp/drives/A/baseline2/"
"$bin/analysis" batch "$tmp/drives" --out "$tmp/out2" --scenario "$tmp/track.json" --no-plots --jobs 1 \
    --lct-baseline-match baseline >/dev/null 2>"$tmp/stderr2"
grep -q 'subject "A": more than one drive whose name holds "baseline"' "$tmp/stderr2" ||
    { echo "FAIL two baselines for A not reported:"; cat "$tmp/stderr2"; exit 1; }

# analysis study --lct-baseline-condition: the same by condition. P01 drives the baseline
# (late) first, then the normative path: adaptive 0 and 0.231; P02 drives late first and
# the baseline (late + 0.2 m) second: adaptive 0.2 and 0 (the baseline found whatever
# its position). The drives reach the study database through its journal and
# `simctl study rebuild`, as a study's own drives do.
cat >"$tmp/lct-study.json" <<'EOF'
{"format": 1, "name": "lctb", "conditions": [
  {"name": "baseline", "scenario": "track.json"}, {"name": "task", "scenario": "track.json"}],
 "participants": {"count": 2}, "design": {"type": "balanced-latin-square"}}
EOF
sd="$tmp/study"
mkdir -p "$sd"
for x in "P01 1 baseline late 0" "P01 2 task norm 0" "P02 1 task late 0" "P02 2 baseline late 0.2"; do
    set -- $x
    drive "$1" "$2" "$4" "$5"
    printf 'scenario_file,%s\n' "$tmp/track.json" >>"$tmp/drives/$1/$2/meta.csv"
    printf '{"type":"begin","participant":"%s","position":%s,"condition":"%s","attempt":1,"utc":"2026-01-01T00:00:0%sZ"}\n' \
        "$1" "$2" "$3" "$2" >>"$sd/answers.jsonl"
    printf '{"type":"end","participant":"%s","position":%s,"attempt":1,"status":"complete","log":"%s","utc":"2026-01-01T00:01:0%sZ"}\n' \
        "$1" "$2" "$tmp/drives/$1/$2" "$2" >>"$sd/answers.jsonl"
done
# the plan this test assumes: P01 baseline then task, P02 task then baseline
"$bin/simctl" study plan "$tmp/lct-study.json" | cut -d, -f1-3 | tr '\n' ' ' |
    grep -q 'P01,1,baseline P01,2,task P02,1,task P02,2,baseline' || { echo "FAIL the study's plan changed"; exit 1; }
"$bin/simctl" study rebuild "$tmp/lct-study.json" --out "$sd" >/dev/null || { echo "FAIL study rebuild"; exit 1; }
"$bin/analysis" study "$tmp/lct-study.json" --study-dir "$sd" --out "$tmp/an" --no-plots \
    --lct-baseline-condition baseline >/dev/null 2>"$tmp/stderr3" || { echo "FAIL analysis study:"; cat "$tmp/stderr3"; exit 1; }
python3 - "$tmp/an/tidy.csv" <<'EOF' || exit 1
import csv, sys
want = {("P01", "baseline"): 0.0, ("P01", "task"): 0.231, ("P02", "task"): 0.2, ("P02", "baseline"): 0.0}
got = {(r["participant"], r["condition"]): float(r["value"]) for r in csv.DictReader(open(sys.argv[1]))
       if r["measure"] == "mdev_adaptive_m"}
bad = [f"{k}: {got.get(k)} expected {v}" for k, v in want.items() if k not in got or abs(got[k] - v) > 1e-9]
if bad: print("FAIL study adaptive MDEV " + "; ".join(bad)); sys.exit(1)
EOF
out=$("$bin/analysis" study "$tmp/lct-study.json" --study-dir "$sd" --out "$tmp/an2" --no-plots \
    --lct-baseline-condition nosuch 2>&1) && { echo "FAIL an unknown condition accepted"; exit 1; }
echo "$out" | grep -q -- "--lct-baseline-condition nosuch: .*has no such condition" || { echo "FAIL unknown condition: $out"; exit 1; }
echo "ok lct baseline"
