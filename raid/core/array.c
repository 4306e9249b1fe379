/*
 * array.c - one array: its members (sizes, files, locks, in-memory bytes), its geometry
 * and state, and the process-wide registry that gives every job naming the same members
 * the same refcounted instance.
 *
 * Members are flocked (shared for jobs that only read, exclusive for writers) so a forked
 * fio job or a second fio cannot write the same members through another instance: that
 * would break the ordering the array relies on (and parity, later).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"
#include "level.h"
#include "options.h"
#include "quiesce.h"
#include "service.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct raid_array *registry;

static int member_bytes(const struct raid_config *c, int i, uint64_t *out, char *err, size_t errlen)
{
	const char *path = c->members[i];
	bool files = member_backend(c->backend)->uses_files;
	struct stat st;
	int fd, ret = 0;

	if (stat(path, &st)) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "raid: raid_members: %s: %s", path, strerror(errno));
			return -errno;
		}
		if (c->member_size && !files) {
			*out = c->member_size;
			return 0;
		}
		if (!c->member_size) {
			snprintf(
			    err, errlen,
			    "raid: raid_members: %s does not exist (set raid_member_size to %s)",
			    path, files ? "create it" : "size in-memory members");
			return -ENOENT;
		}
		ret = raid_dev_create("raid_members", path, c->member_size, err, errlen);
		if (ret)
			return ret;
		*out = c->member_size;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		*out = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, out)) {
			ret = -errno;
			snprintf(err, errlen, "raid: raid_members: %s: %s", path, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		if (ret)
			return ret;
	} else {
		snprintf(err, errlen, "raid: raid_members: %s is not a file or a block device",
			 path);
		return -EINVAL;
	}
	if (c->member_size && *out < c->member_size) {
		snprintf(err, errlen,
			 "raid: raid_member_size: %s holds only %" PRIu64
			 " bytes, less than raid_member_size=%" PRIu64,
			 path, *out, c->member_size);
		return -EINVAL;
	}
	return 0;
}

/* The usable size of each member and the volume size; `say` reports unequal members. */
static int probe(const struct raid_config *c, bool say, struct raid_geom *g, uint64_t *vsize,
		 char *err, size_t errlen)
{
	const struct raid_level_ops *ops = raid_level_find(c->level);
	uint64_t min = UINT64_MAX, max = 0, align;
	int smallest = -1, ret;

	ret = raid_config_validate(c, err, errlen);
	if (ret)
		return ret;
	for (int i = 0; i < c->nmembers; i++) {
		uint64_t b;

		if (c->failed >> i & 1)
			continue; /* never opened, never touched */
		ret = member_bytes(c, i, &b, err, errlen);
		if (ret)
			return ret;
		if (b < min) {
			min = b;
			smallest = i;
		}
		if (b > max)
			max = b;
		for (int j = 0; j < i; j++)
			if (!(c->failed >> j & 1) && raid_same_file(c->members[j], c->members[i])) {
				snprintf(
				    err, errlen,
				    "raid: raid_members: %s and %s are the same %s (members %d "
				    "and %d): every member must be a device of its own",
				    c->members[j], c->members[i],
				    strcmp(c->members[j], c->members[i]) ? "file under two names"
									 : "file named twice",
				    j, i);
				return -EINVAL;
			}
	}
	if (c->member_size) {
		min = c->member_size;
	} else if (say && min != max) {
		raid_log("raid: raid_members: members differ in size; using the smallest, %" PRIu64
			 " bytes (%s)",
			 min, c->members[smallest]);
	}
	/* md uses whole chunks; whole pages keep O_DIRECT possible for RAID1 */
	align = ops->uses_chunk ? c->chunk : 4096;
	*g = (struct raid_geom){.level = c->level,
				.n = c->nmembers,
				.chunk = c->chunk,
				.member_size = min / align * align,
				.layout = c->layout ? (int)c->layout : (int)ops->default_layout};
	*vsize = g->member_size ? ops->size(g) : 0;
	if (!*vsize) {
		snprintf(err, errlen,
			 "raid: raid_members: the members (%" PRIu64
			 " bytes) are smaller than one chunk (%" PRIu64 " bytes)",
			 min, align);
		return -EINVAL;
	}
	return 0;
}

int raid_probe(const struct raid_config *c, uint64_t *volume_size, char *err, size_t errlen)
{
	struct raid_geom g;

	return probe(c, true, &g, volume_size, err, errlen);
}

/*
 * The registry key: the members' real paths as raid_members names them (a done
 * replacement from the state file keeps the key of the array it joined), one per line.
 * Sized from what realpath returned, never assumed: a path may be longer than PATH_MAX.
 */
static char *registry_key(const struct raid_config *c)
{
	char *const *orig = raid_service_cfg(c).orig_members;
	char *paths[RAID_MAX_MEMBERS] = {0}, *key = NULL;
	size_t len = 1, used = 0;

	for (int i = 0; i < c->nmembers; i++) {
		const char *p = orig && orig[i] ? orig[i] : c->members[i];

		paths[i] = realpath(p, NULL);
		if (!paths[i])
			paths[i] = strdup(p);
		if (!paths[i])
			goto out;
		len += strlen(paths[i]) + 1;
	}
	key = malloc(len);
	if (!key)
		goto out;
	for (int i = 0; i < c->nmembers; i++) {
		size_t l = strlen(paths[i]);

		memcpy(key + used, paths[i], l);
		key[used + l] = '\n';
		used += l + 1;
	}
	key[used] = 0;
out:
	for (int i = 0; i < c->nmembers; i++)
		free(paths[i]);
	return key;
}

/*
 * Jobs joining an open array must describe the same one: they agree on its options, and
 * raid_failed is compared as the option said it (failed_opt), without the failures a state file
 * recorded. An earlier job's run-time failure may have been written there since this array
 * opened, and the open array already knows it; and a second job's configuration may have read
 * the file the first one's array had just written (member 1 failed, its spare being rebuilt):
 * refusing it then made the refusal depend on which job's thread ran first.
 */
static bool same_geometry(const struct raid_array *a, const struct raid_config *c)
{
	return a->cfg.level == c->level && a->cfg.chunk == c->chunk && a->cfg.layout == c->layout &&
	       a->cfg.failed_opt == c->failed_opt &&
	       a->cfg.backend == c->backend && a->cfg.member_size == c->member_size;
}

/* The stats and state files are written over by name: neither may be a member or spare. */
static int files_apart(const struct raid_array *a, char *err, size_t errlen)
{
	const char *files[2] = {a->cfg.stats_path, raid_service_cfg(&a->cfg).state_path};
	static const char *const opts[2] = {"raid_stats", "raid_state"};
	int n = a->geom.n;

	for (int k = 0; k < 2; k++)
		for (int i = 0; files[k] && i < a->ndev; i++)
			if (raid_same_file(files[k], a->m[i].path)) {
				snprintf(err, errlen,
					 "raid: %s: %s is %s %d (%s): it would be written over",
					 opts[k], files[k], i < n ? "member" : "spare",
					 i < n ? i : i - n, a->m[i].path);
				return -EINVAL;
			}
	return 0;
}

/*
 * How a job locks the members: exclusively when the array writes them (the job writes, or a
 * resync, a repair or the resync after an unclean stop rewrites redundancy), else shared.
 * Spares are always locked exclusively: a rebuild writes them over, so no other array of any
 * process, even one that only reads, may have one open meanwhile.
 */
static int member_lock_mode(const struct raid_config *c)
{
	return c->writes || raid_service_cfg(c).rewrites ? LOCK_EX : LOCK_SH;
}

static int lock_members(struct raid_array *a, int mode, char *err, size_t errlen)
{
	if (!a->be->uses_files || a->lock_mode == mode || a->lock_mode == LOCK_EX)
		return 0;
	for (int i = 0; i < a->ndev; i++) {
		struct raid_member *m = &a->m[i];
		bool spare = i >= a->geom.n;
		const char *opt = spare ? "raid_spares" : "raid_members";

		if (raid_member_failed(a, i))
			continue;
		if (m->lock_fd < 0)
			m->lock_fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (m->lock_fd < 0) {
			snprintf(err, errlen, "raid: %s: %s: %s", opt, m->path, strerror(errno));
			return -errno;
		}
		if (flock(m->lock_fd, (spare ? LOCK_EX : mode) | LOCK_NB)) {
			int e = errno;

			if (e == EWOULDBLOCK)
				snprintf(
				    err, errlen,
				    "raid: %s: %s is in use by another process: jobs that share an "
				    "array must run with thread=1, only one fio may write the "
				    "members at a time, and a spare may be open in no other array",
				    opt, m->path);
			else
				snprintf(err, errlen, "raid: %s: flock %s: %s", opt, m->path,
					 strerror(e));
			return -EBUSY;
		}
	}
	a->lock_mode = mode;
	return 0;
}

static void array_free(struct raid_array *a)
{
	raid_service()->free(a);
	raid_quiesce_exit(a); /* after the service: nothing can lock a range any more */
	if (a->ops && a->ops->array_exit && a->level_priv)
		a->ops->array_exit(a);
	for (int i = 0; i < a->ndev; i++) {
		struct raid_member *m = &a->m[i];

		for (int k = 0; k < 2; k++)
			if (m->fd[k] >= 0)
				close(m->fd[k]);
		if (m->lock_fd >= 0)
			close(m->lock_fd);
		if (m->ram)
			munmap(m->ram, a->geom.member_size);
	}
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->ev_mu);
	pthread_cond_destroy(&a->ev_cv);
	free(a->key);
	raid_config_free(&a->cfg);
	free(a);
}

static int array_create(const struct raid_config *c, char *key, struct raid_array **out, char *err,
			size_t errlen)
{
	struct raid_service_cfg s = raid_service_cfg(c);
	struct raid_array *a =
	    calloc(1, sizeof(*a) + (size_t)(c->nmembers + s.nspares) * sizeof(a->m[0]));
	int ret;

	if (!a)
		return -ENOMEM;
	a->key = key;
	a->refs = 1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->ev_mu, NULL);
	pthread_cond_init(&a->ev_cv, NULL);
	a->cfg = *c;
	a->cfg.stats_path = c->stats_path ? strdup(c->stats_path) : NULL;
	for (int i = 0; i < c->nmembers; i++) {
		a->cfg.members[i] = strdup(c->members[i]);
		a->m[i].path = a->cfg.members[i];
		a->m[i].fd[0] = a->m[i].fd[1] = a->m[i].lock_fd = -1;
		atomic_init(&a->m[i].failed, (c->failed >> i & 1) != 0);
		atomic_init(&a->m[i].inflight, 0);
	}
	if (raid_option_groups_dup(&a->cfg)) {
		ret = -ENOMEM;
		goto err;
	}
	s = raid_service_cfg(&a->cfg); /* the array's own copies */
	a->ndev = c->nmembers + s.nspares; /* the spares follow the members in m[] */
	for (int i = 0; i < a->ndev; i++) {
		if (i >= c->nmembers) {
			a->m[i].path = s.spares[i - c->nmembers];
			a->m[i].fd[0] = a->m[i].fd[1] = a->m[i].lock_fd = -1;
		}
		atomic_init(&a->m[i].dev, i);
		atomic_init(&a->m[i].recovery_offset, 0);
	}
	a->geom.n = c->nmembers; /* so array_free knows the members on early errors */
	a->ops = raid_level_find(c->level);
	a->be = member_backend(c->backend);
	ret = probe(c, false, &a->geom, &a->size, err, errlen);
	if (!ret)
		ret = raid_service()->probe(a, err, errlen);
	if (!ret)
		ret = files_apart(a, err, errlen);
	if (ret)
		goto err;
	ret = lock_members(a, member_lock_mode(c), err, errlen);
	if (ret)
		goto err;
	if (a->be->in_memory) {
		for (int i = 0; i < a->ndev; i++) {
			if (raid_member_failed(a, i))
				continue;
			a->m[i].ram = mmap(NULL, a->geom.member_size, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (a->m[i].ram == MAP_FAILED) {
				a->m[i].ram = NULL;
				ret = -ENOMEM;
				snprintf(err, errlen,
					 "raid: raid_backend=%s: cannot map %" PRIu64
					 " bytes for member %s",
					 a->be->name, a->geom.member_size, a->m[i].path);
				goto err;
			}
		}
	}
	if (a->ops->array_init) {
		ret = a->ops->array_init(a, err, errlen);
		if (ret)
			goto err;
	}
	a->t0 = raid_now_ns(); /* raid_fail's times count from here */
	ret = raid_service()->open(a, err, errlen);
	if (ret)
		goto err;
	*out = a;
	return 0;
err:
	a->key = NULL; /* the caller still owns it */
	array_free(a);
	return ret;
}

/*
 * One state file describes one array: a second array of this process naming it would
 * overwrite the first's record (its failures, spares and dirty mark). Registry held.
 */
static int state_taken(const struct raid_config *c, char *err, size_t errlen)
{
	const char *p = raid_service_cfg(c).state_path;

	for (struct raid_array *b = registry; p && b; b = b->next) {
		const char *q = raid_service_cfg(&b->cfg).state_path;

		if (q && raid_same_file(p, q)) {
			snprintf(err, errlen,
				 "raid: raid_state: %s is the state file of another array in this "
				 "fio (raid_members %s...): every array needs a file of its own",
				 p, b->cfg.members[0]);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A member or spare of this job that is a device of another array open in this fio: flock
 * would refuse it as "another process" (each array opens it apart), so say which array.
 * A spare there would be rebuilt over, a member written by two arrays. Registry held.
 */
static int devices_taken(const struct raid_config *c, const char *key, char *err, size_t errlen)
{
	struct raid_service_cfg s = raid_service_cfg(c);
	int n = c->nmembers + s.nspares;

	for (struct raid_array *b = registry; b; b = b->next) {
		if (!strcmp(b->key, key))
			continue; /* the same array: the job joins it */
		for (int i = 0; i < n; i++) {
			const char *p = i < c->nmembers ? c->members[i] : s.spares[i - c->nmembers];

			if (i < c->nmembers && c->failed >> i & 1)
				continue; /* never opened */
			for (int j = 0; j < b->ndev; j++) {
				if (j < b->geom.n && raid_member_failed(b, j))
					continue;
				if (!raid_same_file(p, b->m[j].path))
					continue;
				snprintf(err, errlen,
					 "raid: %s: %s is %s %d (%s) of another array open in this "
					 "fio (raid_members %s...): %s",
					 i < c->nmembers ? "raid_members" : "raid_spares", p,
					 j < b->geom.n ? "member" : "spare",
					 j < b->geom.n ? j : j - b->geom.n, b->m[j].path,
					 b->cfg.members[0],
					 i < c->nmembers ? "an array's devices must be its own"
							 : "a rebuild would write over it");
				return -EBUSY;
			}
		}
	}
	return 0;
}

int raid_array_get(const struct raid_config *c, struct raid_array **out, char *err, size_t errlen)
{
	struct raid_array *a;
	char *key;
	int ret = raid_config_validate(c, err, errlen);

	if (ret)
		return ret;
	key = registry_key(c);
	if (!key)
		return -ENOMEM;
	pthread_mutex_lock(&registry_lock);
	for (a = registry; a; a = a->next)
		if (!strcmp(a->key, key))
			break;
	if (a) {
		free(key);
		if (!same_geometry(a, c)) {
			snprintf(
			    err, errlen,
			    "raid: raid_members: these members already form an array with a "
			    "different geometry in this fio (raid_level, raid_chunk, raid_layout, "
			    "raid_failed, raid_backend and raid_member_size must match)");
			ret = -EINVAL;
		} else if (!(ret = lock_members(a, member_lock_mode(c), err, errlen)) &&
			   !(ret = c->writes ? raid_service()->writer(a, err, errlen) : 0)) {
			a->refs++;
			*out = a;
		}
	} else if ((ret = state_taken(c, err, errlen)) ||
		   (ret = devices_taken(c, key, err, errlen))) {
		free(key);
	} else {
		ret = array_create(c, key, &a, err, errlen);
		if (ret) {
			free(key);
		} else {
			a->next = registry;
			registry = a;
			*out = a;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

int raid_array_put(struct raid_array *a)
{
	struct raid_array **pp;
	char err[RAID_ERRLEN];
	int ret;

	if (!a)
		return 0;
	pthread_mutex_lock(&registry_lock);
	if (--a->refs) {
		pthread_mutex_unlock(&registry_lock);
		return 0;
	}
	for (pp = &registry; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
	ret = raid_service()->stop(a);
	if (a->cfg.stats_path) {
		int r = raid_array_write_stats(a, a->cfg.stats_path, err, sizeof(err));

		if (r) {
			raid_log("%s", err);
			ret = ret ? ret : r;
		}
	}
	array_free(a);
	return ret;
}

uint64_t raid_array_size(const struct raid_array *a)
{
	return a->size;
}

int raid_array_members(const struct raid_array *a)
{
	return a->geom.n;
}

int raid_array_fail_member(struct raid_array *a, int idx)
{
	if (idx < 0 || idx >= a->geom.n)
		return -EINVAL;
	raid_member_fail(a, idx);
	return 0;
}

int raid_array_member_fd(struct raid_array *a, int idx, bool direct, char *err, size_t errlen)
{
	struct raid_member *m = &a->m[idx];
	int fd;

	pthread_mutex_lock(&a->lock);
	fd = m->fd[direct];
	if (fd < 0) {
		int flags = O_CLOEXEC | (direct ? O_DIRECT : 0);

		fd = open(m->path, O_RDWR | flags);
		if (fd < 0 && (errno == EACCES || errno == EROFS) && a->lock_mode != LOCK_EX)
			fd = open(m->path, O_RDONLY | flags);
		if (fd < 0) {
			fd = -errno;
			if (direct && errno == EINVAL)
				snprintf(err, errlen,
					 "raid: direct=1: %s does not support O_DIRECT", m->path);
			else
				snprintf(err, errlen, "raid: raid_members: cannot open %s: %s",
					 m->path, strerror(errno));
		} else {
			m->fd[direct] = fd;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return fd;
}

int raid_array_flush(struct raid_array *a)
{
	int ret = 0;

	for (int i = 0; i < a->geom.n; i++)
		for (int k = 0; k < 2; k++)
			if (a->m[i].fd[k] >= 0 && fdatasync(a->m[i].fd[k]) && !ret)
				ret = -errno;
	return ret;
}
