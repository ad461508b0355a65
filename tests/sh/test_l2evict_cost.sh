#!/usr/bin/env bash
# tools/l2evict_cost (docs/method.md, "L2 eviction sets beyond 2 MiB"): the group-
# testing reduction it times finds exactly the ways of LRU, FIFO and tree
# pseudo-LRU partitions under modulo, xor and mask hashes (the lines it
# keeps all lie in the target's set, checked against the sim's model), and
# its cost stays linear in the pool: at most (W + 2)^2 loads per pool line,
# the bound the docs' estimate for the H100 rests on.
source "$(dirname "$0")/lib.sh"
tool=${L2EVICT:-$root/build/san/l2evict_cost}
for s in lru-xor-4096x16 plru-masks-high-bits-2x8192x8 fifo-modulo-96x8 plru-hash-4x256x8; do
  spec=$root/tests/specs-l2geom/$s.spec
  "$tool" "$spec" >"$tmp/$s.out" 2>"$tmp/$s.err"
  check "$s: exits 0" test $? = 0
  w=$(sed -n 's/^partition: .* x \([0-9]*\) ways .*/\1/p' "$tmp/$s.out")
  check "$s: ways found = the spec's ($w), every line in the target's set" \
    grep -q "^found: $w lines, $w in the target's set: ways $w (spec $w)$" "$tmp/$s.out"
  pool=$(sed -n 's/^pool: .*(\([0-9]*\)), target line 0$/\1/p' "$tmp/$s.out")
  loads=$(sed -n 's/^cost: [0-9]* tests, \([0-9]*\) loads .*/\1/p' "$tmp/$s.out")
  check "$s: $loads loads <= (W + 2)^2 x the pool ($pool lines)" \
    test -n "$loads" -a -n "$pool" -a -n "$w" -a "${loads:-0}" -le $(( (${w:-0} + 2) * (${w:-0} + 2) * ${pool:-0} ))
done
"$tool" >"$tmp/usage.out" 2>"$tmp/usage.err"
check "no argument: usage, exit 2" test $? = 2 -a -s "$tmp/usage.err"
"$tool" "$tmp/missing.spec" >"$tmp/bad.out" 2>"$tmp/bad.err"
check "a missing spec: one error line, exit 2" test $? = 2 -a "$(wc -l <"$tmp/bad.err")" = 1
finish
