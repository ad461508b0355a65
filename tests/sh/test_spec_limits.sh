#!/usr/bin/env bash
# Specs the parser accepts must be measurable and quick: values that used to
# fail late (after writing the report), report nonsense or run for minutes
# are now refused at parse time with one line FILE:LINE, exit 2 and no
# output file; the slowest accepted spec (tests/limits/worst.spec) finishes
# under a time limit with the optimised build.
source "$(dirname "$0")/lib.sh"
base=$root/tests/specs/random-4.spec

# spec_with KEY VALUE: base with the [device] line of KEY replaced
spec_with() { sed "s/^$1 = .*/$1 = $2/" "$base" >"$tmp/x.spec"; }
refused() { # description: exit 2, one line, FILE:LINE of the key, no JSON
  local what=$1 key=$2
  local line; line=$(grep -n "^$key = " "$tmp/x.spec" | head -1 | cut -d: -f1)
  run_mt --sim "$tmp/x.spec" --json "$tmp/x.json" --record "$tmp/rec"
  check "$what -> exit 2" rc_is 2
  check "$what: one line" one_line_err
  check "$what: names x.spec:$line" err_has "x.spec:$line: "
  check "$what: no JSON, no recording" no_file "$tmp/x.json"
  [ ! -e "$tmp/rec/manifest.json" ] || { echo "not ok - recording left"; bad=$((bad+1)); }
}
spec_with const_mem 4;        refused "const_mem = 4" const_mem
spec_with global_mem "4 KiB"; refused "global_mem = 4 KiB" global_mem
spec_with global_mem 1;       refused "global_mem = 1" global_mem
spec_with l2_size 1;          refused "l2_size = 1" l2_size
spec_with outlier_rate 0.5;   refused "outlier_rate = 0.5" outlier_rate
spec_with sm_count 08;        refused "sm_count = 08" sm_count
# a CR inside a value: one line, the CR not echoed raw
sed 's/^name = .*/name = fuzz\r4/' "$base" >"$tmp/x.spec"; refused "CR in a value" name
check "CR not echoed" bash -c "! grep -q $'\r' '$tmp/err'"

# The slowest accepted spec, with the optimised build: its measured time is
# in docs/spec-format.md ("Limits").  The guard limits CPU time (ulimit -t),
# not wall time, so a busy machine does not fail it; a wall-clock timeout
# of 5x only keeps a hang from stalling the suite.  MT_WORST_LIMIT (CPU
# seconds) overrides the limit.
limit=${MT_WORST_LIMIT:-60}
start=$(date +%s)
( ulimit -t "$limit"; exec timeout $((5 * limit)) "$root/build/memtopo" --sim \
    "$root/tests/limits/worst.spec" --quiet ) >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "worst accepted spec runs in under $limit s of CPU ($(( $(date +%s) - start )) s wall)" rc_is 0
finish
