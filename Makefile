# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The project's only Makefile: toolchain, flags and knobs live here; each
# directory adds its sources and targets through a fragment (*/*.mk).
#
#   make              build everything (engine, plugin, host library, CLI)
#   make test         unit tests (ASan+UBSan), plugin tests, then the lab
#   make demo         the main job: an offloaded copy in the lab
#   make fuzz         libFuzzer targets, FUZZ_SECONDS each (default 60)
#
# Knobs: V=1 (show commands), WERROR=0, SAN= (sanitizers of the test build,
# default address,undefined; empty disables), DEBUG=1 (-O0 -g3), BUILD=dir.

SHELL := /bin/bash
TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BUILD ?= $(TOP)/build
override BUILD := $(abspath $(BUILD))
V ?= 0
WERROR ?= 1
SAN ?= address,undefined
DEBUG ?= 0
CC ?= gcc
AR ?= ar
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60

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
ifeq ($(DEBUG),1)
OPT := -O0 -g3
else
OPT := -O2 -g -D_FORTIFY_SOURCE=2
endif

CPPFLAGS_ALL := -D_GNU_SOURCE -I$(TOP)/engine/include
CFLAGS_ALL := -std=gnu11 $(WARNINGS) -fstack-protector-strong -fPIC $(CPPFLAGS_ALL)
CFLAGS_OBJ := $(CFLAGS_ALL) $(OPT)
SAN_FLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer)
CFLAGS_SAN := $(CFLAGS_ALL) -O1 -g $(SAN_FLAGS)

CUNIT_LIBS := $(shell $(PKG_CONFIG) --libs cunit 2>/dev/null || echo -lcunit)
ISCSI_CFLAGS := $(shell $(PKG_CONFIG) --cflags libiscsi 2>/dev/null)
ISCSI_LIBS := $(shell $(PKG_CONFIG) --libs libiscsi 2>/dev/null || echo -liscsi)
SGUTILS_LIBS := -lsgutils2

# Two flavours of every object: $(BUILD)/obj (PIC, optimised: plugin, library,
# CLI) and $(BUILD)/san (sanitizers: unit tests). XCFLAGS is per-directory.
$(BUILD)/obj/%.o: $(TOP)/%.c
	$(call msg,CC,$*.c)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_OBJ) $(XCFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/san/%.o: $(TOP)/%.c
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

include $(TOP)/engine/engine.mk
-include $(TOP)/target/target.mk
-include $(TOP)/host/host.mk
include $(TOP)/tests/tests.mk
# Lab tests run the plugin, libxcopy and xcp: build everything first.
LAB_DEPS += $(ALL_TARGETS)
-include $(TOP)/tests/lab/lab.mk
-include $(TOP)/tests/bench/bench.mk
ifneq ($(wildcard $(TOP)/tests/lab/lab.mk),)
TEST_TARGETS += test-lab
endif

.PHONY: all build-all deps test demo fuzz clean install
build-all: $(ALL_TARGETS)

# Installs missing Debian packages (as root) and says so; never silent.
deps:
	$(Q)$(TOP)/scripts/ensure-deps

# Runs every test target in order, keeps going, fails if any failed.
test: deps
	$(Q)fail=; for t in $(TEST_TARGETS); do \
		printf '\n=== make %s ===\n' "$$t"; \
		$(MAKE) --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) $$t || fail="$$fail $$t"; \
	done; \
	if [ -n "$$fail" ]; then echo "FAILED:$$fail"; exit 1; fi; echo "ALL TESTS PASSED"

demo: deps
	$(Q)if [ -x $(TOP)/tests/demo/run ]; then $(TOP)/tests/demo/run; else \
		echo "make demo: the offloaded-copy demo (host library + xcp in the lab) does not exist yet;"; \
		echo "see README.md 'Status'. Nothing was copied."; exit 2; fi

fuzz: $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
