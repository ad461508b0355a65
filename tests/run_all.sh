#!/usr/bin/env bash
# Runs every cmocka test binary given on the command line, then the shell
# tests (CLI behaviour, JSON schema, replay), and prints one closing line
# "tests: N passed, M failed" that CI reads.
set -u
here=$(cd "$(dirname "$0")" && pwd)
passed=0; failed=0; failed_names=()
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for bin in "$@"; do
  out=$("$bin" 2>&1); rc=$?
  p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
  p=${p:-0}; f=${f:-0}
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi   # crashed / sanitizer abort
  passed=$((passed + p)); failed=$((failed + f))
  if [ $rc -ne 0 ]; then failed_names+=("$(basename "$bin")"); printf '%s\n' "$out" | tail -40; fi
  echo "$(basename "$bin"): $p passed, $f failed"
done
for t in "$here"/sh/test_*.sh; do
  [ -e "$t" ] || continue
  out=$(bash "$t" 2>&1); rc=$?
  p=$(printf '%s\n' "$out" | grep -c '^ok ')
  f=$(printf '%s\n' "$out" | grep -c '^not ok ')
  if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ $rc -ne 0 ]; then failed_names+=("$(basename "$t")"); printf '%s\n' "$out" | grep -v '^ok ' | tail -40; fi
  echo "$(basename "$t"): $p passed, $f failed"
done
[ ${#failed_names[@]} -gt 0 ] && echo "failing: ${failed_names[*]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
