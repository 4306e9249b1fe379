/* tools/run/hwinfo/numa.c: NUMA placement decisions from an hwloc topology (see numa.h).
 *
 * Only decisions live here; binding is done by whoever runs the jobs (fio's cpus_allowed),
 * so the same code answers for this machine and for synthetic models of the published
 * hosts. */
#include "numa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

struct raid_numa {
	hwloc_topology_t topo;
};

int raid_numa_open(struct raid_numa **out, const char *xml, const char *synthetic, int flags)
{
	struct raid_numa *nm = calloc(1, sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	if (hwloc_topology_init(&nm->topo) < 0)
		goto err_free;
	if (xml && hwloc_topology_set_xml(nm->topo, xml) < 0)
		goto err_topo;
	if (synthetic && hwloc_topology_set_synthetic(nm->topo, synthetic) < 0)
		goto err_topo;
	if ((flags & RAID_NUMA_IO) &&
	    hwloc_topology_set_io_types_filter(nm->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0)
		goto err_topo;
	if (hwloc_topology_load(nm->topo) < 0)
		goto err_topo;
	*out = nm;
	return 0;
err_topo:
	hwloc_topology_destroy(nm->topo);
err_free:
	free(nm);
	return -EINVAL;
}

void raid_numa_close(struct raid_numa *nm)
{
	if (!nm)
		return;
	hwloc_topology_destroy(nm->topo);
	free(nm);
}

static hwloc_obj_t numa_obj(struct raid_numa *nm, int node)
{
	hwloc_obj_t o = NULL;
	while ((o = hwloc_get_next_obj_by_type(nm->topo, HWLOC_OBJ_NUMANODE, o)))
		if ((int)o->os_index == node)
			return o;
	return NULL;
}

int raid_numa_facts(struct raid_numa *nm, struct raid_numa_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->sockets = hwloc_get_nbobjs_by_type(nm->topo, HWLOC_OBJ_PACKAGE);
	f->numa_nodes = hwloc_get_nbobjs_by_type(nm->topo, HWLOC_OBJ_NUMANODE);
	f->cores = hwloc_get_nbobjs_by_type(nm->topo, HWLOC_OBJ_CORE);
	f->pus = hwloc_get_nbobjs_by_type(nm->topo, HWLOC_OBJ_PU);
	f->memory_bytes = hwloc_get_root_obj(nm->topo)->total_memory;
	hwloc_obj_t pkg = hwloc_get_obj_by_type(nm->topo, HWLOC_OBJ_PACKAGE, 0);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	if (model)
		snprintf(f->cpu_model, sizeof(f->cpu_model), "%s", model);
	return 0;
}

int raid_numa_node_socket(struct raid_numa *nm, int node)
{
	hwloc_obj_t o = numa_obj(nm, node);
	if (!o)
		return -ENOENT;
	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(nm->topo, HWLOC_OBJ_PACKAGE, o);
	/* A topology without packages (some VMs, minimal synthetic ones) is one socket. */
	return pkg ? (int)pkg->os_index : 0;
}

int raid_numa_node_cores(struct raid_numa *nm, int node)
{
	hwloc_obj_t o = numa_obj(nm, node);
	if (!o)
		return -ENOENT;
	return hwloc_get_nbobjs_inside_cpuset_by_type(nm->topo, o->cpuset, HWLOC_OBJ_CORE);
}

int raid_numa_node_cpus(struct raid_numa *nm, int node, char *buf, size_t len)
{
	hwloc_obj_t o = numa_obj(nm, node);
	if (!o)
		return -ENOENT;
	if (hwloc_bitmap_list_snprintf(buf, len, o->cpuset) >= (int)len)
		return -ENOSPC;
	return 0;
}

int raid_numa_only_node(struct raid_numa *nm)
{
	if (hwloc_get_nbobjs_by_type(nm->topo, HWLOC_OBJ_NUMANODE) != 1)
		return -1;
	return (int)hwloc_get_obj_by_type(nm->topo, HWLOC_OBJ_NUMANODE, 0)->os_index;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int raid_numa_place(struct raid_numa *nm, const int *member_nodes, int n,
		    struct raid_numa_place *out)
{
	int count[RAID_NUMA_MAX_NODES] = {0};
	int sockets[RAID_NUMA_MAX_NODES];
	int i, ret = 0;

	memset(out, 0, sizeof(*out));
	out->home = -1;
	out->missing_node = -1;
	if (n < 0 || (n > 0 && !member_nodes))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int node = member_nodes[i];
		if (node < 0)
			continue;
		if (node >= RAID_NUMA_MAX_NODES)
			return -ERANGE;
		if (!count[node]++)
			out->nodes[out->nnodes++] = node;
	}
	qsort(out->nodes, out->nnodes, sizeof(int), cmp_int);
	for (i = 0; i < out->nnodes; i++)
		if (out->home < 0 || count[out->nodes[i]] > count[out->home])
			out->home = out->nodes[i];

	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	if (!cpus)
		return -ENOMEM;
	size_t off = 0;
	for (i = 0; i < out->nnodes; i++) {
		int node = out->nodes[i], s, j;
		hwloc_obj_t o = numa_obj(nm, node);
		off += snprintf(out->node_list + off, sizeof(out->node_list) - off, "%s%d",
				i ? "," : "", node);
		if (off >= sizeof(out->node_list)) {
			ret = -ENOSPC;
			goto out;
		}
		if (!o) {
			if (out->missing_node < 0)
				out->missing_node = node;
			continue;
		}
		hwloc_bitmap_or(cpus, cpus, o->cpuset);
		s = raid_numa_node_socket(nm, node);
		for (j = 0; j < out->nsockets && sockets[j] != s; j++)
			;
		if (j == out->nsockets)
			sockets[out->nsockets++] = s;
	}
	out->spans_sockets = out->nsockets > 1;
	/* Pinning to half a placement would be worse than none: only pin when every member
	 * node exists here. */
	out->pin = out->nnodes > 0 && out->missing_node < 0;
	if (out->pin && hwloc_bitmap_list_snprintf(out->cpus, sizeof(out->cpus), cpus) >=
			    (int)sizeof(out->cpus))
		ret = -ENOSPC;
out:
	hwloc_bitmap_free(cpus);
	return ret;
}

static void pci_name(hwloc_obj_t o, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
		 o->attr->pcidev.dev, o->attr->pcidev.func);
}

static int node_of(struct raid_numa *nm, hwloc_obj_t o)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(nm->topo, o);
	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(anc->nodeset);
}

int raid_numa_blockdevs(struct raid_numa *nm, struct raid_numa_blockdev *out, int max)
{
	hwloc_obj_t o = NULL;
	int n = 0;
	while ((o = hwloc_get_next_osdev(nm->topo, o))) {
		if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_BLOCK)
			continue;
		if (n < max) {
			struct raid_numa_blockdev *b = &out[n];
			const char *model = hwloc_obj_get_info_by_name(o, "Model");
			hwloc_obj_t p, top = NULL;
			memset(b, 0, sizeof(*b));
			snprintf(b->name, sizeof(b->name), "%s", o->name ? o->name : "");
			snprintf(b->model, sizeof(b->model), "%s", model ? model : "");
			if (o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE)
				pci_name(o->parent, b->pci, sizeof(b->pci));
			/* The root port is the last PCI object (device or bridge) below the host
			 * bridge: drives behind one root port share its bandwidth. */
			for (p = o->parent;
			     p && (p->type == HWLOC_OBJ_PCI_DEVICE ||
				   (p->type == HWLOC_OBJ_BRIDGE &&
				    p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI));
			     p = p->parent)
				top = p;
			if (top && top->type == HWLOC_OBJ_PCI_DEVICE)
				pci_name(top, b->root_port, sizeof(b->root_port));
			else if (top)
				snprintf(b->root_port, sizeof(b->root_port), "%04x:%02x:%02x.%01x",
					 top->attr->bridge.upstream.pci.domain,
					 top->attr->bridge.upstream.pci.bus,
					 top->attr->bridge.upstream.pci.dev,
					 top->attr->bridge.upstream.pci.func);
			b->numa_node = node_of(nm, o);
		}
		n++;
	}
	return n;
}
