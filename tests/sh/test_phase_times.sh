#!/usr/bin/env bash
# MT_PHASE_TIMES=1 (the developer's breakdown of a run's time, README
# "make bench"): a table on stderr naming the CLI's steps, every probe and
# the backend's share of it; without it, nothing extra on stderr and the
# same report.
source "$(dirname "$0")/lib.sh"
run_mt --sim h100 --quiet --only l1d --json "$tmp/off.json"
check "a run without MT_PHASE_TIMES exits 0" rc_is 0
check "and prints nothing on stderr" test ! -s "$tmp/err"
MT_PHASE_TIMES=1 run_mt --sim h100 --quiet --only l1d --json "$tmp/on.json"
check "a run with MT_PHASE_TIMES=1 exits 0" rc_is 0
check "it prints the table's head" err_has '^memtopo: phase times (MT_PHASE_TIMES)'
for phase in 'cli: open the backend' 'cli: the probes' 'probe l1d' 'backend in l1d' 'guard: first reference' '^main '; do
  check "the table has '$phase'" err_has "$phase"
done
check "every row is a name, seconds and a count" awk 'NR > 2 && $NF !~ /^[0-9]+$/ { exit 1 }' "$tmp/err"
digest() { /usr/bin/python3 "$root/tests/findings_digest.py" "$1"; }
same() { diff <(digest "$tmp/off.json") <(digest "$tmp/on.json") >/dev/null; }
check "the report is the same with the timers on" same
finish
