/*
 * pq_json.c - the parity selections as JSON (json-c), for the engine's raid_stats file: what was
 * chosen and the figures it was chosen from, so that a run's result says which kernel computed
 * its parity and by how much it beat ISA-L on that machine. Only selections that have run are
 * written: asking for one here would start it (the streaming one costs most of a second of CPU).
 */
#include <json-c/json.h>

#include "pq.h"
#include "pq_impl.h"

static json_object *cand_obj(const struct pq_selection *s, int c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(s->cand[c].name));
	json_object_object_add(o, "k", json_object_new_int(s->cand[c].k));
	json_object_object_add(o, "len", json_object_new_int64((int64_t)s->cand[c].len));
	json_object_object_add(o, "gbps", json_object_new_double(s->cand[c].gbps));
	json_object_object_add(o, "vs_isal", json_object_new_double(s->cand[c].rel));
	/* took part in its band's choice (pq_sel_finalist()): timed to the band's last round */
	json_object_object_add(o, "finalist", json_object_new_boolean(pq_sel_finalist(s, c)));
	return o;
}

static json_object *sel_obj(const struct pq_selection *s)
{
	json_object *o = json_object_new_object(), *bands, *cands;

	json_object_object_add(o, "chosen", json_object_new_string(s->chosen->name));
	json_object_object_add(o, "forced", s->forced ? json_object_new_string(s->forced) : NULL);
	if (s->forced || s->best < 0)
		return o;
	bands = json_object_new_array();
	for (int b = 0; b < s->nbands; b++)
		json_object_array_add(bands, cand_obj(s, s->band[b].best));
	json_object_object_add(o, "bands", bands); /* each band's choice */
	json_object_object_add(o, "cpu_s", json_object_new_double(s->cpu_s));
	/* kept in RAID_PARITY_SELECTION's file: which, whether read from it, when measured */
	json_object_object_add(o, "kept", s->kept ? json_object_new_string(s->kept) : NULL);
	json_object_object_add(o, "read_from_kept", json_object_new_boolean(s->loaded));
	json_object_object_add(o, "measured", s->kept ? json_object_new_string(s->measured) : NULL);
	json_object_object_add(o, "runs", json_object_new_int(s->runs));
	cands = json_object_new_array();
	for (int c = 0; c < s->n; c++)
		json_object_array_add(cands, cand_obj(s, c));
	json_object_object_add(o, "candidates", cands);
	return o;
}

struct json_object *pq_selection_json(void)
{
	const struct pq_selection *hot = pq_selection_ran(PQ_USE_HOT);
	const struct pq_selection *stream = pq_selection_ran(PQ_USE_STREAM);
	json_object *o;

	if (!hot && !stream)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, pq_use_name(PQ_USE_HOT), hot ? sel_obj(hot) : NULL);
	json_object_object_add(o, pq_use_name(PQ_USE_STREAM), stream ? sel_obj(stream) : NULL);
	return o;
}
