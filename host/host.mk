# host/: libxcopy (static + shared, version script, pkg-config) and the xcp CLI.
HOST_SRCS := $(sort $(wildcard $(TOP)/host/*.c))
HOST_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(HOST_SRCS))
HOST_SAN_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(HOST_SRCS))
HOST_LIBS := $(ISCSI_LIBS) $(SGUTILS_LIBS) -ldevmapper -lpthread
LIBXCOPY_A := $(BUILD)/host/libxcopy.a
LIBXCOPY_SO := $(BUILD)/host/libxcopy.so
LIBXCOPY_SOVER := 0
XCP := $(BUILD)/host/xcp
LIBXCOPY_PC := $(BUILD)/host/libxcopy.pc

HOST_XCFLAGS := -I$(TOP)/host/include -I$(TOP)/host $(ISCSI_CFLAGS)
$(BUILD)/obj/host/%.o $(BUILD)/san/host/%.o: XCFLAGS += $(HOST_XCFLAGS)
$(BUILD)/san/tests/unit/test_host_%.o: XCFLAGS += $(HOST_XCFLAGS)

# The archive carries the engine objects too, so users link one library.
$(LIBXCOPY_A): $(filter-out $(BUILD)/obj/host/cli/%,$(HOST_OBJS)) $(ENGINE_OBJS)
	$(call msg,AR,host/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBXCOPY_SO): $(HOST_OBJS) $(LIBXCM) $(TOP)/host/libxcopy.map
	$(call msg,LD,host/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) -shared -Wl,-soname,libxcopy.so.$(LIBXCOPY_SOVER) \
		-Wl,--version-script=$(TOP)/host/libxcopy.map -Wl,-z,defs \
		-o $@.$(LIBXCOPY_SOVER) $(HOST_OBJS) $(LIBXCM) $(HOST_LIBS)
	$(Q)ln -sf $(notdir $@).$(LIBXCOPY_SOVER) $@

$(BUILD)/obj/host/cli/xcp.o: XCFLAGS += $(HOST_XCFLAGS)
$(XCP): $(BUILD)/obj/host/cli/xcp.o $(LIBXCOPY_A)
	$(call msg,LD,host/$(notdir $@))
	$(Q)$(CC) -o $@ $^ $(HOST_LIBS)

$(LIBXCOPY_PC): $(TOP)/host/libxcopy.pc.in
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' $< > $@

ALL_TARGETS += $(LIBXCOPY_A) $(LIBXCOPY_SO) $(XCP) $(LIBXCOPY_PC)

# Unit tests: the host objects (not the CLI) with sanitizers.
UT_SAN_OBJS += $(HOST_SAN_OBJS)
UT_LIBS += $(ISCSI_LIBS) -ldevmapper -lpthread

.PHONY: install-host
install: install-host
install-host: $(LIBXCOPY_A) $(LIBXCOPY_SO) $(XCP) $(LIBXCOPY_PC)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(LIBXCOPY_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBXCOPY_SO).$(LIBXCOPY_SOVER) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libxcopy.so.$(LIBXCOPY_SOVER) $(DESTDIR)$(PREFIX)/lib/libxcopy.so
	install -m 644 $(LIBXCOPY_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 $(TOP)/host/include/xcopy.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(XCP) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(TOP)/host/man/xcp.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(TOP)/host/man/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
