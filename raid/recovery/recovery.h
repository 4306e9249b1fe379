/*
 * recovery.h - what gives this part to the core: the library's module list
 * (raid/raid_modules.c) calls raid_recovery_register().
 */
#ifndef RAID_RECOVERY_H
#define RAID_RECOVERY_H

/* Register the recovery service and recovery's option rows with the core; 0 or -errno. */
int raid_recovery_register(void);

#endif
