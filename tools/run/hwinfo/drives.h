/* tools/run/hwinfo/drives.h: the machine's drives as the kernel reports them, and the map of
 * a hardware profile's bays onto them.
 *
 * raid_drive_probe reads one block device's facts from sysfs (its NUMA node, the PCI
 * device it hangs off, serial, WWID, EUI-64) so that placement follows the drives the run
 * really uses, not only what a profile says. raid_bay_map is the decision alone (no I/O):
 * which drive each bay is, found by serial or PCI address, and where profile and machine
 * disagree; numa_test covers it. Errors are negative errno.
 */
#ifndef RAID_DRIVES_H
#define RAID_DRIVES_H

struct raid_drive {
	char name[64];	  /* kernel name of the whole disk, "nvme0n1" */
	char pci[32];	  /* PCI address of the nearest PCI device above it, "" if none */
	char serial[64];  /* the drive's (or its NVMe controller's) serial, trimmed */
	char eui64[24];	  /* 16 hex digits, "" when the namespace has none */
	char wwid[160];	  /* the kernel's wwid, "" if none */
	char model[128];  /* trimmed, "" if unknown */
	int numa_node;	  /* -1: the kernel does not tie it to one node */
	int partition;	  /* the path named a partition of this disk */
};

/* dev: a path (/dev/nvme0n1, a /dev/disk/by-id link, a partition) or a kernel name
 * ("nvme0n1"). -ENOTBLK for anything that is not a block device (a member file). md and
 * dm devices get the node of their members when all members share one. */
int raid_drive_probe(const char *dev, struct raid_drive *d);

/* The NVMe EUI-64 asked of the namespace itself (Identify Namespace): the kernel hides it in
 * sysfs for controllers it does not trust to make unique ones (QEMU's, NVME_QUIRK_BOGUS_NID).
 * Needs read access to /dev/NAME; out gets 16 hex digits or "" (none). */
int raid_drive_nvme_eui64(const char *name, char out[24]);

/* "0000:81:00.0": domain, bus, device, function as sysfs names a PCI device. */
int raid_pci_address_valid(const char *s);

/* A profile's bay as the map needs it: pci and serial may be NULL (not given). */
struct raid_bay_want {
	int bay;
	int numa_node;
	const char *pci;
	const char *serial;
};

#define RAID_BAY_NOT_FOUND 1	  /* no drive here has the bay's serial / PCI address */
#define RAID_BAY_NODE_DIFFERS 2	  /* found, on another NUMA node than the profile says */
#define RAID_BAY_PCI_DIFFERS 4	  /* found by serial, at another PCI address */
#define RAID_BAY_SERIAL_DIFFERS 8 /* found by PCI address, holding another serial */
#define RAID_BAY_TAKEN 16	  /* the drive found is already another bay's */

struct raid_bay_match {
	int drive;     /* index into the drives, -1: none (unmapped bay or not found) */
	int numa_node; /* the node to place by: the machine's when it knows, else the profile's */
	int flags;     /* RAID_BAY_* */
};

/* Bays with a serial are looked up by serial (it follows the drive when it moves), others
 * by PCI address; bays with neither stay unmapped (drive -1, no flag). */
int raid_bay_map(const struct raid_bay_want *bays, int nbays, const struct raid_drive *drives,
		 int ndrives, struct raid_bay_match *out);

#endif
