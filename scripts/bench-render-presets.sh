#!/bin/sh
# Draws rural and town at each quality preset with render-node's --bench-frames and
# prints each run's statistics (fps, p99, CPU per frame, triangles, draw calls): the
# presets on whatever GL the machine has, e.g. a real GPU, where bench_render's
# side-by-side runs target llvmpipe. Usage: scripts/bench-render-presets.sh OUTDIR
# [FRAMES]; RENDER_NODE overrides bin/render-node. Run from the repository root.
set -u
out=${1:?usage: scripts/bench-render-presets.sh OUTDIR [FRAMES]}
frames=${2:-600}
exe=${RENDER_NODE:-bin/render-node}
mkdir -p "$out"
status=0
for s in rural town; do
    for q in low medium high; do
        if SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen} timeout 300 "$exe" --scenario "scenarios/$s.json" \
            --bench-frames "$frames" --quality "$q" --stats-file "$out/$s-$q.json" >"$out/$s-$q.log" 2>&1; then
            echo "$s $q $(cat "$out/$s-$q.json")"
        else
            echo "$s $q: render-node failed, see $out/$s-$q.log" >&2
            status=1
        fi
    done
done
exit $status
