# target/: handler_xcopy.so, the tcmu-runner 1.5.4 plugin (backstore user:xcopy).
#
# $(BUILD)/target/handlers/ holds ONLY handler_* plugins: tcmu-runner dlopens
# every file there whose name starts with handler_ (the lab passes this
# folder as --handler-path). Not linked with -z defs: tcmur_* come from the
# daemon and tcmu_* from libtcmu.so.2 at dlopen time (see target/tcmu/tcmu_abi.h).

# store/rbd/rbd_*.c: the RBD store (target/rbd.mk builds it into librbdstore.a for the
# lab tool too). The plugin links rbd_cfg.c + rbd_image.c (store_rbd.c:
# ordinary I/O of xcopy/rbd/... LUs) and rbd_copy.c + rados_copy.cc (copies
# between RBD LUs, RADOS copy-from through librados' C++ API) with librbd/
# librados when their headers are installed (librbd-dev, libradospp-dev);
# without them store_rbd.c refuses RBD cfgstrings.
TARGET_RBD_HAVE := $(and $(wildcard /usr/include/rbd/librbd.h),$(wildcard /usr/include/rados/librados.hpp))
# The sources sit in the folders of target/layers.conf (one or two levels).
TARGET_RBD_DIR := $(TOP)/target/store/rbd
TARGET_SRCS := $(filter-out $(TARGET_RBD_DIR)/rbd_%.c,$(sort $(wildcard $(TOP)/target/*/*.c $(TOP)/target/*/*/*.c)))
TARGET_RBD_LIBS :=
TARGET_RBD_CXX_OBJ :=
ifneq ($(TARGET_RBD_HAVE),)
TARGET_SRCS += $(addprefix $(TARGET_RBD_DIR)/,rbd_cfg.c rbd_rule.c rbd_image.c rbd_quiesce.c rbd_copy.c)
TARGET_RBD_LIBS := -lrbd -lrados -lstdc++
# not instrumented in the sanitizer plugin either (C++, no ASan runtime needed)
TARGET_RBD_CXX_OBJ := $(BUILD)/obj/target/store/rbd/rados_copy.o
endif
TARGET_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(TARGET_SRCS))
TARGET_SAN_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(TARGET_SRCS))
HANDLER_DIR := $(BUILD)/target/handlers
HANDLER_SO := $(HANDLER_DIR)/handler_xcopy.so
# The same plugin built with the sanitizers, for the dlopen harness only.
HANDLER_SAN_SO := $(BUILD)/san/target/plugin/handler_xcopy.so
HANDLER_MAP := $(TOP)/target/handler.map
HANDLER_LDFLAGS := -shared -Wl,--version-script=$(HANDLER_MAP) -Wl,-z,relro -Wl,-z,now

TARGET_INC := -I$(TOP)/target
$(TARGET_OBJS) $(TARGET_SAN_OBJS): XCFLAGS += $(TARGET_INC) -I$(TOP)/common \
	$(if $(TARGET_RBD_HAVE),-DXT_HAVE_RBD)

$(HANDLER_SO): $(TARGET_OBJS) $(TARGET_RBD_CXX_OBJ) $(COMMON_OBJS) $(LIBXCM) $(HANDLER_MAP)
	$(call msg,LD,target/handlers/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(HANDLER_LDFLAGS) -o $@ $(TARGET_OBJS) $(TARGET_RBD_CXX_OBJ) $(COMMON_OBJS) $(LIBXCM) $(TARGET_RBD_LIBS) $(ISCSI_LIBS) -lpthread

$(HANDLER_SAN_SO): $(TARGET_SAN_OBJS) $(TARGET_RBD_CXX_OBJ) $(COMMON_SAN_OBJS) $(LIBXCM_SAN) $(HANDLER_MAP)
	$(call msg,LD,san/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) $(HANDLER_LDFLAGS) -o $@ $(TARGET_SAN_OBJS) $(TARGET_RBD_CXX_OBJ) $(COMMON_SAN_OBJS) $(LIBXCM_SAN) $(TARGET_RBD_LIBS) $(ISCSI_LIBS) -lpthread

ALL_TARGETS += $(HANDLER_SO)

# dlopen harness: fakes of the runner/libtcmu symbols and of the plugin's clock and
# sleeps (tests/plugin/fake_time.c), exported with -rdynamic. Each
# test has its own fixture; test-plugin also runs the list in reverse order (-r).
PLUGIN_TEST_SRCS := $(sort $(wildcard $(TOP)/tests/plugin/*.c))
PLUGIN_TEST_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(PLUGIN_TEST_SRCS))
PLUGIN_TEST_BIN := $(BUILD)/tests/plugin_tests
$(PLUGIN_TEST_OBJS): XCFLAGS += $(TARGET_INC) -I$(TOP)/tests/plugin

$(PLUGIN_TEST_BIN): $(PLUGIN_TEST_OBJS) $(LIBXCM_SAN)
	$(call msg,LD,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_FLAGS) -rdynamic -o $@ $(PLUGIN_TEST_OBJS) $(LIBXCM_SAN) -ldl -lpthread

# Undefined symbols the plugin may have besides libc's: what tcmu-runner 1.5.4
# and libtcmu.so.2 export (dlopen is RTLD_NOW: anything else fails to load),
# and librbd's/librados' rbd_*/rados_* and librados' C++ API (rados_copy.cc;
# DT_NEEDED, resolved at load: ldd -r).
PLUGIN_ALLOWED_SYMS := tcmur_register_handler tcmur_dev_get_private tcmur_dev_set_private \
	tcmu_dev_get_cfgstring tcmu_dev_get_uio_name tcmu_dev_get_block_size \
	tcmu_dev_get_num_lbas tcmu_cfgfs_dev_get_wwn tcmu_dev_get_opt_unmap_gran \
	tcmu_dev_set_opt_unmap_gran tcmu_dev_set_unmap_gran_align tcmu_dev_set_write_cache_enabled \
	tcmu_dev_get_write_cache_enabled tcmu_crit_message tcmu_err_message \
	tcmu_warn_message tcmu_info_message tcmu_dbg_message

.PHONY: test-plugin check-plugin-symbols install-target
check-plugin-symbols: $(HANDLER_SO)
	$(Q)bad=$$(nm -D --undefined-only $(HANDLER_SO) | awk '{print $$2}' | \
		grep -v '@' | grep -vxF -e __gmon_start__ -e _ITM_deregisterTMCloneTable \
		-e _ITM_registerTMCloneTable $(addprefix -e ,$(PLUGIN_ALLOWED_SYMS)) | \
		grep -vE '^(rbd|rados|iscsi)_|^scsi_(create_task|free_scsi_task)$$|^_ZN?K?8librados|^_ZN4ceph6buffer' || true); \
	if [ -n "$$bad" ]; then echo "handler_xcopy.so: unexpected undefined symbols:" $$bad; exit 1; fi; \
	exp=$$(nm -D --defined-only $(HANDLER_SO) | awk '$$2 ~ /^[TDBR]$$/ {print $$3}' | sort -u); \
	if [ "$$exp" != handler_init ]; then echo "handler_xcopy.so exports more than handler_init:" $$exp; exit 1; fi; \
	echo "handler_xcopy.so: symbols OK (exports handler_init only)"

# The runs of test-plugin are independent processes (each test on its own
# mkdtemp fixture, iSCSI faked in-process): they run JOBS at once, each one's
# output printed whole when it ends (-Otarget). One after another they took
# ~45 s of make check's ~140 on a loaded 2-core host.
PLUGIN_RUNS := san opt rev subtype-cm2 subtype-refused xcopy-stat
PLUGIN_ASAN := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
PLUGIN_RUN_DEPS := $(PLUGIN_TEST_BIN) $(HANDLER_SO) $(HANDLER_SAN_SO)
.PHONY: $(addprefix test-plugin-,$(PLUGIN_RUNS))
$(addprefix test-plugin-,$(PLUGIN_RUNS)): $(PLUGIN_RUN_DEPS)
test-plugin: $(PLUGIN_RUN_DEPS) check-plugin-symbols
	$(Q)$(MAKE) -j$(JOBS) -Otarget --no-print-directory -f $(TOP)/Makefile BUILD=$(BUILD) \
		$(addprefix test-plugin-,$(PLUGIN_RUNS))
test-plugin-san:
	$(Q)$(PLUGIN_ASAN) UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PLUGIN_TEST_BIN) $(HANDLER_SAN_SO)
test-plugin-opt:
	$(Q)$(PLUGIN_ASAN) $(PLUGIN_TEST_BIN) $(HANDLER_SO)
test-plugin-rev:
	$(Q)$(PLUGIN_ASAN) $(PLUGIN_TEST_BIN) $(HANDLER_SO) -r
# XCOPY_SUBTYPE: another subtype registered and served (the LUs of the
# fixture carry it), then a refused value (xcopy kept, the refusal logged)
test-plugin-subtype-cm2:
	$(Q)XCOPY_SUBTYPE=cm2 XT_TEST_SUBTYPE=cm2 $(PLUGIN_ASAN) \
		$(PLUGIN_TEST_BIN) $(HANDLER_SAN_SO) -t registration -t subtype -t io_callouts -t xcopy_self
test-plugin-subtype-refused:
	$(Q)XCOPY_SUBTYPE=xcopy2 $(PLUGIN_ASAN) \
		$(PLUGIN_TEST_BIN) $(HANDLER_SAN_SO) -t registration -t subtype
test-plugin-xcopy-stat:
	$(Q)$(TOP)/tests/scripts/test-xcopy-stat.sh $(TOP)/scripts/xcopy-stat
TEST_TARGETS += test-plugin

# make install: the plugin into LIBDIR/tcmu-runner. Debian's tcmu-runner reads
# /usr/lib/<multiarch>/tcmu-runner: PREFIX=/usr (or TCMU_HANDLER_DIR=) puts it there.
TCMU_HANDLER_DIR ?= $(LIBDIR)/tcmu-runner
install: install-target
install-target: install-check $(HANDLER_SO)
	install -d $(DESTDIR)$(TCMU_HANDLER_DIR)
	install -m 0644 $(HANDLER_SO) $(DESTDIR)$(TCMU_HANDLER_DIR)/handler_xcopy.so
	install -D -m 0755 $(TOP)/scripts/xcopy-stat $(DESTDIR)$(BINDIR)/xcopy-stat
	install -D -m 0644 $(TOP)/target/man/xcopy-stat.1 $(DESTDIR)$(MANDIR)/man1/xcopy-stat.1
	install -D -m 0644 $(TOP)/target/man/xcopy-peers.5 $(DESTDIR)$(MANDIR)/man5/xcopy-peers.5

# (The Makefile makes the lab depend on every build target, the plugin included.)
# The 1 GiB copy test (220) keeps a reflink XFS image on the guest's tmpfs,
# which needs more than the default 2G.
export LAB_MEM ?= 4G

-include $(TOP)/target/rbd.mk
