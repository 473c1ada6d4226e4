#!/bin/sh
# A whole study day at a virtual desktop, for the pictures of docs/study.md ("A study
# day at the desktop"): not a test (make test does not run it; about 10 min on an idle
# machine). Xvfb 1024x768 is the driver's screen; tests/browser/study-day.mjs runs three
# participants of studies/example.json's conditions (8 s drives, the scripted driver)
# with the console and the tablet in Chromium, P02 killed in drive 2 and resumed.
#   sh tests/scripts/study_day_desktop.sh DIR   -> DIR/shots/*.png, DIR/phases.txt, DIR/an
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${SIM_BIN:-$root/bin}
dir=${1:?usage: study_day_desktop.sh DIR}
rm -rf "$dir" && mkdir -p "$dir/fb" || exit 1
dir=$(cd "$dir" && pwd)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
P=$(port); C=$(port); W=$(port)
python3 - "$root" "$dir/study.json" "127.0.0.1:$W" <<'PY'
import json, sys
root, out, console = sys.argv[1:]
d = json.load(open(root + "/studies/example.json"))
for c in d["conditions"]:
    c["scenario"] = root + "/scenarios/motorway.json"
    c["until_s"] = 8
d["session"] = {"fullscreen": True, "display": 0, "console": console, "driver": "script", "quality": "low"}
json.dump(d, open(out, "w"), indent=1)
PY
Xvfb -displayfd 1 -screen 0 1024x768x24 -nolisten tcp -fbdir "$dir/fb" >"$dir/xdisplay" 2>"$dir/xvfb.log" &
X=$!
n=0
until [ -s "$dir/xdisplay" ]; do n=$((n + 1)); [ $n -le 100 ] || { echo "Xvfb did not start"; exit 1; }; sleep 0.1; done
export DISPLAY=:$(cat "$dir/xdisplay")
unset WAYLAND_DISPLAY
"$bin/simctl" study check "$dir/study.json"
cd "$root/tests/browser" &&
    SIM_ROOT=$root SIM_BIN=$bin DAY_DIR=$dir DAY_BUS=127.0.0.1:$P DAY_CONTROL=tcp://127.0.0.1:$C \
    DAY_CONSOLE=127.0.0.1:$W DAY_FB=$dir/fb/Xvfb_screen0 node study-day.mjs
rc=$?
"$bin/simctl" study status "$dir/study.json" --out "$dir/out"
"$bin/analysis" study "$dir/study.json" --study-dir "$dir/out" --out "$dir/an" >"$dir/analysis.txt" 2>&1
echo "analysis study: rc $? ($(tail -n 1 "$dir/analysis.txt"))"
kill $X
exit $rc
