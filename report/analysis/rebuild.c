/* report/analysis/rebuild.c: each rebuild and resync of a run beside its references
 * (docs/report.md "Rebuild and resync"): its rate in MB/s of member (the spare written, or
 * each member resynced) and of array, the drive's sequential write spec from the run's host
 * profile (the spare's bay), the array's own transfers where the run measured them (meta.json
 * refs.transfers_mbps), and md's rate on the same members (the md twin). Numbers only; the
 * table is report/render/rebuild_out.c. */
#include "report/analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Volume bytes behind one member's bytes: what a rebuilt member gives back its redundancy
 * (every row of a parity level; a mirror's copy), and what a resync of each member covers
 * (a RAID10 near2 array holds members / 2 members of data) */
static double array_factor(const struct rr_test *t, int resync)
{
	int p = rr_level_parity(t->level);
	if (p > 0 && t->members > p)
		return t->members - p;
	if (resync && t->level == 10)
		return t->members / 2.0;
	return 1;
}

/* The drive of the spare's bay (meta.json spares, the first; else the bay after the
 * members, where the plan puts it), its sequential write spec, and where the profile has
 * it from; NAN with why when the profile has none */
static double spec_of(json_object *prof, const struct rr_test *t, char *what, size_t len)
{
	const char *sp = rr_jstr(rr_jget(t->meta_json, "spares"));
	int bay = *sp ? atoi(sp) : t->members;
	const char *dname = NULL;
	json_object *bays = rr_jget(prof, "bays");
	for (size_t i = 0; bays && i < json_object_array_length(bays); i++) {
		json_object *b = json_object_array_get_idx(bays, i);
		if (json_object_get_int(rr_jget(b, "bay")) == bay)
			dname = rr_jstr(rr_jget(b, "drive"));
	}
	json_object *d = dname && *dname ? rr_jget(rr_jget(prof, "drives"), dname) : NULL;
	double v = rr_jnum(rr_jget(d, "seq_write_mbps"));
	if (!prof)
		snprintf(what, len, "no spec: the run's profile is this machine's");
	else if (!d)
		snprintf(what, len, "no spec: bay %d has no drive in profile %s", bay,
			 rr_jstr(rr_jget(prof, "name")));
	else if (!(v > 0))
		snprintf(what, len, "no spec: %s has no seq_write_mbps", dname);
	else
		snprintf(what, len, "%s seq write spec (%s)", dname,
			 rr_jstr(rr_jget(d, "spec_source")));
	return v > 0 ? v : NAN;
}

static void fill(struct rr_recovery *r, const struct rr_run *run, const struct rr_test *t,
		 json_object *prof, int resync)
{
	json_object *s = rr_jget(t->stats_json, resync ? "resync" : "rebuild");
	json_object *refs = rr_jget(t->meta_json, "refs");
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->resync = resync;
	snprintf(r->policy, sizeof(r->policy), "%s",
		 resync ? (!strcmp(t->state, "resync-bitmap") ? "bitmap" : "full") : "");
	const char *pol = rr_jstr(rr_jget(rr_jget(t->stats_json, "consistency"), "policy"));
	if (resync && *pol)
		snprintf(r->policy, sizeof(r->policy), "%s", strcmp(pol, "resync") ? pol : "full");
	if (resync) {
		/* md's bitmap pass walks the whole member and skips clean regions: what it
		 * resynced is its dirty regions (run/recovery.sh); the engine's bytes are its own
		 */
		double dirty = rr_jnum(rr_jget(s, "dirty_bytes"));
		/* md's RAID10 bitmap covers the array, not a member (its bits: the volume's
		 * regions): per member that is the volume's share of one */
		if (t->level == 10)
			dirty /= array_factor(t, 1);
		r->seconds = rr_jnum(rr_jget(s, "seconds"));
		r->member_bytes = dirty >= 0 ? dirty : rr_jnum(rr_jget(s, "bytes"));
	} else {
		r->seconds = t->rebuild_s;
		r->member_bytes = rr_jnum(rr_jget(s, "bytes"));
	}
	r->member_mbps = r->seconds > 0 ? r->member_bytes / 1e6 / r->seconds : NAN;
	if (!resync && t->rebuild_mbps > 0)
		r->member_mbps = t->rebuild_mbps; /* the engine's own figure (its clock) */
	r->array_mbps = r->member_mbps * array_factor(t, resync);
	r->spec_mbps = spec_of(prof, t, r->spec, sizeof(r->spec));
	r->of_spec = r->member_mbps / r->spec_mbps;
	r->transfers_mbps = rr_jnum(rr_jget(refs, "transfers_mbps"));
	snprintf(r->transfers, sizeof(r->transfers), "%s",
		 r->transfers_mbps > 0 ? rr_jstr(rr_jget(refs, "transfers_how"))
				       : "not measured by this run");
	r->of_transfers = r->transfers_mbps > 0 ? r->member_mbps / r->transfers_mbps : NAN;
	r->md = rr_md_twin(run, t);
	r->md_mbps = NAN;
	if (r->md) {
		struct rr_recovery m;
		fill(&m, run, r->md, prof, resync);
		r->md_mbps = m.member_mbps;
	}
	r->emulated = *run->emulation != '\0';
	/* under emulation md (an emulated kernel) and the engine (emulated user space) slow
	 * down unlike each other: no ratio, as targets.c */
	r->vs_md = !r->emulated && r->md_mbps > 0 ? r->member_mbps / r->md_mbps : NAN;
}

size_t rr_recovery_rows(const struct rr_run *run, struct rr_recovery **out)
{
	json_object *prof = rr_profile_of_run(run);
	struct rr_recovery *rows = calloc(run->ntests + 1, sizeof(*rows));
	size_t n = 0;
	if (!rows)
		abort();
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		int resync = !strncmp(t->state, "resync", 6);
		if (!rr_jget(t->stats_json, resync ? "resync" : "rebuild"))
			continue;
		if (!resync && strcmp(t->state, "rebuilding"))
			continue;
		fill(&rows[n++], run, t, prof, resync);
	}
	json_object_put(prof);
	*out = rows;
	return n;
}
