/*
 * resync.c - the plan of a resync test (state "resync" and "resync-bitmap"): what the run
 * layer needs to stop an array uncleanly and time the resync of its next start
 * (run/recovery.sh, docs/rebuild.md "Resync after an unclean stop").
 *
 * A preset's "@resync" plans two tests per array and target: "resync", the full resync the
 * dirty mark asks for (the engine's raid_state; md without a bitmap), and "resync-bitmap",
 * the write-intent bitmap's (the engine's raid_bitmap=1; md's --bitmap=internal), which
 * resyncs only the regions being written when the array stopped.
 */
#include <stdio.h>
#include <string.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/* One bit of the write-intent bitmap covers this much of each member, for both targets
 * (raid_bitmap_chunk, mdadm --bitmap-chunk): small against the members of a scaled run,
 * so that the writes below dirty a few regions and not all of them */
#define RESYNC_BITMAP_CHUNK (1ULL << 20)

/* A rebuilding test's reference (run/recovery.sh): how many members its rebuild of member 0
 * reads, the data members of a row less the lost one plus P (k), or one mirror copy */
void rebuild_fields(const struct raid_level_info *l, int members)
{
	field("rebuild_reads", "%d", l->parity > 0 ? members - l->parity : 1);
}

bool resync_state(const char *state)
{
	return !strcmp(state, "resync") || !strcmp(state, "resync-bitmap");
}

void resync_fields(const struct opts *o, const char *array, const char *state, bool engine,
		   unsigned long long run_time, unsigned long long span)
{
	bool bitmap = !strcmp(state, "resync-bitmap");

	field("consistency", "%s", bitmap ? "bitmap" : "resync");
	field("bitmap_chunk", "%llu", bitmap ? RESYNC_BITMAP_CHUNK : 0);
	/* seconds of writes before fio is killed: half the test's, at least one */
	field("crash_s", "%llu", run_time / 2 ? run_time / 2 : 1);
	field("resync_span", "%llu", span);
	if (!engine)
		return;
	field("state_file", "%s/%s/resync-state.json", o->scratch, array);
	field("arg", "--raid_state=%s/%s/resync-state.json", o->scratch, array);
	if (bitmap) {
		field("arg", "--raid_bitmap=1");
		field("arg", "--raid_bitmap_chunk=%llu", RESYNC_BITMAP_CHUNK);
	}
}
