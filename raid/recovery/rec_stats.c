/*
 * rec_stats.c - recovery's keys of the stats file (results/README.md: rebuild, scrub,
 * resync, re_add, consistency), from what the service ran: the core's stats.c calls it
 * through the service it registered (core/service.h), after the core's own keys.
 */
#include <json-c/json.h>

#include "recovery/rec_service.h"

/* What the service ran, under its lock; false when it has run nothing. */
static bool snapshot(struct raid_array *a, struct raid_rec_snapshot *out)
{
	struct raid_recovery *rec = a->rec;

	if (!rec)
		return false;
	pthread_mutex_lock(&rec->mu);
	*out = rec->res;
	out->samples = rec->mt.samples;
	out->nsamples = rec->mt.n;
	pthread_mutex_unlock(&rec->mu);
	return true;
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
void raid_rec_stats(struct raid_array *a, void *obj)
{
	struct raid_rec_snapshot r;
	bool any = snapshot(a, &r);
	json_object *o = obj, *x;

	json_object_object_add(o, "rebuild", any && r.nrebuilt ? rebuild_obj(&r) : NULL);
	if (any && r.scrubbed) {
		x = json_object_new_object();
		json_object_object_add(
		    x, "mode",
		    json_object_new_string(rec_cfg(&a->cfg)->scrub == RAID_SCRUB_REPAIR ? "repair" : "check"));
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
			       json_object_new_string(!a->ops->max_failed || !rec_cfg(&a->cfg)->state_path
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

