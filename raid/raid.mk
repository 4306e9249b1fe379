# raid/raid.mk: build fragment, included by the top-level Makefile (see its header).
# The RAID engine library (libraid.a, no fio types), one folder a part (raid/README.md):
# core, levels, backends, recovery and parity each describe themselves in their own
# fragment; raid_modules.c, the module list that registers the parts above the core, is linked
# beside the archive (the Makefile's LIBRAID). Includes and calls between the parts go one way
# only: tools/dev/parts.sh holds the directions, check_includes.sh and check_links.sh check
# them in tests/layering_test.sh.

# A cmocka test beside the code: $(call raid_ctest,PART,NAME) builds build/tests/NAME from
# raid/PART/NAME.c and the library.
define raid_ctest
$(BUILD)/tests/$(2): $(OBJ)/raid/$(1)/$(2).o $(LIBRAID)
LDLIBS_$(2) := -lcmocka
TESTS += $(BUILD)/tests/$(2)
endef

include raid/core/core.mk
include raid/backends/backends.mk
include raid/levels/levels.mk
include raid/recovery/recovery.mk
include raid/parity/parity.mk
include raid/parity/cuda/cuda.mk

TESTS += tests/layering_test.sh
