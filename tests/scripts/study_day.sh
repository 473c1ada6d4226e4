# study_day.sh: what the study-day shell tests share (test_study_day.sh,
# test_study_session.sh), sourced after lib.sh (not run): a two-drive study $tmp/s.json
# run for P01 by the runner $runner into $tmp/out, its log $tmp/run.log, the bus on $P.

# wait_log FILE TEXT SECONDS: until FILE has a line with TEXT (polled; the deadline fails)
wait_log() {
    n=0
    until grep -q "$2" "$1" 2>/dev/null; do
        n=$((n + 1))
        [ $n -le $(($3 * 10)) ] || { echo "FAIL no '$2' in $1 within $3 s:"; tail -n 30 "$1"; exit 1; }
        sleep 0.1
    done
}
attempts() { sqlite3 "$tmp/out/study.db" "SELECT count(*) FROM attempts WHERE position = $1"; }

# go_drive K CONDITION: the operator's go, answered "drive K of 2 (CONDITION) starting"
go_drive() {
    "$bin/simctl" study go "$tmp/s.json" --participant P01 --bus "127.0.0.1:$P" --timeout 60 >"$tmp/go$1.txt" 2>&1 ||
        { echo "FAIL go $1:"; cat "$tmp/go$1.txt"; tail -n 30 "$tmp/run.log"; exit 1; }
    grep -q "drive $1 of 2 ($2) starting" "$tmp/go$1.txt" || { echo "FAIL go $1 said:"; cat "$tmp/go$1.txt"; exit 1; }
}

# day_done [PHASES]: the runner ended with status 0 after every phase of the two drives,
# in order (PHASES, else those of a day without questionnaires), and both drives are
# complete in the study database
day_done() {
    wait "$runner"
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL the runner ended with $rc:"; tail -n 30 "$tmp/run.log"; exit 1; }
    phases=$(sed -n 's/^simctl study: phase //p' "$tmp/run.log" | tr '\n' ' ')
    want=${1:-"waiting instructions driving ready instructions driving done "}
    [ "$phases" = "$want" ] || { echo "FAIL phases: '$phases', expected '$want'"; exit 1; }
    complete=$(sqlite3 "$tmp/out/study.db" "SELECT count(*) FROM attempts WHERE status = 'complete'")
    [ "$complete" = 2 ] || { echo "FAIL $complete complete drives, expected 2"; exit 1; }
}
