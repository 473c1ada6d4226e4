#!/bin/sh
# The topic names header (common/protocol/sim_topic_names.h) is the one
# scripts/gen-topic-names.sh makes from the topic table: a row added to
# common/protocol/sim_topics.def without its name would otherwise build from a stale
# header on a fresh clone. Also: every row gives one name, the table's names are unique.
set -u
root=${SIM_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
sh "$root/scripts/gen-topic-names.sh" "$root/common/protocol/sim_topics.def" "$tmp/names.h" || fails=1
if ! cmp -s "$tmp/names.h" "$root/common/protocol/sim_topic_names.h"; then
    echo "FAIL common/protocol/sim_topic_names.h is stale: run sh scripts/gen-topic-names.sh"
    diff "$tmp/names.h" "$root/common/protocol/sim_topic_names.h"
    fails=1
else
    echo "ok   sim_topic_names.h is made from sim_topics.def"
fi
rows=$(grep -c '^SIM_TOPIC(' "$root/common/protocol/sim_topics.def")
names=$(grep -c '^#define SIM_TOPIC_[A-Z_0-9]* "' "$tmp/names.h")
if [ "$rows" -lt 50 ] || [ "$rows" -ne "$names" ]; then
    echo "FAIL $rows rows but $names names"; fails=1
else
    echo "ok   $rows rows, $names names"
fi
dups=$(sed -n 's/^#define \([A-Z_0-9]*\) .*/\1/p' "$tmp/names.h" | sort | uniq -d)
if [ -n "$dups" ]; then echo "FAIL ids given twice: $dups"; fails=1; else echo "ok   ids unique"; fi
# A stale copy is caught: a row added to a copy of the table is missing from the header.
cp "$root/common/protocol/sim_topics.def" "$tmp/t.def"
echo 'SIM_TOPIC(ODOMETER_STATE, "odometer.state", EXACT, NONE, "odometer", IGNORE, NULL, NULL, NULL)' >>"$tmp/t.def"
sh "$root/scripts/gen-topic-names.sh" "$tmp/t.def" "$tmp/t.h"
if grep -q '^#define SIM_TOPIC_ODOMETER_STATE "odometer.state"$' "$tmp/t.h"; then
    echo "ok   a new row gives its name"
else
    echo "FAIL a new row gave no name"; fails=1
fi
[ "$fails" -eq 0 ]
