#!/usr/bin/env bash
# --plot DIR and --html FILE (issue 13): every plot exists, is a real PNG or
# SVG and not empty, with its data and script; the capacity step is in the
# data and the reported size is marked; a replay draws the same plots; the
# HTML page is self-contained (every plot inlined, nothing fetched) and is
# written as safely as the other outputs; a real headless browser renders it
# (the screenshot is kept in build/html-screenshot.png to look at).
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
no_temporaries() { [ -z "$(find "$1" -name '.memtopo-*' 2>/dev/null)" ]; }
skip() { n=$((n+1)); echo "ok $n - $1 # skip $2"; }

# kepler: the quickest preset under the sanitizers, with every load path.
run_mt --sim kepler --quiet --plot "$tmp/plots" --html "$tmp/r.html" --json "$tmp/r.json" --record "$tmp/rec"
check "--plot and --html: exit 0" rc_is 0
check "nothing on stderr" test ! -s "$tmp/err"
for p in l1d texture readonly constant l2; do
  for k in latency distribution; do
    f=$tmp/plots/$p-$k
    check "$p-$k.png is a PNG, not empty" bash -c "[ \$(head -c 8 '$f.png' | od -An -tx1 | tr -d ' ') = 89504e470d0a1a0a ] && [ \$(stat -c %s '$f.png') -gt 5000 ]"
    check "$p-$k.svg is an SVG with drawn paths" bash -c "grep -q '<svg' '$f.svg' && [ \$(grep -c '<path' '$f.svg') -gt 10 ]"
    check "$p-$k.dat holds data" bash -c "[ \$(grep -vc '^#\|^\$' '$f.dat') -ge 2 ]"
  done
done
check "the script that redraws them is there" grep -q "set output 'l1d-latency.svg'" "$tmp/plots/plots.gp"
check "no gnuplot log left after a clean run" test ! -e "$tmp/plots/gnuplot.log"

# The curve shows the cache: hits up to the reported L1 size, misses from
# twice that size on.
l1=$($PY -c "
import json,sys
for o in json.load(open(sys.argv[1]))['objects']:
    if o['key'] == 'l1d': print(int(o['findings']['size']['value']))" "$tmp/r.json")
step_at_size() { $PY - "$1" "$2" <<'PYEOF'
import sys
size = int(sys.argv[2]); inside, beyond = [], []
# The first block: the stride the capacity search used most (a chain at a
# large stride touches few lines and may fit far beyond the size).
for line in open(sys.argv[1]).read().split('\n\n\n')[0].splitlines():
    if line.startswith('#') or not line.strip(): continue
    fp, med = line.split(); fp = int(fp); med = float(med)
    (inside if fp <= size else beyond if fp >= 2 * size else []).append(med)
sys.exit(0 if inside and beyond and max(inside) * 2 < min(beyond) else 1)
PYEOF
}
check "l1d latency data steps up at the reported L1 size ($l1 B)" step_at_size "$tmp/plots/l1d-latency.dat" "$l1"
check "the reported L1 size is marked on its plot" grep -q "set arrow from $l1, graph 0" "$tmp/plots/plots.gp"

# A replay of the recording draws the same plots from the same samples.
run_mt --replay "$tmp/rec" --quiet --plot "$tmp/plots2"
check "--replay --plot: exit 0" rc_is 0
check "the replay's data equal the run's" diff -r -x '*.png' -x '*.svg' "$tmp/plots" "$tmp/plots2"

# --carveout: the L1 at each carveout, one curve per carveout, and the page
# shows it.
cs=$root/tests/specs-carveout/ampere-fifo.spec
run_mt --sim "$cs" --only l1d --carveout all --quiet --plot "$tmp/cv" --html "$tmp/cv.html" --json "$tmp/cv.json"
check "--carveout all --plot: exit 0" rc_is 0
check "l1d-carveout.png and .svg are drawn" bash -c "[ \$(stat -c %s '$tmp/cv/l1d-carveout.png') -gt 5000 ] && grep -q '<svg' '$tmp/cv/l1d-carveout.svg'"
n_carveouts=$($PY -c "import json,sys; print(len(json.load(open(sys.argv[1]))['device']['carveout_smem_options_bytes']))" "$tmp/cv.json")
check "one curve per carveout the device lists ($n_carveouts)" \
  bash -c "[ \$(grep -c '^# carveout ' '$tmp/cv/l1d-carveout.dat') = $n_carveouts ]"
check "the page shows the carveout plot" grep -q '<figure id="l1d-carveout">' "$tmp/cv.html"

# The page: self-contained, every plot inlined, the report in it.
check "the page has the table" grep -q "^Caches" "$tmp/r.html"
check "the page inlines all 10 plots" bash -c "[ \$(grep -c '^<svg' '$tmp/r.html') = 10 ]"
# Anything that could load a resource; the SVG namespace names are not fetched.
loads_nothing() { ! grep -Eio '<script|<iframe|<img|<link|src=|url\(|https?://[^"]*' "$1" | grep -qv '^http://www.w3.org/'; }
check "the page loads nothing (no script, frame, image, style sheet or URL)" loads_nothing "$tmp/r.html"
check "the page is well-formed for an HTML parser" $PY -c "
import html.parser,sys
class P(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.stack=[]
    def handle_starttag(s,t,a):
        if t not in ('meta','br','path','circle','rect','line','use','stop','image','polygon','polyline','ellipse'): s.stack.append(t)
    def handle_startendtag(s,t,a): pass
    def handle_endtag(s,t):
        if t in ('meta','br','path','circle','rect','line','use','stop','image','polygon','polyline','ellipse'): return
        assert s.stack and s.stack[-1]==t, (t, s.stack[-3:]); s.stack.pop()
p=P(); p.feed(open(sys.argv[1]).read()); assert not p.stack, p.stack" "$tmp/r.html"

# Written safely: a planted symlink to nothing is refused before measuring,
# a directory that is not a plot directory is never replaced, and a failure
# leaves nothing behind.
ln -s "$tmp/nowhere" "$tmp/dangling.html"
run_mt --sim kepler --quiet --html "$tmp/dangling.html"
check "--html to a dangling symlink -> 2" rc_is 2
check "  and nothing is created where it points" test ! -e "$tmp/nowhere"
mkdir "$tmp/mine"; echo precious >"$tmp/mine/notes.txt"
run_mt --sim kepler --quiet --plot "$tmp/mine"
check "--plot into someone's directory -> 2" rc_is 2
check "  one line naming the file it would lose" bash -c "$(declare -f one_line_err); tmp='$tmp'; one_line_err && grep -q notes.txt '$tmp/err'"
check "  their file is untouched" grep -qx precious "$tmp/mine/notes.txt"
run_mt --sim kepler --quiet --plot "$tmp/plots" --html "$tmp/r.html"
check "an earlier plot directory and page are replaced" rc_is 0
mkdir "$tmp/scratch"
TMPDIR=$tmp/scratch run_mt --sim kepler --quiet --html "$tmp/alone.html"
check "--html alone: exit 0" rc_is 0
check "  the page has its plots" bash -c "[ \$(grep -c '^<svg' '$tmp/alone.html') = 10 ]"
check "  the plots drawn for it in TMPDIR are removed" test -z "$(ls -A "$tmp/scratch")"
check "no temporaries left anywhere" no_temporaries "$tmp"
PATH=/nonexistent run_mt --sim kepler --quiet --html "$tmp/nogp.html"
check "without gnuplot: exit 2 before measuring" rc_is 2
check "  one line saying what to install" bash -c "$(declare -f one_line_err); tmp='$tmp'; one_line_err && grep -q gnuplot-nox '$tmp/err'"
check "  and no page" test ! -e "$tmp/nogp.html"

# A real browser (Chromium's headless shell from Debian) renders the page.
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -n "$browser" ]; then
  shot=$root/build/html-screenshot.png
  rm -f "$shot"
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/chromium" --window-size=1100,2600 --screenshot="$shot" \
    "file://$tmp/r.html" >"$tmp/browser.log" 2>&1
  check "headless Chromium writes a screenshot of the page" test -s "$shot"
  # A blank page compresses to a few KiB; the table and plots need far more.
  check "  and it is not blank (over 100 KiB of PNG)" bash -c "[ \$(stat -c %s '$shot') -gt 102400 ]"
else
  skip "headless Chromium screenshot" "no chromium-headless-shell (make deps installs it)"
  skip "screenshot not blank" "no browser"
fi
finish
