#!/usr/bin/env bash
# Kept random specs of the whole format (tests/specs-whole/README.md): each
# once broke the contract; every probe (the opt-in ones too) must now keep it.
# Optimised e2e_check, two at a time: about a second each.
source "$(dirname "$0")/lib.sh"
E2E=$root/build/e2e_check
dir=$root/tests/specs-whole
export E2E tmp
ls "$dir"/*.spec | xargs -P 2 -I{} sh -c \
  'if "$E2E" "{}" >"$tmp/$(basename "{}").out" 2>&1; then echo ok; else echo failed; fi >"$tmp/$(basename "{}").v"'
count=0
for f in "$dir"/*.spec; do
  b=$(basename "$f"); count=$((count + 1))
  check "$b keeps the contract" grep -qx ok "$tmp/$b.v"
  grep -qx ok "$tmp/$b.v" || tail -5 "$tmp/$b.out" | sed 's/^/#   /'
done
check "at least 9 kept specs ran ($count)" [ "$count" -ge 9 ]
finish
