#!/bin/sh
# Eye tracker and sensor bridges into the drive log, on the simulation's time line:
# see tests/scripts/instruments_test.py. Debian's python3 carries python3-zmq and
# python3-msgpack (scripts/deps.sh installs them); without them this fails, saying so.
set -u
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
py=/usr/bin/python3
if ! "$py" -c 'import zmq, msgpack' 2>/dev/null; then
    echo "test_instruments: $py cannot import zmq and msgpack: apt-get install python3-zmq python3-msgpack (sh scripts/deps.sh)" >&2
    exit 1
fi
exec "$py" "$root/tests/scripts/instruments_test.py"
