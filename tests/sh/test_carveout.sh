#!/usr/bin/env bash
# The carveout sweep (--carveout all) through a recording: the replay gives
# the same findings, the recording holds each requested carveout, the JSON
# validates; replaying without --carveout leaves the probe out.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
cs="$root/tests/specs-carveout/ampere-fifo.spec"
run_mt --sim "$cs" --only l1d --quiet --carveout all --record "$tmp/rec" --json "$tmp/a.json"
check "recorded sweep exits 0" rc_is 0
check "the sweep's JSON validates against the schema" \
  $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/a.json"
check "the recording lists the carveout probe" grep -q '"carveout"' "$tmp/rec/manifest.json"
check "the recording holds one carveout preference per carveout of the device (8)" \
  [ "$(grep -o 'carveout=[0-9]*' "$tmp/rec/experiments.csv" | sort -u | wc -l)" = 8 ]
check "the sweep's time is in the report" $PY - "$tmp/a.json" <<'PY'
import json, sys
t = [p for p in json.load(open(sys.argv[1]))["timing"]["probes"] if p["probe"] == "carveout"]
assert t and t[0]["seconds"] > 0 and t[0]["experiments"] > 0, t
PY
run_mt --replay "$tmp/rec" --quiet --carveout all --json "$tmp/b.json"
check "replayed sweep exits 0" rc_is 0
check "replayed sweep: the same findings" diff <($PY "$root/tests/findings_digest.py" "$tmp/a.json") \
  <($PY "$root/tests/findings_digest.py" "$tmp/b.json")
check "replayed sweep: slope -1" $PY - "$tmp/b.json" <<'PY'
import json, sys
l1 = [o for o in json.load(open(sys.argv[1]))["objects"] if o["key"] == "l1d"][0]["findings"]
assert l1["carveout_slope"]["value"] == -1.0, l1["carveout_slope"]
assert abs(l1["carveout_unified"]["value"] - 192 * 1024) <= 128, l1["carveout_unified"]
assert len([k for k in l1 if k.startswith("size_at_carveout_")]) == 8
PY
run_mt --replay "$tmp/rec" --quiet --json "$tmp/c.json"
check "replay without --carveout exits 0" rc_is 0
check "replay without --carveout: no carveout findings" sh -c "! grep -q 'size_at_carveout' '$tmp/c.json'"
finish
