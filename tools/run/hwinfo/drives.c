/* tools/run/hwinfo/drives.c: a block device's facts from sysfs, and the bay map (drives.h).
 *
 * The NUMA node of a drive is the numa_node of the nearest PCI device above it in sysfs
 * (its NVMe controller, its HBA): what the kernel itself uses for its interrupts and
 * memory. An NVMe namespace under native multipath sits under /sys/devices/virtual; its
 * paths (multipath/) lead back to the controller, as an md or dm device's members
 * (slaves/) lead to theirs.
 */
#include "drives.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "raid/core/raid.h"

#define SYS_DEVICES "/sys/devices"

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* One sysfs attribute, first line, trimmed; -errno when it is not there. */
static int read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	trim(buf);
	return 0;
}

int raid_pci_address_valid(const char *s)
{
	unsigned dom, bus, dev, fn;
	int end = 0;
	return sscanf(s, "%4x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &end) == 4 &&
	       s[end] == 0 && end == 12;
}

/* The numa_node of the nearest device above sysfs directory dir that has one (an NVMe
 * controller says its PCI device's), and the address of the nearest PCI device above it into
 * pci; -2 when none has a node (a virtual device). */
static int node_above(const char *dir, char *pci, size_t len)
{
	char p[PATH_MAX], buf[32];
	char *slash;
	int node = -2;
	snprintf(p, sizeof(p), "%s", dir);
	for (;;) {
		const char *base = strrchr(p, '/') + 1;
		if (node == -2 && read_attr(p, "numa_node", buf, sizeof(buf)) == 0)
			node = atoi(buf);
		if (raid_pci_address_valid(base)) {
			snprintf(pci, len, "%s", base);
			return node;
		}
		slash = strrchr(p, '/');
		if (!slash || slash - p <= (ptrdiff_t)strlen(SYS_DEVICES))
			return node;
		*slash = 0;
	}
}

static int dir_node(const char *dir, char *pci, size_t len, int depth);

/* The node all the devices listed in dir/sub share (-1 when they differ or none knows). */
static int members_node(const char *dir, const char *sub, char *pci, size_t len, int depth)
{
	char p[PATH_MAX], member[PATH_MAX + 256], real[PATH_MAX], mpci[32];
	struct dirent *e;
	DIR *d;
	int node = -2;
	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	d = opendir(p);
	if (!d)
		return -2;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(member, sizeof(member), "%s/%s", p, e->d_name);
		if (!realpath(member, real))
			continue;
		mpci[0] = 0;
		int n = dir_node(real, mpci, sizeof(mpci), depth + 1);
		if (node == -2) {
			node = n;
			/* an NVMe path's controller is the drive's; an md array has no one PCI
			 * device */
			if (!strcmp(sub, "multipath"))
				snprintf(pci, len, "%s", mpci);
		} else if (n != node) {
			node = -1;
		}
	}
	closedir(d);
	return node;
}

static int dir_node(const char *dir, char *pci, size_t len, int depth)
{
	int n = node_above(dir, pci, len);
	if (n != -2 || depth > 4)
		return n;
	n = members_node(dir, "multipath", pci, len, depth);
	if (n == -2)
		n = members_node(dir, "slaves", pci, len, depth);
	return n;
}

int raid_drive_nvme_eui64(const char *name, char out[24])
{
	char path[96];
	int fd, ret;

	out[0] = 0;
	if (strchr(name, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = raid_nvme_eui64(fd, out);
	close(fd);
	return ret;
}

int raid_drive_probe(const char *dev, struct raid_drive *d)
{
	char sys[PATH_MAX], real[PATH_MAX], buf[160];
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->numa_node = -1;
	if (strchr(dev, '/')) {
		if (stat(dev, &st))
			return -errno;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
	} else {
		snprintf(sys, sizeof(sys), "/sys/class/block/%s", dev);
	}
	if (!realpath(sys, real))
		return -ENODEV;
	if (read_attr(real, "partition", buf, sizeof(buf)) == 0) {
		d->partition = 1;
		*strrchr(real, '/') = 0;
	}
	snprintf(d->name, sizeof(d->name), "%s", strrchr(real, '/') + 1);
	d->numa_node = dir_node(real, d->pci, sizeof(d->pci), 0);
	if (d->numa_node < 0)
		d->numa_node = -1;
	read_attr(real, "device/serial", d->serial, sizeof(d->serial));
	read_attr(real, "device/model", d->model, sizeof(d->model));
	if (read_attr(real, "wwid", d->wwid, sizeof(d->wwid)))
		read_attr(real, "device/wwid", d->wwid, sizeof(d->wwid));
	if (read_attr(real, "eui", buf, sizeof(buf)) == 0)
		raid_eui64_digits(buf, d->eui64);
	else
		raid_eui64_digits(d->wwid, d->eui64);
	if (!d->eui64[0] && !strncmp(d->name, "nvme", 4))
		raid_drive_nvme_eui64(d->name, d->eui64); /* none is an answer too */
	return 0;
}

/* The drive whose serial (by_serial) or PCI address is key. */
static int find(const struct raid_drive *drives, int n, int by_serial, const char *key)
{
	for (int j = 0; j < n; j++)
		if (by_serial ? !strcmp(drives[j].serial, key) : !strcasecmp(drives[j].pci, key))
			return j;
	return -1;
}

int raid_bay_map(const struct raid_bay_want *bays, int nbays, const struct raid_drive *drives,
		 int ndrives, struct raid_bay_match *out)
{
	if (nbays < 0 || ndrives < 0 || (nbays && !bays) || (ndrives && !drives))
		return -EINVAL;
	for (int i = 0; i < nbays; i++) {
		const struct raid_bay_want *b = &bays[i];
		const char *serial = b->serial && *b->serial ? b->serial : NULL;
		const char *pci = b->pci && *b->pci ? b->pci : NULL;
		struct raid_bay_match *m = &out[i];

		m->drive = -1;
		m->numa_node = b->numa_node;
		m->flags = 0;
		if (!serial && !pci)
			continue;
		if (serial)
			m->drive = find(drives, ndrives, 1, serial);
		/* not there by serial, but its slot holds a drive: another drive was put in */
		if (m->drive < 0 && pci && (m->drive = find(drives, ndrives, 0, pci)) >= 0 &&
		    serial)
			m->flags |= RAID_BAY_SERIAL_DIFFERS;
		if (m->drive < 0) {
			m->flags |= RAID_BAY_NOT_FOUND;
			continue;
		}
		const struct raid_drive *d = &drives[m->drive];
		if (serial && pci && !(m->flags & RAID_BAY_SERIAL_DIFFERS) && strcasecmp(d->pci, pci))
			m->flags |= RAID_BAY_PCI_DIFFERS;
		for (int k = 0; k < i; k++)
			if (out[k].drive == m->drive)
				m->flags |= RAID_BAY_TAKEN;
		if (d->numa_node >= 0) {
			if (d->numa_node != b->numa_node)
				m->flags |= RAID_BAY_NODE_DIFFERS;
			m->numa_node = d->numa_node;
		}
	}
	return 0;
}
