#!/bin/sh
# Runs every benchmark; each prints its own figures next to its baseline and the ratio.
set -eu
for b in "$@"; do
    echo "== $(basename "$b")"
    "$b"
done
