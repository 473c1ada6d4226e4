#!/bin/sh
# The layer check passes on the tree as it is, and fails naming the file and the include
# when a forbidden include is planted: a pure component using libuv, a component using
# one it does not list, a module including another module's header.
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
[ "$fails" -eq 0 ]
