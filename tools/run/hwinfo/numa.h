/* tools/run/hwinfo/numa.h: NUMA placement of an array's fio jobs and engine threads (hwloc).
 *
 * Plain library code, no fio types: it answers "which CPUs and which NUMA node should the
 * work of an array whose members sit on these NUMA nodes run on", from a topology that is
 * either this machine or a synthetic / XML one (how the tests model the two published hosts).
 * Errors are negative errno.
 */
#ifndef RAID_NUMA_H
#define RAID_NUMA_H

#include <stddef.h>
#include <stdint.h>

#define RAID_NUMA_MAX_NODES 64
#define RAID_NUMA_CPUS_LEN 1024

struct raid_numa;

/* Load a topology: xml (a file written by lstopo) or synthetic (hwloc's synthetic string,
 * e.g. "pack:2 numa:1 core:4 pu:1"); both NULL loads this machine, where hwloc's own
 * HWLOC_XMLFILE / HWLOC_SYNTHETIC environment variables still apply. */
#define RAID_NUMA_IO 1 /* also load PCI and block devices (host profile generation) */
int raid_numa_open(struct raid_numa **out, const char *xml, const char *synthetic, int flags);
void raid_numa_close(struct raid_numa *nm);

struct raid_numa_facts {
	char cpu_model[128]; /* "" when the topology does not say */
	int sockets;
	int numa_nodes;
	int cores;
	int pus;
	uint64_t memory_bytes;
};

int raid_numa_facts(struct raid_numa *nm, struct raid_numa_facts *f);

/* OS index of the package holding NUMA node `node`; -ENOENT when the node does not exist. */
int raid_numa_node_socket(struct raid_numa *nm, int node);

/* Cores of one NUMA node; -ENOENT when the node does not exist. */
int raid_numa_node_cores(struct raid_numa *nm, int node);

/* CPU list of one NUMA node in fio's cpus_allowed syntax ("0-15,32-47"). */
int raid_numa_node_cpus(struct raid_numa *nm, int node, char *buf, size_t len);

/* The OS index of the machine's only NUMA node; -1 when it has several. A kernel ties
 * devices to no node (numa_node -1) on a one-node machine: they are on that node. */
int raid_numa_only_node(struct raid_numa *nm);

/* The decision for one array. */
struct raid_numa_place {
	int nnodes;			/* distinct NUMA nodes holding members */
	int nodes[RAID_NUMA_MAX_NODES]; /* those nodes, ascending */
	int home;			/* node holding most members (ties: lowest), -1 if none */
	int nsockets;			/* distinct packages holding members */
	int spans_sockets;		/* members on more than one package: traffic crosses
					 * the socket link (UPI / Infinity Fabric) */
	int missing_node;		/* a member node this topology lacks, else -1 */
	int pin;			/* 1: run on cpus; 0: leave the jobs unpinned */
	char cpus[RAID_NUMA_CPUS_LEN];	/* union of the member nodes' CPUs */
	char node_list[256];		/* the member nodes as fio's numa_cpu_nodes list */
};

/* member_nodes[i] is the NUMA node of member i (-1: unknown, ignored). A topology that lacks
 * one of the nodes (a profile of another host) is not an error: the answer says which node
 * is missing and does not pin. */
int raid_numa_place(struct raid_numa *nm, const int *member_nodes, int n,
		    struct raid_numa_place *out);

/* A block device hwloc sees (needs RAID_NUMA_IO). */
struct raid_numa_blockdev {
	char name[64];	    /* kernel name, "nvme0n1" */
	char pci[32];	    /* PCI address of its controller, "" if none */
	char root_port[32]; /* PCI address of the topmost device under the host bridge */
	char model[128];    /* hwloc's Model info, "" if unknown */
	int numa_node;	    /* -1: not local to one node */
};

/* Fills up to max entries; returns how many there are (may exceed max). */
int raid_numa_blockdevs(struct raid_numa *nm, struct raid_numa_blockdev *out, int max);

#endif
