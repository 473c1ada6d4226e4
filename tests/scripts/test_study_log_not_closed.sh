#!/bin/sh
# A drive log never closed (no end_utc: the recorder killed for good, its tail maybe
# lost) is no complete drive (issue 45; docs/drivelog.md, docs/study.md): `simctl study
# status` does not count an attempt marked complete whose log is not closed (as a runner
# from before the check wrote them) and lists it, "log not closed", as it lists a
# complete attempt whose log is gone; `analysis` warns on the log, and `analysis study`
# gives its rows status "warning" with the reason. One real 2 s drive gives a closed
# log; its copy without end_utc is the log a killed recorder leaves.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
env -u DISPLAY -u WAYLAND_DISPLAY "$bin/simctl" run "$root/scenarios/lane-change.json" --headless --until 2 --no-analysis \
    --out "$tmp/run" --bus 127.0.0.1:$P --control tcp://127.0.0.1:$C >"$tmp/run.log" 2>&1 ||
    { echo "FAIL the drive did not run"; tail "$tmp/run.log"; exit 1; }
closed=$(find "$tmp/run/logs" -name '*.sqlite' | head -1)
[ -n "$(sqlite3 "$closed" "SELECT value FROM meta WHERE key = 'end_utc'")" ] || { echo "FAIL the drive's log has no end_utc"; exit 1; }
open_log="$tmp/open.sqlite"
cp "$closed" "$open_log"
sqlite3 "$open_log" "DELETE FROM meta WHERE key = 'end_utc'"
cat >"$tmp/study.json" <<JSON
{"format": 1, "name": "nc", "conditions": [{"name": "a", "scenario": "$root/scenarios/lane-change.json"},
 {"name": "b", "scenario": "$root/scenarios/lane-change.json"}],
 "participants": {"count": 2}, "design": {"type": "balanced-latin-square"}}
JSON
sd="$tmp/study"
mkdir -p "$sd"
journal() { printf '%s\n' "$1" >>"$sd/answers.jsonl"; }
# attempt P POS COND LOG: begun and marked complete
attempt() {
    journal "{\"type\":\"begin\",\"participant\":\"$1\",\"position\":$2,\"condition\":\"$3\",\"attempt\":1,\"utc\":\"2026-01-01T00:00:0$2Z\"}"
    journal "{\"type\":\"end\",\"participant\":\"$1\",\"position\":$2,\"attempt\":1,\"status\":\"complete\",\"log\":\"$4\",\"reason\":\"\",\"utc\":\"2026-01-01T00:01:0$2Z\"}"
}
plan=$("$bin/simctl" study plan "$tmp/study.json" | cut -d, -f1-3 | tr '\n' ' ')
[ "$plan" = "participant,position,condition P01,1,a P01,2,b P02,1,b P02,2,a " ] || { echo "FAIL the plan changed: $plan"; exit 1; }
attempt P01 1 a "$closed"
attempt P01 2 b "$open_log"
attempt P02 1 b "$tmp/gone.sqlite"
"$bin/simctl" study rebuild "$tmp/study.json" --out "$sd" >"$tmp/rebuild.log" 2>&1 || { echo "FAIL study rebuild"; cat "$tmp/rebuild.log"; exit 1; }
"$bin/simctl" study status "$tmp/study.json" --out "$sd" >"$tmp/status" 2>&1 || { echo "FAIL study status"; cat "$tmp/status"; exit 1; }
cat "$tmp/status"
fails=0
want() { grep -qF -- "$1" "$tmp/status" || { echo "FAIL study status does not say: $1"; fails=$((fails + 1)); }; }
want "P01          -          1/2"
want "P02          -          0/2"
want "P01 drive 2 attempt 1: log not closed (no end_utc: its end may be lost): $open_log; not counted as done"
want "P02 drive 1 attempt 1: log missing: $tmp/gone.sqlite; not counted as done"
grep -q "P01 drive 1" "$tmp/status" && { echo "FAIL the closed log is listed"; fails=$((fails + 1)); }
# analysis: the unclosed log is warned about, the closed one is not
"$bin/analysis" report "$open_log" --out "$tmp/an-open" >/dev/null 2>"$tmp/an-open.err"
grep -q "analysis: WARNING: .*the drive log was never closed (no end_utc in its meta)" "$tmp/an-open.err" ||
    { echo "FAIL analysis does not warn on the unclosed log"; cat "$tmp/an-open.err"; fails=$((fails + 1)); }
grep -rq "never closed" --include=metrics.json "$tmp/an-open" || { echo "FAIL metrics.json has no warning"; fails=$((fails + 1)); }
"$bin/analysis" report "$closed" --out "$tmp/an-closed" >/dev/null 2>"$tmp/an-closed.err"
grep -q "never closed" "$tmp/an-closed.err" && { echo "FAIL analysis warns on the closed log"; fails=$((fails + 1)); }
# analysis study: the drive whose log is not closed has rows of status warning, saying why
"$bin/analysis" study "$tmp/study.json" --study-dir "$sd" --out "$tmp/an-study" --no-plots >/dev/null 2>"$tmp/an-study.err" ||
    { echo "FAIL analysis study"; cat "$tmp/an-study.err"; fails=$((fails + 1)); }
python3 - "$tmp/an-study/tidy.csv" <<'PY' || fails=$((fails + 1))
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def of(p, pos): return [r for r in rows if (r["participant"], r["position"]) == (p, pos)]
bad = [r for r in of("P01", "2") if r["status"] != "warning" or "never closed" not in r["reason"]]
good = [r for r in of("P01", "1") if r["status"] == "warning" and "never closed" in r["reason"]]
if not of("P01", "2") or bad or good:
    print("FAIL tidy.csv: P01 drive 2 rows %d (%d not a 'never closed' warning), P01 drive 1 rows warned %d" %
          (len(of("P01", "2")), len(bad), len(good)))
    sys.exit(1)
print("ok   tidy.csv: P01 drive 2's %d rows are warnings: %s" % (len(of("P01", "2")), of("P01", "2")[0]["reason"]))
PY
[ $fails -eq 0 ] && echo "ok   study status: 1 of P01's 2 drives done (its second's log not closed), P02's missing log listed; analysis warns"
[ $fails -eq 0 ]
