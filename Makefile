# fio-raid top-level build.
#
#   make          install missing Debian packages (as root), fetch and build fio 3.33,
#                 build the RAID library, the fio engine, the tools and the tests
#   make test     build everything and run every test (unit, shim, end-to-end fio runs)
#   make bench    print the benchmark figures (never part of `make test`)
#   make sanitize the C tests and the engine's fio tests again under AddressSanitizer and
#                 UBSan, in build-san/ (about 5 minutes; not part of `make test`, which CI
#                 holds under 20 minutes)
#   make torture  DURATION=SECONDS of fresh raid-torture seeds (tools/dev/torture)
#   make clean    remove build/ and build-san/
#
# Each component describes itself in its own fragment (raid/raid.mk, engines/engines.mk,
# ...): it appends its library sources to LIBRAID_SRCS, its programs to BINS, its tests to
# TESTS and its benchmarks to BENCHES. This file only holds the shared rules.

BUILD    := build
OBJ      := $(BUILD)/obj
CC       ?= gcc
CXX      ?= g++
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare
CPPFLAGS += -D_GNU_SOURCE -I. -Iraid
DEPFLAGS  = -MMD -MP
SAN      :=
ALL_CFLAGS = -std=gnu11 -pthread -fPIC $(CFLAGS) $(SAN) $(WARN)
LDLIBS_SYS := -luring -laio -ljson-c -lisal -lnuma -lpthread -lm

DEPS_STAMP := $(BUILD)/.deps-ok
FIO_VER    := 3.33
FIO_SRC    := $(BUILD)/fio-$(FIO_VER)
FIO        := $(BUILD)/bin/fio
LIBRAID_A  := $(BUILD)/lib/libraid.a
# What a program links for the engine: the archive and the module list that registers its
# parts with the core (raid/raid_modules.c, raid/README.md), an object of its own because
# nothing references it.
LIBRAID    := $(OBJ)/raid/raid_modules.o $(LIBRAID_A)

LIBRAID_SRCS :=
BINS         :=
TESTS        :=
BENCHES      :=
EXTRA_OBJS   :=

.PHONY: all test bench sanitize clean deps fio
all:

include raid/raid.mk
include engines/engines.mk
include report/report.mk
include run/run.mk
include tools/tools.mk
include tests/tests.mk

all: $(FIO) $(BINS)

deps: $(DEPS_STAMP)
$(DEPS_STAMP): mk/deps.sh
	@mkdir -p $(@D)
	@bash mk/deps.sh
	@touch $@

fio: $(FIO)
$(FIO): mk/fio.sh | $(DEPS_STAMP)
	@bash mk/fio.sh $(BUILD)

LIBRAID_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(LIBRAID_SRCS)) $(EXTRA_OBJS)
$(LIBRAID_A): $(LIBRAID_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(OBJ)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# Programs and tests: a fragment names the objects, e.g.
#   BINS += $(BUILD)/bin/raid-mdadm
#   $(BUILD)/bin/raid-mdadm: $(OBJ)/tools/run/mdadm/raid_mdadm.o $(LIBRAID)
#   LDLIBS_raid-mdadm := -lfoo        (optional extra libraries)
LINK = @mkdir -p $(@D); echo "  LD  $@"; \
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.o %.a,$^) $(LDLIBS_$(@F)) $(LDLIBS_SYS)
$(BUILD)/bin/%:
	$(LINK)
$(BUILD)/tests/%:
	$(LINK)

test: all $(TESTS)
	@bash tests/run.sh $(TESTS)

bench: all $(BENCHES)
	@set -e; for b in $(BENCHES); do echo "== $$b"; $$b; done

# The C tests ($(BUILD)/tests/*) and the engine built again with AddressSanitizer and UBSan (SAN),
# every report fatal; the engine's fio tests then load that engine into this build's fio, the
# sanitizer's runtime preloaded (T_FIO, T_ENGINE: tests/lib.sh), leaks not counted there (fio's
# own are not ours). The CUDA objects are left out (NVCC empty: the stub): nvcc takes no
# -fsanitize; the kernels' source still runs, instrumented, under the CPU shim (pq_kernels_test).
SAN_BUILD := build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_TESTS := $(patsubst $(BUILD)/%,$(SAN_BUILD)/%,$(filter $(BUILD)/tests/%,$(TESTS)))
SAN_E2E   := tests/e2e/raid_basic.sh tests/e2e/raid_matrix.sh tests/e2e/raid56_verify.sh \
	tests/e2e/raid_errors.sh tests/e2e/rebuild.sh tests/e2e/hostile.sh tests/e2e/campaign.sh
sanitize: $(FIO)
	@$(MAKE) -s BUILD=$(SAN_BUILD) NVCC= FIO=$(FIO) FIO_SRC=$(FIO_SRC) CFLAGS="-O1 -g" \
		SAN="$(SAN_FLAGS)" $(SAN_TESTS) $(SAN_BUILD)/engines/raid.so
	@printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0:abort_on_error=1 LD_PRELOAD=%s exec %s "$$@"\n' \
		"$$($(CC) -print-file-name=libasan.so)" "$(abspath $(FIO))" >$(SAN_BUILD)/fio-san
	@chmod +x $(SAN_BUILD)/fio-san
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		T_FIO=$(abspath $(SAN_BUILD))/fio-san T_ENGINE=$(abspath $(SAN_BUILD))/engines/raid.so \
		bash tests/run.sh $(SAN_TESTS) $(SAN_E2E)

clean:
	rm -rf $(BUILD) $(SAN_BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
