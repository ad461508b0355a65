#!/usr/bin/env bash
# Links (issue 11 part 2) on the simulator: a node of two GPUs joined by
# NVLink (tests/specs-links) gives every GPU's host link and its link to
# the other in the node summary's link matrix; a degraded link in one spec
# is flagged SLOW (exit 7) and only that one; --no-links leaves them out;
# --links measures one GPU's host link; memtopo compare flags a slow host
# link and passes an identical report; a recording replays the links;
# the reports validate; the contract's truth holds on the node specs and
# the h100 preset; bad [link] sections are refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
S=$root/tests/specs-links
valid() { $PY "$root/tests/check_schema.py" "$root/schema/$1" "$2" >/dev/null; }

run_mt --sim "$S/node2-gpu0.spec" --sim "$S/node2-gpu1.spec" --only dram --json "$tmp/node.json" -q
check "two linked GPUs: exit 0" rc_is 0
run_mt --sim "$S/node2-gpu0.spec" --sim "$S/node2-gpu1.spec" --only dram -q
check "two linked GPUs: the link matrix has 4 links" out_has "^Links (4;"
check "two linked GPUs: #0 to GPU 1 is NVLink 2 x2 with peer access" \
  out_has "^  #0   GPU 1   NVLink 2 x2      yes "
check "two linked GPUs: #1 to the host is PCIe Gen3 x16" out_has "^  #1   host    PCIe Gen3 x16 "
check "two linked GPUs: nominal 50 GB/s computed (2 NVLink 2 x 25)" \
  out_has "^  #0   GPU 1 .* 50$"
check "two linked GPUs: none slow" out_has "^Links between GPUs: 0 slow"
check "node report validates" valid memtopo-fleet.schema.json "$tmp/node.json"
check "node report holds GPU 0's link to GPU 1 (JSON; the latency a value or a range holding it)" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
o = [x for x in d["members"][0]["report"]["objects"] if x["key"] == "link_gpu1"][0]
f = o["findings"]
sys.exit(not (o["type"] == "link" and f["type"]["text"] == "NVLink 2 x2" and
              abs(f["copy_in_bandwidth"]["value"] - 47.0) < 0.03 * 47.0 and
              (abs(f["latency"].get("value", 0) - 1100) <= 2 or
               f["latency"].get("lo", 1e9) <= 1100 <= f["latency"].get("hi", 0))))' "$tmp/node.json"

run_mt --sim "$S/node2-gpu0.spec" --sim "$S/node2-gpu1-slow.spec" --only dram -q
check "one link degraded: exit 7" rc_is 7
check "one link degraded: #1's link to GPU 0 is SLOW" out_has "^  #1   GPU 0 .*SLOW: read_bandwidth"
check "one link degraded: only that one" out_has "^Links between GPUs: 1 slow"
check "one link degraded: #0's link to GPU 1 is not flagged" \
  eval '! grep -q "^  #0   GPU 1 .*SLOW" "$tmp/out"'

run_mt --sim "$S/node2-gpu0.spec" --sim "$S/node2-gpu1-slow.spec" --only dram --no-links -q
check "--no-links: exit 0, no link matrix" eval 'rc_is 0 && out_has "^Links: not measured"'
check "--no-links: no links timing row" eval '! grep -q "^  links " "$tmp/out"'

run_mt --sim "$S/node2-gpu0.spec" --only dram --links --json "$tmp/a.json" -q
check "--links on one GPU: exit 0" rc_is 0
check "--links: report validates" valid memtopo-report.schema.json "$tmp/a.json"
check "--links: its own timing row" $PY -c '
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
sys.exit(not any(r["probe"] == "links" for r in t["probes"]))' "$tmp/a.json"
check "--links: the host link only (no peer named)" $PY -c '
import json, sys
ks = [o["key"] for o in json.load(open(sys.argv[1]))["objects"] if o["type"] == "link" and o["probed"]]
sys.exit(ks != ["link_host"])' "$tmp/a.json"
run_mt --sim "$S/node2-gpu0.spec" --only dram --json "$tmp/none.json" -q
check "without --links a report holds no link object (none left empty)" $PY -c '
import json, sys
sys.exit(any(o["key"].startswith("link_") for o in json.load(open(sys.argv[1]))["objects"]))' "$tmp/none.json"
check "a node run's GPU 0 holds its host link and its link to GPU 1 only" $PY -c '
import json, sys
r = json.load(open(sys.argv[1]))["members"][0]["report"]
sys.exit([o["key"] for o in r["objects"] if o["key"].startswith("link_")] != ["link_host", "link_gpu1"])' "$tmp/node.json"
check "without --links a single run measures no link" $PY -c '
import json, sys
sys.exit(any(o["type"] == "link" and o["probed"] for o in json.load(open(sys.argv[1]))["objects"]))' "$tmp/none.json"

run_mt --sim "$S/host-slow.spec" --only dram --links --json "$tmp/b.json" -q
run_mt compare "$tmp/a.json" "$tmp/a.json"
check "compare: an identical report passes" rc_is 0
run_mt compare "$tmp/a.json" "$tmp/b.json"
check "compare: a slow host link differs (exit 7)" rc_is 7
check "compare: the host link's copy bandwidth is flagged" out_has "^link_host.copy_in_bandwidth .*#1 "
check "compare: and its width" out_has "^link_host.pcie_width .*#1 4"

run_mt --sim "$S/node2-gpu0.spec" --only dram --links --record "$tmp/rec" --json "$tmp/r1.json" -q
run_mt --replay "$tmp/rec" --only dram --links --json "$tmp/r2.json" -q
check "replay of a --links recording: exit 0" rc_is 0
check "replay: the same link findings" $PY -c '
import json, sys
def links(p):
    return [(o["key"], o["findings"]) for o in json.load(open(p))["objects"] if o["type"] == "link"]
sys.exit(links(sys.argv[1]) != links(sys.argv[2]))' "$tmp/r1.json" "$tmp/r2.json"
check "the recording holds link experiments" grep -q ",link,op=0 host=1 peer=0 bytes=0 repeats=0" "$tmp/rec/experiments.csv"

# The contract's truth (tests/e2e_truth_link.c) on the node specs and the
# h100 preset (its [host_link] from the H100): every link finding right.
E2E=$root/build/e2e_check
check "e2e truth holds on the node specs" "$E2E" "$S/node2-gpu0.spec" "$S/node2-gpu1.spec" \
  "$S/node2-gpu1-slow.spec" "$S/host-slow.spec"
check "e2e truth holds on the h100 preset's host link" "$E2E" "$root/presets/h100.spec"
run_mt --sim h100 --only dram --links -q
check "the h100 preset's host link: PCIe Gen5 x16, nominal 63.01 GB/s" \
  eval 'out_has "link type  *PCIe Gen5 x16" && out_has "nominal bandwidth per direction (computed) 63.01 GB/s"'

# A rate above the link's nominal one is impossible (the two H200s showed
# 516 GB/s over an NVLink 4 x18 of 450 when both ends measured at once):
# measured there, it is doubted below 0.5 with a note, never trusted.
{ cat "$root/presets/turing.spec"
  printf '\n[host_link]\ntype = pcie\ngen = 3\nwidth = 4\nlatency = 900\nread_bandwidth = 6\nwrite_bandwidth = 3\ncopy_in_bandwidth = 3\ncopy_out_bandwidth = 3\n'
} >"$tmp/over.spec"
run_mt --sim "$tmp/over.spec" --only dram --links --json "$tmp/over.json" -q
check "a read above the nominal 3.94 GB/s is doubted (< 0.5, with a note); the others are not" $PY -c '
import json, sys
o = [x for x in json.load(open(sys.argv[1]))["objects"] if x["key"] == "link_host"][0]["findings"]
r, w = o["read_bandwidth"], o["write_bandwidth"]
sys.exit(not (r["value"] > o["nominal_bandwidth"]["value"] and r["confidence"] < 0.5 and
              "above the link" in r["note"] and w["confidence"] >= 0.5))' "$tmp/over.json"
check "e2e truth holds on it (a rate over the nominal is never trusted)" "$E2E" "$tmp/over.spec"

bad_spec() { # bad_spec TEXT MESSAGE: the turing preset plus TEXT is refused at its line
  { cat "$root/presets/turing.spec"; printf '%b' "$1"; } >"$tmp/bad.spec"
  run_mt --sim "$tmp/bad.spec" --only dram
  rc_is 2 && err_has "bad.spec:[0-9]*: .*$2"
}
check "[link 16] is refused" bad_spec '\n[link 16]\ntype = pcie\n' "the peer is a GPU index 0..15"
check "a missing type is refused" bad_spec '\n[host_link]\nlatency = 900\n' "missing required key 'type'"
check "gen on an NVLink is refused" \
  bad_spec '\n[link 1]\ntype = nvlink\nlinks = 2\nversion = 4\ngen = 5\n' "gen is not a key of a nvlink link"
check "a width of 3 lanes is refused" \
  bad_spec '\n[host_link]\ntype = pcie\ngen = 4\nwidth = 3\nlatency = 900\nread_bandwidth = 1\nwrite_bandwidth = 1\ncopy_in_bandwidth = 1\ncopy_out_bandwidth = 1\n' "width = 3"
check "peer_access on the host link is refused" \
  bad_spec '\n[host_link]\ntype = pcie\ngen = 4\nwidth = 16\npeer_access = yes\n' "peer_access is not a key of a host link"
check "a bandwidth above 2000 GB/s is refused" \
  bad_spec '\n[host_link]\ntype = pcie\ngen = 4\nwidth = 16\nlatency = 900\nread_bandwidth = 2001\n' "read_bandwidth"
check "a duplicate [link 1] is refused" \
  bad_spec '\n[link 1]\ntype = pcie\n[link 1]\ntype = pcie\n' "duplicate section \\[link 1\\]"
finish
