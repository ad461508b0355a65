#!/usr/bin/env bash
# Set-associative TLB levels (tests/specs-tlbset/) with the optimised
# e2e_check, a seventh of the sanitized test's time: --tlb-exact where the
# one-set pattern reads the first level (entries, page, ways and the
# group exact; the contract on every other finding; tlb-1way-1m,
# whose sets span 4 GiB, beyond a chain's 32-bit stride, is read at 2 GiB
# from the share of its elements stepping there, tlb-2way-8g with four
# sets in play there).  tlb-2way-2m and tlb-4way run under the sanitizers in
# test_e2e_tlb.  The H100 preset's TLB levels exactly (three and a half
# minutes under the sanitizers, with its 50 MiB L2).  Direct-mapped second
# levels (tlb-2nd-*): a range holding their entries.  And one whole default
# run with --tlb under the contract:
# the TLB chains do not disturb the other findings.
source "$(dirname "$0")/lib.sh"
E2E=$root/build/e2e_check
set_dir=$root/tests/specs-tlbset
for s in tlb-16way-8m tlb-8way-256k tlb-64way-64k tlb-32way-4m tlb-1way-1m tlb-2way-8g; do
  check "$s: first level exact, the contract on the rest" "$E2E" --tlb-exact "$set_dir/$s.spec"
done
check "the H100 preset: every TLB level exact" "$E2E" --tlb-levels-exact h100
# Direct-mapped second levels (the class of random specs w1154, w1358 and
# w1392): their edge is soft (one page past the entries thrashes one set,
# not every element), so the entries are a range holding the truth at
# 0.5 or more, never the median's edge (about 1.5x the entries) nor a
# bound past them, and the penalty is the level's.
# (the optimised memtopo, as e2e_check: `make test` builds both)
PY=${PY:-python3}
for s in tlb-2nd-direct-soft:1024:40 tlb-2nd-partial:256:200; do
  IFS=: read -r name want pen <<<"$s"
  check "$name: the contract" "$E2E" --tlb "$set_dir/$name.spec"
  "$root/build/memtopo" --sim "$set_dir/$name.spec" --only l2 --tlb --quiet --json "$tmp/$name.json" >/dev/null 2>&1
  check "$name: tlb2.entries a trusted range holding $want, its penalty $pen" $PY - "$tmp/$name.json" "$want" "$pen" <<'PY'
import json, sys
t2 = {x["key"]: x["findings"] for x in json.load(open(sys.argv[1]))["objects"]}["tlb2"]
want, pen = float(sys.argv[2]), float(sys.argv[3])
e = t2["entries"]
assert e["kind"] == "range" and e["lo"] <= want <= e["hi"] and e["confidence"] >= 0.5, e
assert e["hi"] < 2 * want, e
assert abs(t2["miss_penalty"]["value"] - pen) <= max(4, 0.05 * pen), t2["miss_penalty"]
PY
done
check "the default run with --tlb keeps the contract" "$E2E" "$root/tests/specs-tlb/tlb-small-pages.spec"
finish
