/* tools/raid_mdadm.c: raid-mdadm, the mdadm line that reads an engine array with Linux md
 * (docs/md.md). It takes the engine's own options, parsed and checked by the engine's
 * config code, and prints the `mdadm --create` line with the same level, member order,
 * chunk, layout and data area:
 *
 *   raid-mdadm [--md DEV] [--volume] raid_level=5 raid_members=a:b:c raid_chunk=64k ...
 *
 * `--volume` prints the engine's volume size in bytes instead (what md's array must hold).
 * The members must exist (a failed one, raid_failed, need not: it becomes `missing`).
 * md reads the data at offset 0 only with the 1.0 superblock (at the end of each member);
 * --assume-clean keeps md from resyncing what the engine wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raid/core/raid.h"

static const char *prog = "raid-mdadm";

static int usage(void)
{
	fprintf(stderr, "usage: %s [--md DEV] [--volume] raid_level=L raid_members=A:B:... "
			"[raid_chunk= raid_layout= raid_member_size= raid_failed=]\n",
		prog);
	return 2;
}

/*
 * md's per-member data area, in bytes, behind the engine's volume of `vsize` bytes: the
 * volume's chunks times their copies over the members that hold data, rounded up (RAID10
 * near2 over an odd count ends half a row in). From the level table's facts.
 */
static uint64_t member_data(const struct raid_config *c, const struct raid_level_info *l,
			    uint64_t vsize)
{
	int n = c->nmembers;
	uint64_t copies = l->copies == RAID_ALL_MEMBERS ? (uint64_t)n : (uint64_t)l->copies;
	uint64_t data = (uint64_t)(n - l->parity);

	if (!l->uses_chunk)
		return vsize * copies / data;
	return (vsize / c->chunk * copies + data - 1) / data * c->chunk;
}

#define KiB UINT64_C(1024)
#define GiB (1024 * 1024 * KiB)

/*
 * Bytes md keeps after the data area of a member of `size` bytes with the 1.0 superblock,
 * measured with mdadm 4.2 on Linux 6.1 (docs/md.md): 12 KiB for RAID0; otherwise the
 * superblock, 4 KiB, and room for a bitmap that grows with the device (16 KiB in all at
 * 16 MiB and 8 GiB, 76 KiB at 9 and 200 GiB, 140 KiB at 1 TiB). Between the measured
 * sizes the larger figure is taken.
 */
static uint64_t md_reserve(int level, uint64_t size)
{
	if (level == 0)
		return 12 * KiB;
	if (size <= 8 * GiB + 20 * KiB)
		return 16 * KiB;
	if (size <= 200 * GiB + 128 * KiB)
		return 76 * KiB;
	return 140 * KiB;
}

static int device_bytes(const char *path, uint64_t *out)
{
	struct stat st;
	int fd, ret = 0;

	if (stat(path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode)) {
		*out = (uint64_t)st.st_size;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, out))
		ret = -errno;
	close(fd);
	return ret;
}

/* Does md find the engine's data area (`data` bytes at offset 0) on every member? */
static int check_room(const struct raid_config *c, uint64_t data, char *err, size_t errlen)
{
	uint64_t align = c->level == 1 ? 4 * KiB : c->chunk;

	for (int i = 0; i < c->nmembers; i++) {
		uint64_t size, res, fit;
		int ret;

		if (c->failed >> i & 1)
			continue;
		ret = device_bytes(c->members[i], &size);
		if (ret == -ENOENT && c->member_size) { /* not made yet: say what it must hold */
			res = md_reserve(c->level, data + 140 * KiB);
			fprintf(stderr,
				"%s: raid_members: %s does not exist yet: make it at least %" PRIu64
				" bytes (the engine's %" PRIu64 " and %" PRIu64
				" KiB for md's superblock)\n",
				prog, c->members[i], data + res, data, res / KiB);
			continue;
		}
		if (ret) {
			snprintf(err, errlen, "%s: raid_members: %s: %s", prog, c->members[i],
				 strerror(-ret));
			return ret;
		}
		res = md_reserve(c->level, size);
		if (size >= data + res)
			continue;
		fit = size > res ? (size - res) / align * align : 0;
		snprintf(err, errlen,
			 "%s: raid_members: %s holds %" PRIu64 " bytes: md keeps the last %" PRIu64
			 " KiB for its superblock, leaving %" PRIu64
			 " for data, less than the engine's %" PRIu64
			 " (run the engine with raid_member_size=%" PRIu64 ")",
			 prog, c->members[i], size, res / KiB, fit, data, fit);
		return -ENOSPC;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct raid_config c;
	char err[RAID_ERRLEN] = "";
	const char *md = "/dev/md0";
	bool volume = false;
	struct raid_level_info l;
	const char *layout;
	uint64_t vsize, data;
	int ret = 1;

	raid_config_init(&c);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char name[64];
		const char *eq;

		if (!strcmp(a, "--md") && i + 1 < argc) {
			md = argv[++i];
			continue;
		}
		if (!strcmp(a, "--volume")) {
			volume = true;
			continue;
		}
		a += strspn(a, "-"); /* fio's --raid_level=5 spelling too */
		eq = strchr(a, '=');
		if (!eq || (size_t)(eq - a) >= sizeof(name)) {
			raid_config_free(&c);
			return usage();
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
		if (raid_config_set(&c, name, eq + 1, err, sizeof(err)))
			goto out;
	}
	if (raid_config_validate(&c, err, sizeof(err)))
		goto out;
	/*
	 * raid_probe would create missing members of raid_member_size: this only reads. A
	 * member not made yet is sized by raid_member_size (the in-memory backend's probe
	 * never creates files), so the line can be printed before the devices exist.
	 */
	for (int i = 0; i < c.nmembers; i++) {
		struct stat st;

		if (!(c.failed >> i & 1) && stat(c.members[i], &st)) {
			if (errno == ENOENT && c.member_size) {
				raid_config_set(&c, "raid_backend", "ram", err, sizeof(err));
				continue;
			}
			snprintf(err, sizeof(err), "%s: raid_members: %s: %s%s", prog, c.members[i],
				 strerror(errno),
				 errno == ENOENT ? " (give raid_member_size for devices not made yet)"
						 : "");
			goto out;
		}
	}
	if (raid_probe(&c, &vsize, err, sizeof(err)))
		goto out;
	if (volume) {
		printf("%" PRIu64 "\n", vsize);
		ret = 0;
		goto out;
	}
	raid_level_get(c.level, &l); /* validated: the level exists */
	data = member_data(&c, &l, vsize);
	if (check_room(&c, data, err, sizeof(err)))
		goto out;
	printf("mdadm --create %s --run --metadata=1.0 --assume-clean --level=%d --raid-devices=%d",
	       md, c.level, c.nmembers);
	if (l.uses_chunk)
		printf(" --chunk=%" PRIu64, c.chunk / 1024);
	layout = raid_layout_name(c.level, c.layout);
	if (layout) /* md spells near2 n2 */
		printf(" --layout=%s", strcmp(layout, "near2") ? layout : "n2");
	/* mdadm ignores --size for RAID0: md takes each member less 12 KiB (docs/md.md) */
	if (c.level != 0)
		printf(" --size=%" PRIu64 " --bitmap=none", data / 1024);
	for (int i = 0; i < c.nmembers; i++)
		printf(" %s", c.failed >> i & 1 ? "missing" : c.members[i]);
	printf("\n");
	if (c.level == 0)
		fprintf(stderr,
			"%s: RAID0: mdadm ignores --size: md's array equals the engine's volume "
			"(%" PRIu64 " bytes) when each member is %" PRIu64
			" bytes + 12 KiB (up to a chunk less than one more); larger members make md's array "
			"longer, with the engine's volume as its start\n",
			prog, vsize, data);
	ret = 0;
out:
	if (ret && err[0])
		fprintf(stderr, "%s\n", err);
	raid_config_free(&c);
	return ret;
}
