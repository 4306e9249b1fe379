/* tools/run/hwinfo/numa_test.c: placement decisions of numa.c on synthetic models of the two
 * published hosts (binding is not tested: on a fake topology it succeeds without effect). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "numa.h"

/* Gigabyte R284-S93-AAL1: two Intel sockets, one NUMA node each (core count not published:
 * 4 per socket keeps CPU lists readable). */
#define R284 "pack:2 numa:1 core:4 pu:1"
/* Supermicro AS-2125HS-TNR: 2x EPYC 9654, 96 cores with SMT each, NPS1 and NPS4. */
#define AS2125_NPS1 "pack:2 numa:1 core:96 pu:2"
#define AS2125_NPS4 "pack:2 numa:4 core:24 pu:2"

static struct raid_numa *open_syn(const char *syn)
{
	struct raid_numa *nm = NULL;
	assert_int_equal(raid_numa_open(&nm, NULL, syn, 0), 0);
	return nm;
}

static void test_facts_r284(void **state)
{
	struct raid_numa *nm = open_syn(R284);
	struct raid_numa_facts f;
	char cpus[64];
	assert_int_equal(raid_numa_facts(nm, &f), 0);
	assert_int_equal(f.sockets, 2);
	assert_int_equal(f.numa_nodes, 2);
	assert_int_equal(f.cores, 8);
	assert_int_equal(raid_numa_node_socket(nm, 1), 1);
	assert_int_equal(raid_numa_node_cores(nm, 1), 4);
	assert_int_equal(raid_numa_node_cpus(nm, 1, cpus, sizeof(cpus)), 0);
	assert_string_equal(cpus, "4-7");
	assert_int_equal(raid_numa_node_socket(nm, 2), -ENOENT);
	assert_int_equal(raid_numa_node_cpus(nm, 2, cpus, sizeof(cpus)), -ENOENT);
	raid_numa_close(nm);
}

/* The final layout of review A: RAID6 on bays 4-11 (CPU1), RAID1 on bays 0-1 (CPU0). */
static void test_r284_final_layout(void **state)
{
	struct raid_numa *nm = open_syn(R284);
	struct raid_numa_place p;
	int raid6[8] = {1, 1, 1, 1, 1, 1, 1, 1}, raid1[2] = {0, 0};

	assert_int_equal(raid_numa_place(nm, raid6, 8, &p), 0);
	assert_int_equal(p.nnodes, 1);
	assert_int_equal(p.home, 1);
	assert_int_equal(p.spans_sockets, 0);
	assert_int_equal(p.pin, 1);
	assert_string_equal(p.cpus, "4-7");
	assert_string_equal(p.node_list, "1");

	assert_int_equal(raid_numa_place(nm, raid1, 2, &p), 0);
	assert_int_equal(p.home, 0);
	assert_string_equal(p.cpus, "0-3");
	assert_int_equal(p.spans_sockets, 0);
	raid_numa_close(nm);
}

/* All 12 bays (the hwluxx 12-drive tests): 4 on CPU0, 8 on CPU1 -> spans, home is CPU1. */
static void test_r284_twelve_spans(void **state)
{
	struct raid_numa *nm = open_syn(R284);
	struct raid_numa_place p;
	int bays[12] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
	assert_int_equal(raid_numa_place(nm, bays, 12, &p), 0);
	assert_int_equal(p.nnodes, 2);
	assert_int_equal(p.home, 1);
	assert_int_equal(p.nsockets, 2);
	assert_int_equal(p.spans_sockets, 1);
	assert_int_equal(p.pin, 1);
	assert_string_equal(p.cpus, "0-7");
	assert_string_equal(p.node_list, "0,1");
	raid_numa_close(nm);
}

/* Review C: mdadm RAID5 over all 24 bays of a two-socket EPYC host. */
static void test_as2125_raid5_24(void **state)
{
	struct raid_numa *nm = open_syn(AS2125_NPS1);
	struct raid_numa_place p;
	int bays[24];
	for (int i = 0; i < 24; i++)
		bays[i] = i < 12 ? 0 : 1;
	assert_int_equal(raid_numa_place(nm, bays, 24, &p), 0);
	assert_int_equal(p.spans_sockets, 1);
	assert_int_equal(p.home, 0); /* a tie goes to the lowest node */
	assert_string_equal(p.cpus, "0-383");

	/* The first twelve alone stay on socket 0. */
	assert_int_equal(raid_numa_place(nm, bays, 12, &p), 0);
	assert_int_equal(p.spans_sockets, 0);
	assert_string_equal(p.cpus, "0-191");
	raid_numa_close(nm);
}

/* NPS4: two nodes of one socket are a union, not a socket crossing. */
static void test_as2125_nps4_same_socket(void **state)
{
	struct raid_numa *nm = open_syn(AS2125_NPS4);
	struct raid_numa_place p;
	int bays[4] = {0, 1, 1, 0}, cross[2] = {3, 4};
	assert_int_equal(raid_numa_place(nm, bays, 4, &p), 0);
	assert_int_equal(p.nnodes, 2);
	assert_int_equal(p.nsockets, 1);
	assert_int_equal(p.spans_sockets, 0);
	assert_string_equal(p.cpus, "0-95");
	assert_int_equal(raid_numa_place(nm, cross, 2, &p), 0);
	assert_int_equal(p.spans_sockets, 1);
	raid_numa_close(nm);
}

/* A profile of another host on a one-node machine: say which node is missing, never pin. */
static void test_missing_node_does_not_pin(void **state)
{
	struct raid_numa *nm = open_syn("pack:1 numa:1 core:2 pu:1");
	struct raid_numa_place p;
	int bays[3] = {0, 1, 1};
	assert_int_equal(raid_numa_place(nm, bays, 3, &p), 0);
	assert_int_equal(p.missing_node, 1);
	assert_int_equal(p.pin, 0);
	assert_string_equal(p.cpus, "");
	raid_numa_close(nm);
}

static void test_unknown_and_bad_nodes(void **state)
{
	struct raid_numa *nm = open_syn(R284);
	struct raid_numa_place p;
	int unknown[2] = {-1, -1}, mixed[3] = {-1, 1, -1}, big[1] = {RAID_NUMA_MAX_NODES};
	assert_int_equal(raid_numa_place(nm, unknown, 2, &p), 0);
	assert_int_equal(p.nnodes, 0);
	assert_int_equal(p.pin, 0);
	assert_int_equal(p.home, -1);
	assert_int_equal(raid_numa_place(nm, mixed, 3, &p), 0);
	assert_int_equal(p.home, 1);
	assert_string_equal(p.cpus, "4-7");
	assert_int_equal(raid_numa_place(nm, big, 1, &p), -ERANGE);
	assert_int_equal(raid_numa_place(nm, NULL, 2, &p), -EINVAL);
	assert_int_equal(raid_numa_place(nm, mixed, -1, &p), -EINVAL);
	raid_numa_close(nm);
}

static void test_bad_topology(void **state)
{
	struct raid_numa *nm = NULL;
	assert_int_equal(raid_numa_open(&nm, NULL, "pack:two", 0), -EINVAL);
	assert_null(nm);
	assert_int_equal(raid_numa_open(&nm, "/nonexistent/topo.xml", NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_facts_r284),
	    cmocka_unit_test(test_r284_final_layout),
	    cmocka_unit_test(test_r284_twelve_spans),
	    cmocka_unit_test(test_as2125_raid5_24),
	    cmocka_unit_test(test_as2125_nps4_same_socket),
	    cmocka_unit_test(test_missing_node_does_not_pin),
	    cmocka_unit_test(test_unknown_and_bad_nodes),
	    cmocka_unit_test(test_bad_topology),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
