/*
 * state.c - raid_state=FILE: what must survive between fio runs of one array, as JSON
 * (json-c): the array's geometry, the identity of the device in each slot, which members
 * failed, which spare replaced which member (and the spare's identity), how far an
 * unfinished rebuild got, and whether writes were running (the dirty mark), so "fail, run
 * degraded, rebuild, run again" can be separate runs, a killed rebuild resumes, and a
 * crash during writes is noticed at the next start.
 *
 *   {"version": 3, "clean": true,
 *    "array": {"level": 5, "members": 4, "chunk": 65536, "layout": 2, "member_size": 8388608},
 *    "devices": [{"slot": 0, "id": "wwn:eui.0025388b91b2c8a1", "wwid": "eui.0025388b91b2c8a1",
 *                 "serial": "S3Z9NB0K123456", "eui64": "0025388b91b2c8a1"},
 *                {"slot": 2, "id": "file:0:45:1234"}, ...],
 *    "failed": [1],
 *    "replaced": [{"member": 1, "spare": "/s0", "spare_id": "file:0:45:99", "done": false,
 *                  "recovery_offset": 8388608}]}
 *
 * "id" is what is compared (identity.h: the WWN, else the serial); "wwid", "serial" and
 * "eui64" (a spare's "spare_wwid", ...), where the drive has them, are for the people reading
 * the file and for the message that refuses another device. Version 2 had "id" only and is
 * read as it is; the next write makes it version 3.
 *
 * The file is the user's input like any option: every field is checked for type and
 * range, and a file that describes another array (geometry, or a device that is not the
 * one recorded) is refused with one line naming the difference. Written atomically (temp
 * file, fsync, rename, fsync of the directory), and only with a rebuild front whose data
 * was fdatasync'ed first.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/identity.h"
#include "recovery/blocks/blocks.h"

#define STATE_VERSION 3
#define STATE_MAX (1 << 20) /* bytes: a state file is about one line per member */

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

/* A member of `o` of type t; absent is fine unless `need`; a wrong type (null too) never is. */
static int field(json_object *o, const char *key, json_type t, bool need, json_object **out)
{
	*out = NULL;
	if (!json_object_object_get_ex(o, key, out))
		return need ? -ENOENT : 0;
	return *out && json_object_is_type(*out, t) ? 1 : -EINVAL;
}

/*
 * A device's identity strings in o, each key after `prefix` ("" or "spare_"): v[] the "id",
 * "wwid", "serial" and "eui64", NULL where absent; -EINVAL if one is no identity (a string of
 * 1..RAID_ID_LEN-1 bytes).
 */
static int ident_fields(json_object *o, const char *prefix, const char *v[4])
{
	static const char *const keys[] = {"id", "wwid", "serial", "eui64"};
	char key[32];
	json_object *x;

	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, keys[i]);
		v[i] = NULL;
		if (field(o, key, json_type_string, false, &x) < 0 ||
		    (x && (!json_object_get_string_len(x) ||
			   json_object_get_string_len(x) >= RAID_ID_LEN)))
			return -EINVAL;
		v[i] = x ? json_object_get_string(x) : NULL;
	}
	return 0;
}

static void set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? strdup(src) : NULL;
}

/* An integer field in [lo, hi]: 1 found, 0 absent (allowed), negative with `why` set. */
static int int_field(json_object *o, const char *key, int64_t lo, int64_t hi, bool need, int64_t *v,
		     char *why, size_t wlen)
{
	json_object *x;
	int ret = field(o, key, json_type_int, need, &x);

	if (ret == -ENOENT)
		snprintf(why, wlen, "\"%s\" is missing", key);
	else if (ret < 0)
		snprintf(why, wlen, "\"%s\" is not an integer", key);
	if (ret <= 0)
		return ret;
	*v = json_object_get_int64(x);
	/* json-c clamps what does not fit an int64: a clamped value is out of range too */
	if ((*v == INT64_MAX && json_object_get_uint64(x) != (uint64_t)INT64_MAX) || *v < lo ||
	    *v > hi) {
		snprintf(why, wlen, "\"%s\" is %s, outside %" PRId64 "..%" PRId64, key,
			 json_object_get_string(x), lo, hi);
		return -ERANGE;
	}
	return 1;
}

static int load_geometry(struct raid_config *c, json_object *o, char *why, size_t wlen)
{
	struct raid_recovery_config *r = rec_cfg(c);
	json_object *g;
	int64_t v;
	int ret = field(o, "array", json_type_object, false, &g);

	if (ret < 0) {
		snprintf(why, wlen, "\"array\" is not an object");
		return ret;
	}
	if (!ret)
		return 0; /* a file of the first version: no geometry recorded */
	if ((ret = int_field(g, "level", 0, 10, true, &v, why, wlen)) < 0)
		return ret;
	r->state_level = (int)v;
	if ((ret = int_field(g, "members", 1, RAID_MAX_MEMBERS, true, &v, why, wlen)) < 0)
		return ret;
	if (v != c->nmembers) {
		snprintf(why, wlen, "it records %d members, raid_members names %d", (int)v,
			 c->nmembers);
		return -EINVAL;
	}
	if ((ret = int_field(g, "chunk", 0, 1 << 30, true, &v, why, wlen)) < 0)
		return ret;
	r->state_chunk = (uint64_t)v;
	if ((ret = int_field(g, "layout", 0, RAID_LAYOUT_NEAR2, true, &v, why, wlen)) < 0)
		return ret;
	r->state_layout = (int)v;
	if ((ret = int_field(g, "member_size", 1, INT64_MAX, true, &v, why, wlen)) < 0)
		return ret;
	r->state_member_size = (uint64_t)v;
	r->state_geom = true;
	return 0;
}

static int load_devices(struct raid_config *c, json_object *o, char *why, size_t wlen)
{
	struct raid_recovery_config *r = rec_cfg(c);
	json_object *arr;
	int ret = field(o, "devices", json_type_array, false, &arr);

	if (ret < 0) {
		snprintf(why, wlen, "\"devices\" is not an array");
		return ret;
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *v[4];
		int64_t slot;

		if (!json_object_is_type(e, json_type_object)) {
			snprintf(why, wlen, "a \"devices\" entry is not an object");
			return -EINVAL;
		}
		if ((ret = int_field(e, "slot", 0, c->nmembers - 1, true, &slot, why, wlen)) < 0)
			return ret;
		if (ident_fields(e, "", v) || !v[0]) {
			snprintf(why, wlen,
				 "device of slot %d: \"id\" (required), \"wwid\", \"serial\" or "
				 "\"eui64\" is not an identity (a string of 1..%d bytes)",
				 (int)slot, RAID_ID_LEN - 1);
			return -EINVAL;
		}
		set_str(&r->state_id[slot], v[0]);
		set_str(&r->state_serial[slot], v[2]);
		set_str(&r->state_eui[slot], v[3]);
	}
	return 0;
}

/*
 * One "replaced" entry: a spare that took member m's place (done) or is being rebuilt.
 * spare_of[m]: the spare each member already read has (one spare serves one member).
 */
static int load_replaced(struct raid_config *c, json_object *e, uint64_t *seen,
			 const char **spare_of, char *why, size_t wlen)
{
	struct raid_recovery_config *r = rec_cfg(c);
	uint64_t limit = r->state_geom ? r->state_member_size : INT64_MAX;
	json_object *js, *jd;
	const char *sp, *v[4];
	int64_t m, off = 0;
	int ret, s;

	if (!json_object_is_type(e, json_type_object)) {
		snprintf(why, wlen, "a \"replaced\" entry is not an object");
		return -EINVAL;
	}
	if ((ret = int_field(e, "member", 0, c->nmembers - 1, true, &m, why, wlen)) < 0)
		return ret;
	if (*seen >> m & 1) {
		snprintf(why, wlen, "member %d is replaced twice", (int)m);
		return -EINVAL;
	}
	*seen |= 1ULL << m;
	if (field(e, "spare", json_type_string, true, &js) <= 0 ||
	    !json_object_get_string_len(js)) {
		snprintf(why, wlen, "the spare of member %d is not a path", (int)m);
		return -EINVAL;
	}
	sp = json_object_get_string(js);
	if (field(e, "done", json_type_boolean, true, &jd) <= 0) {
		snprintf(why, wlen, "\"done\" of member %d is not true or false", (int)m);
		return -EINVAL;
	}
	if (ident_fields(e, "spare_", v)) {
		snprintf(why, wlen,
			 "the spare of member %d: \"spare_id\", \"spare_wwid\", \"spare_serial\" "
			 "or \"spare_eui64\" is not an identity (a string of 1..%d bytes)",
			 (int)m, RAID_ID_LEN - 1);
		return -EINVAL;
	}
	for (int i = 0; i < c->nmembers; i++) {
		if (i != m && !strcmp(c->members[i], sp)) {
			snprintf(why, wlen, "the spare of member %d, %s, is member %d", (int)m, sp,
				 i);
			return -EINVAL;
		}
		if (spare_of[i] && !strcmp(spare_of[i], sp)) {
			snprintf(why, wlen,
				 "the spare of member %d, %s, is also the spare of member %d",
				 (int)m, sp, i);
			return -EINVAL;
		}
	}
	spare_of[m] = sp;
	if (json_object_get_boolean(jd)) {
		/* the spare is the member now, wherever raid_members points */
		if (!r->orig_members[m])
			r->orig_members[m] = c->members[m];
		else
			free(c->members[m]);
		c->members[m] = strdup(sp);
		free(r->replaced[m]);
		r->replaced[m] = strdup(sp);
		drop_spare(r, sp);
		/* checked as the member it is (a run that rebuilt it wrote no "devices" entry) */
		if (v[0] && !r->state_id[m]) {
			set_str(&r->state_id[m], v[0]);
			set_str(&r->state_serial[m], v[2]);
			set_str(&r->state_eui[m], v[3]);
		}
		return 0;
	}
	if ((ret = int_field(e, "recovery_offset", 0, (int64_t)limit, false, &off, why, wlen)) < 0)
		return ret;
	s = spare_index(r, sp);
	if (s < 0) {
		snprintf(why, wlen, "too many spares");
		return -EINVAL;
	}
	r->state_failed |= 1ULL << m;
	r->resume_spare[m] = s + 1;
	r->resume_off[m] = (uint64_t)off;
	set_str(&r->resume_id[m], v[0]);
	set_str(&r->resume_serial[m], v[2]);
	set_str(&r->resume_eui[m], v[3]);
	return 0;
}

static int load(struct raid_config *c, json_object *o, char *why, size_t wlen)
{
	struct raid_recovery_config *r = rec_cfg(c);
	const char *spare_of[RAID_MAX_MEMBERS] = {0};
	json_object *arr, *x;
	uint64_t seen = 0;
	int64_t v;
	int ret;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, wlen, "not a JSON object");
		return -EINVAL;
	}
	if ((ret = int_field(o, "version", 1, STATE_VERSION, false, &v, why, wlen)) < 0)
		return ret;
	if ((ret = int_field(o, "members", 1, RAID_MAX_MEMBERS, true, &v, why, wlen)) < 0)
		return ret;
	if (v != c->nmembers) {
		snprintf(why, wlen, "it describes an array of %d members, raid_members names %d",
			 (int)v, c->nmembers);
		return -EINVAL;
	}
	if ((ret = load_geometry(c, o, why, wlen)) < 0 || (ret = load_devices(c, o, why, wlen)) < 0)
		return ret;
	ret = field(o, "clean", json_type_boolean, false, &x);
	if (ret < 0) {
		snprintf(why, wlen, "\"clean\" is not true or false");
		return ret;
	}
	r->state_dirty = x && !json_object_get_boolean(x);
	ret = field(o, "replaced", json_type_array, false, &arr);
	if (ret < 0) {
		snprintf(why, wlen, "\"replaced\" is not an array");
		return ret;
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if ((ret = load_replaced(c, json_object_array_get_idx(arr, i), &seen, spare_of, why,
					 wlen)))
			return ret;
	/* after the replacements: a spare that became the member may have failed since */
	ret = field(o, "failed", json_type_array, false, &arr);
	if (ret < 0) {
		snprintf(why, wlen, "\"failed\" is not an array");
		return ret;
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		int64_t m;

		errno = 0;
		m = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;
		if (errno || m < 0 || m >= c->nmembers) {
			snprintf(why, wlen, "failed member %s is not a member index (0..%d)",
				 json_object_get_string(e), c->nmembers - 1);
			return -EINVAL;
		}
		r->state_failed |= 1ULL << m;
	}
	c->failed |= r->state_failed;
	return 0;
}

/* which file st is (every save renames a new one over the name), for raid_rec_state_lock() */
static void seen(struct raid_file_seen *s, const struct stat *st)
{
	*s = (struct raid_file_seen){
	    .exists = true,
	    .dev = st->st_dev,
	    .ino = st->st_ino,
	    .size = (uint64_t)st->st_size,
	    .mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec,
	};
}

static bool same_file_seen(const struct raid_file_seen *x, const struct raid_file_seen *y)
{
	return x->exists == y->exists &&
	       (!x->exists || (x->dev == y->dev && x->ino == y->ino && x->size == y->size &&
			       x->mtime_ns == y->mtime_ns));
}

/*
 * The file's one JSON value, or NULL with `why` set: it must be a regular file, readable,
 * of at most STATE_MAX bytes, and hold exactly one JSON value (a truncated file, or one
 * with more after its value, is no state file).
 */
static json_object *parse(const char *path, struct raid_file_seen *read_as, char *why, size_t wlen)
{
	char *buf = NULL;
	json_tokener *tok = NULL;
	json_object *o = NULL;
	struct stat st;
	size_t len = 0, end;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO must not block */

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, wlen, "cannot read it: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, wlen, "cannot read it: %s",
			 S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
		goto out;
	}
	seen(read_as, &st);
	if (!(buf = malloc(STATE_MAX + 1)) || !(tok = json_tokener_new())) {
		snprintf(why, wlen, "out of memory");
		goto out;
	}
	while (len <= STATE_MAX && (n = read(fd, buf + len, STATE_MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		snprintf(why, wlen, "cannot read it: %s", strerror(errno));
		goto out;
	}
	if (len > STATE_MAX) {
		snprintf(why, wlen, "not a JSON state file (larger than %d bytes)", STATE_MAX);
		goto out;
	}
	buf[len] = 0;
	o = json_tokener_parse_ex(tok, buf, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    strspn(buf + end, " \t\r\n") != len - end) {
		snprintf(why, wlen, "not a JSON state file (%s)",
			 o ? "more follows its value" : "truncated or malformed");
		json_object_put(o);
		o = NULL;
	}
out:
	if (tok)
		json_tokener_free(tok);
	free(buf);
	if (fd >= 0)
		close(fd);
	return o;
}

int raid_rec_state_load(struct raid_config *c, const char *path, char *err, size_t errlen)
{
	json_object *o;
	char why[RAID_ERRLEN / 2];
	int ret;

	rec_cfg(c)->state_read.exists = false;
	if (access(path, F_OK) && errno == ENOENT)
		return 0; /* the first run: written at the end */
	if (!c->nmembers)
		return bad(path, "raid_members must be given before raid_state", err, errlen);
	for (int i = 0; i < c->nmembers; i++)
		if (raid_same_file(path, c->members[i])) {
			snprintf(why, sizeof(why),
				 "it is member %d: the state file must be a file of its own", i);
			return bad(path, why, err, errlen);
		}
	o = parse(path, &rec_cfg(c)->state_read, why, sizeof(why));
	if (!o)
		return bad(path, why, err, errlen);
	ret = load(c, o, why, sizeof(why));
	json_object_put(o);
	return ret ? bad(path, why, err, errlen) : 0;
}

int raid_rec_state_check_geometry(const struct raid_config *c, int layout, char *err, size_t errlen)
{
	const struct raid_recovery_config *r = rec_cfg(c);
	char why[RAID_ERRLEN / 2];

	if (!r->state_geom)
		return 0;
	if (r->state_level != c->level)
		snprintf(why, sizeof(why), "it records raid_level=%d, this job has raid_level=%d",
			 r->state_level, c->level);
	else if (r->state_chunk != c->chunk)
		snprintf(why, sizeof(why),
			 "it records raid_chunk=%" PRIu64 ", this job has raid_chunk=%" PRIu64,
			 r->state_chunk, c->chunk);
	else if (r->state_layout != layout)
		snprintf(why, sizeof(why), "it records layout %d, this job has layout %d",
			 r->state_layout, layout);
	else
		return 0;
	snprintf(err, errlen,
		 "raid: raid_state: %s describes another array: %s (remove the file to start "
		 "afresh)",
		 r->state_path, why);
	return -EINVAL;
}

int raid_rec_state_lock(struct raid_array *a, char *err, size_t errlen)
{
	const struct raid_recovery_config *r = rec_cfg(&a->cfg);
	struct raid_file_seen now = {0};
	struct stat st;
	char *lock;
	int fd;

	if (!r->state_path)
		return 0;
	if (asprintf(&lock, "%s.lock", r->state_path) < 0)
		return -ENOMEM;
	fd = open(lock, O_RDONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC,
		  0644); /* flock needs no write */
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		if (e == EWOULDBLOCK)
			snprintf(err, errlen,
				 "raid: raid_state: %s is in use by another process (it holds %s): "
				 "one fio at a time may use an array's state file, and jobs that "
				 "share an array must run with thread=1",
				 r->state_path, lock);
		else
			snprintf(err, errlen, "raid: raid_state: %s: cannot lock it (%s): %s",
				 r->state_path, lock, strerror(e));
		if (fd >= 0)
			close(fd);
		free(lock);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	free(lock);
	a->rec->st.lock_fd = fd;
	if (!stat(r->state_path, &st))
		seen(&now, &st);
	if (!same_file_seen(&now, &r->state_read)) {
		snprintf(err, errlen,
			 "raid: raid_state: %s changed after this job read it (written since by "
			 "another fio, or by an earlier job of this one): run the job again",
			 r->state_path);
		return -EBUSY;
	}
	return 0;
}

/* The identity of every device of the array, for the checks below and for saving. */
static void read_identities(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;

	for (int i = 0; i < a->ndev; i++)
		if (!a->be->uses_files || raid_dev_identity(a->m[i].path, &rec->st.ids[i]))
			rec->st.ids[i].id[0] = 0; /* in memory, or absent (a failed member) */
}

/*
 * The device found (now; "absent" if none) and the one recorded, for a message: serial and
 * EUI-64 where known, the ids where those say the same (another partition of one drive).
 */
static void describe_pair(const struct raid_ident *now, const char *id, const char *serial,
			  const char *eui, char *is, char *was, size_t len)
{
	raid_ident_describe(now->id[0] ? now->id : "absent", now->serial, now->eui64, is, len);
	raid_ident_describe(id ? id : "none", serial, eui, was, len);
	if (!strcmp(is, was)) {
		snprintf(is, len, "%s", now->id);
		snprintf(was, len, "%s", id ? id : "none");
	}
}

int raid_rec_state_check(struct raid_array *a, char *err, size_t errlen)
{
	struct raid_recovery_config *r = rec_cfg(&a->cfg);
	const char *path = r->state_path;

	if (!path)
		return 0; /* nothing to check or record: no Identify command sent to a drive */
	read_identities(a);
	if (r->state_geom && r->state_member_size != a->geom.member_size) {
		snprintf(err, errlen,
			 "raid: raid_state: %s describes another array: it records members of "
			 "%" PRIu64 " bytes, these give %" PRIu64 " (raid_member_size)",
			 path, r->state_member_size, a->geom.member_size);
		return -EINVAL;
	}
	for (int i = 0; i < a->geom.n; i++) {
		const struct raid_ident *now = &a->rec->st.ids[i];
		char is[RAID_ID_LEN + 64], was[RAID_ID_LEN + 64];

		if (raid_member_failed(a, i) || !r->state_id[i] || !now->id[0])
			continue;
		if (strcmp(r->state_id[i], now->id)) {
			describe_pair(now, r->state_id[i], r->state_serial[i], r->state_eui[i], is,
				      was, sizeof(is));
			snprintf(err, errlen,
				 "raid: raid_state: %s describes another array: member %d (%s) is "
				 "%s; the file records %s (put that device back at %s, or remove "
				 "the file to start afresh)",
				 path, i, a->m[i].path, is, was, a->m[i].path);
			return -EINVAL;
		}
	}
	for (int i = 0; i < a->geom.n; i++) {
		int s = r->resume_spare[i] - 1;
		const struct raid_ident *now;
		char is[RAID_ID_LEN + 64], was[RAID_ID_LEN + 64];

		if (s < 0)
			continue;
		if (r->resume_off[i] > a->geom.member_size) {
			snprintf(err, errlen,
				 "raid: raid_state: %s: recovery_offset %" PRIu64
				 " of member %d is past the member's end (%" PRIu64 " bytes)",
				 path, r->resume_off[i], i, a->geom.member_size);
			return -EINVAL;
		}
		now = &a->rec->st.ids[a->geom.n + s];
		if (r->resume_off[i] && (!r->resume_id[i] || strcmp(r->resume_id[i], now->id))) {
			/*
			 * Another device at the spare's path: the file's checkpoint is not its
			 * own. Refused, as a member that is another device is, rather than quietly
			 * rebuilt from 0: the recorded spare may be the only copy of what it holds.
			 */
			describe_pair(now, r->resume_id[i], r->resume_serial[i], r->resume_eui[i],
				      is, was, sizeof(is));
			snprintf(err, errlen,
				 "raid: raid_state: %s: the spare of member %d, %s, is %s; the file "
				 "records %s, rebuilt to %" PRIu64 " (put that device back at %s, "
				 "or remove its \"replaced\" entry to rebuild onto this one from 0)",
				 path, i, a->m[a->geom.n + s].path, is, was, r->resume_off[i],
				 a->m[a->geom.n + s].path);
			return -EINVAL;
		} else if (r->resume_off[i] && r->state_dirty) {
			/*
			 * Writes were running when the last run ended uncleanly: one below the
			 * checkpoint may have reached the survivors and not the spare (or a
			 * parity level's row gone dirty after the checkpoint). The checkpoint
			 * vouches for the rebuild's own windows only, so nothing on the spare is
			 * trusted (md resyncs a recovering device after a crash the same way).
			 */
			raid_log("raid: raid_state: %s: the array was not shut down cleanly: the "
				 "rebuild of member %d onto %s starts again from 0 (writes at the "
				 "crash may have missed the spare below its checkpoint)",
				 path, i, a->m[a->geom.n + s].path);
			r->resume_off[i] = 0;
		}
	}
	return 0;
}

/* id, wwid and serial of `id` into o, each key with `prefix` ("" or "spare_"), where known */
static void add_ident(json_object *o, const char *prefix, const struct raid_ident *id)
{
	const char *key[] = {"id", "wwid", "serial", "eui64"};
	const char *val[] = {id->id, id->wwid, id->serial, id->eui64};
	char k[32];

	for (int i = 0; i < 4; i++)
		if (val[i][0]) {
			snprintf(k, sizeof(k), "%s%s", prefix, key[i]);
			json_object_object_add(o, k, json_object_new_string(val[i]));
		}
}

static json_object *entry(struct raid_array *a, int m, int dev, bool done, uint64_t off)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "member", json_object_new_int(m));
	json_object_object_add(e, "spare", json_object_new_string(a->m[dev].path));
	add_ident(e, "spare_", &a->rec->st.ids[dev]);
	json_object_object_add(e, "done", json_object_new_boolean(done));
	if (!done)
		json_object_object_add(e, "recovery_offset", json_object_new_int64((int64_t)off));
	return e;
}

static json_object *build(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;
	json_object *o = json_object_new_object(), *g = json_object_new_object();
	json_object *failed = json_object_new_array(), *rep = json_object_new_array();
	json_object *devs = json_object_new_array();

	json_object_object_add(g, "level", json_object_new_int(a->geom.level));
	json_object_object_add(g, "members", json_object_new_int(a->geom.n));
	json_object_object_add(g, "chunk", json_object_new_int64((int64_t)a->geom.chunk));
	json_object_object_add(g, "layout", json_object_new_int(a->geom.layout));
	json_object_object_add(g, "member_size",
			       json_object_new_int64((int64_t)a->geom.member_size));
	for (int i = 0; i < a->geom.n; i++) {
		int dev = atomic_load(&a->m[i].dev);
		bool f = raid_member_failed(a, i);

		if (f) {
			json_object_array_add(failed, json_object_new_int(i));
		} else if (rec->st.ids[i].id[0] && dev == i) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "slot", json_object_new_int(i));
			add_ident(d, "", &rec->st.ids[i]);
			json_object_array_add(devs, d);
		}
		/*
		 * A spare serving the slot now comes first: a slot replaced in an earlier run
		 * whose replacement failed and was rebuilt onto another spare in this one is
		 * that spare's now (recording the earlier one put the stale device back at
		 * the next start). A spare that failed holds nothing a restart may trust.
		 */
		if (dev != i)
			json_object_array_add(rep, entry(a, i, dev, !f,
							 atomic_load(&a->m[i].spare_failed)
							     ? 0
							     : rec->sp.durable_off[i]));
		else if (rec_cfg(&a->cfg)->replaced[i])
			json_object_array_add(rep, entry(a, i, i, true, 0));
	}
	json_object_object_add(o, "version", json_object_new_int(STATE_VERSION));
	json_object_object_add(o, "members", json_object_new_int(a->geom.n));
	json_object_object_add(o, "clean", json_object_new_boolean(!rec->st.unclean));
	json_object_object_add(o, "array", g);
	json_object_object_add(o, "devices", devs);
	json_object_object_add(o, "failed", failed);
	json_object_object_add(o, "replaced", rep);
	return o;
}

/* fsync the directory holding path, so that a rename into it survives a crash */
int rec_sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

int raid_rec_state_save(struct raid_array *a)
{
	struct raid_recovery *rec = a->rec;
	const char *path = rec_cfg(&a->cfg)->state_path;
	json_object *o;
	const char *txt;
	char *tmp = NULL;
	int fd = -1, ret = 0;
	unsigned seq;
	size_t len;

	if (!path)
		return 0;
	pthread_mutex_lock(&rec->st.mu); /* the recovery thread, the last put, a writer */
	seq = atomic_load(&a->fail_seq); /* the failures this record holds (failure.c) */
	o = build(a);
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	len = strlen(txt);
	if (asprintf(&tmp, "%s.tmp", path) < 0) {
		tmp = NULL;
		ret = -ENOMEM;
		goto out;
	}
	errno = 0; /* a short write sets none: it is then -EIO, not an older call's errno */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, txt, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) ||
	    rename(tmp, path))
		ret = errno ? -errno : -EIO;
	else
		ret = rec_sync_dir(path);
out:
	if (fd >= 0)
		close(fd);
	if (ret) {
		if (tmp)
			unlink(tmp);
		/* said once per error kind: a checkpoint every second would repeat it */
		if (rec->st.err != ret)
			raid_log("raid: raid_state: cannot write %s: %s", path, strerror(-ret));
		rec->st.err = ret;
		raid_rec_error(rec, ret);
	}
	raid_failures_recorded(a, seq, ret == 0);
	free(tmp);
	json_object_put(o);
	pthread_mutex_unlock(&rec->st.mu);
	return ret;
}
