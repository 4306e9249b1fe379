/*
 * config.c - the checks of the engine's options that need several options at once (each
 * option alone is parsed by the table in options.c), against the level's facts. Every
 * message names the option.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "identity.h"
#include "level.h"
#include "options.h"
#include "service.h"

void raid_config_free(struct raid_config *c)
{
	for (int i = 0; i < c->nmembers; i++)
		free(c->members[i]);
	free(c->stats_path);
	c->nmembers = 0;
	c->stats_path = NULL;
	raid_option_groups_free(c);
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

/* Failures the state file recorded are its, not raid_failed's: name the file instead. */
static int blame_state(const struct raid_config *c, int ret, char *err, size_t errlen)
{
	static const char pre[] = "raid: raid_failed: ";
	struct raid_service_cfg s = raid_service_cfg(c);
	char rest[RAID_ERRLEN];

	if (!ret || !(c->failed & s.state_failed) || strncmp(err, pre, sizeof(pre) - 1))
		return ret;
	snprintf(rest, sizeof(rest), "%s", err + sizeof(pre) - 1);
	snprintf(err, errlen, "raid: raid_state: %s records failed members: %s", s.state_path,
		 rest);
	return ret;
}

/* "near2 only", "left-symmetric, ... only": the layouts the level accepts */
static void layouts_of(const struct raid_level_ops *ops, char *buf, size_t len)
{
	size_t used = 0;

	*buf = 0;
	for (int l = 0; ops->layouts >> l && used < len; l++)
		if (ops->layouts >> l & 1)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 raid_layout_name(ops->level, l));
	if (used < len)
		snprintf(buf + used, len - used, "%s", used ? " only" : "it has no layouts");
}

int raid_config_validate(const struct raid_config *c, char *err, size_t errlen)
{
	const struct raid_level_ops *ops;
	struct raid_geom g;
	int nfailed = __builtin_popcountll(c->failed);
	int max;

	if (c->level < 0) {
		char levels[64];

		raid_option_values(raid_option_find("raid_level"), levels, sizeof(levels));
		snprintf(err, errlen, "raid: raid_level is required (%s)", levels);
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
	if (c->layout != RAID_LAYOUT_DEFAULT && !(ops->layouts >> c->layout & 1)) {
		char which[RAID_ERRLEN / 2];

		layouts_of(ops, which, sizeof(which));
		snprintf(err, errlen, "raid: raid_layout: %s does not apply to raid_level=%d (%s)",
			 raid_layout_name(c->level, c->layout), c->level, which);
		return -EINVAL;
	}
	/* a shift by 64 is undefined (x86 shifts by 0): 64 members hold every index */
	if (c->nmembers < 64 && c->failed >> c->nmembers) {
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
	/* what the parts registered: a build may have no backend at all */
	if (!member_backend(c->backend)) {
		snprintf(err, errlen, "raid: raid_backend: no backend is in this build");
		return -ENOTSUP;
	}
	if (raid_option_groups_validate(c, ops, err, errlen))
		return -EINVAL;
	g = (struct raid_geom){.level = c->level, .n = c->nmembers, .chunk = c->chunk};
	if (ops->check_failed && c->failed)
		return blame_state(c, ops->check_failed(&g, c->failed, c->members, err, errlen),
				   err, errlen);
	return 0;
}

/* Which device of c path p is: "member" or "spare" and its index; NULL when none (a failed
 * member is never opened, so it is none). */
static const char *device_of(const struct raid_config *c, const char *p, int *idx)
{
	for (int i = 0; i < c->nmembers; i++)
		if (!(c->failed >> i & 1) && raid_same_file(p, c->members[i]))
			return *idx = i, "member";
	struct raid_service_cfg s = raid_service_cfg(c);

	for (int i = 0; i < s.nspares; i++)
		if (raid_same_file(p, s.spares[i]))
			return *idx = i, "spare";
	return NULL;
}

int raid_config_clash(const struct raid_config *c, const struct raid_config *earlier,
		      const char *earlier_name, char *err, size_t errlen)
{
	struct raid_service_cfg s = raid_service_cfg(c), es = raid_service_cfg(earlier);
	bool same = c->nmembers == earlier->nmembers;
	int n = c->nmembers + s.nspares, j;
	const char *what;

	for (int i = 0; same && i < c->nmembers; i++)
		same = raid_same_file(c->members[i], earlier->members[i]);
	if (same)
		return 0; /* one array, shared by the two jobs */
	if (s.state_path && es.state_path && raid_same_file(s.state_path, es.state_path)) {
		snprintf(err, errlen,
			 "raid: raid_state: %s is the state file of job '%s' (raid_members %s...), "
			 "which runs beside this one: every array needs a file of its own",
			 s.state_path, earlier_name, earlier->members[0]);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++) {
		bool member = i < c->nmembers;
		const char *p = member ? c->members[i] : s.spares[i - c->nmembers];

		if (member && c->failed >> i & 1)
			continue; /* never opened */
		if (!(what = device_of(earlier, p, &j)))
			continue;
		snprintf(err, errlen,
			 "raid: %s: %s is %s %d (%s) of job '%s' (raid_members %s...), which runs "
			 "beside this one: %s (of two such jobs the later is refused; a stonewall "
			 "between them runs one after the other)",
			 member ? "raid_members" : "raid_spares", p, what, j,
			 *what == 'm' ? earlier->members[j] : es.spares[j], earlier_name,
			 earlier->members[0],
			 member ? "an array's devices must be its own"
				: "a rebuild would write over it");
		return -EBUSY;
	}
	return 0;
}
