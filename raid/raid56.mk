# raid/raid56.mk: build fragment, included by the top-level Makefile (see its header).
# RAID5/6: the personalities, the stripe lock table, the parity path; their tests,
# end-to-end fio runs and benchmark.

LIBRAID_SRCS += raid/raid56.c raid/raid5.c raid/raid6.c raid/stripe.c raid/parity_path.c

RAID56_CTESTS := raid56_mdbytes_test raid56_random_test
TESTS += $(addprefix $(BUILD)/tests/,$(RAID56_CTESTS))
$(foreach t,$(RAID56_CTESTS),$(eval $(call raid_ctest,$(t))))
TESTS += tests/e2e/raid56_verify.sh
BENCHES += tests/bench/raid56_bench.sh
