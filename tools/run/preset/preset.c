/*
 * preset.c - raid-preset: reads the presets of run.sh (presets/NAME.preset, a line-based
 * format documented in presets/README.md) and the facts of the fio job files, validates them
 * with one error line naming the file and line, and prints what run.sh runs:
 *
 *   raid-preset list DIR                   NAME DOC, in the order of DIR/index
 *   raid-preset info FILE --scale S        doc, profile, layout, runtime, member-size lines
 *   raid-preset arrays FILE --workloads DIR [--parity P] [--layout FILE]
 *                                          one line per array and job: GROUP ARRAY LEVEL
 *                                          MEMBERS CHUNK PARITY STATE BAYS JOB
 *   raid-preset plan FILE --workloads DIR [OPTIONS]
 *                                          each test as run.sh runs it (plan.c)
 *   raid-preset job FILE.fio               WORKLOAD RW BS IODEPTH NUMJOBS of a job file
 *   raid-preset limits | span ... | volume ...  the engine's limits, job spans, volumes (plan.c)
 *   raid-preset hosts [--hosts L] [--hosts-file F]  run.sh's hosts, checked (hosts.c)
 *   raid-preset render JOB K=V... -- ARG...  a job file as a host's fio server runs it (hosts.c)
 *   raid-preset targets ... | devices ...  run.sh's --target list, block devices (checks.c)
 *   raid-preset usage "PRESET..."          run.sh's --help with the engine's figures (usage.c)
 *
 * Each RAID array is checked by the engine's own config parser and validator (level, minimum
 * members, chunk, parity): no copy of the level facts here. Exit 0, or 1 with one line on
 * stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>

#include "raid/core/raid.h"
#include "preset.h"

const char *prog = "raid-preset";

void preset_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		preset_die("out of memory");
	return d;
}

/* A word run.sh may use as it is (test ids, file names): letters, digits, . _ + - */
bool plain(const char *s)
{
	return *s &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") ==
		   strlen(s);
}

/* Splits s (modified) at blanks; a '#' word starts a comment. -E2BIG past MAXW words. */
static int split(char *s, struct words *w)
{
	w->n = 0;
	for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
		if (*t == '#')
			break;
		if (w->n == MAXW)
			return -E2BIG;
		w->w[w->n++] = t;
	}
	return 0;
}

/* Splits a comma list (modified) into w. */
int split_list(char *s, struct words *w)
{
	w->n = 0;
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (w->n == MAXW)
			return -E2BIG;
		w->w[w->n++] = t;
	}
	return w->n ? 0 : -EINVAL;
}

/* FIELD=VALUE words of an item: the index of key's word, or -1 */
static int field_at(const struct item *it, const char *key)
{
	size_t l = strlen(key);

	for (int i = 0; i < it->f.n; i++)
		if (!strncmp(it->f.w[i], key, l) && it->f.w[i][l] == '=')
			return i;
	return -1;
}

/* ... and its value, or NULL */
static char *field(const struct item *it, const char *key)
{
	int i = field_at(it, key);

	return i < 0 ? NULL : it->f.w[i] + strlen(key) + 1;
}

static void check_fields(const struct preset *p, const struct item *it, const char *const *ok)
{
	for (int i = 0; i < it->f.n; i++) {
		char *eq = strchr(it->f.w[i], '=');
		size_t l = eq ? (size_t)(eq - it->f.w[i]) : 0;
		bool known = false;

		for (int k = 0; ok[k] && eq; k++)
			known |= strlen(ok[k]) == l && !strncmp(ok[k], it->f.w[i], l);
		if (!known || !eq[1])
			preset_die("%s:%d: %s: '%s' is not one of its FIELD=VALUE fields", p->file,
				   it->line, it->name, it->f.w[i]);
	}
}

static struct item *find(const struct preset *p, char kind, const char *name)
{
	struct item *it;

	STAILQ_FOREACH(it, &p->items, next)
	if ((!kind || it->kind == kind) && !strcmp(it->name, name))
		return it;
	return NULL;
}

void preset_parse(struct preset *p, const char *file)
{
	char buf[LINE_MAX_], copy[LINE_MAX_];
	FILE *f = fopen(file, "r");
	int line = 0;

	if (!f)
		preset_die("%s: %s", file, strerror(errno));
	memset(p, 0, sizeof(*p));
	p->file = file;
	STAILQ_INIT(&p->items);
	while (fgets(buf, sizeof(buf), f)) {
		struct words w;
		struct item *it;
		char *kw;

		line++;
		if (!strchr(buf, '\n') && !feof(f))
			preset_die("%s:%d: line longer than %d characters", file, line,
				   LINE_MAX_ - 2);
		snprintf(copy, sizeof(copy), "%s", buf);
		if (split(buf, &w))
			preset_die("%s:%d: more than %d words", file, line, MAXW);
		if (!w.n)
			continue;
		kw = w.w[0];
		if (!strcmp(kw, "doc")) {
			char *d = copy + strspn(copy, " \t") + 3;

			d += strspn(d, " \t");
			d[strcspn(d, "\r\n")] = 0;
			if (p->doc || !*d)
				preset_die("%s:%d: doc: one line of text, once", file, line);
			p->doc = xstrdup(d);
		} else if (!strcmp(kw, "profile")) {
			if (w.n != 2 || p->profile)
				preset_die("%s:%d: profile NAME (a hw-profiles/NAME.json), once",
					   file, line);
			p->profile = xstrdup(w.w[1]);
		} else if (!strcmp(kw, "repeat")) {
			/* each test N times, interleaved (presets/README.md, "Repeats") */
			char *end;

			p->repeat = w.n == 2 ? strtol(w.w[1], &end, 10) : 0;
			if (w.n != 2 || *end || p->repeat < 1 || p->repeat > MAX_REPEAT || p->repeat_line)
				preset_die("%s:%d: repeat N (1..%d), once", file, line, MAX_REPEAT);
			p->repeat_line = line;
		} else if (!strcmp(kw, "precondition") || !strcmp(kw, "steadystate")) {
			/* checked by the plan (measure.c), which knows the runtime they relate to */
			bool pre = kw[0] == 'p';
			struct words *dst = pre ? &p->precond : &p->steady;

			if (*(pre ? &p->precond_line : &p->steady_line))
				preset_die("%s:%d: %s: once", file, line, kw);
			for (int i = 1; i < w.n; i++)
				dst->w[dst->n++] = xstrdup(w.w[i]);
			*(pre ? &p->precond_line : &p->steady_line) = line;
		} else if (!strcmp(kw, "runtime") || !strcmp(kw, "member-size")) {
			bool rt = kw[0] == 'r';
			char **dst = rt ? p->runtime : p->msize;

			if (w.n < 2 || w.n > 4 || dst[0])
				preset_die("%s:%d: %s VALUE [scaled] [min=VALUE], once", file, line,
					   kw);
			for (int i = 1; i < w.n; i++)
				dst[i - 1] = xstrdup(w.w[i]);
			*(rt ? &p->runtime_line : &p->msize_line) = line;
		} else if (!strcmp(kw, "list") || !strcmp(kw, "array") || !strcmp(kw, "layout") ||
			   !strcmp(kw, "run")) {
			bool run = kw[1] == 'u';

			if (w.n < (run ? 2 : 3))
				preset_die("%s:%d: %s %s", file, line, kw,
					   run ? "FIELD=LIST..." : "NAME FIELD...");
			it = calloc(1, sizeof(*it));
			if (!it)
				preset_die("out of memory");
			it->line = line;
			it->kind = run ? 'r' : kw[1] == 'i' ? 'l' : kw[1] == 'r' ? 'a' : 'y';
			it->name = xstrdup(run ? "run" : w.w[1]);
			for (int i = run ? 1 : 2; i < w.n; i++)
				it->f.w[it->f.n++] = xstrdup(w.w[i]);
			if (!run && find(p, 0, it->name))
				preset_die("%s:%d: '%s' is defined twice", file, line, it->name);
			STAILQ_INSERT_TAIL(&p->items, it, next);
		} else {
			preset_die("%s:%d: unknown keyword '%s' (doc, profile, runtime, "
				   "member-size, repeat, "
				   "precondition, steadystate, list, array, layout, run)",
				   file, line, kw);
		}
	}
	fclose(f);
	if (!p->doc)
		preset_die("%s: no doc line", file);
	if (!p->runtime[0] || !p->msize[0])
		preset_die("%s: needs a runtime and a member-size line", file);
}

/* A scale rule: VALUE [scaled] [min=MIN] -> max(MIN, int(VALUE x scale)) or VALUE */
unsigned long long rule(const struct preset *p, char *const *r, int line, double scale, bool size)
{
	uint64_t v, min = 0;
	bool scaled = false;

	/* the engine's size syntax (raid_parse_size): a preset's sizes read as a job file's */
	if (raid_parse_size(r[0], &v) || (!size && strpbrk(r[0], "kKmMgGtT")))
		preset_die("%s:%d: '%s' is not a %s", p->file, line, r[0],
			   size ? "size" : "number");
	for (int i = 1; i < 3 && r[i]; i++) {
		if (!strcmp(r[i], "scaled"))
			scaled = true;
		else if (!strncmp(r[i], "min=", 4) && !raid_parse_size(r[i] + 4, &min))
			continue;
		else
			preset_die("%s:%d: '%s': expected 'scaled' or min=VALUE", p->file, line,
				   r[i]);
	}
	if (scaled)
		v = (uint64_t)((double)v * scale);
	return v < min ? min : v;
}

/* "0-3,8" -> "0,1,2,3,8" into out; -EINVAL if not bay numbers, the count in *n */
static int bay_list(const char *s, char *out, size_t len, int *n)
{
	char tmp[LINE_MAX_];
	struct words w;
	size_t o = 0;

	snprintf(tmp, sizeof(tmp), "%s", s);
	if (split_list(tmp, &w))
		return -EINVAL;
	*n = 0;
	for (int i = 0; i < w.n; i++) {
		char *end;
		long lo = strtol(w.w[i], &end, 10), hi = lo;

		if (end == w.w[i] || lo < 0)
			return -EINVAL;
		if (*end == '-') {
			char *e2;

			hi = strtol(end + 1, &e2, 10);
			if (e2 == end + 1 || *e2 || hi < lo)
				return -EINVAL;
		} else if (*end) {
			return -EINVAL;
		}
		for (long b = lo; b <= hi; b++, (*n)++) {
			o += snprintf(out + o, o < len ? len - o : 0, "%s%ld", o ? "," : "", b);
			if (o >= len)
				return -E2BIG;
		}
	}
	return 0;
}

/*
 * A RAID array of the preset as the engine would see it: its own config parser and
 * validator (level, member count against the level's minimum, chunk, parity), so that a
 * preset is refused for what the engine refuses, with the engine's words. JBOD: fio's own.
 */
static void check_inst(const struct preset *p, int line, const struct inst *x)
{
	char members[LINE_MAX_] = "", err[RAID_ERRLEN], chunk[sizeof(x->chunk)];
	const char *opt[][2] = {{"raid_level", x->level},
				{"raid_members", members},
				{"raid_chunk", chunk},
				{"raid_parity", x->parity}};
	struct raid_config c;
	size_t o = 0;
	int ret = 0;

	if (!strcmp(x->level, "jbod"))
		return;
	for (int i = 0; i < x->members && o < sizeof(members); i++)
		o += snprintf(members + o, sizeof(members) - o, "%sm%d", i ? ":" : "", i);
	snprintf(chunk, sizeof(chunk), "%s", x->chunk);
	raid_config_init(&c);
	for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]) && !ret; i++)
		ret = raid_config_set(&c, opt[i][0], opt[i][1], err, sizeof(err));
	if (!ret)
		ret = raid_config_validate(&c, err, sizeof(err));
	raid_config_free(&c);
	if (ret)
		preset_die("%s:%d: %s: %s", p->file, line, x->name, err);
}

/* The parity variants of an array: --parity, or its own list. */
static int parities(const struct preset *p, const struct item *it, char *list, struct words *w)
{
	const char *own = field(it, "parity");

	snprintf(list, LINE_MAX_, "%s", p->parity ? p->parity : own ? own : "-");
	return split_list(list, w);
}

/* Fills `name` from template t with {parity} and {chunk} replaced. */
static void expand_name(const struct preset *p, const struct item *it, const char *par,
			const char *chunk, char *out, size_t len)
{
	size_t o = 0;

	for (const char *s = it->name; *s && o + 1 < len;) {
		const char *v = NULL;

		if (!strncmp(s, "{parity}", 8))
			v = par, s += 8;
		else if (!strncmp(s, "{chunk}", 7))
			v = chunk, s += 7;
		if (v)
			o += snprintf(out + o, len - o, "%s", v);
		else
			out[o++] = *s++;
	}
	out[o < len ? o : len - 1] = 0;
	if (o >= len - 1)
		preset_die("%s:%d: %s: name too long", p->file, it->line, it->name);
}

/* The instances of an array template, in the order its list fields are written. */
static int expand_array(const struct preset *p, const struct item *it, struct inst *out, int max)
{
	static const char *const ok[] = {"level", "members", "chunk",  "parity",
					 "bays",  "spares",  "unless", NULL};
	char plist[LINE_MAX_], clist[LINE_MAX_];
	struct words pw, cw;
	const char *level = field(it, "level"), *members = field(it, "members"),
		   *chunk = field(it, "chunk"), *bays = field(it, "bays"),
		   *spares = field(it, "spares"), *unless = field(it, "unless");
	bool jbod = level && !strcmp(level, "jbod"), parity_first = true;
	char bl[LINE_MAX_ / 2] = "-", sl[LINE_MAX_ / 2] = "";
	int n = 0, m, nb;

	check_fields(p, it, ok);
	if (!level || !members)
		preset_die("%s:%d: %s: level= and members= are required", p->file, it->line,
			   it->name);
	m = atoi(members);
	if (m < 1 || strspn(members, "0123456789") != strlen(members))
		preset_die("%s:%d: %s: members=%s is not a count", p->file, it->line, it->name,
			   members);
	if (jbod && (chunk || field(it, "parity")))
		preset_die("%s:%d: %s: a jbod has no chunk= or parity=", p->file, it->line,
			   it->name);
	if (!jbod && (!chunk || !field(it, "parity")))
		preset_die("%s:%d: %s: chunk= and parity= are required", p->file, it->line,
			   it->name);
	if (unless && strcmp(unless, "--parity"))
		preset_die("%s:%d: %s: unless= takes only --parity", p->file, it->line, it->name);
	if (unless && p->parity)
		return 0;
	if (bays) {
		if (bay_list(bays, bl, sizeof(bl), &nb))
			preset_die("%s:%d: %s: bays=%s is not a list of bays (0-3,8)", p->file,
				   it->line, it->name, bays);
		if (nb != m)
			preset_die("%s:%d: %s: %d bays for %d members", p->file, it->line, it->name,
				   nb, m);
	}
	if (spares && bay_list(spares, sl, sizeof(sl), &nb))
		preset_die("%s:%d: %s: spares=%s is not a list of bays", p->file, it->line,
			   it->name, spares);
	if (jbod) {
		pw.n = cw.n = 1;
		pw.w[0] = cw.w[0] = "-";
	} else {
		if (parities(p, it, plist, &pw))
			preset_die("%s:%d: %s: parity= is an empty list", p->file, it->line,
				   it->name);
		snprintf(clist, sizeof(clist), "%s", chunk);
		if (split_list(clist, &cw))
			preset_die("%s:%d: %s: chunk= is an empty list", p->file, it->line,
				   it->name);
		/* the list written first varies slowest */
		parity_first = field_at(it, "parity") < field_at(it, "chunk");
	}
	if ((pw.n > 1 && !strstr(it->name, "{parity}")) ||
	    (cw.n > 1 && !strstr(it->name, "{chunk}")))
		preset_die(
		    "%s:%d: %s: several parity/chunk values need {parity}/{chunk} in the name",
		    p->file, it->line, it->name);
	for (int i = 0; i < (parity_first ? pw.n : cw.n); i++) {
		for (int j = 0; j < (parity_first ? cw.n : pw.n); j++) {
			const char *par = pw.w[parity_first ? i : j],
				   *ch = cw.w[parity_first ? j : i];
			struct inst *x = &out[n];

			if (n == max)
				preset_die("%s:%d: %s: more than %d arrays", p->file, it->line,
					   it->name, max);
			expand_name(p, it, par, ch, x->name, sizeof(x->name));
			if (!plain(x->name))
				preset_die("%s:%d: array name '%s': letters, digits, . _ + - only",
					   p->file, it->line, x->name);
			snprintf(x->level, sizeof(x->level), "%s", level);
			snprintf(x->chunk, sizeof(x->chunk), "%s", ch);
			snprintf(x->parity, sizeof(x->parity), "%s", par);
			snprintf(x->bays, sizeof(x->bays), "%s%s%s", bl, *sl ? "+" : "", sl);
			x->members = m;
			check_inst(p, it->line, x);
			n++;
		}
	}
	return n;
}

/* The arrays of a profile layout (raid-hwinfo layout lines: array LAYOUT NAME LEVEL BAYS,
 * spares LAYOUT BAYS); the layout's spares go to its arrays of level spares-to=. */
static int expand_layout(const struct preset *p, const struct item *it, struct inst *out, int max)
{
	static const char *const ok[] = {"chunk", "parity", "spares-to", NULL};
	const char *chunk = field(it, "chunk"), *to = field(it, "spares-to");
	char buf[LINE_MAX_], plist[LINE_MAX_], spares[LINE_MAX_ / 2] = "";
	struct words w, pw;
	int n = 0;
	FILE *f;

	check_fields(p, it, ok);
	if (!chunk || !field(it, "parity"))
		preset_die("%s:%d: layout %s: chunk= and parity= are required", p->file, it->line,
			   it->name);
	if (!p->layout)
		preset_die("%s:%d: layout %s: run.sh passes the profile's layout (--layout)",
			   p->file, it->line, it->name);
	if (parities(p, it, plist, &pw) || pw.n != 1)
		preset_die("%s:%d: layout %s: one parity= value", p->file, it->line, it->name);
	f = fopen(p->layout, "r");
	if (!f)
		preset_die("%s: %s", p->layout, strerror(errno));
	while (fgets(buf, sizeof(buf), f))
		if (!split(buf, &w) && w.n == 3 && !strcmp(w.w[0], "spares") &&
		    !strcmp(w.w[1], it->name))
			snprintf(spares, sizeof(spares), "%s", w.w[2]);
	rewind(f);
	while (fgets(buf, sizeof(buf), f)) {
		struct inst *x = &out[n];
		int nb;

		if (split(buf, &w) || w.n != 5 || strcmp(w.w[0], "array") ||
		    strcmp(w.w[1], it->name))
			continue;
		if (n == max)
			preset_die("%s: layout %s: more than %d arrays", p->layout, it->name, max);
		if (bay_list(w.w[4], x->bays, sizeof(x->bays), &nb))
			preset_die("%s: layout %s: array %s: bays '%s'", p->layout, it->name,
				   w.w[2], w.w[4]);
		if (!plain(w.w[2]))
			preset_die("%s: layout %s: array name '%s'", p->layout, it->name, w.w[2]);
		snprintf(x->name, sizeof(x->name), "%s", w.w[2]);
		snprintf(x->level, sizeof(x->level), "%s", w.w[3]);
		snprintf(x->chunk, sizeof(x->chunk), "%s", chunk);
		snprintf(x->parity, sizeof(x->parity), "%s", pw.w[0]);
		x->members = nb;
		check_inst(p, it->line, x);
		if (*spares && to && !strcmp(to, x->level)) {
			size_t l = strlen(x->bays);

			snprintf(x->bays + l, sizeof(x->bays) - l, "+%s", spares);
		}
		n++;
	}
	fclose(f);
	if (!n)
		preset_die("%s:%d: the profile has no layout '%s' with arrays", p->file, it->line,
			   it->name);
	return n;
}

/* One element of a run's array= list: one array, or a group (a+b) that runs at once. */
struct elem {
	struct inst a[MAXW];
	int n;
	bool group;
};

static void list_items(const struct preset *p, const struct item *run, const char *key, char *val,
		       struct words *out);

static void array_elems(const struct preset *p, const struct item *run, char *list,
			struct elem *out, int *nout)
{
	struct words w, parts;

	list_items(p, run, "array", list, &w);
	*nout = 0;
	for (int i = 0; i < w.n; i++) {
		struct inst tmp[MAXW];
		int k = 0;

		char item[LINE_MAX_]; /* a named list's words stay as written */

		snprintf(item, sizeof(item), "%s", w.w[i]);
		parts.n = 0;
		for (char *t = strtok(item, "+"); t && parts.n < MAXW; t = strtok(NULL, "+"))
			parts.w[parts.n++] = t;
		for (int j = 0; j < parts.n; j++) {
			const struct item *a = find(p, 'a', parts.w[j]),
					  *y = find(p, 'y', parts.w[j]);

			if (!a && !y)
				preset_die("%s:%d: run: no array or layout named '%s'", p->file,
					   run->line, parts.w[j]);
			k += a ? expand_array(p, a, tmp + k, MAXW - k)
			       : expand_layout(p, y, tmp + k, MAXW - k);
		}
		if (parts.n > 1) { /* one group */
			if (*nout == MAXW)
				preset_die("%s:%d: run: too many arrays", p->file, run->line);
			memcpy(out[*nout].a, tmp, k * sizeof(tmp[0]));
			out[*nout].n = k;
			out[(*nout)++].group = true;
			continue;
		}
		for (int j = 0; j < k; j++) {
			if (*nout == MAXW)
				preset_die("%s:%d: run: too many arrays", p->file, run->line);
			out[*nout].a[0] = tmp[j];
			out[*nout].n = 1;
			out[(*nout)++].group = false;
		}
	}
}

/* The words of a list= value: its comma items, a @NAME item replaced by the named list. */
static void list_items(const struct preset *p, const struct item *run, const char *key, char *val,
		       struct words *out)
{
	struct words w;

	if (split_list(val, &w))
		preset_die("%s:%d: run: %s= is an empty list", p->file, run->line, key);
	out->n = 0;
	for (int i = 0; i < w.n; i++) {
		const struct item *l = w.w[i][0] == '@' ? find(p, 'l', w.w[i] + 1) : NULL;

		if (w.w[i][0] == '@' && !l)
			preset_die("%s:%d: run: no list named '%s'", p->file, run->line,
				   w.w[i] + 1);
		for (int j = 0; j < (l ? l->f.n : 1); j++) {
			if (out->n == MAXW)
				preset_die("%s:%d: run: %s= has more than %d items", p->file,
					   run->line, key, MAXW);
			out->w[out->n++] = l ? l->f.w[j] : w.w[i];
		}
	}
}

/* A workload item JOB[@STATE] -> job and state, checked against the job files */
static void split_workload(const struct preset *p, const struct item *run, const char *item,
			   char *job, size_t len, const char **state)
{
	const char *at = strchr(item, '@');
	char path[PATH_MAX];

	snprintf(job, len, "%.*s", at ? (int)(at - item) : (int)strlen(item), item);
	*state = at ? at + 1 : "optimal";
	if (strcmp(*state, "optimal") && strcmp(*state, "degraded") && strcmp(*state, "rebuilding") &&
	    strcmp(*state, "resync"))
		preset_die(
		    "%s:%d: run: %s: state '%s' is not optimal, degraded, rebuilding or resync",
		    p->file, run->line, item, *state);
	snprintf(path, sizeof(path), "%s/%s.fio", p->workloads, job);
	if (!plain(job) || access(path, R_OK))
		preset_die("%s:%d: run: workload '%s': %s is missing", p->file, run->line, job,
			   path);
}

/* Nested loops over a run's fields, the first written varying slowest. */
struct run_ctx {
	struct words wl;
	struct elem *el;
	int nel;
	bool array_first;
};

static void emit(struct preset *p, const struct item *run, const struct elem *e, const char *w)
{
	char job[256], group[16] = "-";
	const char *state;

	split_workload(p, run, w, job, sizeof(job), &state);
	if (e->group)
		snprintf(group, sizeof(group), "g%d", ++p->group);
	for (int i = 0; i < e->n; i++) {
		p->row(p, group, &e->a[i], state, job);
		/* resync after an unclean stop: the full one (the dirty mark), then the
		 * write-intent bitmap's (resync.c) */
		if (!strcmp(state, "resync"))
			p->row(p, group, &e->a[i], "resync-bitmap", job);
	}
}

/* Every run of the preset, row by row to p->row, in the order run.sh runs them. */
void expand(struct preset *p)
{
	static const char *const ok[] = {"array", "workload", NULL};
	struct item *it;

	STAILQ_FOREACH(it, &p->items, next)
	{
		static struct elem el[MAXW];
		struct run_ctx c = {.el = el};
		char *arr, *wl;

		if (it->kind == 'a')
			expand_array(p, it, el[0].a, MAXW); /* validated even when no run uses it */
		if (it->kind != 'r')
			continue;
		check_fields(p, it, ok);
		arr = field(it, "array");
		wl = field(it, "workload");
		if (!arr || !wl)
			preset_die("%s:%d: run: array= and workload= are required", p->file,
				   it->line);
		arr = xstrdup(arr); /* split below, and the line's words stay as written */
		wl = xstrdup(wl);
		c.array_first = field_at(it, "array") < field_at(it, "workload");
		array_elems(p, it, arr, el, &c.nel);
		list_items(p, it, "workload", wl, &c.wl);
		for (int i = 0; i < (c.array_first ? c.nel : c.wl.n); i++)
			for (int j = 0; j < (c.array_first ? c.wl.n : c.nel); j++)
				emit(p, it, &el[c.array_first ? i : j],
				     c.wl.w[c.array_first ? j : i]);
	}
}

/* A job file's facts: "; @workload ID" and "; @published rw= bs= iodepth= numjobs=" */
void job_read(const char *file, struct job_facts *j)
{
	static const char *const keys[] = {"rw", "bs", "iodepth", "numjobs"};
	char buf[LINE_MAX_], *id = NULL, *val[4] = {0};
	FILE *f = fopen(file, "r");
	int line = 0;
	bool timed = false;

	if (!f)
		preset_die("%s: %s", file, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		struct words w;

		line++;
		timed |= !strncmp(buf, "time_based=1", 12);
		if (split(buf, &w) || w.n < 2 || strcmp(w.w[0], ";"))
			continue;
		if (!strcmp(w.w[1], "@workload")) {
			if (w.n != 3 || id || !plain(w.w[2]))
				preset_die(
				    "%s:%d: '; @workload ID' (letters, digits, . _ + -), once",
				    file, line);
			id = xstrdup(w.w[2]);
		} else if (!strcmp(w.w[1], "@published")) {
			for (int i = 2; i < w.n; i++) {
				char *eq = strchr(w.w[i], '=');
				int k = 0;

				while (eq && k < 4 &&
				       (strlen(keys[k]) != (size_t)(eq - w.w[i]) ||
					strncmp(keys[k], w.w[i], eq - w.w[i])))
					k++;
				if (!eq || k == 4 || !plain(eq + 1) || val[k])
					preset_die("%s:%d: @published: '%s' is not one of rw= bs= "
						   "iodepth= "
						   "numjobs= (each once, a plain value)",
						   file, line, w.w[i]);
				val[k] = xstrdup(eq + 1);
			}
		}
	}
	fclose(f);
	if (!id)
		preset_die("%s: no '; @workload ID' line", file);
	for (int k = 0; k < 4; k++)
		if (!val[k])
			preset_die("%s: @published has no %s=", file, keys[k]);
	*j = (struct job_facts){id, val[0], val[1], val[2], val[3], timed};
}

/* The presets of DIR/index, in its order, each with its doc line. */
static int list(const char *dir)
{
	char path[PATH_MAX], buf[LINE_MAX_];
	FILE *f;
	int line = 0;

	snprintf(path, sizeof(path), "%s/index", dir);
	f = fopen(path, "r");
	if (!f)
		preset_die("%s: %s", path, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		struct preset p;
		struct words w;
		char file[PATH_MAX];

		line++;
		if (split(buf, &w) || w.n > 1)
			preset_die("%s:%d: one preset name a line", path, line);
		if (!w.n)
			continue;
		snprintf(file, sizeof(file), "%s/%s.preset", dir, w.w[0]);
		preset_parse(&p, file);
		printf("%s %s\n", w.w[0], p.doc);
	}
	fclose(f);
	return 0;
}

/* The old plan's line of a row: GROUP ARRAY LEVEL MEMBERS CHUNK PARITY STATE BAYS JOB */
static void print_row(struct preset *p, const char *group, const struct inst *a, const char *state,
		      const char *job)
{
	(void)p;
	printf("%s %s %s %d %s %s %s %s %s\n", group, a->name, a->level, a->members, a->chunk,
	       a->parity, state, a->bays, job);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s list DIR | info FILE --scale S | arrays FILE --workloads DIR "
		"[--parity P] [--layout FILE] | plan FILE --workloads DIR [OPTIONS] "
		"(presets/README.md) | job FILE.fio | limits | span VOLUME RW BS NUMJOBS | "
		"volume LEVEL MEMBERS MEMBER_BYTES CHUNK | hosts [--hosts LIST] "
		"[--hosts-file FILE] | usage \"PRESET...\" | targets LIST NDESC HOSTS | "
		"devices WHAT PATH... | render JOB K=V... -- ARG...\n",
		prog);
	exit(1);
}

int main(int argc, char **argv)
{
	struct preset p;
	double scale = 1;
	const char *parity = NULL, *workloads = NULL, *layout = NULL;

	if (argc == 2 && !strcmp(argv[1], "limits"))
		return limits_main();
	if (argc == 3 && !strcmp(argv[1], "usage"))
		return usage_main(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "targets"))
		return targets_main(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "devices"))
		return devices_main(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "render"))
		return render_main(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "hosts"))
		return hosts_main(argc - 2, argv + 2);
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "span"))
		return span_main(argc - 2, argv + 2);
	if (!strcmp(argv[1], "volume"))
		return volume_main(argc - 2, argv + 2);
	if (!strcmp(argv[1], "list"))
		return list(argv[2]);
	if (!strcmp(argv[1], "job")) {
		struct job_facts j;

		job_read(argv[2], &j);
		printf("%s %s %s %s %s\n", j.id, j.rw, j.bs, j.iodepth, j.numjobs);
		return 0;
	}
	preset_parse(&p, argv[2]);
	if (!strcmp(argv[1], "plan"))
		return plan_main(&p, argc - 3, argv + 3);
	for (int i = 3; i < argc; i++) {
		if (i + 1 == argc)
			preset_die("%s needs a value", argv[i]);
		if (!strcmp(argv[i], "--scale"))
			scale = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--parity"))
			parity = argv[++i];
		else if (!strcmp(argv[i], "--workloads"))
			workloads = argv[++i];
		else if (!strcmp(argv[i], "--layout"))
			layout = argv[++i];
		else
			preset_die("unknown option '%s'", argv[i]);
	}
	if (!strcmp(argv[1], "info")) {
		const struct item *y = NULL, *it;

		STAILQ_FOREACH(it, &p.items, next)
		if (it->kind == 'y' && !y)
			y = it;
		printf("doc %s\nprofile %s\nlayout %s\nruntime %llu\nmember-size %llu\n", p.doc,
		       p.profile ? p.profile : "host", y ? y->name : "-",
		       rule(&p, p.runtime, p.runtime_line, scale, false),
		       rule(&p, p.msize, p.msize_line, scale, true));
		return 0;
	}
	if (strcmp(argv[1], "arrays") || !workloads)
		usage();
	p.parity = parity;
	p.workloads = workloads;
	p.layout = layout;
	p.row = print_row;
	expand(&p);
	return 0;
}
