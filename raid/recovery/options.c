/*
 * options.c - recovery's rows of the engine's option table (spares, rebuild and its rates,
 * timed failures, scrub, the initial state, the state file), with the hooks
 * that check them across options and own their strings. The core parses each row by its
 * type and calls these hooks through what was registered (core/options.h); the rows reach
 * fio, --enghelp and the README's table from the one table.
 */
#include <errno.h>
#include <stddef.h>

#include "recovery/passes/passes.h" /* REC_WORKERS_MAX */
#include "recovery/rec_service.h"

#define IN(f) RAID_OPT_IN(struct raid_recovery_config, f)

static const struct raid_opt_value scrub_values[] = {
    {"check", RAID_SCRUB_CHECK, "count mismatches, md's mismatch_cnt"},
    {"repair", RAID_SCRUB_REPAIR, "and rewrite them"},
    {NULL, 0, NULL},
};
static const struct raid_opt_value init_values[] = {
    {"resync", 1, "compute parity over the whole array first"},
    {"assume-clean", 0, NULL},
    {NULL, 0, NULL},
};

static const struct raid_option rows[] = {
    {.name = "raid_spares", .type = RAID_OPT_PATHS, .part = "recovery",
     .help = "spares to rebuild onto", .def_doc = "none", IN(spares),
     .count_off = offsetof(struct raid_recovery_config, nspares)},
    {.name = "raid_rebuild", .type = RAID_OPT_BOOL, .part = "recovery",
     .help = "1: rebuild failed members onto spares while the job runs", .def = "0",
     IN(rebuild)},
    {.name = "raid_fail", .type = RAID_OPT_LIST, .part = "recovery",
     .help = "fail member IDX that many seconds after the start", .def_doc = "none",
     .syntax = "IDX@SECONDS, ','-separated", .parse = raid_rec_parse_fail},
    {.name = "raid_scrub", .type = RAID_OPT_ENUM, .part = "recovery",
     .help = "compare (and rewrite) parity and mirrors", .def_doc = "none",
     .values = scrub_values, IN(scrub)},
    {.name = "raid_init", .type = RAID_OPT_ENUM, .part = "recovery",
     .help = "the array's initial state", .def = "assume-clean", .values = init_values,
     IN(resync)},
    {.name = "raid_state", .type = RAID_OPT_PATH, .part = "recovery",
     .help = "JSON file keeping failed members, spares and rebuild progress across runs",
     .def_doc = "none", IN(state_path), .then = raid_rec_state_load},
    {.name = "raid_rebuild_min", .type = RAID_OPT_RATE, .part = "recovery",
     .help = "rebuild rate the foreground cannot push below (md's speed_limit_min)",
     .def = "1", .def_doc = "md's", .hi = 1000000000, IN(rebuild_min)},
    {.name = "raid_rebuild_max", .type = RAID_OPT_RATE, .part = "recovery",
     .help = "highest rebuild rate (md's speed_limit_max)", .def = "200", .def_doc = "md's",
     .hi = 1000000000, IN(rebuild_max)},
    {.name = "raid_rebuild_workers", .type = RAID_OPT_INT, .part = "recovery",
     .help = "threads recovering rebuild windows side by side, each with its own queue; 1: "
	     "the recovery thread alone",
     .def = "4", .lo = 1, .hi = REC_WORKERS_MAX, .unit = "a thread count",
     IN(rebuild_workers)},
    {.name = "raid_start_dirty_degraded", .type = RAID_OPT_BOOL, .part = "recovery",
     .help = "1: start a degraded RAID 5/6 whose last run did not end cleanly (md's "
	     "start_dirty_degraded)",
     .def = "0", IN(start_dirty_degraded)},
    {.name = "raid_bitmap", .type = RAID_OPT_BOOL, .part = "recovery",
     .help = "1: a write-intent bitmap beside raid_state (its path + \".bitmap\"): an unclean "
	     "start resyncs only the regions being written, a re-added member gets only what it "
	     "missed",
     .def = "0", IN(bitmap)},
    {.name = "raid_bitmap_chunk", .type = RAID_OPT_SIZE, .part = "recovery",
     .help = "member bytes one bit of the bitmap covers (md's --bitmap-chunk)",
     .def_doc = "a 2048th of a member, 64k to 64m", .lo = 65536, .hi = 256 << 20, .pow2 = true,
     IN(bitmap_chunk)},
    {.name = "raid_re_add", .type = RAID_OPT_LIST, .part = "recovery",
     .help = "members the state file records failed, back at their path: copy them only the "
	     "regions the bitmap says they missed (mdadm --re-add)",
     .def_doc = "none", .syntax = "IDX, ','-separated", .parse = raid_rec_parse_re_add},
    {.name = NULL},
};

/* The checks that need the level: its redundancy, and its default layout for the file's */
static int validate(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
		    size_t errlen)
{
	int layout = c->layout ? (int)c->layout : (int)ops->default_layout;

	if (raid_rec_config_validate(c, ops->max_failed != 0, err, errlen) ||
	    raid_rec_state_check_geometry(c, layout, err, errlen))
		return -EINVAL;
	return 0;
}

const struct raid_option_group raid_rec_options = {
    .part = "recovery",
    .rows = rows,
    .size = sizeof(struct raid_recovery_config),
    .slot = &rec_opts_slot,
    .validate = validate,
    .free = raid_rec_config_free,
    .dup = raid_rec_config_dup,
};
