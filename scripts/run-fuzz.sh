#!/bin/sh
# Runs each libFuzzer target for the given number of seconds, starting from the seed
# corpus in fuzz/corpus/<name>/ (copied, so the repository's seeds stay as they are).
# Exit status 1 when a target finds a crash, leak or timeout.
# FUZZ_SEED=N makes a pass repeatable (CI uses a fixed seed, so that a red CI points at
# a change, not at luck); unset, every pass explores anew.
set -u
secs=$1; shift
seed_opt=""
[ -n "${FUZZ_SEED:-}" ] && seed_opt="-seed=$FUZZ_SEED"
status=0
for f in "$@"; do
    name=$(basename "$f")
    work=$(mktemp -d)
    [ -d "fuzz/corpus/$name" ] && cp -r "fuzz/corpus/$name/." "$work/" 2>/dev/null
    echo "== $name for ${secs}s"
    # rss_limit: a scenario may legitimately take its 120 MB road budget per input and
    # ASan's quarantine keeps freed memory for a while; 2 GB (the default) was seen
    # within reach in an 8 s run (1.5 GB), 4 GB is far above anything normal.
    # shellcheck disable=SC2086
    if ! "$f" $seed_opt -max_total_time="$secs" -max_len=70000 -print_final_stats=1 -rss_limit_mb=4096 \
            -artifact_prefix="build/fuzz/$name-" "$work" >"build/fuzz/$name.log" 2>&1; then
        status=1
        echo "$name FAILED: see build/fuzz/$name.log"
    fi
    tail -n 8 "build/fuzz/$name.log"
    rm -rf "$work"
done
exit $status
