/*
 * member.c - the backends this part registers with the core by name, in the order
 * raid_backend lists them (the synchronous ones, psync, ram and null, run on the core's
 * sync_be.c), and the backends' option rows (raid_null_delay), pointing into their own
 * options struct (backends.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "backends.h"

static const struct raid_option rows[] = {
    {.name = "raid_null_delay", .type = RAID_OPT_INT, .part = "backends",
     .help = "with raid_backend=null: every member I/O takes that many microseconds, in the "
	     "thread that submits it (a member of known latency)",
     .def = "0", .lo = 0, .hi = 1000000, .unit = "a time in microseconds",
     RAID_OPT_IN(struct backend_opts, null_delay_us), .after = "raid_backend"},
    {.name = NULL},
};

static int validate(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
		    size_t errlen)
{
	(void)ops;
	if (member_backend(c->backend) != &member_null_ops &&
	    raid_option_given(c, "raid_null_delay")) {
		snprintf(err, errlen, "raid: raid_null_delay applies only with raid_backend=null");
		return -EINVAL;
	}
	return 0;
}

const struct raid_option_group backend_opts_group = {
    .part = "backends",
    .rows = rows,
    .size = sizeof(struct backend_opts),
    .validate = validate,
};

int raid_backends_register(void)
{
	static const struct member_backend_ops *const mine[] = {&member_uring_ops, &member_aio_ops,
								&member_psync_ops, &member_ram_ops,
								&member_null_ops};
	int ret = raid_options_register(&backend_opts_group);

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]) && !ret; i++)
		ret = member_backend_register(mine[i]);
	return ret;
}
