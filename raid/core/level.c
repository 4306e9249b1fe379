/*
 * level.c - the table of the level personalities registered with the core (raid/levels
 * registers its own, raid/README.md), in the order they registered, and their facts as the
 * public API shows them (raid_level_get: config, raid-tool levels, the tests). The core
 * names no level: what it knows of one is what the level registered.
 */
#include <errno.h>

#include "level.h"

#define RAID_LEVELS_MAX 16

static const struct raid_level_ops *all[RAID_LEVELS_MAX];
static unsigned nall;

int raid_level_register(const struct raid_level_ops *ops)
{
	if (!ops || !ops->size || nall == RAID_LEVELS_MAX) {
		raid_log("raid: level %s not registered (%s)", ops ? ops->name : "(null)",
			 ops ? "no size hook or the level table is full" : "no personality");
		return -EINVAL;
	}
	if (raid_level_find(ops->level)) {
		raid_log("raid: raid_level=%d is registered twice", ops->level);
		return -EEXIST;
	}
	all[nall++] = ops;
	return 0;
}

const struct raid_level_ops *raid_level_at(unsigned i)
{
	return i < nall ? all[i] : NULL;
}

const struct raid_level_ops *raid_level_find(int level)
{
	const struct raid_level_ops *ops;

	for (unsigned i = 0; (ops = raid_level_at(i)); i++)
		if (ops->level == level)
			return ops;
	return NULL;
}

static int info_of(const struct raid_level_ops *ops, struct raid_level_info *out)
{
	if (!ops)
		return -ENOENT;
	*out = (struct raid_level_info){
	    .level = ops->level,
	    .name = ops->name,
	    .min_members = ops->min_members,
	    .max_failed = ops->max_failed,
	    .parity = ops->parity,
	    .copies = ops->copies,
	    .uses_chunk = ops->uses_chunk,
	    .layouts = ops->layouts,
	    .default_layout = ops->default_layout,
	};
	return 0;
}

int raid_level_nth(unsigned i, struct raid_level_info *out)
{
	return info_of(raid_level_at(i), out);
}

int raid_level_get(int level, struct raid_level_info *out)
{
	return info_of(raid_level_find(level), out);
}

double raid_level_data_members(const struct raid_level_info *l, int n)
{
	return (double)(n - l->parity) / (l->copies == RAID_ALL_MEMBERS ? n : l->copies);
}
