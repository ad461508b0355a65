#!/usr/bin/env bash
# Set-associative TLB levels (tests/specs-tlbset/) with the optimised
# e2e_check, a seventh of the sanitized test's time: --tlb-exact where the
# one-set pattern reads the first level (entries, page, ways exact, the
# group where reported; the contract on every other finding), --tlb
# (contract only) for tlb-1way-1m, whose sets span 4 GiB, beyond a chain's
# 32-bit stride.  tlb-2way-2m and tlb-4way run under the sanitizers in
# test_e2e_tlb.  The H100 preset's TLB levels exactly (three and a half
# minutes under the sanitizers, with its 50 MiB L2).  And one whole default run with --tlb under the contract:
# the TLB chains do not disturb the other findings.
source "$(dirname "$0")/lib.sh"
E2E=$root/build/e2e_check
set_dir=$root/tests/specs-tlbset
for s in tlb-16way-8m tlb-8way-256k tlb-64way-64k tlb-32way-4m; do
  check "$s: first level exact, the contract on the rest" "$E2E" --tlb-exact "$set_dir/$s.spec"
done
check "the H100 preset: every TLB level exact" "$E2E" --tlb-levels-exact h100
check "tlb-1way-1m: the contract (a flagged level)" "$E2E" --tlb "$set_dir/tlb-1way-1m.spec"
check "the default run with --tlb keeps the contract" "$E2E" "$root/tests/specs-tlb/tlb-small-pages.spec"
finish
