#!/bin/sh
# Builds what bench/bench_sumo.c needs and runs its large case: 1,000 and 10,000 SUMO
# vehicles at 100 Hz and 10 Hz, ten times the ticks of `make bench` (docs/performance.md,
# "SUMO co-simulation"). Meant for a quiet machine (the lead's 16 cores): it prints the
# machine, its load and SUMO's version first, so the figures can be filed with them.
# Usage: sh scripts/bench-sumo-device.sh [SCALE]   (SCALE: ticks times, default 10)
# Needs Debian 12's build packages and SUMO (`sh scripts/deps.sh` installs them).
set -eu
cd "$(dirname "$0")/.."
scale=${1:-10}
missing=""
for p in cc make pkg-config sumo netgenerate; do
    command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "bench-sumo-device: not found:$missing; run \`sh scripts/deps.sh\` (it installs build-essential," \
         "pkg-config, the libraries, sumo and sumo-tools) and try again" >&2
    exit 1
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" bin/dispatcher bin/traffic-node build/bench/bench_sumo
echo "== $(uname -n): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); $(sumo --version 2>/dev/null | head -n 1)"
echo "== build/bench/bench_sumo $scale"
SIM_BIN="$PWD/bin" SIM_ROOT="$PWD" build/bench/bench_sumo "$scale"
