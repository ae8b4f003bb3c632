# tests/lab/lab.mk: the lab (QEMU/TCG guest with LIO, tcm_loop, iSCSI, TCMU).
# Included by the top-level Makefile; also works alone:
#   make -f tests/lab/lab.mk test-lab
#
#   make test-lab    boot the lab once and run tests/lab/tests/NNN-*.sh in it
#   make test-lab-newkernel   boot trixie-backports' kernel (LAB_NEW_KERNEL=bpo)
#                    and run the tests that need Linux >= 6.17 (LAB_NEW_KERNEL_TESTS:
#                    380, new-file copies offloaded through FALLOC_FL_WRITE_ZEROES)
#   make lab-image   fetch/unpack the kernel and build the initramfs (cached)
#   make lab-clean   remove $(BUILD)/lab and the kernel cache
#
# Knobs: LAB_TIMEOUT (s, whole run, default 3000: every lab test in one boot), LAB_MEM (3G), LAB_TESTS (substrings of test
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

# the tests that need Linux >= 6.17; the rest stays on the default kernel
LAB_NEW_KERNEL ?= bpo
LAB_NEW_KERNEL_TESTS ?= 380
LAB_NEW_KERNEL_TIMEOUT ?= 900

.PHONY: test-lab test-lab-newkernel lab-image lab-clean

test-lab: $(LAB_DEPS)
	$(LAB_MK_DIR)/run --build $(BUILD) --timeout $(LAB_TIMEOUT) --mem $(LAB_MEM) --debian-handlers --no-lun \
		--env LAB_REFERENCE_FULL=$(LAB_REFERENCE_FULL) $(LAB_RUN_OPTS) \
		-- $(LAB_MK_DIR)/run-tests $(LAB_TESTS)

test-lab-newkernel: $(LAB_DEPS)
	$(LAB_MK_DIR)/run --kernel $(LAB_NEW_KERNEL) --build $(BUILD) --timeout $(LAB_NEW_KERNEL_TIMEOUT) \
		--mem $(LAB_MEM) --debian-handlers --no-lun $(LAB_RUN_OPTS) \
		-- $(LAB_MK_DIR)/run-tests $(LAB_NEW_KERNEL_TESTS)

lab-image:
	$(LAB_MK_DIR)/image >/dev/null

lab-clean:
	rm -rf $(BUILD)/lab
	rm -rf "$(or $(LAB_CACHE),$${XDG_CACHE_HOME:-$$HOME/.cache}/xcopy-lab)"
