# The manual page, install/uninstall, and the Debian package (included by
# the Makefile).
#
#   make man                      build/memtopo.1, generated from --help
#   make install   [PREFIX=/usr/local] [DESTDIR=]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#   make deb                      build/deb/memtopo_<version>_<arch>.deb
#
# The man page is generated from `memtopo --help` and `--version` by
# help2man (Debian package help2man), with the sections --help has no room
# for (examples, files, see also) in man/memtopo.h2m: one source, so the
# manual and --help cannot disagree (tests/sh/test_manpage.sh).

MAN_PAGE := $(B)/memtopo.1
$(MAN_PAGE): $(B)/memtopo man/memtopo.h2m
	help2man --no-info --include=man/memtopo.h2m --output=$@.tmp ./$(B)/memtopo
	mv $@.tmp $@
man: $(MAN_PAGE)

# Where Linux tools put things (the GNU directory variables).
PREFIX      ?= /usr/local
bindir      := $(PREFIX)/bin
datadir     := $(PREFIX)/share
man1dir     := $(datadir)/man/man1
pkgdatadir  := $(datadir)/memtopo
docdir      := $(datadir)/doc/memtopo
bashcompdir := $(datadir)/bash-completion/completions

INSTALL_SCHEMAS := $(sort $(wildcard schema/*.json))
INSTALL_PRESETS := $(sort $(wildcard presets/*.spec))
INSTALL_DOCS    := README.md $(sort $(wildcard docs/*.md))
COMPLETION      := completion/memtopo.bash

install: $(B)/memtopo $(MAN_PAGE)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(man1dir) $(DESTDIR)$(pkgdatadir)/schema \
	  $(DESTDIR)$(pkgdatadir)/presets $(DESTDIR)$(docdir) $(DESTDIR)$(bashcompdir)
	install -m 755 $(B)/memtopo $(DESTDIR)$(bindir)/memtopo
	$(if $(wildcard $(B)/memtopo-mpi),install -m 755 $(B)/memtopo-mpi $(DESTDIR)$(bindir)/memtopo-mpi)
	gzip -9n <$(MAN_PAGE) >$(B)/memtopo.1.gz
	install -m 644 $(B)/memtopo.1.gz $(DESTDIR)$(man1dir)/memtopo.1.gz
	install -m 644 $(INSTALL_SCHEMAS) $(DESTDIR)$(pkgdatadir)/schema
	install -m 644 $(INSTALL_PRESETS) $(DESTDIR)$(pkgdatadir)/presets
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(docdir)
	install -m 644 $(COMPLETION) $(DESTDIR)$(bashcompdir)/memtopo

# Removes exactly what install put there, then the directories that are
# memtopo's own (never bin/ or man1/, which other tools share).
uninstall:
	rm -f $(DESTDIR)$(bindir)/memtopo $(DESTDIR)$(bindir)/memtopo-mpi $(DESTDIR)$(man1dir)/memtopo.1.gz \
	  $(DESTDIR)$(bashcompdir)/memtopo \
	  $(addprefix $(DESTDIR)$(pkgdatadir)/schema/,$(notdir $(INSTALL_SCHEMAS))) \
	  $(addprefix $(DESTDIR)$(pkgdatadir)/presets/,$(notdir $(INSTALL_PRESETS))) \
	  $(addprefix $(DESTDIR)$(docdir)/,$(notdir $(INSTALL_DOCS)))
	-rmdir $(DESTDIR)$(pkgdatadir)/schema $(DESTDIR)$(pkgdatadir)/presets $(DESTDIR)$(pkgdatadir) \
	  $(DESTDIR)$(docdir) 2>/dev/null

.PHONY: man install uninstall

# ---- the Debian package -------------------------------------------------
# Built with dpkg-deb from what `make install DESTDIR=... PREFIX=/usr` puts
# in a staging tree, with the control file from packaging/deb/control.in:
# the package installs exactly what make install does.  Depends comes from
# dpkg-shlibdeps (the libraries the binary links), so it cannot go stale.
DEB_VERSION := $(shell sed -n 's/^\#define MEMTOPO_VERSION "\(.*\)"/\1/p' src/core/version.h)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null)
DEB_STAGE   := $(B)/deb/root
DEB_FILE    := $(B)/deb/memtopo_$(DEB_VERSION)_$(DEB_ARCH).deb

deb: $(DEB_FILE)
$(DEB_FILE): $(B)/memtopo $(MAN_PAGE) packaging/deb/control.in $(COMPLETION) $(INSTALL_SCHEMAS) \
             $(INSTALL_PRESETS) $(INSTALL_DOCS)
	rm -rf $(DEB_STAGE) $(B)/deb/shlibs
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEB_STAGE)) PREFIX=/usr
	strip --strip-unneeded --remove-section=.comment --remove-section=.note $(DEB_STAGE)/usr/bin/memtopo
	mkdir -p $(B)/deb/shlibs/debian $(DEB_STAGE)/DEBIAN
	touch $(B)/deb/shlibs/debian/control
	deps=$$(cd $(B)/deb/shlibs && dpkg-shlibdeps -O $(abspath $(DEB_STAGE))/usr/bin/memtopo 2>/dev/null | \
	        sed -n 's/^shlibs:Depends=//p'); \
	size=$$(du -sk --exclude=DEBIAN $(DEB_STAGE) | cut -f1); \
	sed -e "s/@VERSION@/$(DEB_VERSION)/" -e "s/@ARCH@/$(DEB_ARCH)/" -e "s/@SIZE@/$$size/" \
	    -e "s/@DEPENDS@/$$deps/" packaging/deb/control.in >$(DEB_STAGE)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_STAGE) $@.tmp >/dev/null
	mv $@.tmp $@

.PHONY: deb
