#!/usr/bin/env bash
# The model against the H100 it is fed by (issue 12 part 3) and across GPUs
# (part 4): `memtopo model` on every case of tests/fixtures/model/h100/
# with that GPU's report, each case's error against its measured median
# time, the median absolute error per group, and whether the dominant CPI
# class matches ncu's dominant stall reason (docs/model.md).  The H100
# profiles are also predicted on the H200's report and compared with the
# H200's times.  Writes build/model-validation.tsv (per case) and
# build/model-validation-summary.tsv; fails when a group's median error
# exceeds tests/fixtures/model/error-baseline.tsv by more than 1 point.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx=$root/tests/fixtures/model
h100=$fx/h100 h200=$fx/h200
if [ ! -f "$h100/cases.tsv" ]; then
  echo "ok 1 - # skip: no H100 model fixtures (tests/fixtures/model/h100)"
  exit 0
fi
out=$root/build/model-validation.tsv sum=$root/build/model-validation-summary.tsv
mkdir -p "$root/build"
printf 'gpu\tcase\tgroup\tmeasured_ms\tpredicted_ms\terror_pct\tmodel_dominant\tncu_dominant\tagree\n' >"$out"
printf 'gpu\tgroup\tmedian_abs_error_pct\tcases\tdominant_agree_pct\n' >"$sum"
xz -dc "$h100/ncu-raw.csv.xz" >"$tmp/raw.csv"
sass=()
if [ -f "$h100/ncu-source.csv.xz" ]; then
  xz -dc "$h100/ncu-source.csv.xz" >"$tmp/src.csv"
  sass=(--sass "$tmp/src.csv")
fi
# Predict at the SM clock the timed runs recorded (the median over cases).
clock() { awk -F'\t' 'NR > 1 && $6 > 0 {print $6}' "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
c100=$(clock "$h100/times.tsv")
run_mt model -t "$h100/report.json" "$tmp/raw.csv" "${sass[@]}" ${c100:+--clock "$c100"} --json "$tmp/h100.json"
check "H100: every case predicted" rc_is 0
# (the summary lines go to $sum, so the check reads the exit status after)
$PY "$root/tools/model_validation.py" "$h100/cases.tsv" "$h100/times.tsv" \
  "$tmp/raw.csv" "$tmp/h100.json" h100 "$out" >>"$sum"; echo $? >"$tmp/rc"
check "H100: errors computed" rc_is 0
if [ -f "$h200/cases.tsv" ]; then
  c200=$(clock "$h200/times.tsv")
  run_mt model -t "$h200/report.json" --profile-topology "$h100/report.json" "$tmp/raw.csv" "${sass[@]}" \
    ${c200:+--clock "$c200"} --json "$tmp/x200.json"
  check "H100 profiles on the H200: predicted" rc_is 0
  $PY "$root/tools/model_validation.py" "$h100/cases.tsv" "$h200/times.tsv" "$tmp/raw.csv" \
    "$tmp/x200.json" h100-on-h200 "$out" "$h200/cases.tsv" >>"$sum"; echo $? >"$tmp/rc"
  check "H100 profiles on the H200: errors computed" rc_is 0
fi
cat "$sum"
# A regression: a group's median error more than 1 point above its baseline.
[ -f "$fx/error-baseline.tsv" ] || { echo "not ok - no tests/fixtures/model/error-baseline.tsv"; exit 1; }
check "median errors within 1 point of the baseline" awk -F'\t' '
  FNR == NR { if (FNR > 1) base[$1 "/" $2] = $3; next }
  FNR > 1 && ($1 "/" $2) in base && $3 > base[$1 "/" $2] + 1 {
    printf "regression: %s %s %.1f%% > baseline %.1f%% + 1\n", $1, $2, $3, base[$1 "/" $2]; bad = 1 }
  END { exit bad }' "$fx/error-baseline.tsv" "$sum"
finish
