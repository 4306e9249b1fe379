# raid/recovery/recovery.mk: recovery (docs/rebuild.md): spares and rebuild, scrub and
# resync, failures and fault injection, the state file; its tests and benchmark.

LIBRAID_SRCS += raid/recovery/rebuild.c raid/recovery/rebuild_pipe.c raid/recovery/rebuild_crew.c \
	raid/recovery/rebuild_window.c \
	raid/recovery/rebuild_config.c raid/recovery/scrub.c raid/recovery/state.c \
	raid/recovery/fault.c raid/recovery/service.c raid/recovery/pace.c \
	raid/recovery/options.c raid/recovery/module.c raid/recovery/bitmap.c raid/recovery/intent.c \
	raid/recovery/rec_stats.c raid/recovery/rec_opts.c
$(foreach t,state_test sparse_test window_test pace_test pipe_test service_test bitmap_test,\
	$(eval $(call raid_ctest,recovery,$(t))))
# the simulated device of simdev.h; service_test also fails chosen system calls
SIM_WRAP := -Wl,--wrap=member_backend
LDLIBS_pace_test += $(SIM_WRAP)
LDLIBS_service_test += $(SIM_WRAP) $(foreach f,posix_memalign fdatasync fsync rename write,-Wl,--wrap=$(f))
LDLIBS_bitmap_test += -Wl,--wrap=fdatasync -Wl,--wrap=pwrite
TESTS += tests/e2e/rebuild.sh tests/e2e/hostile.sh tests/e2e/campaign.sh tests/e2e/bitmap.sh
BENCHES += tests/bench/rebuild_bench.sh tests/bench/bitmap_bench.sh
