/*
 * merge.h - the queue's plug (merge.c): member I/Os issued between two commits are held and,
 * at raid_commit(), contiguous ones of one device and direction go to the backend as one
 * vectored member I/O (a carrier). Also the two queue.c services merge.c completes parts
 * with. Internal to queue.c and merge.c.
 */
#ifndef RAID_MERGE_H
#define RAID_MERGE_H

#include "core.h"

#define MERGE_MAX_PARTS 64	     /* iovec entries of one carrier (IOV_MAX is 1024) */
#define MERGE_MAX_BYTES (1ULL << 20) /* bytes of one carrier, like a block queue's max_sectors */

/* Hold a member I/O until the next commit (raid_merge=1). */
void merge_plug(struct raid_queue *q, struct member_io *mio);
/* Commit time: merge what is held and hand it to the backend in issue order. */
void merge_unplug(struct raid_queue *q);
/* A carrier moved only `moved` bytes: complete the parts it covered, re-issue the rest. */
void merge_short(struct raid_queue *q, struct member_io *carrier, uint64_t moved);
/* A carrier's final result (queue.c's raid_mio_finish): every part completes with it. */
void merge_complete(struct raid_queue *q, struct member_io *carrier, int res);
/* Free the queue's carriers (none may be in flight). */
void merge_exit(struct raid_queue *q);

/* queue.c: hand one member I/O to the backend, or to the backlog when it is full */
void raid_mio_to_backend(struct raid_queue *q, struct member_io *mio);
/* queue.c: complete one request part with this result (already said and counted) */
void raid_mio_complete(struct raid_queue *q, struct member_io *mio, int res);
/* queue.c: report a member error once per array, and count it */
void raid_mio_error(struct raid_queue *q, struct member_io *mio, int res);

#endif
