#!/usr/bin/env bash
# The opt-in latency matrix from the command line (probe_matrix.c,
# --matrix): it runs with the TLB probe it needs, reports its cells on the
# gpu object (numbers where a chain lands, "not measurable: WHY" where none
# can), has its own timing row, is absent from the default run, and
# replays from a recording to the same findings.
source "$(dirname "$0")/lib.sh"
PY=${PY:-python3}
run_mt --sim h100 --matrix --only l1d --quiet --json "$tmp/m.json" --record "$tmp/rec"
check "--matrix exits 0" rc_is 0
check "the cells: numbers where a chain lands, reasons where none can" $PY - "$tmp/m.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
o = {x["key"]: x["findings"] for x in r["objects"]}
g = o["gpu"]
# Simulated H100: L2 270 near / 297 far, DRAM 694, TLB penalties 30 and 120.
for name, want in (("lat_l2near_tlbmiss0", 270), ("lat_l2far_tlbmiss1", 327),
                   ("lat_dram_tlbmiss2", 844)):
    f = g[name]
    assert f["kind"] == "value" and abs(f["value"] - want) <= 2, (name, f)
for name in ("lat_l1_tlbmiss1", "lat_dram_tlbmiss3"):
    f = g[name]
    assert f["kind"] == "text" and f["text"].startswith("not measurable: "), (name, f)
assert o["tlb1"]["entries"]["kind"] == "value", o["tlb1"]["entries"]
assert any(t["probe"] == "matrix" for t in r["timing"]["probes"]), r["timing"]
PY
run_mt --replay "$tmp/rec" --matrix --only l1d --quiet --json "$tmp/replay.json"
check "--matrix replays from its recording" rc_is 0
check "the replay's cells equal the run's" $PY - "$tmp/m.json" "$tmp/replay.json" <<'PY'
import json, sys
cells = [{k: v for k, v in next(x for x in json.load(open(p))["objects"] if x["key"] == "gpu")
          ["findings"].items() if k.startswith("lat_")} for p in sys.argv[1:]]
assert len(cells[0]) == 16 and cells[0] == cells[1], cells
PY
run_mt --sim h100 --only l1d --quiet --json "$tmp/default.json"
check "the default run has no matrix" $PY - "$tmp/default.json" <<'PY'
import json, sys
g = next(x for x in json.load(open(sys.argv[1]))["objects"] if x["key"] == "gpu")["findings"]
assert not any(k.startswith("lat_") for k in g), g
PY
run_mt --help
check "--help describes --matrix" out_has "--matrix"
finish
