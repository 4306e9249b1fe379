# tools/dev/parity-bench/parity-bench.mk: build fragment, included by tools/tools.mk.
# raid-parity-bench: every parity variant and ISA-L timed band by band against the rule's pick
# (docs/parity.md, "Benchmark"); in `make bench`, and its command line in `make test`.
PBENCH_DIR := tools/dev/parity-bench
BINS += $(BUILD)/bin/raid-parity-bench
BENCHES += $(BUILD)/bin/raid-parity-bench
$(BUILD)/bin/raid-parity-bench: $(OBJ)/$(PBENCH_DIR)/bench.o $(OBJ)/$(PBENCH_DIR)/bench_sources.o \
	$(OBJ)/$(PBENCH_DIR)/bench_run.o $(OBJ)/$(PBENCH_DIR)/bench_report.o \
	$(OBJ)/$(PBENCH_DIR)/bench_startup.o $(LIBRAID)
TESTS += $(PBENCH_DIR)/bench_test.sh
