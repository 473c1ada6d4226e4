#!/bin/sh
# The screenshot set of docs/render.md: every shipped scenario (scenarios/*.json) at its
# first start point by day, at dusk, at night and in rain, and the shared Town03
# (../shared/opendrive/Town03.xodr, through the starter scenario simctl import-xodr
# writes), drawn offscreen by render-node at 640x360 with the medium preset.
#   sh scripts/render-screenshots.sh [OUTDIR]      (default docs/img/scenes; needs `make`)
# Fails naming the picture that could not be made.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-docs/img/scenes}
bin=${SIM_BIN:-$root/bin}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/render-screenshots-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
shoot() { # NAME SCENARIO
    for look in day dusk night rain; do
        case $look in
            rain) opts="--light day --weather rain" ;;
            *) opts="--light $look --weather clear" ;;
        esac
        # shellcheck disable=SC2086
        if ! "$bin/render-node" --scenario "$2" --screenshot "$out/$1-$look.png" --size 640x360 --quality medium \
            $opts 2>"$tmp/err"; then
            echo "render-screenshots: $out/$1-$look.png: $(cat "$tmp/err")" >&2
            exit 1
        fi
    done
}
for s in scenarios/*.json; do
    shoot "$(basename "$s" .json)" "$s"
done
town03=${TOWN03:-../shared/opendrive/Town03.xodr}
"$bin/simctl" import-xodr "$town03" --out "$tmp/town03.json" >/dev/null
shoot town03 "$tmp/town03.json"
ls "$out"/*.png | wc -l | sed 's/$/ pictures in '"$(echo "$out" | sed 's/\//\\\//g')"'/'
