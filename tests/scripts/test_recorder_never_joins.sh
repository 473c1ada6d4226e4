#!/bin/sh
# A session whose recorder never joins the bus (issue 45) ends non-zero and says why.
# simctl is copied into a bin directory of its own (it starts the modules beside it)
# whose "recorder" is a stand-in: (1) one that runs but never joins: physics' clock
# waits for the recorder, so without --join-s the session would wait for ever; with
# --join-s 3 it ends with status 3 naming the recorder; (2) one that exits 0 at once:
# the session ends and simctl says the drive was not recorded, status 3.
. "$(dirname "$0")/lib.sh"
mkdir "$tmp/bin"
cp "$bin/simctl" "$tmp/bin/simctl"
for f in "$bin"/*; do
    n=$(basename "$f")
    [ "$n" = simctl ] || [ "$n" = recorder ] || ln -s "$f" "$tmp/bin/$n"
done
fails=0
# run NAME STANDIN WANT_TEXT: a headless 2 s drive with the stand-in recorder
run() {
    printf '#!/bin/sh\n%s\n' "$2" >"$tmp/bin/recorder"
    chmod +x "$tmp/bin/recorder"
    P=$(free_port)
    C=$(free_port)
    start=$(date +%s)
    env -u DISPLAY -u WAYLAND_DISPLAY timeout 60 "$tmp/bin/simctl" run "$root/scenarios/lane-change.json" --headless \
        --until 2 --join-s 3 --no-analysis --out "$tmp/out-$1" --bus 127.0.0.1:$P --control tcp://127.0.0.1:$C \
        >"$tmp/$1.log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    if [ $rc -eq 3 ] && grep -q "$3" "$tmp/$1.log"; then
        echo "ok   $1: status 3 after $took s: $(grep "$3" "$tmp/$1.log" | head -1)"
    else
        echo "FAIL $1: status $rc (want 3 and \"$3\")"
        tail -15 "$tmp/$1.log"
        fails=$((fails + 1))
    fi
}
# a process that never says hello and stops when told to (SIGTERM), as a module would
run silent 'exec python3 -c "import signal, sys; signal.signal(signal.SIGTERM, lambda *a: sys.exit(0)); signal.pause()"' \
    'the recorder has not joined the bus within 3 s (--join-s): the drive cannot be recorded'
run gone 'exit 0' 'the recorder never joined the bus: this drive was not recorded'
[ $fails -eq 0 ]
