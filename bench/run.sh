#!/usr/bin/env bash
# make bench: run the full default report on the GPU (or on whatever the
# arguments select, e.g. --sim h100) and print the wall time of each probe
# and in total, as measured by memtopo itself and by the shell.  With
# MT_PHASE_TIMES=1 in the environment memtopo also prints on stderr where
# the time went (CUDA's start, launches, NVML, each probe's analysis).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
start=$(date +%s.%N)
./build/memtopo --quiet --json "$out/report.json" "$@" >/dev/null
end=$(date +%s.%N)
python3 - "$out/report.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timing"]
print(f"memtopo bench on {r['device']['name']} ({r['provenance']['source']})")
print(f"{'probe':<12} {'seconds':>8} {'experiments':>12}")
for p in t["probes"]:
    print(f"{p['probe']:<12} {p['seconds']:>8.3f} {p['experiments']:>12}")
print(f"{'probes':<12} {t['total_seconds']:>8.3f} {t['total_experiments']:>12}")
print(f"{'wall':<12} {float(sys.argv[3]) - float(sys.argv[2]):>8.3f}   (process start to exit, incl. CUDA init)")
PY
