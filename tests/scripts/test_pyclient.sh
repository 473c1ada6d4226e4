#!/bin/sh
# The Python client (clients/python/simbus.py) and its examples against real sessions:
# see tests/scripts/pyclient_test.py.
set -u
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$root/tests/scripts/pyclient_test.py"
