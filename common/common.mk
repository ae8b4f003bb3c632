# common/: OS helpers shared by libxcopy (host/) and the handler (target/);
# plain objects linked into both (and into the unit tests). Not the engine's.
COMMON_SRCS := $(sort $(wildcard $(TOP)/common/*.c))
COMMON_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/obj/%.o,$(COMMON_SRCS))
COMMON_SAN_OBJS := $(patsubst $(TOP)/%.c,$(BUILD)/san/%.o,$(COMMON_SRCS))
