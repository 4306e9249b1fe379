/*
 * fault.c - raid_fail=IDX@SECONDS: members failed at set times after the array opened,
 * applied by the recovery thread (between windows of a pass too) through the core's
 * raid_member_fail. Error injection (raid_inject) is a backend decorator of its own
 * (member_fault.c); what a failure does is the core's (failure.c).
 */
#include <inttypes.h>

#include "recovery/helpers/rec.h"

double raid_rec_fail_timers(struct raid_array *a, double now_s)
{
	const struct raid_recovery_config *c = rec_cfg(&a->cfg);
	double next = -1;

	for (int i = 0; i < c->nfail; i++) {
		if (a->rec->sp.fail_fired >> i & 1)
			continue;
		if (c->fail[i].at_s <= now_s) {
			a->rec->sp.fail_fired |= 1ULL << i;
			raid_log("raid: raid_fail: failing member %d (%s) at %.1f s",
				 c->fail[i].member, a->m[c->fail[i].member].path, now_s);
			raid_member_fail(a, c->fail[i].member);
		} else if (next < 0 || c->fail[i].at_s < next) {
			next = c->fail[i].at_s;
		}
	}
	return next;
}
