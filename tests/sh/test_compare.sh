#!/usr/bin/env bash
# memtopo compare: saved reports compared finding by finding.  Identical
# reports and repeat runs of one H100 pass (exit 0); a report with one
# finding degraded (half the L2) is flagged, on that finding only (exit 7);
# bad input is one line on stderr and exit 2; --json writes a fleet report
# that its schema accepts.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx=$root/tests/fixtures/h100-sxm5-2

run_mt compare "$fx/report.json" "$fx/report.json"
check "identical reports: exit 0" rc_is 0
check "identical reports: result same" out_has "^Result: same"

run_mt compare "$fx/report.json" "$fx/report-run3.json"
check "a repeat run of the H100: same" rc_is 0
# The fixture's second run (2026-11-24 10:14 UTC) read the L2 3-6 cycles
# slower than the other four (near 273 for 270, far 307 for 301: the
# fixture README): compare says so, on those two findings only.
run_mt compare "$fx/report.json" "$fx/report-run2.json"
check "the H100 run whose L2 read slower: exit 7" rc_is 7
slower_l2_only() {
  [ "$(grep -c '^[a-z0-9_]*\.[a-z0-9_]* .*#1 ' "$tmp/out")" = 2 ] &&
    out_has "^l2.latency .*#1 273" && out_has "^l2.far_latency .*#1 307"
}
check "the H100 run whose L2 read slower: l2.latency and l2.far_latency only" slower_l2_only

# A degraded copy: the L2's size halved, nothing else.
$PY - "$fx/report.json" "$tmp/degraded.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["objects"]:
    if o["key"] == "l2":
        o["findings"]["size"]["value"] /= 2
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run_mt compare "$fx/report.json" "$tmp/degraded.json"
check "degraded report: exit 7 (differs)" rc_is 7
check "degraded report: l2.size flagged" out_has "^l2.size .*#1 25 MiB"
check "degraded report: only that finding" \
  [ "$(grep -c '^[a-z0-9_]*\.[a-z0-9_]* .*#1 ' "$tmp/out")" = 1 ]
check "degraded report: named in the result" out_has "^Result: differs: #1 .*degraded.json (1 finding)"

# A directory: its *.json files; the degraded one is the outlier of five.
mkdir "$tmp/dir"
cp "$fx/report.json" "$tmp/dir/a.json"; cp "$fx/report-run4.json" "$tmp/dir/b.json"
cp "$fx/report-run3.json" "$tmp/dir/c.json"; cp "$fx/report-run5.json" "$tmp/dir/d.json"
cp "$tmp/degraded.json" "$tmp/dir/e.json"; echo 'not a report' >"$tmp/dir/notes.txt"
run_mt compare --json "$tmp/fleet.json" "$tmp/dir"
check "directory of five, one degraded: exit 7" rc_is 7
check "directory: the median test flags e.json" out_has "^Result: differs: #4 .*e.json (1 finding);$"
check "fleet report validates against its schema" \
  $PY "$root/tests/check_schema.py" "$root/schema/memtopo-fleet.schema.json" "$tmp/fleet.json"
check "fleet report: flagged_members is [4]" \
  $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["flagged_members"] != [4] or d["result"] != "differs")' "$tmp/fleet.json"
check "fleet report: each member's report validates" \
  $PY -c '
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
for i, m in enumerate(d["members"]):
    p = sys.argv[3] + "/m%d.json" % i
    json.dump(m["report"], open(p, "w"))
    if subprocess.run([sys.executable, sys.argv[2], sys.argv[4], p], capture_output=True).returncode:
        sys.exit(1)' "$tmp/fleet.json" "$root/tests/check_schema.py" "$tmp" "$root/schema/memtopo-report.schema.json"

run_mt compare "$fx/report.json" "$tmp/missing.json"
check "missing file: exit 2" rc_is 2
check "missing file: one line naming it" one_line_err
check "missing file: the message names it" err_has "missing.json"
echo '{"schema_version": "2.3.0"}' >"$tmp/bad.json"
run_mt compare "$fx/report.json" "$tmp/bad.json"
check "malformed report: exit 2, one line" eval 'rc_is 2 && one_line_err'
run_mt compare "$fx/report.json"
check "one report: exit 2" eval 'rc_is 2 && one_line_err && err_has "at least two"'
run_mt compare --bogus a b
check "unknown option: exit 2" eval 'rc_is 2 && one_line_err'
run_mt compare --json "$tmp/nodir/x.json" "$fx/report.json" "$fx/report.json"
check "unwritable --json: exit 5, no stdout table" eval 'rc_is 5 && one_line_err'
run_mt compare --help
check "compare --help: exit 0" eval 'rc_is 0 && out_has "Exit status: 0 same, 7 differs"'
finish
