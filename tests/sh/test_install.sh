#!/usr/bin/env bash
# make install / make uninstall with PREFIX and DESTDIR: every file where a
# Linux tool puts it, the installed binary and man page work, the bash
# completion completes, and uninstall leaves nothing of memtopo behind.
source "$(dirname "$0")/lib.sh"
dest=$tmp/dest
make -s -C "$root" install DESTDIR="$dest" PREFIX=/usr >"$tmp/install.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr succeeds" test $? = 0
for f in bin/memtopo share/man/man1/memtopo.1.gz share/memtopo/schema/memtopo-report.schema.json \
         share/memtopo/schema/memtopo-model.schema.json share/doc/memtopo/model.md \
         share/memtopo/presets/h100.spec share/doc/memtopo/README.md share/doc/memtopo/method.md \
         share/bash-completion/completions/memtopo; do
  check "installs /usr/$f" test -s "$dest/usr/$f"
done
check "the binary is executable" test -x "$dest/usr/bin/memtopo"
"$dest/usr/bin/memtopo" --list-presets >"$tmp/presets"
check "the installed binary runs" grep -qx h100 "$tmp/presets"
check "its man page renders" bash -c "MANWIDTH=80 man -l '$dest/usr/share/man/man1/memtopo.1.gz' | grep -q -- --sim"

# The completion, loaded into a bash that knows memtopo as the installed binary.
complete_words() { # complete_words WORD... : what TAB offers after them
  PATH=$dest/usr/bin:$PATH bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _memtopo; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$dest/usr/share/bash-completion/completions/memtopo" "$@"
}
check "completion: --s offers --sim, --sim-per-rank and --seed" \
  bash -c '[ "$(printf "%s\n" "$@" | sort | tr "\n" " ")" = "--seed --sim --sim-per-rank " ]' _ $(complete_words memtopo --s)
check "completion: --sim h offers the preset h100" bash -c '[ "$1" = h100 ]' _ $(complete_words memtopo --sim h1)
check "completion: --only l1d,te offers l1d,texture" bash -c '[ "$1" = l1d,texture ]' _ $(complete_words memtopo --only l1d,te)
check "completion: compare offers reports" bash -c '[ "$1" = compare ]' _ $(complete_words memtopo comp)
check "completion: mod offers model" bash -c '[ "$1" = model ]' _ $(complete_words memtopo mod)
check "completion: model --sch offers --scheduler" bash -c '[ "$1" = --scheduler ]' _ $(complete_words memtopo model --sch)
check "completion: model --scheduler offers gto and rr" bash -c '[ "$*" = "gto rr" ]' _ $(complete_words memtopo model --scheduler "")

make -s -C "$root" uninstall DESTDIR="$dest" PREFIX=/usr >"$tmp/uninstall.log" 2>&1
check "make uninstall succeeds" test $? = 0
left=$(find "$dest" -type f -o -type d -name memtopo)
check "uninstall leaves no memtopo file or directory${left:+ (left: $left)}" test -z "$left"
finish
