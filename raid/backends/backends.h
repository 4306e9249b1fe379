/*
 * backends.h - the backends of this part (struct member_backend_ops, raid/core/member.h)
 * and what gives them to the core: the library's
 * module list (raid/raid_modules.c) calls raid_backends_register().
 */
#ifndef RAID_BACKENDS_H
#define RAID_BACKENDS_H

#include "core/core.h"

extern const struct member_backend_ops member_uring_ops;
extern const struct member_backend_ops member_aio_ops;
extern const struct member_backend_ops member_psync_ops;
extern const struct member_backend_ops member_ram_ops;
extern const struct member_backend_ops member_null_ops;
/* raid_inject: wraps the array's backend (a->be) in the queues of an array that injects */
extern const struct member_backend_ops member_fault_ops;

/* Register every backend with the core; 0 or -errno. */
int raid_backends_register(void);
/*
 * Register the injecting decorator and its option row (raid_inject, which the table lists
 * after recovery's raid_fail: called after raid_recovery_register); 0 or -errno.
 */
int raid_inject_register(void);

#endif
