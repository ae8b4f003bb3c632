# tests/bench/bench.mk: `make bench` — copy benchmarks in the lab VM.
# Included by the top-level Makefile (after host/ and the lab fragments).
#
#   make bench        build, boot the lab (twice: phase newfile on
#                     trixie-backports' kernel), run every row, write
#                     $(BUILD)/bench/bench.md, bench.csv and plots/*.png
#   make bench-plots  the plots again from BENCH_OUT (default $(BUILD)/bench)
#
# Knobs: BENCH_SIZES (default "64M 1G"), BENCH_MEM (guest RAM, default 5G),
# BENCH_TIMEOUT (s, default 1800), BENCH_PROFILE=0 (skip the perf profile),
# BENCH_RUN_OPTS (extra tests/lab/run options), BENCH_PHASES (default: all
# but rbd and rbdio; newfile boots trixie-backports' kernel), BENCH_NEWFILE_SIZE (1G),
# BENCH_IO_SIZE (256M), BENCH_IO_SECS (5), BENCH_IO_RAMP (1), BENCH_IO_ROUNDS (1), BENCH_IO_TARGETS
# (phase io: fio on user:xcopy, the null store, LIO fileio/iblock, the file),
# BENCH_RBDIO_TARGETS (phase rbdio, not in the default set: the same fio rows
# on RBD: user:xcopy, handler_rbd, librbd), BENCH_XT_SIZE (1G) and BENCH_XT_ROUNDS
# (2) (phase xtarget, not in the default set: a copy to a LU of another iSCSI target).
# Not part of `make test`.

BENCH_DIR := $(TOP)/tests/bench
XCBENCH := $(BUILD)/bench/xcbench
BENCH_SIZES ?= 64M 1G
BENCH_MEM ?= 5G
BENCH_TIMEOUT ?= 1800
BENCH_PROFILE ?= 1
BENCH_RUN_OPTS ?=
BENCH_PHASES ?=
BENCH_NEWFILE_SIZE ?= 1G
# phase io (the LU as a disk, tests/bench/guest_io.sh): fio's region, seconds per row, ramp
BENCH_IO_SIZE ?= 256M
BENCH_IO_SECS ?= 5
BENCH_IO_RAMP ?= 1
BENCH_IO_ROUNDS ?= 1
BENCH_IO_TARGETS ?= xcopy null fileio fileio-wt iblock limit
# phase rbdio (the LU as a disk on RBD, tests/bench/guest_rbdio.sh): its targets
BENCH_RBDIO_TARGETS ?= xcopy-rbd handler-rbd librbd
# phase xtarget (user:xcopy LU -> LIO fileio LU of another target, tests/bench/guest_xtarget.sh)
BENCH_XT_SIZE ?= 1G
BENCH_XT_ROUNDS ?= 2

# xcbench's sources live with the other test tools (tests/tools/).
XCBENCH_OBJS := $(addprefix $(BUILD)/obj/tests/tools/,xcbench.o xcbench_tpc.o xcbench_probe.o xcbench_odx.o)
$(XCBENCH_OBJS): XCFLAGS += $(HOST_XCFLAGS)
$(XCBENCH): $(XCBENCH_OBJS) $(LIBXCOPY_A)
	$(call msg,LD,bench/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(HOST_LIBS)

# lab tests 470, 475 and 485 run xcbench: `make` builds it
ALL_TARGETS += $(XCBENCH)

.PHONY: bench bench-tools bench-plots
bench-tools: $(XCBENCH) $(ALL_TARGETS)

bench: deps bench-tools
	$(Q)BUILD=$(BUILD) BENCH_SIZES="$(BENCH_SIZES)" BENCH_MEM=$(BENCH_MEM) \
		BENCH_TIMEOUT=$(BENCH_TIMEOUT) BENCH_PROFILE=$(BENCH_PROFILE) \
		BENCH_PHASES="$(BENCH_PHASES)" BENCH_NEWFILE_SIZE=$(BENCH_NEWFILE_SIZE) \
		BENCH_IO_SIZE=$(BENCH_IO_SIZE) BENCH_IO_SECS=$(BENCH_IO_SECS) BENCH_IO_RAMP=$(BENCH_IO_RAMP) \
		BENCH_IO_ROUNDS=$(BENCH_IO_ROUNDS) \
		BENCH_IO_TARGETS="$(BENCH_IO_TARGETS)" BENCH_RBDIO_TARGETS="$(BENCH_RBDIO_TARGETS)" \
		BENCH_XT_SIZE=$(BENCH_XT_SIZE) BENCH_XT_ROUNDS=$(BENCH_XT_ROUNDS) \
		BENCH_RUN_OPTS="$(BENCH_RUN_OPTS)" $(BENCH_DIR)/run

# The PNG plots again from a saved bench directory (its bench.csv and raw/),
# without rerunning the bench: make bench-plots BENCH_OUT=/some/saved/bench
BENCH_OUT ?= $(BUILD)/bench
bench-plots: deps
	$(Q)python3 $(BENCH_DIR)/plot.py $(BENCH_OUT)

# Lab test 460-target-async measures read latency with xcbench probe.
test-lab: $(XCBENCH)
