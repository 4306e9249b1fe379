/*
 * raid56.h - the hooks RAID5 (raid5.c) and RAID6 (raid6.c) share, implemented in raid56.c
 * on the stripe lock table (stripe.c) and the parity path (parity_path.c).
 */
#ifndef RAID_RAID56_H
#define RAID_RAID56_H

#include "core/level.h"
#include "layout.h"

/* Most columns one stripe operation, and so one GPU stripe, covers (bounds their buffers). */
#define RAID56_SLICE (64ULL << 10)
/* md's four RAID5/6 layouts, which both levels accept */
#define RAID56_LAYOUTS                                                                             \
	(1u << RAID_LAYOUT_LEFT_SYM | 1u << RAID_LAYOUT_LEFT_ASYM | 1u << RAID_LAYOUT_RIGHT_SYM |  \
	 1u << RAID_LAYOUT_RIGHT_ASYM)
#include "parity_path.h"

uint64_t raid56_size(const struct raid_geom *g);
int raid56_map(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg);
int raid56_start(struct raid_queue *q, struct raid_request *r);
int raid56_advance(struct raid_queue *q, struct raid_request *r);
int raid56_array_init(struct raid_array *a, char *err, size_t errlen);
void raid56_array_exit(struct raid_array *a);
/* The CPU's parity variant of the array (raid_parity=cpu|isal, and the GPU path's CPU side) */
const struct pq_calls *raid56_calls(const struct raid_array *a);
void raid56_queue_exit(struct raid_queue *q);
/* launch the queue's gathered GPU stripes now (the queue_commit hook; raid56_parity.c) */
void raid56_gpu_flush(struct raid_queue *q);
/*
 * Recovery windows on the GPU (raid56_parity.c), for the rebuild thread: whether a buffer is
 * pinned for it, and n stripes run in launches of raid_gpu_batch, waited for. False when the
 * GPU did not compute them all (none, refused, failed): the caller computes on the CPU.
 */
bool raid56_gpu_pinned(struct raid_array *a, const void *buf, size_t len);
bool raid56_gpu_run(struct raid_array *a, const struct pq_gpu_stripe *st, int n);
int raid56_buf_register(struct raid_array *a, void *buf, size_t len);
void raid56_buf_unregister(struct raid_array *a, void *buf);

#endif
