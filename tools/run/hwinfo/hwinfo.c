/* tools/run/hwinfo/hwinfo.c: raid-hwinfo, the host side of run.sh.
 *
 *   raid-hwinfo facts                    host facts as JSON (run.json's "host")
 *   raid-hwinfo host-profile             a hardware profile of this machine (hw-profiles schema)
 *   raid-hwinfo check PROFILE            validate a profile; one line per error
 *   raid-hwinfo layout PROFILE [NAME]    the named array layouts, or one of them, as lines
 *   raid-hwinfo place PROFILE BAYS       placement of an array on bays "4,5,6": key=value lines
 *   raid-hwinfo drives [DEV...]          the machine's drives (or those named): node, PCI, serial,
 *                                        EUI-64, as JSON
 *   raid-hwinfo place-drives DEV,DEV...  placement of an array on these block devices, from the
 *                                        kernel's NUMA node of each: place's key=value lines
 *   raid-hwinfo map PROFILE              which drive each bay with a "serial" or "pci" is here,
 *                                        and every place where profile and machine disagree
 *
 * --xml FILE / --synthetic STR (before the command) replace this machine's topology, which is
 * how the tests ask for the decisions on the published hosts. Profiles are read with json-c;
 * placement comes from numa.c, the drives' facts and the bay map from drives.c. A profile
 * whose bays name a serial or PCI address is placed by the node the kernel gives the drive
 * found there (on this machine's topology only).
 */
#include "drives.h"
#include "numa.h"
#include "raid/core/raid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#define MAX_BAYS 256

static const char *prog = "raid-hwinfo";

struct profile {
	const char *path;
	json_object *root;
	int sockets;
	int nbays;
	int bay_id[MAX_BAYS];
	int bay_node[MAX_BAYS];
	const char *bay_pci[MAX_BAYS];	  /* "" when not given */
	const char *bay_serial[MAX_BAYS]; /* "" when not given */
	int mapped;			  /* some bay names a pci or serial */
	int errors;
};

static void perr(struct profile *p, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: profile %s: ", prog, p->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	p->errors++;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static int get_int(json_object *o, const char *key, int *out)
{
	json_object *v = get(o, key, json_type_int);
	if (!v)
		return -EINVAL;
	*out = json_object_get_int(v);
	return 0;
}

static int bay_index(struct profile *p, int bay)
{
	for (int i = 0; i < p->nbays; i++)
		if (p->bay_id[i] == bay)
			return i;
	return -1;
}

/* Checks one array of a layout; marks its bays in used[] so overlaps are caught. */
static void check_array(struct profile *p, const char *lname, int ai, json_object *a, char *used)
{
	json_object *bays = get(a, "bays", json_type_array);
	struct raid_level_info l;
	char levels[64];
	int level, n;
	if (!get(a, "name", json_type_string))
		perr(p, "arrays.%s.arrays[%d].name: missing or not a string", lname, ai);
	/* the engine's level table decides what an array can be */
	if (get_int(a, "level", &level) || raid_level_get(level, &l)) {
		raid_option_values(raid_option_find("raid_level"), levels, sizeof(levels));
		perr(p, "arrays.%s.arrays[%d].level: must be one of %s", lname, ai, levels);
		return;
	}
	if (!bays) {
		perr(p, "arrays.%s.arrays[%d].bays: missing or not an array", lname, ai);
		return;
	}
	n = json_object_array_length(bays);
	if (n < l.min_members)
		perr(p, "arrays.%s.arrays[%d]: RAID%d cannot be built from %d bays (at least %d)",
		     lname, ai, level, n, l.min_members);
	for (int i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(bays, i);
		int idx = json_object_is_type(b, json_type_int)
			      ? bay_index(p, json_object_get_int(b))
			      : -1;
		if (idx < 0) {
			perr(p, "arrays.%s.arrays[%d].bays[%d]: not a bay of this profile", lname,
			     ai, i);
			continue;
		}
		if (used[idx]++)
			perr(p, "arrays.%s: bay %d is used twice", lname, p->bay_id[idx]);
	}
}

static void check_layouts(struct profile *p)
{
	json_object *arrays = get(p->root, "arrays", json_type_object);
	if (!arrays) {
		perr(p, "arrays: missing or not an object of named layouts");
		return;
	}
	json_object_object_foreach(arrays, lname, layout)
	{
		char used[MAX_BAYS] = {0};
		json_object *list = get(layout, "arrays", json_type_array);
		json_object *spares = get(layout, "spares", json_type_array);
		if (!list || !json_object_array_length(list)) {
			perr(p, "arrays.%s.arrays: missing or empty", lname);
			continue;
		}
		for (size_t i = 0; i < json_object_array_length(list); i++)
			check_array(p, lname, i, json_object_array_get_idx(list, i), used);
		for (size_t i = 0; spares && i < json_object_array_length(spares); i++) {
			json_object *b = json_object_array_get_idx(spares, i);
			int idx = json_object_is_type(b, json_type_int)
				      ? bay_index(p, json_object_get_int(b))
				      : -1;
			if (idx < 0)
				perr(p, "arrays.%s.spares[%zu]: not a bay of this profile", lname,
				     i);
			else if (used[idx]++)
				perr(p, "arrays.%s: spare bay %d is also an array member", lname,
				     p->bay_id[idx]);
		}
	}
}

/* Loads and validates; every problem is reported (a user fixes them all in one go). */
static int profile_load(struct profile *p, const char *path)
{
	json_object *nodes, *bays, *drives;
	int node_socket[RAID_NUMA_MAX_NODES];

	memset(p, 0, sizeof(*p));
	p->path = path;
	for (int i = 0; i < RAID_NUMA_MAX_NODES; i++)
		node_socket[i] = -1;
	p->root = json_object_from_file(path);
	if (!p->root) {
		perr(p, "cannot read it as JSON (%s)", json_util_get_last_err());
		return -EINVAL;
	}
	if (!json_object_is_type(p->root, json_type_object)) {
		perr(p, "the top level must be an object");
		return -EINVAL;
	}
	if (!get(p->root, "name", json_type_string))
		perr(p, "name: missing or not a string");
	if (get_int(p->root, "sockets", &p->sockets) || p->sockets < 1)
		perr(p, "sockets: missing or not a positive integer");
	nodes = get(p->root, "numa_nodes", json_type_array);
	if (!nodes || !json_object_array_length(nodes))
		perr(p, "numa_nodes: missing or empty");
	for (size_t i = 0; nodes && i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		int node, sock;
		if (get_int(n, "node", &node) || node < 0 || node >= RAID_NUMA_MAX_NODES) {
			perr(p, "numa_nodes[%zu].node: missing or out of range", i);
			continue;
		}
		if (get_int(n, "socket", &sock) || sock < 0 || sock >= p->sockets)
			perr(p, "numa_nodes[%zu].socket: missing or not below sockets", i);
		else if (node_socket[node] >= 0)
			perr(p, "numa_nodes[%zu]: node %d listed twice", i, node);
		else
			node_socket[node] = sock;
	}
	drives = get(p->root, "drives", json_type_object);
	if (!drives)
		perr(p, "drives: missing or not an object of drive models");
	bays = get(p->root, "bays", json_type_array);
	if (!bays || !json_object_array_length(bays))
		perr(p, "bays: missing or empty");
	for (size_t i = 0; bays && i < json_object_array_length(bays); i++) {
		json_object *b = json_object_array_get_idx(bays, i);
		json_object *drive = get(b, "drive", json_type_string);
		int id, node;
		if (p->nbays == MAX_BAYS) {
			perr(p, "bays: more than %d", MAX_BAYS);
			break;
		}
		if (get_int(b, "bay", &id) || id < 0) {
			perr(p, "bays[%zu].bay: missing or negative", i);
			continue;
		}
		if (bay_index(p, id) >= 0)
			perr(p, "bays[%zu]: bay %d listed twice", i, id);
		if (get_int(b, "numa_node", &node) || node < 0 || node >= RAID_NUMA_MAX_NODES ||
		    node_socket[node] < 0) {
			perr(p, "bays[%zu].numa_node: missing or not one of numa_nodes", i);
			node = -1;
		}
		if (!get(b, "root_port", json_type_string))
			perr(p, "bays[%zu].root_port: missing or not a string", i);
		/* the bay map: optional, "" is "not given" (a generated profile's non-PCI disk) */
		json_object *pci = get(b, "pci", json_type_string);
		json_object *serial = get(b, "serial", json_type_string);
		const char *ps = pci ? json_object_get_string(pci) : "";
		if ((json_object_object_get_ex(b, "pci", NULL) && !pci) ||
		    (*ps && !raid_pci_address_valid(ps)))
			perr(p, "bays[%zu].pci: not a PCI address as 0000:81:00.0", i);
		if (json_object_object_get_ex(b, "serial", NULL) && !serial)
			perr(p, "bays[%zu].serial: not a string", i);
		p->bay_pci[p->nbays] = ps;
		p->bay_serial[p->nbays] = serial ? json_object_get_string(serial) : "";
		p->mapped |= *p->bay_pci[p->nbays] || *p->bay_serial[p->nbays];
		if (!drive || !get(drives, json_object_get_string(drive), json_type_object))
			perr(p, "bays[%zu].drive: missing or not one of drives", i);
		p->bay_id[p->nbays] = id;
		p->bay_node[p->nbays++] = node;
	}
	json_object *gpu = get(p->root, "gpu", json_type_object);
	int gnode;
	if (gpu && !get_int(gpu, "numa_node", &gnode) &&
	    (gnode < 0 || gnode >= RAID_NUMA_MAX_NODES || node_socket[gnode] < 0))
		perr(p, "gpu.numa_node: not one of numa_nodes");
	if (!p->errors)
		check_layouts(p);
	return p->errors ? -EINVAL : 0;
}

static int open_topo(struct raid_numa **nm, const char *xml, const char *syn, int flags)
{
	int ret = raid_numa_open(nm, xml, syn, flags);
	if (ret)
		fprintf(stderr, "%s: cannot load the %s topology%s%s\n", prog,
			xml   ? "XML"
			: syn ? "synthetic"
			      : "host's",
			xml   ? " "
			: syn ? " "
			      : "",
			xml   ? xml
			: syn ? syn
			      : "");
	return ret;
}

static json_object *facts_json(struct raid_numa *nm)
{
	struct raid_numa_facts f;
	struct utsname u;
	json_object *o = json_object_new_object();
	raid_numa_facts(nm, &f);
	json_object_object_add(o, "cpu_model", json_object_new_string(f.cpu_model));
	json_object_object_add(o, "sockets", json_object_new_int(f.sockets));
	json_object_object_add(o, "numa_nodes", json_object_new_int(f.numa_nodes));
	json_object_object_add(o, "cores", json_object_new_int(f.cores));
	json_object_object_add(o, "pus", json_object_new_int(f.pus));
	json_object_object_add(o, "memory_bytes", json_object_new_int64(f.memory_bytes));
	if (uname(&u) == 0) {
		json_object_object_add(o, "hostname", json_object_new_string(u.nodename));
		json_object_object_add(o, "kernel", json_object_new_string(u.release));
		json_object_object_add(o, "arch", json_object_new_string(u.machine));
	}
	return o;
}

static void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static int cmd_host_profile(struct raid_numa *nm)
{
	struct raid_numa_facts f;
	struct raid_numa_blockdev devs[MAX_BAYS];
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	json_object *bays = json_object_new_array(), *drives = json_object_new_object();
	json_object *spec = json_object_new_object();
	char cpus[RAID_NUMA_CPUS_LEN];
	struct raid_drive d;
	int n, node, seen = 0;

	raid_numa_facts(nm, &f);
	json_object_object_add(o, "name", json_object_new_string("host"));
	json_object_object_add(o, "description",
			       json_object_new_string("generated by raid-hwinfo from this "
						      "machine's hwloc topology"));
	json_object_object_add(o, "sockets", json_object_new_int(f.sockets ? f.sockets : 1));
	for (node = 0; seen < f.numa_nodes && node < RAID_NUMA_MAX_NODES; node++) {
		if (raid_numa_node_cpus(nm, node, cpus, sizeof(cpus)))
			continue;
		json_object *n = json_object_new_object();
		int sock = raid_numa_node_socket(nm, node);
		json_object_object_add(n, "node", json_object_new_int(node));
		json_object_object_add(n, "socket", json_object_new_int(sock < 0 ? 0 : sock));
		json_object_object_add(n, "cores",
				       json_object_new_int(raid_numa_node_cores(nm, node)));
		json_object_object_add(n, "cpus", json_object_new_string(cpus));
		json_object_array_add(nodes, n);
		seen++;
	}
	json_object_object_add(o, "numa_nodes", nodes);
	json_object_object_add(o, "cpu", facts_json(nm));
	json_object_object_add(spec, "note",
			       json_object_new_string("spec figures unknown for a generated "
						      "profile"));
	json_object_object_add(drives, "host-disk", spec);
	json_object_object_add(o, "drives", drives);
	n = raid_numa_blockdevs(nm, devs, MAX_BAYS);
	/* A machine without visible block devices still gets one bay so that scratch member
	 * files map somewhere: node of the first NUMA node. */
	for (int i = 0; i < (n > MAX_BAYS ? MAX_BAYS : n); i++) {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "bay", json_object_new_int(i));
		json_object_object_add(b, "device", json_object_new_string(devs[i].name));
		json_object_object_add(
		    b, "numa_node",
		    json_object_new_int(devs[i].numa_node < 0 ? 0 : devs[i].numa_node));
		json_object_object_add(b, "pci", json_object_new_string(devs[i].pci));
		/* the serial maps the bay to its drive wherever it moves (raid-hwinfo map) */
		if (!raid_drive_probe(devs[i].name, &d) && *d.serial)
			json_object_object_add(b, "serial", json_object_new_string(d.serial));
		json_object_object_add(b, "root_port", json_object_new_string(devs[i].root_port));
		json_object_object_add(b, "model", json_object_new_string(devs[i].model));
		json_object_object_add(b, "drive", json_object_new_string("host-disk"));
		json_object_array_add(bays, b);
	}
	if (n == 0) {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "bay", json_object_new_int(0));
		json_object_object_add(b, "numa_node", json_object_new_int(0));
		json_object_object_add(b, "root_port", json_object_new_string(""));
		json_object_object_add(b, "drive", json_object_new_string("host-disk"));
		json_object_array_add(bays, b);
	}
	json_object_object_add(o, "bays", bays);
	json_object_object_add(o, "gpu", NULL);
	json_object_object_add(o, "arrays", json_object_new_object());
	print_json(o);
	return 0;
}

static int cmd_layout(struct profile *p, const char *want)
{
	json_object *arrays = get(p->root, "arrays", json_type_object);
	int found = 0;
	json_object_object_foreach(arrays, lname, layout)
	{
		json_object *list = get(layout, "arrays", json_type_array);
		json_object *spares = get(layout, "spares", json_type_array);
		if (want && strcmp(want, lname))
			continue;
		found = 1;
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *a = json_object_array_get_idx(list, i);
			json_object *bays = get(a, "bays", json_type_array);
			printf("array %s %s %d ", lname,
			       json_object_get_string(get(a, "name", json_type_string)),
			       json_object_get_int(get(a, "level", json_type_int)));
			for (size_t j = 0; j < json_object_array_length(bays); j++)
				printf("%s%d", j ? "," : "",
				       json_object_get_int(json_object_array_get_idx(bays, j)));
			putchar('\n');
		}
		printf("spares %s ", lname);
		for (size_t j = 0; spares && j < json_object_array_length(spares); j++)
			printf("%s%d", j ? "," : "",
			       json_object_get_int(json_object_array_get_idx(spares, j)));
		putchar('\n');
	}
	if (want && !found) {
		fprintf(stderr, "%s: profile %s has no array layout named '%s'\n", prog, p->path,
			want);
		return 1;
	}
	return 0;
}

/* place's key=value lines for an array whose members sit on nodes[0..n) (-1: unknown). One
 * warning= line at most (run.sh keeps the last): where is the profile, or "" for the drives;
 * note is added to it (members of unknown node, profile and machine disagreeing). */
static int print_place(struct raid_numa *nm, const int *nodes, int n, const char *where,
		       const char *note)
{
	struct raid_numa_place pl;
	struct raid_numa_facts f;
	char warn[1024] = "";
	if (raid_numa_place(nm, nodes, n, &pl)) {
		fprintf(stderr, "%s: place: cannot compute a placement\n", prog);
		return 1;
	}
	raid_numa_facts(nm, &f);
	printf("nodes=%s\nhome=%d\nsockets=%d\nspans_sockets=%d\npin=%d\ncpus=%s\n", pl.node_list,
	       pl.home, pl.nsockets, pl.spans_sockets, pl.pin, pl.cpus);
	printf("mem_policy=%s%d\n", pl.pin && pl.nnodes == 1 ? "bind:" : "",
	       pl.pin && pl.nnodes == 1 ? pl.home : -1);
	if (pl.missing_node >= 0)
		snprintf(warn, sizeof(warn),
			 "%s%s%s NUMA node %d, which this host (%d node%s) lacks: jobs not pinned",
			 *where ? "profile " : "", where,
			 *where ? " places bays on" : "the drives sit on", pl.missing_node,
			 f.numa_nodes, f.numa_nodes == 1 ? "" : "s");
	else if (pl.spans_sockets)
		snprintf(warn, sizeof(warn),
			 "array spans %d sockets (NUMA nodes %s): member I/O crosses the socket link",
			 pl.nsockets, pl.node_list);
	else if (pl.nnodes > 1)
		snprintf(warn, sizeof(warn),
			 "array spans NUMA nodes %s of one socket: member I/O crosses nodes",
			 pl.node_list);
	else if (!pl.nnodes)
		snprintf(warn, sizeof(warn), "no member's NUMA node is known: jobs not pinned");
	if (*note)
		printf("warning=%s%s%s\n", warn, *warn ? "; " : "", note);
	else if (*warn)
		printf("warning=%s\n", warn);
	return 0;
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;
	if (off >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* The machine's drives: the block devices hwloc finds, each read from sysfs. */
static int machine_drives(struct raid_drive *out, int max)
{
	struct raid_numa_blockdev devs[MAX_BAYS];
	struct raid_numa *io;
	int n, k = 0;
	if (open_topo(&io, NULL, NULL, RAID_NUMA_IO))
		return -1;
	n = raid_numa_blockdevs(io, devs, MAX_BAYS);
	for (int i = 0; i < n && i < MAX_BAYS && k < max; i++)
		if (!raid_drive_probe(devs[i].name, &out[k])) {
			if (out[k].numa_node < 0)
				out[k].numa_node = devs[i].numa_node;
			k++;
		}
	raid_numa_close(io);
	return k;
}

/* The profile's bays on this machine's drives; -1 when the machine's cannot be read. */
static int profile_map(struct profile *p, struct raid_drive *drives, int *ndrives,
		       struct raid_bay_match *m)
{
	struct raid_bay_want want[MAX_BAYS];
	*ndrives = machine_drives(drives, MAX_BAYS);
	if (*ndrives < 0)
		return -1;
	for (int i = 0; i < p->nbays; i++)
		want[i] = (struct raid_bay_want){p->bay_id[i], p->bay_node[i], p->bay_pci[i],
						 p->bay_serial[i]};
	return raid_bay_map(want, p->nbays, drives, *ndrives, m);
}

/* What is wrong with bay i's match, in words ("" when nothing). */
static void disagreement(struct profile *p, int i, const struct raid_bay_match *m,
			 const struct raid_drive *drives, char *buf, size_t len)
{
	const struct raid_drive *d = m->drive >= 0 ? &drives[m->drive] : NULL;
	buf[0] = 0;
	if (m->flags & RAID_BAY_NOT_FOUND)
		appendf(buf, len, "bay %d: no drive here has %s%s%s%s%s", p->bay_id[i],
			*p->bay_serial[i] ? "serial " : "", p->bay_serial[i],
			*p->bay_serial[i] && *p->bay_pci[i] ? " or " : "",
			*p->bay_pci[i] ? "PCI address " : "", p->bay_pci[i]);
	if (m->flags & RAID_BAY_SERIAL_DIFFERS)
		appendf(buf, len, "bay %d: %s at %s holds serial %s, the profile says %s",
			p->bay_id[i], d->name, d->pci, d->serial, p->bay_serial[i]);
	if (m->flags & RAID_BAY_PCI_DIFFERS)
		appendf(buf, len, "%sbay %d: serial %s is %s at %s, the profile says %s",
			*buf ? "; " : "", p->bay_id[i], d->serial, d->name, d->pci,
			p->bay_pci[i]);
	if (m->flags & RAID_BAY_TAKEN)
		appendf(buf, len, "%sbay %d: %s is another bay's drive too", *buf ? "; " : "",
			p->bay_id[i], d->name);
	if (m->flags & RAID_BAY_NODE_DIFFERS)
		appendf(buf, len, "%sbay %d: %s is on NUMA node %d here, the profile says %d",
			*buf ? "; " : "", p->bay_id[i], d->name, d->numa_node, p->bay_node[i]);
}

static int cmd_place(struct profile *p, struct raid_numa *nm, const char *list, int machine)
{
	int nodes[MAX_BAYS], idx[MAX_BAYS], n = 0, nd;
	struct raid_drive drives[MAX_BAYS];
	struct raid_bay_match m[MAX_BAYS];
	char *dup = strdup(list), *save = NULL, *tok, *end, note[1024] = "", d[512];

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long bay = strtol(tok, &end, 10);
		int i = (*end || end == tok || n == MAX_BAYS) ? -1 : bay_index(p, bay);
		if (i < 0) {
			fprintf(stderr, "%s: profile %s has no bay '%s'\n", prog, p->path, tok);
			free(dup);
			return 1;
		}
		idx[n] = i;
		nodes[n++] = p->bay_node[i];
	}
	free(dup);
	if (!n) {
		fprintf(stderr, "%s: place: no bays given\n", prog);
		return 1;
	}
	/* bays that name their drive are placed by the node the kernel gives it */
	if (machine && p->mapped && profile_map(p, drives, &nd, m) == 0)
		for (int j = 0; j < n; j++) {
			nodes[j] = m[idx[j]].numa_node;
			disagreement(p, idx[j], &m[idx[j]], drives, d, sizeof(d));
			if (*d)
				appendf(note, sizeof(note), "%s%s", *note ? "; " : "", d);
		}
	return print_place(nm, nodes, n, p->path, note);
}

static int cmd_place_drives(struct raid_numa *nm, const char *list)
{
	int nodes[MAX_BAYS], n = 0, ret;
	char *dup = strdup(list), *save = NULL, *tok, note[1024] = "", members[4096] = "";
	struct raid_drive d;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_BAYS) {
			fprintf(stderr, "%s: place-drives: more than %d drives\n", prog, MAX_BAYS);
			free(dup);
			return 1;
		}
		ret = raid_drive_probe(tok, &d);
		if (ret && ret != -ENOTBLK) {
			fprintf(stderr, "%s: place-drives: %s: %s\n", prog, tok, strerror(-ret));
			free(dup);
			return 1;
		}
		if (!ret && d.numa_node < 0)
			d.numa_node = raid_numa_only_node(nm);
		nodes[n++] = d.numa_node;
		appendf(members, sizeof(members), "%s%s:%d", n > 1 ? "," : "", tok, d.numa_node);
		if (ret == -ENOTBLK || d.numa_node < 0)
			appendf(note, sizeof(note), "%s%s: %s", *note ? "; " : "", tok,
				ret ? "not a block device, its NUMA node is unknown"
				    : "the kernel ties it to no NUMA node");
	}
	free(dup);
	if (!n) {
		fprintf(stderr, "%s: place-drives: no drives given\n", prog);
		return 1;
	}
	printf("members=%s\n", members);
	return print_place(nm, nodes, n, "", note);
}

static json_object *drive_json(const char *as_given, const struct raid_drive *d)
{
	json_object *o = json_object_new_object();
	if (as_given)
		json_object_object_add(o, "path", json_object_new_string(as_given));
	json_object_object_add(o, "dev", json_object_new_string(d->name));
	json_object_object_add(o, "numa_node", json_object_new_int(d->numa_node));
	json_object_object_add(o, "pci", json_object_new_string(d->pci));
	json_object_object_add(o, "serial", json_object_new_string(d->serial));
	json_object_object_add(o, "eui64", json_object_new_string(d->eui64));
	json_object_object_add(o, "wwid", json_object_new_string(d->wwid));
	json_object_object_add(o, "model", json_object_new_string(d->model));
	if (as_given)
		json_object_object_add(o, "partition", json_object_new_boolean(d->partition));
	return o;
}

static int cmd_drives(struct raid_numa *nm, char **devs, int n)
{
	struct raid_drive drives[MAX_BAYS];
	json_object *a = json_object_new_array();
	int k, ret;
	if (!n) {
		k = machine_drives(drives, MAX_BAYS);
		for (int i = 0; i < k; i++)
			json_object_array_add(a, drive_json(NULL, &drives[i]));
	}
	for (int i = 0; i < n; i++) {
		ret = raid_drive_probe(devs[i], &drives[0]);
		if (ret) {
			fprintf(stderr, "%s: drives: %s: %s\n", prog, devs[i],
				ret == -ENOTBLK ? "not a block device" : strerror(-ret));
			json_object_put(a);
			return 1;
		}
		if (drives[0].numa_node < 0)
			drives[0].numa_node = raid_numa_only_node(nm);
		json_object_array_add(a, drive_json(devs[i], &drives[0]));
	}
	print_json(a);
	return 0;
}

static int cmd_map(struct profile *p)
{
	struct raid_drive drives[MAX_BAYS];
	struct raid_bay_match m[MAX_BAYS];
	char claimed[MAX_BAYS] = {0}, d[512];
	int nd, ndis = 0;
	if (profile_map(p, drives, &nd, m)) {
		fprintf(stderr, "%s: map: cannot read this machine's drives\n", prog);
		return 1;
	}
	for (int i = 0; i < p->nbays; i++) {
		const struct raid_drive *dr = m[i].drive >= 0 ? &drives[m[i].drive] : NULL;
		if (dr)
			claimed[m[i].drive] = 1;
		printf("bay=%d dev=%s node=%d by=%s pci=%s serial=%s eui64=%s\n", p->bay_id[i],
		       dr ? dr->name : "-", m[i].numa_node,
		       !dr			 ? "profile"
		       : *p->bay_serial[i] &&
			       !(m[i].flags & RAID_BAY_SERIAL_DIFFERS) ? "serial"
								       : "pci",
		       dr ? dr->pci : p->bay_pci[i], dr ? dr->serial : p->bay_serial[i],
		       dr ? dr->eui64 : "");
	}
	for (int i = 0; i < p->nbays; i++) {
		disagreement(p, i, &m[i], drives, d, sizeof(d));
		if (*d) {
			printf("disagree=%s\n", d);
			ndis++;
		}
	}
	if (p->mapped)
		for (int j = 0; j < nd; j++)
			if (!claimed[j])
				printf("unclaimed=%s node=%d pci=%s serial=%s\n", drives[j].name,
				       drives[j].numa_node, drives[j].pci, drives[j].serial);
	printf("disagreements=%d\n", ndis);
	return 0;
}

static int usage(FILE *to)
{
	fprintf(to,
		"usage: %s [--xml FILE | --synthetic STR] facts | host-profile | "
		"check PROFILE | layout PROFILE [NAME] | place PROFILE BAY,BAY,... | "
		"drives [DEV...] | place-drives DEV,DEV,... | map PROFILE\n",
		prog);
	return to == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	const char *xml = NULL, *syn = NULL;
	struct raid_numa *nm = NULL;
	struct profile p;
	int i = 1, ret;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--xml"))
			xml = argv[i + 1];
		else if (!strcmp(argv[i], "--synthetic"))
			syn = argv[i + 1];
		else
			break;
	}
	if (i >= argc)
		return usage(stderr);
	const char *cmd = argv[i++];
	int nargs = argc - i;
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return usage(stdout);
	if (!strcmp(cmd, "facts") && nargs == 0) {
		if (open_topo(&nm, xml, syn, 0))
			return 1;
		print_json(facts_json(nm));
		raid_numa_close(nm);
		return 0;
	}
	if (!strcmp(cmd, "host-profile") && nargs == 0) {
		if (open_topo(&nm, xml, syn, RAID_NUMA_IO))
			return 1;
		ret = cmd_host_profile(nm);
		raid_numa_close(nm);
		return ret;
	}
	if (!strcmp(cmd, "drives")) {
		if (open_topo(&nm, NULL, NULL, 0))
			return 1;
		ret = cmd_drives(nm, argv + i, nargs);
		raid_numa_close(nm);
		return ret;
	}
	if (!strcmp(cmd, "place-drives") && nargs == 1) {
		if (open_topo(&nm, xml, syn, 0))
			return 1;
		ret = cmd_place_drives(nm, argv[i]);
		raid_numa_close(nm);
		return ret;
	}
	if (nargs < 1 || (strcmp(cmd, "check") && strcmp(cmd, "layout") && strcmp(cmd, "place") &&
			  strcmp(cmd, "map")))
		return usage(stderr);
	if (profile_load(&p, argv[i])) {
		json_object_put(p.root);
		return 1;
	}
	if (!strcmp(cmd, "check") && nargs == 1) {
		printf("%s: ok, %d bays\n", argv[i], p.nbays);
		ret = 0;
	} else if (!strcmp(cmd, "layout") && nargs <= 2) {
		ret = cmd_layout(&p, nargs == 2 ? argv[i + 1] : NULL);
	} else if (!strcmp(cmd, "place") && nargs == 2) {
		ret = open_topo(&nm, xml, syn, 0) ? 1
						  : cmd_place(&p, nm, argv[i + 1], !xml && !syn);
		raid_numa_close(nm);
	} else if (!strcmp(cmd, "map") && nargs == 1) {
		ret = cmd_map(&p);
	} else {
		ret = usage(stderr);
	}
	json_object_put(p.root);
	return ret;
}
