#!/usr/bin/env bash
# Draws the Li et al. study's plots from its fixture:
#   validation/li_plots.sh [FIXTURE_DIR [OUTDIR]]
# (defaults: tests/fixtures/model/li-h100 and docs/img).  Needs python3 and
# gnuplot (Debian: gnuplot-nox); writes li-h100-times.{png,svg} and
# li-h100-factors.png into OUTDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fx=${1:-$here/../tests/fixtures/model/li-h100}
out=${2:-$here/../docs/img}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/li_study.py" plotdata "$fx" "$tmp"
(cd "$tmp" && gnuplot "$here/li_plots.gp")
mkdir -p "$out"
cp "$tmp"/li-h100-*.png "$tmp"/li-h100-*.svg "$out"/
