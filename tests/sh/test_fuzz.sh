#!/usr/bin/env bash
# The libFuzzer targets (fuzz/README.md) run briefly on their seed corpora:
# no crash, no sanitizer report, every error one printable line (the targets
# abort otherwise).  `make fuzz-long` runs them for as long as asked.
# Skipped only when clang's libFuzzer is not installed (`make deps` installs
# it, so CI always runs this).
source "$(dirname "$0")/lib.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-4}
fb=$root/build/fuzz
rt=$(clang --print-runtime-dir 2>/dev/null)
if ! ls "$rt"/libclang_rt.fuzzer-*.a >/dev/null 2>&1 && [ ! -x "$fb/fuzz_spec" ]; then
  echo "ok 1 - fuzz targets # skip clang's libFuzzer is not installed (make deps)"
  exit 0
fi
for t in spec recording model; do
  check "fuzz_$t is built (make fuzz)" test -x "$fb/fuzz_$t"
  check "fuzz_$t has a seed corpus" test -n "$(ls "$fb/corpus/$t" 2>/dev/null)"
  mkdir -p "$tmp/new_$t"
  # new inputs go to a scratch directory; the seeds are only read
  "$fb/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -artifact_prefix="$tmp/$t-" \
    "$tmp/new_$t" "$fb/corpus/$t" >"$tmp/$t.log" 2>&1
  echo $? >"$tmp/rc"
  check "fuzz_$t ran $FUZZ_SECONDS s without a finding" rc_is 0
  check "fuzz_$t read its seeds" grep -q "INITED" "$tmp/$t.log"
  [ "$(cat "$tmp/rc")" = 0 ] || tail -30 "$tmp/$t.log"
done
finish
