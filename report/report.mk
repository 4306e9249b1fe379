# report/report.mk: build fragment, included by the top-level Makefile (see its header).
# raid-report reads run directories (results/README.md) with json-c, draws with gnuplot, and
# asks the engine's level table (libraid's public API) for the levels' facts.
REPORT_SRCS := report/load.c report/summary.c report/published.c report/charts.c \
	       report/html.c report/compare.c report/gate.c report/hosts.c report/iomodel.c \
	       report/efficiency.c report/project.c report/project_out.c report/project_html.c \
	       report/targets.c
REPORT_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(REPORT_SRCS))

BINS += $(BUILD)/bin/raid-report
$(BUILD)/bin/raid-report: $(OBJ)/report/main.o $(REPORT_OBJS) $(LIBRAID)

TESTS += $(BUILD)/tests/report_test report/report_test.sh report/targets_test.sh
$(BUILD)/tests/report_test: $(OBJ)/report/report_test.o $(REPORT_OBJS) $(LIBRAID)
LDLIBS_report_test := -lcmocka

TESTS += $(BUILD)/tests/model_test report/project_test.sh
BENCHES += tests/bench/project_bench.sh
$(BUILD)/tests/model_test: $(OBJ)/report/model_test.o $(REPORT_OBJS) $(LIBRAID)
LDLIBS_model_test := -lcmocka
