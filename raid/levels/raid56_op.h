/*
 * raid56_op.h - the stripe operation that raid56.c (its state machine) and raid56_parity.c
 * (its parity step, on the CPU or the GPU) share. Internal to those two files.
 */
#ifndef RAID_RAID56_OP_H
#define RAID_RAID56_OP_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "level_opts.h"
#include "raid56.h"
#include "stripe.h"

#define SCRATCH_KEEP (4u << 20) /* larger scratch buffers go back to the system */
#define SLICE RAID56_SLICE

enum sop_mode { M_DREAD, M_FULL, M_RCW, M_RMW, M_RECON, M_NOPARITY };
enum sop_stage { S_LOCK, S_READ, S_PARITY, S_WRITE };

struct r56_array {
	struct stripe_table *locks;
	struct parity_path *pp;
	const struct pq_calls *pq;
	int par;
	enum raid_rmw_kind rmw;
	atomic_bool said_unaligned;
	struct raid_gpu_info gpu; /* a->gpu points here when the GPU computes parity */
};

struct sop {
	struct raid_request sub; /* first: member I/Os of this op complete into it */
	struct stripe_waiter w;
	struct parity_job job;
	struct raid_queue *q;
	struct raid_request *parent;
	struct sop *next_free;
	enum raid_op op;
	enum sop_mode mode;
	enum sop_stage stage;
	bool locked;
	uint64_t stripe;
	uint64_t lo, hi; /* the columns (offsets in the chunk) this op covers */
	uint64_t failed; /* members of the array failed when the op started */
	uint64_t spare;	 /* of those, the ones being rebuilt past this row: they take writes */
	struct raid56_stripe map;
	/* data chunk i (volume order): its written (or, for reads, wanted) columns */
	uint64_t wa[RAID56_MAX_MEMBERS], wb[RAID56_MAX_MEMBERS];
	uint8_t *old[RAID56_MAX_MEMBERS]; /* RMW: old bytes of chunk i's written columns */
	uint8_t *mb[RAID56_MAX_MEMBERS];  /* member m: columns lo..hi */
	uint8_t *scratch;
	size_t cap;
	uint64_t pns, pbytes;
};

/* The stripes a queue has gathered for its next GPU launch (raid56_parity.c). */
struct r56_gpu_batch {
	int n, cap;			/* cap: raid_gpu_batch, allocated at first use */
	struct parity_job *head, *tail; /* the ops' jobs, chained through next */
	struct pq_gpu_stripe *st;	/* cap stripes */
	void **ptrs;			/* cap x (RAID56_MAX_MEMBERS + 2) block pointers */
};

struct r56_queue {
	struct sop *free;
	struct r56_gpu_batch gb;
};

static inline struct r56_array *R(const struct raid_array *a)
{
	return a->level_priv;
}

static inline uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}
/* ---- geometry helpers ---- */

static inline uint64_t stripe_width(const struct raid_geom *g, int par)
{
	return (uint64_t)(g->n - par) * g->chunk;
}

static inline bool mfailed(const struct sop *s, int m)
{
	return m >= 0 && (s->failed >> m & 1);
}

/* The user's bytes of data chunk i at column c. */
static inline uint8_t *ubuf(const struct sop *s, int i, uint64_t c)
{
	const struct raid_geom *g = &s->q->a->geom;
	uint64_t v = s->stripe * (uint64_t)s->map.k * g->chunk + (uint64_t)i * g->chunk + c;

	return (uint8_t *)s->parent->buf + (v - s->parent->offset);
}

/* Writes go to surviving members, and to a failed one whose spare is rebuilt past this row. */
static inline bool mwrite(const struct sop *s, int m)
{
	return m >= 0 && (!(s->failed >> m & 1) || (s->spare >> m & 1));
}

static inline bool written(const struct sop *s, int i)
{
	return s->wb[i] > s->wa[i];
}

static inline bool fully_written(const struct sop *s, int i)
{
	return s->wa[i] <= s->lo && s->wb[i] >= s->hi;
}

/* raid56.c: the steps after parity (write data and parity), and the end of an op */
void raid56_sop_write(struct sop *s);
void raid56_sop_finish(struct sop *s);
/* raid56_parity.c: the parity step of an op whose reads are done */
void raid56_sop_compute(struct sop *s);
void raid56_gpu_batch_free(struct r56_gpu_batch *b);

#endif
