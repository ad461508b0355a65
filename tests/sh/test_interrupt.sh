#!/usr/bin/env bash
# Interruption keeps the work (issue 7): SIGINT/SIGTERM stop the run between
# batches; the JSON holds what was measured with provenance.interrupted, the
# table says INTERRUPTED, the exit code is 128 + the signal, the recording
# says it was interrupted and replays to the same partial report, and
# nothing partial is left.  Deterministic through the sim's
# signal_after_batches hook, then once with a real kill on a running
# process, and once under a storm of signals.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
SCHEMA="$root/schema/memtopo-report.schema.json"
no_temporaries() { [ -z "$(find "$1" -name '.memtopo-*' -o -name '*.tmp' 2>/dev/null)" ]; }
hook_spec() { # hook_spec BATCHES SIGNAL > file
  sed "s/^seed = .*/&\nsignal_after_batches = $1\nsignal = $2/" "$root/presets/kepler.spec"; }
# partial_json FILE SIGNAL: interrupted, names the signal, some but not all
# findings measured.
partial_json() { $PY - "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); p = d['provenance']
assert p['interrupted'] is True and sys.argv[2] in p['error'], p
kinds = [f['kind'] for o in d['objects'] for f in o['findings'].values()]
measured = [o['key'] for o in d['objects'] if o['probed']]
assert 'shared' in measured, measured            # measured before the stop
assert [o for o in d['objects'] if o['key'] == 'dram' and not o['probed']]  # not reached
PYEOF
}
same_objects() { $PY -c "
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert a['objects']==b['objects'] and b['provenance']['interrupted'] is True" "$1" "$2"; }

for sig in SIGINT SIGTERM; do
  code=$([ $sig = SIGINT ] && echo 130 || echo 143)
  hook_spec 40 $sig >"$tmp/$sig.spec"
  run_mt --sim "$tmp/$sig.spec" --quiet --json "$tmp/$sig.json" --record "$tmp/$sig.rec" --raw "$tmp/$sig.raw"
  check "$sig after 40 batches: exit $code" rc_is $code
  check "$sig: one line on stderr naming the signal" bash -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q $sig '$tmp/err'"
  check "$sig: JSON says interrupted, with partial findings" partial_json "$tmp/$sig.json" $sig
  check "$sig: JSON validates" $PY "$root/tests/check_schema.py" "$SCHEMA" "$tmp/$sig.json"
  check "$sig: the table says INTERRUPTED" out_has "INTERRUPTED"
  check "$sig: the manifest says interrupted" grep -q "\"interrupted\": \"$sig\"" "$tmp/$sig.rec/manifest.json"
  for d in rec raw; do
    run_mt --replay "$tmp/$sig.$d" --quiet --json "$tmp/$sig.$d.json"
    check "$sig: the --$d directory replays to exit $code" rc_is $code
    check "$sig: its replay reproduces the partial report" same_objects "$tmp/$sig.json" "$tmp/$sig.$d.json"
  done
done
check "nothing partial left by the hooked runs" no_temporaries "$tmp"

# A signal before the first batch still ends cleanly: nothing measured, but
# the outputs say so (and exist).
hook_spec 1 SIGINT >"$tmp/early.spec"
run_mt --sim "$tmp/early.spec" --quiet --json "$tmp/early.json"
check "interrupted in the first batch: exit 130" rc_is 130
check "interrupted in the first batch: JSON written" $PY -c "
import json; d=json.load(open('$tmp/early.json')); assert d['provenance']['interrupted']"

# A real SIGINT on a running process, once it is measuring (it has used
# CPU time: the measuring is CPU-bound, the start-up is not).
# CPU ticks of memtopo itself (0 while the shell's fork has not exec'ed it yet).
cpu_ticks() {
  case "$(readlink "/proc/$1/exe" 2>/dev/null)" in *memtopo) ;; *) echo 0; return ;; esac
  awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
"$MT" --sim h100 --quiet --json "$tmp/kill.json" --record "$tmp/kill.rec" >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
for _ in $(seq 600); do [ "$(cpu_ticks $pid)" -ge 30 ] && break; sleep 0.05; done
kill -INT $pid
wait $pid; echo $? >"$tmp/rc"
check "kill -INT on a running process: exit 130" rc_is 130
check "kill -INT: the JSON says interrupted" $PY -c "
import json; d=json.load(open('$tmp/kill.json')); p=d['provenance']
assert p['interrupted'] and 'SIGINT' in p['error']"
run_mt --replay "$tmp/kill.rec" --quiet --json "$tmp/kill.replay.json"
check "kill -INT: the recording replays to exit 130" rc_is 130
check "kill -INT: the replay reproduces the partial report" same_objects "$tmp/kill.json" "$tmp/kill.replay.json"

# A storm of signals (every 20 ms until the process exits) also hits the
# final writing: every output is still whole, nothing partial is left.
"$MT" --sim kepler --quiet --json "$tmp/storm.json" --record "$tmp/storm.rec" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(cpu_ticks $pid)" -ge 5 ] && break; sleep 0.01; done
while kill -TERM $pid 2>/dev/null; do sleep 0.02; done
wait $pid; echo $? >"$tmp/rc"
check "signal storm: exit 143" rc_is 143
check "signal storm: the JSON is whole" $PY -c "import json; json.load(open('$tmp/storm.json'))"
run_mt --replay "$tmp/storm.rec" --quiet
check "signal storm: the recording replays" rc_is 143
check "nothing partial left" no_temporaries "$tmp"
finish
