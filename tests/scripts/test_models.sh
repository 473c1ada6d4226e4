#!/bin/sh
# The models in models/ are what scripts/make-models.py makes: a fresh run writes the
# same bytes (the generator is deterministic), and every file the generator makes is
# committed (docs/render.md, "Models").
set -eu
. "$(dirname "$0")/lib.sh"
python3 "$root/scripts/make-models.py" "$tmp/models" >"$tmp/out.txt"
n=0
for f in "$tmp"/models/*.glb; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$root/models/$name"; then
        echo "models/$name differs from a fresh scripts/make-models.py run (run it and commit)" >&2
        exit 1
    fi
    n=$((n + 1))
done
committed=$(ls "$root"/models/*.glb | wc -l)
if [ "$n" -ne "$committed" ] || [ "$n" -lt 13 ]; then
    echo "models/: $committed files committed, the generator makes $n (expected at least 13)" >&2
    exit 1
fi
echo "models: $n files as the generator makes them"
