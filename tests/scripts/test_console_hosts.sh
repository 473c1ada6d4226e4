#!/bin/sh
# The console's Hosts table (docs/console.md, docs/lab.md): the rows console/www/hosts.js
# makes from session.clock and session.host, with node (tests/browser/hosts.test.mjs),
# then the table in Debian's chromium against a real dispatcher and console
# (tests/browser/hosts_page.test.mjs; SIM_SCREENSHOT_DIR=docs/img for its picture).
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || { echo "FAIL node is missing (scripts/deps.sh installs it)"; exit 1; }
[ -x /usr/bin/chromium ] || { echo "FAIL /usr/bin/chromium is missing (scripts/deps.sh installs it)"; exit 1; }
node "$root/tests/browser/hosts.test.mjs" || { echo "FAIL tests/browser/hosts.test.mjs"; exit 1; }
cd "$root/tests/browser" || exit 1
SIM_BIN=$bin SIM_ROOT=$root TEST_TMP=$tmp TEST_PORTS="$(free_port) $(free_port) $(free_port)" node hosts_page.test.mjs
rc=$?
[ $rc -eq 0 ] || { echo "FAIL the console's Hosts table; logs:"; tail -n 20 "$tmp"/*.log; }
exit $rc
