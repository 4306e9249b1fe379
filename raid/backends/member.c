/*
 * member.c - the backends this part registers with the core (the synchronous ones, psync,
 * ram and null, run on the core's sync_be.c).
 */
#include <stddef.h>

#include "backends.h"

int raid_backends_register(void)
{
	static const struct member_backend_ops *const mine[] = {&member_uring_ops, &member_aio_ops,
								&member_psync_ops, &member_ram_ops,
								&member_null_ops};
	int ret = 0;

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]) && !ret; i++)
		ret = member_backend_register(mine[i]);
	return ret;
}
