#!/usr/bin/env bash
# The validation suite's recordings (tests/fixtures/model/<gpu>/, written by
# validation/run_device.sh on a GPU) stay whole without a GPU: every case of
# cases.tsv timed (>= 20 runs, verify=ok) at a recorded clock, with its ncu
# row and SASS section naming its kernel (check_model_fixture.py), so the
# model's error is computed over every case.  Also a broken copy of one
# fixture must fail the check (the check can fail).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fxroot="$root/tests/fixtures/model"
dirs=$(find "$fxroot" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort)
check "fixtures for the H100 and the H200 exist" test -d "$fxroot/h100" -a -d "$fxroot/h200"
for d in $dirs; do
  out=$($PY "$root/tests/sh/check_model_fixture.py" "$d"); rc=$?
  printf '%s\n' "$out" | sed 's/^\(not \)\{0,1\}ok [0-9]* - /  /' >&2
  check "fixture $(basename "$d") is whole and consistent" test "$rc" = 0
done
# a verify=FAIL row and a missing ncu row must both be caught
first=$(printf '%s\n' $dirs | head -1)
if [ -n "$first" ]; then
  cp -r "$first" "$tmp/broken"
  awk -F'\t' -v OFS='\t' 'NR == 2 { $8 = "FAIL" } 1' "$first/times.tsv" >"$tmp/broken/times.tsv"
  check "a failed verify is refused" bash -c "! $PY '$root/tests/sh/check_model_fixture.py' '$tmp/broken' >/dev/null"
  cp "$first/times.tsv" "$tmp/broken/times.tsv"
  xz -dc "$first/ncu-raw.csv.xz" | sed '$d' | xz >"$tmp/broken/ncu-raw.csv.xz"
  check "a missing ncu row is refused" bash -c "! $PY '$root/tests/sh/check_model_fixture.py' '$tmp/broken' >/dev/null"
fi
finish
