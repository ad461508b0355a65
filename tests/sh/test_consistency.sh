#!/usr/bin/env bash
# Things that must agree across the tree: the probe names of the registry,
# --help and the README; every threshold a report prints (and every one in
# src/analysis/thresholds.h) documented in docs/method.md; every error code
# with a text (tests/test_core_errors.c checks the texts themselves).
source "$(dirname "$0")/lib.sh"
run_mt --help
# --help lists "  NAME       summary" lines under "What to measure".
sed -n '/^What to measure/,/--seed/p' "$tmp/out" | sed -n "s/^  \([a-z0-9_][a-z0-9_]*\)  .*/\1/p" >"$tmp/help_probes"
check "--help lists probes" test -s "$tmp/help_probes"
# The README's --only row names the probes in backquotes.
grep -- '-o, --only' "$root/README.md" | grep -o '`[a-z0-9_]*`' | tr -d '`' >"$tmp/readme_probes"
check "README --only row names the same probes as --help" diff "$tmp/help_probes" "$tmp/readme_probes"
for p in $(cat "$tmp/help_probes"); do
  check "probe $p has a section in docs/method.md" grep -q "^### .*\`$p\`" "$root/docs/method.md"
  run_mt --sim h100 --only "$p" --quiet --json "$tmp/only.json"
  check "--only $p runs" rc_is 0
done
run_mt --sim h100 --quiet --json "$tmp/full.json"
python3 -c 'import json,sys; [print(t["name"]) for t in json.load(open(sys.argv[1]))["thresholds"]]' \
  "$tmp/full.json" >"$tmp/thr"
sed -n 's/^#define \(MT_[A-Z0-9_]*\) .*/\1/p' "$root/src/analysis/thresholds.h" >>"$tmp/thr"
for t in $(sort -u "$tmp/thr"); do
  check "threshold $t documented in docs/method.md" grep -q "$t" "$root/docs/method.md"
done
finish
