/*
 * rec_opts.h - recovery's options: spares, rebuild, failures during a run, scrub, initial
 * resync, the state file and the write-intent bitmap (docs/rebuild.md). The rows are in
 * options.c, pointing into struct raid_recovery_config (RAID_OPT_IN); every configuration
 * holds one, which the core keeps as an opaque pointer (core/options.h) and only this part
 * reads: rec_cfg(). What the core must know of it, it asks the service (core/service.h).
 */
#ifndef RAID_REC_OPTS_H
#define RAID_REC_OPTS_H

#include "core/options.h"

enum raid_scrub_mode { RAID_SCRUB_OFF, RAID_SCRUB_CHECK, RAID_SCRUB_REPAIR };

struct raid_fail_at {
	int member;
	double at_s; /* seconds after the array is opened */
};

struct raid_recovery_config {
	int nspares;
	char *spares[RAID_MAX_MEMBERS];
	bool rebuild;
	uint64_t rebuild_min, rebuild_max; /* bytes per second (the options are MB/s) */
	int rebuild_workers; /* threads recovering windows side by side (rebuild_crew.c) */
	int nfail;
	struct raid_fail_at fail[RAID_MAX_MEMBERS];
	enum raid_scrub_mode scrub;
	bool resync; /* raid_init=resync */
	char *state_path;
	/* from the state file: slot i is served by replaced[i] (a former spare), NULL: itself */
	char *replaced[RAID_MAX_MEMBERS];
	/* from the state file: slot i was being rebuilt onto spare resume_spare[i] - 1 */
	int resume_spare[RAID_MAX_MEMBERS];
	uint64_t resume_off[RAID_MAX_MEMBERS];
	/*
	 * Also from the state file (state.c), checked when the array opens: what it recorded
	 * of the array (geometry, the identity of the device in each slot and of each spare
	 * being rebuilt), the failures it added to raid_failed, and the dirty mark.
	 */
	uint64_t state_failed;
	bool state_geom; /* a geometry was recorded (older files have none) */
	int state_level, state_layout;
	uint64_t state_chunk, state_member_size;
	char *state_id[RAID_MAX_MEMBERS], *state_serial[RAID_MAX_MEMBERS];
	char *state_eui[RAID_MAX_MEMBERS];
	char *resume_id[RAID_MAX_MEMBERS], *resume_serial[RAID_MAX_MEMBERS];
	char *resume_eui[RAID_MAX_MEMBERS];
	char *orig_members[RAID_MAX_MEMBERS]; /* raid_members before a done replacement */
	bool state_dirty;		      /* writes were running when it was last saved */
	/*
	 * The file as this configuration read it (absent, or which file: every save renames a
	 * new one over it), checked again once the array holds the file's lock (state.c).
	 */
	struct raid_file_seen {
		bool exists;
		uint64_t dev, ino, size, mtime_ns;
	} state_read;
	bool start_dirty_degraded; /* raid_start_dirty_degraded=1 */
	/* the write-intent bitmap (recovery/intent.c): on, its region (0: the default) */
	bool bitmap;
	uint64_t bitmap_chunk;
	uint64_t re_add; /* raid_re_add: members back from the state file's failed list */
};

extern const struct raid_option_group raid_rec_options;
/* raid_config.part[]'s index of recovery's options, written once by the core when
 * module.c registers them (rec_opts.c: a leaf, so that reading the options depends on
 * nothing of options.c, whose rows depend on the parsers) */
extern int rec_opts_slot;

/* c's recovery options (never NULL once recovery is registered: it registers them) */
static inline struct raid_recovery_config *rec_cfg(const struct raid_config *c)
{
	return raid_config_part_at(c, rec_opts_slot);
}

#endif
