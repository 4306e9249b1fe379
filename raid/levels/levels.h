/*
 * levels.h - the personalities of this part (raid0.c .. raid10.c), and what gives them to
 * the core: the library's module list (raid/raid_modules.c) calls raid_levels_register().
 */
#ifndef RAID_LEVELS_H
#define RAID_LEVELS_H

#include "core/level.h"

extern const struct raid_level_ops raid0_ops;
extern const struct raid_level_ops raid1_ops;
extern const struct raid_level_ops raid10_ops;
extern const struct raid_level_ops raid5_ops;
extern const struct raid_level_ops raid6_ops;

/* Register every level with the core, in the order its tables list them; 0 or -errno. */
int raid_levels_register(void);

#endif
