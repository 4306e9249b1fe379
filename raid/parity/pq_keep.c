/*
 * pq_keep.c - a selection kept in a file (RAID_PARITY_SELECTION=FILE), so that every process of a
 * run computes its parity with the same kernels, as Linux md does with the one lib/raid6 chose at
 * boot. Measured afresh, the choice between kernels within a few percent of each other moves
 * from process to process on a shared machine (docs/parity.md): a series of runs compared with
 * each other would then differ in the kernel as well as in what they measure. The file is written
 * by the first process that needs a selection, from PQ_KEEP_RUNS selections (each candidate's
 * median over them: more precise than the one any process could afford), and read by the
 * others; the choice is made by the same rule from the kept figures.
 *
 * A kept selection is used only on the machine and build it was measured for: the same CPU
 * (model name, family, model and stepping, cache sizes, the variants this CPU runs), the same
 * kernels (PQ_KERNELS_REV) and the same candidates (names, bands, order). Anything else, or a
 * file that is not such a record, is measured again and rewritten, with a line on stderr that
 * names the file and says why. A file that cannot be written is reported and the process keeps
 * its own selection: parity is never held up by it.
 *
 * The format (json-c): {"format": 2, "cpu": ..., "l2": N, "l3": N, "variants": "avx2 isal",
 * "kernels": PQ_KERNELS_REV, "hot": SEL, "streaming": SEL}, SEL = {"measured":
 * "2026-12-01T19:55:00Z", "runs": 5, "cpu_s": S, "candidates": [{"name", "k", "len", "rounds",
 * "finals", "gbps", "rel"}, ...]}.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "pq.h"
#include "pq_impl.h"

#define KEEP_FORMAT 2 /* 2: each candidate's "finals" */
#define KEEP_MAX_BYTES (1 << 20)

/* this machine as the file records it */
struct machine {
	char cpu[256], variants[256];
	long l2, l3;
};

static void machine(struct machine *m)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512], name[256] = "unknown", fam[32] = "?", model[32] = "?", step[32] = "?";
	size_t used = 0;

	/* the first CPU's name, family, model and stepping: a guest may call two generations
	 * "AMD EPYC" alike */
	while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + (v[1] == ' ');
		v[strcspn(v, "\n")] = '\0';
		if (strncmp(line, "model name", 10) == 0)
			snprintf(name, sizeof(name), "%s", v);
		else if (strncmp(line, "cpu family", 10) == 0)
			snprintf(fam, sizeof(fam), "%s", v);
		else if (strncmp(line, "model\t", 6) == 0)
			snprintf(model, sizeof(model), "%s", v);
		else if (strncmp(line, "stepping", 8) == 0)
			snprintf(step, sizeof(step), "%s", v);
	}
	if (f)
		fclose(f);
	snprintf(m->cpu, sizeof(m->cpu), "%s (family %s, model %s, stepping %s)", name, fam, model,
		 step);
	m->variants[0] = '\0';
	for (int i = 0; pq_all_calls[i]; i++)
		if (pq_all_calls[i]->valid() && used < sizeof(m->variants))
			used += snprintf(m->variants + used, sizeof(m->variants) - used, "%s%s",
					 used ? " " : "", pq_all_calls[i]->name);
	m->l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	m->l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
}

int pq_keep_lock(const char *path)
{
	char lock[4096];
	int fd;

	if (snprintf(lock, sizeof(lock), "%s.lock", path) >= (int)sizeof(lock))
		return -ENAMETOOLONG;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			int e = errno;

			close(fd);
			return -e;
		}
	return fd;
}

void pq_keep_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* and with it the lock */
}

/* the whole file as JSON, or NULL with *why set; a regular file of at most KEEP_MAX_BYTES */
static json_object *read_json(const char *path, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	ssize_t n;
	json_tokener *tok;
	json_object *o;

	if (fd < 0) {
		*why = errno == ENOENT ? NULL : strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > KEEP_MAX_BYTES) {
		*why = "not a regular file of at most 1 MiB";
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		*why = buf ? "a short read" : strerror(ENOMEM);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	tok = json_tokener_new();
	o = tok ? json_tokener_parse_ex(tok, buf, (int)n) : NULL;
	/* one JSON object and nothing after it but white space */
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  buf[json_tokener_get_parse_end(tok) +
		      strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n")] != '\0' ||
		  !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	if (!o)
		*why = "not a JSON object";
	if (tok)
		json_tokener_free(tok);
	free(buf);
	return o;
}

static bool get(json_object *o, const char *key, json_type type, json_object **v)
{
	return json_object_object_get_ex(o, key, v) && json_object_is_type(*v, type);
}

/* "this file's machine is m": NULL, else what differs */
static const char *same_machine(json_object *root, const struct machine *m)
{
	json_object *v;

	if (!get(root, "format", json_type_int, &v) || json_object_get_int(v) != KEEP_FORMAT)
		return "another format";
	if (!get(root, "cpu", json_type_string, &v) || strcmp(json_object_get_string(v), m->cpu))
		return "another CPU";
	if (!get(root, "variants", json_type_string, &v) ||
	    strcmp(json_object_get_string(v), m->variants))
		return "another set of variants";
	if (!get(root, "l2", json_type_int, &v) || json_object_get_int64(v) != m->l2 ||
	    !get(root, "l3", json_type_int, &v) || json_object_get_int64(v) != m->l3)
		return "other cache sizes";
	if (!get(root, "kernels", json_type_int, &v) || json_object_get_int(v) != PQ_KERNELS_REV)
		return "other kernels (another build)";
	return NULL;
}

static bool finite_pos(json_object *v, double *out)
{
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out) && *out > 0 && *out < 1e6;
}

/*
 * s holds the candidates of this build (names, k, len: list_cands()); their figures from the
 * file's record of s->use. 0, or a reason (a static string) to measure again.
 */
static const char *fill(json_object *sel, struct pq_selection *s)
{
	json_object *v, *cands;
	int runs;

	if (!get(sel, "runs", json_type_int, &v) || (runs = json_object_get_int(v)) < 1 ||
	    runs > PQ_KEEP_RUNS_MAX)
		return "no count of runs";
	if (!get(sel, "candidates", json_type_array, &cands) ||
	    (int)json_object_array_length(cands) != s->n)
		return "other candidates";
	if (!json_object_object_get_ex(sel, "cpu_s", &v) || !finite_pos(v, &s->cpu_s))
		return "no cpu_s";
	if (!get(sel, "measured", json_type_string, &v) ||
	    json_object_get_string_len(v) >= (int)sizeof(s->measured))
		return "no time of measurement";
	snprintf(s->measured, sizeof(s->measured), "%s", json_object_get_string(v));
	for (int c = 0; c < s->n; c++) {
		json_object *o = json_object_array_get_idx(cands, c), *name, *k, *len, *rounds,
			    *finals, *g, *rel;
		struct pq_candidate *pc = &s->cand[c];

		if (!json_object_is_type(o, json_type_object) ||
		    !get(o, "name", json_type_string, &name) || !get(o, "k", json_type_int, &k) ||
		    !get(o, "len", json_type_int, &len) ||
		    !get(o, "rounds", json_type_int, &rounds) ||
		    !get(o, "finals", json_type_int, &finals) ||
		    !json_object_object_get_ex(o, "gbps", &g) ||
		    !json_object_object_get_ex(o, "rel", &rel))
			return "a candidate without its figures";
		if (strcmp(json_object_get_string(name), pc->name) ||
		    json_object_get_int(k) != pc->k ||
		    json_object_get_int64(len) != (int64_t)pc->len)
			return "other candidates";
		pc->rounds = json_object_get_int(rounds);
		pc->finals = json_object_get_int(finals);
		if (pc->rounds < 1 || pc->rounds > runs * (PQ_SEL_ROUNDS + PQ_SEL_STEADY) ||
		    pc->finals < 0 || pc->finals > runs || !finite_pos(g, &pc->gbps) ||
		    !finite_pos(rel, &pc->rel))
			return "a figure out of range";
	}
	s->runs = runs;
	return NULL;
}

int pq_keep_read(const char *path, struct pq_selection *s, const char **why)
{
	json_object *root = read_json(path, why), *sel;
	const char *bad;
	struct machine m;

	if (!root)
		return *why ? -EINVAL : -ENOENT;
	machine(&m);
	if ((bad = same_machine(root, &m))) {
		*why = bad;
		json_object_put(root);
		return -ESTALE;
	}
	if (!json_object_object_get_ex(root, pq_use_name(s->use), &sel) ||
	    json_object_is_type(sel, json_type_null)) {
		json_object_put(root);
		*why = NULL;
		return -ENOENT; /* the other use only, so far */
	}
	bad = json_object_is_type(sel, json_type_object) ? fill(sel, s) : "not an object";
	json_object_put(root);
	*why = bad;
	return bad ? -EINVAL : 0;
}

static json_object *sel_json(const struct pq_selection *s)
{
	json_object *o = json_object_new_object(), *cands = json_object_new_array();

	json_object_object_add(o, "measured", json_object_new_string(s->measured));
	json_object_object_add(o, "runs", json_object_new_int(s->runs));
	json_object_object_add(o, "cpu_s", json_object_new_double(s->cpu_s));
	for (int c = 0; c < s->n; c++) {
		const struct pq_candidate *pc = &s->cand[c];
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_object_new_string(pc->name));
		json_object_object_add(e, "k", json_object_new_int(pc->k));
		json_object_object_add(e, "len", json_object_new_int64((int64_t)pc->len));
		json_object_object_add(e, "rounds", json_object_new_int(pc->rounds));
		json_object_object_add(e, "finals", json_object_new_int(pc->finals));
		json_object_object_add(e, "gbps", json_object_new_double(pc->gbps));
		json_object_object_add(e, "rel", json_object_new_double(pc->rel));
		json_object_array_add(cands, e);
	}
	json_object_object_add(o, "candidates", cands);
	return o;
}

int pq_keep_write(const char *path, const struct pq_selection *s)
{
	char tmp[4096];
	struct machine m;
	const char *why, *text;
	json_object *old = read_json(path, &why), *root = json_object_new_object(), *other;
	enum pq_use o_use = s->use == PQ_USE_HOT ? PQ_USE_STREAM : PQ_USE_HOT;
	int fd, rc = 0;
	size_t len;

	machine(&m);
	json_object_object_add(root, "format", json_object_new_int(KEEP_FORMAT));
	json_object_object_add(root, "cpu", json_object_new_string(m.cpu));
	json_object_object_add(root, "l2", json_object_new_int64(m.l2));
	json_object_object_add(root, "l3", json_object_new_int64(m.l3));
	json_object_object_add(root, "variants", json_object_new_string(m.variants));
	json_object_object_add(root, "kernels", json_object_new_int(PQ_KERNELS_REV));
	json_object_object_add(root, pq_use_name(s->use), sel_json(s));
	/* the other use's record stays when it was measured on this machine */
	if (old && !same_machine(old, &m) &&
	    json_object_object_get_ex(old, pq_use_name(o_use), &other) &&
	    json_object_is_type(other, json_type_object))
		json_object_object_add(root, pq_use_name(o_use), json_object_get(other));
	json_object_put(old);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof(tmp)) {
		json_object_put(root);
		return -ENAMETOOLONG;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		json_object_put(root);
		return -errno;
	}
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd))
		rc = errno ? -errno : -EIO;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	json_object_put(root);
	return rc;
}

void pq_keep_stamp(struct pq_selection *s)
{
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm))
		strftime(s->measured, sizeof(s->measured), "%Y-%m-%dT%H:%M:%SZ", &tm);
}
