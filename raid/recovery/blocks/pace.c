/*
 * pace.c - the rebuild's pacing, md's speed_limit_min/max, as functions of the foreground
 * meter's count and a time given by the caller (so that a test drives them with a fake
 * clock): the rate is `min` for 250 ms after the foreground was seen busy, else `max`; a
 * window holds an eighth of a second's worth at that rate; the next window starts no
 * earlier than its predecessor's length allows at its rate, counted from when it was due
 * (a pass woken late catches up, by a few windows at most).
 *
 * Busy is md's is_mddev_idle(): more than 64 sectors (32 KiB) of foreground I/O since the
 * foreground was last seen busy. A stray request (the one read an idle job makes) is not
 * load: counted as busy, it held a whole rebuild at `min` for its first 250 ms.
 */
#include "recovery/blocks/blocks.h"

#define BUSY_S 0.25

void rec_pace_init(struct rec_pace *p, const struct raid_recovery_config *c)
{
	/* both are set (> 0) by the option table's defaults or by the user */
	*p = (struct rec_pace){.min = c->rebuild_min, .max = c->rebuild_max, .last_t = -1};
}

uint64_t rec_pace_rate(struct rec_pace *p, uint64_t fg_bytes, double now)
{
	if (fg_bytes - p->last_bytes > REC_IDLE_BYTES) {
		p->last_bytes = fg_bytes;
		p->last_t = now;
	}
	return now - p->last_t < BUSY_S ? p->min : p->max;
}

uint64_t rec_window_len(uint64_t msize, uint64_t front, uint64_t unit, uint64_t rate)
{
	uint64_t region = rate / 8 / unit * unit;

	if (front >= msize)
		return 0;
	region = region < unit ? unit : region > REC_REGION_MAX ? REC_REGION_MAX / unit * unit : region;
	return msize - front < region ? msize - front : region;
}

double rec_pace_due(double due, double now, uint64_t len, uint64_t rate)
{
	double w = (double)len / (double)rate, floor = now - REC_PACE_CREDIT * w;

	return (due > floor ? due : floor) + w;
}
