#!/usr/bin/env bash
# The opt-in L2 geometry (probe l2_geom) on the CLI: --only l2 alone leaves
# it out, --geometry brings it, and a recording of it replays to the same
# findings (its chains and access sequences are recorded kinds, so the
# H100 run becomes a fixture CI replays).
source "$(dirname "$0")/lib.sh"
spec=$root/tests/specs-l2geom/plru-hash-2x64x16.spec
run_mt --sim "$spec" --only l2 --quiet --json "$tmp/plain.json"
check "--only l2 exits 0" rc_is 0
check "--only l2 alone has no l2.ways" bash -c "! grep -q '\"ways\"' '$tmp/plain.json'"
run_mt --sim "$spec" --only l2 --geometry --quiet --record "$tmp/rec" --json "$tmp/live.json"
check "--only l2 --geometry --record exits 0" rc_is 0
python3 "$root/tests/findings_digest.py" "$tmp/live.json" >"$tmp/live.digest"
check "the L2 geometry is reported: 16 ways, 64 sets, xor" \
  bash -c "grep -q '^l2.ways|value|16.0|' '$tmp/live.digest' && grep -q '^l2.sets|value|64.0|' '$tmp/live.digest' && grep -q '^l2.index|text||||xor|' '$tmp/live.digest'"
run_mt --replay "$tmp/rec" --only l2 --geometry --quiet --json "$tmp/replay.json"
check "the replay exits 0" rc_is 0
python3 "$root/tests/findings_digest.py" "$tmp/replay.json" >"$tmp/replay.digest"
check "the replay gives the recorded run's findings" diff "$tmp/live.digest" "$tmp/replay.digest"
finish
