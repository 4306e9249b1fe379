/*
 * intent.c - the write-intent bitmap on the array (raid_bitmap=1; the file and its bits
 * are bitmap.c's): the core's write admission asks it before each write (the rows the
 * write touches, on every copy, get their bit durable first) and tells it when the write
 * is released; the recovery thread resyncs only the set regions after an unclean stop,
 * copies a re-added member (raid_re_add) only the regions it missed, and clears idle bits
 * lazily (md's bitmap daemon): every REC_BM_DELAY seconds, once the members are flushed,
 * the regions whose last write ended before that flush, with none in flight and no member
 * failed. A failed member's misses stay set until it is rebuilt or re-added.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recovery/blocks/bitmap.h"
#include "recovery/passes/passes.h"

#define REC_BM_DELAY 5.0 /* s: md's bitmap daemon_sleep; a bit stays this long after its last write */
#define NS 1000000000.0
#define MIB ((uint64_t)1 << 20)

struct rec_intent {
	struct rec_bitmap bm;
	bool trusted;	    /* the file was there: its bits cover every write since */
	uint64_t untracked; /* failed at open, and not in the file's missed: not covered */
	double last_clear;  /* s, the last lazy clear */
	uint64_t said;	    /* the failed set last written to the file */
	atomic_bool said_error; /* a write failed for its bit: said once */
};

/* The member rows a volume range touches, on every copy: [*lo, *hi). */
static void rows_of(struct raid_array *a, uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	struct raid_loc locs[RAID_MAX_COPIES];
	uint64_t seg, ends[2] = {off, off + len - 1};

	*lo = UINT64_MAX;
	*hi = 0;
	for (int e = 0; e < 2; e++) {
		int n = a->ops->map(&a->geom, ends[e], locs, &seg);

		for (int k = 0; k < n; k++) {
			*lo = locs[k].offset < *lo ? locs[k].offset : *lo;
			*hi = locs[k].offset + 1 > *hi ? locs[k].offset + 1 : *hi;
		}
	}
}

static int intent_start(struct raid_array *a, uint64_t off, uint64_t len)
{
	uint64_t lo, hi;
	int ret;

	rows_of(a, off, len, &lo, &hi);
	ret = rec_bitmap_start(&a->rec->in->bm, lo, hi);
	if (ret && !atomic_exchange(&a->rec->in->said_error, true)) /* once, not per write */
		raid_log("raid: raid_bitmap: cannot set a bit of %s before a write: %s; such "
			 "writes fail",
			 a->rec->in->bm.path, strerror(-ret));
	return ret;
}

static void intent_end(struct raid_array *a, uint64_t off, uint64_t len)
{
	uint64_t lo, hi;

	rows_of(a, off, len, &lo, &hi);
	rec_bitmap_end(&a->rec->in->bm, lo, hi, raid_now_ns());
}

static const struct raid_intent_ops intent_ops = {.start = intent_start, .end = intent_end};

/* raid_re_add: each member must be one whose failure the bitmap saw, the same device. */
static int check_re_add(struct raid_array *a, char *err, size_t errlen)
{
	struct raid_recovery *rec = a->rec;
	struct rec_bitmap *b = &rec->in->bm;
	const struct raid_recovery_config *c = rec_cfg(&a->cfg);

	for (int i = 0; i < a->geom.n; i++) {
		if (!(c->re_add >> i & 1))
			continue;
		if (c->state_dirty) {
			snprintf(err, errlen,
				 "raid: raid_re_add: %s: the array was not shut down cleanly: rows "
				 "written at the crash may be stale, so member %d cannot be "
				 "recomputed from the others; start without raid_re_add first",
				 c->state_path, i);
			return -EINVAL;
		}
		/*
		 * A spare still being rebuilt holds the slot. One whose rebuild finished
		 * (replaced[i]) is the member now: it is the device re-added, as md re-adds
		 * a former spare by the role its superblock records.
		 */
		if (c->resume_spare[i]) {
			snprintf(err, errlen,
				 "raid: raid_re_add: member %d has a spare in its place, not yet "
				 "rebuilt (the state file): finish that rebuild first",
				 i);
			return -EINVAL;
		}
		if (!(b->missed >> i & 1)) {
			snprintf(err, errlen,
				 "raid: raid_re_add: %s did not track member %d's failure (it failed "
				 "before raid_bitmap was on, or the bitmap was made afresh): rebuild it "
				 "onto a spare (raid_spares, raid_rebuild)",
				 b->path, i);
			return -EINVAL;
		}
		if (rec->st.ids[i].id[0] && b->missed_id[i][0] && strcmp(rec->st.ids[i].id, b->missed_id[i])) {
			snprintf(err, errlen,
				 "raid: raid_re_add: member %d (%s) is %s, the device that failed "
				 "was %s (%s): only that device can be re-added",
				 i, a->m[i].path, rec->st.ids[i].id, b->missed_id[i], b->path);
			return -EINVAL;
		}
	}
	return 0;
}

/* A bitmap left by a run with raid_bitmap=1: this run's writes would not be in it. */
static int remove_stale(const char *path)
{
	if (unlink(path) == 0) {
		raid_log("raid: raid_bitmap: removing the stale %s (it would miss this run's writes, "
			 "or its state file is gone)",
			 path);
		return 0;
	}
	return errno == ENOENT ? 0 : -errno;
}

int rec_intent_open(struct raid_array *a, char *err, size_t errlen)
{
	struct raid_recovery *rec = a->rec;
	const struct raid_recovery_config *c = rec_cfg(&a->cfg);
	struct rec_bitmap_geom g = {
	    .level = a->geom.level, .members = a->geom.n, .layout = a->geom.layout,
	    .chunk = a->geom.chunk, .member_size = a->geom.member_size, .region = c->bitmap_chunk};
	char *path;
	int ret;

	if (!c->state_path)
		return 0;
	if (asprintf(&path, "%s.bitmap", c->state_path) < 0)
		return -ENOMEM;
	if (!c->bitmap) {
		ret = a->cfg.writes || c->resync || c->scrub == RAID_SCRUB_REPAIR ? remove_stale(path)
										 : 0;
		if (ret)
			snprintf(err, errlen, "raid: raid_bitmap=0: cannot remove the stale %s: %s",
				 path, strerror(-ret));
		free(path);
		return ret;
	}
	/* without its state file a bitmap vouches for nothing: the writes since may be anywhere */
	if (!c->state_read.exists && (ret = remove_stale(path))) {
		snprintf(err, errlen, "raid: raid_bitmap: cannot remove the stale %s: %s", path,
			 strerror(-ret));
		free(path);
		return ret;
	}
	if (!(rec->in = calloc(1, sizeof(*rec->in)))) {
		free(path);
		return -ENOMEM;
	}
	ret = rec_bitmap_open(&rec->in->bm, path, &g, err, errlen);
	free(path);
	if (ret)
		return ret;
	rec->in->trusted = !rec->in->bm.created;
	/* failed before this run and not in the file: what they missed before is not in it */
	rec->in->untracked = rec_failed_set(a) & ~c->re_add &
			     (rec->in->trusted ? c->state_failed & ~rec->in->bm.missed : ~0ULL);
	rec->in->said = rec->in->bm.missed;
	rec->res.bitmap_chunk = rec->in->bm.g.region;
	if (rec->in->bm.created)
		raid_log("raid: raid_bitmap: created %s (%" PRIu64 " regions of %" PRIu64 " KiB)",
			 rec->in->bm.path, rec->in->bm.nregions, rec->in->bm.g.region / 1024);
	ret = check_re_add(a, err, errlen);
	if (!ret)
		raid_quiesce_intent(a, &intent_ops);
	return ret;
}

bool rec_intent_trusted(struct raid_recovery *rec)
{
	return rec->in && rec->in->trusted;
}

/* The set regions' member rows as ranges, adjacent ones joined; *bytes: their length. */
static struct raid_range *set_ranges(struct raid_recovery *rec, size_t *n, uint64_t *bytes)
{
	struct rec_bitmap *b = &rec->in->bm;
	struct raid_range *rg = calloc(b->nregions ? b->nregions : 1, sizeof(*rg));
	uint64_t msize = rec->a->geom.member_size;

	*n = 0;
	*bytes = 0;
	for (uint64_t k = 0; rg && k < b->nregions; k++) {
		uint64_t lo = k * b->g.region, hi = lo + b->g.region < msize ? lo + b->g.region : msize;

		if (!rec_bitmap_isset(b, k))
			continue;
		if (*n && rg[*n - 1].hi == lo)
			rg[*n - 1].hi = hi;
		else
			rg[(*n)++] = (struct raid_range){lo, hi};
		*bytes += hi - lo;
	}
	return rg;
}

int rec_intent_resync(struct raid_recovery *rec)
{
	double t0 = rec_elapsed(rec);
	uint64_t fixed = 0, bytes;
	int ret;

	raid_log("raid: resync of the %" PRIu64 " regions the bitmap has set starts (%" PRIu64
		 " KiB each, of %" PRIu64 ")",
		 rec_bitmap_count(&rec->in->bm), rec->in->bm.g.region / 1024, rec->in->bm.nregions);
	size_t n;
	struct raid_range *rg = set_ranges(rec, &n, &bytes);

	ret = rg ? raid_rec_resync_rows(rec, rg, n, &fixed) : -ENOMEM;
	free(rg);
	if (!ret && rec_stopping(rec))
		ret = -EINTR;
	if (ret) {
		rec->st.repair_stopped = true; /* a row may be half rewritten: stays dirty */
		raid_log("raid: resync of the bitmap's regions stopped: %s", strerror(-ret));
		return ret;
	}
	rec->res.resynced = true;
	rec->res.resync_bitmap = true;
	rec->res.resync_bytes = bytes;
	rec->res.resync_s = rec_elapsed(rec) - t0;
	raid_log("raid: resync done in %.1f s: %" PRIu64 " MiB a member, %" PRIu64
		 " units rewritten",
		 rec->res.resync_s, bytes / MIB, fixed);
	return 0;
}

/* Recompute the targets' bytes of member rows [lo, hi) from the others and write them. */
static int copy_rows(struct raid_recovery *rec, uint64_t targets, void **bufs, uint64_t lo,
		     uint64_t hi)
{
	for (uint64_t f = lo; f < hi && !rec_stopping(rec); f += REC_REGION_MAX) {
		uint64_t len = hi - f < REC_REGION_MAX ? hi - f : REC_REGION_MAX;
		int ret = rec_recover_window(rec, targets, f, len, bufs, true);

		if (ret)
			return ret;
		rec_tick(rec);
	}
	return rec_stopping(rec) ? -EINTR : 0;
}

int rec_intent_re_add(struct raid_recovery *rec)
{
	struct raid_array *a = rec->a;
	uint64_t targets = rec_cfg(&a->cfg)->re_add, bytes = 0;
	void *bufs[RAID_MAX_MEMBERS] = {0};
	struct raid_range *rg = NULL;
	double t0 = rec_elapsed(rec);
	size_t n = 0;
	int ret = 0;

	if (!targets)
		return 0;
	for (int m = 0; m < a->geom.n && !ret; m++)
		if ((a->ops->rows_recover || targets >> m & 1) && !(bufs[m] = rec_alloc(REC_REGION_MAX)))
			ret = -ENOMEM;
	if (!ret && !(rg = set_ranges(rec, &n, &bytes)))
		ret = -ENOMEM;
	raid_log("raid: raid_re_add: copying the %" PRIu64 " regions the bitmap has set onto "
		 "the returning member(s)",
		 rec_bitmap_count(&rec->in->bm));
	for (size_t i = 0; i < n && !ret; i++)
		ret = copy_rows(rec, targets, bufs, rg[i].lo, rg[i].hi);
	/* in sync only once durable, as a rebuilt spare */
	for (int t = 0; t < a->geom.n && !ret; t++)
		if (targets >> t & 1 && rec->q->fds[t] >= 0 && fdatasync(rec->q->fds[t]))
			ret = -errno;
	for (int m = 0; m < a->geom.n; m++)
		free(bufs[m]);
	free(rg);
	if (ret) {
		raid_log("raid: raid_re_add: stopped: %s; the member stays failed", strerror(-ret));
		return ret;
	}
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1)
			atomic_store(&a->m[t].failed, false); /* reads may use it now */
	rec->res.re_added = targets;
	rec->res.re_add_bytes = bytes;
	rec->res.re_add_s = rec_elapsed(rec) - t0;
	raid_log("raid: raid_re_add: done in %.1f s: %" PRIu64 " MiB copied a member",
		 rec->res.re_add_s, bytes / MIB);
	raid_rec_state_save(a); /* the member is in sync: no longer "failed" */
	rec_intent_tick(rec);
	return 0;
}

void rec_intent_tick(struct raid_recovery *rec)
{
	struct rec_intent *in = rec->in;
	struct raid_array *a = rec->a;
	uint64_t failed, missed, now;
	double t;
	int ret;

	if (!in)
		return;
	failed = rec_failed_set(a);
	in->untracked &= failed; /* one rebuilt onto a spare is in sync again */
	missed = failed & ~in->untracked;
	if (missed != in->said) {
		char ids[RAID_MAX_MEMBERS][RAID_ID_LEN];
		for (int i = 0; i < a->geom.n; i++)
			snprintf(ids[i], sizeof(ids[i]), "%s", rec->st.ids[i].id);
		ret = rec_bitmap_set_missed(&in->bm, missed, (const char (*)[RAID_ID_LEN])ids);
		if (ret)
			raid_log("raid: raid_bitmap: cannot record in %s which members missed "
				 "writes: %s",
				 in->bm.path, strerror(-ret));
		else
			in->said = missed;
	}
	rec->res.bitmap_syncs = in->bm.syncs;
	t = rec_elapsed(rec);
	if (failed || t - in->last_clear < REC_BM_DELAY)
		return;
	in->last_clear = t;
	now = raid_now_ns();
	if (now < (uint64_t)(REC_BM_DELAY * NS))
		return;
	/* the writes that ended before the flush are durable: their bits may go */
	if (!rec_bitmap_count(&in->bm) || raid_array_flush(a))
		return;
	if (rec_failed_set(a))
		return; /* a member failed meanwhile: what it missed stays set */
	ret = (int)rec_bitmap_clear(&in->bm, now - (uint64_t)(REC_BM_DELAY * NS));
	if (ret < 0)
		raid_log("raid: raid_bitmap: cannot clear bits of %s: %s", in->bm.path,
			 strerror(-ret));
}

void rec_intent_stop(struct raid_recovery *rec, bool clean)
{
	if (!rec->in)
		return;
	rec->res.bitmap_syncs = rec->in->bm.syncs;
	if (clean && !rec_failed_set(rec->a)) {
		int64_t ret = rec_bitmap_clear(&rec->in->bm, UINT64_MAX);

		if (ret < 0)
			raid_log("raid: raid_bitmap: cannot clear %s at the end: %s",
				 rec->in->bm.path, strerror((int)-ret));
	}
}

void rec_intent_free(struct raid_recovery *rec)
{
	if (!rec->in)
		return;
	if (rec->a->qs)
		raid_quiesce_intent(rec->a, NULL);
	rec_bitmap_close(&rec->in->bm);
	free(rec->in);
	rec->in = NULL;
}
