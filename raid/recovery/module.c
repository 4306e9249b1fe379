/*
 * module.c - what recovery gives the core: its service (service.c) and its option rows
 * (options.c). The core names neither; it calls what was registered.
 */
#include "recovery/helpers/rec_opts.h"
#include "recovery/rec_service.h"
#include "recovery.h"

int raid_recovery_register(void)
{
	int ret = raid_service_register(&raid_recovery_service);

	return ret ? ret : raid_options_register(&raid_rec_options);
}
