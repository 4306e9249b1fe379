# tools/tools.mk: build fragment, included by the top-level Makefile (see its header).
# The C tools beside the engine, one folder each: raid-hwinfo (host facts and NUMA placement
# over hwloc, tools/run/hwinfo), raid-json (run.sh's JSON helper, tools/run/json), raid-hostcpu
# (whole-machine CPU of a test, tools/run/hostcpu), raid-mdadm (the mdadm line for an engine
# array, tools/run/mdadm), raid-tool (the engine's level and option tables, tools/run/raidtool), and
# the md appliance (QEMU + a stock Debian kernel, tools/mdvm, docs/md.md) with the md tests.

# NUMA placement is the host tool's, not the engine's: libraid does not link hwloc. The
# tool links libraid for the level table (what a profile's array can be).
BINS += $(BUILD)/bin/raid-hwinfo $(BUILD)/bin/raid-json $(BUILD)/bin/raid-hostcpu
$(BUILD)/bin/raid-hwinfo: $(OBJ)/tools/run/hwinfo/hwinfo.o $(OBJ)/tools/run/hwinfo/numa.o \
	$(OBJ)/tools/run/hwinfo/drives.o $(LIBRAID)
LDLIBS_raid-hwinfo := -lhwloc
$(BUILD)/bin/raid-json: $(OBJ)/tools/run/json/fiojson.o
$(BUILD)/bin/raid-hostcpu: $(OBJ)/tools/run/hostcpu/hostcpu.o

TESTS += $(BUILD)/tests/numa_test
$(BUILD)/tests/numa_test: $(OBJ)/tools/run/hwinfo/numa_test.o $(OBJ)/tools/run/hwinfo/numa.o \
	$(OBJ)/tools/run/hwinfo/drives.o $(LIBRAID)
LDLIBS_numa_test := -lcmocka -lhwloc

# raid-mdadm: the mdadm --create line that reads an engine array (the engine's config parser)
BINS += $(BUILD)/bin/raid-mdadm
$(BUILD)/bin/raid-mdadm: $(OBJ)/tools/run/mdadm/raid_mdadm.o $(LIBRAID)

# md as the judge of the engine's bytes, placement on a real two-node kernel, and NVMe drives on
# two NUMA nodes, run.sh on a kernel with md over NVMe drives (one boot each)
TESTS += tests/md/mdvm_test.sh tests/md/raid_mdadm_test.sh
TESTS += tests/md/md_judge.sh tests/md/numa2_test.sh tests/md/nvme_test.sh tests/md/host_test.sh

# raid-mdstats: md's figures for run.sh's md target (tools/run/mdstats), the rates by the
# engine's formula (raid_rate_of)
BINS += $(BUILD)/bin/raid-mdstats
$(BUILD)/bin/raid-mdstats: $(OBJ)/tools/run/mdstats/mdstats.o $(LIBRAID)

# raid-preset: run.sh's presets (presets/*.preset) and the job files' facts, checked against
# the engine's level table (tools/run/preset, presets/README.md)
BINS += $(BUILD)/bin/raid-preset
$(BUILD)/bin/raid-preset: $(addprefix $(OBJ)/tools/run/preset/,preset.o plan.o options.o drives.o measure.o \
	resync.o sizes.o hosts.o usage.o line.o checks.o) $(LIBRAID)
TESTS += tests/presets/preset_test.sh
# the plan's arithmetic, case by case (each failure names the case and the figure)
TESTS += $(BUILD)/tests/sizes_test
$(BUILD)/tests/sizes_test: $(OBJ)/tools/run/preset/sizes_test.o $(OBJ)/tools/run/preset/sizes.o \
	$(LIBRAID)
LDLIBS_sizes_test := -lcmocka
# what one test of the plan is (line.c: print_test's compute step), case by case
TESTS += $(BUILD)/tests/line_test
$(BUILD)/tests/line_test: $(addprefix $(OBJ)/tools/run/preset/,line_test.o line.o sizes.o drives.o \
	measure.o resync.o) $(LIBRAID)
LDLIBS_line_test := -lcmocka

# raid-tool: the engine's level and option tables, for run.sh, the tests and the README
BINS += $(BUILD)/bin/raid-tool
$(BUILD)/bin/raid-tool: $(OBJ)/tools/run/raidtool/raid_tool.o $(LIBRAID)
# one source for each fact: the README's option table and fio's --enghelp are the engine's
# table; the level facts run.sh and raid-hwinfo use are the engine's
TESTS += tests/facts/readme_test.sh tests/facts/levels_test.sh
# and every path a README names is a file or folder of the tree
TESTS += tests/facts/readme_paths_test.sh
# and no engine option's default is copied as a literal outside the option table
TESTS += tests/facts/defaults_test.sh

# raid-parity-bench: the parity library's benchmark (a developer's tool, docs/parity.md)
include tools/dev/parity-bench/parity-bench.mk

# raid-torture: the seeded random fault campaign (tools/dev/torture, issue 44); `make torture
# DURATION=SECONDS` runs fresh seeds for that long, tests/e2e/torture.sh the fixed ones
BINS += $(BUILD)/bin/raid-torture
$(BUILD)/bin/raid-torture: $(OBJ)/tools/dev/torture/torture.o $(LIBRAID)
# the b operation's SIGKILL aimed at the bitmap's writes: the library's pwrite and fdatasync
LDLIBS_raid-torture := -Wl,--wrap=pwrite -Wl,--wrap=fdatasync
TESTS += tests/e2e/torture.sh
DURATION ?= 600
.PHONY: torture
torture: $(BUILD)/bin/raid-torture
	nice -n 10 $(BUILD)/bin/raid-torture --duration $(DURATION) $(TORTURE_ARGS)
include tools/dev/workcount/workcount.mk

# raid-ublk: the array as a block device through the kernel's ublk driver (tools/ublk)
include tools/ublk/ublk.mk
