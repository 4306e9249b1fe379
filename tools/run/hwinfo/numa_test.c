/* tools/run/hwinfo/numa_test.c: placement decisions of numa.c on synthetic models of the two
 * published hosts (binding is not tested: on a fake topology it succeeds without effect),
 * and the bay map of drives.c on the appliance's four NVMe drives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "drives.h"
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

/* The machine's answer for the appliance's four drives (mdvm run --numa2 --nvme 4): two on
 * each node, as raid_drive_probe reads them. */
static const struct raid_drive guest_drives[4] = {
    {.name = "nvme0n1", .pci = "0000:81:00.0", .serial = "MDVMNVME2", .numa_node = 1},
    {.name = "nvme1n1", .pci = "0000:82:00.0", .serial = "MDVMNVME3", .numa_node = 1},
    {.name = "nvme2n1", .pci = "0000:41:00.0", .serial = "MDVMNVME0", .numa_node = 0},
    {.name = "nvme3n1", .pci = "0000:42:00.0", .serial = "MDVMNVME1", .numa_node = -1},
};

/* A bay found by serial follows its drive; the machine's node wins over the profile's. */
static void test_bay_map_by_serial_and_pci(void **state)
{
	const struct raid_bay_want bays[4] = {
	    {.bay = 0, .numa_node = 0, .serial = "MDVMNVME0"},
	    {.bay = 1, .numa_node = 0, .pci = "0000:42:00.0"},
	    {.bay = 2, .numa_node = 0, .serial = "MDVMNVME2", .pci = "0000:81:00.0"},
	    {.bay = 3, .numa_node = 1, .pci = "", .serial = ""},
	};
	struct raid_bay_match m[4];
	assert_int_equal(raid_bay_map(bays, 4, guest_drives, 4, m), 0);
	assert_int_equal(m[0].drive, 2);
	assert_int_equal(m[0].numa_node, 0);
	assert_int_equal(m[0].flags, 0);
	/* found by PCI address; the kernel names no node for it: the profile's stands */
	assert_int_equal(m[1].drive, 3);
	assert_int_equal(m[1].numa_node, 0);
	assert_int_equal(m[1].flags, 0);
	/* the profile put bay 2 on node 0, the kernel says 1: placed on 1, and said */
	assert_int_equal(m[2].drive, 0);
	assert_int_equal(m[2].numa_node, 1);
	assert_int_equal(m[2].flags, RAID_BAY_NODE_DIFFERS);
	/* no serial or pci: not mapped, the profile's node */
	assert_int_equal(m[3].drive, -1);
	assert_int_equal(m[3].numa_node, 1);
	assert_int_equal(m[3].flags, 0);
}

/* Drives moved, replaced, missing, or claimed twice: each is a disagreement of its own. */
static void test_bay_map_disagreements(void **state)
{
	const struct raid_bay_want bays[4] = {
	    /* the drive moved to another slot (found by serial, elsewhere) */
	    {.bay = 0, .numa_node = 1, .serial = "MDVMNVME3", .pci = "0000:81:00.0"},
	    /* another drive was put in this slot */
	    {.bay = 1, .numa_node = 0, .serial = "GONE", .pci = "0000:41:00.0"},
	    /* nowhere */
	    {.bay = 2, .numa_node = 0, .serial = "GONE2", .pci = "0000:99:00.0"},
	    /* the same drive as bay 0 */
	    {.bay = 3, .numa_node = 1, .pci = "0000:82:00.0"},
	};
	struct raid_bay_match m[4];
	assert_int_equal(raid_bay_map(bays, 4, guest_drives, 4, m), 0);
	assert_int_equal(m[0].drive, 1);
	assert_int_equal(m[0].flags, RAID_BAY_PCI_DIFFERS);
	assert_int_equal(m[1].drive, 2);
	assert_int_equal(m[1].flags, RAID_BAY_SERIAL_DIFFERS);
	assert_int_equal(m[2].drive, -1);
	assert_int_equal(m[2].numa_node, 0);
	assert_int_equal(m[2].flags, RAID_BAY_NOT_FOUND);
	assert_int_equal(m[3].drive, 1);
	assert_int_equal(m[3].flags, RAID_BAY_TAKEN);
	assert_int_equal(raid_bay_map(NULL, 2, guest_drives, 4, m), -EINVAL);
	assert_int_equal(raid_bay_map(bays, 4, NULL, 4, m), -EINVAL);
}

/* The node-1 drives of the appliance placed from the machine: node 1's CPUs, bound memory;
 * with a member of unknown node (a loop device) the known ones still decide. */
static void test_machine_nodes_place(void **state)
{
	struct raid_numa *nm = open_syn("pack:2 numa:1 core:1 pu:1");
	struct raid_numa_place p;
	int node1[3] = {guest_drives[0].numa_node, guest_drives[1].numa_node, -1};
	int all[4];
	for (int i = 0; i < 4; i++)
		all[i] = guest_drives[i].numa_node;
	assert_int_equal(raid_numa_place(nm, node1, 3, &p), 0);
	assert_int_equal(p.nnodes, 1);
	assert_int_equal(p.pin, 1);
	assert_string_equal(p.cpus, "1");
	assert_int_equal(raid_numa_place(nm, all, 4, &p), 0);
	assert_int_equal(p.spans_sockets, 1);
	assert_string_equal(p.node_list, "0,1");
	raid_numa_close(nm);
}

/* A kernel ties drives to no node on a one-node machine: they are on its only node; with
 * two nodes, unknown stays unknown. */
static void test_only_node(void **state)
{
	struct raid_numa *one = open_syn("pack:1 numa:1 core:2 pu:1");
	struct raid_numa *two = open_syn(R284);
	assert_int_equal(raid_numa_only_node(one), 0);
	assert_int_equal(raid_numa_only_node(two), -1);
	raid_numa_close(one);
	raid_numa_close(two);
}

static void test_pci_address(void **state)
{
	assert_true(raid_pci_address_valid("0000:81:00.0"));
	assert_true(raid_pci_address_valid("10000:01:00.0") == 0);
	assert_false(raid_pci_address_valid("81:00.0"));
	assert_false(raid_pci_address_valid("0000:81:00.0x"));
	assert_false(raid_pci_address_valid(""));
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
	    cmocka_unit_test(test_bay_map_by_serial_and_pci),
	    cmocka_unit_test(test_bay_map_disagreements),
	    cmocka_unit_test(test_machine_nodes_place),
	    cmocka_unit_test(test_only_node),
	    cmocka_unit_test(test_pci_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
