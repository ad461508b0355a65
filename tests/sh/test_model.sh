#!/usr/bin/env bash
# memtopo model: predictions from the recorded H100 (its default report
# with the bandwidth/MLP findings of the same fixture's --bandwidth run)
# for the toy ncu profile and the .kd kernels; JSON that its schema
# accepts; what-if side by side; bad input is one line and exit 2, with no
# half-written JSON.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
fx=$root/tests/fixtures/h100-sxm5-2
md=$root/tests/model
# The third idle run: the first one of the 2026-11-24 10:14 fixture read
# the L1 size as a doubted range, and the model takes values only.
$PY - "$fx/report-run3.json" "$fx/report-bwtlb.json" "$tmp/h100.json" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
extra = {o["key"]: o["findings"] for o in b["objects"]}
for o in a["objects"]:
    for k, v in extra.get(o["key"], {}).items():
        o["findings"].setdefault(k, v)
json.dump(a, open(sys.argv[3], "w"))
PYEOF

run_mt model -t "$tmp/h100.json" "$md/ncu/toy-raw.csv" --sass "$md/ncu/toy-sass.csv" --json "$tmp/m.json"
check "ncu profile: exit 0" rc_is 0
check "ncu profile: five launches predicted" [ "$(grep -c '^Kernel ' "$tmp/out")" = 5 ]
check "every input printed with its finding" out_has "dram.gbps_read .* dram.gbps_read"
check "assumptions stated" out_has "model.alu_latency = 4 cycles assumed"
check "JSON validates against its schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-model.schema.json" "$tmp/m.json"
# The copy streams 2.1 GB: DRAM bandwidth limits it, within 15% of the
# bytes over the measured copy bandwidth; the stack sums to the total.
check "stream copy: DRAM bandwidth, bytes / bandwidth" $PY - "$tmp/m.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["predictions"][0]["base"]
bw = [i["value"] for i in d["machine"]["inputs"] if i["key"] == "dram.gbps_copy"][0]
want = 2.13e9 / (bw * 1e9)
ok = "DRAM bandwidth" in p["limit"] and abs(p["seconds"] / want - 1) < 0.15
ok &= all(abs(sum(q["base"]["stack"].values()) / q["base"]["cycles"] - 1) < 1e-9 for q in d["predictions"])
sys.exit(0 if ok else 1)
PYEOF

run_mt model -t "$tmp/h100.json" "$md/ncu/toy-raw.csv" -k 4 --scheduler rr
check "--kernel ID picks one launch" [ "$(grep -c '^Kernel ' "$tmp/out")" = 1 ]
check "--kernel ID: the chase" out_has "^Kernel 4:chase"

for kd in "$md"/*.kd; do
  run_mt model -t "$tmp/h100.json" "$kd"
  check "$(basename "$kd"): predicted" rc_is 0
done
run_mt model -t "$tmp/h100.json" "$md/stream_dram.kd" -w dram.gbps_read=2x -w dram.gbps_write=2x -w dram.gbps_copy=2x --json "$tmp/w.json"
check "what-if: side by side" out_has "what-if"
check "what-if: twice the DRAM bandwidth, a faster stream" $PY -c "
import json,sys; p=json.load(open('$tmp/w.json'))['predictions'][0]
sys.exit(0 if p['what_if']['seconds'] < 0.7*p['base']['seconds'] else 1)"
check "what-if JSON validates" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-model.schema.json" "$tmp/w.json"

# Bad input: one line naming it, exit 2, no JSON left behind.
run_mt model -t "$fx/report-run3.json" "$md/fma_chain.kd" --json "$tmp/bad.json"
check "report without --bandwidth: exit 2" rc_is 2
check "report without --bandwidth: names the finding and the option" err_has "l1d.bw_read (measure it with memtopo --bandwidth)"
check "no half-written JSON" no_file "$tmp/bad.json"
printf 'grid = 1\nblock = 32\ninst = 10\nspeed = 3\n' >"$tmp/x.kd"
run_mt model -t "$tmp/h100.json" "$tmp/x.kd" --json "$tmp/bad.json"
check "bad .kd: exit 2" rc_is 2
check "bad .kd: one line naming the line" one_line_err
check "bad .kd: file and line" err_has "x.kd:4: unknown key \"speed\""
check "bad .kd: no JSON" no_file "$tmp/bad.json"
echo "hello" >"$tmp/x.csv"
run_mt model -t "$tmp/h100.json" "$tmp/x.csv"
check "not an ncu CSV: exit 2" rc_is 2
check "not an ncu CSV: says what is missing" err_has "no ncu raw CSV header"
run_mt model -t "$tmp/h100.json" "$md/fma_chain.kd" -w l2.colour=3
check "unknown what-if key: exit 2" rc_is 2
run_mt model -t "$tmp/h100.json" "$md/fma_chain.kd" --scheduler lottery
check "unknown scheduler: exit 2" rc_is 2
run_mt model -t "$tmp/h100.json" "$tmp/none.kd"
check "missing kernel file: exit 2" rc_is 2
run_mt model -t "$tmp/h100.json"
check "no kernel: exit 2" rc_is 2
# No report: the simulated H100 is measured on the spot (with --bandwidth).
run_mt model --sim h100 "$md/fma_chain.kd"
check "--sim: measured on the spot" rc_is 0
check "--sim: bandwidth from the measured finding" out_has "dram.gbps_read .* dram.gbps_read$"

run_mt model --help
check "--help: exit 0" rc_is 0
check "--help: names the options" out_has "--what-if KEY=VALUE"
finish
