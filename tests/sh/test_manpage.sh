#!/usr/bin/env bash
# The manual and --help cannot disagree: build/memtopo.1 is generated from
# --help by help2man (mk/install.mk).  This checks that the generated page
# is the current binary's (every option and probe of --help is in it, and
# its version), and that --help documents every option the parser accepts.
source "$(dirname "$0")/lib.sh"
page=$root/build/memtopo.1
bin=$root/build/memtopo

check "the man page was built (make man)" test -s "$page"
MANWIDTH=200 man -l "$page" >"$tmp/man.txt" 2>"$tmp/man.err"
check "man renders the page without a warning" test ! -s "$tmp/man.err"
has_sections() { for s in NAME SYNOPSIS DESCRIPTION EXAMPLES FILES; do grep -q "^$s" "$tmp/man.txt" || return 1; done; }
check "the page has NAME, SYNOPSIS, DESCRIPTION, EXAMPLES and FILES" has_sections

"$bin" --help >"$tmp/help.txt"
# Every long option and every probe name --help lists is in the manual.
missing=
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help.txt" | sort -u); do
  grep -q -- "$opt" "$tmp/man.txt" || missing="$missing $opt"
done
for probe in $(sed -n '/^What to measure/,/^ *-/s/^  \([a-z0-9_]*\) .*/\1/p' "$tmp/help.txt"); do
  grep -q "^ *$probe\( \|$\)" "$tmp/man.txt" || missing="$missing probe:$probe"
done
check "every option and probe of --help is in the man page${missing:+ (missing:$missing)}" test -z "$missing"
version=$("$bin" --version | awk '{print $2}')
check "the man page is of this version ($version)" grep -q "^\.TH .*memtopo $version" "$page"

# Every long option the parser's table accepts is documented in --help.
undocumented=
for opt in $(sed -n '/longopts\[\] = {/,/{0, 0, 0, 0}/p' "$root/src/cli/cli_parse.c" |
             grep -o '{"[a-z][a-z-]*"' | tr -d '{"'); do
  grep -q -- "--$opt\b" "$tmp/help.txt" || undocumented="$undocumented --$opt"
done
check "--help documents every option of the parser${undocumented:+ (not:$undocumented)}" test -z "$undocumented"
finish
