/*
 * sizes.c - the plan's arithmetic (raid-preset plan): an array's volume as the engine sizes
 * it, each job's span and offset, a resync test's span, the published figures at a scale and
 * a test's run time. Pure functions over the engine's level table: print_test (plan.c) fills
 * a plan_shape, gets its plan_sizes and prints them; sizes_test.c checks them case by case.
 */
#include <stdlib.h>
#include <string.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

unsigned long long plan_volume(const struct raid_level_info *l, int n,
			       unsigned long long member_bytes, unsigned long long chunk)
{
	unsigned long long unit = l->uses_chunk ? chunk : member_bytes;
	int copies = l->copies == RAID_ALL_MEMBERS ? n : l->copies;

	return member_bytes / unit * (unsigned long long)(n - l->parity) / copies * unit;
}

long plan_scaled(const char *pub, double scale)
{
	long v = (long)(atof(pub) * scale + 0.5);

	return v < 1 ? 1 : v;
}

void plan_job_span(const char *rw, unsigned long long vol, unsigned long long span,
		   unsigned long long bs, long numjobs, int jbod_members, unsigned long long *size,
		   unsigned long long *offset)
{
	unsigned long long slice = span / numjobs / bs * bs;

	*size = vol;
	*offset = 0;
	if (strncmp(rw, "rand", 4) && slice >= bs) {
		*size = jbod_members ? slice * jbod_members : slice;
		*offset = slice;
	}
}

/* The part of the volume the writes before the stop cover: 1/64 of it (at least one block),
 * so that a bitmap's resync has less to do than the full one; the same span for every job */
unsigned long long resync_span(unsigned long long vol, unsigned long long bs)
{
	unsigned long long span = vol / 64 / bs * bs;

	return span < bs ? bs : span;
}

void plan_sizes(const struct plan_shape *s, struct plan_sizes *z)
{
	*z = (struct plan_sizes){.per = s->msize / s->chunk * s->chunk, .run_time = s->runtime};
	/* a rebuild's workload runs long enough for the rebuild to end under it */
	if (s->rebuild_job)
		z->run_time *= 4;
	if (z->run_time < s->steady_max)
		z->run_time = s->steady_max;
	if (s->jbod)
		plan_job_span(s->rw, z->per * s->members, z->per, s->bs, s->numjobs, s->members,
			      &z->size, &z->off);
	else if (s->l)
		z->vol = plan_volume(s->l, s->members, z->per, s->chunk),
		plan_job_span(s->rw, z->vol, z->vol, s->bs, s->numjobs, 0, &z->size, &z->off);
	if (s->resync)
		z->size = resync_span(z->vol, s->bs), z->off = 0;
}
