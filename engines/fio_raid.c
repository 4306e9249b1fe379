/*
 * fio_raid.c - the thin fio adapter of the RAID engine: fio options -> struct raid_config,
 * struct io_u <-> struct raid_request, and fio's queue/commit/getevents/event hooks onto
 * raid_submit/raid_commit/raid_reap. Everything else lives in raid/ (no fio types there).
 *
 * fio's `filename` names the volume: nothing is opened under that name (FIO_DISKLESSIO),
 * and its size is the array's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "raid/core/raid.h"

/* One string per option of the engine's table (raid_options), in its order. */
struct fio_raid_options {
	void *pad; /* fio: no option may sit at offset 0 */
	char *value[RAID_OPTIONS_MAX];
};

struct fio_raid_data {
	struct raid_array *a;
	struct raid_queue *q;
	struct raid_request **events;
	struct io_u **queued; /* queued since the last commit: their issue time is stamped there */
	unsigned nqueued;
	bool buffers_offered; /* fio's I/O memory handed to raid_queue_register_buffers */
};

/*
 * fio's option array, made from the engine's table when fio loads the engine (before it
 * reads .options): every option a string that raid_config_set() parses, its help line the
 * table's (fio's --enghelp). No default is given to fio: the library applies its own.
 */
static struct fio_option options[RAID_OPTIONS_MAX + 1];

static void __attribute__((constructor)) fio_raid_options_init(void)
{
	for (size_t i = 0; raid_options[i].name; i++) {
		const struct raid_option *ro = &raid_options[i];
		int n = raid_option_help(ro, NULL, 0) + 1;
		char *help = malloc((size_t)n);

		if (help)
			raid_option_help(ro, help, (size_t)n);
		options[i] = (struct fio_option){
		    .name = ro->name,
		    .lname = ro->name,
		    .type = FIO_OPT_STR_STORE,
		    .off1 = offsetof(struct fio_raid_options, value) + i * sizeof(char *),
		    .help = help ? help : ro->help,
		    .category = FIO_OPT_C_ENGINE,
		    .group = FIO_OPT_G_INVALID,
		};
	}
}

static void fio_raid_log(const char *line)
{
	log_err("%s\n", line);
}

/*
 * What the engine cannot do here, as opposed to a wrong job: a level it does not have
 * (-ENOTSUP) or raid_parity=cuda without a usable GPU (-ENODEV). Such a refusal is written
 * to the raid_stats file as {"refused": {"errno": "ENOTSUP", "reason": "..."}} (results/
 * README.md), so that a caller (run.sh) skips the test by that answer, not by reading
 * fio's log. Best effort: the error line on stderr is the refusal itself.
 */
static void fio_raid_refused(const struct raid_config *c, int ret, const char *err)
{
	json_object *root, *r;

	if ((ret != -ENOTSUP && ret != -ENODEV) || !c->stats_path)
		return;
	root = json_object_new_object();
	r = json_object_new_object();
	json_object_object_add(r, "errno",
			       json_object_new_string(ret == -ENOTSUP ? "ENOTSUP" : "ENODEV"));
	json_object_object_add(r, "reason", json_object_new_string(err));
	json_object_object_add(root, "refused", r);
	if (json_object_to_file_ext(c->stats_path, root, JSON_C_TO_STRING_PRETTY))
		log_err("raid: raid_stats: cannot write %s\n", c->stats_path);
	json_object_put(root);
}

/* The job's options as a raid_config; on error the message is in err, c is freed. */
static int fio_raid_parse(struct thread_data *td, struct raid_config *c, char *err, size_t errlen)
{
	struct fio_raid_options *o = td->eo;
	int ret = 0;

	raid_config_init(c);
	c->direct = td->o.odirect != 0;
	c->writes = td_write(td) != 0;
	for (size_t i = 0; raid_options[i].name && !ret; i++)
		if (o->value[i])
			ret = raid_config_set(c, raid_options[i].name, o->value[i], err, errlen);
	if (!ret)
		ret = raid_config_validate(c, err, errlen);
	if (ret)
		raid_config_free(c);
	return ret;
}

/* The job's options as a raid_config; prints one line naming the option on error. */
static int fio_raid_config(struct thread_data *td, struct raid_config *c)
{
	char err[RAID_ERRLEN];
	int ret;

	raid_set_log(fio_raid_log);
	ret = fio_raid_parse(td, c, err, sizeof(err));
	if (ret) {
		log_err("%s\n", err);
		fio_raid_refused(c, ret, err);
	}
	return ret;
}

/* The same engine options as td (fio's numjobs clones of one job): the same array, so there
 * is nothing to compare, and no need to parse them (a state file read) once per clone pair. */
static bool fio_raid_same_options(const struct thread_data *td, const struct thread_data *o)
{
	const struct fio_raid_options *x = td->eo, *y = o->eo;

	for (size_t i = 0; raid_options[i].name; i++)
		if (x->value[i] != y->value[i] &&
		    (!x->value[i] || !y->value[i] || strcmp(x->value[i], y->value[i])))
			return false;
	return true;
}

/*
 * fio opens each job's array in the job's thread, in no fixed order: of two jobs that run at
 * once and share a device, the one opened second was refused, and that could be the earlier
 * job after the later had rebuilt over its member. So the later job is refused here, before
 * anything opens, by the options of each earlier job of this engine it runs beside: those
 * back to the nearest stonewall (a job with stonewall starts once every earlier one ended),
 * less those its wait_for names (it starts once they ended). startdelay and exitall are not
 * orderings fio promises (a delay does not outlast a slow job), so they count as beside.
 * An earlier job whose options are wrong is skipped: it says so itself and never runs.
 */
static int fio_raid_clash(struct thread_data *td, const struct raid_config *c)
{
	char err[RAID_ERRLEN];

	for (int k = (int)td->thread_number - 1; k > 0 && !tnumber_to_td(k)->o.stonewall; k--) {
		struct thread_data *o = tnumber_to_td(k - 1);
		struct raid_config oc;
		int ret;

		/* wait_for=NAME: this job starts once every job of that name has ended */
		if (td->o.wait_for && !strcmp(td->o.wait_for, o->o.name))
			continue;
		if (!o->io_ops || strcmp(o->io_ops->name, td->io_ops->name) || !o->eo ||
		    fio_raid_same_options(td, o) || fio_raid_parse(o, &oc, err, sizeof(err)))
			continue;
		ret = raid_config_clash(c, &oc, o->o.name, err, sizeof(err));
		raid_config_free(&oc);
		if (ret) {
			log_err("%s\n", err);
			return ret;
		}
	}
	return 0;
}

static int fio_raid_setup(struct thread_data *td)
{
	struct raid_config c;
	char err[RAID_ERRLEN];
	uint64_t size;
	struct fio_file *f;
	unsigned i;
	int ret;

	if (fio_raid_config(td, &c))
		return 1;
	/* fio's clones of a job (subjob_number 1..) run with numjobs=1: each is refused, or
	 * the first clone wrote while the job itself was refused; the job says why, once */
	if (!td->o.use_thread && (td->o.numjobs > 1 || td->subjob_number) &&
	    (c.writes || raid_option_given(&c, "raid_state"))) {
		if (!td->subjob_number)
			log_err("raid: numjobs=%u without thread=1 would %s one array from %u "
				"processes; set thread=1\n",
				td->o.numjobs,
				c.writes ? "write" : "keep the state file (raid_state) of",
				td->o.numjobs);
		raid_config_free(&c);
		return 1;
	}
	if (fio_raid_clash(td, &c)) {
		raid_config_free(&c);
		return 1;
	}
	ret = raid_probe(&c, &size, err, sizeof(err));
	if (ret) {
		log_err("%s\n", err);
		fio_raid_refused(&c, ret, err);
		raid_config_free(&c);
		return 1;
	}
	raid_config_free(&c);
	for_each_file(td, f, i)
	{
		f->real_file_size = size;
		fio_file_set_size_known(f);
	}
	return 0;
}

/*
 * SIGINT/SIGTERM reach fio's own handler, which ends the jobs; a job's end may be waiting
 * for a rebuild (raid_array_put). Ours runs first and stops the rebuild at its next
 * window, with its checkpoint saved, then hands the signal to fio's handler.
 */
static struct sigaction fio_sig_int, fio_sig_term;

static void fio_raid_signal(int sig)
{
	const struct sigaction *old = sig == SIGINT ? &fio_sig_int : &fio_sig_term;

	raid_interrupt();
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, NULL, NULL);
	} else if (old->sa_handler == SIG_DFL) {
		signal(sig, SIG_DFL);
		raise(sig);
	} else if (old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
}

static void fio_raid_signals(void)
{
	struct sigaction sa = {.sa_handler = fio_raid_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &fio_sig_int);
	sigaction(SIGTERM, &sa, &fio_sig_term);
}

static void fio_raid_cleanup(struct thread_data *td);

static int fio_raid_init(struct thread_data *td)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	struct fio_raid_data *d = calloc(1, sizeof(*d));
	struct raid_config c;
	char err[RAID_ERRLEN];
	int ret;

	if (!d)
		return 1;
	pthread_once(&once, fio_raid_signals);
	if (fio_raid_config(td, &c)) {
		free(d);
		return 1;
	}
	ret = raid_array_get(&c, &d->a, err, sizeof(err));
	if (!ret) {
		ret = raid_queue_create(d->a, td->o.iodepth, c.direct, &d->q, err, sizeof(err));
		if (ret)
			raid_array_put(d->a);
	}
	if (ret) {
		log_err("%s\n", err);
		fio_raid_refused(&c, ret, err);
		raid_config_free(&c);
		free(d);
		return 1;
	}
	raid_config_free(&c);
	d->events = calloc(td->o.iodepth ? td->o.iodepth : 1, sizeof(*d->events));
	d->queued = calloc(td->o.iodepth ? td->o.iodepth : 1, sizeof(*d->queued));
	td->io_ops_data = d;
	if (!d->events || !d->queued) {
		log_err("raid: out of memory for iodepth=%u\n", td->o.iodepth);
		fio_raid_cleanup(td);
		return 1;
	}
	return 0;
}

static void fio_raid_cleanup(struct thread_data *td)
{
	struct fio_raid_data *d = td->io_ops_data;

	if (!d)
		return;
	raid_queue_destroy(d->q);
	/* the last job's end: what the array could not do (already said) fails the run */
	if (raid_array_put(d->a))
		td_verror(td, EIO, "raid_array_put");
	free(d->events);
	free(d->queued);
	free(d);
	td->io_ops_data = NULL;
}

/*
 * fio allocates its I/O memory after the engine's init, so it is offered to the library at
 * the first I/O: the whole pages of it, which hold every io_u buffer when fio aligns them
 * (direct=1). A GPU then reads the new data there instead of from a copy.
 */
static void offer_buffers(struct thread_data *td, struct fio_raid_data *d)
{
	uintptr_t lo = ((uintptr_t)td->orig_buffer + page_mask) & ~(uintptr_t)page_mask;
	uintptr_t hi = ((uintptr_t)td->orig_buffer + td->orig_buffer_size) & ~(uintptr_t)page_mask;
	int ret;

	d->buffers_offered = true;
	if (!td->orig_buffer || hi <= lo)
		return;
	ret = raid_queue_register_buffers(d->q, (void *)lo, hi - lo);
	if (ret)
		log_err("raid: fio's I/O buffers could not be pinned for the GPU (%s): new data "
			"is copied to pinned memory first\n",
			strerror(-ret));
}

/*
 * An I/O's times, as fio's own asynchronous engines (io_uring, libaio) keep them. fio stamps
 * start_time when it prepares an io_u and the completion time when it reaps it: lat is the
 * whole of it. slat runs from start_time to issue_time, clat from issue_time to completion.
 * With FIO_ASYNCIO_SETS_ISSUE_TIME fio leaves issue_time to the engine: like io_uring's
 * and libaio's commit hooks, ours stamps every io_u queued since the last commit once
 * raid_commit() has handed its member I/Os to the backend, and records slat then
 * (io_u_queued()). So slat is fio's and the engine's work up to the member I/Os' issue
 * (planning, parity, the plug, io_uring_enter) and clat the wait for the members. Without
 * the flag fio would stamp issue_time itself after ->queue (and ->commit, at a batch of
 * one) returned, and never record slat: slat 0 and a clat that misses the submission.
 */
static void fio_raid_issued(struct thread_data *td, struct fio_raid_data *d)
{
	struct timespec now;

	if (fio_fill_issue_time(td)) {
		fio_gettime(&now, NULL);
		for (unsigned i = 0; i < d->nqueued; i++) {
			d->queued[i]->issue_time = now;
			io_u_queued(td, d->queued[i]);
		}
		if (td->o.read_iolog_file)
			td->last_issue = now;
	}
	io_u_mark_submit(td, d->nqueued);
	d->nqueued = 0;
}

/* An io_u answered inside ->queue (a flush, an error) is issued and complete at once. */
static enum fio_q_status fio_raid_done_now(struct thread_data *td, struct io_u *io_u, int ret)
{
	io_u->error = ret < 0 ? -ret : 0;
	io_u_mark_submit(td, 1);
	io_u_mark_complete(td, 1);
	return FIO_Q_COMPLETED;
}

static enum fio_q_status fio_raid_queue(struct thread_data *td, struct io_u *io_u)
{
	struct fio_raid_data *d = td->io_ops_data;
	struct raid_request *r = io_u->engine_data;
	int ret;

	fio_ro_check(td, io_u);
	if (!d->buffers_offered)
		offer_buffers(td, d);
	if (d->nqueued == td->o.iodepth)
		return FIO_Q_BUSY;
	/* what completes here is timed from here, as fio times a synchronous engine's I/O */
	if (ddir_sync(io_u->ddir) && fio_fill_issue_time(td))
		fio_gettime(&io_u->issue_time, NULL);
	switch (io_u->ddir) {
	case DDIR_READ:
	case DDIR_WRITE:
		r->op = io_u->ddir == DDIR_READ ? RAID_OP_READ : RAID_OP_WRITE;
		r->buf = io_u->xfer_buf;
		r->offset = io_u->offset;
		r->length = io_u->xfer_buflen;
		r->cookie = io_u;
		ret = raid_submit(d->q, r);
		if (ret < 0) {
			if (fio_fill_issue_time(td))
				fio_gettime(&io_u->issue_time, NULL);
			td_verror(td, -ret, "raid_submit");
			return fio_raid_done_now(td, io_u, ret);
		}
		d->queued[d->nqueued++] = io_u;
		return FIO_Q_QUEUED;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		return fio_raid_done_now(td, io_u, raid_array_flush(d->a));
	default:
		return fio_raid_done_now(td, io_u, -EOPNOTSUPP);
	}
}

static int fio_raid_commit(struct thread_data *td)
{
	struct fio_raid_data *d = td->io_ops_data;
	int ret = raid_commit(d->q);

	if (d->nqueued)
		fio_raid_issued(td, d);
	return ret;
}

static int fio_raid_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			      const struct timespec *t)
{
	struct fio_raid_data *d = td->io_ops_data;

	/* raid_reap commits what is queued: fio may reap (min 0) before its commit */
	if (d->nqueued)
		fio_raid_commit(td);
	if (max > td->o.iodepth)
		max = td->o.iodepth;
	return raid_reap(d->q, min, max, t, d->events);
}

static struct io_u *fio_raid_event(struct thread_data *td, int event)
{
	struct fio_raid_data *d = td->io_ops_data;
	struct raid_request *r = d->events[event];
	struct io_u *io_u = r->cookie;

	io_u->error = r->error ? -r->error : 0;
	io_u->resid = r->error ? io_u->xfer_buflen : 0;
	return io_u;
}

static int fio_raid_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	io_u->engine_data = calloc(1, sizeof(struct raid_request));
	return io_u->engine_data ? 0 : 1;
}

static void fio_raid_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

/* The volume is not a file: nothing to open, close or drop from the page cache. */
static int fio_raid_open_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_raid_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int fio_raid_invalidate(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

struct ioengine_ops ioengine = {
    .name = "raid",
    .version = FIO_IOOPS_VERSION,
    .flags = FIO_DISKLESSIO | FIO_NOEXTEND | FIO_NODISKUTIL | FIO_ASYNCIO_SYNC_TRIM |
	     FIO_ASYNCIO_SETS_ISSUE_TIME,
    .setup = fio_raid_setup,
    .init = fio_raid_init,
    .cleanup = fio_raid_cleanup,
    .queue = fio_raid_queue,
    .commit = fio_raid_commit,
    .getevents = fio_raid_getevents,
    .event = fio_raid_event,
    .io_u_init = fio_raid_io_u_init,
    .io_u_free = fio_raid_io_u_free,
    .open_file = fio_raid_open_file,
    .close_file = fio_raid_close_file,
    .invalidate = fio_raid_invalidate,
    .option_struct_size = sizeof(struct fio_raid_options),
    .options = options,
};
