# raid/parity/parity.mk: build fragment, included by the top-level Makefile (see its header).
# The parity library (raid/parity/*.c without _test/bench) goes into libraid.a.

PARITY_SRCS := raid/parity/gf.c raid/parity/pq.c raid/parity/pq_select.c raid/parity/pq_route.c raid/parity/pq_base.c raid/parity/pq_avx2.c \
	raid/parity/pq_avx512.c raid/parity/pq_avx512gfni.c raid/parity/pq_isal.c raid/parity/pq_json.c raid/parity/pq_keep.c
LIBRAID_SRCS += $(PARITY_SRCS)

TESTS += $(BUILD)/tests/pq_base_test
$(BUILD)/tests/pq_base_test: $(OBJ)/raid/parity/pq_base_test.o $(LIBRAID)
LDLIBS_pq_base_test := -lcmocka

TESTS += $(BUILD)/tests/pq_test
$(BUILD)/tests/pq_test: $(OBJ)/raid/parity/pq_test.o $(LIBRAID)
LDLIBS_pq_test := -lcmocka

TESTS += $(BUILD)/tests/pq_keep_test
$(BUILD)/tests/pq_keep_test: $(OBJ)/raid/parity/pq_keep_test.o $(LIBRAID)
LDLIBS_pq_keep_test := -lcmocka -ljson-c

TESTS += $(BUILD)/tests/bench_select_test
$(BUILD)/tests/bench_select_test: $(OBJ)/raid/parity/bench_select_test.o \
	$(OBJ)/raid/parity/bench_select.o $(LIBRAID)
LDLIBS_bench_select_test := -lcmocka

BINS += $(BUILD)/bin/raid-parity-bench
BENCHES += $(BUILD)/bin/raid-parity-bench
$(BUILD)/bin/raid-parity-bench: $(OBJ)/raid/parity/bench.o $(OBJ)/raid/parity/bench_sources.o \
	$(OBJ)/raid/parity/bench_run.o $(OBJ)/raid/parity/bench_report.o $(OBJ)/raid/parity/bench_select.o \
	$(LIBRAID)
TESTS += raid/parity/bench_test.sh raid/parity/keep_test.sh
