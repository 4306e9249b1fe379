/*
 * level.h - a RAID level as a personality (SPDK style): its limits as data and its
 * behaviour as hooks. One const instance per level (raid/levels: raid0.c, raid1.c, raid10.c,
 * raid5.c, raid6.c), registered with the core (raid_level_register below): the core (array.c,
 * queue.c) never switches on the level number and names no level.
 *
 * Request flow: the core calls start(); a level issues member I/Os with raid_mio_issue()
 * or parks the request (raid_request_hold) to be resumed by a raid_post from another
 * thread. When a request's pending member I/Os reach zero the core calls advance(), which
 * either issues the next step and returns 0, or returns 1: the request is complete. Levels
 * without steps (0, 1, 10) leave advance NULL and use the generic planner (plan.c).
 */
#ifndef RAID_LEVEL_H
#define RAID_LEVEL_H

#include "core.h"

#define RAID_MAX_COPIES 64
#define RAID_ROWS_NOMEM UINT64_MAX /* rows_check could not allocate its scratch */

/*
 * The facts (level .. default_layout) are the level's one source: config checks against
 * them, raid_level_get() shows them (struct raid_level_info, raid.h) to raid-tool levels,
 * run.sh and raid-hwinfo.
 */
struct raid_level_ops {
	int level;
	const char *name; /* "raid0" */
	int min_members;  /* Required */
	int max_failed;	  /* Required: members it can lose, or RAID_ALL_BUT_ONE */
	int parity;	  /* parity members per stripe row (RAID5 1, RAID6 2) */
	int copies;	  /* Required: copies of each data chunk, or RAID_ALL_MEMBERS */
	bool uses_chunk;  /* the chunk matters to the layout */
	unsigned layouts; /* the raid_layout values it accepts, bit (1 << kind); 0: none */
	enum raid_layout_kind default_layout;
	/* Required: volume size in bytes from the geometry (member_size already set) */
	uint64_t (*size)(const struct raid_geom *g);
	/*
	 * Optional: whether this particular failed set can still serve every byte (RAID10
	 * loses data only when both copies of some chunk are gone). 0, or -EINVAL with a
	 * message naming the members.
	 */
	int (*check_failed)(const struct raid_geom *g, uint64_t failed, char *const *paths,
			    char *err, size_t errlen);
	/*
	 * Required by the generic planner: every copy of volume byte `off` (returns how
	 * many) and, in *seg, how many bytes from `off` keep the same mapping.
	 */
	int (*map)(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg);
	/* Optional: replaces the generic planner (parity levels); returns 0 or -errno */
	int (*start)(struct raid_queue *q, struct raid_request *r);
	/* Optional: next step once a request's member I/Os are done; 1 when complete */
	int (*advance)(struct raid_queue *q, struct raid_request *r);
	/*
	 * Optional, for rebuild, scrub and resync (rebuild.c, scrub.c; docs/rebuild.md).
	 * Recovery walks the members in windows of whole rows: [moff, moff + len) on every
	 * member. span: the volume range stored or protected in such a window, which the
	 * window locks against foreground writes. Mirror levels give unmap (the volume byte
	 * a member byte holds, and in *seg for how many bytes the mapping stays contiguous;
	 * recovery copies it from a surviving copy that map names); parity levels give the
	 * row hooks, which see every member's bytes of the window in bufs[member].
	 */
	void (*span)(const struct raid_geom *g, uint64_t moff, uint64_t len, uint64_t *voff,
		     uint64_t *vlen);
	void (*unmap)(const struct raid_geom *g, int member, uint64_t moff, uint64_t *voff,
		      uint64_t *seg);
	/* recompute the members in the `lost` bitmask from the others */
	void (*rows_recover)(struct raid_array *a, uint64_t moff, uint64_t len, uint64_t lost,
			     void **bufs);
	/*
	 * Count the stripes whose parity does not match their data; with `fix`, recompute it
	 * in bufs and set in *rewrite the members to write back. RAID_ROWS_NOMEM: no memory
	 * to check with (nothing was counted: never report it as 0 mismatches).
	 */
	uint64_t (*rows_check)(struct raid_array *a, uint64_t moff, uint64_t len, void **bufs,
			       bool fix, uint64_t *rewrite);
	/* Optional: per-array state (stripe locks, parity workers) in a->level_priv */
	int (*array_init)(struct raid_array *a, char *err, size_t errlen);
	void (*array_exit)(struct raid_array *a);
	/* Optional: free q->level_priv once the queue has nothing in flight */
	void (*queue_exit)(struct raid_queue *q);
	/*
	 * Optional: the queue is about to hand its member I/O to the backend (raid_commit, which
	 * raid_reap also runs before it would block): hand on work gathered since the last
	 * commit (RAID5/6's batch of GPU stripes).
	 */
	void (*queue_commit)(struct raid_queue *q);
	/*
	 * Optional: a caller's I/O buffers, to be read in place by a parity GPU (RAID5/6 with
	 * raid_parity=cuda pins them). 0 when done or not needed; unregister undoes it.
	 */
	int (*buf_register)(struct raid_array *a, void *buf, size_t len);
	void (*buf_unregister)(struct raid_array *a, void *buf);
};

/*
 * A level joins the table (raid/levels does it for its own, from the library's module list:
 * raid/README.md). Before the first array; not thread-safe. 0, or -EEXIST when its number
 * is taken, -EINVAL when it lacks a Required hook or the table is full (said by raid_log).
 */
int raid_level_register(const struct raid_level_ops *ops);
/* The personality of a level, or NULL when this build has none. */
const struct raid_level_ops *raid_level_find(int level);
/* The i-th personality of the table, from 0; NULL past the last. */
const struct raid_level_ops *raid_level_at(unsigned i);

/* The generic planner for mirror/stripe levels: plan.c. */
int raid_plan_start(struct raid_queue *q, struct raid_request *r);
/*
 * Split [off, off+len) by the level's map into member extents, for reads choosing one
 * copy per extent (fewest outstanding I/Os, skipping failed members) and for writes every
 * surviving copy. Calls emit() per member extent, merging extents contiguous on a member.
 * Returns 0, or -EIO when some extent has no surviving copy (*lost_off set).
 */
struct raid_extent {
	int member;
	uint64_t moff;
	uint64_t voff; /* volume offset, for the caller's buffer */
	uint64_t len;
};
int raid_plan_split(struct raid_array *a, unsigned *rr, enum raid_op op, uint64_t off, uint64_t len,
		    void (*emit)(void *ctx, const struct raid_extent *e), void *ctx,
		    uint64_t *lost_off, bool *degraded);

#endif
