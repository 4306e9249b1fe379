/*
 * service.h - what the core asks of the recovery service (spares, rebuild, scrub, resync,
 * timed failures, the state file: raid/recovery implements it and registers it). Declared
 * here and implemented there, as a level's personality is: the core never includes the
 * service nor names it, and only the array's life (open, a writer joining, the last put,
 * free), the stats and the configuration checks call it, through what was registered. The
 * I/O path never does: the service uses the core through
 * its API (queues, range quiesce, failures and their events, the meter), and what it wants
 * told of each write it hands to admission as a write-intent hook (quiesce.h).
 */
#ifndef RAID_SERVICE_H
#define RAID_SERVICE_H

#include "core.h"

/*
 * What the core must know of a configuration's recovery options before and while an array
 * opens (the registry key, the devices it locks, the files it must not write over, the
 * failures raid_failed keeps): the service reads them from its own options (raid_config's
 * opaque part) for the core, which never looks inside. Zero: none of it.
 */
struct raid_service_cfg {
	int nspares;
	char *const *spares;	   /* devices a rebuild writes over: after the members in m[] */
	const char *state_path;	   /* the file the service keeps (raid_state), or NULL */
	char *const *orig_members; /* per slot, the path before a done replacement, or NULL */
	uint64_t state_failed;	   /* members that file records failed: raid_failed keeps them */
	bool rewrites;		   /* it rewrites members with no job writing (resync, repair) */
	bool rebuild;		   /* a failed member is rebuilt when a spare is free */
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
	/*
	 * What it ran, for the stats file (results/README.md: rebuild, scrub, resync, re_add,
	 * consistency), added to the stats object o (a json_object *) of array a.
	 */
	void (*stats)(struct raid_array *a, void *o);
	/* c's options, as the core needs them (struct raid_service_cfg) */
	void (*config)(const struct raid_config *c, struct raid_service_cfg *out);
	/*
	 * Async-signal-safe: stop what every array of the process runs at the next window
	 * (raid_interrupt(), the public call, is this hook).
	 */
	void (*interrupt)(void);
};


/*
 * The service registered with the core (raid/recovery registers itself from the library's
 * module list, raid/README.md), before the first array; not thread-safe. Every hook is
 * Required. 0, or -EEXIST when one is registered already, -EINVAL when a hook is missing.
 * raid_service() is never NULL: without a registered one, a service that runs nothing.
 */
int raid_service_register(const struct raid_service_ops *ops);
const struct raid_service_ops *raid_service(void);

/* c's recovery options as the core needs them: raid_service()->config's */
static inline struct raid_service_cfg raid_service_cfg(const struct raid_config *c)
{
	struct raid_service_cfg s = {0};

	raid_service()->config(c, &s);
	return s;
}

#endif
