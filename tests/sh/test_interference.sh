#!/usr/bin/env bash
# Issue 7 through the CLI: a simulated neighbour that arrives mid-run gives
# a degraded report (exit 6, one warning line on stderr, a DISTURBED block,
# provenance.disturbed in JSON that validates), while an idle GPU gives
# none of these.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

run_mt --sim "$root/tests/specs-tenant/h100-arrives.spec" --quiet --json "$tmp/d.json"
check "disturbed run exits 6" rc_is 6
check "one warning line on stderr" one_line_err
check "the warning names the cause" err_has "another workload on the GPU"
check "text report says DISTURBED" out_has "^  DISTURBED "
check "degraded JSON validates" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/d.json"
check "provenance.disturbed lists causes; their findings are below 0.5" $PY -c "
import json; d=json.load(open('$tmp/d.json')); causes=d['provenance']['disturbed']
assert causes and all(c.startswith('probe ') or c.startswith('... and ') for c in causes), causes  # the list is capped
low=[f for o in d['objects'] for f in o['findings'].values() if 'disturbed:' in f['note']]
assert low and all(f['confidence'] < 0.5 for f in low)"

run_mt --sim "$root/tests/specs-tenant/v100-duty.spec" --quiet --only shared
check "busy neighbour's processes are listed" out_has "^  Other processes 2 other processes on this GPU (777 sim-tenant, 778 sim-tenant)"

run_mt --sim h100 --quiet --json "$tmp/i.json"
check "idle run exits 0" rc_is 0
check "idle run: nothing on stderr" test ! -s "$tmp/err"
check "idle run: no DISTURBED, no other processes" bash -c "! grep -q 'DISTURBED\|Other processes' '$tmp/out'"
check "idle JSON: disturbed is null, other_processes 0" $PY -c "
import json; d=json.load(open('$tmp/i.json'))
assert d['provenance']['disturbed'] is None and d['device']['other_processes'] == 0"
finish
