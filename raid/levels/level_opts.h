/*
 * level_opts.h - the options this part owns: RAID 5/6's partial-stripe policy, stripe cache
 * and parity workers (the "levels" rows), and the parity path with its GPU (the "parity"
 * rows: raid/parity is below the core and registers nothing, so its consumer here, the parity
 * path, registers them). Rows, defaults and checks are in level_opts.c; each configuration
 * holds one struct of each (core/options.h), which only this part reads.
 */
#ifndef RAID_LEVEL_OPTS_H
#define RAID_LEVEL_OPTS_H

#include "core/options.h"

/* RAID5/6 partial-stripe writes: md's choice by fewer reads, or one forced (raid_rmw) */
enum raid_rmw_kind { RAID_RMW_AUTO, RAID_RMW_RMW, RAID_RMW_RCW };

enum raid_parity_kind { RAID_PARITY_CPU, RAID_PARITY_ISAL, RAID_PARITY_CUDA, RAID_PARITY_AUTO };

#define RAID_WORKERS_MAX 64
#define RAID_GPU_BATCH_MAX 1024
#define RAID_GPU_MAX 63 /* highest raid_gpu device index accepted */

struct level_opts {
	enum raid_rmw_kind rmw; /* raid_rmw */
	unsigned stripe_cache;	/* raid_stripe_cache: RAID5/6 stripes in flight at most */
	int workers;		/* raid_workers: parity threads, 0 = inline */
};

struct parity_opts {
	enum raid_parity_kind parity; /* raid_parity */
	/* raid_parity=cuda|auto: the GPU */
	int gpu;	/* raid_gpu: CUDA device index */
	int gpu_batch;	/* raid_gpu_batch: most stripes one launch carries */
	int gpu_mapped; /* raid_gpu_mode: 0 copy, 1 mapped (zero-copy) */
};

extern const struct raid_option_group level_opts_group, parity_opts_group;

static inline const struct level_opts *level_opts(const struct raid_config *c)
{
	return raid_config_part(c, &level_opts_group);
}

static inline const struct parity_opts *parity_opts(const struct raid_config *c)
{
	return raid_config_part(c, &parity_opts_group);
}

#endif
