# raid/core/core.mk: the core (public API, config, array and registry, per-thread queue,
# member I/O merging, level table, the geometry types, stats, log; range quiesce,
# member failure and the retry policy, the clock) and its tests.

LIBRAID_SRCS += raid/core/config.c raid/core/options.c raid/core/array.c raid/core/level.c \
	raid/core/queue.c raid/core/merge.c raid/core/stats.c raid/core/log.c \
	raid/core/identity.c raid/core/modules.c raid/core/sync_be.c raid/core/quiesce.c raid/core/failure.c raid/core/clock.c \
	raid/core/slow_req.c

$(foreach t,config_test doorbell_test mdbytes_test random_test merge_test \
	array_test options_test failure_test identity_test modules_test intent_test \
	slow_req_test queue_fd_test,$(eval $(call raid_ctest,core,$(t))))
# AddressSanitizer catches an overflow of the registry key even when it does not crash
$(OBJ)/raid/core/array_test.o: private ALL_CFLAGS += -fsanitize=address
$(BUILD)/tests/array_test: private ALL_CFLAGS += -fsanitize=address
LDLIBS_queue_fd_test := -lcmocka -luring
