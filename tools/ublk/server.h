/*
 * server.h - one ublk device served by one array: the control commands, the queue threads
 * (one io_uring each: FETCH_REQ, then COMMIT_AND_FETCH_REQ per request) and the stop.
 * main.c owns the command line, the daemon and the /run/raid-ublk files.
 */
#ifndef TOOLS_UBLK_SERVER_H
#define TOOLS_UBLK_SERVER_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "raid/core/raid.h"

struct ublk_opts {
	int id; /* -1: the driver's choice */
	unsigned queues, depth, max_io;
	bool recover;
	bool direct;
	bool pin;
	cpu_set_t cpus;
};

struct ublk_srv;

#define UBLK_CONTROL "/dev/ublk-control"

/*
 * Add (or, with o->recover, take over) the device for array a and start serving it; on
 * return the device accepts I/O. On failure nothing is left behind (a device it added is
 * deleted) and err says why.
 */
int ublk_srv_start(struct raid_array *a, const struct ublk_opts *o, unsigned member_lbs,
		   const struct raid_level_info *li, int nmembers, uint64_t chunk,
		   struct ublk_srv **out, char *err, size_t errlen);
int ublk_srv_id(const struct ublk_srv *s);
/* Stop the device (the kernel drains it through the queues first), join the queues, delete
 * it. Returns 0 or the first error. */
int ublk_srv_stop(struct ublk_srv *s);

/* Delete device id whose server is gone (its waiting requests fail). */
int ublk_dev_delete(int id, char *err, size_t errlen);

#endif
