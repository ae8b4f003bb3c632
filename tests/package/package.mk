# Debian packages (debian/): built from a clean copy of the tree and checked
# (lintian, hardening-check); the lab installs them (490-pkg-installed).
DEB_DIR := $(BUILD)/deb
DEB_STAMP := $(DEB_DIR)/.built
DEB_SRCS := $(addprefix $(TOP)/,$(shell cd $(TOP) && git ls-files -co --exclude-standard 2>/dev/null))

$(DEB_STAMP): $(DEB_SRCS)
	$(Q)$(TOP)/tests/package/run $(DEB_DIR)
	@touch $@

.PHONY: package test-package
package: $(DEB_STAMP)
# Always rebuilt and checked; leaves the stamp so the lab does not rebuild.
test-package:
	$(Q)rm -f $(DEB_STAMP)
	$(Q)$(MAKE) --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) $(DEB_STAMP)
TEST_TARGETS += test-package
LAB_DEPS += $(DEB_STAMP)

# make install after one build, with two PREFIXes (and LIBDIR/INCLUDEDIR of
# their own): libxcopy.pc names the paths of each install and a program
# builds and links against the staged tree. Fast: part of test-unit.
.PHONY: test-install
test-install: build-all
	$(Q)$(TOP)/tests/package/test-install.sh $(MAKE) --no-print-directory -f $(TOP)/Makefile \
		BUILD=$(BUILD) WERROR=$(WERROR) SAN=$(SAN) DEBUG=$(DEBUG)
test-unit: test-install
