# host/: libxcopy (static + shared, version script, pkg-config) and the xcp CLI.
# libxcopy's folders, bottom up (host/README.md, host/layers.conf); host/cli/
# (xcp) and host/preload/ are built on their own below.
HOST_LIB_DIRS := base transport device copy file
HOST_SRCS := $(sort $(foreach d,$(HOST_LIB_DIRS),$(wildcard $(TOP)/host/$(d)/*.c)))
HOST_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(HOST_SRCS))
HOST_SAN_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(HOST_SRCS))
HOST_LIBS := $(ISCSI_LIBS) $(SGUTILS_LIBS) -ldevmapper -lpthread
# xcp -r keeps ACLs (libacl1-dev); the library does not need it
XCP_LIBS := $(shell $(PKG_CONFIG) --libs libacl 2>/dev/null || echo -lacl)
LIBXCOPY_A := $(BUILD)/host/libxcopy.a
LIBXCOPY_SO := $(BUILD)/host/libxcopy.so
LIBXCOPY_SOVER := 0
XCP := $(BUILD)/host/xcp

HOST_XCFLAGS := -I$(TOP)/host/include -I$(TOP)/host -I$(TOP)/common $(ISCSI_CFLAGS)
$(BUILD)/obj/host/%.o $(BUILD)/san/host/%.o: XCFLAGS += $(HOST_XCFLAGS)
$(BUILD)/san/tests/unit/host/%.o $(BUILD)/san/tests/unit/fakes/fake_t%.o \
$(BUILD)/san/tests/unit/fakes/fake_host.o: XCFLAGS += $(HOST_XCFLAGS)
$(BUILD)/san/tests/unit/host/cli/test_xcp_%.o: XCFLAGS += -I$(TOP)/host/cli

# The archive carries the engine and common/ objects too, so users link one
# library; the shared library links them in and exports neither (libxcopy.map).
$(LIBXCOPY_A): $(filter-out $(BUILD)/obj/host/cli/%,$(HOST_OBJS)) $(ENGINE_OBJS) $(COMMON_OBJS)
	$(call msg,AR,host/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBXCOPY_SO): $(HOST_OBJS) $(COMMON_OBJS) $(LIBXCM) $(TOP)/host/libxcopy.map
	$(call msg,LD,host/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libxcopy.so.$(LIBXCOPY_SOVER) \
		-Wl,--version-script=$(TOP)/host/libxcopy.map -Wl,-z,defs \
		-o $@.$(LIBXCOPY_SOVER) $(HOST_OBJS) $(COMMON_OBJS) $(LIBXCM) $(HOST_LIBS)
	$(Q)ln -sf $(notdir $@).$(LIBXCOPY_SOVER) $@

# xcp: host/cli/*.c; xcp_fmt.c (formatting, JSON), xcp_report.c (reports,
# progress line), tree.c and tree_file.c (xcp -r) are unit-tested.
XCP_SRCS := $(sort $(wildcard $(TOP)/host/cli/*.c))
XCP_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(XCP_SRCS))
$(BUILD)/obj/host/cli/%.o $(BUILD)/san/host/cli/%.o: XCFLAGS += $(HOST_XCFLAGS)
$(XCP): $(XCP_OBJS) $(LIBXCOPY_A)
	$(call msg,LD,host/$(notdir $@))
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(HOST_LIBS) $(XCP_LIBS)

# libxcopy.pc is written by make install from the PREFIX, LIBDIR and
# INCLUDEDIR of that install (scripts/gen-pc): a build does not know where it
# will be installed, and `make && make install PREFIX=/usr` must not ship
# the build's /usr/local. Values go through the environment, quoted for the
# shell, so no character of a path is make or sed syntax.
shq = '$(subst ','\'',$(1))'
# libxcopy-preload.so: copy_file_range/sendfile of unmodified programs through
# libxcopy (LD_PRELOAD). No SONAME: nothing links against it; it lives in a
# private directory of LIBDIR.
PRELOAD_SO := $(BUILD)/host/libxcopy-preload.so
PRELOAD_DIR := $(LIBDIR)/libxcopy
$(PRELOAD_SO): $(BUILD)/obj/host/preload/preload.o $(LIBXCOPY_SO) $(TOP)/host/preload/preload.map
	$(call msg,LD,host/$(notdir $@))
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs \
		-Wl,--version-script=$(TOP)/host/preload/preload.map \
		-o $@ $< -L$(BUILD)/host -lxcopy -ldl

ALL_TARGETS += $(LIBXCOPY_A) $(LIBXCOPY_SO) $(XCP) $(PRELOAD_SO)

# Unit tests: the host objects (not the CLI) with sanitizers.
UT_SAN_OBJS += $(HOST_SAN_OBJS) $(BUILD)/san/host/cli/xcp_fmt.o $(BUILD)/san/host/cli/xcp_report.o \
	$(BUILD)/san/host/cli/tree.o $(BUILD)/san/host/cli/tree_file.o
UT_LIBS += $(ISCSI_LIBS) -ldevmapper -lpthread $(XCP_LIBS)

.PHONY: install-host
install: install-host
install-host: install-check $(LIBXCOPY_A) $(LIBXCOPY_SO) $(XCP) $(PRELOAD_SO)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(PRELOAD_DIR) $(DESTDIR)$(MANDIR)/man8
	install -m 644 $(PRELOAD_SO) $(DESTDIR)$(PRELOAD_DIR)/
	install -m 644 $(TOP)/host/man/libxcopy-preload.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 644 $(LIBXCOPY_A) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(LIBXCOPY_SO).$(LIBXCOPY_SOVER) $(DESTDIR)$(LIBDIR)/
	ln -sf libxcopy.so.$(LIBXCOPY_SOVER) $(DESTDIR)$(LIBDIR)/libxcopy.so
	PC_PREFIX=$(call shq,$(PREFIX)) PC_LIBDIR=$(call shq,$(LIBDIR)) \
		PC_INCLUDEDIR=$(call shq,$(INCLUDEDIR)) PC_VERSION=$(call shq,$(VERSION)) \
		$(TOP)/scripts/gen-pc $(TOP)/host/libxcopy.pc.in $(DESTDIR)$(LIBDIR)/pkgconfig/libxcopy.pc
	install -m 644 $(TOP)/host/include/xcopy.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(XCP) $(DESTDIR)$(BINDIR)/
	install -m 644 $(TOP)/host/man/xcp.1 $(DESTDIR)$(MANDIR)/man1/
	cp -P $(TOP)/host/man/*.3 $(DESTDIR)$(MANDIR)/man3/
	chmod 644 $(DESTDIR)$(MANDIR)/man3/*.3

# The public header stands alone in strict ISO C11 (no GNU extensions needed).
.PHONY: check-header
check-header:
	$(Q)printf '#include <xcopy.h>\nint main(void) { return xcopy_fallback_reason_name(XCOPY_FB_NONE) == 0; }\n' | \
		$(CC) -std=c11 -pedantic -Wall -Werror -I$(TOP)/host/include -fsyntax-only -x c - && \
		echo "xcopy.h: compiles with -std=c11 -pedantic"
test-unit: check-header

# Every public function of xcopy.h has a manual page (or a .so link to one).
.PHONY: check-man
check-man:
	$(Q)miss=; for f in $$(sed -n 's/^[a-z][a-z_ ]*[ *]\(xcopy_[a-z_]*\)(.*/\1/p' \
		$(TOP)/host/include/xcopy.h); do [ -f $(TOP)/host/man/$$f.3 ] || miss="$$miss $$f"; done; \
	if [ -n "$$miss" ]; then echo "no manual page for:$$miss"; exit 1; fi; \
	echo "manual pages: every public function of xcopy.h has one"
test-unit: check-man

# xcp's interface: progress on a pty (script(1)), --stats=json parsed, dry run, exit codes.
.PHONY: test-xcp-cli
test-xcp-cli: $(XCP)
	$(Q)$(TOP)/tests/scripts/test-xcp.sh $(XCP)
test-unit: test-xcp-cli

# libxcopy-preload.so: the real calls' results and errno kept, cp through it.
.PHONY: test-preload
test-preload: $(PRELOAD_SO)
	$(Q)$(TOP)/tests/scripts/test-preload.sh $(PRELOAD_SO)
test-unit: test-preload

# libxcopy.a carries one member per object name: two objects called alike
# (e.g. two copy.o) would make `ar x` and ar's member replacement lose one.
.PHONY: check-lib-members
check-lib-members: $(LIBXCOPY_A)
	$(Q)dups=$$($(AR) t $(LIBXCOPY_A) | sort | uniq -d); \
	if [ -n "$$dups" ]; then echo "libxcopy.a: members named twice:" $$dups; exit 1; fi; \
	echo "libxcopy.a: $$($(AR) t $(LIBXCOPY_A) | wc -l) members, names unique"
test-unit: check-lib-members

# No writable global in libxcopy: a test hook (a function pointer or knob a
# test sets) or state shared across folders would show here (tables of
# pointers, read-only once relocated, are in .data.rel.ro and not); the unit
# tests replace libxcopy's seams at link time instead (tests/tests.mk).
.PHONY: check-lib-globals
check-lib-globals: $(LIBXCOPY_A)
	$(Q)g=$$(nm -g --defined-only -f sysv $(LIBXCOPY_A) | \
		awk -F'|' '$$3 ~ /[BDCGS]/ && $$7 !~ /rel\.ro/ {gsub(/ /, "", $$1); print $$1}'); \
	if [ -n "$$g" ]; then echo "libxcopy.a: writable globals:" $$g; exit 1; fi; \
	echo "libxcopy.a: no writable global (no test hook in the library)"
test-unit: check-lib-globals

# No call circle between the files of host/device/ and of host/copy/: each
# handle kind and each copy method is called through its table or the one
# entry (host/device/README.md, host/copy/README.md).
.PHONY: check-host-cycles
check-host-cycles: build-all
	$(Q)c=$$($(TOP)/scripts/check-layers --build $(BUILD) --cycles $(TOP) | \
		grep -E 'cycle of .*host/(device|copy)/' || true); \
	if [ -n "$$c" ]; then echo "call circles in host/:"; echo "$$c"; exit 1; fi; \
	echo "host/device, host/copy: no call circle between files"
check-layers: check-host-cycles
