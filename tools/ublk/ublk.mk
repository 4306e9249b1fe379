# tools/ublk/ublk.mk: build fragment, included by tools/tools.mk.
# raid-ublk: an engine array as the block device /dev/ublkbN (the kernel's ublk driver,
# docs/ublk.md). Only the engine's public API and liburing.
UBLK_DIR := tools/ublk
BINS += $(BUILD)/bin/raid-ublk
$(BUILD)/bin/raid-ublk: $(addprefix $(OBJ)/$(UBLK_DIR)/,main.o server.o params.o) $(LIBRAID)

# the parameters' arithmetic and the parsers (any kernel); the command line's refusals on
# this host; the device itself in one boot of the md appliance on Debian 13's kernel
TESTS += $(BUILD)/tests/ublk_params_test tests/ublk/ublk_cli_test.sh tests/ublk/ublk_test.sh
$(BUILD)/tests/ublk_params_test: $(OBJ)/$(UBLK_DIR)/params_test.o $(OBJ)/$(UBLK_DIR)/params.o
LDLIBS_ublk_params_test := -lcmocka
