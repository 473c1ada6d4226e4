#!/bin/sh
# simctl export --mcap (docs/drivelog.md, "MCAP"): a headless drive exported to MCAP and
# read back by @mcap/core (tests/browser/read_mcap.mjs, the reader Foxglove's tools use):
# the channels and their JSON schemas, message counts equal to the log's rows, the
# first and last sample equal to the log's, chunk and summary CRCs checked, zstd and
# uncompressed chunks, every bus message of a --record-all drive on its topic's channel; a
# flipped byte in a chunk is refused by the reader.
. "$(dirname "$0")/lib.sh"
P=$(free_port)
C=$(free_port)
"$bin/simctl" run "$root/scenarios/lane-change.json" --headless --until 6 --no-analysis --record-all --out "$tmp/out" \
    --bus "127.0.0.1:$P" --control "tcp://127.0.0.1:$C" >"$tmp/run.log" 2>&1 ||
    { echo "FAIL the drive:"; tail -n 20 "$tmp/run.log"; exit 1; }
log=$(ls "$tmp"/out/logs/*/*.sqlite | head -n 1)
# --record-all: the recorder kept every bus message (its messages table), one channel each.
sqlite3 -json "$log" "SELECT topic, count(*) AS n FROM messages GROUP BY topic" >"$tmp/topics.json"
samples=$(sqlite3 "$log" "SELECT count(*) FROM samples")
events=$(sqlite3 "$log" "SELECT count(*) FROM events")
first=$(sqlite3 "$log" "SELECT t || ' ' || x FROM samples ORDER BY run, tick LIMIT 1")
last=$(sqlite3 "$log" "SELECT t || ' ' || x FROM samples ORDER BY run DESC, tick DESC LIMIT 1")
for mode in zstd uncompressed; do
    flag=""; [ $mode = uncompressed ] && flag=--uncompressed
    "$bin/simctl" export "$log" --mcap "$tmp/$mode.mcap" $flag >"$tmp/export.txt" 2>&1 ||
        { echo "FAIL export $mode:"; cat "$tmp/export.txt"; exit 1; }
    (cd "$root/tests/browser" && node read_mcap.mjs "$tmp/$mode.mcap") >"$tmp/$mode.json" 2>"$tmp/read.err" ||
        { echo "FAIL @mcap/core could not read the $mode export:"; cat "$tmp/read.err"; exit 1; }
    python3 - "$tmp/$mode.json" "$mode" "$samples" "$events" "$first" "$last" "$tmp/topics.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1])); mode = sys.argv[2]; samples, events = int(sys.argv[3]), int(sys.argv[4])
first, last = [tuple(map(float, a.split())) for a in sys.argv[5:7]]
want = {"samples": samples, "events": events}
topics = {r["topic"]: r["n"] for r in json.load(open(sys.argv[7]))}
if not {"sim.tick", "vehicle.state", "input.controls"} <= topics.keys(): print(f"FAIL {mode}: --record-all kept {topics}"); sys.exit(1)
want.update(topics)
def fail(what):
    print(f"FAIL {mode}: {what}: {json.dumps(d)[:600]}"); sys.exit(1)
if d["counted"] != want: fail(f"messages read {d['counted']}, the log has {want}")
if d["statistics"]["perChannel"] != want or d["statistics"]["messages"] != sum(want.values()): fail("statistics")
if d["streamed"] != sum(want.values()) or not d["dataEnd"] or not d["footer"]: fail("the linear read")
ch = d["channels"]
if any(c["encoding"] != "json" or c["schemaEncoding"] != "jsonschema" for c in ch.values()): fail("encodings")
if ch["samples"]["schemaTypes"] != 26: fail("the samples schema names every column")
for name, row, ref in (("first", d["first"], first), ("last", d["last"], last)):
    # (sqlite3's shell prints 15 significant digits)
    if abs(row["t"] - ref[0]) > 1e-9 or abs(row["x"] - ref[1]) > 1e-9 or int(row["logTime"]) != round(ref[0] * 1e9):
        fail(f"{name} sample {row} vs {ref}")
if not d["ordered"]: fail("log times out of order")
if d["compression"] != (["zstd"] if mode == "zstd" else [""]): fail("chunk compression")
print(f"ok {mode}: {samples} samples, {events} events, {sum(topics.values())} bus messages on {len(topics)} topics in {d['chunks']} chunks")
PY
done
# A byte flipped inside the first message of an uncompressed chunk: the chunk's CRC fails.
python3 - "$tmp/uncompressed.mcap" "$tmp/bad.mcap" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b'"tick":0,') + 7
b[at] ^= 0x01
open(sys.argv[2], "wb").write(b)
PY
(cd "$root/tests/browser" && node read_mcap.mjs "$tmp/bad.mcap") >/dev/null 2>"$tmp/bad.err" &&
    { echo "FAIL a corrupted chunk was read without complaint"; exit 1; }
grep -qi "crc" "$tmp/bad.err" || { echo "FAIL the corrupted chunk was refused, but not for its CRC:"; cat "$tmp/bad.err"; exit 1; }
echo "ok a flipped byte: $(grep -io 'incorrect[^.]*crc[^)]*)' "$tmp/bad.err" | head -n 1)"
"$bin/simctl" export "$log" --mcap "$tmp/zstd.mcap" >/dev/null 2>"$tmp/exists.txt" &&
    { echo "FAIL an existing file was overwritten without --force"; exit 1; }
grep -q "exists; give --force" "$tmp/exists.txt" || { echo "FAIL said:"; cat "$tmp/exists.txt"; exit 1; }
echo "ok export mcap"
