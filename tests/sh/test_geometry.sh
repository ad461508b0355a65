#!/usr/bin/env bash
# The geometry probes from the command line and through a recording: the
# JSON validates and holds ways, sets and index of every first-level cache
# (and for an XOR hash its masks, the constant L1.5's included); the replay
# gives the same findings; --only without --geometry leaves them out, and
# the default run has them.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
gs="$root/tests/specs-geometry/fifo-48x6.spec"
run_mt --sim "$gs" --only l1d --quiet --geometry --record "$tmp/rec" --json "$tmp/a.json"
check "recorded geometry run exits 0" rc_is 0
check "its JSON validates against the schema" \
  $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/a.json"
check "48 sets x 6 ways, modulo, with the decision threshold listed" $PY - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l1 = [o for o in r["objects"] if o["key"] == "l1d"][0]["findings"]
assert l1["ways"]["value"] == 6 and l1["sets"]["value"] == 48, (l1["ways"], l1["sets"])
assert l1["index"]["text"].startswith("modulo (line-address bits 0-"), l1["index"]
assert "GEOMETRY_ALPHA" in [t["name"] for t in r["thresholds"]]
t = [p for p in r["timing"]["probes"] if p["probe"] == "geometry"]
assert t and t[0]["experiments"] > 0, t
assert [p for p in r["timing"]["probes"] if p["probe"] == "cache_geom"]
PY
run_mt --replay "$tmp/rec" --quiet --geometry --json "$tmp/b.json"
check "replayed geometry run exits 0" rc_is 0
check "replayed: the same findings" diff <($PY "$root/tests/findings_digest.py" "$tmp/a.json") \
  <($PY "$root/tests/findings_digest.py" "$tmp/b.json")
run_mt --sim "$gs" --only l1d --quiet --json "$tmp/c.json"
check "--only l1d without --geometry: no geometry findings" sh -c "! grep -q '\"ways\"' '$tmp/c.json'"
hs="$root/tests/specs-geometry/lru-hash-64x4.spec"
run_mt --sim "$hs" --json "$tmp/h.json" --csv "$tmp/h.csv"
check "default run on a hashed L1 exits 0" rc_is 0
check "its JSON validates against the schema" \
  $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/h.json"
check "default run: 4 ways, 64 sets, xor, the spec's masks (text, JSON, CSV)" $PY - "$tmp/h.json" "$tmp/out" "$tmp/h.csv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
l1 = [o for o in r["objects"] if o["key"] == "l1d"][0]["findings"]
assert l1["ways"]["value"] == 4 and l1["sets"]["value"] == 64, (l1["ways"], l1["sets"])
assert l1["index"]["text"] == "xor", l1["index"]
masks = "0x41 0x82 0x104 0x208 0x410 0x820"
assert l1["index_masks"]["kind"] == "text" and l1["index_masks"]["text"] == masks, l1["index_masks"]
assert masks in open(sys.argv[2]).read() and masks in open(sys.argv[3]).read()
assert "GEOMETRY_HASH_VERIFY_LISTS" in [t["name"] for t in r["thresholds"]]
PY
run_mt --sim "$root/tests/specs-geometry/caches-small-l15.spec" --quiet --json "$tmp/d.json"
check "the default run: every first-level cache's geometry, the shared L1's once" $PY - "$tmp/d.json" <<'PY'
import json, sys
o = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}
for k in ("texture", "readonly"):  # one physical cache with the L1: taken from it
    assert o[k]["ways"]["value"] == 4 and "measured there" in o[k]["ways"]["note"], o[k]["ways"]
assert (o["const_l1"]["ways"]["value"], o["const_l1"]["sets"]["value"]) == (2, 4), o["const_l1"]
assert (o["const_l15"]["ways"]["value"], o["const_l15"]["sets"]["value"]) == (2, 8), o["const_l15"]
assert o["const_l15"]["index"]["text"].startswith("modulo"), o["const_l15"]["index"]
PY
run_mt --sim "$root/tests/specs-geometry/caches-shared-hash.spec" --quiet --json "$tmp/e.json"
check "the hash recovery runs for the constant L1.5 too: xor, the spec's masks" $PY - "$tmp/e.json" <<'PY'
import json, sys
o = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}["const_l15"]
assert (o["ways"]["value"], o["sets"]["value"]) == (4, 8), (o["ways"], o["sets"])
assert o["index"]["text"] == "xor", o["index"]
assert o["index_masks"]["text"] == "0x9 0x12 0x24", o["index_masks"]
PY
finish
