/*
 * config.c - the engine's options as the user writes them: parsing, defaults and the
 * checks that need several options at once. Every message names the option.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "level.h"
#include "recovery/rebuild.h"

void raid_config_init(struct raid_config *c)
{
	memset(c, 0, sizeof(*c));
	c->level = -1;
	c->chunk = 512 * 1024;
	c->layout = RAID_LAYOUT_DEFAULT;
	c->backend = RAID_BE_URING;
	c->parity = RAID_PARITY_CPU;
	c->stripe_cache = RAID_STRIPE_CACHE_DEFAULT;
	c->gpu = -1;
	c->gpu_mapped = -1;
	c->merge = true;
}

void raid_config_free(struct raid_config *c)
{
	for (int i = 0; i < c->nmembers; i++)
		free(c->members[i]);
	free(c->stats_path);
	c->nmembers = 0;
	c->stats_path = NULL;
	raid_rec_config_free(c);
}

int raid_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static const char *const backend_names[] = {
    [RAID_BE_URING] = "io_uring", [RAID_BE_AIO] = "libaio", [RAID_BE_PSYNC] = "psync",
    [RAID_BE_RAM] = "ram",	  [RAID_BE_NULL] = "null",
};
static const char *const parity_names[] = {
    [RAID_PARITY_CPU] = "cpu",
    [RAID_PARITY_ISAL] = "isal",
    [RAID_PARITY_CUDA] = "cuda",
    [RAID_PARITY_AUTO] = "auto",
};
static const char *const layout_names[] = {
    [RAID_LAYOUT_DEFAULT] = "default",
    [RAID_LAYOUT_LEFT_SYM] = "left-symmetric",
    [RAID_LAYOUT_LEFT_ASYM] = "left-asymmetric",
    [RAID_LAYOUT_RIGHT_SYM] = "right-symmetric",
    [RAID_LAYOUT_RIGHT_ASYM] = "right-asymmetric",
    [RAID_LAYOUT_NEAR2] = "near2",
};

const char *raid_backend_name(enum raid_backend_kind b)
{
	return backend_names[b];
}

const char *raid_parity_name(enum raid_parity_kind p)
{
	return parity_names[p];
}

const char *raid_layout_name(int level, enum raid_layout_kind l)
{
	if (l == RAID_LAYOUT_DEFAULT) {
		if (level == 10)
			return layout_names[RAID_LAYOUT_NEAR2];
		if (level == 5 || level == 6)
			return layout_names[RAID_LAYOUT_LEFT_SYM];
		return NULL;
	}
	return layout_names[l];
}

static int lookup(const char *const *names, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], v))
			return (int)i;
	return -1;
}

#define NAMES(a) a, sizeof(a) / sizeof(a[0])

/* Split "a:b:c" (sep ':') into owned strings. */
static int split_paths(const char *opt, const char *v, char **out, int *n, char *err, size_t errlen)
{
	const char *p = v;

	*n = 0;
	while (*p) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (!len) {
			snprintf(err, errlen, "raid: %s: empty path in '%s'", opt, v);
			return -EINVAL;
		}
		if (*n == RAID_MAX_MEMBERS) {
			snprintf(err, errlen, "raid: %s: more than %d paths", opt,
				 RAID_MAX_MEMBERS);
			return -EINVAL;
		}
		out[(*n)++] = strndup(p, len);
		p += len + (e ? 1 : 0);
		if (e && !*p) {
			snprintf(err, errlen, "raid: %s: empty path at the end of '%s'", opt, v);
			return -EINVAL;
		}
	}
	if (!*n) {
		snprintf(err, errlen, "raid: %s: no paths given", opt);
		return -EINVAL;
	}
	return 0;
}

static int parse_failed(struct raid_config *c, const char *v, char *err, size_t errlen)
{
	const char *p = v;

	c->failed = c->rec.state_failed; /* the state file's stay, whatever the order */
	while (*p) {
		char *end;
		long idx;

		errno = 0;
		idx = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || idx < 0 ||
		    idx >= RAID_MAX_MEMBERS) {
			snprintf(err, errlen,
				 "raid: raid_failed: '%s' is not a ','-separated list of member "
				 "indices (0-based)",
				 v);
			return -EINVAL;
		}
		c->failed |= 1ULL << idx;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static const char *const rmw_names[] = {
    [RAID_RMW_AUTO] = "auto",
    [RAID_RMW_RMW] = "rmw",
    [RAID_RMW_RCW] = "rcw",
};

/* A whole number in [lo, hi]; -EINVAL otherwise. */
static int parse_uint(const char *v, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (!*v || *end || errno || *out < lo || *out > hi)
		return -EINVAL;
	return 0;
}

/* raid_gpu, raid_gpu_batch, raid_gpu_mode; -ENOENT for any other name */
static int gpu_config_set(struct raid_config *c, const char *name, const char *v, char *err,
			  size_t errlen)
{
	long n;

	if (!strcmp(name, "raid_gpu")) {
		if (parse_uint(v, 0, RAID_GPU_MAX, &n)) {
			snprintf(err, errlen,
				 "raid: raid_gpu: '%s' is not a CUDA device index from 0 to %d", v,
				 RAID_GPU_MAX);
			return -EINVAL;
		}
		c->gpu = (int)n;
		return 0;
	}
	if (!strcmp(name, "raid_gpu_batch")) {
		if (parse_uint(v, 1, RAID_GPU_BATCH_MAX, &n)) {
			snprintf(err, errlen,
				 "raid: raid_gpu_batch: '%s' is not a stripe count from 1 to %d", v,
				 RAID_GPU_BATCH_MAX);
			return -EINVAL;
		}
		c->gpu_batch = (int)n;
		return 0;
	}
	if (!strcmp(name, "raid_gpu_mode")) {
		if (strcmp(v, "copy") && strcmp(v, "mapped")) {
			snprintf(err, errlen, "raid: raid_gpu_mode: '%s' is not copy or mapped", v);
			return -EINVAL;
		}
		c->gpu_mapped = !strcmp(v, "mapped");
		return 0;
	}
	return -ENOENT;
}

/* raid_merge (the block layer's nomerges, inverted); -ENOENT for any other name */
static int merge_config_set(struct raid_config *c, const char *name, const char *v, char *err,
			    size_t errlen)
{
	if (strcmp(name, "raid_merge"))
		return -ENOENT;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		snprintf(err, errlen, "raid: raid_merge: '%s' is not 0 or 1", v);
		return -EINVAL;
	}
	c->merge = *v == '1';
	return 0;
}

int raid_config_set(struct raid_config *c, const char *name, const char *v, char *err,
		    size_t errlen)
{
	int i;

	if (!v)
		v = "";
	if (!strcmp(name, "raid_level")) {
		char *end;
		long l = strtol(v, &end, 10);

		if (!*v || *end || (l != 0 && l != 1 && l != 5 && l != 6 && l != 10)) {
			snprintf(err, errlen, "raid: raid_level: '%s' is not one of 0, 1, 5, 6, 10",
				 v);
			return -EINVAL;
		}
		c->level = (int)l;
		return 0;
	}
	if (!strcmp(name, "raid_members")) {
		for (i = 0; i < c->nmembers; i++)
			free(c->members[i]);
		return split_paths(name, v, c->members, &c->nmembers, err, errlen);
	}
	if (!strcmp(name, "raid_chunk")) {
		uint64_t s;

		if (raid_parse_size(v, &s) || s < 4096 || s > 1048576 || (s & (s - 1))) {
			snprintf(err, errlen,
				 "raid: raid_chunk: '%s' is not a power of two from 4k to 1m", v);
			return -EINVAL;
		}
		c->chunk = s;
		return 0;
	}
	if (!strcmp(name, "raid_layout")) {
		i = lookup(NAMES(layout_names), v);
		if (i <= 0) {
			snprintf(err, errlen,
				 "raid: raid_layout: unknown layout '%s' (left-symmetric, "
				 "left-asymmetric, right-symmetric, right-asymmetric, near2)",
				 v);
			return -EINVAL;
		}
		c->layout = (enum raid_layout_kind)i;
		return 0;
	}
	if (!strcmp(name, "raid_member_size")) {
		if (raid_parse_size(v, &c->member_size) || !c->member_size) {
			snprintf(err, errlen, "raid: raid_member_size: '%s' is not a size", v);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(name, "raid_backend")) {
		i = lookup(NAMES(backend_names), v);
		if (i < 0) {
			snprintf(
			    err, errlen,
			    "raid: raid_backend: unknown backend '%s' (io_uring, libaio, psync, "
			    "ram, null)",
			    v);
			return -EINVAL;
		}
		c->backend = (enum raid_backend_kind)i;
		return 0;
	}
	if (!strcmp(name, "raid_parity")) {
		i = lookup(NAMES(parity_names), v);
		if (i < 0) {
			snprintf(
			    err, errlen,
			    "raid: raid_parity: unknown parity path '%s' (cpu, isal, cuda, auto)",
			    v);
			return -EINVAL;
		}
		c->parity = (enum raid_parity_kind)i;
		return 0;
	}
	if (!strcmp(name, "raid_failed"))
		return parse_failed(c, v, err, errlen);
	if (!strcmp(name, "raid_rmw")) {
		i = lookup(NAMES(rmw_names), v);
		if (i < 0) {
			snprintf(err, errlen, "raid: raid_rmw: '%s' is not one of auto, rmw, rcw",
				 v);
			return -EINVAL;
		}
		c->rmw = (enum raid_rmw_kind)i;
		return 0;
	}
	if (!strcmp(name, "raid_stripe_cache")) {
		long n;

		if (parse_uint(v, 1, 1 << 20, &n)) {
			snprintf(err, errlen,
				 "raid: raid_stripe_cache: '%s' is not a stripe count from 1 to %d",
				 v, 1 << 20);
			return -EINVAL;
		}
		c->stripe_cache = (unsigned)n;
		return 0;
	}
	if (!strcmp(name, "raid_workers")) {
		long n;

		if (parse_uint(v, 0, RAID_WORKERS_MAX, &n)) {
			snprintf(err, errlen,
				 "raid: raid_workers: '%s' is not a thread count from 0 to %d", v,
				 RAID_WORKERS_MAX);
			return -EINVAL;
		}
		c->workers = (int)n;
		return 0;
	}
	if (!strcmp(name, "raid_stats")) {
		free(c->stats_path);
		c->stats_path = strdup(v);
		return 0;
	}
	i = gpu_config_set(c, name, v, err, errlen);
	if (i != -ENOENT)
		return i;
	i = merge_config_set(c, name, v, err, errlen);
	if (i != -ENOENT)
		return i;
	i = raid_rec_config_set(c, name, v, err, errlen);
	if (i != -ENOENT)
		return i; /* an option of rebuild_config.c */
	snprintf(err, errlen, "raid: unknown option '%s'", name);
	return -EINVAL;
}

/* Failures the state file recorded are its, not raid_failed's: name the file instead. */
static int blame_state(const struct raid_config *c, int ret, char *err, size_t errlen)
{
	static const char pre[] = "raid: raid_failed: ";
	char rest[RAID_ERRLEN];

	if (!ret || !(c->failed & c->rec.state_failed) || strncmp(err, pre, sizeof(pre) - 1))
		return ret;
	snprintf(rest, sizeof(rest), "%s", err + sizeof(pre) - 1);
	snprintf(err, errlen, "raid: raid_state: %s records failed members: %s", c->rec.state_path,
		 rest);
	return ret;
}

int raid_config_validate(const struct raid_config *c, char *err, size_t errlen)
{
	const struct raid_level_ops *ops;
	struct raid_geom g;
	int nfailed = __builtin_popcountll(c->failed);
	int max;

	if (c->level < 0) {
		snprintf(err, errlen, "raid: raid_level is required (0, 1, 5, 6, 10)");
		return -EINVAL;
	}
	if (!c->nmembers) {
		snprintf(err, errlen,
			 "raid: raid_members is required (member paths separated by ':')");
		return -EINVAL;
	}
	ops = raid_level_find(c->level);
	if (!ops) {
		snprintf(err, errlen, "raid: raid_level=%d is not supported yet", c->level);
		return -ENOTSUP;
	}
	if (c->nmembers < ops->min_members) {
		snprintf(err, errlen,
			 "raid: raid_members: raid_level=%d needs at least %d members, %d given",
			 c->level, ops->min_members, c->nmembers);
		return -EINVAL;
	}
	if (c->layout != RAID_LAYOUT_DEFAULT) {
		bool ok = c->level == 10		   ? c->layout == RAID_LAYOUT_NEAR2
			  : c->level == 5 || c->level == 6 ? c->layout != RAID_LAYOUT_NEAR2
							   : true;
		if (!ok) {
			snprintf(err, errlen,
				 "raid: raid_layout: %s does not apply to raid_level=%d%s",
				 layout_names[c->layout], c->level,
				 c->level == 10 ? " (near2 only)" : "");
			return -EINVAL;
		}
	}
	if (c->failed >> c->nmembers) {
		int bad = 63 - __builtin_clzll(c->failed);

		snprintf(err, errlen,
			 "raid: raid_failed: member %d is out of range (%d members: 0..%d)", bad,
			 c->nmembers, c->nmembers - 1);
		return -EINVAL;
	}
	max = ops->max_failed == RAID_ALL_BUT_ONE ? c->nmembers - 1 : ops->max_failed;
	if (nfailed > max) {
		char names[RAID_ERRLEN / 2] = "";
		size_t used = 0;

		for (int i = 0; i < c->nmembers && used < sizeof(names); i++)
			if (c->failed >> i & 1)
				used += (size_t)snprintf(names + used, sizeof(names) - used,
							 "%s%d (%s)", used ? ", " : "", i,
							 c->members[i]);
		snprintf(err, errlen,
			 "raid: raid_failed: the array has lost more than raid_level=%d tolerates "
			 "(at most %d of %d members): %s",
			 c->level, max, c->nmembers, names);
		return blame_state(c, -EINVAL, err, errlen);
	}
	if ((c->gpu >= 0 || c->gpu_batch || c->gpu_mapped >= 0) && c->parity != RAID_PARITY_CUDA &&
	    c->parity != RAID_PARITY_AUTO) {
		snprintf(err, errlen, "raid: %s applies only with raid_parity=cuda or auto",
			 c->gpu >= 0	? "raid_gpu"
			 : c->gpu_batch ? "raid_gpu_batch"
					: "raid_gpu_mode");
		return -EINVAL;
	}
	if (raid_rec_config_validate(c, ops->max_failed != 0, err, errlen) ||
	    raid_rec_state_check_geometry(c, c->layout ? (int)c->layout : (int)ops->default_layout,
					  err, errlen))
		return -EINVAL;
	g = (struct raid_geom){.level = c->level, .n = c->nmembers, .chunk = c->chunk};
	if (ops->check_failed && c->failed)
		return blame_state(c, ops->check_failed(&g, c->failed, c->members, err, errlen),
				   err, errlen);
	return 0;
}
