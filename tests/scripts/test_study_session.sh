#!/bin/sh
# A study file's "session" section (docs/study.md, "The session"): `simctl study run`
# starts each drive as the lab needs it, here fullscreen on a virtual display (Xvfb)
# with the scripted driver, and the console once for the whole day; the operator's go
# (`simctl study go`) starts drive 2 and nothing does before. `study check` names a
# bad session field; the command line overrides the file. The driver's screen is never
# the bare desktop: before and between drives it shows the study's page (render-node
# --study-screen), read back from Xvfb's frame buffer (SIM_SCREENSHOT_DIR=DIR keeps it
# as DIR/study-driver-between-drives.png).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/study_day.sh"
command -v Xvfb >/dev/null || { echo "FAIL Xvfb is not installed (scripts/deps.sh)"; exit 1; }
command -v xdotool >/dev/null || { echo "FAIL xdotool is not installed (scripts/deps.sh)"; exit 1; }
P=$(free_port)
C=$(free_port)
W=$(free_port)
study() { # SESSION
    cat >"$tmp/s.json" <<JSON
{"name": "session-test",
 "session": $1,
 "conditions": [
   {"name": "a", "scenario": "$root/scenarios/motorway.json", "start": "motorway", "until_s": 8,
    "instructions": "Drive a: keep your lane.", "params": {"traffic_density": 0}},
   {"name": "b", "scenario": "$root/scenarios/motorway.json", "start": "motorway", "until_s": 8,
    "instructions": "Drive b: keep your lane.", "params": {"traffic_density": 0}}],
 "participants": {"count": 1}, "design": {"type": "explicit", "orders": [["a", "b"]]},
 "instructions": {"welcome": "Welcome: please take a seat.", "end": "Thank you for taking part."}}
JSON
}

# study check names the field
study '{"quality": "ultra"}'
"$bin/simctl" study check "$tmp/s.json" >"$tmp/check.txt" 2>&1 && { echo "FAIL check passed quality ultra"; exit 1; }
grep -q 'session.quality: found "ultra", expected one of: low, medium, high' "$tmp/check.txt" ||
    { echo "FAIL check said:"; cat "$tmp/check.txt"; exit 1; }
study '{"screens": "no-such-screens.json"}'
"$bin/simctl" study check "$tmp/s.json" >"$tmp/check.txt" 2>&1 && { echo "FAIL check passed a missing screens file"; exit 1; }
grep -q "s.json: session.screens: $tmp/no-such-screens.json: cannot open" "$tmp/check.txt" ||
    { echo "FAIL check said:"; cat "$tmp/check.txt"; exit 1; }
"$bin/simctl" study run "$tmp/s.json" --participant P01 --out "$tmp/out" --screens "$root/config/no-such.json" \
    >"$tmp/cli.txt" 2>&1 && { echo "FAIL study run took a missing --screens"; exit 1; }
grep -q "^simctl study run: --screens: " "$tmp/cli.txt" || { echo "FAIL study run said:"; cat "$tmp/cli.txt"; exit 1; }
echo "ok study check and study run name the bad session field"

# A virtual desktop: Xvfb picks a free display and says which
mkdir "$tmp/fb"
Xvfb -displayfd 1 -screen 0 1024x768x24 -nolisten tcp -fbdir "$tmp/fb" >"$tmp/xdisplay" 2>"$tmp/xvfb.log" &
pids="$pids $!"
n=0
until [ -s "$tmp/xdisplay" ]; do
    n=$((n + 1)); [ $n -le 100 ] || { echo "FAIL Xvfb did not start:"; cat "$tmp/xvfb.log"; exit 1; }
    sleep 0.1
done
DISPLAY=:$(cat "$tmp/xdisplay")
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's: a version manager's shim costs seconds a call under load
# screen_shows PAGE|VIEW SECONDS [PNG]: until the screen is the study's calm page with
# text on it (PAGE) or mostly something else (VIEW: the drive's view over it)
screen_shows() {
    end=$(($(date +%s) + $2))
    while :; do
        s=$($py "$root/tests/scripts/xvfb_screen.py" "$tmp/fb/Xvfb_screen0" $3)
        calm=$(echo "$s" | sed 's/.*calm=\([0-9.]*\).*/\1/')
        bright=$(echo "$s" | sed 's/.*bright=\([0-9.]*\).*/\1/')
        if [ "$1" = PAGE ]; then
            awk -v c="$calm" -v b="$bright" 'BEGIN { exit !(c > 0.8 && b > 0.0005) }' && return 0
        else
            awk -v c="$calm" 'BEGIN { exit !(c < 0.2) }' && return 0
        fi
        [ "$(date +%s)" -le "$end" ] || { echo "FAIL the screen is not the $1 within $2 s: $s"; exit 1; }
        sleep 0.2
    done
}
export DISPLAY
unset WAYLAND_DISPLAY

# the file says fullscreen, display 0, the console, the scripted driver; the command
# line's --quality overrides the file's "high"
study "{\"fullscreen\": true, \"display\": 0, \"console\": \"127.0.0.1:$W\", \"driver\": \"script\", \"quality\": \"high\"}"
"$bin/simctl" study check "$tmp/s.json" >"$tmp/check.txt" 2>&1 || { echo "FAIL check:"; cat "$tmp/check.txt"; exit 1; }
"$bin/simctl" study run "$tmp/s.json" --participant P01 --out "$tmp/out" --bus "127.0.0.1:$P" \
    --control "tcp://127.0.0.1:$C" --quality low >"$tmp/run.log" 2>&1 &
runner=$!
pids="$pids $runner"
wait_log "$tmp/run.log" "phase waiting" 30
wait_log "$tmp/run.log" "study screen: waiting" 30
screen_shows PAGE 20
wait_log "$tmp/run.log" "console at http://127.0.0.1:$W/" 5
page() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$W/"; }
n=0
until [ "$(page)" = 200 ]; do
    n=$((n + 1)); [ $n -le 100 ] || { echo "FAIL the console does not answer on $W:"; tail -n 20 "$tmp/run.log"; exit 1; }
    sleep 0.1
done
[ "$(attempts 1)" = 0 ] || { echo "FAIL drive 1 began before the go"; exit 1; }
go_drive 1 a
wait_log "$tmp/run.log" "phase driving" 60
# The driver's view: a window as big as the screen at its corner (SDL maps it at its
# size first, then makes it fullscreen)
geo=""
n=0
until echo "$geo" | grep -q "Position: 0,0 .*Geometry: 1024x768"; do
    n=$((n + 1)); [ $n -le 300 ] || { echo "FAIL the driver's view is not fullscreen on $DISPLAY: '$geo'"; exit 1; }
    sleep 0.1
    geo=$(for w in $(xdotool search --name '^render-node$' 2>/dev/null); do xdotool getwindowgeometry "$w"; done | tr '\n' ' ')
done
screen_shows VIEW 30 # (8 s drives: under heavy load a drive's window has drawn little of 5 s)
# the drive's simctl run got the file's options, and the command line's --quality
args=$(ps -o args= --ppid "$runner" | grep "simctl run")
echo "$args" | grep -q -- "--driver script --fullscreen --display 0 --quality low" ||
    { echo "FAIL the drive was started as: $args"; exit 1; }
echo "ok the driver's view is fullscreen on the virtual display ($geo)"
wait_log "$tmp/run.log" "phase ready" 60
wait_log "$tmp/run.log" "study screen: ready" 30
shot=""
[ -n "$SIM_SCREENSHOT_DIR" ] && shot="$SIM_SCREENSHOT_DIR/study-driver-between-drives.png"
screen_shows PAGE 20 $shot
echo "ok before and between drives the driver's screen shows the study's page, during them the drive"
[ "$(attempts 1)" = 1 ] && [ "$(attempts 2)" = 0 ] ||
    { echo "FAIL at the gate: attempts of drive 1: $(attempts 1), drive 2: $(attempts 2)"; exit 1; }
[ "$(page)" = 200 ] || { echo "FAIL the console is gone between drives"; exit 1; }
go_drive 2 b
day_done
echo "ok a study with a session section drives fullscreen with the console; the go starts drive 2"
