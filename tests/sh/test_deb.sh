#!/usr/bin/env bash
# The Debian package (make deb): its control data, that it holds exactly
# what make install puts under /usr, and that the binary it carries runs.
# Installing it into the system is CI's job (.ci/run: apt-get install, run
# /usr/bin/memtopo, remove), not a test's: a test never changes the machine.
source "$(dirname "$0")/lib.sh"
make -s -C "$root" deb >"$tmp/deb.log" 2>&1
check "make deb succeeds" test $? = 0
deb=$(ls "$root"/build/deb/memtopo_*.deb 2>/dev/null | head -1)
check "it writes build/deb/memtopo_VERSION_ARCH.deb" test -s "$deb"
version=$("$root/build/memtopo" --version | awk '{print $2}')
dpkg-deb --field "$deb" Package Version Architecture Depends >"$tmp/fields"
check "Package: memtopo" grep -qx "Package: memtopo" "$tmp/fields"
check "Version: $version (the binary's)" grep -qx "Version: $version" "$tmp/fields"
check "Architecture: $(dpkg --print-architecture)" grep -qx "Architecture: $(dpkg --print-architecture)" "$tmp/fields"
check "Depends names the JSON library it links" grep -q "^Depends:.*libjansson4" "$tmp/fields"

dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}' | sed 's|^\./|/|' | sort >"$tmp/in-deb"
make -s -C "$root" install DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null 2>&1
(cd "$tmp/inst" && find . -type f | sed 's|^\./|/|' | sort) >"$tmp/installed"
check "the package holds exactly what make install puts under /usr" diff "$tmp/in-deb" "$tmp/installed"
check "owned by root in the package" bash -c "! dpkg-deb --contents '$deb' | awk '{print \$2}' | grep -qv '^root/root\$'"

dpkg-deb -x "$deb" "$tmp/x"
"$tmp/x/usr/bin/memtopo" --sim kepler --only l1d --quiet --json "$tmp/x.json" >/dev/null
check "the packaged binary measures a simulated GPU" test -s "$tmp/x.json"
finish
