#!/usr/bin/env bash
# The validation suite's compile check (CI, where nvcc exists; called by
# tests/sh/test_validation_build.sh): builds mtval for one architecture
# (the newest the Makefile wants that nvcc supports: about a minute on two
# cores, where the full `make validation` of five takes four) in a build
# folder of its own, then checks its registry without a GPU: the case
# names unique and well-formed (mtval --names exits 0), at least 45 cases,
# every group present, and the usage errors answered with exit 2.
# Usage: validation/check_build.sh BUILD_DIR   (prints ok/not ok lines)
set -u
b=${1:?usage: validation/check_build.sh BUILD_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
n=0; bad=0
check() { n=$((n+1)); local d=$1; shift
  if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; bad=$((bad+1)); fi; }
arch=$(nvcc --list-gpu-arch 2>/dev/null | sed -n 's/compute_//p' | awk '$1 <= 90' | sort -n | tail -1)
check "make builds mtval for sm_${arch:-?}" \
  make -s -C "$here" -j2 B="$b" CUDA_ARCHS_WANTED="$arch" "$b/validation/mtval"
mtval=$b/validation/mtval
"$mtval" --names >"$b/names.tsv" 2>"$b/names.err"; rc=$?
check "mtval --names: the registry is well-formed (exit 0)" test "$rc" = 0
check "at least 45 cases" test "$(wc -l <"$b/names.tsv")" -ge 45
check "synthetic and real cases both present" \
  bash -c "cut -f2 '$b/names.tsv' | sort -u | tr '\n' ' ' | grep -q 'real synthetic'"
"$mtval" --time --runs 3 >/dev/null 2>&1; rc=$?
check "--runs below 20 is exit 2" test "$rc" = 2
"$mtval" --verify --case no_such_case >/dev/null 2>&1; rc=$?
check "an unknown case is exit 2" test "$rc" = 2
"$mtval" --verify --case fma_ilp1_w1 no_such_case >/dev/null 2>&1; rc=$?
check "an unknown case after a known one (--case A B) is exit 2" test "$rc" = 2
"$mtval" >/dev/null 2>&1; rc=$?
check "no mode is exit 2" test "$rc" = 2
[ "$bad" = 0 ]
