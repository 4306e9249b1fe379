/*
 * scrub.c - raid_scrub=check|repair and raid_init=resync, in the recovery thread: read
 * every stripe (parity levels: the rows hook rows_check) or every mirrored unit (mirror
 * levels: every copy that map names), count the ones whose redundancy disagrees (md's
 * mismatch_cnt), and with repair or resync rewrite it: parity from the data, mirrors
 * from the first copy, as md's repair does. Windows are locked against foreground writes
 * like a rebuild's, so a write racing the check is never counted nor overwritten.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/level.h"
#include "recovery/passes/passes.h"

#define MIB ((uint64_t)1024 * 1024)
#define WINDOW (1 * MIB)

/* A member failed since the pass started (raid_fail, an I/O error): the pass stops. */
static int lost_member(struct raid_recovery *rec, uint64_t at_start)
{
	for (int m = 0; m < rec->a->geom.n; m++)
		if (raid_member_failed(rec->a, m) && !(at_start >> m & 1))
			return -ENODEV;
	return 0;
}

uint64_t rec_failed_set(struct raid_array *a)
{
	uint64_t f = 0;

	for (int m = 0; m < a->geom.n; m++)
		if (raid_member_failed(a, m))
			f |= 1ULL << m;
	return f;
}

/*
 * Parity levels: windows of whole rows on every member, over the member row ranges rg[]
 * (ascending; the whole array is one), with one set of buffers for them all.
 */
static int scrub_rows(struct raid_recovery *rec, bool fix, bool quiet, const struct raid_range *rg,
		      size_t nrg, uint64_t *units, uint64_t *mism, uint64_t *fixed)
{
	struct raid_array *a = rec->a;
	uint64_t step = WINDOW / a->geom.chunk * a->geom.chunk, msize = nrg ? rg[nrg - 1].hi : 0;
	size_t i = 0;
	void *bufs[RAID_MAX_MEMBERS] = {0};
	double next_log = 0.1;
	int ret = 0;

	if (!step)
		step = a->geom.chunk;
	for (int m = 0; m < a->geom.n; m++)
		if (!(bufs[m] = rec_alloc(step)))
			ret = -ENOMEM;
	for (uint64_t front = nrg ? rg[0].lo : 0;
	     i < nrg && !ret && !(ret = lost_member(rec, 0)) && !rec_stopping(rec);) {
		uint64_t end = rg[i].hi, len = end - front < step ? end - front : step, vlo, vlen,
			 rw = 0;
		struct rec_batch b;

		a->ops->span(&a->geom, front, len, &vlo, &vlen);
		raid_quiesce_lock(rec->a, vlo, vlo + vlen);
		rec_batch_init(&b, rec->q);
		for (int m = 0; m < a->geom.n; m++)
			rec_io(rec, &b, RAID_OP_READ, m, bufs[m], front, len);
		ret = rec_wait(rec, &b) ? -EIO : 0;
		if (!ret) {
			uint64_t bad = a->ops->rows_check(a, front, len, bufs, fix, &rw);

			if (bad == RAID_ROWS_NOMEM) {
				raid_quiesce_unlock(rec->a);
				ret = -ENOMEM;
				break;
			}
			*mism += bad;
			*units += len / a->geom.chunk;
			rec_batch_init(&b, rec->q);
			for (int m = 0; m < a->geom.n && fix; m++)
				if (rw >> m & 1)
					rec_io(rec, &b, RAID_OP_WRITE, m, bufs[m], front, len);
			ret = rec_wait(rec, &b) ? -EIO : 0;
			if (fix)
				*fixed += bad;
		}
		raid_quiesce_unlock(rec->a);
		rec_tick(rec);
		if (!quiet && (double)(front + len) >= next_log * (double)msize) {
			raid_log("raid: resync %.0f%%",
				 100.0 * (double)(front + len) / (double)msize);
			next_log += 0.1;
		}
		front += len;
		if (front >= end && ++i < nrg)
			front = rg[i].lo;
	}
	for (int m = 0; m < a->geom.n; m++)
		free(bufs[m]);
	return ret;
}

/* Mirror levels: every copy of each unit of the volume ranges rg[] (ascending). */
static int scrub_mirrors(struct raid_recovery *rec, bool fix, bool quiet,
			 const struct raid_range *rg, size_t nrg, uint64_t *units, uint64_t *mism,
			 uint64_t *fixed)
{
	struct raid_array *a = rec->a;
	struct raid_loc locs[RAID_MAX_COPIES];
	uint64_t unit = a->ops->uses_chunk ? a->geom.chunk : 64 * 1024, seg, step;
	int ncopies = a->ops->map(&a->geom, 0, locs, &seg);
	uint64_t at_start = rec_failed_set(a);
	void *bufs[RAID_MAX_COPIES] = {0};
	double next_log = 0.1;
	int ret = 0;

	step = WINDOW / unit * unit;
	if (!step)
		step = unit;
	for (int k = 0; k < ncopies; k++)
		if (!(bufs[k] = rec_alloc(step)))
			ret = -ENOMEM;
	uint64_t last = nrg ? rg[nrg - 1].hi : 0;
	size_t i = 0;

	for (uint64_t v = nrg ? rg[0].lo : 0;
	     i < nrg && !ret && !(ret = lost_member(rec, at_start)) && !rec_stopping(rec);) {
		uint64_t end = rg[i].hi, len = end - v < step ? end - v : step;
		struct rec_batch b;

		raid_quiesce_lock(rec->a, v, v + len);
		rec_batch_init(&b, rec->q);
		for (uint64_t u = v; u < v + len; u += unit) {
			uint64_t l = v + len - u < unit ? v + len - u : unit;
			int n = a->ops->map(&a->geom, u, locs, &seg);

			for (int k = 0; k < n; k++)
				if (!raid_member_failed(a, locs[k].member))
					rec_io(rec, &b, RAID_OP_READ, locs[k].member,
					       (char *)bufs[k] + (u - v), locs[k].offset, l);
		}
		ret = rec_wait(rec, &b) ? -EIO : 0;
		rec_batch_init(&b, rec->q);
		for (uint64_t u = v; u < v + len && !ret; u += unit) {
			uint64_t l = v + len - u < unit ? v + len - u : unit;
			int n = a->ops->map(&a->geom, u, locs, &seg), first = -1;
			bool bad = false;

			for (int k = 0; k < n; k++) {
				if (raid_member_failed(a, locs[k].member))
					continue;
				if (first < 0) {
					first = k;
					continue;
				}
				if (memcmp((char *)bufs[k] + (u - v), (char *)bufs[first] + (u - v),
					   l)) {
					bad = true;
					if (fix)
						rec_io(rec, &b, RAID_OP_WRITE, locs[k].member,
						       (char *)bufs[first] + (u - v),
						       locs[k].offset, l);
				}
			}
			*units += 1;
			*mism += bad;
			*fixed += bad && fix;
		}
		if (rec_wait(rec, &b))
			ret = -EIO;
		raid_quiesce_unlock(rec->a);
		rec_tick(rec);
		if (!quiet && (double)(v + len) >= next_log * (double)last) {
			raid_log("raid: resync %.0f%%", 100.0 * (double)(v + len) / (double)last);
			next_log += 0.1;
		}
		v += len;
		if (v >= end && ++i < nrg)
			v = rg[i].lo;
	}
	for (int k = 0; k < ncopies; k++)
		free(bufs[k]);
	return ret;
}

int raid_rec_scrub(struct raid_recovery *rec, enum raid_scrub_mode mode, bool resync)
{
	struct raid_array *a = rec->a;
	const char *what = resync ? "raid_init=resync" : "raid_scrub";
	uint64_t units = 0, mism = 0, fixed = 0;
	double t0 = rec_elapsed(rec);
	int ret;

	/* md checks complete arrays only; a resync of mirrors copies what survives */
	for (int m = 0; m < a->geom.n && (a->ops->rows_check || !resync); m++)
		if (raid_member_failed(a, m)) {
			raid_log("raid: %s: member %d has failed: md checks only complete arrays, "
				 "nothing done",
				 what, m);
			return 0;
		}
	if (resync)
		raid_log("raid: resync of the whole array starts (%" PRIu64 " MiB per member)",
			 a->geom.member_size / MIB);
	if (a->ops->rows_check)
		ret = scrub_rows(rec, mode == RAID_SCRUB_REPAIR, !resync,
				 &(struct raid_range){0, a->geom.member_size}, 1, &units, &mism, &fixed);
	else if (a->ops->unmap)
		ret = scrub_mirrors(rec, mode == RAID_SCRUB_REPAIR, !resync,
				    &(struct raid_range){0, a->size}, 1, &units, &mism, &fixed);
	else
		ret = -ENOTSUP;
	if (!ret && rec_stopping(rec))
		ret = -EINTR;
	if (ret) {
		/* what was counted so far is no answer: no stats, and the run fails */
		if (mode == RAID_SCRUB_REPAIR)
			rec->st.repair_stopped = true; /* a row may be half rewritten */
		raid_log("raid: %s: stopped after %" PRIu64 " stripes: %s", what, units,
			 ret == -ENOTSUP  ? "this level has no redundancy to check"
			 : ret == -ENOMEM ? "out of memory"
			 : ret == -ENODEV ? "a member failed during the pass"
			 : ret == -EINTR  ? "interrupted"
					  : "a member read or write failed");
		return ret;
	}
	if (resync) {
		rec->res.resynced = true;
		rec->res.resync_s = rec_elapsed(rec) - t0;
		rec->res.resync_bytes = a->geom.member_size;
		raid_log("raid: resync done in %.1f s", rec->res.resync_s);
	} else {
		rec->res.scrubbed = true;
		rec->res.stripes = units;
		rec->res.mismatches = mism;
		rec->res.repaired = fixed;
		raid_log("raid: raid_scrub=%s: %" PRIu64 " stripes checked, %" PRIu64
			 " mismatched%s",
			 mode == RAID_SCRUB_REPAIR ? "repair" : "check", units, mism,
			 mode == RAID_SCRUB_REPAIR ? ", rewritten" : "");
	}
	return 0;
}

int raid_rec_resync_rows(struct raid_recovery *rec, struct raid_range *rg, size_t n,
			 uint64_t *fixed)
{
	struct raid_array *a = rec->a;
	uint64_t units = 0, mism = 0, vlo, vlen;
	size_t k = 0;

	if (a->ops->rows_check)
		return scrub_rows(rec, true, true, rg, n, &units, &mism, fixed);
	for (size_t j = 0; j < n; j++) { /* the volume ranges the rows hold, in place */
		a->ops->span(&a->geom, rg[j].lo, rg[j].hi - rg[j].lo, &vlo, &vlen);
		if (vlo < a->size)
			rg[k++] = (struct raid_range){vlo, vlo + vlen < a->size ? vlo + vlen : a->size};
	}
	return scrub_mirrors(rec, true, true, rg, k, &units, &mism, fixed);
}
