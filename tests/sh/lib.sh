# Tiny TAP-like helpers for the shell tests: each check prints "ok N - what"
# or "not ok N - what" and the script exits non-zero if any failed.
n=0; bad=0
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MT=${MT:-$root/build/san/memtopo}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() { # check "description" command...
  n=$((n+1)); local d=$1; shift
  if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; bad=$((bad+1)); fi
}
# run_mt: runs memtopo, keeping stdout/stderr/exit code in $tmp.
run_mt() { "$MT" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc_is() { [ "$(cat "$tmp/rc")" = "$1" ]; }
one_line_err() { [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q '^memtopo: ' "$tmp/err"; }
err_has() { grep -q -- "$1" "$tmp/err"; }
out_has() { grep -q -- "$1" "$tmp/out"; }
no_file() { [ ! -e "$1" ] && ! ls "$1".tmp* >/dev/null 2>&1; }
finish() { [ "$bad" = 0 ]; }
