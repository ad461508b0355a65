#!/usr/bin/env bash
# Outputs: JSON validates against the schema, --raw writes CSV samples,
# --record then --replay reproduces the topology exactly, bad replay data is
# refused without output, the same seed gives the same result, and the
# optimised build finishes --sim h100 in under 10 s.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
table() { sed -n '/^Caches$/,/^Latency and miss/p' "$1"; }

run_mt --sim h100 --quiet --json "$tmp/h100.json"
check "--sim h100 --json exits 0" rc_is 0
check "h100 JSON validates against the schema" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/h100.json"
check "table printed with --json FILE" out_has "^L1 Data "
run_mt --sim kepler --quiet --json -
check "--json - writes JSON to stdout" $PY -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(d['schema_version'].split('.')[0]!='2')"
check "--json - JSON validates" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/out"

run_mt --sim pascal --quiet --raw "$tmp/raw" --record "$tmp/rec" --json "$tmp/a.json"
cp "$tmp/out" "$tmp/a.txt"
check "--raw writes samples.csv" test -s "$tmp/raw/samples.csv"
check "--raw writes experiments.csv" test -s "$tmp/raw/experiments.csv"
check "samples.csv has a header and rows" bash -c "head -1 '$tmp/raw/samples.csv' | grep -q '^experiment,chain,index,cycles' && [ \$(wc -l <'$tmp/raw/samples.csv') -gt 1000 ]"
check "--record writes a manifest" test -s "$tmp/rec/manifest.json"
run_mt --replay "$tmp/rec" --quiet --json "$tmp/b.json"
cp "$tmp/out" "$tmp/b.txt"
check "--replay exits 0" rc_is 0
check "replay reproduces the table exactly" diff <(table "$tmp/a.txt") <(table "$tmp/b.txt")
check "replay reproduces caches and findings in JSON" $PY -c "
import json; a=json.load(open('$tmp/a.json')); b=json.load(open('$tmp/b.json'))
assert a['objects']==b['objects'] and a['device']==b['device']
assert b['provenance']['source']=='replay' and b['provenance']['replay_of']"
check "replay JSON validates" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/b.json"

# Damaged recordings: one-line error, exit 2, no JSON written.
cp -r "$tmp/rec" "$tmp/rec2"; head -c 5000 "$tmp/rec/samples.csv" >"$tmp/rec2/samples.csv"
run_mt --replay "$tmp/rec2" --json "$tmp/c.json"
check "truncated samples -> 2" rc_is 2; check "truncated samples: one line" one_line_err
check "no JSON from a damaged recording" no_file "$tmp/c.json"
cp -r "$tmp/rec" "$tmp/rec3"; rm "$tmp/rec3/experiments.csv"
run_mt --replay "$tmp/rec3" --json "$tmp/d.json"
check "missing experiments.csv -> 2" rc_is 2; check "missing file named" err_has "experiments.csv"
run_mt --replay "$tmp/rec" --only constant --quiet
check "replaying a subset of the recorded probes works" rc_is 0
run_mt --sim pascal --only shared --quiet --record "$tmp/rec4"
run_mt --replay "$tmp/rec4" --only l1d --json "$tmp/e.json"
# A recording lists the probes that made it: a probe it lacks is skipped and
# named (stderr and provenance.probes_missing), not a failed run.
check "replaying a probe the recording lacks exits 0" rc_is 0
check "the missing probe is named" err_has "no data for: l1d"
check "JSON names the missing probe" $PY -c "
import json; d=json.load(open('$tmp/e.json')); assert d['provenance']['probes_missing']==['l1d']"
# Experiments a listed probe asks for but the recording lacks are still bad data.
cp -r "$tmp/rec" "$tmp/rec5"
sed -i '2,$d' "$tmp/rec5/experiments.csv"; sed -i '2,$d' "$tmp/rec5/samples.csv"
run_mt --replay "$tmp/rec5" --json "$tmp/e2.json"
check "replaying experiments never recorded -> 2" rc_is 2
check "not-recorded: one line" one_line_err; check "no JSON when the recording lacks data" no_file "$tmp/e2.json"

# A device failure mid-run (sim test hook): exit 4, one message, and what was
# measured before it is still written as valid JSON and as a recording.
sed 's/^seed = .*/&\nfail_after_batches = 12/' "$root/presets/kepler.spec" >"$tmp/faulty.spec"
run_mt --sim "$tmp/faulty.spec" --quiet --json "$tmp/f.json" --record "$tmp/frec"
check "device fault -> 4" rc_is 4; check "device fault message" err_has "simulated device fault"
check "partial JSON written" test -s "$tmp/f.json"
check "partial JSON validates" $PY "$root/tests/check_schema.py" "$root/schema/memtopo-report.schema.json" "$tmp/f.json"
check "partial JSON says what failed" $PY -c "
import json; d=json.load(open('$tmp/f.json')); e=d['provenance']['error']
assert e and 'simulated device fault' in e
assert [o for o in d['objects'] if o['key']=='shared'][0]['findings']['latency']['kind']=='value'"
check "partial recording written" test -s "$tmp/frec/samples.csv"
check "partial table marks the stop" out_has "STOPPED EARLY"

# Same seed, same result; another seed, same topology.
run_mt --sim v100 --quiet --seed 42 --json "$tmp/s1.json"
run_mt --sim v100 --quiet --seed 42 --json "$tmp/s2.json"
check "same seed gives identical findings" $PY -c "
import json; a=json.load(open('$tmp/s1.json')); b=json.load(open('$tmp/s2.json'))
assert a['objects']==b['objects']"

# Speed of the optimised build (the acceptance bound is 10 s on this machine).
if [ -x "$root/build/memtopo" ]; then
  s=$(date +%s.%N); "$root/build/memtopo" --sim h100 --quiet >/dev/null; e=$(date +%s.%N)
  secs=$($PY -c "print(round($e-$s,2))")
  echo "# --sim h100 took $secs s"
  check "--sim h100 under 10 s (took $secs s)" $PY -c "import sys; sys.exit(not $secs < 10)"
fi
finish
