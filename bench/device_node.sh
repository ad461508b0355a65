#!/usr/bin/env bash
# The two-GPU acceptance run of issue 11, with the device tool on a node of
# several GPUs (nvidia-h200-x2): builds memtopo for the GPUs at hand, then
#   1. one GPU alone (--device 0), wall time, three times,
#   2. every GPU with the link matrix (--device all), wall time, three
#      times, the node report of the first kept (JSON and text),
#   3. every GPU without links (--device all --no-links), wall time,
#   4. each GPU's host link recorded (--links --only dram), a fixture.
# Usage: bench/device_node.sh OUTDIR
# MT_NODE_PREBUILT=1 runs the build/memtopo carried along (built elsewhere
# for the GPUs at hand, jansson linked statically) instead of building:
# the two-GPU machine counts its held time in full, and a build there
# takes longer than the runs.
set -uo pipefail
out=${1:?outdir}
mkdir -p "$out"
nvidia-smi -L | tee "$out/gpus.txt"
nvidia-smi topo -m >>"$out/gpus.txt" 2>&1
nvidia-smi nvlink -s >>"$out/gpus.txt" 2>&1
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
if [ "${MT_NODE_PREBUILT:-0}" = 1 ]; then
  echo "prebuilt: $(ls -l build/memtopo)" >"$out/build.log"
else
  make -j16 CUDA_ARCHS_WANTED="$arch" JANSSON_PREFIX="$PWD/.carry/root/usr" build/memtopo \
    >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
for i in 1 2 3; do
  s=$(date +%s%N)
  ./build/memtopo --device 0 --json "$out/one$i.json" >"$out/one$i.txt" 2>>"$out/log.txt"
  echo "one GPU run $i: rc=$? wall=$(ms "$s") ms" | tee -a "$out/log.txt"
done
for i in 1 2 3; do
  s=$(date +%s%N)
  ./build/memtopo --device all --json "$out/node$i.json" >"$out/node$i.txt" 2>"$out/node$i.err"
  echo "node run $i (--device all): rc=$? wall=$(ms "$s") ms" | tee -a "$out/log.txt"
done
s=$(date +%s%N)
./build/memtopo --device all --no-links --json "$out/nolinks.json" >"$out/nolinks.txt" 2>"$out/nolinks.err"
echo "node run without links: rc=$? wall=$(ms "$s") ms" | tee -a "$out/log.txt"
s=$(date +%s%N)
./build/memtopo --device 0,1 --json "$out/list.json" >"$out/list.txt" 2>"$out/list.err"
echo "node run --device 0,1: rc=$? wall=$(ms "$s") ms" | tee -a "$out/log.txt"
rm -f "$out"/one[23].txt "$out"/node[23].txt
cat "$out/log.txt"
grep -A8 "^Links" "$out/node1.txt"
