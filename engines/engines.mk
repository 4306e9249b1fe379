# engines/engines.mk: build fragment, included by the top-level Makefile (see its header).
# The fio adapter, built as build/engines/raid.so against the fio tree it will be loaded
# by (fio checks only FIO_IOOPS_VERSION), and the engine's end-to-end tests and benchmark.

ENGINE := $(BUILD)/engines/raid.so
BINS += $(ENGINE)

$(OBJ)/engines/fio_raid.o: CPPFLAGS += -I$(FIO_SRC) -include $(FIO_SRC)/config-host.h
$(OBJ)/engines/fio_raid.o: $(FIO)

# never -z defs: log_err and friends resolve against fio's -rdynamic exports at load time
$(ENGINE): $(OBJ)/engines/fio_raid.o $(LIBRAID)
	@mkdir -p $(@D)
	@echo "  LD  $@"
	$(CC) $(ALL_CFLAGS) -shared -o $@ $^ -Wl,-Bsymbolic -Wl,--as-needed $(LDLIBS_SYS)

TESTS += tests/e2e/raid_basic.sh tests/e2e/raid_errors.sh tests/e2e/raid_matrix.sh \
	tests/e2e/latency.sh
BENCHES += tests/bench/engine_bench.sh
