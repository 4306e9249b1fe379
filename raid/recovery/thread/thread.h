/*
 * thread.h - recovery's thread (raid/recovery/README.md, "Layers"): the array's recovery
 * thread (rebuild.c), which applies the timed failures, runs the initial resync, the
 * rebuild onto spares and the scrub by calling the passes below it, and saves the state
 * file; the service above starts it.
 */
#ifndef RAID_REC_THREAD_H
#define RAID_REC_THREAD_H

#include "recovery/passes/passes.h"

/* the recovery thread of rec (a struct raid_recovery); the service starts it */
void *rec_thread(void *rec);

#endif
