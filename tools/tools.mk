# tools/tools.mk: build fragment, included by the top-level Makefile (see its header).
# The md appliance (tools/mdvm: QEMU + a stock Debian kernel, docs/md.md), raid-mdadm and
# the md tests.

TESTS += tests/md/mdvm_test.sh tests/md/raid_mdadm_test.sh

# raid-mdadm: the mdadm --create line that reads an engine array (the engine's config parser)
BINS += $(BUILD)/bin/raid-mdadm
$(BUILD)/bin/raid-mdadm: $(OBJ)/tools/raid_mdadm.o $(LIBRAID)

# md as the judge of the engine's bytes, and placement on a real two-node kernel (one boot each)
TESTS += tests/md/md_judge.sh tests/md/numa2_test.sh
