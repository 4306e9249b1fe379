/*
 * raid.h - the public API of the RAID engine library: configuration, the shared array,
 * per-thread queues and requests, statistics. No fio types: the fio adapter
 * (engines/fio_raid.c), the tests and the benchmarks all use only this header.
 *
 * Errors are negative errno values; functions that can fail because of user input also
 * fill an `err` buffer with one line naming the option or file, for the caller to print.
 */
#ifndef RAID_RAID_H
#define RAID_RAID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <time.h>

#define RAID_MAX_MEMBERS 64
#define RAID_ERRLEN 512
#define RAID_PARTS_MAX 8 /* parts that register options of their own */

enum raid_op { RAID_OP_READ, RAID_OP_WRITE };

enum raid_layout_kind {
	RAID_LAYOUT_DEFAULT, /* the level's default: left-symmetric (5/6), near2 (10) */
	RAID_LAYOUT_LEFT_SYM,
	RAID_LAYOUT_LEFT_ASYM,
	RAID_LAYOUT_RIGHT_SYM,
	RAID_LAYOUT_RIGHT_ASYM,
	RAID_LAYOUT_NEAR2,
};


/*
 * What the user asked for. Fill it with raid_config_init() then raid_config_set() per
 * option, check it with raid_config_validate(), release it with raid_config_free().
 */
struct raid_config {
	int level; /* -1 until set */
	int nmembers;
	char *members[RAID_MAX_MEMBERS];
	uint64_t chunk;
	enum raid_layout_kind layout;
	uint64_t member_size; /* 0: the smallest member */
	int backend; /* raid_backend: which registered backend, by its place (core/member.h) */
	uint64_t failed; /* bit i: member i is missing from the start */
	uint64_t failed_opt; /* the members raid_failed itself named (failed adds the state
				file's): what two jobs of one array must agree on */
	char *stats_path;
	bool merge;	/* raid_merge: contiguous member I/Os of one commit go as one */
	uint64_t given; /* bit i: raid_options[i] was set (a default is not "given") */
	/* the options of each part registered with the core, opaque here (core/options.h) */
	void *part[RAID_PARTS_MAX];
	/* how this job uses the array (not options of the array itself) */
	bool direct; /* open file members with O_DIRECT */
	bool writes; /* the job writes: members are locked exclusively */
};

/* Every option at its default (the option table's), raid_level unset (-1). */
void raid_config_init(struct raid_config *c);
void raid_config_free(struct raid_config *c);
/* Set one option by its fio name (e.g. "raid_chunk"). -EINVAL/-ENOTSUP with a message. */
int raid_config_set(struct raid_config *c, const char *name, const char *value, char *err,
		    size_t errlen);
/* Cross-option checks: required options, member count, failed set. */
int raid_config_validate(const struct raid_config *c, char *err, size_t errlen);
/*
 * Two jobs' configurations that may run at once (fio: no stonewall between them): the later,
 * c, may not name a member or spare of the earlier, nor its state file, unless both name the
 * same members (one array, shared). -EBUSY/-EINVAL with a message naming the option, the
 * device and the earlier job; checked before anything opens, so that which job is refused
 * does not depend on which thread opens its array first.
 */
int raid_config_clash(const struct raid_config *c, const struct raid_config *earlier,
		      const char *earlier_name, char *err, size_t errlen);
/* "4k", "1m", "512K", "65536" -> bytes; -EINVAL on junk or overflow. */
int raid_parse_size(const char *s, uint64_t *out);
const char *raid_backend_name(int b); /* "io_uring": the registered backend's name */
const char *raid_layout_name(int level, enum raid_layout_kind l); /* NULL: none applies */

/*
 * The engine's options, one table (raid/core/options.c, with the rows that parts above the
 * core registered: raid/core/options.h): raid_config_set() walks it, and
 * the fio option array, fio's --enghelp and the README's table (raid-tool options) are
 * made from it. Options are applied in table order. A value that does not parse gets
 * "raid: NAME: 'VALUE' is not <what the option accepts>".
 */
enum raid_opt_type {
	RAID_OPT_LEVEL, /* a level of the level table */
	RAID_OPT_INT,	/* a whole number in [lo, hi] */
	RAID_OPT_SIZE,	/* bytes, k/m/g/t suffixes, in [lo, hi]; pow2: a power of two */
	RAID_OPT_BOOL,	/* 0 or 1 */
	RAID_OPT_LAYOUT, /* one of values[], the layouts, which the level table qualifies */
	RAID_OPT_ENUM,	/* one of values[] */
	RAID_OPT_RATE,	/* MB/s, above 0 and at most hi; kept in bytes per second */
	RAID_OPT_PATHS, /* ':'-separated paths, at most RAID_MAX_MEMBERS */
	RAID_OPT_PATH,	/* one path */
	RAID_OPT_LIST,	/* a list that the option's own parse() reads (syntax says its form) */
};

struct raid_opt_value {
	const char *name;
	int value;
	const char *help; /* NULL: the name says it */
};

struct raid_option {
	const char *name; /* "raid_chunk" */
	enum raid_opt_type type;
	const char *part; /* what consumes it: core, levels, backends, parity, recovery */
	const char *help; /* what it does, one line */
	bool required;
	const char *def;  /* the default as a job file writes it, NULL: none (see def_doc) */
	const char *def_doc; /* the default in words, when def alone does not say it */
	long long lo, hi;    /* RAID_OPT_INT and _SIZE; _RATE: hi only */
	bool pow2;
	const char *unit;		     /* RAID_OPT_INT: what the number counts */
	const struct raid_opt_value *values; /* RAID_OPT_ENUM, ends with {NULL} */
	const char *syntax;		     /* RAID_OPT_LIST */
	/* where the value goes: struct raid_config (a core row), or the options struct of the
	 * part that registered the row (core/options.h) */
	size_t off, size;
	size_t count_off; /* RAID_OPT_PATHS: the int that counts them */
	const char *after; /* a part's row: the row it follows in the table (NULL: the end) */
	int slot;	   /* set by the core: 0 a core row, else 1 + the registering part's */
	int (*parse)(struct raid_config *c, const char *v, char *err, size_t errlen);
	/* optional, after the value is stored: what else the option does (raid_state's load) */
	int (*then)(struct raid_config *c, const char *v, char *err, size_t errlen);
};

#define RAID_OPTIONS_MAX 64 /* room for the table; fits raid_config's given */
/*
 * The table: the core's rows, then those of the parts that registered theirs (recovery's),
 * in the order they registered; complete before main() (raid/README.md). Ends with
 * {.name = NULL}.
 */
extern const struct raid_option *raid_options;
const struct raid_option *raid_option_find(const char *name);
bool raid_option_given(const struct raid_config *c, const char *name);
/*
 * The option in words, as snprintf (the length it needed): the values it accepts ("4k to
 * 1m, a power of two"), its default ("512k", "required", "none"), and one help line
 * ("what it does: values (default)", fio's --enghelp).
 */
int raid_option_values(const struct raid_option *o, char *buf, size_t len);
int raid_option_default(const struct raid_option *o, char *buf, size_t len);
int raid_option_help(const struct raid_option *o, char *buf, size_t len);

/*
 * A level's facts, from its personality (the level table, raid/core/level.c): what config,
 * raid-tool levels (run.sh, raid-hwinfo) and the tests ask instead of knowing them.
 */
#define RAID_ALL_BUT_ONE (-1) /* max_failed: every member but one */
#define RAID_ALL_MEMBERS (-1) /* copies: one on every member */
struct raid_level_info {
	int level;
	const char *name; /* "raid5" */
	int min_members;
	int max_failed; /* members it can lose (RAID_ALL_BUT_ONE), before check_failed's say */
	int parity;	/* parity members of each stripe row: P, P and Q */
	int copies;	/* copies of each data chunk (RAID_ALL_MEMBERS) */
	bool uses_chunk;
	unsigned layouts; /* bit (1 << enum raid_layout_kind) for each layout it accepts */
	enum raid_layout_kind default_layout;
};
/* The i-th level this build knows, from 0: 0, or -ENOENT past the last. */
int raid_level_nth(unsigned i, struct raid_level_info *out);
/* The level numbered `level` (0, 1, 5, 6, 10): 0, or -ENOENT. */
int raid_level_get(int level, struct raid_level_info *out);
/* Members' worth of data in an array of n members: (n - parity) / copies. */
double raid_level_data_members(const struct raid_level_info *l, int n);

/*
 * Size of the volume the configuration describes, opening nothing for longer than the
 * call: members are stat'ed (and created when raid_member_size is set and they are
 * missing). Used by fio's setup in the parent process, before any job starts.
 */
int raid_probe(const struct raid_config *c, uint64_t *volume_size, char *err, size_t errlen);

struct raid_array;
/*
 * The array for these members: a process-wide registry hands every caller naming the same
 * members the same refcounted instance. A different geometry on the same members is an
 * error; so are members locked by another process (a forked job or another fio).
 */
int raid_array_get(const struct raid_config *c, struct raid_array **out, char *err, size_t errlen);
/*
 * Drop a reference; the last one waits for recovery, closes the members and writes the
 * stats and state files. Returns 0, or the first error of the array's recovery side
 * (a rebuild or scrub that could not finish, a file that could not be written), already
 * reported by raid_log: the caller only needs to exit non-zero.
 */
int raid_array_put(struct raid_array *a);
/*
 * Async-signal-safe: stop every array's rebuild, scrub and resync of this process at the
 * next window (the rebuild's checkpoint is saved first). For SIGINT/SIGTERM handlers.
 */
void raid_interrupt(void);
uint64_t raid_array_size(const struct raid_array *a);
int raid_array_members(const struct raid_array *a);
/* Mark a member failed while running (later: raid_fail); I/O skips it from now on. */
int raid_array_fail_member(struct raid_array *a, int idx);
/* fdatasync every open member file. */
int raid_array_flush(struct raid_array *a);
/* Write the stats JSON (results/README.md schema) of what has completed so far. */
int raid_array_write_stats(struct raid_array *a, const char *path, char *err, size_t errlen);
/* A transfer's rate as every stats file gives it (the engine's rebuild, md's through
 * raid-mdstats): MB/s (10^6 bytes a second) and minutes per TB (10^12 bytes); 0 and 0 when
 * no time passed or nothing moved. */
struct raid_rate {
	double mbps, min_per_tb;
};
struct raid_rate raid_rate_of(uint64_t bytes, double seconds);

struct raid_queue;
/* Work handed back to a queue by another thread: raid_queue_post() below. */
struct raid_post {
	STAILQ_ENTRY(raid_post) link;
	void (*fn)(struct raid_queue *q, struct raid_post *p);
};

/* One request on the volume. The caller owns it until raid_reap() hands it back. */
struct raid_request {
	enum raid_op op;
	void *buf;
	uint64_t offset;
	uint64_t length;
	void *cookie; /* the caller's, untouched */
	int error;    /* 0 or negative errno once reaped (-EIO for any member I/O error) */

	/* private to the library */
	STAILQ_ENTRY(raid_request) done_link; /* completed, until raid_reap hands it back */
	unsigned pending; /* member I/Os in flight */
	int stage;	  /* for multi-step levels (RAID5/6 read-modify-write) */
	bool inflight;
	void *level_priv;
	/* internal requests (rebuild, scrub): replaces the level's advance */
	int (*advance)(struct raid_queue *q, struct raid_request *r);
	unsigned char retries; /* restarts after a member failed under it (failure.c) */
	/* admission (quiesce.c): the range quiesce and the foreground meter */
	bool admitted;
	unsigned qs_epoch; /* the epoch a write was admitted in; UINT32_MAX: a read */
	bool intent;	   /* the write-intent log counts it in flight (quiesce.h) */
	uint64_t t_submit; /* ns, for the latency samples while the meter runs */
	STAILQ_ENTRY(raid_request) park_link; /* parked behind a quiesced range */
	struct raid_post park;		      /* resumes it in park_q once the range moves */
	struct raid_queue *park_q;
};

/* Per-thread queue (one per fio job): owns that thread's member I/O rings. */
struct raid_queue;
int raid_queue_create(struct raid_array *a, unsigned depth, bool direct, struct raid_queue **out,
		      char *err, size_t errlen);
void raid_queue_destroy(struct raid_queue *q);
/* Start a request; its member I/Os go to the kernel at raid_commit(). */
int raid_submit(struct raid_queue *q, struct raid_request *r);
int raid_commit(struct raid_queue *q);
/*
 * Wait until at least `min` requests have completed (fewer if fewer are in flight, or the
 * timeout passed), then hand back up to `max` of them in `out`. Returns the count.
 */
int raid_reap(struct raid_queue *q, unsigned min, unsigned max, const struct timespec *timeout,
	      struct raid_request **out);
unsigned raid_queue_inflight(const struct raid_queue *q);
/*
 * The caller's I/O buffers [buf, buf + len), for the queue's lifetime: where a GPU computes
 * the parity (raid_parity=cuda), they are pinned in place so that the GPU reads new data
 * where the caller wrote it, without a copy. 0 when done or not needed; negative errno when
 * pinning failed (the engine then copies, as without this call). Once per queue.
 */
int raid_queue_register_buffers(struct raid_queue *q, void *buf, size_t len);

/*
 * Handing work back to a queue from another thread (parity workers, GPU completions,
 * stripe-lock wake-ups): post() may be called from any thread; `fn` runs later in the
 * queue's owning thread, inside raid_reap(), which every backend wakes for it.
 */
void raid_queue_post(struct raid_queue *q, struct raid_post *p);

/*
 * A file descriptor that becomes readable (POLLIN) when raid_reap() has something to do:
 * a member I/O finished, another thread posted work, or a request completed inside
 * raid_submit() or raid_commit() (an error, a synchronous backend). For a thread that also
 * waits on other things (a ublk server's ring: a poll on this fd there, so one wait covers
 * both) instead of blocking in raid_reap(). An eventfd the queue owns: made on the first
 * call, from the queue's thread, closed by raid_queue_destroy(); the fio adapter never
 * calls it and pays nothing for it. Negative errno: -ENOTSUP where the backend cannot
 * signal it (then block in raid_reap()).
 *
 * Edge semantics, as a completion eventfd of io_uring or SPDK's interrupt mode: one wakeup
 * may stand for many completions, and a wakeup may find nothing. After each wakeup call
 * raid_reap(q, 0, max, NULL, out) until it returns fewer than max; do not read the fd
 * yourself. raid_reap() empties it before it looks for completions, so an event that comes
 * after that makes it readable again: once raid_reap() has returned fewer than max, waiting
 * on the fd loses nothing.
 */
int raid_queue_fd(struct raid_queue *q);

/* Library messages go through this hook (default: one line on stderr). */
void raid_set_log(void (*fn)(const char *line));
void raid_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A drive's EUI-64, for the state file here and for raid-hwinfo's drive list (identity.c).
 */
/* "52 54 00 00 00 00 00 01" (sysfs eui) or "eui.5254000000000001" (wwid): 16 hex digits,
 * else "". */
void raid_eui64_digits(const char *s, char out[24]);
/*
 * The EUI-64 asked of an NVMe namespace open at fd (Identify Namespace), for where the kernel
 * hides it in sysfs: for controllers it does not trust to make unique ones (QEMU's,
 * NVME_QUIRK_BOGUS_NID) its wwid is "nvme.VID-SERIAL-MODEL-NSID". out gets 16 hex digits or ""
 * (none); needs CAP_SYS_ADMIN; -ENOTTY for a device that is no NVMe namespace.
 */
int raid_nvme_eui64(int fd, char out[24]);

#endif
