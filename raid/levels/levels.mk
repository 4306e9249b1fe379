# raid/levels/levels.mk: the level personalities (struct raid_level_ops, raid/core/level.h):
# RAID 0/1/10 over the generic planner (plan.c); RAID5/6 with their stripe lock table,
# parity path and rows_recover (rebuild56.c); their tests, end-to-end fio runs and benchmark.

LIBRAID_SRCS += raid/levels/levels.c raid/levels/layout.c raid/levels/plan.c raid/levels/raid0.c raid/levels/raid1.c raid/levels/raid10.c
LIBRAID_SRCS += raid/levels/raid56.c raid/levels/raid56_parity.c raid/levels/raid5.c \
	raid/levels/raid6.c raid/levels/stripe.c raid/levels/parity_path.c raid/levels/rebuild56.c \
	raid/levels/level_opts.c

$(foreach t,layout_test plan_test raid56_mdbytes_test raid56_random_test rebuild56_test \
	raid56_dread_test,$(eval $(call raid_ctest,levels,$(t))))
TESTS += tests/e2e/raid56_verify.sh
# The random test again with raid_parity=cuda against a mock GPU (raid56_gpu_mock.c), so the
# GPU path's plumbing is tested on machines without one.
TESTS += $(BUILD)/tests/raid56_gpu_test
$(OBJ)/raid/levels/raid56_gpu_test.o: raid/levels/raid56_random_test.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -DTEST_PARITY='"cuda"' -c $< -o $@
$(BUILD)/tests/raid56_gpu_test: $(OBJ)/raid/levels/raid56_gpu_test.o \
	$(OBJ)/raid/levels/raid56_gpu_mock.o $(LIBRAID)
LDLIBS_raid56_gpu_test := -lcmocka
# The same random test on a real GPU, without the mock: built and run by tests/gpu/check.sh
# (not in TESTS: without a GPU raid_parity=cuda refuses the array, as it should).
$(BUILD)/tests/raid56_cuda_test: $(OBJ)/raid/levels/raid56_gpu_test.o $(LIBRAID)
LDLIBS_raid56_cuda_test := -lcmocka
# The RAID5/6 recovery windows (rebuild) through the GPU path, against the same mock.
TESTS += $(BUILD)/tests/rebuild56_gpu_test
$(OBJ)/raid/levels/rebuild56_gpu_test.o: raid/levels/rebuild56_test.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -DTEST_GPU -c $< -o $@
$(BUILD)/tests/rebuild56_gpu_test: $(OBJ)/raid/levels/rebuild56_gpu_test.o \
	$(OBJ)/raid/levels/raid56_gpu_mock.o $(LIBRAID)
LDLIBS_rebuild56_gpu_test := -lcmocka
# ... and on a real GPU, without the mock (tests/gpu/check.sh; not in TESTS)
$(BUILD)/tests/rebuild56_cuda_test: $(OBJ)/raid/levels/rebuild56_gpu_test.o $(LIBRAID)
LDLIBS_rebuild56_cuda_test := -lcmocka
# How stripes are gathered into launches, busy and failed launches, against the same mock.
TESTS += $(BUILD)/tests/raid56_gpu_batch_test
$(BUILD)/tests/raid56_gpu_batch_test: $(OBJ)/raid/levels/raid56_gpu_batch_test.o \
	$(OBJ)/raid/levels/raid56_gpu_mock.o $(LIBRAID)
LDLIBS_raid56_gpu_batch_test := -lcmocka
BENCHES += tests/bench/raid56_bench.sh
