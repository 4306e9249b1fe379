/*
 * service.h - what the core asks of the recovery service (spares, rebuild, scrub, resync,
 * timed failures, the state file: raid/recovery implements it and registers it). Declared
 * here and implemented there, as a level's personality is: the core never includes the
 * service nor names it, and only the array's life (open, a writer joining, the last put,
 * free) and the stats call it, through what was registered. The I/O path never does: the service uses the core through
 * its API (queues, range quiesce, failures and their events, the meter), and what it wants
 * told of each write it hands to admission as a write-intent hook (quiesce.h).
 */
#ifndef RAID_SERVICE_H
#define RAID_SERVICE_H

#include "core.h"

enum raid_rec_phase { RAID_REC_BEFORE, RAID_REC_DURING, RAID_REC_AFTER };

/* One per-second sample of the foreground while a rebuild is measured. */
struct raid_rec_sample {
	double t;
	enum raid_rec_phase phase;
	double iops, mbps, lat_mean_us, lat_p99_us;
};

/* What the service ran, for the stats file (valid until the array is freed). */
struct raid_rec_snapshot {
	int nrebuilt; /* members a rebuild started on; 0: none */
	int members[RAID_MAX_MEMBERS];
	const char *spares[RAID_MAX_MEMBERS];
	bool rebuild_done;
	double start_s, end_s, wait_s;
	uint64_t bytes; /* per rebuilt member */
	const struct raid_rec_sample *samples;
	size_t nsamples;
	bool scrubbed;
	uint64_t stripes, mismatches, repaired;
	bool resynced;
	uint64_t resync_bytes; /* per member */
	double resync_s;
	bool resync_bitmap;    /* only the regions the write-intent bitmap had set */
	uint64_t bitmap_chunk; /* bytes of member rows one bit covers; 0: no bitmap */
	uint64_t bitmap_syncs; /* bits made durable before a write (each one waited) */
	uint64_t re_added;     /* members re-added (raid_re_add), bit i: member i */
	uint64_t re_add_bytes; /* per member */
	double re_add_s;
};

struct raid_service_ops {
	/* the spares, before the members are locked (created at member size if missing) */
	int (*probe)(struct raid_array *a, char *err, size_t errlen);
	/* the array is open and its level ready: start (sets a->rec when there is work) */
	int (*open)(struct raid_array *a, char *err, size_t errlen);
	/* a job that writes joined the array: mark the state dirty before its first write */
	int (*writer)(struct raid_array *a, char *err, size_t errlen);
	/* the last put: finish what must finish; returns the service's first error */
	int (*stop)(struct raid_array *a);
	void (*free)(struct raid_array *a);
	/* false when the service has run nothing */
	bool (*snapshot)(struct raid_array *a, struct raid_rec_snapshot *out);
};

/*
 * The service registered with the core (raid/recovery registers itself from the library's
 * module list, raid/README.md), before the first array; not thread-safe. Every hook is
 * Required. 0, or -EEXIST when one is registered already, -EINVAL when a hook is missing.
 * raid_service() is never NULL: without a registered one, a service that runs nothing.
 */
int raid_service_register(const struct raid_service_ops *ops);
const struct raid_service_ops *raid_service(void);

#endif
