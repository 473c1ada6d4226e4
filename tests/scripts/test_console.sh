#!/bin/sh
# The console in a real browser (docs/console.md): Debian's chromium driven by
# playwright-core (tests/browser, installed by scripts/deps.sh) against real sessions
# started with `simctl run --console`. The checks are in tests/browser/console.test.mjs.
# Screenshots go to $SIM_SCREENSHOT_DIR when set (docs/img for the documentation).
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/chromium ] || { echo "FAIL /usr/bin/chromium is missing (scripts/deps.sh installs it)"; exit 1; }
[ -f "$root/tests/browser/node_modules/playwright-core/package.json" ] ||
    { echo "FAIL tests/browser/node_modules/playwright-core is missing (scripts/deps.sh installs it)"; exit 1; }
ports=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do ports="$ports $(free_port)"; done
cd "$root/tests/browser" || exit 1
SIM_BIN=$bin SIM_ROOT=$root TEST_TMP=$tmp TEST_PORTS="${ports# }" node console.test.mjs
rc=$?
[ $rc -eq 0 ] || { echo "FAIL $rc check(s) failed; logs:"; tail -n 20 "$tmp"/*.log; }
exit $rc
