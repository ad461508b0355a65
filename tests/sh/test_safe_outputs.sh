#!/usr/bin/env bash
# Safe outputs (issue 7): device nodes and FIFOs are written in place, never
# replaced; a planted symlink is never followed; a 252-byte name works;
# write errors on files and on stdout (full, closed) are one line and exit 5;
# output paths are checked before measuring (exit 2, nothing created); a
# failed run leaves no file, temporary or empty directory; every error is
# one line whatever the input holds; numbers are parsed strictly.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
# Nothing partial anywhere under DIR: no temporaries of any writer.
no_temporaries() { [ -z "$(find "$1" -name '.memtopo-*' -o -name '*.tmp' 2>/dev/null)" ]; }
is_json() { $PY -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }
skip() { n=$((n+1)); echo "ok $n - $1 # skip $2"; }

# ---- device nodes (root only; a private node, never the real /dev) ----
mkdir -p "$tmp/dev"
if [ "$(id -u)" = 0 ] && mknod "$tmp/dev/null" c 1 3 2>/dev/null && mknod "$tmp/dev/full" c 1 7 2>/dev/null; then
  run_mt --sim kepler --quiet --json "$tmp/dev/null"
  check "--json to a null device exits 0" rc_is 0
  check "the null device is still a character device" test -c "$tmp/dev/null"
  run_mt --sim kepler --quiet --json "$tmp/dev/full"
  check "--json to a full device exits 5" rc_is 5
  check "full device: one line naming it" bash -c "$(declare -f one_line_err); tmp='$tmp'; one_line_err && grep -q 'dev/full' '$tmp/err'"
  check "the full device is still a character device" test -c "$tmp/dev/full"
  run_mt --sim kepler --quiet --csv "$tmp/dev/full"
  check "--csv to a full device exits 5" rc_is 5
  check "no temporary beside the device nodes" no_temporaries "$tmp/dev"
else
  for d in "null device exits 0" "null device kept" "full device exits 5" "full device: one line" \
           "full device kept" "--csv full device exits 5" "no temporary beside device nodes"; do
    skip "$d" "needs root and mknod"
  done
fi

# ---- a FIFO is written in place ----
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" & reader=$!
run_mt --sim kepler --quiet --json "$tmp/fifo"
wait $reader
check "--json to a FIFO exits 0" rc_is 0
check "the FIFO is still a FIFO" test -p "$tmp/fifo"
check "the reader got the whole JSON report" is_json "$tmp/fifo.out"

# ---- a symlink planted where the old writer put its temporary ----
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/out.json.tmp"
run_mt --sim kepler --quiet --json "$tmp/out.json"
check "planted symlink: run exits 0" rc_is 0
check "planted symlink: the file it points to is untouched" bash -c "[ \"\$(cat '$tmp/victim')\" = precious ]"
check "planted symlink: the report is written" is_json "$tmp/out.json"
rm "$tmp/out.json.tmp"
check "the report has mode 0666 minus the umask" bash -c "[ \$(stat -c %a '$tmp/out.json') = \$(printf '%o' \$((0666 & ~\$(umask))) ) ]"

# ---- long names ----
long=$(printf 'n%.0s' $(seq 252))
run_mt --sim kepler --quiet --json "$tmp/$long"
check "a 252-byte file name works" is_json "$tmp/$long"
run_mt --sim kepler --quiet --record "$tmp/r$long"
check "a 253-byte recording directory name works" test -s "$tmp/r$long/manifest.json"
toolong=$(printf 'n%.0s' $(seq 256))
run_mt --sim kepler --quiet --json "$tmp/$toolong"
check "a 256-byte name: exit 2" rc_is 2; check "a 256-byte name: one line" one_line_err
check "a 256-byte name: says why" err_has "longer than"

# ---- stdout: full, closed ----
"$MT" --sim kepler --quiet >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "> /dev/full exits 5" rc_is 5; check "> /dev/full: one line" one_line_err
check "> /dev/full: says why" err_has "No space left"
"$MT" --sim kepler --quiet --json "$tmp/closed.json" >&- 2>"$tmp/err"; echo $? >"$tmp/rc"
check "closed stdout exits 5" rc_is 5; check "closed stdout: one line" one_line_err
check "closed stdout: the JSON file is still whole" is_json "$tmp/closed.json"
"$MT" --version >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "--version > /dev/full exits 5" rc_is 5
"$MT" --sim kepler --quiet --json - >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
check "--json - > /dev/full exits 5 with one line" bash -c "[ \$(cat '$tmp/rc') = 5 ] && [ \$(wc -l <'$tmp/err') = 1 ]"

# ---- output paths checked before measuring; nothing created ----
mkdir "$tmp/pre"
: >"$tmp/pre/afile"
run_mt --sim kepler --quiet --raw "$tmp/pre/raw" --record "$tmp/pre/afile"
check "--record onto a file: exit 2" rc_is 2; check "--record onto a file: one line" one_line_err
check "--record onto a file: --raw directory not created" test ! -e "$tmp/pre/raw"
run_mt --sim kepler --quiet --json "$tmp/pre/no/such/r.json" --record "$tmp/pre/rec"
check "missing JSON directory: exit 2" rc_is 2; check "missing JSON directory: names --json" err_has "^memtopo: --json"
check "missing JSON directory: no recording made" test ! -e "$tmp/pre/rec"
run_mt --sim kepler --quiet --json "$tmp/pre"
check "--json onto a directory: exit 2" rc_is 2
mkdir "$tmp/pre/mine"; echo keep >"$tmp/pre/mine/notes.txt"
run_mt --sim kepler --quiet --record "$tmp/pre/mine"
check "--record onto a foreign directory: exit 2" rc_is 2
check "--record onto a foreign directory: names the file" err_has "notes.txt"
check "--record onto a foreign directory: its file is kept" grep -q keep "$tmp/pre/mine/notes.txt"
# A previous recording is replaced whole.
run_mt --sim kepler --quiet --only shared --record "$tmp/pre/again"
run_mt --sim kepler --quiet --only constant --record "$tmp/pre/again"
check "an existing recording is replaced" grep -q '"constant"' "$tmp/pre/again/manifest.json"
check "the replaced recording lists only the new probes" $PY -c "
import json; m=json.load(open('$tmp/pre/again/manifest.json')); assert m['probes']==['calibrate','clock','constant'], m['probes']"
run_mt --replay "$tmp/pre/again" --quiet
check "the replaced recording replays" rc_is 0
# Bad input mid-run (a spec whose memory is too small): no output at all.
sed 's/^global_mem = .*/global_mem = 4 KiB/' "$root/presets/kepler.spec" >"$tmp/small.spec"
run_mt --sim "$tmp/small.spec" --quiet --json "$tmp/pre/s.json" --record "$tmp/pre/srec" --raw "$tmp/pre/sraw"
check "global_mem = 4 KiB: exit 2" rc_is 2
check "global_mem = 4 KiB: no JSON, no directories" bash -c "[ ! -e '$tmp/pre/s.json' ] && [ ! -e '$tmp/pre/srec' ] && [ ! -e '$tmp/pre/sraw' ]"
check "no temporaries left by the failed runs" no_temporaries "$tmp"

# ---- a full disk while writing the recording (root: a 1 MiB tmpfs) ----
mkdir "$tmp/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$tmp/small" 2>/dev/null; then
  run_mt --sim kepler --quiet --record "$tmp/small/rec" --json "$tmp/full.json"
  check "recording on a full disk: exit 5" rc_is 5
  check "recording on a full disk: one line" one_line_err
  check "recording on a full disk: no partial recording" bash -c "[ -z \"\$(ls -A '$tmp/small')\" ]"
  check "recording on a full disk: the JSON is still written" is_json "$tmp/full.json"
  umount "$tmp/small"
else
  for d in "full disk exit 5" "full disk one line" "full disk nothing partial" "full disk JSON kept"; do
    skip "$d" "needs root and a tmpfs mount"
  done
fi

# ---- one line whatever the input holds ----
run_mt --sim $'no\nsuch'
check "a newline in --sim: exit 2, one line" bash -c "[ \$(cat '$tmp/rc') = 2 ] && [ \$(wc -l <'$tmp/err') = 1 ]"
check "the newline is shown escaped" err_has 'no\\nsuch'
sed $'s/^sm_count = .*/sm_count = 1\r2/' "$root/presets/kepler.spec" >"$tmp/cr.spec"
run_mt --sim "$tmp/cr.spec"
check "a CR in a spec value: exit 2, one line" bash -c "[ \$(cat '$tmp/rc') = 2 ] && [ \$(wc -l <'$tmp/err') = 1 ] && ! grep -q \$'\r' '$tmp/err'"
mkdir "$tmp/badrec"; printf '{"format": "memtopo-record",\n "x": "a\nb\x01"}' >"$tmp/badrec/manifest.json"
run_mt --replay "$tmp/badrec"
check "a bad manifest quoted by the JSON library: exit 2, one line" bash -c "[ \$(cat '$tmp/rc') = 2 ] && [ \$(wc -l <'$tmp/err') = 1 ]"
run_mt --sim kepler --only $'l1d\x1b[31m'
check "an escape sequence in --only: one line, escaped" bash -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'x1b' '$tmp/err'"

# ---- strict numbers ----
for num in 010 08 -1 +1 0x1 ' 1' 1e1 99999999999999999999; do
  run_mt --device "$num"
  check "--device '$num' refused (exit 2)" rc_is 2
done
run_mt --sim kepler --seed 010
check "--seed 010 refused" rc_is 2
run_mt --sim kepler --quiet --only shared --seed 10
check "--seed 10 accepted" rc_is 0
finish
