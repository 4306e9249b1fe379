# tools/tools.mk: build fragment, included by the top-level Makefile (see its header).
# The md appliance (tools/mdvm: QEMU + a stock Debian kernel, docs/md.md) and its tests.

TESTS += tests/md/mdvm_test.sh
