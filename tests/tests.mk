# tests/: the CUnit unit-test binary (ASan+UBSan) and the libFuzzer targets.
# tests/unit/ mirrors the tree: {engine,host,target,common}/test_*.c hold the
# suites of the modules there, fakes/ the fakes and stubs they share, and the
# top level the runner (unit_main.c, ut.c).
UT_DIRS := engine host target common fakes
UT_SRCS := $(sort $(wildcard $(TOP)/tests/unit/*.c $(addsuffix /*.c,$(addprefix $(TOP)/tests/unit/,$(UT_DIRS)))))
UT_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(UT_SRCS))
UT_BIN := $(BUILD)/tests/unit_tests

$(BUILD)/san/tests/unit/%.o: XCFLAGS += -I$(TOP)/tests/unit -I$(TOP)/tests/unit/fakes \
	$(TARGET_INC) -I$(TOP)/common
# the plugin's command table is self-contained: its unit tests link it alone
UT_SAN_OBJS += $(BUILD)/san/target/cmds/cmds.o
# target/ modules with unit suites of their own (tests/unit/target/);
# tests/unit/fakes/target_stubs.c stands in for the runner's log functions
UT_SAN_OBJS += $(addprefix $(BUILD)/san/target/,store/file/cfg.o fault/fault.o base/env.o base/exe.o base/stats.o base/naa.o \
	tcmu/sbc_check.o lio/access.o lio/nexus.o tokens/tokens.o cm/held.o \
	cm/async.o cm/async_parse.o cm/cm_limits.o)
# xos_now_ms goes through tests/unit/fakes/fake_clock.c: the token and held
# result suites move time instead of sleeping (the real clock unless frozen)
UT_WRAP := -Wl,--wrap=xos_now_ms
# store_copy.c with file_copy.c + parallel.c (file to file); the suite defines the file store
UT_SAN_OBJS += $(addprefix $(BUILD)/san/target/,store/store_copy.o store/file/file_copy.o \
	store/file/parallel.o)
# common/: the OS helpers (tests/unit/common/)
UT_SAN_OBJS += $(COMMON_SAN_OBJS)

# CUnit (libcunit1-dev) too: checked with the build's packages, one line
$(UT_OBJS): | check-test-deps

$(UT_BIN): $(UT_OBJS) $(UT_SAN_OBJS) $(LIBXCM_SAN)
	$(call msg,LD,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) $(UT_WRAP) -o $@ $(UT_OBJS) $(UT_SAN_OBJS) $(LIBXCM_SAN) $(UT_LIBS) \
		$(CUNIT_LIBS) $(SGUTILS_LIBS)

.PHONY: test-unit unit-tests
unit-tests: $(UT_BIN)
test-unit: $(UT_BIN) check-engine-size
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(UT_BIN)
TEST_TARGETS := test-unit $(TEST_TARGETS)

# libFuzzer targets: tests/fuzz/fuzz_NAME.c, corpus seeds in tests/fuzz/corpus/NAME/.
# New inputs go to $(BUILD)/fuzz/corpus/NAME so the tree stays clean.
FUZZ_CC ?= clang
FUZZ_SRCS := $(sort $(wildcard $(TOP)/tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst $(TOP)/tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_FLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(CPPFLAGS_ALL)

$(BUILD)/fuzz/fuzz_%: $(TOP)/tests/fuzz/fuzz_%.c $(TOP)/tests/fuzz/fuzz.h $(ENGINE_SRCS) $(wildcard $(TOP)/engine/include/xcm/*.h)
	$(call msg,FUZZ-CC,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(ENGINE_SRCS)

.PHONY: fuzz-build fuzz-run
fuzz-build: $(FUZZ_BINS)
# FUZZ_JOBS fuzzers at once (default: the number of CPUs), FUZZ_SECONDS each.
FUZZ_JOBS ?= $(shell nproc)
fuzz-run: $(FUZZ_BINS)
	$(Q)printf '%s\n' $(FUZZ_BINS) | xargs -P $(FUZZ_JOBS) -I{} \
		$(TOP)/tests/fuzz/run-one {} $(FUZZ_SECONDS) $(BUILD)/fuzz $(TOP)/tests/fuzz/corpus || \
		{ echo "fuzzing FAILED"; exit 1; }
FUZZ_TARGETS += fuzz-run

# make test runs every fuzzer for FUZZ_SECONDS (30 s each, FUZZ_JOBS at once,
# unless overridden; `make fuzz FUZZ_SECONDS=600` for a longer run),
# right after make check; a crash, leak or sanitizer report fails it.
.PHONY: test-fuzz
test-fuzz:
	$(Q)$(MAKE) --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) \
		FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz-run
TEST_TARGETS := $(filter-out test-unit,$(TEST_TARGETS))
TEST_TARGETS := test-unit test-fuzz $(TEST_TARGETS)

# test_param reads libiscsi's captured EXTENDED COPY commands at run time.
$(BUILD)/san/tests/unit/engine/test_param.o: XCFLAGS += -DUT_VECTORS_DIR='"$(TOP)/tests/vectors"'

# xt-cmds: the plugin's command table as a LU reports it (lab test 260 compares
# sg_opcodes with it). Links only target/cmds/cmds.c and the engine.
XT_CMDS_BIN := $(BUILD)/tests/xt-cmds
$(BUILD)/obj/tests/tools/%.o: XCFLAGS += $(TARGET_INC) -I$(TOP)/common
$(XT_CMDS_BIN): $(BUILD)/obj/tests/tools/xt_cmds.o $(BUILD)/obj/target/cmds/cmds.o $(LIBXCM)
	$(call msg,LD,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^
ALL_TARGETS += $(XT_CMDS_BIN)

# plain make without a build dependency (simulated: PKG_CONFIG_LIBDIR, a
# --sysroot CC, no pkg-config): one line naming the packages and make deps,
# nothing compiled (scripts/check-build-deps, configs/build-deps.list).
.PHONY: test-build-deps
test-build-deps:
	$(Q)$(TOP)/tests/scripts/test-build-deps.sh $(MAKE) --no-print-directory -f $(TOP)/Makefile
test-unit: test-build-deps

# Layers only point down (scripts/check-layers: trees, and the folders of
# host/layers.conf and target/layers.conf; includes of the sources and
# calls between the built objects). Its own test runs first, on made-up trees.
.PHONY: check-layers test-check-layers
check-layers: build-all test-check-layers
	$(Q)$(TOP)/scripts/check-layers --build $(BUILD) $(TOP)
test-check-layers:
	$(Q)$(TOP)/tests/scripts/test-check-layers.sh
