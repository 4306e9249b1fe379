/*
 * levels.c - the levels this part gives the core. The order is the one every listing shows
 * (raid-tool levels, the option table's "0, 1, 5, 6, 10").
 */
#include "level_opts.h"
#include "levels.h"

int raid_levels_register(void)
{
	static const struct raid_level_ops *const mine[] = {&raid0_ops, &raid1_ops, &raid5_ops,
							    &raid6_ops, &raid10_ops};
	int ret = raid_options_register(&level_opts_group);

	if (!ret)
		ret = raid_options_register(&parity_opts_group);
	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]) && !ret; i++)
		ret = raid_level_register(mine[i]);
	return ret;
}
