#!/bin/sh
# The layer check passes on the tree as it is, and fails naming the file and the include
# when a forbidden include is planted: a pure component using libuv, a component using
# one it does not list, a module including another module's header; a component
# including by path (the ".." the check used to follow), a pure component including a
# POSIX I/O header (<sys/socket.h>, <stdio.h>: unknown headers used to count as no
# library), a private header from a module, and tests, benchmarks and fuzz targets
# (never checked before).
set -u
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {   # name expected-exit expected-text
    out=$(sh "$root/scripts/check-layers.sh" "$tmp/tree" 2>&1); rc=$?
    if [ "$rc" -ne "$2" ] || ! printf '%s\n' "$out" | grep -qF -- "$3"; then
        echo "FAIL $1: exit $rc (expected $2), output:"; printf '%s\n' "$out"; fails=$((fails + 1))
    else
        echo "ok   $1"
    fi
}
fresh() {
    rm -rf "$tmp/tree"; mkdir -p "$tmp/tree"
    # One cp for the whole tree (a cp per file made this test the slowest of the suite).
    (cd "$root" && git ls-files -co --exclude-standard -- Makefile 'common/*' '*/main.c' '*/*.c' '*/*.h' '*/module.mk' |
        xargs cp --parents -t "$tmp/tree")
}
fresh
check "tree as it is" 0 "layers: ok"
printf '#include <uv.h>\n' >>"$tmp/tree/common/vehicle/sim_tire.c"
check "pure component includes libuv" 1 'common/vehicle/sim_tire.c: includes <uv.h> (libuv)'
fresh
printf '#include "sim_bus.h"\n' >>"$tmp/tree/common/metrics/sim_metrics.c"
check "component includes one it does not use" 1 'common/metrics/sim_metrics.c: includes "sim_bus.h" from component protocol'
fresh
printf '#include "hub.h"\n' >>"$tmp/tree/physics-node/node.c"
check "module includes another module" 1 'physics-node/node.c: includes "hub.h" of module dispatcher'
fresh
printf '#include <SDL.h>\n' >>"$tmp/tree/recorder/main.c"
check "module uses a library it does not list" 1 'recorder/main.c: includes <SDL.h> (sdl2)'
# The rest planted at once, and the check run once (each is named in its own line of
# the output, which only its plant can produce).
fresh
printf '#include "../scenario/sim_scenario.h"\n' >>"$tmp/tree/common/metrics/sim_metrics.c"
printf '#include <sys/socket.h>\n' >>"$tmp/tree/common/world/sim_road.c"
printf '#include <stdio.h>\n' >>"$tmp/tree/common/routing/sim_route.c"
printf '#include "sim_msg_fields.h"\n' >>"$tmp/tree/recorder/main.c"
printf '#include "sim_drivelog_db.h"\n' >>"$tmp/tree/analysis/main.c"
printf '#include "sim_traffic_impl.h"\n' >>"$tmp/tree/traffic-node/state.c"
printf '#include "sim_traffic_impl.h"\n' >>"$tmp/tree/tests/integration/test_traffic_node.c"
printf '#include "hub.h"\n' >>"$tmp/tree/bench/bench_bus.c"
printf '#include "../common/protocol/sim_msg_fields.h"\n' >>"$tmp/tree/fuzz/fuzz_msg.c"
printf '#include "node.h"\n' >>"$tmp/tree/tests/unit/test_traffic.c"
out=$(sh "$root/scripts/check-layers.sh" "$tmp/tree" 2>&1); rc=$?
planted() {   # name expected-text
    if [ "$rc" -ne 1 ] || ! printf '%s\n' "$out" | grep -qF -- "$2"; then
        echo "FAIL $1: exit $rc (expected 1), output:"; printf '%s\n' "$out"; fails=$((fails + 1))
    else
        echo "ok   $1"
    fi
}
planted "component includes by path (..)" 'common/metrics/sim_metrics.c: includes "../scenario/sim_scenario.h" by path'
planted "pure component includes a socket header" 'common/world/sim_road.c: includes <sys/socket.h>, I/O in pure component world'
planted "pure component includes stdio" 'common/routing/sim_route.c: includes <stdio.h>, I/O in pure component routing'
planted "module includes protocol's private header" 'recorder/main.c: includes "sim_msg_fields.h", private to component protocol'
planted "module includes drivelog's private header" 'analysis/main.c: includes "sim_drivelog_db.h", private to component drivelog'
planted "module includes traffic's private header" 'traffic-node/state.c: includes "sim_traffic_impl.h", private to component traffic'
planted "integration test includes a private header" 'tests/integration/test_traffic_node.c: includes "sim_traffic_impl.h", private to component traffic'
planted "benchmark includes a module's header" 'bench/bench_bus.c: includes "hub.h" of module dispatcher'
planted "fuzz target includes by path" 'fuzz/fuzz_msg.c: includes "../common/protocol/sim_msg_fields.h" by path'
planted "unit test includes a module header it does not test" 'tests/unit/test_traffic.c: includes "node.h" of module'
[ "$fails" -eq 0 ]
