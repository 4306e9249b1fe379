/*
 * level.c - the table of level personalities this build knows, and their facts as the
 * public API shows them (raid_level_get: config, raid-tool levels, the tests).
 */
#include <errno.h>

#include "level.h"

static const struct raid_level_ops *const all[] = {&raid0_ops, &raid1_ops, &raid5_ops,
						       &raid6_ops, &raid10_ops};

const struct raid_level_ops *raid_level_at(unsigned i)
{
	return i < sizeof(all) / sizeof(all[0]) ? all[i] : NULL;
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
