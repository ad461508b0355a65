#!/usr/bin/env bash
# Used with the device tool: build on the GPU machine (jansson from a
# carried Debian package tree, see README), run the full report N times
# (the first one recorded, as one xz-compressed tar), the bench, and the
# error paths a user can hit.  Usage: bench/device_run.sh OUTDIR [runs]
set -uo pipefail
out=${1:?outdir}; runs=${2:-3}
mkdir -p "$out"
nvidia-smi -L
make -j16 JANSSON_PREFIX="$PWD/.carry/root/usr" build/memtopo >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
rec=$(mktemp -d)/rec
for i in $(seq 1 "$runs"); do
  extra=(); [ "$i" = 1 ] && extra=(--record "$rec")
  s=$(date +%s%N)
  timeout 300 ./build/memtopo --json "$out/run$i.json" "${extra[@]}" >"$out/run$i.txt" 2>>"$out/log.txt"
  rc=$?; e=$(date +%s%N)
  echo "run $i: rc=$rc wall=$(( (e - s) / 1000000 )) ms" | tee -a "$out/log.txt"
done
rm -f "$out"/run[2-9].txt
tar -C "$(dirname "$rec")" -cJf "$out/rec.tar.xz" rec && ls -la "$rec" "$out/rec.tar.xz"
bash bench/run.sh | tee "$out/bench.txt"
{ echo "--- errors a user can hit"
  ./build/memtopo --device 9 --json "$out/none.json"; echo "rc=$? json_written=$([ -e "$out/none.json" ] && echo yes || echo no)"
  ./build/memtopo --only nosuch; echo "rc=$?"
} >>"$out/log.txt" 2>&1
tail -5 "$out/log.txt"
sed -n '10,24p' "$out/run1.txt"
