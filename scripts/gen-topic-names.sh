#!/bin/sh
# The topic names as macros (SIM_TOPIC_<ID> "name"), made from the topic table: macros,
# not C constants, so that a name joins other literal text ("sim.tick" ": t: ...").
# Run by make whenever common/protocol/sim_topics.def changes; the output is checked in
# (tests/scripts/test_topic_names.sh fails when it is stale).
# Usage: sh scripts/gen-topic-names.sh [DEF [OUT]]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
def=${1:-$root/common/protocol/sim_topics.def}
out=${2:-$root/common/protocol/sim_topic_names.h}
tmp=$out.tmp.$$
{
    echo "/* sim_topic_names: SIM_TOPIC_<ID>, every topic's name, made by"
    echo " * scripts/gen-topic-names.sh from sim_topics.def (edit that, not this). */"
    echo "#ifndef SIM_TOPIC_NAMES_H"
    echo "#define SIM_TOPIC_NAMES_H"
    echo
    awk -F'[(,]' '/^SIM_TOPIC\(/ { id = $2; name = $3; gsub(/^[ \t]+|[ \t]+$/, "", id);
                                  gsub(/^[ \t]+|[ \t]+$/, "", name);
                                  printf "#define SIM_TOPIC_%s %s\n", id, name }' "$def"
    echo
    echo "#endif"
} > "$tmp"
mv "$tmp" "$out"
