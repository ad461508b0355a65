#!/usr/bin/env bash
# The real H100 stays under test without a GPU: replay the runs recorded in
# tests/fixtures/h100-sxm5-2 (bench/device_check.sh, 2026-11-23) and check
# (1) the idle run's table and findings are exactly the ones the GPU run
# printed, (2) they are consistent with the documented H100, (3) five
# consecutive GPU runs agree, (4) the carveout sweep and the issue-8
# geometry, profile and L2 map hold what the H100 showed.  (The run beside a
# memory-bound load was recorded again on 2026-11-23 08:45 but its recording,
# 37 MB compressed, is too large to bring back; its replay returns with the
# next GPU session.)
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx="$root/tests/fixtures/h100-sxm5-2"
table() { sed -n '/^Caches$/,/^Latency and miss/p' "$1"; }

check "fixture unpacks" tar -C "$tmp" -xJf "$fx/recording.tar.xz"
run_mt --replay "$tmp/rec" --quiet --json "$tmp/replay.json"
check "replay exits 0" rc_is 0
check "replayed table equals the table printed on the H100" diff <(table "$fx/report.txt") <(table "$tmp/out")
check "replay JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/replay.json"
check "GPU JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$fx/report.json"
# texture.size is left out until the runs are recorded again: the
# derivation shared_sizes_agree (branch s5-contract) now gives the texture
# path the L1's trusted size (the same physical array) where its own line
# test had doubted its own, agreeing search; the experiments are the same.
# The check after this one holds the new finding.
no_tex_size() { grep -v '^texture\.size|'; }
check "replayed findings equal the GPU run's (but texture.size)" \
  diff <($PY "$root/tests/findings_digest.py" "$fx/report.json" | no_tex_size) \
  <($PY "$root/tests/findings_digest.py" "$tmp/replay.json" | no_tex_size)
tex_size_is_l1s() {
  $PY - "$1" <<'PY'
import json, sys
o = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}
t, l = o["texture"]["size"], o["l1d"]["size"]
assert t["kind"] == "value" and t["source"] == "derived" and t["value"] == l["value"], (t, l)
assert t["confidence"] >= 0.5 and "shares this physical cache" in t["note"], t
PY
}
check "texture size: the L1's trusted size, derived (one physical array)" tex_size_is_l1s "$tmp/replay.json"
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
assert v(o["l2"]["line"]) == 128
lat = [v(o[k]["latency"]) for k in ("shared", "l1d", "l2", "dram")]
assert lat == sorted(lat) and len(set(lat)) == 4, lat   # shared < L1 < L2 < DRAM
clock = v(o["gpu"]["sm_clock"])
assert abs(clock - d["clock_khz"] / 1000) <= 0.02 * clock, clock   # an idle H100 runs at its max clock
assert not r["provenance"].get("disturbed") and not r["provenance"].get("interrupted")
PY

# Repeatability measured on 2026-11-23 (04:40 run): cache sizes within 0.17%, hit
# latencies identical, miss penalties within 0.1 cycles, DRAM within 2.1
# cycles (0.3%), the L2 partition identical (1.7% in the 02:22 run).
check "five consecutive H100 runs agree (sizes 0.5%, latencies 1 cycle or 1%)" $PY - "$fx"/report.json "$fx"/report-run[2-5].json <<'PY'
import json, sys
rs = [json.load(open(p)) for p in sys.argv[1:]]
assert len(rs) == 5
find = lambda r: {o["key"] + "." + k: f for o in r["objects"] for k, f in o["findings"].items()}
fs = [find(r) for r in rs]
for k, f in fs[0].items():
    if f["kind"] != "value" or f["source"] == "driver" or f["unit"] not in ("B", "cycles"):
        continue
    # A run may give a range where the others give values (run 4's L1
    # size, an unconfirmed edge): its ends count as two of the values.
    vals = [v for x in fs for v in ([x[k]["value"]] if x[k]["kind"] == "value"
                                    else [x[k]["lo"], x[k]["hi"]] if x[k]["kind"] == "range" else [])]
    assert len(vals) >= 5, (k, vals)
    if k == "l2.partition_size":   # searched in steps of 1/256 of the L2; 3.4% apart on 2026-11-23 08:45
        tol = 0.04 * max(vals)
    elif f["unit"] == "B":
        tol = 0.005 * max(vals)
    else:
        tol = max(1.0, 0.01 * max(vals))
    assert max(vals) - min(vals) <= tol, (k, vals)
PY

# The carveout sweep (--carveout all, issue 8) recorded on the same H100:
# the replay prints what the GPU printed, the fitted slope is -1 within 2%
# (each byte of shared memory is a byte less of L1), and every carveout's
# L1 size lies on the fitted line within 1%.
check "carveout fixture unpacks" tar -C "$tmp" -xJf "$fx/recording-carveout.tar.xz"
run_mt --replay "$tmp/rec-carveout" --carveout all --quiet --json "$tmp/carveout.json"
check "carveout replay exits 0" rc_is 0
check "carveout replay's table equals the GPU run's" diff <(table "$fx/report-carveout.txt") <(table "$tmp/out")
check "carveout replay's findings equal the GPU run's (but texture.size)" \
  diff <($PY "$root/tests/findings_digest.py" "$fx/report-carveout.json" | no_tex_size) \
  <($PY "$root/tests/findings_digest.py" "$tmp/carveout.json" | no_tex_size)
check "carveout texture size: the L1's trusted size, derived" tex_size_is_l1s "$tmp/carveout.json"
check "H100 carveout sweep: slope -1 within 2%, every size on the line within 1%" $PY - "$tmp/carveout.json" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
l1 = next(o for o in r["objects"] if o["key"] == "l1d")["findings"]
slope, unified = l1["carveout_slope"]["value"], l1["carveout_unified"]["value"]
assert abs(slope + 1) <= 0.02, slope
sizes = {int(re.search(r"(\d+)KiB", k).group(1)): f for k, f in l1.items() if k.startswith("size_at_carveout_")}
assert len(sizes) == 8, sorted(sizes)
for kib, f in sizes.items():
    v = f["value"] if f["kind"] == "value" else (f["lo"] + f["hi"]) / 2
    line = unified + slope * kib * 1024
    assert abs(v - line) <= 0.01 * line, (kib, v, line)
PY

# The issue-8 probes in the default run (geometry, l1d_profile, l2map),
# from the idle recording and the five runs: the L1's XOR set-index hash
# recovered and verified by prediction, the same in every run; the miss
# profile's quarter plateau; the L2 near/far map with two SM groups.
check "H100 L1 geometry: 4 ways x 512 sets, an XOR index, the same masks in all five runs" $PY - "$tmp/replay.json" "$fx"/report-run[2-5].json <<'PY'
import json, sys
rs = [json.load(open(p)) for p in sys.argv[1:]]
l1s = [next(o for o in r["objects"] if o["key"] == "l1d")["findings"] for r in rs]
for l1 in l1s:
    # (the first run of 08:45 capped these at 0.4 without a note: under study)
    assert l1["index"]["text"] == "xor", l1["index"]
    assert l1["ways"]["value"] == 4 and l1["sets"]["value"] == 512, (l1["ways"], l1["sets"])
    assert l1["index_masks"]["text"] == l1s[0]["index_masks"]["text"], l1["index_masks"]
    # the tag array is the whole 256 KiB unified array: sets x ways x line
    assert l1["sets"]["value"] * l1["ways"]["value"] * l1["line"]["value"] == 256 * 1024
    assert "plateau" in l1["miss_profile"]["text"], l1["miss_profile"]
PY
check "H100 L2 near/far map: two SM groups, about half the lines near, far slower" $PY - "$tmp/replay.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l2 = next(o for o in r["objects"] if o["key"] == "l2")["findings"]
assert l2["map_groups"]["value"] == 2 and l2["map_groups"]["confidence"] >= 0.5, l2["map_groups"]
assert 0.4 <= l2["near_share"]["value"] <= 0.6, l2["near_share"]
assert 10 <= l2["far_penalty"]["value"] <= 80, l2["far_penalty"]
assert len(l2["sm_map"]["text"]) == r["device"]["sm_count"] and set(l2["sm_map"]["text"]) == {"0", "1"}
PY

finish
