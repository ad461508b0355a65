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
check "replayed 'Other findings' equal the H100 run's" diff <(sed -n '/^Other findings$/,/^$/p' "$fx/report.txt") <(sed -n '/^Other findings$/,/^$/p' "$tmp/out")
check "replay JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/replay.json"
check "GPU JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$fx/report.json"
check "replayed findings equal the GPU run's JSON" $PY - "$fx/report.json" "$tmp/replay.json" <<'PY'
import json, math, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def same(x, y, path):
    if isinstance(x, dict):
        assert x.keys() == y.keys(), path
        for k in x: same(x[k], y[k], path + "/" + k)
    elif isinstance(x, list):
        assert len(x) == len(y), path
        for i, (p, q) in enumerate(zip(x, y)): same(p, q, f"{path}[{i}]")
    elif isinstance(x, float) or isinstance(y, float):
        assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9), (path, x, y)
    else:
        assert x == y, (path, x, y)
same(a["caches"], b["caches"], "caches"); same(a["findings"], b["findings"], "findings")
same(a["device"], b["device"], "device")
PY

check "findings consistent with the documented H100" $PY - "$tmp/replay.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); c = r["caches"]; d = r["device"]; f = r["findings"]
v = lambda x: x["value"]
l1 = ["l1d", "texture", "readonly"]
for k in l1:  # one physical cache for L1, texture and read-only, one per SM
    assert set(c[k]["shared_with"]) == set(l1) - {k}, (k, c[k]["shared_with"])
    assert v(c[k]["per_sm"]) == 1, k
    assert v(c[k]["line"]) == 128 and v(c[k]["sector"]) == 32, k
    expect = 256 * 1024 - d["carveout_smem_bytes"]   # L1 = 256 KiB unified minus carveout
    assert d["carveout_smem_bytes"] > 0
    assert abs(v(c[k]["size"]) - expect) <= 0.10 * expect, (k, v(c[k]["size"]), expect)
assert v(f["l1_caches_global"]) == 1
assert abs(v(c["const_l1"]["size"]) - 2048) <= 256 and v(c["const_l1"]["line"]) == 64
assert c["const_l15"]["size"]["kind"] in ("value", "lower_bound")
assert c["l2"]["size"]["source"] == "driver" and v(c["l2"]["size"]) == 52428800
assert f["l2_partition_size"]["source"] == "measured" and f["l2_partition_size"]["kind"] == "value"
lat = [v(c[k]["latency"]) for k in ("shared", "l1d", "l2", "dram")]
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
