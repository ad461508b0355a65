#!/usr/bin/env bash
# The validation suite (validation/, issue 12) compiles and its registry is
# sound, where nvcc exists (validation/check_build.sh, about a minute on two
# cores); without nvcc there is nothing to compile and nothing is claimed.
source "$(dirname "$0")/lib.sh"
if ! command -v nvcc >/dev/null 2>&1; then
  echo "# no nvcc: the validation suite's compile check is skipped"
  exit 0
fi
bash "$root/validation/check_build.sh" "$tmp/build"
