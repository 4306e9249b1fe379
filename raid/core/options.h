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

/* A core row's place in struct raid_config: RAID_OPT_AT(chunk) */
#define RAID_OPT_AT(field)                                                                         \
	.off = offsetof(struct raid_config, field), .size = sizeof(((struct raid_config *)0)->field)
/* A part's row: its place in the part's own options struct (fio's off1), RAID_OPT_IN(struct
 * rec_options, rebuild_max) */
#define RAID_OPT_IN(type, field) .off = offsetof(type, field), .size = sizeof(((type *)0)->field)

struct raid_option_group {
	const char *part;		/* "recovery": each row's .part says it too */
	const struct raid_option *rows; /* ends with {.name = NULL}; .off into the part's struct */
	/*
	 * Bytes of the part's options struct: every configuration gets one, zeroed, before the
	 * defaults are set (raid_config_init), reached by raid_config_part(); the core never
	 * looks inside.
	 */
	size_t size;
	/*
	 * Optional: where the core writes the part's index in raid_config.part[] when it
	 * registers the group, for an accessor (raid_config_part_at) that needs no reference to
	 * the group itself: the files reading the options then depend on a leaf, not on the
	 * file holding the rows (which depends on them for its parsers).
	 */
	int *slot;
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
	/*
	 * Optional: the part's figures for the stats file (SPDK's dump_info_json): add its
	 * keys to the stats object o (a json_object *) of array a. Called in registration
	 * order by raid_array_write_stats.
	 */
	void (*stats)(struct raid_array *a, void *o);
};

/*
 * Add the group's rows to the table: each after the row its .after names (the README's
 * order), else at the end; before any configuration is made; not thread-safe.
 * 0, or -EEXIST when a row's name is taken, -ENOSPC past RAID_OPTIONS_MAX rows (said by raid_log; nothing is added).
 */
int raid_options_register(const struct raid_option_group *g);

/* The part's options struct in configuration c (NULL only for a group never registered). */
void *raid_config_part(const struct raid_config *c, const struct raid_option_group *g);

/* The part's options struct by the index the core wrote in the group's slot; NULL before. */
static inline void *raid_config_part_at(const struct raid_config *c, int slot)
{
	return slot >= 0 && slot < RAID_PARTS_MAX ? c->part[slot] : NULL;
}

/* What config.c and array.c ask of every registered group, in registration order. */
int raid_option_groups_validate(const struct raid_config *c, const struct raid_level_ops *ops,
				char *err, size_t errlen);
void raid_option_groups_free(struct raid_config *c);
int raid_option_groups_dup(struct raid_config *c); /* -ENOMEM: c holds no part then */
void raid_option_groups_stats(struct raid_array *a, void *o);

#endif
