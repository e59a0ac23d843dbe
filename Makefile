# tracekit: plain GNU make.  `make`, `make check`, `make check SANITIZE=1`,
# `make vmcheck`, `make demo`, `make deps`, `make bench`, `make install`;
# `make DEVELOPER=1` before sending a change.

# Each of these has callers (libunwind-generic: the remote API of the
# offline unwinder of user call stacks, util/unwind.c).
PKGS := libelf libdw libtraceevent libtracefs libzstd libcrypto lzo2 zlib \
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

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
SRCDIR := $(CURDIR)

# pkg-config is asked once the packages are known to be installed:
# build/config.mk is remade (and make restarts) when it is missing.
-include build/config.mk

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
ALL_LDFLAGS := $(LDFLAGS) $(SAN_FLAGS)
LIBS := $(PKG_LIBS) -lm

# The machine the probe translator knows (perf's SRCARCH): arch/$(SRCARCH)/
# implements arch/arch.h.  Another arch is another folder.
SRCARCH ?= $(patsubst x86_64,x86,$(shell uname -m))
ifeq ($(wildcard arch/$(SRCARCH)/*.c),)
$(error tracekit: no arch/$(SRCARCH)/: set SRCARCH to a folder of arch/)
endif

SRCS := tracekit.c $(wildcard builtin-*.c) $(wildcard util/*.c) \
	$(wildcard arch/$(SRCARCH)/*.c) $(wildcard tests/*.c)
OBJS := $(patsubst %.c,$(OUT)/%.o,$(SRCS))

all: $(TRACEKIT)

# `make` needs (and installs) only the build packages; check, demo and
# deps install the test and VM packages too.
build/config.mk: scripts/deps.sh
	$(Q)scripts/deps.sh --build
	$(Q)mkdir -p build
	$(Q)for p in $(PKGS); do pkg-config --exists $$p || \
		{ echo "tracekit: pkg-config cannot find $$p" >&2; exit 1; }; done
	$(Q){ echo "PKG_CFLAGS := $$(pkg-config --cflags $(PKGS))"; \
	      echo "PKG_LIBS := $$(pkg-config --libs $(PKGS))"; } > $@

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

$(OUT)/%.o: %.c build/config.mk $(OUT)/CFLAGS
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

# The test packages (trace-cmd, perf, qemu...) are checked on every run:
# build/config.mk only proves the build packages were there once.
check: $(TRACEKIT) mount-tracefs
	$(Q)scripts/deps.sh
	./$(TRACEKIT) test $(TESTFLAGS)

vmcheck: $(TRACEKIT)
	tests/vm/run.sh --tracekit $(TRACEKIT) -- tracekit test -v $(TESTFLAGS)

demo: $(TRACEKIT) mount-tracefs
	$(Q)scripts/deps.sh
	scripts/demo.sh ./$(TRACEKIT)

bench: $(TRACEKIT)
	@for b in bench/*.sh; do echo "== $$b"; bash $$b ./$(TRACEKIT) || exit 1; done

install: $(TRACEKIT)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(TRACEKIT) $(DESTDIR)$(PREFIX)/bin/tracekit

clean:
	rm -rf build/obj build/asan build/config.mk tracekit

.PHONY: all deps check vmcheck demo bench install clean mount-tracefs FORCE
