#!/usr/bin/env bash
# The MPI fleet (memtopo-mpi --fleet, issue 11): mpirun starts 4 ranks on
# this machine (--oversubscribe), each simulating the GPU of its spec
# (--sim-per-rank).  With one GPU degraded through its spec (DRAM 10%
# slower) exactly that rank is flagged; with all alike none is; a rank
# whose spec is bad fails alone: its error is in the fleet report and the
# others' reports are kept; with one GPU's host link slow (--links)
# exactly that rank is flagged.  The fleet report and every rank's report
# validate against their schemas.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
MPI_MT=$root/build/memtopo-mpi
command -v mpirun >/dev/null || { echo "not ok 1 - mpirun not found (make deps installs openmpi-bin)"; exit 1; }
[ -x "$MPI_MT" ] || { echo "not ok 1 - $MPI_MT not built (make deps installs libopenmpi-dev)"; exit 1; }
as_root=; [ "$(id -u)" = 0 ] && as_root=--allow-run-as-root
# Open MPI on a CI machine: no ssh, one node, no high-speed fabric.
export OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
fleet() { # fleet NPROC ARGS...: rank 0's stdout/stderr and exit code in $tmp
  local np=$1; shift
  timeout 300 mpirun $as_root --oversubscribe -np "$np" "$MPI_MT" "$@" >"$tmp/out" 2>"$tmp/err"
  echo $? >"$tmp/rc"
}
members() { # members FILE KEY: the fleet report's list KEY as "a b c"
  $PY -c 'import json,sys; print(" ".join(map(str, json.load(open(sys.argv[1]))[sys.argv[2]])))' "$1" "$2"
}
valid() { $PY "$root/tests/check_schema.py" "$root/schema/memtopo-fleet.schema.json" "$1" >/dev/null; }
reports_valid() { # every member's report (where there is one) against the report schema
  $PY - "$1" "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp" <<'PYEOF'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
for i, m in enumerate(d["members"]):
    if m["report"] is None:
        continue
    p = "%s/rank%d.json" % (sys.argv[4], i)
    json.dump(m["report"], open(p, "w"))
    if subprocess.run([sys.executable, sys.argv[2], sys.argv[3], p], capture_output=True).returncode:
        sys.exit(1)
PYEOF
}

mkdir "$tmp/same" "$tmp/one-slow" "$tmp/one-bad"
for i in 0 1 2 3; do
  for d in same one-slow one-bad; do cp "$root/presets/turing.spec" "$tmp/$d/gpu$i.spec"; done
done
# Rank 2: DRAM latency 470 instead of 425 cycles (the preset's [dram] latency).
sed -i 's/^latency = 425 /latency = 470 /' "$tmp/one-slow/gpu2.spec"
grep -q '^latency = 470 ' "$tmp/one-slow/gpu2.spec" || echo "not ok - the degraded spec was not written"
# Rank 3: a misspelt key.
sed -i 's/^size = 5.5 MiB /sise = 5.5 MiB /' "$tmp/one-bad/gpu3.spec"

fleet 4 --fleet "$tmp/slow.json" --sim-per-rank "$tmp/one-slow" --only l2,dram
check "one GPU degraded: exit 7 (differs)" rc_is 7
check "one GPU degraded: exactly rank 2 flagged" [ "$(members "$tmp/slow.json" flagged_members)" = 2 ]
check "one GPU degraded: no rank failed" [ -z "$(members "$tmp/slow.json" failed_members)" ]
check "one GPU degraded: dram.latency is the finding" out_has "^dram.latency .* #2 470"
check "one GPU degraded: the result names rank 2" out_has "^Result: differs: #2 rank 2 .*gpu2.spec) (2 findings);$"
check "fleet report validates" valid "$tmp/slow.json"
check "every rank's report validates" reports_valid "$tmp/slow.json"

# One GPU degraded through a slow link (issue 11 part 2): every rank's
# GPU has the host link of tests/specs-links/node2-gpu0.spec (PCIe Gen3
# x16), rank 1's is trained down to Gen3 x4 (host-slow.spec's).
mkdir "$tmp/one-slow-link"
for i in 0 1 2 3; do cp "$root/tests/specs-links/node2-gpu0.spec" "$tmp/one-slow-link/gpu$i.spec"; done
cp "$root/tests/specs-links/host-slow.spec" "$tmp/one-slow-link/gpu1.spec"
fleet 4 --fleet "$tmp/slow-link.json" --sim-per-rank "$tmp/one-slow-link" --only dram --links
check "one slow link: exit 7 (differs)" rc_is 7
check "one slow link: exactly rank 1 flagged" [ "$(members "$tmp/slow-link.json" flagged_members)" = 1 ]
check "one slow link: its host link's copy bandwidth is the finding" \
  out_has "^link_host.copy_in_bandwidth .* #1 "
check "one slow link: the fleet report validates" valid "$tmp/slow-link.json"

fleet 4 --fleet "$tmp/same.json" --sim-per-rank "$tmp/same" --only l2,dram
check "four alike: exit 0" rc_is 0
check "four alike: nobody flagged" [ -z "$(members "$tmp/same.json" flagged_members)" ]
check "four alike: result same" out_has "^Result: same"

fleet 4 --fleet "$tmp/bad.json" --sim-per-rank "$tmp/one-bad" --only l2,dram
check "one rank's spec bad: exit 7" rc_is 7
check "one rank's spec bad: rank 3 failed" [ "$(members "$tmp/bad.json" failed_members)" = 3 ]
check "one rank's spec bad: its error names the spec line" \
  $PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["members"][3]["error"]; sys.exit("gpu3.spec:" not in e or "sise" not in e)' "$tmp/bad.json"
check "one rank's spec bad: the other three reports kept" \
  $PY -c 'import json,sys; m=json.load(open(sys.argv[1]))["members"]; sys.exit(not all(x["report"] for x in m[:3]))' "$tmp/bad.json"
check "one rank's spec bad: nobody else flagged" [ -z "$(members "$tmp/bad.json" flagged_members)" ]
check "fleet report with a failed rank validates" valid "$tmp/bad.json"

rm "$tmp/same/gpu3.spec"
fleet 4 --fleet "$tmp/short.json" --sim-per-rank "$tmp/same" --only dram
check "three specs for four ranks: rank 3 fails, exit 7" rc_is 7
check "three specs for four ranks: the error says so" \
  $PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["members"][3]["error"]; sys.exit("no spec for rank 3" not in e)' "$tmp/short.json"

fleet 2 --fleet "$tmp/nodir/x.json" --sim turing --only dram
check "unwritable fleet report: exit 2, nothing measured" eval 'rc_is 2 && err_has "fleet"'

run_mt --fleet "$tmp/x.json" --sim turing
check "--fleet without the MPI build: exit 3, one line" eval 'rc_is 3 && one_line_err && err_has "memtopo-mpi"'
run_mt --fleet "$tmp/x.json" --json "$tmp/y.json" --sim turing
check "--fleet with --json: exit 2" eval 'rc_is 2 && one_line_err'
run_mt --sim-per-rank "$tmp/same" --only dram
check "--sim-per-rank without --fleet: exit 2" eval 'rc_is 2 && one_line_err'
finish
