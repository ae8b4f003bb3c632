# engine/: the codec and copy manager, a static library of PIC objects
# (linked into the tcmu plugin, libxcopy and the unit tests).
ENGINE_SRCS := $(sort $(wildcard $(TOP)/engine/*.c))
ENGINE_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(ENGINE_SRCS))
ENGINE_SAN_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(ENGINE_SRCS))
LIBXCM := $(BUILD)/libxcm.a
LIBXCM_SAN := $(BUILD)/san/libxcm.a

$(LIBXCM): $(ENGINE_OBJS)
	$(call msg,AR,$(notdir $@))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBXCM_SAN): $(ENGINE_SAN_OBJS)
	$(call msg,AR,san/$(notdir $@))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

ALL_TARGETS += $(LIBXCM)

# No file in engine/ may grow past what one person can hold.
ENGINE_MAX_LINES ?= 800
.PHONY: check-engine-size
check-engine-size:
	$(Q)bad=$$(wc -l $(TOP)/engine/*.c $(TOP)/engine/*.h $(TOP)/engine/include/xcm/*.h 2>/dev/null | \
		awk '$$2 != "total" && $$1 > $(ENGINE_MAX_LINES) {print $$2 " (" $$1 " lines)"}'); \
		if [ -n "$$bad" ]; then echo "engine files over $(ENGINE_MAX_LINES) lines: $$bad"; exit 1; fi
