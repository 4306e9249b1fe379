# tools/dev/workcount/workcount.mk: build fragment, included by tools/tools.mk.
# raid-workcount: the gate's exact tier, the engine's work per I/O counted (cachegrind's
# instructions, the stats' member I/Os, write amplification, parity bytes) for every level
# and operation the presets use, against results/baselines/workcount.json (docs/report.md,
# "The exact tier"); its bench plants a slower parity path (RAID_TEST_SLOW_PARITY).
WC_DIR := tools/dev/workcount
BINS += $(BUILD)/bin/raid-workcount
$(BUILD)/bin/raid-workcount: $(OBJ)/$(WC_DIR)/workcount.o $(LIBRAID)
TESTS += $(WC_DIR)/workcount_test.sh
BENCHES += tests/bench/workcount_bench.sh
