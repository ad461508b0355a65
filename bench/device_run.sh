#!/usr/bin/env bash
# Used with the device tool: build on the GPU machine (jansson from the
# carried Debian package tree) and run the full report N times, keeping the
# first run's recording.  Usage: bench/device_run.sh OUTDIR [runs]
set -uo pipefail
out=${1:?outdir}; runs=${2:-3}
mkdir -p "$out"
nvidia-smi -L
make -j16 JANSSON_PREFIX="$PWD/.carry/root/usr" build/memtopo >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for i in $(seq 1 "$runs"); do
  extra=(); [ "$i" = 1 ] && extra=(--record "$out/rec")
  start=$(date +%s.%N)
  timeout 300 ./build/memtopo --json "$out/run$i.json" "${extra[@]}" >"$out/run$i.txt" 2>"$out/run$i.err"
  rc=$?
  echo "run $i: rc=$rc wall=$(echo "$(date +%s.%N) - $start" | bc) s"
  tail -3 "$out/run$i.err"
done
sed -n '1,40p' "$out/run1.txt"
grep -A14 '^Timing' "$out/run1.txt"
