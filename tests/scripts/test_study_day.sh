#!/bin/sh
# The study day's phases (docs/study.md, "The day"): a two-drive study at a desk (not
# headless) waits for the operator's go before the first drive and again before drive
# 2 (`simctl study go`), goes through waiting, instructions, driving, ready,
# instructions, driving and ends on done; with auto_go it needs no go at all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/study_day.sh"
unset DISPLAY WAYLAND_DISPLAY
P=$(free_port)
C=$(free_port)
study() { # FILE AUTO_GO [QUESTIONNAIRES]
    cat >"$1" <<JSON
{"name": "day-test", "auto_go": $2, "questionnaires": [${3:-}],
 "conditions": [
   {"name": "a", "scenario": "$root/scenarios/motorway.json", "start": "motorway", "until_s": 2,
    "instructions": "Drive a: keep your lane.", "params": {"light": "day", "traffic_density": 0}},
   {"name": "b", "scenario": "$root/scenarios/motorway.json", "start": "motorway", "until_s": 2,
    "instructions": "Drive b: keep your lane.", "params": {"light": "day", "traffic_density": 0}}],
 "participants": {"count": 1}, "design": {"type": "explicit", "orders": [["a", "b"]]},
 "instructions": {"welcome": "Welcome: please take a seat.", "end": "Thank you for taking part."}}
JSON
}

# the day ends with a final questionnaire (answered from the terminal below)
study "$tmp/s.json" false '{"id": "final", "when": "at_end", "instruments": ["kss"],
   "items": [{"id": "remarks", "type": "text", "text": "Anything else?"}]}'
# simctl study answer with no runner says what it waits on, and gives up at --timeout
"$bin/simctl" study answer "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 4 kss=3 \
    >"$tmp/ans0.txt" 2>&1 && { echo "FAIL study answer without a runner exited 0"; exit 1; }
grep -q "no dispatcher answers on 127.0.0.1:$P" "$tmp/ans0.txt" ||
    { echo "FAIL study answer without a runner said:"; cat "$tmp/ans0.txt"; exit 1; }
echo "ok study answer without a runner says so"
"$bin/simctl" study run "$tmp/s.json" --participant P01 --out "$tmp/out" --bus "127.0.0.1:$P" \
    --control "tcp://127.0.0.1:$C" >"$tmp/run.log" 2>&1 &
runner=$!
pids="$pids $runner"
wait_log "$tmp/run.log" "phase waiting" 30
# before its questionnaire: where the participant's day stands
"$bin/simctl" study answer "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 4 kss=3 \
    >"$tmp/ans1.txt" 2>&1 && { echo "FAIL study answer with no questionnaire pending exited 0"; exit 1; }
grep -q "P01 is at drive 1 of 2, phase waiting: waiting for the questionnaire" "$tmp/ans1.txt" ||
    { echo "FAIL study answer in phase waiting said:"; cat "$tmp/ans1.txt"; exit 1; }
echo "ok study answer says where the day stands while no questionnaire is pending"
go_drive 1 a
grep -q "P01 is at drive 1 of 2, phase waiting: waiting for the experimenter to start drive 1 of 2" "$tmp/go1.txt" ||
    { echo "FAIL go 1 did not say what the day waited on:"; cat "$tmp/go1.txt"; exit 1; }
wait_log "$tmp/run.log" "phase ready" 60
# Drive 1 is over and the runner holds: drive 2 has not begun.
[ "$(attempts 1)" = 1 ] && [ "$(attempts 2)" = 0 ] ||
    { echo "FAIL at the gate: attempts of drive 1: $(attempts 1), drive 2: $(attempts 2)"; exit 1; }
grep -q "ready before drive 2: waiting for the operator's go" "$tmp/run.log" || { echo "FAIL no gate message"; exit 1; }
# The analysis of a study in progress: its tables, how many drives are missing, exit 0;
# --complete makes that a failure.
"$bin/analysis" study "$tmp/s.json" --study-dir "$tmp/out" --out "$tmp/an" --no-plots >/dev/null 2>"$tmp/an.txt" ||
    { echo "FAIL analysis study of a study in progress:"; cat "$tmp/an.txt"; exit 1; }
grep -q "1 of 2 planned drives not in the tables (1 missing, 0 flagged)" "$tmp/an.txt" ||
    { echo "FAIL analysis study said:"; cat "$tmp/an.txt"; exit 1; }
[ -s "$tmp/an/tidy.csv" ] || { echo "FAIL no tidy.csv of the study in progress"; exit 1; }
"$bin/analysis" study "$tmp/s.json" --study-dir "$tmp/out" --out "$tmp/an" --no-plots --complete >/dev/null 2>&1 &&
    { echo "FAIL analysis study --complete passed a study in progress"; exit 1; }
echo "ok analysis study of a study in progress exits 0, --complete 1"
go_drive 2 b
grep -q "P01 is at drive 2 of 2, phase ready: waiting for the experimenter to start drive 2 of 2" "$tmp/go2.txt" ||
    { echo "FAIL go 2 did not say what the day waited on:"; cat "$tmp/go2.txt"; exit 1; }
echo "ok simctl study go says what the day waits on before it gives the go"
wait_log "$tmp/run.log" "phase questionnaire" 60
# A go while the test person answers the final questionnaire: it says what the day
# waits on, sends nothing, and gives up at --timeout saying it again.
"$bin/simctl" study go "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 3 >"$tmp/go3.txt" 2>&1 &&
    { echo "FAIL a go during the final questionnaire exited 0:"; cat "$tmp/go3.txt"; exit 1; }
grep -q "P01 is at drive 2 of 2, phase questionnaire: waiting for the test person's answers to final (after drive 2 of 2)" \
    "$tmp/go3.txt" && grep -q "no go was wanted in time: P01 was still waiting for the test person's answers to final" \
    "$tmp/go3.txt" || { echo "FAIL a go during the final questionnaire said:"; cat "$tmp/go3.txt"; exit 1; }
echo "ok simctl study go during a questionnaire says the day waits on the test person's answers"
# KSS skipped, the remark left empty: both stored as missing
"$bin/simctl" study answer "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 30 kss=skip remarks= \
    >"$tmp/ans2.txt" 2>&1 || { echo "FAIL the final answers:"; cat "$tmp/ans2.txt"; exit 1; }
day_done "waiting instructions driving ready instructions driving questionnaire done "
rows=$(sqlite3 "$tmp/out/study.db" "SELECT position, status, item, quote(value), quote(text) FROM answers
    WHERE participant = 'P01' AND questionnaire = 'final' ORDER BY item" | tr '\n' ' ')
[ "$rows" = "2|answered|kss|NULL|NULL 2|answered|remarks|NULL|NULL " ] ||
    { echo "FAIL the final questionnaire's rows: '$rows'"; exit 1; }
echo "ok a study waits for the operator's go before each drive and ends on done, its final answers stored as given"

# auto_go: the same day without a go, started from another folder than the project's
# (the default vehicle was "cannot open" from anywhere else)
rm -rf "$tmp/out"
study "$tmp/s.json" true
(cd "$tmp" && "$bin/simctl" study run "$tmp/s.json" --participant P01 --out "$tmp/out" --bus "127.0.0.1:$P" \
    --control "tcp://127.0.0.1:$C") >"$tmp/run2.log" 2>&1 ||
    { echo "FAIL auto_go run from $tmp:"; tail -n 30 "$tmp/run2.log"; exit 1; }
phases=$(sed -n 's/^simctl study: phase //p' "$tmp/run2.log" | tr '\n' ' ')
want="instructions driving instructions driving done "
[ "$phases" = "$want" ] || { echo "FAIL auto_go phases: '$phases', expected '$want'"; exit 1; }
echo "ok auto_go: no go needed, started outside the project's folder"
