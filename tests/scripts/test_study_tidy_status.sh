#!/bin/sh
# analysis study: tidy.csv's status and reason columns (docs/study.md, "Analysis"). Four
# drives of a two-condition study reach its database through the journal and `simctl
# study rebuild`: P01's first has a stall event inside its task (its rows: warning, the
# reason naming the stall), P01's second is clean (ok), P02's first is flagged by the
# operator (flagged, the flag's reason), P02's second only ever aborted, its log linked
# (aborted, the abort's reason). The page's tables take only the ok and warning drives;
# it lists P01's warning once and opens on the primary measures (SDLP, mean speed).
. "$(dirname "$0")/lib.sh"
cat >"$tmp/track.json" <<'JSON'
{"format": 1, "name": "status",
 "roads": [{"id": "r", "start": {"x": 0, "y": 0, "heading_deg": 0},
            "segments": [{"type": "line", "length": 600}], "lanes": {"right": [{"width": 3.5}]}}],
 "tasks": [{"id": "T", "road": "r", "s_start": 0, "s_end": 500, "tube_half_width": 1,
            "ideal": {"points": [[0, -1.75], [500, -1.75]]}}]}
JSON
cat >"$tmp/study.json" <<'JSON'
{"format": 1, "name": "st", "conditions": [{"name": "a", "scenario": "track.json"}, {"name": "b", "scenario": "track.json"}],
 "participants": {"count": 2}, "design": {"type": "balanced-latin-square"}}
JSON
sd="$tmp/study"
mkdir -p "$sd"
# drive P POS: a CSV drive log, 60 s at 10 m/s in the lane's middle
drive() {
    dir="$tmp/drives/$1-$2"
    mkdir -p "$dir"
    printf 'key,value\nsubject,%s\nstudy,st\nscenario_file,%s\n' "$1" "$tmp/track.json" >"$dir/meta.csv"
    awk 'BEGIN { print "run,tick,t,s,d,speed"; for (i = 0; i <= 1200; i++) printf "0,%d,%.2f,%.1f,-1.75,10\n", i, i * 0.05, i * 0.5 }' \
        >"$dir/samples.csv"
}
journal() { printf '%s\n' "$1" >>"$sd/answers.jsonl"; }
begin() {
    journal "{\"type\":\"begin\",\"participant\":\"$1\",\"position\":$2,\"condition\":\"$3\",\"attempt\":1,\"utc\":\"2026-01-01T00:00:0$2Z\"}"
}
finish() {
    journal "{\"type\":\"end\",\"participant\":\"$1\",\"position\":$2,\"attempt\":1,\"status\":\"$3\",\"log\":\"$tmp/drives/$1-$2\",\"reason\":\"$4\",\"utc\":\"2026-01-01T00:01:0$2Z\"}"
}
plan=$("$bin/simctl" study plan "$tmp/study.json" | cut -d, -f1-3 | tr '\n' ' ')
[ "$plan" = "participant,position,condition P01,1,a P01,2,b P02,1,b P02,2,a " ] || { echo "FAIL the plan changed: $plan"; exit 1; }
for d in "P01 1" "P01 2" "P02 1" "P02 2"; do drive $d; done
printf 'run,t,kind,name,json\n0,20.0,stall,dispatcher,"{""ms"":900}"\n' >"$tmp/drives/P01-1/events.csv"
begin P01 1 a; finish P01 1 complete ""
begin P01 2 b; finish P01 2 complete ""
begin P02 1 b; finish P02 1 complete ""
journal '{"type":"flag","participant":"P02","position":1,"text":"fell asleep"}'
begin P02 2 a; finish P02 2 aborted "simulator crashed"
"$bin/simctl" study rebuild "$tmp/study.json" --out "$sd" >/dev/null || { echo "FAIL study rebuild"; exit 1; }
"$bin/analysis" study "$tmp/study.json" --study-dir "$sd" --out "$tmp/an" --no-plots >"$tmp/stdout" 2>"$tmp/stderr" ||
    { echo "FAIL analysis study:"; cat "$tmp/stderr"; exit 1; }
python3 - "$tmp/an/tidy.csv" "$tmp/an/study.html" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {("P01", "1"): ("warning", "stall"), ("P01", "2"): ("ok", ""), ("P02", "1"): ("flagged", "fell asleep"),
        ("P02", "2"): ("aborted", "simulator crashed")}
bad = []
for key, (st, why) in want.items():
    got = [r for r in rows if (r["participant"], r["position"]) == key]
    if not got:
        bad.append(f"{key}: no rows")
        continue
    for r in got:
        if r["status"] != st or why not in r["reason"] or (not why and r["reason"]):
            bad.append(f"{key} {r['measure']}: status {r['status']!r} reason {r['reason']!r}, expected {st} with {why!r}")
            break
if not rows or len(rows) % 4:
    bad.append(f"{len(rows)} rows, expected the same measures for each of 4 drives")
# the page's tables: n counts the ok and warning drives only (one per condition)
page = open(sys.argv[2]).read()
if "<td>a</td><td>1</td>" not in page or "<td>b</td><td>1</td>" not in page:
    bad.append("the page's n is not 1 per condition")
# the page lists the warning once per drive and task, and opens on the primary measures
import re
warn = page.split("<h2>Warnings</h2>")[1].split("</table>")[0]
if warn.count("<tr>") != 2 or "<td>P01</td><td>1</td><td>a</td><td>T</td>" not in warn or "stall" not in warn:
    bad.append("the page's warnings: " + warn)
heads = re.findall(r"<h3>(.*?)</h3>", page)
if heads[:2] != ["T: sdlp_m", "T: speed_mean_ms"]:
    bad.append(f"the page opens on {heads[:2]}, expected T: sdlp_m, T: speed_mean_ms")
if bad:
    print("FAIL " + "; ".join(bad[:4]))
    sys.exit(1)
PY
echo "ok tidy.csv status and reason; the page lists the warning and opens on SDLP and mean speed"
