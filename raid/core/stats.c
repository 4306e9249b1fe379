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

/* null unless a GPU computes the parity */
static json_object *gpu_obj(const struct raid_array *a, const struct raid_counters *t)
{
	json_object *x;

	if (!a->gpu)
		return NULL;
	x = json_object_new_object();
	json_object_object_add(x, "device", json_object_new_int(a->gpu->device));
	json_object_object_add(x, "name", json_object_new_string(a->gpu->desc));
	json_object_object_add(x, "mode",
			       json_object_new_string(a->gpu->mapped ? "mapped" : "copy"));
	json_object_object_add(x, "batch", json_object_new_int(a->gpu->batch));
	json_object_object_add(x, "launches", json_object_new_int64((int64_t)t->gpu_launches));
	json_object_object_add(x, "stripes", json_object_new_int64((int64_t)t->gpu_stripes));
	json_object_object_add(
	    x, "stripes_per_launch",
	    json_object_new_double(t->gpu_launches ? (double)t->gpu_stripes / t->gpu_launches : 0));
	json_object_object_add(x, "cpu_stripes",
			       json_object_new_int64((int64_t)t->gpu_cpu_stripes));
	json_object_object_add(x, "inplace_stripes",
			       json_object_new_int64((int64_t)t->gpu_inplace_stripes));
	return x;
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

static const char *const phase_names[] = {"before", "during", "after"};

static json_object *sample_obj(const struct raid_rec_sample *s)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "t", json_object_new_double(s->t));
	json_object_object_add(e, "phase", json_object_new_string(phase_names[s->phase]));
	json_object_object_add(e, "iops", json_object_new_double(s->iops));
	json_object_object_add(e, "mbps", json_object_new_double(s->mbps));
	json_object_object_add(e, "lat_mean_us", json_object_new_double(s->lat_mean_us));
	json_object_object_add(e, "lat_p99_us", json_object_new_double(s->lat_p99_us));
	return e;
}

static json_object *rebuild_obj(const struct raid_rec_snapshot *r)
{
	struct raid_rate rate = raid_rate_of(r->bytes, r->end_s - r->start_s);
	json_object *x = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(x, "member", json_object_new_int(r->members[0]));
	json_object_object_add(x, "spare", json_object_new_string(r->spares[0]));
	for (int i = 0; i < r->nrebuilt; i++)
		json_object_array_add(arr, json_object_new_int(r->members[i]));
	json_object_object_add(x, "members", arr);
	json_object_object_add(x, "done", json_object_new_boolean(r->rebuild_done));
	json_object_object_add(x, "start_s", json_object_new_double(r->start_s));
	json_object_object_add(x, "end_s", json_object_new_double(r->end_s));
	json_object_object_add(x, "bytes", json_object_new_int64((int64_t)r->bytes));
	json_object_object_add(x, "mbps", json_object_new_double(rate.mbps));
	json_object_object_add(x, "min_per_tb", json_object_new_double(rate.min_per_tb));
	json_object_object_add(x, "wait_s", json_object_new_double(r->wait_s));
	arr = json_object_new_array();
	for (size_t i = 0; i < r->nsamples; i++)
		json_object_array_add(arr, sample_obj(&r->samples[i]));
	json_object_object_add(x, "samples", arr);
	return x;
}

/* "rebuild" and "scrub": null unless one ran; "resync" only when one ran */
static void recovery_objs(struct raid_array *a, json_object *o)
{
	struct raid_rec_snapshot r;
	bool any = raid_service()->snapshot(a, &r);
	json_object *x;

	json_object_object_add(o, "rebuild", any && r.nrebuilt ? rebuild_obj(&r) : NULL);
	if (any && r.scrubbed) {
		x = json_object_new_object();
		json_object_object_add(
		    x, "mode",
		    json_object_new_string(a->cfg.rec.scrub == RAID_SCRUB_REPAIR ? "repair" : "check"));
		json_object_object_add(x, "stripes", json_object_new_int64((int64_t)r.stripes));
		json_object_object_add(x, "mismatches",
				       json_object_new_int64((int64_t)r.mismatches));
		json_object_object_add(x, "repaired", json_object_new_int64((int64_t)r.repaired));
		json_object_object_add(o, "scrub", x);
	} else {
		json_object_object_add(o, "scrub", NULL);
	}
	if (any && r.resynced) {
		x = json_object_new_object();
		json_object_object_add(x, "bytes", json_object_new_int64((int64_t)r.resync_bytes));
		json_object_object_add(x, "seconds", json_object_new_double(r.resync_s));
		json_object_object_add(x, "scope",
				       json_object_new_string(r.resync_bitmap ? "bitmap" : "full"));
		json_object_object_add(o, "resync", x);
	}
	if (any && r.re_added) {
		json_object *m = json_object_new_array();

		x = json_object_new_object();
		for (int i = 0; i < a->geom.n; i++)
			if (r.re_added >> i & 1)
				json_object_array_add(m, json_object_new_int(i));
		json_object_object_add(x, "members", m);
		json_object_object_add(x, "bytes", json_object_new_int64((int64_t)r.re_add_bytes));
		json_object_object_add(x, "seconds", json_object_new_double(r.re_add_s));
		json_object_object_add(o, "re_add", x);
	}
	/* what an unclean stop costs (the contract with run/: "none", "resync", "bitmap") */
	x = json_object_new_object();
	json_object_object_add(x, "policy",
			       json_object_new_string(!a->ops->max_failed || !a->cfg.rec.state_path
							  ? "none"
						      : any && r.bitmap_chunk ? "bitmap"
									      : "resync"));
	if (any && r.bitmap_chunk) {
		json_object_object_add(x, "bitmap_chunk",
				       json_object_new_int64((int64_t)r.bitmap_chunk));
		json_object_object_add(x, "bitmap_syncs",
				       json_object_new_int64((int64_t)r.bitmap_syncs));
	}
	json_object_object_add(o, "consistency", x);
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
	json_object_object_add(o, "parity_path",
			       json_object_new_string(raid_parity_name(a->cfg.parity)));
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
	json_object_object_add(o, "gpu", gpu_obj(a, &t));
	json_object_object_add(o, "stripe_lock_waits",
			       json_object_new_int64((int64_t)t.stripe_lock_waits));
	recovery_objs(a, o);
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
