/*
 * stats.c - the engine's raid_stats JSON file (schema: results/README.md), written with
 * json-c. Keys of features that do not apply to this level are still written (zeros or
 * null), so the report reads every run alike.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "level.h"
#include "options.h"
#include "parity/pq.h"
#include "service.h"

static json_object *io_obj(uint64_t r, uint64_t w, uint64_t rb, uint64_t wb)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "reads", json_object_new_int64((int64_t)r));
	json_object_object_add(o, "writes", json_object_new_int64((int64_t)w));
	json_object_object_add(o, "read_bytes", json_object_new_int64((int64_t)rb));
	json_object_object_add(o, "write_bytes", json_object_new_int64((int64_t)wb));
	return o;
}

struct raid_rate raid_rate_of(uint64_t bytes, double seconds)
{
	struct raid_rate r = {0, 0};

	if (seconds > 0 && bytes > 0) {
		r.mbps = (double)bytes / 1e6 / seconds;
		r.min_per_tb = 1e6 / r.mbps / 60;
	}
	return r;
}

static json_object *build(struct raid_array *a)
{
	json_object *o = json_object_new_object(), *failed = json_object_new_array(), *x;
	const char *layout = raid_layout_name(a->cfg.level, a->cfg.layout);
	struct raid_counters t;
	bool degraded = false;

	pthread_mutex_lock(&a->lock);
	t = a->totals;
	pthread_mutex_unlock(&a->lock);
	for (int i = 0; i < a->geom.n; i++) {
		if (raid_member_failed(a, i)) {
			degraded = true;
			json_object_array_add(failed, json_object_new_int(i));
		}
	}
	json_object_object_add(o, "level", json_object_new_int(a->cfg.level));
	json_object_object_add(o, "members", json_object_new_int(a->geom.n));
	json_object_object_add(o, "chunk", json_object_new_int64((int64_t)a->cfg.chunk));
	json_object_object_add(o, "layout", layout ? json_object_new_string(layout) : NULL);
	json_object_object_add(o, "backend",
			       json_object_new_string(raid_backend_name(a->cfg.backend)));
	raid_option_groups_stats(a, o); /* the parts' keys: parity_path, gpu (results/README.md) */
	/* null at levels 0, 1, 10: no parity */
	json_object_object_add(o, "parity_impl",
			       a->parity_impl ? json_object_new_string(a->parity_impl) : NULL);
	json_object_object_add(o, "parity_used",
			       a->parity_used ? json_object_new_string(a->parity_used) : NULL);
	json_object_object_add(o, "parity_note",
			       a->parity_note ? json_object_new_string(a->parity_note) : NULL);
	/* the variants the parity rule chose in this process and why; null if none was chosen */
	json_object_object_add(o, "parity_selection", pq_selection_json());
	json_object_object_add(o, "state",
			       json_object_new_string(degraded ? "degraded" : "optimal"));
	json_object_object_add(o, "failed", failed);
	json_object_object_add(o, "member_size",
			       json_object_new_int64((int64_t)a->geom.member_size));
	json_object_object_add(o, "volume_size", json_object_new_int64((int64_t)a->size));
	json_object_object_add(o, "volume", io_obj(t.reads, t.writes, t.read_bytes, t.write_bytes));
	x = io_obj(t.m_reads, t.m_writes, t.m_read_bytes, t.m_write_bytes);
	/* parts folded into another member I/O (raid_merge); reads + writes count what went out */
	json_object_object_add(x, "merged", json_object_new_int64((int64_t)t.merged));
	json_object_object_add(o, "member_io", x);
	x = json_object_new_object();
	json_object_object_add(x, "full_stripe", json_object_new_int64((int64_t)t.full_stripe));
	json_object_object_add(x, "rcw", json_object_new_int64((int64_t)t.rcw));
	json_object_object_add(x, "rmw", json_object_new_int64((int64_t)t.rmw));
	json_object_object_add(o, "writes", x);
	json_object_object_add(o, "degraded_reads",
			       json_object_new_int64((int64_t)t.degraded_reads));
	json_object_object_add(o, "member_errors", json_object_new_int64((int64_t)t.errors));
	x = json_object_new_object();
	json_object_object_add(x, "bytes", json_object_new_int64((int64_t)t.parity_bytes));
	json_object_object_add(x, "cpu_ns", json_object_new_int64((int64_t)t.parity_ns));
	json_object_object_add(o, "parity", x);
	json_object_object_add(o, "stripe_lock_waits",
			       json_object_new_int64((int64_t)t.stripe_lock_waits));
	raid_service()->stats(a, o); /* rebuild, scrub, resync, re_add, consistency */
	return o;
}

int raid_array_write_stats(struct raid_array *a, const char *path, char *err, size_t errlen)
{
	json_object *o = build(a);
	int ret = 0;

	if (json_object_to_file_ext(path, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED)) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "raid: raid_stats: cannot write %s: %s", path,
			 strerror(-ret));
	}
	json_object_put(o);
	return ret;
}
