/*
 * params.c - the ublk parameters of an array and the command line's parsers (params.h).
 */
#include "params.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned ilog2_u64(uint64_t v)
{
	unsigned s = 0;

	while (v > 1) {
		v >>= 1;
		s++;
	}
	return s;
}

/* the largest power of two dividing v (v > 0) */
static uint64_t pow2_part(uint64_t v)
{
	return v & -v;
}

uint64_t ublk_stripe_width(const struct ublk_geom *g)
{
	uint64_t unit = g->uses_chunk ? g->chunk : 4096;

	return unit * (uint64_t)(g->data_members > 0 ? g->data_members : 1);
}

int ublk_params_make(const struct ublk_geom *g, struct ru_params *p, char *err, size_t errlen)
{
	unsigned lbs = g->member_lbs > 512 ? g->member_lbs : 512;
	uint64_t unit = g->uses_chunk ? g->chunk : 4096;
	uint64_t pbs = unit < 4096 ? unit : 4096;
	uint64_t opt = pow2_part(ublk_stripe_width(g));

	if (lbs > 4096 || (lbs & (lbs - 1))) {
		snprintf(err, errlen, "raid-ublk: members' logical block %u is not 512..4096", lbs);
		return -EINVAL;
	}
	if (pbs < lbs)
		pbs = lbs;
	if (g->volume == 0 || g->volume % lbs) {
		snprintf(
		    err, errlen,
		    "raid-ublk: the volume (%llu bytes) is not a whole number of %u-byte blocks",
		    (unsigned long long)g->volume, lbs);
		return -EINVAL;
	}
	if (g->max_io < lbs || g->max_io % lbs) {
		snprintf(err, errlen, "raid-ublk: a request of %u bytes is no whole block",
			 g->max_io);
		return -EINVAL;
	}
	memset(p, 0, sizeof(*p));
	p->len = sizeof(*p);
	p->types = RU_PARAM_TYPE_BASIC;
	/* members are flushed for a flush, and a FUA write is followed by one (server.c) */
	p->basic.attrs = RU_ATTR_VOLATILE_CACHE | RU_ATTR_FUA;
	p->basic.logical_bs_shift = ilog2_u64(lbs);
	p->basic.physical_bs_shift = ilog2_u64(pbs);
	p->basic.io_min_shift = ilog2_u64(pow2_part(unit) < lbs ? lbs : pow2_part(unit));
	p->basic.io_opt_shift = ilog2_u64(opt < lbs ? lbs : opt);
	p->basic.max_sectors = g->max_io >> 9;
	p->basic.dev_sectors = g->volume >> 9;
	return 0;
}

int ublk_parse_cpus(const char *s, cpu_set_t *set)
{
	const char *q = s;

	CPU_ZERO(set);
	if (!*s)
		return -EINVAL;
	while (*q) {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(q, &end, 10);
		if (end == q || errno || a < 0)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			q = end + 1;
			b = strtol(q, &end, 10);
			if (end == q || errno || b < a)
				return -EINVAL;
		}
		if (b >= CPU_SETSIZE)
			return -EINVAL;
		for (long i = a; i <= b; i++)
			CPU_SET(i, set);
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -EINVAL;
		q = end;
	}
	return 0;
}

int ublk_parse_id(const char *s)
{
	char *end;
	long v;

	if (!strncmp(s, "/dev/ublkb", 10))
		s += 10;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v > INT_MAX - 1)
		return -EINVAL;
	return (int)v;
}
