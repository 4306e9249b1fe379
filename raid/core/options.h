/*
 * options.h - how a part above the core adds its options to the one option table
 * (raid_options, raid.h): a group of rows with the hooks that check and own them. The core
 * parses every row by its type (options.c) and calls the group's hooks; it names no part's
 * option. raid/recovery registers its group from the library's module list (raid/README.md).
 */
#ifndef RAID_OPTIONS_H
#define RAID_OPTIONS_H

#include "raid.h"

struct raid_level_ops;

/* A row's place in struct raid_config: RAID_OPT_AT(rec.rebuild_max) */
#define RAID_OPT_AT(field)                                                                         \
	.off = offsetof(struct raid_config, field), .size = sizeof(((struct raid_config *)0)->field)

struct raid_option_group {
	const char *part;		/* "recovery": each row's .part says it too */
	const struct raid_option *rows; /* ends with {.name = NULL} */
	/*
	 * Optional: the checks across the group's options and the array's, once the level is
	 * known (raid_config_validate calls it after the core's own checks). 0, or -EINVAL
	 * with one line naming the option.
	 */
	int (*validate)(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
			size_t errlen);
	/* Optional: release the strings the group's fields own (raid_config_free) ... */
	void (*free)(struct raid_config *c);
	/* ... and own copies of them after a struct copy of the configuration (an array's) */
	void (*dup)(struct raid_config *c);
};

/*
 * Append the group's rows to the table (after the core's and the groups registered before
 * it), before any configuration is made; not thread-safe. 0, or -EEXIST when a row's name
 * is taken, -ENOSPC past RAID_OPTIONS_MAX rows (said by raid_log; nothing is added).
 */
int raid_options_register(const struct raid_option_group *g);

/* What config.c and array.c ask of every registered group, in registration order. */
int raid_option_groups_validate(const struct raid_config *c, const struct raid_level_ops *ops,
				char *err, size_t errlen);
void raid_option_groups_free(struct raid_config *c);
void raid_option_groups_dup(struct raid_config *c);

#endif
