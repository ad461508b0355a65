#!/usr/bin/env bash
# Set-associative TLB levels (tests/specs-tlbset/) with the optimised
# e2e_check, a seventh of the sanitized test's time: --tlb-exact where the
# one-set pattern reads the first level (entries, page, ways and the
# group exact; the contract on every other finding; tlb-1way-1m,
# whose sets span 4 GiB, beyond a chain's 32-bit stride, is read at 2 GiB
# from the share of its elements stepping there, tlb-2way-8g with four
# sets in play there).  tlb-2way-2m and tlb-4way run under the sanitizers in
# test_e2e_tlb.  The H100 preset's TLB levels exactly (three and a half
# minutes under the sanitizers, with its 50 MiB L2).  Set-associative
# second levels (tlb-2nd-*, below).  And one whole default
# run with --tlb under the contract:
# the TLB chains do not disturb the other findings.
source "$(dirname "$0")/lib.sh"
E2E=$root/build/e2e_check
set_dir=$root/tests/specs-tlbset
for s in tlb-16way-8m tlb-8way-256k tlb-64way-64k tlb-32way-4m tlb-1way-1m tlb-2way-8g; do
  check "$s: first level exact, the contract on the rest" "$E2E" --tlb-exact "$set_dir/$s.spec"
done
check "the H100 preset: every TLB level exact" "$E2E" --tlb-levels-exact h100
# Set-associative second levels.  Direct-mapped ones (the class of random
# specs w1154, w1358 and w1392) have a soft edge (one page past the
# entries thrashes one set, not every element): behind a first level of
# 128 entries (tlb-2nd-direct-soft) the entries are a range holding the
# truth at 0.5 or more, never the median's edge (about 1.5x the entries)
# nor a bound past them, and the penalty is the level's.  Behind a first
# level of 16 or 32 entries element 0's edges at 2, 4, 8 pages apart give
# the entries exactly and the ways (tlb-2nd-64way: 4 sets of 64 ways,
# shared by the GPU; tlb-2nd-partial: direct-mapped, its ways a range
# holding 1), every level exact (--tlb-levels-exact).
# (the optimised memtopo, as e2e_check: `make test` builds both)
PY=${PY:-python3}
check "tlb-2nd-direct-soft: the contract" "$E2E" --tlb "$set_dir/tlb-2nd-direct-soft.spec"
"$root/build/memtopo" --sim "$set_dir/tlb-2nd-direct-soft.spec" --only l2 --tlb --quiet --json "$tmp/soft.json" >/dev/null 2>&1
check "tlb-2nd-direct-soft: tlb2.entries a trusted range holding 1024, its penalty 40" $PY - "$tmp/soft.json" <<'PY'
import json, sys
t2 = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}["tlb2"]
e = t2["entries"]
assert e["kind"] == "range" and e["lo"] <= 1024 <= e["hi"] < 2048 and e["confidence"] >= 0.5, e
assert abs(t2["miss_penalty"]["value"] - 40) <= 4, t2["miss_penalty"]
PY
for s in tlb-2nd-64way tlb-2nd-partial; do
  check "$s: every TLB level exact" "$E2E" --tlb-levels-exact "$set_dir/$s.spec"
done
"$root/build/memtopo" --sim "$set_dir/tlb-2nd-64way.spec" --only l2 --tlb --quiet --json "$tmp/w64.json" >/dev/null 2>&1
check "tlb-2nd-64way: tlb2.ways 64 and its group (16 SMs) measured" $PY - "$tmp/w64.json" <<'PY'
import json, sys
t2 = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}["tlb2"]
for k, want in (("ways", 64), ("sms_per_group", 16), ("entries", 256)):
    f = t2[k]
    assert f["kind"] == "value" and f["value"] == want and f["confidence"] >= 0.5, (k, f)
PY
check "the default run with --tlb keeps the contract" "$E2E" "$root/tests/specs-tlb/tlb-small-pages.spec"
finish
