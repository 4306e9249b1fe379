/*
 * rebuild_config.c - what recovery's option rows (options.c) call beyond the table's types:
 * the parsers of raid_fail's list, the checks across recovery's options
 * (spares, rebuild, rates, members named), and owning their strings. raid_state's file is read by state.c
 * when the option is set. Every message names the option.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery/helpers/rec.h"

#define MB 1000000ULL

/* raid_fail: "IDX@SECONDS[,IDX@SECONDS...]" */
int raid_rec_parse_fail(struct raid_config *c, const char *v, char *err, size_t errlen)
{
	struct raid_recovery_config *r = rec_cfg(c);
	const char *p = v;

	r->nfail = 0;
	while (*p) {
		char *end;
		long idx = strtol(p, &end, 10);
		double s;

		if (end == p || *end != '@' || idx < 0 || idx >= RAID_MAX_MEMBERS)
			goto bad;
		p = end + 1;
		s = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(s >= 0) || !isfinite(s) ||
		    r->nfail == RAID_MAX_MEMBERS)
			goto bad;
		r->fail[r->nfail++] = (struct raid_fail_at){.member = (int)idx, .at_s = s};
		p = *end ? end + 1 : end;
		if (end[0] == ',' && !*p)
			goto bad;
	}
	if (r->nfail)
		return 0;
bad:
	snprintf(err, errlen,
		 "raid: raid_fail: '%s' is not IDX@SECONDS (member index, 0-based; ','-separated)",
		 v);
	return -EINVAL;
}

/* raid_re_add: "IDX[,IDX...]", members the state file records failed, back at their path */
int raid_rec_parse_re_add(struct raid_config *c, const char *v, char *err, size_t errlen)
{
	const char *p = v;
	uint64_t set = 0;

	while (*p) {
		char *end;
		long idx = strtol(p, &end, 10);

		if (end == p || (*end && *end != ',') || idx < 0 || idx >= c->nmembers ||
		    (end[0] == ',' && !end[1])) {
			snprintf(err, errlen,
				 "raid: raid_re_add: '%s' is not a list of member indexes (0..%d, "
				 "','-separated)",
				 v, c->nmembers - 1);
			return -EINVAL;
		}
		set |= 1ULL << idx;
		p = *end ? end + 1 : end;
	}
	for (int i = 0; i < c->nmembers; i++)
		if (set >> i & 1 && (c->failed_opt >> i & 1 || !(rec_cfg(c)->state_failed >> i & 1))) {
			snprintf(err, errlen,
				 "raid: raid_re_add: member %d is %s", i,
				 c->failed_opt >> i & 1
				     ? "named by raid_failed too"
				     : "not failed in the state file (raid_state): nothing to re-add");
			return -EINVAL;
		}
	rec_cfg(c)->re_add = set;
	c->failed &= ~set; /* opened with the others; recovery keeps it failed until it caught up */
	return 0;
}

/* raid_bitmap, raid_bitmap_chunk and raid_re_add against the others */
static int bitmap_validate(const struct raid_config *c, bool redundant, char *err, size_t errlen)
{
	const struct raid_recovery_config *r = rec_cfg(c);

	if (r->bitmap && !redundant) {
		snprintf(err, errlen, "raid: raid_bitmap: raid_level=%d has no redundancy to resync",
			 c->level);
		return -EINVAL;
	}
	if (r->bitmap && !r->state_path) {
		snprintf(err, errlen,
			 "raid: raid_bitmap=1 needs raid_state (the bitmap is kept beside it, in "
			 "raid_state's path + \".bitmap\")");
		return -EINVAL;
	}
	if (r->bitmap_chunk && !r->bitmap) {
		snprintf(err, errlen, "raid: raid_bitmap_chunk needs raid_bitmap=1");
		return -EINVAL;
	}
	if (r->bitmap_chunk && r->bitmap_chunk < c->chunk) {
		snprintf(err, errlen,
			 "raid: raid_bitmap_chunk: %llu bytes is less than raid_chunk (%llu): a "
			 "region holds whole chunk rows",
			 (unsigned long long)r->bitmap_chunk, (unsigned long long)c->chunk);
		return -EINVAL;
	}
	if (r->re_add && !r->bitmap) {
		snprintf(err, errlen,
			 "raid: raid_re_add needs raid_bitmap=1 (what the member missed is in the "
			 "bitmap; without one, rebuild it onto a spare: raid_spares, raid_rebuild)");
		return -EINVAL;
	}
	return 0;
}

int raid_rec_config_validate(const struct raid_config *c, bool redundant, char *err, size_t errlen)
{
	const struct raid_recovery_config *r = rec_cfg(c);
	uint64_t min = r->rebuild_min, max = r->rebuild_max; /* the option table's defaults */

	for (int i = 0; i < r->nspares; i++)
		for (int j = 0; j < c->nmembers + i; j++)
			if (!strcmp(r->spares[i],
				    j < c->nmembers ? c->members[j] : r->spares[j - c->nmembers])) {
				snprintf(err, errlen,
					 "raid: raid_spares: %s is named twice (spares must differ "
					 "from the members and from each other)",
					 r->spares[i]);
				return -EINVAL;
			}
	if (!redundant && (r->rebuild || r->nspares || r->scrub || r->resync)) {
		snprintf(err, errlen, "raid: %s: raid_level=%d has no redundancy",
			 r->rebuild   ? "raid_rebuild"
			 : r->nspares ? "raid_spares"
			 : r->scrub   ? "raid_scrub"
				      : "raid_init",
			 c->level);
		return -EINVAL;
	}
	if (r->rebuild && !r->nspares) {
		snprintf(err, errlen,
			 "raid: raid_rebuild=1 needs raid_spares (the spares to rebuild "
			 "onto)");
		return -EINVAL;
	}
	if (min > max) {
		snprintf(err, errlen,
			 "raid: raid_rebuild_min: %.0f MB/s is above raid_rebuild_max (%.0f MB/s)",
			 (double)min / MB, (double)max / MB);
		return -EINVAL;
	}
	for (int i = 0; i < r->nfail; i++)
		if (r->fail[i].member >= c->nmembers) {
			snprintf(err, errlen, "raid: raid_fail: member %d is out of range (0..%d)",
				 r->fail[i].member, c->nmembers - 1);
			return -EINVAL;
		}
	return bitmap_validate(c, redundant, err, errlen);
}

void raid_rec_config_free(struct raid_config *c)
{
	struct raid_recovery_config *r = rec_cfg(c);

	for (int i = 0; i < r->nspares; i++)
		free(r->spares[i]);
	for (int i = 0; i < RAID_MAX_MEMBERS; i++) {
		free(r->replaced[i]);
		free(r->state_id[i]);
		free(r->state_serial[i]);
		free(r->state_eui[i]);
		free(r->resume_id[i]);
		free(r->resume_serial[i]);
		free(r->resume_eui[i]);
		free(r->orig_members[i]);
	}
	free(r->state_path);
	memset(r, 0, sizeof(*r));
}

void raid_rec_config_dup(struct raid_config *c)
{
	struct raid_recovery_config *r = rec_cfg(c);

	for (int i = 0; i < r->nspares; i++)
		r->spares[i] = strdup(r->spares[i]);
	for (int i = 0; i < RAID_MAX_MEMBERS; i++) {
		char **own[] = {&r->replaced[i],   &r->state_id[i],    &r->state_serial[i],
				&r->state_eui[i],  &r->resume_id[i],   &r->resume_serial[i],
				&r->resume_eui[i], &r->orig_members[i]};

		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (*own[k])
				*own[k] = strdup(*own[k]);
	}
	if (r->state_path)
		r->state_path = strdup(r->state_path);
}
