# raid/raid56.mk: build fragment, included by the top-level Makefile (see its header).
# RAID5/6: the personalities, the stripe lock table, the parity path; their tests,
# end-to-end fio runs and benchmark.

LIBRAID_SRCS += raid/raid56.c raid/raid56_parity.c raid/raid5.c raid/raid6.c raid/stripe.c raid/parity_path.c

RAID56_CTESTS := raid56_mdbytes_test raid56_random_test rebuild56_test raid56_dread_test
TESTS += $(addprefix $(BUILD)/tests/,$(RAID56_CTESTS))
$(foreach t,$(RAID56_CTESTS),$(eval $(call raid_ctest,$(t))))
TESTS += tests/e2e/raid56_verify.sh

# The random test again with raid_parity=cuda against a mock GPU (raid56_gpu_mock.c), so
# the GPU path's plumbing is tested on machines without one.
TESTS += $(BUILD)/tests/raid56_gpu_test
$(OBJ)/raid/raid56_gpu_test.o: raid/raid56_random_test.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -DTEST_PARITY='"cuda"' -c $< -o $@
$(BUILD)/tests/raid56_gpu_test: $(OBJ)/raid/raid56_gpu_test.o $(OBJ)/raid/raid56_gpu_mock.o \
	$(LIBRAID)
LDLIBS_raid56_gpu_test := -lcmocka
# The same random test on a real GPU, without the mock: built and run by tests/gpu/check.sh
# (not in TESTS: without a GPU raid_parity=cuda refuses the array, as it should).
$(BUILD)/tests/raid56_cuda_test: $(OBJ)/raid/raid56_gpu_test.o $(LIBRAID)
LDLIBS_raid56_cuda_test := -lcmocka
# The RAID5/6 recovery windows (rebuild) through the GPU path, against the same mock.
TESTS += $(BUILD)/tests/rebuild56_gpu_test
$(OBJ)/raid/rebuild56_gpu_test.o: raid/rebuild56_test.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -DTEST_GPU -c $< -o $@
$(BUILD)/tests/rebuild56_gpu_test: $(OBJ)/raid/rebuild56_gpu_test.o $(OBJ)/raid/raid56_gpu_mock.o \
	$(LIBRAID)
LDLIBS_rebuild56_gpu_test := -lcmocka
# ... and on a real GPU, without the mock (tests/gpu/check.sh; not in TESTS)
$(BUILD)/tests/rebuild56_cuda_test: $(OBJ)/raid/rebuild56_gpu_test.o $(LIBRAID)
LDLIBS_rebuild56_cuda_test := -lcmocka
# How stripes are gathered into launches, busy and failed launches, against the same mock.
TESTS += $(BUILD)/tests/raid56_gpu_batch_test
$(BUILD)/tests/raid56_gpu_batch_test: $(OBJ)/raid/raid56_gpu_batch_test.o \
	$(OBJ)/raid/raid56_gpu_mock.o $(LIBRAID)
LDLIBS_raid56_gpu_batch_test := -lcmocka
BENCHES += tests/bench/raid56_bench.sh
