# raid/parity/parity.mk: build fragment, included by the top-level Makefile (see its header).
# The parity library (raid/parity/*.c without _test) goes into libraid.a; its benchmark,
# raid-parity-bench, is a developer's tool (tools/dev/parity-bench, built from tools/tools.mk).

PARITY_SRCS := raid/parity/gf.c raid/parity/pq.c raid/parity/pq_rule.c raid/parity/pq_base.c \
	raid/parity/pq_avx2.c raid/parity/pq_avx512.c raid/parity/pq_avx512gfni.c raid/parity/pq_isal.c \
	raid/parity/pq_slow.c
LIBRAID_SRCS += $(PARITY_SRCS)

TESTS += $(BUILD)/tests/pq_base_test
$(BUILD)/tests/pq_base_test: $(OBJ)/raid/parity/pq_base_test.o $(LIBRAID)
LDLIBS_pq_base_test := -lcmocka

TESTS += $(BUILD)/tests/pq_test
$(BUILD)/tests/pq_test: $(OBJ)/raid/parity/pq_test.o $(LIBRAID)
LDLIBS_pq_test := -lcmocka
