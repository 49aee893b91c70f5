# For distribution packagers:  make install PREFIX=/usr DESTDIR=$(pwd)/debian/tmp
# Builds release binaries with the Swift runtime (and libstdc++) linked statically, and
# installs them with the D-Bus activation file and interface XML, the systemd
# user unit, the desktop-file templates and the docs. Nothing is enabled or made a default:
# each user opts in with `linkctl install` / `linkctl register`.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# The full linkctl, which the `linkctl` front hands every other verb to (LinkRouterCore/Embedded/LinkctlLayout.swift finds it
# there: BINDIR/../libexec/linkrouter).
LINKCTL_FULL_DIR ?= $(PREFIX)/libexec/linkrouter
DATADIR ?= $(PREFIX)/share
DBUS_SERVICES_DIR ?= $(DATADIR)/dbus-1/services
# The reviewed introspection XML, where D-Bus tools and bindings look for interface files.
DBUS_INTERFACES_DIR ?= $(DATADIR)/dbus-1/interfaces
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
DOCDIR ?= $(DATADIR)/doc/linkrouter
TEMPLATEDIR ?= $(DATADIR)/linkrouter/desktop-files
MANDIR ?= $(DATADIR)/man
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(DATADIR)/zsh/vendor-completions
FISH_COMPLETION_DIR ?= $(DATADIR)/fish/vendor_completions.d
DESTDIR ?=
SWIFT ?= swift
# -c release --static-swift-stdlib, and libstdc++ linked statically where its archive is installed.
SWIFT_BUILD_FLAGS ?= $(shell scripts/release-flags)

# BUILT names a directory that already holds linkrouterd, linkctl and linkctl-full (then nothing is built).
BUILT ?=
BIN = $(if $(BUILT),$(BUILT),$(shell $(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path))

.PHONY: all build install uninstall test

all: build

build:
ifeq ($(BUILT),)
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product linkrouterd
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product linkctl
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product linkctl-full
endif

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LINKCTL_FULL_DIR) $(DESTDIR)$(DBUS_SERVICES_DIR) $(DESTDIR)$(DBUS_INTERFACES_DIR) $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(TEMPLATEDIR)
	install -m 0755 $(BIN)/linkrouterd $(BIN)/linkctl $(DESTDIR)$(BINDIR)/
	install -m 0755 $(BIN)/linkctl-full $(DESTDIR)$(LINKCTL_FULL_DIR)/
	ln -sf linkctl $(DESTDIR)$(BINDIR)/docker-credential-linkrouter
	ln -sf linkctl $(DESTDIR)$(BINDIR)/git-credential-linkrouter
	sed 's|@bindir@|$(BINDIR)|g' packaging/dbus/org.linkrouter.LinkRouter1.service.in > $(DESTDIR)$(DBUS_SERVICES_DIR)/org.linkrouter.LinkRouter1.service
	install -m 0644 docs/org.linkrouter.LinkRouter1.xml $(DESTDIR)$(DBUS_INTERFACES_DIR)/
	sed 's|@bindir@|$(BINDIR)|g' packaging/systemd/linkrouterd.service.in > $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/linkrouterd.service
	install -m 0644 packaging/systemd/linkrouterd-agent.socket $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/
	sed 's|@bindir@|$(BINDIR)|g' packaging/desktop-files/linkrouter-https.desktop.in > $(DESTDIR)$(TEMPLATEDIR)/linkrouter-https.desktop
	sed 's|@bindir@|$(BINDIR)|g' packaging/desktop-files/linkrouter-SCHEME.desktop.in > $(DESTDIR)$(TEMPLATEDIR)/linkrouter-SCHEME.desktop.in
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/
	@# Shell completion from linkctl's verb table.
	install -d $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) $(DESTDIR)$(FISH_COMPLETION_DIR)
	$(BIN)/linkctl completion bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/linkctl
	$(BIN)/linkctl completion zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_linkctl
	$(BIN)/linkctl completion fish > $(DESTDIR)$(FISH_COMPLETION_DIR)/linkctl.fish
	@# Manual pages from the programs' own --help (help2man, Debian's help2man): skipped, with a word, where it is missing.
	if command -v help2man >/dev/null; then \
	  scripts/man-pages $(BIN) $(DESTDIR)$(MANDIR)/man1 && ln -sf linkctl.1 $(DESTDIR)$(MANDIR)/man1/docker-credential-linkrouter.1 && ln -sf linkctl.1 $(DESTDIR)$(MANDIR)/man1/git-credential-linkrouter.1; \
	else echo "make: help2man is missing (Debian: help2man): no manual pages installed" >&2; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/linkrouterd $(DESTDIR)$(BINDIR)/linkctl $(DESTDIR)$(BINDIR)/docker-credential-linkrouter $(DESTDIR)$(BINDIR)/git-credential-linkrouter
	rm -f $(DESTDIR)$(LINKCTL_FULL_DIR)/linkctl-full
	-rmdir $(DESTDIR)$(LINKCTL_FULL_DIR)
	rm -f $(DESTDIR)$(DBUS_SERVICES_DIR)/org.linkrouter.LinkRouter1.service $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/linkrouterd.service $(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/linkrouterd-agent.socket
	rm -f $(DESTDIR)$(DBUS_INTERFACES_DIR)/org.linkrouter.LinkRouter1.xml
	rm -rf $(DESTDIR)$(TEMPLATEDIR) $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(MANDIR)/man1/linkctl.1 $(DESTDIR)$(MANDIR)/man1/linkrouterd.1 $(DESTDIR)$(MANDIR)/man1/docker-credential-linkrouter.1 $(DESTDIR)$(MANDIR)/man1/git-credential-linkrouter.1
	rm -f $(DESTDIR)$(BASH_COMPLETION_DIR)/linkctl $(DESTDIR)$(ZSH_COMPLETION_DIR)/_linkctl $(DESTDIR)$(FISH_COMPLETION_DIR)/linkctl.fish

test:
	scripts/test
