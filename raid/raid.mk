# raid/raid.mk: build fragment, included by the top-level Makefile (see its header).
# The RAID engine library (no fio types): array, layouts, levels, planner, queue, member
# backends, stats; and its cmocka tests.

LIBRAID_SRCS += raid/config.c raid/array.c raid/layout.c raid/level.c raid/raid0.c \
	raid/raid1.c raid/raid10.c raid/plan.c raid/queue.c raid/member.c raid/member_uring.c \
	raid/member_aio.c raid/member_psync.c raid/member_ram.c raid/member_null.c raid/stats.c \
	raid/log.c raid/merge.c

RAID_CTESTS := layout_test plan_test config_test doorbell_test mdbytes_test random_test \
	merge_test
TESTS += $(addprefix $(BUILD)/tests/,$(RAID_CTESTS))

define raid_ctest
$(BUILD)/tests/$(1): $(OBJ)/raid/$(1).o $(LIBRAID)
LDLIBS_$(1) := -lcmocka
endef
$(foreach t,$(RAID_CTESTS),$(eval $(call raid_ctest,$(t))))

# recovery: spares and rebuild, scrub and resync, failures, the state file (docs/rebuild.md)
LIBRAID_SRCS += raid/rebuild.c raid/rebuild_window.c raid/rebuild_config.c raid/scrub.c raid/state.c raid/fault.c \
	raid/rebuild56.c raid/identity.c
RAID_REC_CTESTS := state_test array_test sparse_test window_test
TESTS += $(addprefix $(BUILD)/tests/,$(RAID_REC_CTESTS))
$(foreach t,$(RAID_REC_CTESTS),$(eval $(call raid_ctest,$(t))))
LDLIBS_state_test := -lcmocka
# AddressSanitizer catches an overflow of the registry key even when it does not crash
$(OBJ)/raid/array_test.o: private ALL_CFLAGS += -fsanitize=address
$(BUILD)/tests/array_test: private ALL_CFLAGS += -fsanitize=address
TESTS += tests/e2e/rebuild.sh
BENCHES += tests/bench/rebuild_bench.sh
