/*
 * params.h - what raid-ublk tells the ublk driver about the array (block sizes, io_min,
 * io_opt, the largest request) and its command line's small parsers, kept apart from the
 * device code so that the arithmetic is unit-tested on any kernel (params_test.c).
 */
#ifndef TOOLS_UBLK_PARAMS_H
#define TOOLS_UBLK_PARAMS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ublk_uapi.h"

struct ublk_geom {
	int data_members;    /* members' worth of data in a stripe row */
	bool uses_chunk;     /* the level stripes by raid_chunk (not RAID1) */
	uint64_t chunk;	     /* raid_chunk, bytes */
	uint64_t volume;     /* raid_array_size / raid_probe */
	unsigned member_lbs; /* the members' largest logical block (512 for files) */
	unsigned max_io;     /* bytes one request may carry (the per-tag buffer) */
};

/*
 * The driver's basic parameters for g: logical block = the members' (512 or 4096),
 * physical block = the chunk (capped at 4096: the block layer takes no larger page-sized
 * unit; 4096 without a chunk), io_min = the chunk, io_opt = the stripe width (data members x
 * chunk) where it is a power of two, else its largest power-of-two divisor (the driver
 * carries io_opt as a shift). No discard or write-zeroes: the engine has no such request.
 * -EINVAL with a message when the volume is not a whole number of logical blocks.
 */
int ublk_params_make(const struct ublk_geom *g, struct ru_params *p, char *err, size_t errlen);
/* The stripe width the array would like written whole (bytes; io_opt before the shift). */
uint64_t ublk_stripe_width(const struct ublk_geom *g);

/* "0-3,8,10-11" -> set; -EINVAL on junk or a CPU past CPU_SETSIZE. */
int ublk_parse_cpus(const char *s, cpu_set_t *set);
/* "/dev/ublkb7" or "7" -> 7; -EINVAL otherwise. */
int ublk_parse_id(const char *s);

#endif
