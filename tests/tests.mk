# tests/: the CUnit unit-test binary (ASan+UBSan) and the libFuzzer targets.
# tests/unit/ mirrors the tree down to the folders: tests/unit/FOLDER/test_*.c
# hold the suites of FOLDER's modules (engine/, common/, target/cm/,
# target/store/file/, host/device/, ...), fakes/ the fakes and stubs they
# share, and the top level the runner (unit_main.c, ut.c).
UT_SRCS := $(sort $(shell find $(TOP)/tests/unit -name '*.c'))
UT_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(UT_SRCS))
UT_BIN := $(BUILD)/tests/unit_tests

$(BUILD)/san/tests/unit/%.o: XCFLAGS += -I$(TOP)/tests/unit -I$(TOP)/tests/unit/fakes \
	$(TARGET_INC) -I$(TOP)/common
# the plugin's command table is self-contained: its unit tests link it alone
UT_SAN_OBJS += $(BUILD)/san/target/cmds/cmds.o
# target/ modules with unit suites of their own (tests/unit/target/FOLDER/);
# tests/unit/fakes/target_stubs.c stands in for the runner's side of a LU (ut_lu_host)
UT_SAN_OBJS += $(addprefix $(BUILD)/san/target/,store/file/cfg.o store/null/store_null.o fault/fault.o base/env.o base/log.o \
	base/stats.o base/naa.o tcmu/sbc_check.o tcmu/runner.o tcmu/tcmu_cmd.o lio/access.o \
	lio/nexus.o lio/settings.o tokens/tokens.o peer/peer_map.o peer/peer_load.o cm/held.o cm/async.o cm/async_parse.o cm/cm_limits.o)
# xos_now_ms goes through tests/unit/fakes/fake_clock.c: the token and held
# result suites move time instead of sleeping (the real clock unless frozen)
UT_WRAP := -Wl,--wrap=xos_now_ms
# fchown, acl_set_fd and xcopy_file_range go through tests/unit/fakes/fake_sys.c:
# the xcp -r suite makes them fail (a root_squash chown, a file system without
# ACLs, a copy failing half way) without a hook in xcp or libxcopy
UT_WRAP += -Wl,--wrap=fchown -Wl,--wrap=acl_set_fd -Wl,--wrap=xcopy_file_range
# libxcopy's seams (tests/unit/fakes/fake_host.c, fake_target.c): the device
# under a file system, the file-system probe, the lease batch and the pool of
# EXTENDED COPY workers, replaced here so that no test hook ships in libxcopy
UT_WRAP += -Wl,--wrap=xch_fsdev_find -Wl,--wrap=xch_fsdev_open -Wl,--wrap=xch_fs_probe \
	-Wl,--wrap=xch_lease_batch_bytes -Wl,--wrap=xch_pool_run
# store_copy.c with file_copy.c + parallel.c (file to file) and the fault store around them;
# the suite defines the file store
UT_SAN_OBJS += $(addprefix $(BUILD)/san/target/,store/store_copy.o store/file/file_copy.o \
	store/file/parallel.o fault/fault_store.o)
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
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(ENGINE_SRCS) $(FUZZ_EXTRA)
# fuzz_peer_map: the plugin's peer map parser (target/peer/peer_map.c), pure C
$(BUILD)/fuzz/fuzz_peer_map: $(TOP)/target/peer/peer_map.c $(TOP)/target/peer/peer.h
$(BUILD)/fuzz/fuzz_peer_map: FUZZ_EXTRA := -I$(TOP)/target -I$(TOP)/common $(TOP)/target/peer/peer_map.c

.PHONY: fuzz-build fuzz-run
fuzz-build: $(FUZZ_BINS)
# FUZZ_JOBS fuzzers at once (default: the number of CPUs), FUZZ_SECONDS each
# (FUZZ_SECONDS_NAME instead for fuzz_NAME when it is set).
FUZZ_JOBS ?= $(shell nproc)
fuzz_secs = $(or $(FUZZ_SECONDS_$(patsubst fuzz_%,%,$(notdir $(1)))),$(FUZZ_SECONDS))
fuzz-run: $(FUZZ_BINS)
	$(Q)printf '%s %s\n' $(foreach b,$(FUZZ_BINS),$(b) $(call fuzz_secs,$(b))) | \
		xargs -P $(FUZZ_JOBS) -n 2 sh -c 'exec "$$0" "$$1" "$$2" "$(BUILD)/fuzz" "$(TOP)/tests/fuzz/corpus"' \
		$(TOP)/tests/fuzz/run-one || { echo "fuzzing FAILED"; exit 1; }
FUZZ_TARGETS += fuzz-run

# make test runs every fuzzer for FUZZ_SECONDS (30 s each, FUZZ_JOBS at once,
# unless overridden; `make fuzz FUZZ_SECONDS=600` for a longer run),
# right after make check; a crash, leak or sanitizer report fails it. The
# fuzzers are compiled first, JOBS at once (one clang -fsanitize=fuzzer build
# of the engine each: ~45 s one after another).
# fuzz_rcr gets TEST_FUZZ_SECONDS_rcr (10, or FUZZ_SECONDS if less) in make test: from the seeds it has
# every coverage edge and feature it will find within 0.1 s (67 edges, 81
# features; 7.2 M runs in 30 s found nothing more, 2026-12-07), where the
# other six still found features after 10-29 s. With 7 fuzzers on 2 CPUs the
# fourth round is one fuzzer alone: 10 s less for rcr is 20 s less in all.
TEST_FUZZ_SECONDS_rcr ?= 10
.PHONY: test-fuzz
test-fuzz:
	$(Q)$(MAKE) -j$(JOBS) --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) fuzz-build
	$(Q)$(MAKE) --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) \
		FUZZ_SECONDS=$(FUZZ_SECONDS) \
		FUZZ_SECONDS_rcr=$$(( $(FUZZ_SECONDS) < $(TEST_FUZZ_SECONDS_rcr) ? $(FUZZ_SECONDS) : $(TEST_FUZZ_SECONDS_rcr) )) fuzz-run
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

# xt-fscrypt: an encrypted directory for lab test 315 (kernel headers only).
XT_FSCRYPT_BIN := $(BUILD)/tests/xt-fscrypt
$(XT_FSCRYPT_BIN): $(BUILD)/obj/tests/tools/xt_fscrypt.o
	$(call msg,LD,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) -o $@ $^
ALL_TARGETS += $(XT_FSCRYPT_BIN)

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
# Then scripts/check-plane: faults only in target/fault/, the stores only
# through store/, no copy-path parameter list longer than 5 (issue #34).
.PHONY: check-layers test-check-layers
check-layers: build-all test-check-layers
	$(Q)$(TOP)/scripts/check-layers --build $(BUILD) $(TOP)
	$(Q)$(TOP)/scripts/check-plane $(TOP)
test-check-layers:
	$(Q)$(TOP)/tests/scripts/test-check-layers.sh

# The maps: every product .c has a unit test that names one of its functions,
# or a line in its folder README saying how it is tested instead
# (scripts/test-map); the folder READMEs name functions, files and links that
# exist (scripts/check-map). Under a second together.
.PHONY: check-maps
check-maps:
	$(Q)$(TOP)/scripts/test-map $(TOP) && $(TOP)/scripts/check-map $(TOP)
test-unit: check-maps
