/*
 * member_fault.c - raid_inject=IDX:read|write:PERCENT as a backend decorator (SPDK's
 * error bdev): the queue's backend when the array injects, wrapping the array's real
 * backend (a->be when the queue is made). A member I/O drawn for injection never reaches the member: it is held
 * and completes with EIO at the next poll, through the core's ordinary completion path,
 * so md_error, the retry and the stats see it as a real media error. Only the member's own
 * device is injected: a spare taking its place is another drive. Draws come from a
 * per-queue xorshift stream seeded by RAID_INJECT_SEED (fixed when unset).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "core/options.h"

/* raid_inject's list: this decorator's options, one struct per configuration (options.h) */
struct raid_inject {
	int member;
	enum raid_op op;
	double percent;
};

struct fault_opts {
	int ninject;
	struct raid_inject inject[2 * RAID_MAX_MEMBERS];
};

static const struct raid_option_group fault_group;

static struct fault_opts *fault_opts(const struct raid_config *c)
{
	return raid_config_part(c, &fault_group);
}

/* in q->deco_priv: the wrapped backend keeps q->be_priv */
struct fault_q {
	const struct member_backend_ops *inner; /* a->be when the queue was made */
	struct mio_list held;
	uint64_t rng;
};

static double draw(struct fault_q *f)
{
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return (double)((f->rng * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

static bool injected(struct raid_queue *q, struct fault_q *f, const struct member_io *mio)
{
	const struct fault_opts *c = fault_opts(&q->a->cfg);

	if (mio->dev != mio->member)
		return false;
	for (int i = 0; i < c->ninject; i++)
		if (c->inject[i].member == mio->member && c->inject[i].op == mio->op &&
		    draw(f) * 100.0 < c->inject[i].percent)
			return true;
	return false;
}

static int fault_init(struct raid_queue *q, char *err, size_t errlen)
{
	struct fault_q *f = calloc(1, sizeof(*f));
	const char *env = getenv("RAID_INJECT_SEED");
	int ret;

	if (!f)
		return -ENOMEM;
	f->inner = q->a->be;
	STAILQ_INIT(&f->held);
	f->rng = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ULL;
	f->rng ^= (uint64_t)(uintptr_t)q; /* one stream per queue */
	if (!f->rng)
		f->rng = 1;
	q->deco_priv = f;
	ret = f->inner->init(q, err, errlen);
	if (ret) {
		free(f);
		q->deco_priv = NULL;
	}
	return ret;
}

static void fault_exit(struct raid_queue *q)
{
	struct fault_q *f = q->deco_priv;

	f->inner->exit(q);
	free(f);
	q->deco_priv = NULL;
}

static int fault_prep(struct raid_queue *q, struct member_io *mio)
{
	struct fault_q *f = q->deco_priv;

	if (injected(q, f, mio)) {
		STAILQ_INSERT_TAIL(&f->held, mio, link);
		raid_queue_notify(q); /* it fails at the next poll, with no kernel event */
		return 0;
	}
	return f->inner->prep(q, mio);
}

static int fault_submit(struct raid_queue *q)
{
	struct fault_q *f = q->deco_priv;

	return f->inner->submit(q);
}

static int fault_poll(struct raid_queue *q, bool block, const struct timespec *timeout)
{
	struct fault_q *f = q->deco_priv;
	struct mio_list done = STAILQ_HEAD_INITIALIZER(done);
	int n = 0, ret;

	STAILQ_CONCAT(&done, &f->held); /* completions may prep more: the next poll's */
	while (!STAILQ_EMPTY(&done)) {
		struct member_io *m = STAILQ_FIRST(&done);

		STAILQ_REMOVE_HEAD(&done, link);
		raid_mio_done(q, m, -EIO);
		n++;
	}
	/* something completed: never block, the caller has work */
	ret = f->inner->poll(q, block && !n, timeout);
	return ret < 0 ? (n ? n : ret) : n + ret;
}

/* the wrapped backend's completions signal it; held ones are signalled at prep */
static int fault_notify(struct raid_queue *q, int efd)
{
	struct fault_q *f = q->deco_priv;

	return f->inner->notify ? f->inner->notify(q, efd) : -ENOTSUP;
}

/* raid_inject: "IDX:read|write:PERCENT[,...]" */
static int parse_inject(struct raid_config *c, const char *v, char *err, size_t errlen)
{
	struct fault_opts *r = fault_opts(c);
	const char *p = v;

	r->ninject = 0;
	while (*p) {
		char *end;
		long idx = strtol(p, &end, 10);
		enum raid_op op;
		double pct;

		if (end == p || *end != ':' || idx < 0 || idx >= RAID_MAX_MEMBERS)
			goto bad;
		p = end + 1;
		if (!strncmp(p, "read:", 5))
			op = RAID_OP_READ;
		else if (!strncmp(p, "write:", 6))
			op = RAID_OP_WRITE;
		else
			goto bad;
		p = strchr(p, ':') + 1;
		pct = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(pct >= 0) || pct > 100 ||
		    r->ninject == 2 * RAID_MAX_MEMBERS)
			goto bad;
		r->inject[r->ninject++] =
		    (struct raid_inject){.member = (int)idx, .op = op, .percent = pct};
		p = *end ? end + 1 : end;
		if (end[0] == ',' && !*p)
			goto bad;
	}
	if (r->ninject)
		return 0;
bad:
	snprintf(err, errlen,
		 "raid: raid_inject: '%s' is not IDX:read|write:PERCENT (','-separated)", v);
	return -EINVAL;
}

/* the members it names are the array's */
static int fault_validate(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
			  size_t errlen)
{
	const struct fault_opts *r = fault_opts(c);

	(void)ops;
	for (int i = 0; i < r->ninject; i++)
		if (r->inject[i].member >= c->nmembers) {
			snprintf(err, errlen,
				 "raid: raid_inject: member %d is out of range (0..%d)",
				 r->inject[i].member, c->nmembers - 1);
			return -EINVAL;
		}
	return 0;
}

static const struct raid_option fault_rows[] = {
    {.name = "raid_inject", .type = RAID_OPT_LIST, .part = "backends",
     .help = "that share of member IDX's reads or writes fail with EIO", .def_doc = "none",
     .syntax = "IDX:read|write:PERCENT, ','-separated", .parse = parse_inject,
     .after = "raid_fail"},
    {.name = NULL},
};

static const struct raid_option_group fault_group = {
    .part = "backends",
    .rows = fault_rows,
    .size = sizeof(struct fault_opts),
    .validate = fault_validate,
};

/* whether the array's queues go through this decorator: raid_inject names a member */
static bool fault_wraps(const struct raid_config *c)
{
	const struct fault_opts *r = fault_opts(c);

	return r && r->ninject;
}

int raid_inject_register(void)
{
	int ret = raid_options_register(&fault_group);

	return ret ? ret : member_injector_register(&member_fault_ops);
}

const struct member_backend_ops member_fault_ops = {
    .name = "fault",
    .wraps = fault_wraps,
    .init = fault_init,
    .exit = fault_exit,
    .prep = fault_prep,
    .submit = fault_submit,
    .poll = fault_poll,
    .notify = fault_notify,
};
