#!/usr/bin/env bash
# The architecture change must not change what memtopo finds: every preset
# and every spec file of tests/specs gives the findings (tests/golden/*.findings,
# canonical digests by tests/findings_digest.py) and the cache table
# (tests/golden/*.table) that the build before the change gave.  The goldens
# were written by tools/make_golden.sh; the README of tests/golden says which
# differences were intended.
source "$(dirname "$0")/lib.sh"
# The optimised binary: the same findings, and seconds instead of minutes.
MT=$root/build/memtopo
table() { sed -n '/^Caches$/,/^Latency and miss/p' "$1"; }
for g in "$root"/tests/golden/*.findings; do
  name=$(basename "$g" .findings)
  if [ -e "$root/tests/specs/$name.spec" ]; then target=$root/tests/specs/$name.spec; else target=$name; fi
  run_mt --sim "$target" --quiet --json "$tmp/$name.json"
  check "$name: exits 0" rc_is 0
  check "$name: findings equal the golden digest" \
    diff <(python3 "$root/tests/findings_digest.py" "$tmp/$name.json") "$g"
  check "$name: cache table equals the golden table" \
    diff <(table "$root/tests/golden/$name.table") <(table "$tmp/out")
done
finish
