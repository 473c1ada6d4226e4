#!/bin/sh
# Behaviour codes out and in (docs/codes.md): a synthetic drive's events exported as an
# ELAN .eaf linked to its video (relative URL) validate against the EAF 3.0 schema of
# tests/data/eaf; a coder's tier added as ELAN writes one (slots in TIME_ORDER, an
# ALIGNABLE_ANNOTATION on a new TIER) comes back into the log's codes table on the log's
# time base; importing it again changes nothing; analysis codes measures the coded
# episode; bad files are refused with the file, line and element named, the log untouched.
. "$(dirname "$0")/lib.sh"
cd "$tmp"
"$bin/analysis" synth --out syn --subjects 1 --minutes 1 --tasks 2 --sqlite --secondary >/dev/null ||
    { echo "FAIL analysis synth"; exit 1; }
log=syn/S01.sqlite
mkdir media
printf 'not really a video' >media/drive.mp4
"$bin/simctl" codes export $log -o S01.eaf --video media/drive.mp4 --boris S01.csv >out.txt 2>&1 ||
    { echo "FAIL export"; cat out.txt; exit 1; }
xmllint --noout --schema "$root/tests/data/eaf/eaf-3.0-from-spec.xsd" S01.eaf 2>xsd.txt ||
    { echo "FAIL the .eaf does not validate"; cat xsd.txt; exit 1; }
grep -q 'RELATIVE_MEDIA_URL="./media/drive.mp4"' S01.eaf || { echo "FAIL no relative media URL"; grep MEDIA S01.eaf; exit 1; }
grep -q "MEDIA_URL=\"file://$(cd media && pwd -P)/drive.mp4\"" S01.eaf || { echo "FAIL no absolute media URL"; exit 1; }
# the log's two tasks and its DRT stimuli are tiers, on the log's times in ms
t1=$(sqlite3 $log "SELECT CAST(round(t * 1000) AS INTEGER) FROM events WHERE kind='task' AND name='start' ORDER BY t LIMIT 1")
grep -q "TIME_VALUE=\"$t1\"" S01.eaf || { echo "FAIL the first task's start $t1 ms is no time slot"; exit 1; }
n_drt=$(sqlite3 $log "SELECT count(*) FROM events WHERE kind='drt' AND name='stimulus' AND json LIKE '%\"on\":true%'")
[ "$(grep -c ',drt,START,' S01.csv)" = "$n_drt" ] || { echo "FAIL BORIS CSV: $n_drt DRT stimuli expected"; exit 1; }
head -1 S01.csv | grep -q '^Observation id,Media file,Time,Subject,Behavior,Behavioral category,Status,Comment$' ||
    { echo "FAIL BORIS CSV header"; exit 1; }
# a coder adds a tier "secondary" with a phone episode from 20.000 to 25.500 s
sed -e 's#</TIME_ORDER>#<TIME_SLOT TIME_SLOT_ID="ts900" TIME_VALUE="20000"/><TIME_SLOT TIME_SLOT_ID="ts901" TIME_VALUE="25500"/></TIME_ORDER>#' \
    -e 's#<LINGUISTIC_TYPE #<TIER LINGUISTIC_TYPE_REF="default-lt" TIER_ID="secondary" ANNOTATOR="coder1"><ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID="a900" TIME_SLOT_REF1="ts900" TIME_SLOT_REF2="ts901"><ANNOTATION_VALUE>phone</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION></TIER><LINGUISTIC_TYPE #' \
    S01.eaf >coded.eaf
xmllint --noout --schema "$root/tests/data/eaf/eaf-3.0-from-spec.xsd" coded.eaf 2>/dev/null || { echo "FAIL the coded file is no valid EAF"; exit 1; }
n_ann=$(grep -c '<ANNOTATION>' coded.eaf)
"$bin/simctl" codes import $log coded.eaf >imp.txt 2>&1 || { echo "FAIL import"; cat imp.txt; exit 1; }
rows=$(sqlite3 $log "SELECT count(*) FROM codes")
[ "$rows" = "$n_ann" ] || { echo "FAIL $rows codes rows, expected $n_ann"; exit 1; }
"$bin/simctl" codes import $log coded.eaf >imp2.txt 2>&1 || { echo "FAIL second import"; exit 1; }
grep -q "$n_ann rows of an earlier import replaced" imp2.txt || { echo "FAIL second import:"; cat imp2.txt; exit 1; }
[ "$(sqlite3 $log "SELECT count(*) FROM codes")" = "$n_ann" ] || { echo "FAIL the second import changed the row count"; exit 1; }
"$bin/simctl" codes list $log >list.csv
grep -q '^0,secondary,phone,20.000,25.500,coder1,coded.eaf$' list.csv || { echo "FAIL the phone episode:"; grep secondary list.csv; exit 1; }
# exported tiers imported back equal the log's events: the tasks' ranges, to the ms
for id in T01 T02; do
    want=$(sqlite3 $log "SELECT printf('%.3f', (SELECT t FROM events WHERE kind='task' AND name='start' AND json LIKE '%\"$id\"%'))||','||printf('%.3f', (SELECT t FROM events WHERE kind='task' AND name='end' AND json LIKE '%\"$id\"%'))")
    grep -q "^0,task,$id,$want,sim,coded.eaf$" list.csv || { echo "FAIL task $id: want $want"; grep task list.csv; exit 1; }
done
# the measure per coded episode: 550 samples in [20, 25.5), the mean of their speed
"$bin/analysis" codes $log --tier secondary >m.csv 2>m.err || { echo "FAIL analysis codes"; cat m.err; exit 1; }
want=$(sqlite3 $log "SELECT count(*)||','||printf('%.3f', avg(speed) * 3.6) FROM samples WHERE t >= 20 - 1e-9 AND t < 25.5 - 1e-9")
line=$(sed -n 2p m.csv)
case "$line" in
"0,secondary,phone,20.000,25.500,5.500,${want%%,*},${want#*,},"*) ;;
*) echo "FAIL measure: $line (want samples,km/h $want)"; exit 1 ;;
esac
# ... and in the drive's report page
"$bin/analysis" report $log --no-plots --out rep >rep.txt 2>&1 || { echo "FAIL analysis report"; cat rep.txt; exit 1; }
grep -q '<tr><td class="l">secondary</td><td class="l">phone</td><td>0</td><td>20.000</td><td>25.500</td><td>550</td>' rep/report.html ||
    { echo "FAIL the report has no coded phone episode"; grep -A2 'Coded episodes' rep/report.html; exit 1; }
# the BORIS-style table comes back too: the exported one (as many codes as the .eaf's
# annotations less the coder's), and a coder's table with a state event and an instant
"$bin/simctl" codes import $log S01.csv >bimp.txt 2>&1 || { echo "FAIL import of the BORIS table"; cat bimp.txt; exit 1; }
grep -q "^$log: $((n_ann - 1)) codes from S01.csv" bimp.txt || { echo "FAIL BORIS import:"; cat bimp.txt; exit 1; }
printf 'Observation id,Time,Subject,Behavior,Behavioral category,Status,Comment\n' >coder.csv
printf 'S01,30.25,driver,"phone, texting",secondary,START,coder2\nS01,31,driver,mirror,glance,POINT,coder2\nS01,33.5,driver,"phone, texting",secondary,STOP,coder2\n' >>coder.csv
"$bin/simctl" codes import $log coder.csv >cimp.txt 2>&1 || { echo "FAIL import of coder.csv"; cat cimp.txt; exit 1; }
"$bin/simctl" codes list $log >list2.csv
grep -q '^0,secondary,"phone, texting",30.250,33.500,coder2,coder.csv$' list2.csv &&
    grep -q '^0,glance,mirror,31.000,31.000,coder2,coder.csv$' list2.csv || { echo "FAIL coder.csv rows:"; grep coder.csv list2.csv; exit 1; }
n_all=$(sqlite3 $log "SELECT count(*) FROM codes")
# bad files: refused, the file and element named, nothing written
sed 's#TIME_SLOT_REF2="ts901"#TIME_SLOT_REF2="ts999"#' coded.eaf >bad.eaf
if "$bin/simctl" codes import $log bad.eaf >bad.txt 2>&1; then echo "FAIL bad.eaf accepted"; exit 1; fi
grep -q 'bad.eaf:[0-9]*: ALIGNABLE_ANNOTATION: "a900": TIME_SLOT_REF2 "ts999" names no TIME_SLOT' bad.txt ||
    { echo "FAIL message:"; cat bad.txt; exit 1; }
printf '<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/hostname">]>\n<ANNOTATION_DOCUMENT><TIME_ORDER/>&e;</ANNOTATION_DOCUMENT>\n' >ent.eaf
if "$bin/simctl" codes import $log ent.eaf >ent.txt 2>&1; then echo "FAIL ent.eaf accepted"; exit 1; fi
grep -q 'ent.eaf: a DOCTYPE is not accepted' ent.txt || { echo "FAIL message:"; cat ent.txt; exit 1; }
printf 'Time,Behavior,Status\n3,x,STOP\n' >bad.csv
if "$bin/simctl" codes import $log bad.csv >badc.txt 2>&1; then echo "FAIL bad.csv accepted"; exit 1; fi
grep -q 'bad.csv:2: STOP of "x" without a START' badc.txt || { echo "FAIL message:"; cat badc.txt; exit 1; }
[ "$(sqlite3 $log "SELECT count(*) FROM codes")" = "$n_all" ] || { echo "FAIL a refused file changed the codes"; exit 1; }
echo "PASS codes: export validates, $n_ann annotations round-trip, re-import idempotent, measure $line"
