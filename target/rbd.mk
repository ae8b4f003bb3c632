# target/store/rbd/: rbd_*.c + rados_copy.cc, the RBD store. handler_xcopy.so
# links all of it (target.mk). It is also built into
# $(BUILD)/target/librbdstore.a and the lab tool $(BUILD)/tests/xt-rbd when
# librbd's and librados' C++ headers are installed (librbd-dev,
# libradospp-dev in configs/packages.list); skipped, and said so, otherwise.
# rbd_cfg.c and rbd_rule.c (the copy-from rule) need no Ceph library: the unit
# tests link them always. common/
# (xos_why_set) and target/base/env.c (the subtype, xt_cfg_body) are linked
# into xt-rbd, not archived in librbdstore.a.

RBD_CFG_SAN_OBJ := $(BUILD)/san/target/store/rbd/rbd_cfg.o $(BUILD)/san/target/store/rbd/rbd_rule.o
$(BUILD)/obj/target/store/rbd/rbd_%.o $(BUILD)/san/target/store/rbd/rbd_%.o: XCFLAGS += -I$(TOP)/common -I$(TOP)/target
UT_SAN_OBJS += $(RBD_CFG_SAN_OBJ)

RBD_HAVE := $(and $(wildcard /usr/include/rbd/librbd.h),$(wildcard /usr/include/rados/librados.hpp))
ifneq ($(RBD_HAVE),)
CXX ?= g++
RBD_LIB := $(BUILD)/target/librbdstore.a
RBD_OBJS := $(addprefix $(BUILD)/obj/target/store/rbd/,rbd_cfg.o rbd_rule.o rbd_image.o rbd_quiesce.o rbd_copy.o rados_copy.o)
RBD_LIBS := -lrbd -lrados -lstdc++
XT_RBD_BIN := $(BUILD)/tests/xt-rbd
CXXFLAGS_RBD := -std=c++17 -Wall -Wextra -Wno-unused-parameter -fstack-protector-strong \
	-fPIC $(CPPFLAGS) $(CFLAGS) $(if $(filter 1,$(WERROR)),-Werror)

$(BUILD)/obj/target/store/rbd/rados_copy.o: $(TOP)/target/store/rbd/rados_copy.cc $(TOP)/target/store/rbd/rados_copy.h $(FLAGS_STAMP) | check-build-deps
	$(call msg,CXX,target/store/rbd/rados_copy.cc)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(CXXFLAGS_RBD) -I$(TOP)/common -MMD -MP -c -o $@ $<

$(RBD_LIB): $(RBD_OBJS)
	$(call msg,AR,target/$(notdir $@))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

# rbd_cfg.c reads the handler's subtype (XCOPY_SUBTYPE) through target/base/env.c
$(XT_RBD_BIN): $(BUILD)/obj/tests/tools/xt_rbd.o $(RBD_LIB) $(BUILD)/obj/target/base/env.o $(COMMON_OBJS)
	$(call msg,LD,$(notdir $@))
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(RBD_LIBS) -lpthread

ALL_TARGETS += $(RBD_LIB) $(XT_RBD_BIN)
else
# said once per make that compiles, by check-build-deps (Makefile), and
# named in its line if required packages are missing too
OPTIONAL_MISSING += librbd-dev libradospp-dev
OPTIONAL_NOTE := target/rbd.mk: librbd-dev/libradospp-dev missing: RBD store and xt-rbd not built (make deps)
endif
