#!/usr/bin/env bash
# Several GPUs of one node in one run (--sim given more than once, --device
# LIST): one report each, and the node summary with the comparison of
# memtopo compare.  --device all resolves through the cuda backend.  Two simulated GPUs, one with 10% slower DRAM, are told
# apart; two alike are the same; a GPU whose spec is bad fails alone.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
cp "$root/presets/turing.spec" "$tmp/good.spec"
sed 's/^latency = 425 /latency = 470 /' "$root/presets/turing.spec" >"$tmp/slow.spec"
sed 's/^size = 5.5 MiB /sise = 5.5 MiB /' "$root/presets/turing.spec" >"$tmp/bad.spec"

run_mt --sim "$tmp/good.spec" --sim "$tmp/slow.spec" --only l2,dram --json "$tmp/node.json"
check "two GPUs, one slow: exit 7" rc_is 7
check "two GPUs: one report each" [ "$(grep -c '^==== #' "$tmp/out")" = 2 ]
check "two GPUs: each report has its table" [ "$(grep -c '^DRAM ' "$tmp/out")" = 2 ]
check "two GPUs, one slow: dram.latency of #1 flagged" out_has "^dram.latency .*#1 470 cycles"
check "two GPUs, one slow: the result names it" out_has "^Result: differs: #1 sim .*slow.spec"
check "two GPUs: the links line says they are not measured" out_has "^Links: not measured"
check "node report validates" \
  $PY "$root/tests/check_schema.py" "$root/schema/memtopo-fleet.schema.json" "$tmp/node.json"
check "node report: flagged_members is [1]" \
  $PY -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["flagged_members"] != [1])' "$tmp/node.json"

run_mt --sim "$tmp/good.spec" --sim turing --only l2,dram
check "two GPUs alike: exit 0, same" eval 'rc_is 0 && out_has "^Result: same"'

run_mt --sim "$tmp/good.spec" --sim "$tmp/bad.spec" --only dram --json -
check "one bad spec: exit 7" rc_is 7
check "one bad spec: its error, the other's report kept" \
  $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["members"]
sys.exit(not (d["failed_members"] == [1] and m[0]["report"] and "bad.spec:" in m[1]["error"]))' "$tmp/out"

run_mt --device 0,2 --only dram
check "--device 0,2 without CUDA: exit 3, one line per GPU" \
  eval 'rc_is 3 && [ "$(wc -l <"$tmp/err")" = 2 ]'
# --device all asks the cuda backend how many GPUs there are: here (no GPU,
# or no CUDA backend built) that is one error line and the no-device exit.
run_mt --device all --only dram
check "--device all without a GPU: exit 3, one line naming the cause" \
  eval 'rc_is 3 && one_line_err && err_has "cudaGetDeviceCount\\|cuda backend is not built"'
for opt in "--record $tmp/rec-all" "--csv -" "--fleet $tmp/f.json"; do
  run_mt --device all $opt
  check "--device all $opt refused: exit 2, one line, nothing written" \
    eval 'rc_is 2 && one_line_err && no_file "$tmp/rec-all" && no_file "$tmp/f.json"'
done
run_mt --device all --device 0
check "--device all and --device 0: exit 2" eval 'rc_is 2 && one_line_err'
for arg in "0,0" "0," ",1" "0,02" "1,x" "al" "all,1" "ALL"; do
  run_mt --device "$arg" --only dram
  check "--device $arg refused: exit 2, one line" eval 'rc_is 2 && one_line_err && err_has "^memtopo: --device"'
done
run_mt --device 0 --device 1
check "--device twice: exit 2" eval 'rc_is 2 && one_line_err'
run_mt --sim turing --sim turing --record "$tmp/rec"
check "two GPUs with --record: exit 2, nothing written" eval 'rc_is 2 && one_line_err && no_file "$tmp/rec"'
# The specs of a node run are parsed on several threads at once: the
# parser must keep no shared state (it used strtok, whose hidden position
# one thread moved under another: "latency.ro: [cache l1] does not serve
# 'ro' loads" about once in a dozen runs).
parse_race_free() {
  local i
  for i in $(seq 1 24); do
    "$MT" --sim "$tmp/good.spec" --sim "$tmp/slow.spec" --sim "$tmp/good.spec" --sim "$tmp/slow.spec" \
      --only shared >/dev/null 2>"$tmp/race.err"
    [ $? = 0 ] || { cat "$tmp/race.err"; return 1; }
  done
}
check "four specs parsed at once, 24 times: every run exits 0" parse_race_free

finish
