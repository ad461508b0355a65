#!/usr/bin/env bash
# The opt-in bandwidth probe's new L2 and per-GPU figures from the command
# line (--bandwidth with l2map): on the simulated H100 and on a spec whose
# GPU-wide links bind, the near (shared-data) and whole-L2 reads and the
# per-GPU MLP are reported with the model's values (docs/spec-format.md,
# "Throughput"), and a recording of them replays to the same findings.
source "$(dirname "$0")/lib.sh"
findings() { # KEY.NAME VALUE for the L2 and DRAM bandwidth/MLP findings
  python3 -c 'import json,sys
for o in json.load(open(sys.argv[1]))["objects"]:
    if o["key"] in ("l2", "dram"):
        for k, v in sorted(o.get("findings", {}).items()):
            if (k.startswith(("bw_", "gbps_", "mlp"))) and v["kind"] != "none":
                x = v.get("value")
                print(o["key"] + "." + k, v["kind"], round(v.get("lo", 0) if x is None else x, 2))' "$1"
}
near() { # near FILE KEY WANT TOL: the finding is a value within TOL of WANT
  awk -v k="$2" -v w="$3" -v t="$4" '$1 == k && $2 == "value" { d = $3 - w; if (d < 0) d = -d; ok = d <= t }
    END { exit !ok }' "$1"
}
lacks() { ! grep -q "$1" "$2"; }
bound_below() { # bound_below FILE KEY WANT: the finding is a lower bound at most WANT
  awk -v k="$2" -v w="$3" '$1 == k && $2 == "lower_bound" { ok = $3 > 0 && $3 <= w } END { exit !ok }' "$1"
}
run_mt --sim h100 --only l2,l2map --bandwidth --quiet --json "$tmp/h100.json" --record "$tmp/rec"
check "--bandwidth with l2map runs on the h100 preset" rc_is 0
findings "$tmp/h100.json" >"$tmp/live"
# The preset: L2 5500 B/clk over 132 SMs, mean latency (270 + 297) / 2,
# 512 miss slots per SM.
check "h100: near read at the L2's 5500 / 132 B/clk/SM" near "$tmp/live" l2.bw_read 41.67 1.25
check "h100: whole-L2 read too" near "$tmp/live" l2.bw_read_whole 41.67 1.25
check "h100: the whole-L2 read ran balanced (backend 2.11), and says so" \
  grep -q "the whole L2 [^\"]*, balanced;" "$tmp/h100.json"
check "h100: the recording holds balanced reads" grep -q "balanced=1" "$tmp/rec/experiments.csv"
check "h100: the read within a partition too (the model merges no requests)" \
  near "$tmp/live" l2.bw_read_partition 41.67 1.25
check "h100: its note names the data and the SMs reading each line" \
  grep -q "KiB per SM of [0-9]* KiB, each line read by [0-9.]* SMs" "$tmp/h100.json"
check "h100: the GPU keeps 5500 / 32 x 283.5 loads in flight at the L2" \
  near "$tmp/live" l2.mlp_gpu 48726 132
check "h100: the near read's note names the shared data" \
  grep -q "KiB per SM of [0-9]* KiB all SMs read" "$tmp/h100.json"
check "h100: the per-GPU MLP's note lists the sweep over SMs" \
  grep -q "SMs: in flight 1: [0-9]*, 2: " "$tmp/h100.json"
run_mt --replay "$tmp/rec" --only l2,l2map --bandwidth --quiet --json "$tmp/back.json"
check "the recording replays" rc_is 0
findings "$tmp/back.json" >"$tmp/back"
check "the replay gives the same findings" diff "$tmp/live" "$tmp/back"
# A recording made before backend 2.11 (no balanced reads): its replay
# announces none, so the whole-L2 read takes the static split it recorded.
python3 -c 'import sys
rows = open(sys.argv[1]).read().split("\n")
open(sys.argv[1], "w").write("\n".join(r.replace(" balanced=1", "") for r in rows))' "$tmp/rec/experiments.csv"
run_mt --replay "$tmp/rec" --only l2,l2map --bandwidth --quiet --json "$tmp/old.json"
check "a recording without balanced reads replays" rc_is 0
check "... its whole-L2 read not balanced" lacks "the whole L2 [^\"]*, balanced;" "$tmp/old.json"
spec=$root/tests/specs/bw-gpu-bound-two-partitions.spec
run_mt --sim "$spec" --only l2,l2map --bandwidth --quiet --json "$tmp/gpu.json"
check "--bandwidth runs on bw-gpu-bound-two-partitions" rc_is 0
findings "$tmp/gpu.json" >"$tmp/gpu"
check "links bind: whole-L2 read at 320 / 16 B/clk/SM" near "$tmp/gpu" l2.bw_read_whole 20 0.6
check "links bind: the read within a partition too" near "$tmp/gpu" l2.bw_read_partition 20 0.6
check "links bind: 10 x 269.5 loads in flight to the L2 per GPU" near "$tmp/gpu" l2.mlp_gpu 2695 16
check "links bind: 5 x 550 loads in flight to DRAM per GPU" near "$tmp/gpu" dram.mlp_gpu 2750 16
check "one SM alone still fills its 256 miss slots" near "$tmp/gpu" l2.mlp 256 1
# The whole-L2 read's footprint keeps the widest rounds of loads (random
# specs w1364, w1756, w1943): 32 KiB per SM, not 40 KiB (5 x 8 KiB).
run_mt --sim "$root/tests/specs/bw-whole-l2-odd-share.spec" --bandwidth --quiet --json "$tmp/odd.json"
check "--bandwidth runs on bw-whole-l2-odd-share" rc_is 0
findings "$tmp/odd.json" >"$tmp/odd"
check "odd share: whole-L2 read at the 52.7 B/clk/SM its 512 miss slots allow" \
  near "$tmp/odd" l2.bw_read_whole 52.7 1.6
check "odd share: its footprint is 32 KiB per SM" grep -q "the whole L2 [^\"]*32 KiB per SM" "$tmp/odd.json"
# No footprint in range tiles a wide round: the figure is a lower bound.
run_mt --sim "$root/tests/specs/bw-whole-l2-capped.spec" --bandwidth --quiet --json "$tmp/cap.json"
check "--bandwidth runs on bw-whole-l2-capped" rc_is 0
findings "$tmp/cap.json" >"$tmp/cap"
check "capped: whole-L2 read a lower bound below the 52.7 B/clk/SM of 512 miss slots" \
  bound_below "$tmp/cap" l2.bw_read_whole 52.7
check "capped: in GB/s too" bound_below "$tmp/cap" l2.gbps_read_whole 3162
finish
