/*
 * service.c - the recovery service as the core sees it (core/service.h): at open it reads
 * the state file's verdict (identities, the dirty mark) and the write-intent bitmap
 * (intent.c), marks the state dirty before a
 * writer's first write, starts the recovery thread (rebuild.c) and waits for its initial
 * resync; at the last put it waits for rebuild and scrub (SIGINT stops them at their
 * checkpoint), flushes and marks the state clean; it tells the core what it needs of the
 * options (config) and stops every pass on raid_interrupt() (rec_interrupt, helpers/rec.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/identity.h"
#include "recovery/blocks/blocks.h"
#include "recovery/passes/passes.h"
#include "recovery/rec_service.h"
#include "recovery/thread/thread.h"

/* ---- the array's side: raid_recovery_service ---- */

static int spares_probe(struct raid_array *a, char *err, size_t errlen)
{
	const struct raid_recovery_config *c = rec_cfg(&a->cfg);

	if (!a->be->uses_files)
		return 0;
	for (int s = 0; s < c->nspares; s++) {
		const char *p = c->spares[s];
		struct stat st;

		if (stat(p, &st)) {
			if (errno != ENOENT) { /* st says nothing: never go on with it */
				snprintf(err, errlen, "raid: raid_spares: %s: %s", p,
					 strerror(errno));
				return -EINVAL;
			}
			/* as a missing member: made only at a size the job gave */
			if (!a->cfg.member_size) {
				snprintf(err, errlen,
					 "raid: raid_spares: %s does not exist (set "
					 "raid_member_size to create it)",
					 p);
				return -ENOENT;
			}
			if (raid_dev_create("raid_spares", p, a->geom.member_size, err, errlen))
				return -EINVAL;
			continue;
		}
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < a->geom.member_size) {
			snprintf(err, errlen,
				 "raid: raid_spares: %s holds %" PRIu64
				 " bytes, less than a member (%" PRIu64 ")",
				 p, (uint64_t)st.st_size, a->geom.member_size);
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
			snprintf(err, errlen,
				 "raid: raid_spares: %s is not a file or a block device", p);
			return -EINVAL;
		}
		for (int j = 0; j < a->geom.n + s; j++)
			if ((j >= a->geom.n || !raid_member_failed(a, j)) &&
			    raid_same_file(a->m[j].path, p)) {
				snprintf(err, errlen,
					 "raid: raid_spares: %s is the same file as %s %s: a spare "
					 "must be a device of its own",
					 p, j < a->geom.n ? "member" : "spare", a->m[j].path);
				return -EINVAL;
			}
	}
	return 0;
}

/* Mark the state dirty (and make that durable) before a writer's first write. */
static int writer(struct raid_array *a, char *err, size_t errlen)
{
	struct raid_recovery *rec = a->rec;
	int ret;

	if (!rec || !rec_cfg(&a->cfg)->state_path || rec->st.unclean)
		return 0;
	rec->st.unclean = true;
	ret = raid_rec_state_save(a);
	if (ret)
		snprintf(err, errlen,
			 "raid: raid_state: cannot mark %s dirty before the first write: %s",
			 rec_cfg(&a->cfg)->state_path, strerror(-ret));
	return ret;
}

/* The last run did not end cleanly (md's dirty bit): resync, or refuse a degraded start. */
static int dirty_start(struct raid_array *a, char *err, size_t errlen)
{
	struct raid_recovery_config *c = rec_cfg(&a->cfg);
	bool degraded = false;

	if (!c->state_dirty || !a->ops->max_failed)
		return 0;
	for (int i = 0; i < a->geom.n; i++)
		degraded |= raid_member_failed(a, i);
	if (degraded && a->ops->rows_check) {
		if (!c->start_dirty_degraded) {
			snprintf(err, errlen,
				 "raid: raid_state: %s: the array was not shut down cleanly and "
				 "is degraded: parity of rows written at the crash may be stale, "
				 "so degraded reads could return wrong data; set "
				 "raid_start_dirty_degraded=1 to start anyway",
				 c->state_path);
			return -EINVAL;
		}
		raid_log("raid: raid_state: %s: starting a dirty degraded array "
			 "(raid_start_dirty_degraded=1): rows written at the crash may read wrong",
			 c->state_path);
		/*
		 * md keeps its resync pending: the rows torn at the crash stay so, also once a
		 * spare completes the array; so the file stays dirty, and the first start of a
		 * complete array resyncs them (issue 44's torture, seed 579491731).
		 */
		a->rec->st.repair_stopped = true;
		return 0;
	}
	raid_log("raid: raid_state: %s: the array was not shut down cleanly (writes were "
		 "running): resyncing %s before the first I/O, as md does",
		 c->state_path,
		 rec_intent_trusted(a->rec) ? "the regions its bitmap has set" : "it");
	a->rec->st.resync_dirty = true;
	return 0;
}

static int open_array(struct raid_array *a, char *err, size_t errlen)
{
	const struct raid_recovery_config *c = rec_cfg(&a->cfg);
	struct raid_recovery *rec;
	int ret;

	if (!c->nspares && !c->rebuild && !c->nfail && !raid_option_given(&a->cfg, "raid_inject") &&
	    !c->scrub && !c->resync && !c->state_path)
		return 0;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	rec->a = a;
	rec->st.lock_fd = -1;
	rec->mt.on = c->rebuild;
	rec->st.unclean = c->state_dirty; /* until this run ends cleanly */
	pthread_mutex_init(&rec->mu, NULL);
	pthread_mutex_init(&rec->st.mu, NULL);
	pthread_cond_init(&rec->cv, NULL);
	for (int i = 0; i < a->geom.n; i++)
		if (c->resume_spare[i]) {
			int s = c->resume_spare[i] - 1;

			rec->sp.used[s] = true;
			atomic_store(&a->m[i].dev, a->geom.n + s);
			atomic_store(&a->m[i].recovery_offset, c->resume_off[i]);
			rec->sp.durable_off[i] = c->resume_off[i];
		}
	a->rec = rec;
	for (int i = 0; i < a->geom.n; i++) /* raid_re_add: failed until it caught up (intent.c) */
		if (c->re_add >> i & 1)
			atomic_store(&a->m[i].failed, true);
	ret = raid_rec_state_lock(a, err, errlen);
	if (ret)
		return ret;
	ret = raid_quiesce_init(a, c->rebuild); /* rebuilds meter the foreground */
	if (ret)
		return ret;
	rec->st.ids = calloc((size_t)a->ndev, sizeof(*rec->st.ids));
	if (!rec->st.ids)
		return -ENOMEM;
	ret = raid_rec_state_check(a, err, errlen);
	if (!ret)
		ret = rec_intent_open(a, err, errlen);
	if (!ret)
		ret = dirty_start(a, err, errlen);
	/* a resync or a repair rewrites redundancy: killed half-way, it leaves rows torn too */
	if (!ret && (a->cfg.writes || c->resync || c->scrub == RAID_SCRUB_REPAIR))
		ret = writer(a, err, errlen);
	if (ret)
		return ret;
	for (int i = 0; i < a->geom.n; i++) /* the check may have restarted one from 0 */
		if (c->resume_spare[i]) {
			atomic_store(&a->m[i].recovery_offset, c->resume_off[i]);
			rec->sp.durable_off[i] = c->resume_off[i];
		}
	if (c->state_path) /* no write is acknowledged before its failures are on record */
		a->record = raid_rec_state_save;
	ret = pthread_create(&rec->thread, NULL, rec_thread, rec);
	if (ret) {
		snprintf(err, errlen, "raid: cannot start the recovery thread: %s", strerror(ret));
		return -ret;
	}
	rec->thread_on = true;
	pthread_mutex_lock(&rec->mu);
	while (!rec->init_done)
		pthread_cond_wait(&rec->cv, &rec->mu);
	ret = rec->init_ret;
	pthread_mutex_unlock(&rec->mu);
	if (ret)
		snprintf(err, errlen, "raid: %s: the recovery thread could not start (see above)",
			 c->resync		? "raid_init=resync"
			 : rec->st.resync_dirty ? "raid_state (the resync after an unclean stop)"
			 : c->nspares		? "raid_spares"
			 : c->state_path	? "raid_state"
						: "raid_members");
	return ret;
}

static void stop_thread(struct raid_recovery *rec, bool wait_for_work)
{
	double t;

	if (!rec->thread_on)
		return;
	t = rec_elapsed(rec);
	atomic_store(&rec->closing, true);
	if (!wait_for_work)
		atomic_store(&rec->stop, true);
	raid_array_notify(rec->a); /* wakes the thread */
	pthread_join(rec->thread, NULL);
	rec->thread_on = false;
	if (rec->res.rebuild_done && rec->res.end_s > t)
		rec->res.wait_s = rec->res.end_s - t;
	if (rec->q) {
		raid_queue_destroy(rec->q);
		rec->q = NULL;
	}
}

static int stop_array(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;
	int ret;

	if (!rec)
		return 0;
	pthread_mutex_lock(&rec->mu); /* the recovery thread sets it as its pass starts and ends */
	bool active = rec->rb_active;

	pthread_mutex_unlock(&rec->mu);
	if (active)
		raid_log("raid: the job's I/O is done; waiting for the rebuild to finish "
			 "(SIGINT stops it at its checkpoint)");
	stop_thread(rec, rec_cfg(&a->cfg)->rebuild || rec_cfg(&a->cfg)->scrub);
	/* every queue is gone: no write is running; clean once what was written is durable */
	ret = raid_array_flush(a);
	for (int i = a->geom.n; i < a->ndev && !ret; i++)
		for (int k = 0; k < 2; k++)
			if (a->m[i].fd[k] >= 0 && fdatasync(a->m[i].fd[k]) && !ret)
				ret = -errno;
	if (ret) {
		raid_log("raid: cannot flush the members at the end: %s%s", strerror(-ret),
			 rec_cfg(&a->cfg)->state_path ? "; the state file stays dirty" : "");
		raid_rec_error(rec, ret);
	} else if (rec->init_ret == 0 && !rec->st.repair_stopped) {
		rec_intent_stop(rec, true); /* flushed and in sync: every idle bit goes */
		rec->st.unclean = false;
	}
	raid_rec_state_save(a);
	return atomic_load(&rec->error);
}

static void free_array(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;

	if (!rec)
		return;
	a->record = NULL;
	stop_thread(rec, false);
	rec_intent_free(rec);
	pthread_mutex_destroy(&rec->mu);
	pthread_mutex_destroy(&rec->st.mu);
	free(rec->st.ids);
	if (rec->st.lock_fd >= 0)
		close(rec->st.lock_fd); /* after the last save: stop() wrote it */
	pthread_cond_destroy(&rec->cv);
	free(rec->mt.samples);
	free(rec);
	a->rec = NULL;
}

/* What the core needs of c's options (core/service.h) */
static void config(const struct raid_config *c, struct raid_service_cfg *out)
{
	const struct raid_recovery_config *r = rec_cfg(c);

	if (!r)
		return;
	*out = (struct raid_service_cfg){
	    .nspares = r->nspares,
	    .spares = r->spares,
	    .state_path = r->state_path,
	    .orig_members = r->orig_members,
	    .state_failed = r->state_failed,
	    .rewrites = r->resync || r->scrub == RAID_SCRUB_REPAIR || r->state_dirty,
	    .rebuild = r->rebuild,
	};
}

const struct raid_service_ops raid_recovery_service = {
    .probe = spares_probe,
    .open = open_array,
    .writer = writer,
    .stop = stop_array,
    .free = free_array,
    .stats = raid_rec_stats,
    .config = config,
    .interrupt = rec_interrupt,
};
