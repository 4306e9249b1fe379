/* report/model/published.c: the published figures (results/reference/published.csv) and how a
 * measured test is matched to them: same workload, array level, rw and array state. A rebuild
 * time is compared per TB of the rebuilt drive, the only form that carries across drive
 * sizes. */
#include "report/model/model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const pub_header[PUB_COLS] = {
    "source",  "host",	  "drives", "drive_model", "array",  "engine", "chunk", "workload", "bs",
    "iodepth", "numjobs", "rw",	    "state",	   "metric", "value",  "unit",	"note"};

/*
 * Splits one CSV line (RFC 4180: a field in double quotes may hold commas, and "" for a
 * quote; a field holds no line break) into at most max fields, in place. Returns the
 * count, or -EINVAL for a quote left open or text after a closing quote.
 */
static int split_csv(char *line, char **f, int max)
{
	int n = 0;
	char *r = line, *w = line;
	while (n < max) {
		f[n++] = w;
		int q = 0;
		if (*r == '"') {
			q = 1;
			r++;
		}
		for (; *r; r++) {
			if (q && *r == '"' && r[1] == '"') {
				*w++ = '"';
				r++;
			} else if (q && *r == '"') {
				q = 0;
				if (r[1] && r[1] != ',' && r[1] != '\n' && r[1] != '\r')
					return -EINVAL;
			} else if (!q && *r == ',') {
				break;
			} else if (*r != '\n' && *r != '\r') {
				*w++ = *r;
			}
		}
		if (q)
			return -EINVAL;
		int more = *r == ',';
		*w++ = '\0';
		if (!more)
			break;
		r++;
	}
	return n;
}

static char *xdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

int rr_pub_load(const char *path, struct rr_pubset *set, char *err, size_t errlen)
{
	memset(set, 0, sizeof(*set));
	FILE *fp = fopen(path, "r");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	char *line = NULL, *f[PUB_COLS];
	size_t cap = 0, alloc = 0;
	int lineno = 0, rc = 0;
	while (getline(&line, &cap, fp) > 0) {
		lineno++;
		int n = split_csv(line, f, PUB_COLS);
		if (n < 0) {
			snprintf(err, errlen,
				 "%s:%d: a quoted field is not closed, or text follows "
				 "its closing quote",
				 path, lineno);
			rc = -EINVAL;
			break;
		}
		if (lineno == 1) {
			for (int i = 0; i < PUB_COLS && rc == 0; i++)
				if (i >= n || strcmp(f[i], pub_header[i]) != 0)
					rc = -EINVAL;
			if (rc) {
				snprintf(err, errlen, "%s: header is not %s,%s,...", path,
					 pub_header[0], pub_header[1]);
				break;
			}
			continue;
		}
		if (n == 1 && !*f[0])
			continue;
		if (n < PUB_COLS - 1) {
			snprintf(err, errlen, "%s:%d: %d fields, expected %d", path, lineno, n,
				 PUB_COLS);
			rc = -EINVAL;
			break;
		}
		if (set->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			set->rows = realloc(set->rows, alloc * sizeof(*set->rows));
			if (!set->rows)
				abort();
		}
		struct rr_pub *p = &set->rows[set->n++];
		for (int k = 0; k < PUB_COLS; k++)
			p->text[k] = xdup(k < n ? f[k] : "");
		p->source = xdup(f[0]);
		p->host = xdup(f[1]);
		p->drives = atoi(f[2]);
		p->drive_model = xdup(f[3]);
		p->array = xdup(f[4]);
		p->engine = xdup(f[5]);
		p->chunk = xdup(f[6]);
		p->workload = xdup(f[7]);
		p->bs = xdup(f[8]);
		p->iodepth = atoi(f[9]);
		p->numjobs = atoi(f[10]);
		p->rw = xdup(f[11]);
		p->state = xdup(f[12]);
		p->metric = xdup(f[13]);
		p->value = strtod(f[14], NULL);
		p->unit = xdup(f[15]);
		p->note = xdup(n > 16 ? f[16] : "");
	}
	free(line);
	fclose(fp);
	if (rc)
		rr_pub_free(set);
	return rc;
}

void rr_pub_free(struct rr_pubset *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct rr_pub *p = &set->rows[i];
		char *s[] = {p->source, p->host,     p->drive_model, p->array, p->engine,
			     p->chunk,	p->workload, p->bs,	     p->rw,    p->state,
			     p->metric, p->unit,     p->note};
		for (size_t k = 0; k < sizeof(s) / sizeof(s[0]); k++)
			free(s[k]);
		for (int k = 0; k < PUB_COLS; k++)
			free(p->text[k]);
	}
	free(set->rows);
	memset(set, 0, sizeof(*set));
}

/* RAID_REPORT_PUBLISHED, else results/reference/published.csv of the checkout this binary
 * was built in (build/bin/raid-report -> ../../results/...). */
const char *rr_pub_path(void)
{
	static char path[PATH_MAX + 64];
	const char *env = getenv("RAID_REPORT_PUBLISHED");
	if (env && *env)
		return env;
	char exe[PATH_MAX];
	if (!rr_exe_dir(exe, sizeof(exe), 3))
		return "results/reference/published.csv";
	snprintf(path, sizeof(path), "%s/results/reference/published.csv", exe);
	return path;
}

static int is_rebuild(const struct rr_pub *p)
{
	return strcmp(p->metric, "rebuild_time") == 0;
}

/* "gen4-u2-6.4t" -> 6.4 (TB); NAN when the model does not end in a size */
static double drive_tb(const struct rr_pub *p)
{
	const char *dash = strrchr(p->drive_model, '-');
	const char *s = dash ? dash + 1 : p->drive_model;
	char *end;
	double tb = strtod(s, &end);
	return end != s && (*end == 't' || *end == 'T') && tb > 0 ? tb : NAN;
}

static int state_eq(const char *pub, const char *ours)
{
	if (strcmp(pub, "rebuild") == 0)
		pub = "rebuilding";
	return strcmp(pub, ours) == 0;
}

int rr_pub_matches(const struct rr_pub *p, const struct rr_test *t)
{
	if (strcmp(p->array, rr_level_name(t)) != 0)
		return 0;
	if (is_rebuild(p))
		return !isnan(t->rebuild_min_per_tb) && !isnan(drive_tb(p));
	if (strcmp(p->metric, "bw") != 0 && strcmp(p->metric, "iops") != 0)
		return 0;
	return strcmp(p->workload, t->workload) == 0 && strcmp(p->rw, t->rw) == 0 &&
	       state_eq(p->state, t->state);
}

double rr_pub_value(const struct rr_pub *p, const char **unit)
{
	if (is_rebuild(p)) {
		*unit = "min/TB";
		return p->value / drive_tb(p);
	}
	*unit = p->unit;
	return p->value;
}

double rr_pub_measured(const struct rr_pub *p, const struct rr_test *t)
{
	if (is_rebuild(p))
		return t->rebuild_min_per_tb;
	if (strcmp(p->metric, "bw") == 0)
		return t->mbps;
	if (strcmp(p->metric, "iops") == 0)
		return t->iops;
	return NAN;
}

/* "raid5 16x gen4-u2-6.4t, megaraid, megaraid-9670w-16i-host [sr-megaraid]" */
char *rr_pub_label(const struct rr_pub *p)
{
	char *s;
	if (asprintf(&s, "%s %dx %s, %s%s%s, %s [%s]", p->array, p->drives, p->drive_model,
		     p->engine, *p->chunk ? " chunk " : "", p->chunk, p->host, p->source) < 0)
		abort();
	return s;
}

/* The rows as a JSON array of objects keyed by the CSV's header, every field the text the
 * CSV holds ("" when empty): raid-report published, so that the shell (tests) reads the CSV
 * through this parser too. */
json_object *rr_pub_json(const struct rr_pubset *set)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < set->n; i++) {
		json_object *o = json_object_new_object();
		for (int k = 0; k < PUB_COLS; k++)
			json_object_object_add(o, pub_header[k],
					       json_object_new_string(set->rows[i].text[k]));
		json_object_array_add(a, o);
	}
	return a;
}
