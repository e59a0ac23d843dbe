# tracekit: plain GNU make.  `make`, `make check`, `make check SANITIZE=1`,
# `make vmcheck`, `make demo`, `make deps`, `make bench`, `make doc`,
# `make install`, `make uninstall`; `make DEVELOPER=1` before sending a
# change.

# Each of these has callers (libunwind-generic: the remote API of the
# offline unwinder of user call stacks, util/unwind.c).
PKGS := libelf libdw libtraceevent libtracefs libzstd libcrypto lzo2 zlib libbpf \
	libunwind-generic

# CC is make's default, cc, unless the user names another (CC=clang).
PREFIX ?= /usr/local
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

ifeq ($(SANITIZE),1)
OUT := build/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-DTRACEKIT_SANITIZE
else
OUT := build/obj
SAN_FLAGS :=
endif

ifeq ($(SANITIZE),1)
TRACEKIT := $(OUT)/tracekit
else
TRACEKIT := tracekit
endif

# A cross build, `make CROSS_COMPILE=aarch64-linux-gnu-`: the cross gcc
# and libc of Debian's gcc-aarch64-linux-gnu, the libraries of the
# target's Debian -dev packages unpacked into SYSROOT
# (scripts/cross-sysroot.sh, by default build/sysroot-arm64), the binary
# in build/aarch64/tracekit.  Build only: the tests run it in the arm64
# guest (tests/vm/run.sh --arch arm64 --tracekit ...).
ifneq ($(CROSS_COMPILE),)
CROSS_TRIPLET := $(CROSS_COMPILE:%-=%)
CROSS_MACHINE := $(firstword $(subst -, ,$(CROSS_TRIPLET)))
CROSS_ARCH := $(patsubst aarch64,arm64,$(CROSS_MACHINE))
CC := $(CROSS_COMPILE)gcc
OUT := build/$(CROSS_MACHINE)
TRACEKIT := $(OUT)/tracekit
SYSROOT ?= build/sysroot-$(CROSS_ARCH)
CONFIG := $(OUT)/config.mk
PKG_CONFIG := PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(CROSS_TRIPLET)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(abspath $(SYSROOT)) PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 \
	PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config
# The libraries' own dependencies (libdw's liblzma...) are found there too.
CROSS_LDFLAGS := -Wl,-rpath-link,$(SYSROOT)/usr/lib/$(CROSS_TRIPLET):$(SYSROOT)/lib/$(CROSS_TRIPLET)
else
CONFIG := build/config.mk
PKG_CONFIG := pkg-config
endif

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
SRCDIR := $(CURDIR)

# pkg-config is asked once the packages are known to be installed:
# $(CONFIG) is remade (and make restarts) when it is missing.
-include $(CONFIG)

# DEVELOPER=1: what every change must build clean with, warnings as
# errors (CI builds this way, with gcc and clang).
ifeq ($(DEVELOPER),1)
DEV_CFLAGS := -Werror -Wshadow -Wdeclaration-after-statement -Wvla \
	-Wpointer-arith -Wold-style-definition -Wundef
endif

CFLAGS ?= -O2 -g
ALL_CFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wmissing-prototypes -Wstrict-prototypes $(DEV_CFLAGS) \
	-D_GNU_SOURCE -I. -DTRACEKIT_SRCDIR='"$(SRCDIR)"' \
	$(PKG_CFLAGS) $(SAN_FLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SAN_FLAGS) $(CROSS_LDFLAGS)
LIBS := $(PKG_LIBS) -lm

SRCS := tracekit.c $(wildcard builtin-*.c) $(wildcard util/*.c) \
	$(wildcard ubifs/*.c) \
	$(wildcard arch/*.c) $(wildcard arch/*/*.c) $(wildcard tests/*.c)
OBJS := $(patsubst %.c,$(OUT)/%.o,$(SRCS))

all: $(TRACEKIT)

# `make` needs (and installs) only the build packages; check, demo and
# deps install the test and VM packages too.
$(CONFIG): scripts/deps.sh scripts/cross-sysroot.sh
	$(Q)scripts/deps.sh --build
	$(Q)mkdir -p $(dir $@)
ifneq ($(CROSS_COMPILE),)
	$(Q)command -v $(CC) >/dev/null || \
		{ echo "tracekit: no $(CC) (install gcc-$(CROSS_TRIPLET))" >&2; exit 1; }
	$(Q)[ -d $(SYSROOT) ] || scripts/cross-sysroot.sh $(CROSS_ARCH) $(SYSROOT)
endif
	$(Q)for p in $(PKGS); do $(PKG_CONFIG) --exists $$p || \
		{ echo "tracekit: pkg-config cannot find $$p" >&2; exit 1; }; done
	$(Q){ echo "PKG_CFLAGS := $$($(PKG_CONFIG) --cflags $(PKGS))"; \
	      echo "PKG_LIBS := $$($(PKG_CONFIG) --libs $(PKGS))"; } > $@

# $(call track,FILE,TEXT): FILE holds TEXT, rewritten only when TEXT
# changes, so that what depends on FILE is rebuilt exactly then.
define track
@mkdir -p $(dir $1)
@v='$(subst ','\'',$2)'; \
 [ "$$(cat $1 2>/dev/null)" = "$$v" ] || printf '%s\n' "$$v" >$1
endef

# Objects are rebuilt when the compiler or its flags change (CC=clang,
# CFLAGS=-O0, DEVELOPER=1), the binary relinked when the link flags do.
$(OUT)/CFLAGS: FORCE
	$(call track,$@,$(CC) $(ALL_CFLAGS))
$(OUT)/LDFLAGS: FORCE
	$(call track,$@,$(CC) $(ALL_LDFLAGS) $(LIBS))

# Rewritten only when `git describe` changes, so that tracekit.o (and
# only it) is rebuilt with the new version string.
$(OUT)/version.h: FORCE
	$(call track,$@,#define TRACEKIT_VERSION "$(VERSION)")
$(OUT)/tracekit.o: $(OUT)/version.h
$(OUT)/tracekit.o: private ALL_CFLAGS += -include $(OUT)/version.h

$(TRACEKIT): $(OBJS) $(OUT)/LDFLAGS
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LIBS)

$(OUT)/%.o: %.c $(CONFIG) $(OUT)/CFLAGS
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

-include $(OBJS:.o=.d)

deps:
	scripts/deps.sh

# Tracefs must be mounted for the tests to exercise it; mounting is a host
# setup step, not something tests themselves do.
mount-tracefs:
	@if [ "$$(id -u)" = 0 ] && ! grep -q ' tracefs ' /proc/mounts && \
	    [ -d /sys/kernel/tracing ]; then \
		mount -t tracefs nodev /sys/kernel/tracing && \
		echo "tracekit: mounted tracefs at /sys/kernel/tracing"; \
	fi; true

# Tests at once (tracekit-test(1) -j): those that leave the host's tracefs
# alone, the VM suites above all, run beside the one that may touch it.
JOBS = $(shell nproc 2>/dev/null || echo 1)

# The test packages (trace-cmd, perf, qemu...) are checked on every run:
# build/config.mk only proves the build packages were there once.  The
# manuals are built after them (asciidoctor is one), so that a page that
# no longer builds fails the check.
check: $(TRACEKIT) mount-tracefs
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory doc
	./$(TRACEKIT) test -j$(JOBS) $(TESTFLAGS)

# The kernel-scale comparisons in full (tests/shell/lib/common.sh: sized):
# make check runs a sample of each, to fit CI on a fresh machine.
check-full:
	$(Q)TRACEKIT_TEST_FULL=1 $(MAKE) --no-print-directory check

# `make vmcheck ARCH=arm64`: the arm64 build's whole suite in the arm64
# guest (make check runs a bounded part of it: arm64-suite).
ifeq ($(ARCH),arm64)
vmcheck:
	$(MAKE) CROSS_COMPILE=aarch64-linux-gnu- DEVELOPER=$(DEVELOPER)
	tests/vm/run.sh --arch arm64 --tracekit build/aarch64/tracekit --suite-tools \
		--timeout 3000 -- env OPENSSL_CONF=/dev/null TRACEKIT_SRCDIR=/tracekit \
		tracekit test -v $(TESTFLAGS)
else
vmcheck: $(TRACEKIT)
	tests/vm/run.sh --tracekit $(TRACEKIT) --suite-tools -- \
		env OPENSSL_CONF=/dev/null tracekit test -v $(TESTFLAGS)
endif

demo: $(TRACEKIT) mount-tracefs
	$(Q)scripts/deps.sh
	scripts/demo.sh ./$(TRACEKIT)

bench: $(TRACEKIT)
	@for b in bench/*.sh; do echo "== $$b"; bash $$b ./$(TRACEKIT) || exit 1; done

# The manuals: Documentation/tracekit-CMD.txt, AsciiDoc of the manpage
# doctype, to build/doc/tracekit-CMD.1.  Asciidoctor reports a broken
# reference only when verbose, and as INFO, and does not check that the
# title names the page the file is installed as: both fail the build
# here, as does any warning, so that the pages never rot.
DOCS := $(wildcard Documentation/*.txt)
MANPAGES := $(patsubst Documentation/%.txt,build/doc/%.1,$(DOCS))
ASCIIDOCTOR ?= asciidoctor

build/doc/%.1: Documentation/%.txt
	@mkdir -p $(dir $@)
	@echo "  DOC     $@"
	$(Q)command -v $(ASCIIDOCTOR) >/dev/null || \
		{ echo "tracekit: $(ASCIIDOCTOR) not found (scripts/deps.sh installs it)" >&2; exit 1; }
	$(Q)[ "$$(head -n 1 $<)" = "$*(1)" ] || \
		{ echo "$<:1: the title must be $*(1)" >&2; exit 1; }
	$(Q)$(ASCIIDOCTOR) -v --failure-level INFO -b manpage -d manpage \
		-a mansource=tracekit -a manversion=$(VERSION) \
		-a manmanual='Tracekit Manual' -o $@.tmp $<
	$(Q)mv $@.tmp $@

doc: $(MANPAGES)

bindir := $(PREFIX)/bin
man1dir := $(PREFIX)/share/man/man1
# Where bash-completion loads a command's completion from on first use.
bashcompdir := $(PREFIX)/share/bash-completion/completions
COMPLETION := contrib/completion/tracekit-completion.bash

# uninstall removes exactly what install put in place, nothing else: the
# directories may hold other packages' files.
INSTALLED := $(bindir)/tracekit $(patsubst build/doc/%,$(man1dir)/%,$(MANPAGES)) \
	$(bashcompdir)/tracekit

install: $(TRACEKIT) doc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(man1dir) $(DESTDIR)$(bashcompdir)
	install -m 755 $(TRACEKIT) $(DESTDIR)$(bindir)/tracekit
	install -m 644 $(MANPAGES) $(DESTDIR)$(man1dir)
	install -m 644 $(COMPLETION) $(DESTDIR)$(bashcompdir)/tracekit

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

clean:
	rm -rf build/obj build/asan build/doc build/config.mk build/aarch64 tracekit

.PHONY: all deps check check-full vmcheck demo bench doc install uninstall clean mount-tracefs FORCE
