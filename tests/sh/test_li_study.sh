#!/usr/bin/env bash
# The Li et al. shared-memory vs L1 study (docs/li-study.md, issue 12 part 5)
# without a GPU: its fixture is well-formed (every case verified, timed at
# least 20 times at a recorded clock, one ncu row of its own kernel: the
# suite's check_model_fixture.py, which li_study.py runs first), the
# document's tables are exactly what the fixture gives (so they cannot drift
# from the data), a damaged fixture or an edited number is caught, and the
# committed plots are real images that the script redraws.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx=$root/tests/fixtures/model/li-h100
doc=$root/docs/li-study.md
study() { $PY "$root/validation/li_study.py" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
one_line_study_err() { [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^li_study: ' "$tmp/err"; }

for f in cases.tsv times.tsv ncu-raw.csv.xz report.json README.md; do
  check "fixture has $f" test -s "$fx/$f"
done
study check "$fx" "$doc"
check "the fixture is well-formed and the document's tables match it" rc_is 0
check "  (nothing on stderr)" test ! -s "$tmp/err"
ncases=$(($(wc -l <"$fx/cases.tsv") - 1))
check "at least four kernel pairs, each at three carveouts ($ncases cases)" test "$ncases" -ge 16
for fam in $(awk -F'\t' 'NR>1{split($1,a,"_"); print a[2]}' "$fx/cases.tsv" | sort -u); do
  for v in shm l1 l1_c50 l1_c100; do
    check "$fam has case li_${fam}_$v" grep -q "^li_${fam}_$v	" "$fx/cases.tsv"
  done
done
study table "$fx"
check "the table has one row per case" test "$(grep -c '^| li_' "$tmp/out")" -ge "$ncases"
check "the carveout reached the launch: 100% gives the 228 KiB configuration" \
  grep -q '^| li_matmul_l1_c100 | 100% | 228 |' "$tmp/out"

# Damaged fixtures are refused with one line naming the problem.
damage() { # damage NAME: copy the fixture to $tmp/NAME for editing
  rm -rf "$tmp/$1"; cp -r "$fx" "$tmp/$1"; }
damage fail; sed -i '0,/\tok\t/s//\tFAIL\t/' "$tmp/fail/times.tsv"
study check "$tmp/fail" "$doc"
check "a case that failed verification: exit 1" rc_is 1
check "  one line naming it" bash -c "$(declare -f one_line_study_err); tmp=$tmp one_line_study_err && grep -q 'verify=FAIL' $tmp/err"
damage runs; awk -F'\t' 'BEGIN{OFS="\t"} NR==2{$2=19} {print}' "$fx/times.tsv" >"$tmp/runs/times.tsv"
study check "$tmp/runs" "$doc"
check "fewer than 20 runs: exit 1" bash -c "rc=\$(cat $tmp/rc); [ \$rc = 1 ] && grep -q ': 19 runs' $tmp/err"
damage clock; awk -F'\t' 'BEGIN{OFS="\t"} NR==3{$6=-1} {print}' "$fx/times.tsv" >"$tmp/clock/times.tsv"
study check "$tmp/clock" "$doc"
check "a clock not recorded: exit 1" bash -c "[ \$(cat $tmp/rc) = 1 ] && grep -q 'clocks not recorded' $tmp/err"
damage rows; xz -dc "$fx/ncu-raw.csv.xz" | grep -v '"li_nbody_shm_kernel' | xz >"$tmp/rows/ncu-raw.csv.xz"
study check "$tmp/rows" "$doc"
check "an ncu row missing: exit 1" bash -c "[ \$(cat $tmp/rc) = 1 ] && grep -q 'rows for' $tmp/err"
damage order; $PY - "$fx/cases.tsv" "$tmp/order/cases.tsv" <<'PYEOF'
import sys
rows = open(sys.argv[1]).read().splitlines()
rows[1], rows[4] = rows[4], rows[1]   # an L1 and a shared-memory case swapped: the ncu rows no longer line up
open(sys.argv[2], 'w').write('\n'.join(rows) + '\n')
PYEOF
study check "$tmp/order" "$doc"
check "cases out of the ncu order: exit 1" bash -c "[ \$(cat $tmp/rc) = 1 ] && grep -q 'runs li_conv_' $tmp/err"
sed 's/^\(| li_conv_shm | [^|]*| [^|]*| [^|]*| \)[0-9]/\19/' "$doc" >"$tmp/edited.md"
check "  (the edit changed the document)" bash -c "! cmp -s $doc $tmp/edited.md"
study check "$fx" "$tmp/edited.md"
check "a number edited in the document: exit 1 naming the line" bash -c "[ \$(cat $tmp/rc) = 1 ] && grep -q 'table line' $tmp/err"
study check "$tmp/nowhere" "$doc"
check "no fixture: exit 2" rc_is 2
study bogus
check "bad usage: exit 2" rc_is 2

# The model column: `li_study.py winners` turns memtopo model's predictions
# (one per case, in order) into model-winners.tsv, and the table shows it.
# A stand-in prediction file: every case at its measured time, except that
# the transpose L1 case at 50% is predicted faster than its shm case.
damage model; $PY - "$fx" "$tmp/model/pred.json" <<'PYEOF'
import csv, json, sys
d = sys.argv[1]
cases = list(csv.DictReader(open(d + '/cases.tsv'), delimiter='\t'))
times = {r['name']: float(r['median_ms']) for r in csv.DictReader(open(d + '/times.tsv'), delimiter='\t')}
preds = [{'kernel': f"{k}:{c['kernel']}(float *)", 'base': {'seconds': (0.001e-3 if c['name'] == 'li_transpose_l1_c50'
          else times[c['name']] * 1e-3)}} for k, c in enumerate(cases)]
json.dump({'predictions': preds}, open(sys.argv[2], 'w'))
PYEOF
study winners "$tmp/model" "$tmp/model/pred.json"
check "winners: exit 0" rc_is 0
check "  the predicted winner follows the predicted times" \
  grep -q "^transpose	L1	[0-9.]*	li_transpose_l1_c50	0.0010$" "$tmp/model/model-winners.tsv"
check "  and shared memory where it is predicted faster" grep -q "^conv	shared memory	0.1111	" "$tmp/model/model-winners.tsv"
study table "$tmp/model"
check "  the table's model column shows it, with the predicted speed-up" \
  grep -q '^| transpose | .* | L1 ([0-9.]*x) |$' "$tmp/out"
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); d['predictions'].pop(); json.dump(d, open(sys.argv[1], 'w'))" \
  "$tmp/model/pred.json"
study winners "$tmp/model" "$tmp/model/pred.json"
check "a prediction missing: exit 1" bash -c "[ \$(cat $tmp/rc) = 1 ] && grep -q '23 predictions for 24 cases' $tmp/err"

# The committed plots, and the script that redraws them from the fixture.
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$1")" -gt 5000 ]; }
for p in li-h100-times.png li-h100-factors.png; do
  check "docs/img/$p is a PNG" is_png "$root/docs/img/$p"
  check "docs/li-study.md shows $p" grep -q "img/$p" "$doc"
done
if command -v gnuplot >/dev/null; then
  bash "$root/validation/li_plots.sh" "$fx" "$tmp/plots" >"$tmp/plot.log" 2>&1
  check "li_plots.sh redraws the plots from the fixture" is_png "$tmp/plots/li-h100-times.png"
  check "  and the SVG, with drawn boxes" bash -c "grep -q '<svg' $tmp/plots/li-h100-times.svg && [ \$(grep -c '<path' $tmp/plots/li-h100-times.svg) -gt 10 ]"
else
  n=$((n+1)); echo "ok $n - li_plots.sh redraws the plots # skip no gnuplot"
fi
finish
