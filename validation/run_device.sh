#!/usr/bin/env bash
# Records the validation suite on the GPU at hand (validation/README.md):
# builds mtval and memtopo for this GPU only, then writes into OUTDIR
#   gpu.txt        the GPU, its clocks and driver (nvidia-smi), nvcc and ncu
#   cases.tsv      mtval --list
#   times.tsv      mtval --time --runs 25 (L2 flushed before every run)
#   ncu-raw.csv.xz ncu --set full, --page raw: a header row, a units row
#                  and one row per case, in cases.tsv's order (ID k = case k)
#   ncu-source.csv.xz  ncu --page source --print-source sass: one section
#                  per case, same order (dropped when over 10 MB)
#   report.json    memtopo's default report plus --bandwidth (latencies,
#                  L2 near/far, DRAM, bandwidth, MLP: the model's inputs)
#   run.log        every step's command, exit status and wall time
# Usage: validation/run_device.sh OUTDIR   (about 5-7 minutes on an H100;
# MTV_CASES="a b" limits the cases, for a quick check of a build).
set -uo pipefail
out=${1:?usage: validation/run_device.sh OUTDIR}
mkdir -p "$out"
log="$out/run.log"
: >"$log"
# the largest source CSV kept: the fixtures live in git
SOURCE_LIMIT_BYTES=$((10 * 1024 * 1024))
step() { # step NAME TIMEOUT_S CMD... : runs, logs status and wall time
  local name=$1 limit=$2; shift 2
  local s; s=$(date +%s%N)
  echo "== $name: $*" >>"$log"
  timeout "$limit" "$@"
  local rc=$?
  echo "== $name: rc=$rc wall=$(( ($(date +%s%N) - s) / 1000000 )) ms" >>"$log"
  return $rc
}
date -u +"start %Y-%m-%dT%H:%M:%SZ" >>"$log"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
step build 300 make -j16 CUDA_ARCHS_WANTED="$arch" JANSSON_PREFIX="$PWD/.carry/root/usr" \
  build/memtopo build/validation/mtval >"$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
{
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,compute_cap,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,persistence_mode \
    --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE | sed -n '/Clocks$/,$p' | grep -v '^$'
  nvcc --version | tail -2
  ncu --version | tail -1
} >"$out/gpu.txt" 2>&1
cases=()
for c in ${MTV_CASES:-}; do cases+=(--case "$c"); done
mtval=./build/validation/mtval
step list 120 "$mtval" --list >"$out/cases.tsv" 2>>"$log"
if [ ${#cases[@]} -gt 0 ]; then  # the listed subset only, in list order
  awk -v want=" ${MTV_CASES} " 'NR == 1 || index(want, " " $1 " ")' "$out/cases.tsv" >"$out/cases.sub" &&
    mv "$out/cases.sub" "$out/cases.tsv"
fi
step time 240 "$mtval" --time --runs 25 "${cases[@]}" >"$out/times.tsv" 2>>"$log"
# One profiling run (--set full: every section, the source counters
# included), exported twice.  --profile-from-start off: only the launches
# mtval --profile brackets with cudaProfilerStart/Stop are profiled (not
# the input fills).  The program's own output goes to run.log, never into
# the CSVs.
rep=$(mktemp -d)/prof
step ncu 420 ncu --set full --cache-control all --clock-control none --profile-from-start off \
  --import-source no -f -o "$rep" "$mtval" --profile "${cases[@]}" >>"$log" 2>&1
step ncu-raw 120 ncu -i "$rep.ncu-rep" --page raw --csv >"$out/ncu-raw.all" 2>>"$log"
grep '^"' "$out/ncu-raw.all" >"$out/ncu-raw.csv"; rm -f "$out/ncu-raw.all"
step ncu-source 180 ncu -i "$rep.ncu-rep" --page source --csv --print-source sass >"$out/ncu-source.all" 2>>"$log"
# (ncu 2025.3 repeats some launches' sections verbatim: one kept per launch)
grep '^"' "$out/ncu-source.all" | awk -f validation/dedup_sections.awk >"$out/ncu-source.csv"
rm -f "$out/ncu-source.all"
xz -T0 -6 "$out/ncu-raw.csv" "$out/ncu-source.csv"   # the fixtures keep them compressed
if [ "$(stat -c %s "$out/ncu-source.csv.xz")" -gt "$SOURCE_LIMIT_BYTES" ]; then
  echo "ncu-source.csv.xz over $SOURCE_LIMIT_BYTES bytes: dropped" | tee -a "$log"
  rm -f "$out/ncu-source.csv.xz"
fi
rm -rf "$(dirname "$rep")"
step memtopo 240 ./build/memtopo --bandwidth --json "$out/report.json" >"$out/report.txt" 2>>"$log"
date -u +"end %Y-%m-%dT%H:%M:%SZ" >>"$log"
grep '^== .*rc=' "$log"
rows=$(($(xz -dc "$out/ncu-raw.csv.xz" | wc -l) - 2))
echo "cases: $(($(wc -l <"$out/cases.tsv") - 1)), times ok: $(grep -c $'\tok\t' "$out/times.tsv"), ncu rows: $rows" | tee -a "$log"
