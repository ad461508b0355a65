#!/usr/bin/env bash
# Which SMs share a TLB level, from the command line (tlb_share.c inside
# --tlb): on a simulated GPU whose levels are shared by groups of 2 and 8
# SMs the report says 2 and 8, the recording keeps the together chases
# (backend 2.10, `together=G` in experiments.csv, each pair on two SMs),
# and the replay gives the same findings.
source "$(dirname "$0")/lib.sh"
PY=${PY:-python3}
spec=$root/tests/specs-tlb/tlb-share-groups.spec
run_mt --sim "$spec" --only l2 --tlb --quiet --json "$tmp/t.json" --record "$tmp/rec"
check "--tlb on groups of 2 and 8 SMs exits 0" rc_is 0
check "the report fits the schema" $PY "$root/tests/check_schema.py" \
  "$root/schema/memtopo-report.schema.json" "$tmp/t.json"
check "tlb1 and tlb2 shared by groups of 2 and 8 SMs" $PY - "$tmp/t.json" <<'PY'
import json, sys
o = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}
for key, want in (("tlb1", 2), ("tlb2", 8)):
    g = o[key]["sms_per_group"]
    assert g["kind"] == "value" and g["value"] == want and g["confidence"] >= 0.5, (key, g)
PY
check "the recording keeps the pairs, each on two SMs" $PY - "$tmp/rec/experiments.csv" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
pairs = defaultdict(list)
for r in rows:
    if "together=" in r["params"]:
        pairs[r["batch"]].append(int(r["sm"]))
assert len(pairs) >= 4, pairs
for b, sms in pairs.items():
    assert len(sms) == 2 and sms[0] == 0 and sms[1] > 0, (b, sms)
PY
run_mt --replay "$tmp/rec" --only l2 --tlb --quiet --json "$tmp/r.json"
check "the recording replays" rc_is 0
check "the replay's findings equal the run's" diff <($PY "$root/tests/findings_digest.py" "$tmp/t.json") \
  <($PY "$root/tests/findings_digest.py" "$tmp/r.json")
finish
