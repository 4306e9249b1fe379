/*
 * backends.h - the backends of this part (struct member_backend_ops, raid/core/member.h)
 * and what gives them to the core: the library's
 * module list (raid/raid_modules.c) calls raid_backends_register().
 */
#ifndef RAID_BACKENDS_H
#define RAID_BACKENDS_H

#include "core/core.h"
#include "core/options.h"

extern const struct member_backend_ops member_uring_ops;
extern const struct member_backend_ops member_aio_ops;
extern const struct member_backend_ops member_psync_ops;
extern const struct member_backend_ops member_ram_ops;
extern const struct member_backend_ops member_null_ops;
/* raid_inject: wraps the array's backend (a->be) in the queues of an array that injects */
extern const struct member_backend_ops member_fault_ops;

/* The backends' options (member.c registers the rows): one struct per configuration */
struct backend_opts {
	int null_delay_us; /* raid_null_delay: the null backend's member I/O latency */
};
extern const struct raid_option_group backend_opts_group;

static inline const struct backend_opts *backend_opts(const struct raid_config *c)
{
	return raid_config_part(c, &backend_opts_group);
}

/* Register every backend and the backends' option rows with the core; 0 or -errno. */
int raid_backends_register(void);
/*
 * Register the injecting decorator and its option row (raid_inject, which the table lists
 * after recovery's raid_fail: called after raid_recovery_register); 0 or -errno.
 */
int raid_inject_register(void);

#endif
