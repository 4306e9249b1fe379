# workloads/workloads.mk: build fragment, included by the top-level Makefile (see its header).
# NUMA placement library code (raid/numa.c), the run.sh helpers raid-hwinfo, raid-json and
# raid-hostcpu, the placement unit test and the preset and target shell tests (edges: run.sh's
# bad input; hosts: --hosts end to end on fio servers on loopback ports).

LIBRAID_SRCS += raid/numa.c

BINS += $(BUILD)/bin/raid-hwinfo $(BUILD)/bin/raid-json $(BUILD)/bin/raid-hostcpu
$(BUILD)/bin/raid-hwinfo: $(OBJ)/workloads/hwinfo.o $(LIBRAID)
$(BUILD)/bin/raid-json: $(OBJ)/workloads/fiojson.o
$(BUILD)/bin/raid-hostcpu: $(OBJ)/workloads/hostcpu.o

TESTS += $(BUILD)/tests/numa_test
$(BUILD)/tests/numa_test: $(OBJ)/raid/numa_test.o $(LIBRAID)
LDLIBS_numa_test := -lcmocka

TESTS += tests/presets/profiles_test.sh tests/presets/dryrun_test.sh tests/presets/quick_test.sh
TESTS += tests/presets/edges_test.sh tests/presets/hosts_test.sh
TESTS += tests/targets/hostcpu_test.sh tests/targets/dev_test.sh tests/targets/md_test.sh
BENCHES += tests/bench/targets_bench.sh
