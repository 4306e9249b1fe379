/*
 * level.c - the table of level personalities this build knows.
 */
#include "level.h"

const struct raid_level_ops *raid_level_find(int level)
{
	static const struct raid_level_ops *const all[] = {&raid0_ops, &raid1_ops, &raid10_ops,
								   &raid5_ops, &raid6_ops};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->level == level)
			return all[i];
	return NULL;
}
