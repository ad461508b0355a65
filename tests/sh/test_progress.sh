#!/usr/bin/env bash
# The progress display (issue 13): on a terminal's stderr, one line
# rewritten in place with the probe, its place in the plan, the step, the
# elapsed time and an estimate of what is left, cleared at the end; nothing
# under --quiet, and nothing when stderr is not a terminal.  The terminal is
# a pseudo-terminal from script(1) (util-linux).
source "$(dirname "$0")/lib.sh"
skip() { n=$((n+1)); echo "ok $n - $1 # skip $2"; }
on_tty() { # on_tty OUTFILE ARGS...: memtopo on a pseudo-terminal (stdout and stderr)
  local out=$1; shift
  script -qec "$(printf '%q ' "$MT" "$@")" /dev/null >"$out" 2>&1 </dev/null
}
if command -v script >/dev/null; then
  on_tty "$tmp/tty" --sim kepler --only l1d,l2 --json "$tmp/r.json"
  tr '\r' '\n' <"$tmp/tty" >"$tmp/lines"
  check "the first probe is shown as 1 of the plan" grep -q "memtopo: \[1/[0-9]*\] calibrate: " "$tmp/lines"
  check "every probe of the plan is shown in turn" grep -q "memtopo: \[\([0-9]*\)/\1\] " "$tmp/lines"
  check "a probe's own steps are shown" grep -q "\] l1d: .*capacity" "$tmp/lines"
  check "elapsed time and an estimate of what is left" grep -q "| [0-9.]* s, about [0-9.]* s left" "$tmp/lines"
  check "each update rewrites the line (CR, erase line)" grep -q $'\r\033\[Kmemtopo: \[' "$tmp/tty"
  # After the last erase, no progress text is left on the terminal.
  cleared() { python3 -c "import sys; t=open(sys.argv[1],'rb').read(); sys.exit(b'memtopo: [' in t[t.rindex(b'\r\x1b[K'):])" "$1"; }
  check "the line is cleared before the run ends" cleared "$tmp/tty"
  check "the report is still written" test -s "$tmp/r.json"
  on_tty "$tmp/tty-q" --sim kepler --only l1d --quiet --json "$tmp/q.json"
  check "--quiet: no progress on a terminal" bash -c "! grep -q 'memtopo: \[' '$tmp/tty-q'"
else
  for d in first all steps times rewrite cleared report quiet; do skip "progress: $d" "no script(1)"; done
fi
"$MT" --sim kepler --only l1d --json "$tmp/p.json" 2>"$tmp/pipe-err" | cat >/dev/null
check "stderr not a terminal: no progress at all" test ! -s "$tmp/pipe-err"
finish
