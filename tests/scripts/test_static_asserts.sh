#!/bin/sh
# Every offset table (message fields, drive-log columns, the recorder's state-to-column
# pairs, vehicle parameters) is checked by the compiler: an entry whose kind does not fit
# its member's size (an int read as a double) does not compile. Plants one such entry in
# each table, in a copy of its file, and sees the compiler refuse it naming the member;
# the unchanged files compile.
set -u
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 2
inc=$(for d in common/*/; do printf ' -I%s' "${d%/}"; done)
flags="-std=c17 -D_GNU_SOURCE -fsyntax-only $inc $(pkg-config --cflags libcjson sqlite3 libuv 2>/dev/null)"
fails=0
plant() {   # name file sed-expression member
    sed "$3" "$2" >"$tmp/planted.c"
    if cmp -s "$2" "$tmp/planted.c"; then
        echo "FAIL $1: the plant did not change $2"; fails=$((fails + 1)); return
    fi
    # shellcheck disable=SC2086
    if ${CC:-cc} $flags -iquote "$(dirname "$2")" "$2" >"$tmp/ok.txt" 2>&1; then :; else
        echo "FAIL $1: $2 does not compile as it is:"; cat "$tmp/ok.txt"; fails=$((fails + 1)); return
    fi
    # shellcheck disable=SC2086
    if ${CC:-cc} $flags -iquote "$(dirname "$2")" "$tmp/planted.c" >"$tmp/out.txt" 2>&1; then
        echo "FAIL $1: compiled with the planted entry"; fails=$((fails + 1))
    elif grep -q "static assertion failed: \"$4: its table entry" "$tmp/out.txt"; then
        echo "ok   $1"
    else
        echo "FAIL $1: refused, but not naming $4:"; cat "$tmp/out.txt"; fails=$((fails + 1))
    fi
}
plant "sim.tick's run read as a double" common/protocol/sim_msg_sim.c \
    's/F(run, SIM_MF_INT, 0, 1e9)/F(run, SIM_MF_NUM, 0, 1e9)/' 'sim_msg_tick.run'
plant "vehicle.state's gear read as a double" common/protocol/sim_msg_vehicle.c \
    's/F(gear, SIM_MF_INT, -1e9, 1e9)/F(gear, SIM_MF_NUM, -1e9, 1e9)/' 'sim_msg_vehicle_state.gear'
plant "the recorder's lane pair read as doubles" common/recording/sim_recording.c \
    's/INT(gear, gear), INT(lane, lane)/INT(gear, gear), REAL(lane, lane)/' 'sim_drivelog_sample.lane'
plant "a vehicle parameter's double read as a bool" common/vehicle/sim_vehicle_params.c \
    's/PK(mass, F_NUM), F_NUM/PK(mass, F_BOOL), F_BOOL/' 'sim_vehicle_params.mass'
[ "$fails" -eq 0 ]
