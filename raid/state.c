/*
 * state.c - raid_state=FILE: what must survive between fio runs of one array, as JSON
 * (json-c): which members failed, which spare replaced which member, and how far an
 * unfinished rebuild got, so "fail, run degraded, rebuild, run again" can be separate
 * runs and a killed rebuild resumes. Written atomically (temp file, fsync, rename) and
 * only with a rebuild front whose data was fdatasync'ed first.
 *
 *   {"members": 4, "failed": [1],
 *    "replaced": [{"member": 1, "spare": "/s0", "done": false, "recovery_offset": 8388608}]}
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rebuild.h"

static int bad(const char *path, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "raid: raid_state: %s: %s", path, why);
	return -EINVAL;
}

static int spare_index(struct raid_recovery_config *r, const char *path)
{
	for (int s = 0; s < r->nspares; s++)
		if (!strcmp(r->spares[s], path))
			return s;
	if (r->nspares == RAID_MAX_MEMBERS)
		return -1;
	r->spares[r->nspares] = strdup(path);
	return r->nspares++;
}

static void drop_spare(struct raid_recovery_config *r, const char *path)
{
	for (int s = 0; s < r->nspares; s++)
		if (!strcmp(r->spares[s], path)) {
			free(r->spares[s]);
			memmove(&r->spares[s], &r->spares[s + 1],
				(size_t)(r->nspares - s - 1) * sizeof(r->spares[0]));
			r->nspares--;
			return;
		}
}

int raid_rec_state_load(struct raid_config *c, const char *path, char *err, size_t errlen)
{
	struct raid_recovery_config *r = &c->rec;
	json_object *o, *x, *arr;
	int ret = 0;

	if (access(path, F_OK) && errno == ENOENT)
		return 0; /* the first run: written at the end */
	if (!c->nmembers)
		return bad(path, "raid_members must be given before raid_state", err, errlen);
	o = json_object_from_file(path);
	if (!o)
		return bad(path, "not a JSON state file", err, errlen);
	if (!json_object_object_get_ex(o, "members", &x) || json_object_get_int(x) != c->nmembers) {
		ret = bad(path, "it describes an array with another member count", err, errlen);
		goto out;
	}
	if (json_object_object_get_ex(o, "failed", &arr) &&
	    json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			int m = json_object_get_int(json_object_array_get_idx(arr, i));

			if (m < 0 || m >= c->nmembers) {
				ret = bad(path, "a failed member is out of range", err, errlen);
				goto out;
			}
			c->failed |= 1ULL << m;
		}
	if (json_object_object_get_ex(o, "replaced", &arr) &&
	    json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			json_object *e = json_object_array_get_idx(arr, i), *jm, *js, *jd, *jo;
			const char *sp;
			int m, s;

			if (!json_object_object_get_ex(e, "member", &jm) ||
			    !json_object_object_get_ex(e, "spare", &js) ||
			    !json_object_object_get_ex(e, "done", &jd)) {
				ret = bad(path, "a replaced entry lacks member, spare or done", err,
					  errlen);
				goto out;
			}
			m = json_object_get_int(jm);
			sp = json_object_get_string(js);
			if (m < 0 || m >= c->nmembers || !sp || !*sp) {
				ret = bad(path, "a replaced entry is out of range", err, errlen);
				goto out;
			}
			if (json_object_get_boolean(jd)) {
				/* the spare is the member now, wherever raid_members points */
				free(r->replaced[m]);
				r->replaced[m] = strdup(sp);
				free(c->members[m]);
				c->members[m] = strdup(sp);
				c->failed &= ~(1ULL << m);
				drop_spare(r, sp);
				continue;
			}
			s = spare_index(r, sp);
			if (s < 0) {
				ret = bad(path, "too many spares", err, errlen);
				goto out;
			}
			c->failed |= 1ULL << m;
			r->resume_spare[m] = s + 1;
			r->resume_off[m] = json_object_object_get_ex(e, "recovery_offset", &jo)
					       ? (uint64_t)json_object_get_int64(jo)
					       : 0;
		}
out:
	json_object_put(o);
	return ret;
}

static json_object *entry(int m, const char *spare, bool done, uint64_t off)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "member", json_object_new_int(m));
	json_object_object_add(e, "spare", json_object_new_string(spare));
	json_object_object_add(e, "done", json_object_new_boolean(done));
	if (!done)
		json_object_object_add(e, "recovery_offset", json_object_new_int64((int64_t)off));
	return e;
}

int raid_rec_state_save(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;
	const char *path = a->cfg.rec.state_path;
	json_object *o, *failed, *rep;
	char tmp[4096];
	const char *txt;
	int fd, ret = 0;
	size_t len;

	if (!path)
		return 0;
	o = json_object_new_object();
	failed = json_object_new_array();
	rep = json_object_new_array();
	for (int i = 0; i < a->geom.n; i++) {
		int dev = atomic_load(&a->m[i].dev);
		bool f = raid_member_failed(a, i);

		if (f)
			json_object_array_add(failed, json_object_new_int(i));
		if (a->cfg.rec.replaced[i])
			json_object_array_add(rep, entry(i, a->cfg.rec.replaced[i], true, 0));
		else if (dev != i)
			json_object_array_add(rep,
					      entry(i, a->m[dev].path, !f, rec->durable_off[i]));
	}
	json_object_object_add(o, "members", json_object_new_int(a->geom.n));
	json_object_object_add(o, "failed", failed);
	json_object_object_add(o, "replaced", rep);
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	len = strlen(txt);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, txt, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) ||
	    rename(tmp, path))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret) {
		unlink(tmp);
		raid_log("raid: raid_state: cannot write %s: %s", path, strerror(-ret));
	}
	json_object_put(o);
	return ret;
}
