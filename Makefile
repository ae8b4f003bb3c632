# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The project's only Makefile: toolchain, flags and knobs live here; each
# directory adds its sources and targets through a fragment (*/*.mk).
#
#   make              build everything (engine, plugin, host library, CLI)
#   make check        build, layers, unit tests (ASan+UBSan), plugin tests (~1 min)
#   make test         make check (stops if it fails), fuzzing, packages, the lab
#   make demo         the main job: an offloaded copy in the lab
#   make fuzz         libFuzzer targets, FUZZ_SECONDS each (default 30), FUZZ_JOBS at once
#
# Knobs: V=1 (show commands), WERROR=1 (warnings are errors: make test and CI
# set it; a plain make does not), SAN= (sanitizers of the test build, default
# address,undefined; empty disables), DEBUG=1 (-O0 -g3), BUILD=dir.
# The environment's CFLAGS, CPPFLAGS and LDFLAGS are honoured (dpkg-buildflags
# hardening among them); the project's own flags are added on top.
# Install paths: PREFIX, LIBDIR (multiarch on Debian), INCLUDEDIR, BINDIR,
# MANDIR, TCMU_HANDLER_DIR, and DESTDIR for staged installs: read by make
# install (libxcopy.pc is written then, with the paths of that install).

SHELL := /bin/bash
TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BUILD ?= $(TOP)/build
override BUILD := $(abspath $(BUILD))
V ?= 0
WERROR ?= 0
SAN ?= address,undefined
DEBUG ?= 0
CC ?= gcc
AR ?= ar
PKG_CONFIG ?= pkg-config
FUZZ_SECONDS ?= 30
# make jobs of the compile-only steps of make check/test (build-all,
# build-tests, the fuzzers' build, the package build): the stages run one
# after another, and a serial compile left one of the CI's two cores idle
JOBS ?= $(shell nproc)
# The one source of the version: the first entry of debian/changelog.
VERSION := $(shell head -1 $(TOP)/debian/changelog | cut -d'(' -f2 | cut -d')' -f1 | cut -d- -f1)

PREFIX ?= /usr/local
DEB_HOST_MULTIARCH ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
LIBDIR ?= $(PREFIX)/lib$(if $(DEB_HOST_MULTIARCH),/$(DEB_HOST_MULTIARCH))
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL_PATH_VARS := PREFIX LIBDIR INCLUDEDIR BINDIR MANDIR TCMU_HANDLER_DIR

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wmissing-declarations -Wold-style-definition -Wpointer-arith -Wcast-align \
	-Wwrite-strings -Wvla -Wformat=2 -Wno-unused-parameter -fno-common
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
# Defaults for the user's flags; whatever the environment or the command line
# gives replaces them.
ifeq ($(DEBUG),1)
CFLAGS ?= -O0 -g3
else
CFLAGS ?= -O2 -g
CPPFLAGS ?= -D_FORTIFY_SOURCE=2
endif
LDFLAGS ?=

CPPFLAGS_ALL := -D_GNU_SOURCE -DXCOPY_VERSION='"$(VERSION)"' -I$(TOP)/engine/include
CFLAGS_ALL := -std=gnu11 $(WARNINGS) -fstack-protector-strong -fPIC $(CPPFLAGS_ALL)
CFLAGS_OBJ := $(CFLAGS_ALL) $(CPPFLAGS) $(CFLAGS)
SAN_FLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer)
CFLAGS_SAN := $(CFLAGS_ALL) -O1 -g $(SAN_FLAGS)

# Objects are rebuilt when the flags change (e.g. WERROR=1 after a plain make).
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(CC) $(CFLAGS_OBJ) | $(CFLAGS_SAN) | $(LDFLAGS)
$(shell mkdir -p $(BUILD) && { [ -f $(FLAGS_STAMP) ] && \
	[ "$$(cat $(FLAGS_STAMP))" = '$(subst ','\'',$(FLAGS_NOW))' ] || \
	printf '%s\n' '$(subst ','\'',$(FLAGS_NOW))' > $(FLAGS_STAMP); })

CUNIT_LIBS := $(shell $(PKG_CONFIG) --libs cunit 2>/dev/null || echo -lcunit)
ISCSI_CFLAGS := $(shell $(PKG_CONFIG) --cflags libiscsi 2>/dev/null)
ISCSI_LIBS := $(shell $(PKG_CONFIG) --libs libiscsi 2>/dev/null || echo -liscsi)
SGUTILS_LIBS := -lsgutils2

# Two flavours of every object: $(BUILD)/obj (PIC, optimised: plugin, library,
# CLI) and $(BUILD)/san (sanitizers: unit tests). XCFLAGS is per-directory.
$(BUILD)/obj/%.o: $(TOP)/%.c $(FLAGS_STAMP) | check-build-deps
	$(call msg,CC,$*.c)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_OBJ) $(XCFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/san/%.o: $(TOP)/%.c $(FLAGS_STAMP) | check-build-deps
	$(call msg,CC-SAN,$*.c)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_SAN) $(XCFLAGS) -MMD -MP -c -o $@ $<

# Fragments append to these.
ALL_TARGETS :=
TEST_TARGETS :=
UT_SAN_OBJS :=
UT_LIBS :=
FUZZ_TARGETS :=

all: build-all

# Before the first compile: are the build's Debian packages there
# (configs/build-deps.list)? If not, make stops with one line naming them and
# `make deps`. Order-only, so it never makes an object out of date; it costs
# one pkg-config call and one preprocessor run per make that compiles.
# OPTIONAL_MISSING / OPTIONAL_NOTE: packages a fragment builds without, and
# the line it prints then (target/rbd.mk).
OPTIONAL_MISSING :=
OPTIONAL_NOTE :=
build_deps_missing = $(shell CC='$(subst ','\'',$(CC))' CPPFLAGS='$(subst ','\'',$(CPPFLAGS))' \
	PKG_CONFIG='$(subst ','\'',$(PKG_CONFIG))' OPTIONAL_MISSING='$(strip $(OPTIONAL_MISSING))' \
	$(TOP)/scripts/check-build-deps $(1))
.PHONY: check-build-deps check-test-deps
check-build-deps:
	$(if $(call build_deps_missing,build),$(error $(call build_deps_missing,build)))
	$(if $(OPTIONAL_NOTE),@echo '$(subst ','\'',$(OPTIONAL_NOTE))')
check-test-deps:
	$(if $(call build_deps_missing,build test),$(error $(call build_deps_missing,build test)))

include $(TOP)/engine/engine.mk
include $(TOP)/common/common.mk
-include $(TOP)/target/target.mk
-include $(TOP)/host/host.mk
include $(TOP)/tests/tests.mk
-include $(TOP)/tests/package/package.mk
# Lab tests run the plugin, libxcopy and xcp: build everything first.
LAB_DEPS += $(ALL_TARGETS)
-include $(TOP)/tests/lab/lab.mk
-include $(TOP)/tests/bench/bench.mk
# What the test stages of make check link (the sanitizer builds of the unit
# tests and of the plugin, the plugin test harness), compiled in one parallel
# stage before them: test-unit and test-plugin then compile nothing.
.PHONY: build-tests
build-tests: $(UT_BIN) $(PLUGIN_TEST_BIN) $(HANDLER_SAN_SO)

ifneq ($(wildcard $(TOP)/tests/lab/lab.mk),)
TEST_TARGETS += test-lab-main test-lab-side test-lab-newkernel
endif

.PHONY: all build-all deps test demo fuzz clean install install-check
build-all: $(ALL_TARGETS)

# Installs missing Debian packages (as root) and says so; never silent.
deps:
	$(Q)$(TOP)/scripts/ensure-deps

# Stages of make test. `make deps` (Debian packages) and `make check` (build,
# unit tests, plugin tests: about a minute on 2 cores) run first and stop at
# their first failure; if either fails, make test stops there. The later
# stages keep going, and make test fails if any failed: the packages first
# (lab 490 installs them), then two tracks at once (a lab test is mostly
# single-threaded guest work, one host core under TCG): the main lab boot
# (test-lab-main), and beside it, in order, fuzzing, a second lab boot
# (test-lab-side: the RBD tests with their Ceph cluster, and any tests
# LAB_SIDE_BALANCE in tests/lab/lab.mk moves there to even out the tracks)
# and the boot of the new kernel (their output is printed when they are done, in
# $(BUILD)/test-side.log meanwhile). Every stage prints its wall time, and
# make test ends with all of them on one line and the total.
CHECK_STAGES := build-all build-tests check-layers test-unit test-plugin
LATER_STAGES := $(filter-out $(CHECK_STAGES),$(TEST_TARGETS))
PRE_STAGES := $(filter test-package,$(LATER_STAGES))
MAIN_STAGES := $(filter test-lab-main,$(LATER_STAGES))
SIDE_STAGES := $(filter-out $(PRE_STAGES) $(MAIN_STAGES),$(LATER_STAGES))
# $(call since,T0): seconds since $$EPOCHREALTIME was T0 (bash 5).
since = $$(awk -v a=$(1) -v b=$$EPOCHREALTIME 'BEGIN { printf "%.1f", b - a }')
# $(call run_stages,STAGES,keep-going?): each stage in a sub-make with WERROR=1,
# timed; sets `fail` to the stages that failed and appends "STAGE SECS" to `times`.
# The build-* stages (compiles only) run with -j$(JOBS), the others serially.
define run_stages
	for t in $(1); do \
		printf '\n=== make %s ===\n' "$$t"; s0=$$EPOCHREALTIME; \
		case $$t in build-*) j=-j$(JOBS) ;; *) j= ;; esac; \
		$(MAKE) $$j --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) WERROR=1 $$t; rc=$$?; \
		secs=$(call since,$$s0); times="$$times$${times:+, }$$t $$secs s$$([ $$rc = 0 ] || echo ' FAILED')"; \
		printf '=== make %s: %s in %s s ===\n' "$$t" "$$([ $$rc = 0 ] && echo ok || echo FAILED)" "$$secs"; \
		if [ $$rc != 0 ]; then fail="$$fail $$t"; $(if $(2),:,break); fi; \
	done
endef

.PHONY: check
check:
	$(Q)fail=; times=; t0=$$EPOCHREALTIME; $(call run_stages,$(CHECK_STAGES),); \
	printf '=== make check: %.1f s ===\n' "$(call since,$$t0)"; \
	if [ -n "$$fail" ]; then echo "CHECK FAILED:$$fail"; exit 1; fi; echo "CHECK PASSED"

test:
	$(Q)t0=$$EPOCHREALTIME; fail=; times=; $(call run_stages,deps check,); \
	[ -z "$$fail" ] || { echo "FAILED:$$fail (later stages not run)"; exit 1; }; \
	$(call run_stages,$(PRE_STAGES),keep-going); \
	side=$(BUILD)/test-side.log; mkdir -p $(BUILD); rm -f $$side $$side.result; \
	printf '\n=== beside what follows: %s (in %s) ===\n' "$(SIDE_STAGES)" "$$side"; \
	set -m; ( fail=; times=; $(call run_stages,$(SIDE_STAGES),keep-going); \
		printf '%s\n%s\n' "$$times" "$$fail" >$$side.result ) >$$side 2>&1 </dev/null & \
	spid=$$!; set +m; trap 'kill -TERM -- -$$spid 2>/dev/null; exit 130' INT TERM; t1=$$EPOCHREALTIME; \
	$(call run_stages,$(MAIN_STAGES),keep-going); \
	printf '\n=== main track done in %s s; waiting for: %s ===\n' "$(call since,$$t1)" "$(SIDE_STAGES)"; \
	wait $$spid; trap - INT TERM; cat $$side; \
	printf '=== both tracks done in %s s ===\n' "$(call since,$$t1)"; \
	{ read -r st && read -r sf; } <$$side.result || { st=; sf=" $(SIDE_STAGES) (no result)"; }; \
	times="$$times$${st:+, }$$st"; fail="$$fail$${sf:+ $$sf}"; \
	printf '\n=== stages: %s ===\n' "$$times"; \
	printf '=== make test: %s s ===\n' "$(call since,$$t0)"; \
	if [ -n "$$fail" ]; then echo "FAILED:$$fail"; exit 1; fi; echo "ALL TESTS PASSED"

# Every install rule waits for this: a relative path or one with white space
# (which libxcopy.pc could not carry) stops make install before it writes.
install-check:
	$(foreach v,$(INSTALL_PATH_VARS),$(if $(and $(filter /%,$($(v))),$(filter 1,$(words $($(v))))),,\
		$(error $(v)='$($(v))': install paths must be absolute and without white space)))
	@true

demo: deps
	$(Q)$(TOP)/tests/demo/run

fuzz: $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
