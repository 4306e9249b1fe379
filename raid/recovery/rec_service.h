/*
 * rec_service.h - recovery's top layer, what the core calls (raid/recovery/README.md,
 * "Layers"): the service's hooks (service.c), its keys of the stats file (rec_stats.c) and
 * its option rows (options.c), registered by module.c (recovery.h).
 */
#ifndef RAID_REC_SERVICE_H
#define RAID_REC_SERVICE_H

#include "recovery/helpers/rec.h"

/* service.c: what the core calls (core/service.h) */
extern const struct raid_service_ops raid_recovery_service;
/* rec_stats.c: the service's keys of the stats file (its stats hook) */
void raid_rec_stats(struct raid_array *a, void *o);

#endif
