# raid/recovery/recovery.mk: recovery (docs/rebuild.md): spares and rebuild, scrub and
# resync, failures and fault injection, the state file; its tests and benchmark.

# its layers, each using only those above it in this list (raid/recovery/README.md)
LIBRAID_SRCS += $(addprefix raid/recovery/helpers/,rec_opts.c rec.c rebuild_config.c fault.c) \
	$(addprefix raid/recovery/blocks/,state.c bitmap.c pace.c rebuild_window.c) \
	$(addprefix raid/recovery/passes/,rebuild_pipe.c rebuild_crew.c scrub.c intent.c) \
	raid/recovery/thread/rebuild.c \
	$(addprefix raid/recovery/,service.c rec_stats.c options.c module.c)
$(foreach t,state_test sparse_test window_test pace_test pipe_test service_test bitmap_test,\
	$(eval $(call raid_ctest,recovery,$(t))))
# the simulated device of simdev.h; service_test also fails chosen system calls
SIM_WRAP := -Wl,--wrap=member_backend
LDLIBS_pace_test += $(SIM_WRAP)
LDLIBS_service_test += $(SIM_WRAP) $(foreach f,posix_memalign fdatasync fsync rename write,-Wl,--wrap=$(f))
LDLIBS_bitmap_test += -Wl,--wrap=fdatasync -Wl,--wrap=pwrite
TESTS += tests/e2e/rebuild.sh tests/e2e/hostile.sh tests/e2e/campaign.sh tests/e2e/bitmap.sh
BENCHES += tests/bench/rebuild_bench.sh tests/bench/bitmap_bench.sh
