#!/usr/bin/env bash
# Writes tests/golden/: for every preset and every spec in tests/specs, the
# canonical findings digest (tests/findings_digest.py) and the report's
# "Caches" table and "Other findings".  Run only when a change is *meant* to
# alter findings; tests/sh/test_golden.sh compares every build against these.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
MT=${MT:-$root/build/memtopo}
out=$root/tests/golden
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
targets=$("$MT" --list-presets; ls "$root"/tests/specs/*.spec)
for t in $targets; do
  name=$(basename "$t" .spec)
  "$MT" --sim "$t" --quiet --json "$tmp/r.json" >"$tmp/r.txt"
  python3 "$root/tests/findings_digest.py" "$tmp/r.json" >"$out/$name.findings"
  sed -n '/^Caches$/,/^Method and confidence$/p' "$tmp/r.txt" | sed '$d' >"$out/$name.table"
done
