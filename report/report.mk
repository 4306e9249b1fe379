# report/report.mk: build fragment, included by the top-level Makefile (see its header).
# raid-report reads run directories (results/README.md) with json-c, draws with gnuplot, and
# asks the engine's level table (libraid's public API) for the levels' facts. Its layers
# (report/README.md): model < analysis < render < cmd, each a folder.
REPORT_SRCS := $(wildcard report/model/*.c report/analysis/*.c report/render/*.c) \
	       $(filter-out report/cmd/main.c,$(wildcard report/cmd/*.c))
REPORT_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(REPORT_SRCS))

BINS += $(BUILD)/bin/raid-report
$(BUILD)/bin/raid-report: $(OBJ)/report/cmd/main.o $(REPORT_OBJS) $(LIBRAID)

TESTS += $(BUILD)/tests/report_test report/report_test.sh report/targets_test.sh report/rebuild_test.sh
$(BUILD)/tests/report_test: $(OBJ)/report/report_test.o $(REPORT_OBJS) $(LIBRAID)
LDLIBS_report_test := -lcmocka

TESTS += $(BUILD)/tests/model_test report/project_test.sh
BENCHES += tests/bench/project_bench.sh tests/bench/gate_bench.sh tests/bench/ab_bench.sh
$(BUILD)/tests/model_test: $(OBJ)/report/model_test.o $(REPORT_OBJS) $(LIBRAID)
LDLIBS_model_test := -lcmocka
