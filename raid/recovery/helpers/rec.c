/*
 * rec.c - the helpers of recovery's context that every layer calls: the first error kept
 * for raid_array_put, and whether a pass must stop (the array closing, or raid_interrupt()
 * for every array of the process). Below the passes and the service, so that neither calls
 * up into the other to ask.
 */
#include "recovery/helpers/rec.h"

static atomic_bool interrupted; /* raid_interrupt(): every array of the process */

void rec_interrupt(void)
{
	atomic_store(&interrupted, true);
}

bool rec_stopping(struct raid_recovery *rec)
{
	return atomic_load(&rec->stop) || atomic_load(&interrupted);
}

void raid_rec_error(struct raid_recovery *rec, int err)
{
	int none = 0;

	if (err)
		atomic_compare_exchange_strong(&rec->error, &none, err);
}
