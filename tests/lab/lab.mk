# tests/lab/lab.mk: the lab (QEMU/TCG guest with LIO, tcm_loop, iSCSI, TCMU).
# Included by the top-level Makefile; also works alone:
#   make -f tests/lab/lab.mk test-lab
#
#   make test-lab    boot the lab once and run tests/lab/tests/NNN-*.sh in it
#   make test-lab-main / test-lab-side   the same split in two (make test runs
#                    them at once): LAB_MAIN_TESTS / LAB_SIDE_TESTS (RBD and
#                    LAB_SIDE_BALANCE)
#   make test-lab-newkernel   boot trixie-backports' kernel (LAB_NEW_KERNEL=bpo)
#                    and run the tests that need Linux >= 6.17 (LAB_NEW_KERNEL_TESTS:
#                    380, new-file copies offloaded through FALLOC_FL_WRITE_ZEROES)
#   make lab-image   fetch/unpack the kernel and build the initramfs (cached)
#   make lab-clean   remove $(BUILD)/lab and the kernel cache
#
# Knobs: LAB_TIMEOUT (s, whole run, default 3000: every lab test in one boot), LAB_MEM (3G), LAB_SMP (2; LAB_MAIN_SMP 1), LAB_TESTS (substrings of test
# names to select), LAB_RUN_OPTS (extra tests/lab/run options), LAB_CACHE,
# LAB_HANDLER_PATH, LAB_REFERENCE_FULL=1 (also record the whole SCSI family
# against LIO fileio: 1-3 min more; by default the committed copy is used).
# The lab tests run tcmu-runner on BUILD/target/handlers plus Debian's
# handlers (symlinked, --debian-handlers): 010-stack uses Debian's zbc and qcow.
# Fragments included before this one may add prerequisites to LAB_DEPS (e.g.
# the tcmu-runner plugin) so they are built before the lab boots.

LAB_MK_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
TOP ?= $(abspath $(LAB_MK_DIR)/../..)
BUILD ?= $(TOP)/build
LAB_TIMEOUT ?= 3000
LAB_TESTS ?=
LAB_RUN_OPTS ?=
LAB_REFERENCE_FULL ?= 0
# guest RAM: the tests' images live in the guest's /tmp (tmpfs, 80 % of it)
LAB_MEM ?= 3G
# guest CPUs of each boot (2). make test runs two boots at once on a 2-core
# host, which keeps both cores busy: the main boot gets one vCPU
# (LAB_MAIN_SMP), which avoids multi-threaded TCG's cross-vCPU work (TLB
# shootdowns, exclusive sections, guest spinlocks held by a descheduled
# vCPU) and ran the same tests 2-4x faster (tests/lab/README.md, "How long
# make test takes"). The side boot keeps two: Ceph's daemons and librbd run
# there, and at one vCPU lab 640's --skip-quiesce case once crashed xt-rbd
# inside librbd 16.2 (ceph_assert in ~AsyncOpTracker on a librados callback
# thread, mid-copy; not reproduced in a second run); never seen at two.
LAB_SMP ?= 2
LAB_MAIN_SMP ?= 1

# the tests that need Linux >= 6.17; the rest stays on the default kernel
LAB_NEW_KERNEL ?= bpo
LAB_NEW_KERNEL_TESTS ?= 380
LAB_NEW_KERNEL_TIMEOUT ?= 900

# make test boots the lab twice at once (Makefile, `test`): most of a lab
# test is single-threaded guest work, which keeps one host core busy under
# TCG, so two boots use the two cores. test-lab-side (LAB_SIDE_TESTS: the
# NNN-rbd-* tests, which share one Ceph cluster in their guest, and the tests
# numbered in LAB_SIDE_BALANCE, which even out the two tracks (330 since the
# main boot runs at one vCPU, the two tracks are close; 657, ~25 s, 659 and
# 660, ~75 s and ~40 s, since the main track is still the longer one; 655 and 658,
# ~65 s and ~14 s, once the RBD tests compared images through one librbd client,
# which made the side track ~60-80 s shorter): test-lab-main
# beside fuzzing + test-lab-side + test-lab-newkernel; tests/lab/README.md, "How long
# make test takes") in one VM, every other test in another (test-lab-main).
# test-lab is still all of them in one boot.
LAB_SIDE_BALANCE ?= 330 655 657 658 659 660
LAB_ALL_TESTS := $(basename $(notdir $(wildcard $(LAB_MK_DIR)/tests/[0-9][0-9][0-9]-*.sh)))
LAB_SIDE_TESTS ?= $(filter $(addsuffix -%,$(LAB_SIDE_BALANCE)),$(LAB_ALL_TESTS)) \
	$(foreach t,$(LAB_ALL_TESTS),$(if $(findstring -rbd-,$(t)),$(t)))
LAB_MAIN_TESTS ?= $(filter-out $(LAB_SIDE_TESTS),$(LAB_ALL_TESTS))

.PHONY: test-lab test-lab-main test-lab-side test-lab-newkernel lab-image lab-clean

# $(call lab_run_tests,TESTS[,SMP]): one boot of the default kernel running TESTS
lab_run_tests = $(LAB_MK_DIR)/run --build $(BUILD) --timeout $(LAB_TIMEOUT) --mem $(LAB_MEM) --smp $(or $(2),$(LAB_SMP)) \
		--debian-handlers --no-lun \
		--env LAB_REFERENCE_FULL=$(LAB_REFERENCE_FULL) $(LAB_RUN_OPTS) \
		-- $(LAB_MK_DIR)/run-tests $(1)

test-lab: $(LAB_DEPS)
	$(call lab_run_tests,$(LAB_TESTS))

test-lab-main: $(LAB_DEPS)
	$(call lab_run_tests,$(LAB_MAIN_TESTS),$(LAB_MAIN_SMP))

test-lab-side: $(LAB_DEPS)
	$(call lab_run_tests,$(LAB_SIDE_TESTS))

test-lab-newkernel: $(LAB_DEPS)
	$(LAB_MK_DIR)/run --kernel $(LAB_NEW_KERNEL) --build $(BUILD) --timeout $(LAB_NEW_KERNEL_TIMEOUT) \
		--mem $(LAB_MEM) --smp $(LAB_SMP) --debian-handlers --no-lun $(LAB_RUN_OPTS) \
		-- $(LAB_MK_DIR)/run-tests $(LAB_NEW_KERNEL_TESTS)

lab-image:
	$(LAB_MK_DIR)/image >/dev/null

lab-clean:
	rm -rf $(BUILD)/lab
	rm -rf "$(or $(LAB_CACHE),$${XDG_CACHE_HOME:-$$HOME/.cache}/xcopy-lab)"
