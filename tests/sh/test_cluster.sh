#!/usr/bin/env bash
# The opt-in cluster probes from the command line (--cluster; probes dsm and
# tma): their report on the simulated H100 is valid JSON of the schema and
# the text shows them, a device before Hopper says "not supported", and a
# recording of them replays to the same findings.
source "$(dirname "$0")/lib.sh"
run_mt --sim h100 --only shared --cluster --quiet --json "$tmp/h100.json" --record "$tmp/rec"
check "--cluster runs on the h100 preset" rc_is 0
check "the text shows distributed shared memory" out_has "Distributed Shared Memory"
check "the text shows the bulk copy engine" out_has "Bulk Copy Engine (TMA)"
check "dsm and tma report their own time" grep -Eq '^  (dsm|tma) +[0-9.]+ +[0-9]+$' "$tmp/out"
check "the report fits the schema" python3 "$root/tests/check_schema.py" \
  "$root/schema/memtopo-report.schema.json" "$tmp/h100.json"
findings() { # every dsm and tma finding a report makes (kind none: no claim)
  python3 -c 'import json,sys
for o in json.load(open(sys.argv[1]))["objects"]:
    if o["key"] in ("dsm", "tma"):
        for k, v in sorted(o.get("findings", {}).items()):
            if v["kind"] != "none":
                print(o["key"] + "." + k, v.get("value"), v.get("text"), v.get("confidence"))' "$1"
}
findings "$tmp/h100.json" >"$tmp/live"
check "dsm.latency and tma.bandwidth were measured" grep -q "^dsm.latency 1[0-9][0-9]" "$tmp/live"
run_mt --replay "$tmp/rec" --only shared --cluster --quiet --json "$tmp/back.json"
check "the recording replays" rc_is 0
findings "$tmp/back.json" >"$tmp/back"
check "the replay gives the same findings" diff "$tmp/live" "$tmp/back"
run_mt --sim a100 --only shared --cluster --quiet --json "$tmp/a100.json"
check "--cluster runs before Hopper" rc_is 0
check "before Hopper: not supported, with the reason" \
  grep -q "compute capability 8.0: clusters and the bulk copy engine" "$tmp/out"
findings "$tmp/a100.json" >"$tmp/old"
check "before Hopper: only the two not-supported findings" \
  [ "$(grep -c "not supported" "$tmp/old")" = 2 -a "$(wc -l <"$tmp/old")" = 2 ]
run_mt --sim h100 --only shared --quiet
check "without --cluster no cluster probe runs" bash -c "! grep -q 'Distributed Shared' '$tmp/out'"
run_mt --help
check "--help names --cluster" out_has "--cluster"
finish
