#!/usr/bin/env bash
# The real H100 stays under test without a GPU: replay the recorded run in
# tests/fixtures/h100-sxm5 and check (1) the table is exactly the one the GPU
# run printed, (2) the findings are consistent with the documented H100 and
# with each other, (3) three consecutive GPU runs agree.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx="$root/tests/fixtures/h100-sxm5"
table() { sed -n '/^Caches$/,/^Latency and miss/p' "$1"; }

check "fixture unpacks" tar -C "$tmp" -xJf "$fx/recording.tar.xz"
run_mt --replay "$tmp/rec" --quiet --json "$tmp/replay.json"
check "replay exits 0" rc_is 0
check "replayed table equals the table printed on the H100" diff <(table "$fx/report.txt") <(table "$tmp/out")
check "replay JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/replay.json"
# The GPU run was written in report schema 1 (kept as memtopo-report-1.schema.json).
check "GPU JSON validates against schema 1" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report-1.schema.json" "$fx/report.json"
# Finding by finding (tests/findings_digest.py reads both schemas); l2.mean_latency
# is the one finding added since, and issue 7 added two note suffixes (the
# line's distance from its power of two, the BIC evidence for a far class),
# cut here (tests/golden/README.md).
check "replayed findings equal the GPU run's" diff <($PY "$root/tests/findings_digest.py" "$fx/report.json") \
  <($PY "$root/tests/findings_digest.py" "$tmp/replay.json" | grep -v '^l2\.mean_latency|' |
    sed -E 's/, [0-9]+% from [0-9]+ B( \(beyond MT_LINE_RATIO_FIRM: weak evidence\))?$//;
            s/, two populations by BIC: delta [0-9]+ >= 10\)/)/')
check "replayed device equals the GPU run's" $PY - "$fx/report.json" "$tmp/replay.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k, v in a["device"].items():
    assert b["device"][k] == v, k
PY

check "findings consistent with the documented H100" $PY - "$tmp/replay.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); d = r["device"]
o = {x["key"]: x["findings"] for x in r["objects"]}
v = lambda f: f["value"]
l1 = ["l1d", "texture", "readonly"]
for k in l1:  # one physical cache for L1, texture and read-only, one per SM
    assert set(o[k]["shared_with"]["members"]) == set(l1) - {k}, (k, o[k]["shared_with"])
    assert v(o[k]["per_sm"]) == 1, k
    assert v(o[k]["line"]) == 128 and v(o[k]["sector"]) == 32, k
    expect = 256 * 1024 - d["carveout_smem_bytes"]   # L1 = 256 KiB unified minus carveout
    assert d["carveout_smem_bytes"] > 0
    assert abs(v(o[k]["size"]) - expect) <= 0.10 * expect, (k, v(o[k]["size"]), expect)
assert v(o["l1d"]["caches_global_loads"]) == 1
assert abs(v(o["const_l1"]["size"]) - 2048) <= 256 and v(o["const_l1"]["line"]) == 64
assert o["const_l15"]["size"]["kind"] in ("value", "lower_bound")
assert o["l2"]["size"]["source"] == "driver" and v(o["l2"]["size"]) == 52428800
assert o["l2"]["partition_size"]["source"] == "measured" and o["l2"]["partition_size"]["kind"] == "value"
lat = [v(o[k]["latency"]) for k in ("shared", "l1d", "l2", "dram")]
assert lat == sorted(lat) and len(set(lat)) == 4, lat   # shared < L1 < L2 < DRAM
PY

check "three consecutive H100 runs agree (sizes 1%, latencies 3%)" $PY - "$fx"/report.json "$fx"/report-run2.json "$fx"/report-run3.json <<'PY'
import json, sys
rs = [json.load(open(p)) for p in sys.argv[1:]]
for k in rs[0]["caches"]:
    for field, tol in (("size", 0.01), ("latency", 0.03)):
        vals = [r["caches"][k][field]["value"] for r in rs
                if r["caches"][k][field] and "value" in r["caches"][k][field]]
        if vals:
            assert max(vals) - min(vals) <= tol * max(vals), (k, field, vals)
PY
finish
