/* report/render/charts.c: the report's charts. Each chart writes charts/<name>.dat and <name>.gp
 * and runs gnuplot once for a PNG and an SVG. Bars are horizontal so that long labels (the
 * published hardware) stay readable; an axis is logarithmic when measured and published
 * figures are orders of magnitude apart. A chart with no data is recorded as skipped, with
 * the reason, and never drawn empty. */
#include "report/render/render.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define C_MEASURED "#1f77b4"
#define C_PUBLISHED "#ff7f0e"
static const char *const series_colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
					    "#17becf", "#d62728", "#393b79", "#637939"};
#define NCOLORS (sizeof(series_colors) / sizeof(series_colors[0]))

struct bar {
	char label[200];
	double v;
	double lo, hi; /* the range over a repeated test's repetitions (lo = hi = v: none) */
	int n;	       /* repetitions behind v; 0: not measured here (published) */
	int series;    /* index into the chart's series names */
};

struct bars {
	struct bar *b;
	size_t n, cap;
};

static int bar_add(struct bars *bs, int series, double v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bar_add(struct bars *bs, int series, double v, const char *fmt, ...)
{
	if (isnan(v) || v <= 0)
		return 0;
	if (bs->n == bs->cap) {
		bs->cap = bs->cap ? bs->cap * 2 : 32;
		bs->b = realloc(bs->b, bs->cap * sizeof(*bs->b));
		if (!bs->b)
			abort();
	}
	struct bar *b = &bs->b[bs->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->label, sizeof(b->label), fmt, ap);
	va_end(ap);
	for (char *c = b->label; *c; c++)
		if (*c == '"' || *c == '\n')
			*c = '\'';
	b->v = b->lo = b->hi = v;
	b->n = 0;
	b->series = series;
	return 1;
}

/* the bar just added is test t's figure at offset off: its error bar is the range over the
 * test's repetitions, its label says how many ("n=1" for a test run once) */
static void bar_spread(struct bars *bs, int added, const struct rr_test *t, size_t off)
{
	if (!added)
		return;
	struct bar *b = &bs->b[bs->n - 1];
	rr_test_range(t, off, &b->lo, &b->hi);
	b->n = t->repeats > 1 ? t->repeats : 1;
}

void rr_chart_note(struct rr_charts *c, const char *name, const char *title, int drawn,
		   const char *why)
{
	if (c->n >= sizeof(c->list) / sizeof(c->list[0]))
		return;
	struct rr_chart *ch = &c->list[c->n++];
	snprintf(ch->name, sizeof(ch->name), "%s", name);
	snprintf(ch->title, sizeof(ch->title), "%s%s%s%s", title, *c->mark ? " [" : "", c->mark,
		 *c->mark ? "]" : "");
	ch->drawn = drawn;
	snprintf(ch->why, sizeof(ch->why), "%s", why ? why : "");
}

const char *rr_png_terminal(void)
{
	static const char *term;
	if (!term)
		term = system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1") == 0
			   ? "pngcairo"
			   : "png";
	return term;
}

/* Runs gnuplot on dir/script with dir as the working directory; its messages go to
 * dir/<script>.log. Returns gnuplot's exit status, 127 when it could not be started. */
int rr_gnuplot(const char *dir, const char *script)
{
	char log[4096];
	snprintf(log, sizeof(log), "%s/%s.log", dir, script);
	pid_t pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir(dir) == 0)
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static FILE *open_in(const char *dir, const char *name, const char *ext)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s.%s", dir, name, ext);
	return fopen(p, "w");
}

/* The data and script files of one chart; on failure neither is open and the page says why. */
static int open_chart(struct rr_charts *c, const char *dir, const char *name, const char *title,
		      FILE **dat, FILE **gp)
{
	*dat = open_in(dir, name, "dat");
	*gp = open_in(dir, name, "gp");
	if (*dat && *gp)
		return 0;
	if (*dat)
		fclose(*dat);
	if (*gp)
		fclose(*gp);
	rr_chart_note(c, name, title, 0, "cannot write into charts/");
	return -1;
}

static long file_size(const char *dir, const char *name, const char *ext)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s.%s", dir, name, ext);
	return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static void gp_head(FILE *gp, const struct rr_charts *c, const char *name, const char *title,
		    int w, int h)
{
	fprintf(gp, "set terminal %s size %d,%d font 'sans,10'\n", rr_png_terminal(), w, h);
	fprintf(gp, "set output '%s.png'\n", name);
	fprintf(gp,
		"set title \"%s%s%s%s\"\nset grid\nset key outside bottom center horizontal "
		"maxrows 2\n",
		title, *c->mark ? " [" : "", c->mark, *c->mark ? "]" : "");
	fprintf(gp, "set datafile separator '\\t'\n");
}

static void gp_tail(FILE *gp, const char *name, int w, int h)
{
	fprintf(gp, "set terminal svg size %d,%d font 'sans,10'\nset output '%s.svg'\nreplot\n", w,
		h, name);
	fprintf(gp, "unset output\n");
}

/* Runs the script and records the chart as drawn when both images are there. written: the
 * .dat and .gp files were written whole (a full disk leaves the chart not drawn, said so). */
static void finish(const char *dir, struct rr_charts *c, const char *name, const char *title,
		   int written)
{
	char script[128], why[200];
	if (!written) {
		snprintf(why, sizeof(why), "cannot write charts/%s.dat or .gp", name);
		rr_chart_note(c, name, title, 0, why);
		if (!*c->unwritten) /* the command fails on it, after the page says it */
			snprintf(c->unwritten, sizeof(c->unwritten), "%s", name);
		return;
	}
	snprintf(script, sizeof(script), "%s.gp", name);
	int rc = rr_gnuplot(dir, script);
	if (rc == 0 && file_size(dir, name, "png") > 0 && file_size(dir, name, "svg") > 0) {
		rr_chart_note(c, name, title, 1, NULL);
		return;
	}
	snprintf(why, sizeof(why),
		 rc == 127 ? "gnuplot could not be run"
			   : "gnuplot failed (exit %d), see charts/%s.gp.log",
		 rc, name);
	fprintf(stderr, "raid-report: chart %s: %s\n", name, why);
	rr_chart_note(c, name, title, 0, why);
}

/* A horizontal bar chart, one colour per series (series[0] is this run). */
static void bar_chart(const char *dir, struct rr_charts *c, const char *name, const char *title,
		      const char *xlabel, const struct bars *bs, const char *const *series,
		      int nseries, const char *empty_why)
{
	if (bs->n == 0) {
		rr_chart_note(c, name, title, 0, empty_why);
		return;
	}
	FILE *dat, *gp;
	if (open_chart(c, dir, name, title, &dat, &gp))
		return;
	double lo = INFINITY, hi = 0;
	size_t longest = 0;
	int spread = 0;
	for (size_t i = 0; i < bs->n; i++) {
		/* gnuplot draws row 0 at the bottom: write the last bar first */
		const struct bar *b = &bs->b[bs->n - 1 - i];
		fprintf(dat, "%zu\t%s\t%.6g\t%d\t%.6g\t%.6g\t%d\n", i, b->label, b->v, b->series,
			b->lo, b->hi, b->n);
		longest = strlen(b->label) > longest ? strlen(b->label) : longest;
		lo = fmin(lo, b->lo);
		hi = fmax(hi, b->hi);
		spread |= b->lo < b->hi;
	}
	int written = rr_close(dat) == 0;
	int logx = hi / lo > 50;
	/* room for the labels plus a plot area of 600 pixels */
	int w = 700 + 7 * (int)longest, h = 160 + 22 * (int)bs->n;
	gp_head(gp, c, name, title, w, h);
	fprintf(gp, "set xlabel \"%s%s\"\nset style fill solid 0.8 noborder\n", xlabel,
		logx ? " (log scale)" : "");
	fprintf(gp, "set yrange [-0.7:%zu.7]\nset ytics nomirror\nset grid noytics\n", bs->n - 1);
	if (logx)
		fprintf(gp, "set logscale x\nset format x '%%.0s%%c'\nset xrange [%g:%g]\n", lo / 2,
			hi * 8);
	else
		fprintf(gp, "set xrange [0:%g]\n", hi * 1.25);
	/* colour per row: look the series up in a string of rgb values */
	fprintf(gp, "rgb(s) = (s==0?0x%s", series_colors[0] + 1);
	for (int s = 1; s < nseries; s++)
		fprintf(gp, ":s==%d?0x%s", s, series_colors[s % NCOLORS] + 1);
	fprintf(gp, ":0x000000)\n");
	fprintf(gp,
		"plot '%s.dat' using (%g):1:(%g):3:($1-0.38):($1+0.38):(rgb($4)):ytic(2) "
		"with boxxyerror lc rgb variable notitle, \\\n",
		name, logx ? lo / 2 : 0.0, logx ? lo / 2 : 0.0);
	/* the median's range over the repetitions, as an error bar; the label says n */
	if (spread)
		fprintf(gp, "  '' using 3:1:5:6 with xerrorbars lc rgb '#333333' pt -1 "
			    "notitle, \\\n");
	fprintf(gp, "  '' using ($6):1:(sprintf($3 >= 100 ? ' %%.0f%%s' : ' %%.3g%%s', $3, "
		    "$7 > 0 ? sprintf(' n=%%d', $7) : '')) with labels left font ',8' notitle");
	for (int s = 0; s < nseries; s++)
		if (*series[s]) /* an empty name leaves a colour unused (orange: published) */
			fprintf(gp, ", \\\n  NaN with boxes fs solid lc rgb '%s' title \"%s\"",
				series_colors[s % NCOLORS], series[s]);
	fprintf(gp, "\n");
	gp_tail(gp, name, w, h);
	written &= rr_close(gp) == 0;
	finish(dir, c, name, title, written);
}

/* Line charts: each series is one block of x y rows in the .dat file. */
struct line {
	char title[160];
	double *x, *y;
	size_t n, cap;
	int dashed;
};
struct lines {
	struct line *l;
	size_t n, cap;
};

static struct line *line_get(struct lines *ls, const char *title)
{
	for (size_t i = 0; i < ls->n; i++)
		if (strcmp(ls->l[i].title, title) == 0)
			return &ls->l[i];
	if (ls->n == ls->cap) {
		ls->cap = ls->cap ? ls->cap * 2 : 16;
		ls->l = realloc(ls->l, ls->cap * sizeof(*ls->l));
		if (!ls->l)
			abort();
	}
	struct line *l = &ls->l[ls->n++];
	memset(l, 0, sizeof(*l));
	snprintf(l->title, sizeof(l->title), "%s", title);
	for (char *c = l->title; *c; c++)
		if (*c == '"')
			*c = '\'';
	return l;
}

static void line_add(struct line *l, double x, double y)
{
	if (isnan(x) || isnan(y))
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->x = realloc(l->x, l->cap * sizeof(double));
		l->y = realloc(l->y, l->cap * sizeof(double));
		if (!l->x || !l->y)
			abort();
	}
	l->x[l->n] = x;
	l->y[l->n] = y;
	l->n++;
}

static void lines_free(struct lines *ls)
{
	for (size_t i = 0; i < ls->n; i++) {
		free(ls->l[i].x);
		free(ls->l[i].y);
	}
	free(ls->l);
	memset(ls, 0, sizeof(*ls));
}

/* Sorts each series by x and drops those with fewer than min_points distinct x values: a
 * line over one x value (two targets of one member count) is no line. */
static void lines_prune(struct lines *ls, size_t min_points)
{
	size_t o = 0;
	for (size_t i = 0; i < ls->n; i++) {
		struct line *l = &ls->l[i];
		for (size_t a = 1; a < l->n; a++)
			for (size_t b = a; b > 0 && l->x[b - 1] > l->x[b]; b--) {
				double tx = l->x[b], ty = l->y[b];
				l->x[b] = l->x[b - 1];
				l->y[b] = l->y[b - 1];
				l->x[b - 1] = tx;
				l->y[b - 1] = ty;
			}
		size_t xs = l->n > 0;
		for (size_t a = 1; a < l->n; a++)
			xs += l->x[a] != l->x[a - 1];
		if (xs >= min_points) {
			ls->l[o++] = *l;
		} else {
			free(l->x);
			free(l->y);
		}
	}
	ls->n = o;
}

/* extra: gnuplot lines set before the plot (axes, tics) */
static void line_chart(const char *dir, struct rr_charts *c, const char *name, const char *title,
		       const char *xlabel, const char *ylabel, const char *extra, struct lines *ls,
		       const char *empty_why)
{
	if (ls->n == 0) {
		rr_chart_note(c, name, title, 0, empty_why);
		return;
	}
	FILE *dat, *gp;
	if (open_chart(c, dir, name, title, &dat, &gp))
		return;
	for (size_t i = 0; i < ls->n; i++) {
		fprintf(dat, "# %s\n", ls->l[i].title);
		for (size_t k = 0; k < ls->l[i].n; k++)
			fprintf(dat, "%.6g\t%.6g\n", ls->l[i].x[k], ls->l[i].y[k]);
		fprintf(dat, "\n\n");
	}
	int written = rr_close(dat) == 0;
	int w = 1000, h = 560 + 16 * (int)((ls->n + 1) / 2);
	gp_head(gp, c, name, title, w, h);
	fprintf(gp, "set key below left vertical maxrows %zu noautotitle\n", (ls->n + 1) / 2);
	fprintf(gp, "set xlabel \"%s\"\nset ylabel \"%s\"\n%s\n", xlabel, ylabel, extra);
	fprintf(gp, "plot ");
	for (size_t i = 0; i < ls->n; i++)
		fprintf(gp,
			"%s'%s.dat' index %zu using 1:2 with %s lw 2 pt 7 ps 0.6 "
			"dt %d lc rgb '%s' title \"%s\"",
			i ? ", \\\n  " : "", name, i, ls->l[i].n > 30 ? "lines" : "linespoints",
			ls->l[i].dashed ? 2 : 1, series_colors[i % NCOLORS], ls->l[i].title);
	fprintf(gp, "\n");
	gp_tail(gp, name, w, h);
	written &= rr_close(gp) == 0;
	finish(dir, c, name, title, written);
}

static const char *chunk_str(long chunk, char *buf, size_t len)
{
	if (chunk <= 0)
		snprintf(buf, len, "-");
	else if (chunk % 1048576 == 0)
		snprintf(buf, len, "%ldm", chunk / 1048576);
	else
		snprintf(buf, len, "%ldk", chunk / 1024);
	return buf;
}

/* What keeps a redundant array consistent, as the tables name it (" [bitmap=none, resync]"),
 * so that every figure of md or the engine says what it compares; "" where nothing does. */
static const char *consistency_tag(const struct rr_test *t, char *buf, size_t len)
{
	*buf = 0;
	if (t->consistency && *t->consistency && strcmp(t->consistency, "none"))
		snprintf(buf, len, " [%s]", t->consistency);
	return buf;
}

/* "raid5 x4 cpu c512k [bitmap=none, resync]"; a target other than the engine first:
 * "md raid5 x4 md c512k [bitmap=internal, resync]" */
static void group_label(const struct rr_test *t, char *buf, size_t len)
{
	char ch[32], cs[80];
	int other = strcmp(t->target, "engine") && strcmp(t->target, "jbod");
	snprintf(buf, len, "%s%s%s x%d%s%s%s%s%s", other ? t->target : "", other ? " " : "",
		 rr_level_name(t), t->members, *t->parity ? " " : "", t->parity,
		 t->chunk > 0 ? " c" : "", t->chunk > 0 ? chunk_str(t->chunk, ch, sizeof(ch)) : "",
		 consistency_tag(t, cs, sizeof(cs)));
}

/* Engine, md and each volume side by side for the same level x members x workload, one
 * colour per target; with the CPU each spent per I/O, machine-wide (meta.json host_cpu). */
static void chart_targets(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	const char *names[NCOLORS] = {"engine", "md"};
	int nnames = 2;
	struct bars fig[2] = {{0}}, cpu = {0};
	char g[160], cs[80];
	if (!rr_run_has_targets(run))
		return; /* only the engine: nothing to set side by side, and nothing to say */
	char *done = calloc(run->ntests ? run->ntests : 1, 1), ch[32];
	if (!done)
		abort();
	/* each test measured on more than one target, its targets' bars one after the other */
	/* engine tests lead their groups, then md's, then the volumes' */
	for (size_t n = 0; n < 3 * run->ntests; n++) {
		size_t i = n % run->ntests, k, partners = 0;
		const struct rr_test *t0 = &run->tests[i];
		int pass = !strcmp(t0->target, "engine") ? 0 : !strcmp(t0->target, "md") ? 1 : 2;
		if (done[i] || !strcmp(t0->target, "jbod") || pass != (int)(n / run->ntests))
			continue;
		for (k = 0; k < run->ntests; k++)
			partners += !done[k] && strcmp(run->tests[k].target, t0->target) &&
				    rr_same_test(t0, &run->tests[k]);
		if (!partners)
			continue;
		snprintf(g, sizeof(g), "%s x%d%s%s %s %s Q%dT%d%s%s", rr_level_name(t0),
			 t0->members, t0->chunk > 0 ? " c" : "",
			 t0->chunk > 0 ? chunk_str(t0->chunk, ch, sizeof(ch)) : "", t0->workload,
			 t0->rw, t0->iodepth, t0->numjobs, strcmp(t0->state, "optimal") ? " " : "",
			 strcmp(t0->state, "optimal") ? t0->state : "");
		for (size_t m = 0; m <= run->ntests; m++) {
			k = m ? m - 1 : i; /* t0 first, then the others in run order */
			const struct rr_test *t = &run->tests[k];
			int s = 0;
			if (done[k] || !rr_same_test(t0, t))
				continue;
			done[k] = 1;
			while (s < nnames && strcmp(names[s], t->target))
				s++;
			if (s == nnames && nnames < (int)NCOLORS)
				names[nnames++] = t->target;
			/* colour 1 (the published orange elsewhere) is md's: nothing published here
			 */
			consistency_tag(t, cs, sizeof(cs));
			bar_spread(&fig[!rr_is_large(t)],
				   bar_add(&fig[!rr_is_large(t)], s, rr_primary(t), "%s: %s%s", g,
					   t->target, cs),
				   t,
				   rr_is_large(t) ? offsetof(struct rr_test, mbps)
						  : offsetof(struct rr_test, iops));
			bar_add(&cpu, s, t->host_cpu_us_per_io, "%s: %s%s", g, t->target, cs);
		}
	}
	free(done);
	bar_chart(dir, c, "targets_mbps",
		  "Targets side by side, MB/s (bs >= 64k; the same level x members x workload)",
		  "MB/s", &fig[0], names, nnames, "no test with bs >= 64k");
	bar_chart(dir, c, "targets_iops",
		  "Targets side by side, IOPS (bs < 64k; the same level x members x workload)",
		  "IOPS", &fig[1], names, nnames, "no test with bs < 64k");
	bar_chart(dir, c, "targets_cpu",
		  "Host CPU per I/O by target, us (user + system + softirq of the whole machine "
		  "over the measured interval; lower is better)",
		  "CPU us per I/O", &cpu, names, nnames, "no test recorded host_cpu");
	for (int k = 0; k < 2; k++)
		free(fig[k].b);
	free(cpu.b);
}

static int pub_bs_is(const struct rr_pub *p, const char *bs)
{
	return strcmp(p->bs, bs) == 0;
}

/* Published sequential rows: 1M (or unsized SEQ-*) bandwidth in the given direction. */
static void add_pub_seq(struct bars *bs, const struct rr_pubset *pub, const char *rw)
{
	for (size_t i = 0; i < pub->n; i++) {
		const struct rr_pub *p = &pub->rows[i];
		if (strcmp(p->metric, "bw") || strcmp(p->rw, rw) || strcmp(p->state, "optimal"))
			continue;
		if (!pub_bs_is(p, "1m") && strncmp(p->workload, "SEQ", 3) != 0)
			continue;
		char *l = rr_pub_label(p);
		bar_add(bs, 1, p->value, "%s %s", p->workload, l);
		free(l);
	}
}

static void chart_seq(const struct rr_run *run, const struct rr_pubset *pub, const char *dir,
		      struct rr_charts *c, const char *rw)
{
	struct bars bs = {0};
	char g[160], name[32], title[160], series0[160];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (t->bs < 1048576 || strcmp(t->rw, rw) || strcmp(t->state, "optimal"))
			continue;
		group_label(t, g, sizeof(g));
		bar_spread(&bs, bar_add(&bs, 0, t->mbps, "%s Q%dT%d", g, t->iodepth, t->numjobs),
			   t, offsetof(struct rr_test, mbps));
	}
	size_t measured = bs.n;
	add_pub_seq(&bs, pub, rw);
	snprintf(name, sizeof(name), "seq1m_%s", rw);
	snprintf(title, sizeof(title),
		 "Sequential 1M %s, MB/s (this run: level x members [parity] chunk, depth x jobs "
		 "as run)",
		 rw);
	snprintf(series0, sizeof(series0), "this run (%s)", run->made_on);
	const char *series[] = {series0, "published (hardware in label)"};
	if (!measured)
		bs.n = 0;
	bar_chart(dir, c, name, title, "MB/s", &bs, series, 2,
		  "no optimal-state sequential test with bs >= 1M in this run");
	free(bs.b);
}

static void chart_rnd4k_write(const struct rr_run *run, const struct rr_pubset *pub,
			      const char *dir, struct rr_charts *c)
{
	struct bars iops = {0}, lat = {0};
	char g[160], series0[160];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (t->bs != 4096 || strcmp(t->rw, "randwrite") || strcmp(t->state, "optimal"))
			continue;
		group_label(t, g, sizeof(g));
		if (t->iodepth > 1)
			bar_spread(&iops,
				   bar_add(&iops, 0, t->iops, "%s Q%dT%d", g, t->iodepth,
					   t->numjobs),
				   t, offsetof(struct rr_test, iops));
		/* percentiles of clat where fio recorded no lat percentiles, named so */
		const char *pk = t->pct_clat ? "clat " : "";
		bar_spread(&lat,
			   bar_add(&lat, 0, t->lat_mean_us, "%s Q%dT%d mean", g, t->iodepth,
				   t->numjobs),
			   t, offsetof(struct rr_test, lat_mean_us));
		bar_spread(&lat,
			   bar_add(&lat, 2, t->lat_p99_us, "%s Q%dT%d %sp99", g, t->iodepth,
				   t->numjobs, pk),
			   t, offsetof(struct rr_test, lat_p99_us));
		bar_add(&lat, 3, t->lat_p999_us, "%s Q%dT%d %sp99.9", g, t->iodepth, t->numjobs,
			pk);
	}
	size_t measured = iops.n;
	for (size_t i = 0; measured && i < pub->n; i++) {
		const struct rr_pub *p = &pub->rows[i];
		if (strcmp(p->metric, "iops") || strcmp(p->rw, "randwrite") ||
		    strcmp(p->state, "optimal") || !pub_bs_is(p, "4k"))
			continue;
		char *l = rr_pub_label(p);
		bar_add(&iops, 1, p->value, "%s %s", p->workload, l);
		free(l);
	}
	snprintf(series0, sizeof(series0), "this run (%s)", run->made_on);
	const char *s1[] = {series0, "published (hardware in label)"};
	bar_chart(dir, c, "rnd4k_write_iops",
		  "Random 4K write IOPS (this run: level x members [parity] chunk, depth x jobs as "
		  "run)",
		  "IOPS", &iops, s1, 2, "no optimal-state 4K random write test with QD > 1");
	const char *s2[] = {"mean lat", "", "p99", "p99.9"};
	bar_chart(dir, c, "rnd4k_write_lat",
		  "Random 4K write total latency (lat), us (the published reviews give no "
		  "comparable percentiles)",
		  "latency (us)", &lat, s2, 4, "no optimal-state 4K random write test");
	free(iops.b);
	free(lat.b);
}

static void chart_q1_read(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	struct bars bs = {0};
	char g[160];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (t->bs != 4096 || strcmp(t->rw, "randread") || t->iodepth != 1 ||
		    strcmp(t->state, "optimal"))
			continue;
		group_label(t, g, sizeof(g));
		bar_spread(&bs,
			   bar_add(&bs, 0, t->mbps, "%s Q1T%d (%.0f IOPS, mean lat %.1f us)", g,
				   t->numjobs, t->iops, t->lat_mean_us),
			   t, offsetof(struct rr_test, mbps));
	}
	const char *s[] = {"this run"};
	bar_chart(dir, c, "rnd4k_q1_read", "Random 4K read at queue depth 1, MB/s", "MB/s", &bs, s,
		  1, "no optimal-state 4K random read test at QD1");
	free(bs.b);
}

static void chart_scaling(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	struct lines ls = {0};
	char key[200], ch[32];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (strcmp(t->state, "optimal") || t->members <= 0)
			continue;
		snprintf(key, sizeof(key), "%s %s %s %s bs%ldk QD%d T%d c%s", t->target,
			 rr_level_name(t), t->parity, t->rw, t->bs / 1024, t->iodepth, t->numjobs,
			 chunk_str(t->chunk, ch, sizeof(ch)));
		line_add(line_get(&ls, key), t->members, rr_is_large(t) ? t->mbps : t->iops);
	}
	lines_prune(&ls, 2);
	line_chart(dir, c, "scaling", "Scaling with member count (MB/s for bs >= 64k, else IOPS)",
		   "members", "MB/s or IOPS", "set xtics 1\nset logscale y", &ls,
		   "no configuration was run with more than one member count");
	lines_free(&ls);
}

static void chart_chunks(const struct rr_run *run, const struct rr_pubset *pub, const char *dir,
			 struct rr_charts *c)
{
	struct lines ls = {0};
	char key[200];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (t->chunk <= 0)
			continue;
		snprintf(key, sizeof(key), "%s %s x%d %s %s bs%ldk QD%d T%d %s", t->target,
			 rr_level_name(t), t->members, t->parity, t->rw, t->bs / 1024, t->iodepth,
			 t->numjobs, t->state);
		line_add(line_get(&ls, key), t->chunk / 1024.0, t->mbps);
	}
	lines_prune(&ls, 2);
	size_t measured = ls.n;
	/* the published mdadm chunk sweep, for the directions this run swept */
	for (size_t i = 0; measured && i < pub->n; i++) {
		const struct rr_pub *p = &pub->rows[i];
		double kb = strtod(p->chunk, NULL);
		if (strcmp(p->metric, "bw") || kb <= 0)
			continue;
		int same_rw = 0;
		for (size_t k = 0; k < measured; k++)
			same_rw |= strstr(ls.l[k].title, p->rw) != NULL;
		if (!same_rw)
			continue;
		snprintf(key, sizeof(key), "published %s %dx %s %s %s %s [%s]", p->array, p->drives,
			 p->engine, p->workload, p->rw, p->host, p->source);
		struct line *l = line_get(&ls, key);
		l->dashed = 1;
		line_add(l, kb, p->value);
	}
	lines_prune(&ls, 2);
	if (!measured)
		lines_free(&ls);
	line_chart(dir, c, "chunk_sweep", "Chunk-size sweep, MB/s (dashed: published)",
		   "chunk (KiB)", "MB/s", "set logscale x 2\nset logscale y", &ls,
		   "no configuration was run with more than one chunk size");
	lines_free(&ls);
}

/* x is the "nines" of the percentile, -log10(1 - p): 1 = p90, 2 = p99, 3 = p99.9 */
static void chart_percentiles(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	struct lines ls = {0};
	int small = 0, clat = 0;
	for (size_t i = 0; i < run->ntests; i++) {
		small |= run->tests[i].nbins && !rr_is_large(&run->tests[i]);
		clat |= run->tests[i].nbins && run->tests[i].pct_clat;
	}
	for (size_t i = 0; i < run->ntests && ls.n < NCOLORS; i++) {
		const struct rr_test *t = &run->tests[i];
		if (!t->nbins || (small && rr_is_large(t)))
			continue;
		char key[200];
		snprintf(key, sizeof(key), "%s%s", t->test, clat && t->pct_clat ? " (clat)" : "");
		struct line *l = line_get(&ls, key);
		double total = 0, cum = 0;
		for (size_t k = 0; k < t->nbins; k++)
			total += t->bins[k].count;
		for (size_t k = 0; k < t->nbins; k++) {
			cum += t->bins[k].count;
			double p = fmin(cum / total, 1 - 1e-5);
			line_add(l, -log10(1 - p), t->bins[k].ns / 1e3);
		}
	}
	lines_prune(&ls, 2);
	char title[160];
	snprintf(title, sizeof(title), "%s percentiles (fio %s bins)%s",
		 clat ? "Latency" : "Total latency", clat ? "lat, or clat where marked," : "lat",
		 small ? ", bs < 64k tests" : "");
	line_chart(dir, c, "lat_percentiles", title,
		   "percentile", "latency (us)",
		   "set logscale y\nset xrange [0:5]\n"
		   "set xtics ('0' 0, '90' 1, '99' 2, '99.9' 3, '99.99' 4, '99.999' 5)",
		   &ls, "no test has fio json+ latency bins");
	lines_free(&ls);
}

/* Each state as a percentage of the optimal figure of the same configuration. */
static void chart_states(const struct rr_run *run, const struct rr_pubset *pub, const char *dir,
			 struct rr_charts *c)
{
	struct bars bs = {0};
	char g[160];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		int shown = 0;
		if (strcmp(o->state, "optimal"))
			continue;
		for (size_t k = 0; k < run->ntests; k++) {
			const struct rr_test *t = &run->tests[k];
			if (!strcmp(t->state, "optimal") || strcmp(t->workload, o->workload) ||
			    strcmp(t->rw, o->rw) || t->level != o->level ||
			    t->members != o->members || t->chunk != o->chunk || t->bs != o->bs ||
			    t->iodepth != o->iodepth || t->numjobs != o->numjobs)
				continue;
			double a = rr_is_large(t) ? t->mbps : t->iops;
			double b = rr_is_large(o) ? o->mbps : o->iops;
			group_label(t, g, sizeof(g));
			if (!shown++)
				bar_add(&bs, 0, 100, "%s %s %s optimal (%.0f %s)", g, o->workload,
					o->rw, b, rr_is_large(o) ? "MB/s" : "IOPS");
			bar_add(&bs, !strcmp(t->state, "degraded") ? 1 : 2, 100 * a / b,
				"%s %s %s %s (%.0f %s)", g, t->workload, t->rw, t->state, a,
				rr_is_large(t) ? "MB/s" : "IOPS");
		}
	}
	size_t measured = bs.n;
	/* published pairs: the same array and workload, optimal and rebuilding */
	for (size_t i = 0; measured && i < pub->n; i++) {
		const struct rr_pub *o = &pub->rows[i];
		if (strcmp(o->state, "optimal"))
			continue;
		for (size_t k = 0; k < pub->n; k++) {
			const struct rr_pub *p = &pub->rows[k];
			if (!strcmp(p->state, "optimal") || strcmp(p->source, o->source) ||
			    strcmp(p->array, o->array) || strcmp(p->workload, o->workload) ||
			    strcmp(p->rw, o->rw) || strcmp(p->metric, o->metric))
				continue;
			char *l = rr_pub_label(p);
			bar_add(&bs, 3, 100 * p->value / o->value, "%s %s %s (%.0f of %.0f %s), %s",
				p->workload, p->rw, p->state, p->value, o->value, p->unit, l);
			free(l);
		}
	}
	if (!measured)
		bs.n = 0;
	const char *s[] = {"optimal", "degraded", "rebuilding", "published, rebuilding"};
	bar_chart(dir, c, "states", "Optimal vs degraded vs rebuilding, % of the optimal figure",
		  "% of optimal", &bs, s, 4,
		  "no configuration was run both optimal and degraded or rebuilding");
	free(bs.b);
}

static void chart_rebuild(const struct rr_run *run, const struct rr_pubset *pub, const char *dir,
			  struct rr_charts *c)
{
	struct bars bs = {0};
	struct lines ls = {0};
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (isnan(t->rebuild_min_per_tb))
			continue;
		bar_add(&bs, 0, t->rebuild_min_per_tb, "%s: %.1f s at %.0f MB/s", t->test,
			t->rebuild_s, t->rebuild_mbps);
		for (size_t k = 0; k < t->nsamples; k++)
			line_add(line_get(&ls, t->test), t->samples[k].t, t->samples[k].iops);
	}
	size_t measured = bs.n;
	for (size_t i = 0; measured && i < pub->n; i++) {
		const struct rr_pub *p = &pub->rows[i];
		const char *unit;
		if (strcmp(p->metric, "rebuild_time"))
			continue;
		char *l = rr_pub_label(p);
		bar_add(&bs, 1, rr_pub_value(p, &unit), "%.1f min for one drive, %s", p->value, l);
		free(l);
	}
	const char *s[] = {"this run", "published"};
	bar_chart(dir, c, "rebuild", "Rebuild time per TB of the rebuilt member (lower is better)",
		  "min/TB", &bs, s, 2, "no test ran a rebuild");
	lines_prune(&ls, 2);
	line_chart(dir, c, "rebuild_timeline", "Client IOPS before, during and after a rebuild",
		   "time (s)", "IOPS", "", &ls, "no rebuild recorded progress samples");
	free(bs.b);
	lines_free(&ls);
}

/* What each test costs: fio's CPU time per I/O, and member I/Os per volume I/O (stats). */
static void chart_costs(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	struct bars cpu = {0}, mio = {0};
	char g[160];
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		group_label(t, g, sizeof(g));
		int s = rr_is_read(t) ? 0 : 2;
		bar_add(&cpu, s, t->cpu_us_per_io, "%s %s %s Q%dT%d%s%s", g, t->rw,
			rr_is_large(t) ? "1M" : "4K", t->iodepth, t->numjobs,
			strcmp(t->state, "optimal") ? " " : "",
			strcmp(t->state, "optimal") ? t->state : "");
		bar_add(&mio, s, t->member_ios_per_io, "%s %s %s%s%s", g, t->rw,
			rr_is_large(t) ? "1M" : "4K", strcmp(t->state, "optimal") ? " " : "",
			strcmp(t->state, "optimal") ? t->state : "");
	}
	const char *s[] = {"read", "", "write"};
	bar_chart(dir, c, "cpu_per_io",
		  "CPU time per I/O, us (fio's usr+sys of the job threads; lower is better)",
		  "CPU us per I/O", &cpu, s, 3, "no test recorded fio CPU figures");
	bar_chart(
	    dir, c, "member_io",
	    "Member I/Os per volume I/O (engine stats: the I/O a level adds; lower is better)",
	    "member I/Os per volume I/O", &mio, s, 3, "no test has engine stats");
	free(cpu.b);
	free(mio.b);
}

/* for charts drawn elsewhere (hosts.c): the .dat/.gp pair, and gnuplot run on the .gp */
int rr_chart_open(struct rr_charts *c, const char *dir, const char *name, const char *title,
		  FILE **dat, FILE **gp)
{
	return open_chart(c, dir, name, title, dat, gp);
}

void rr_chart_finish(const char *dir, struct rr_charts *c, const char *name, const char *title,
		     FILE *dat, FILE *gp)
{
	int written = (rr_close(dat) == 0) & (rr_close(gp) == 0);
	finish(dir, c, name, title, written);
}

int rr_write_charts(const struct rr_run *run, const struct rr_pubset *pub, struct rr_charts *out)
{
	char dir[4096];
	memset(out, 0, sizeof(*out));
	snprintf(out->mark, sizeof(out->mark), "%s", run->emulation);
	snprintf(dir, sizeof(dir), "%s/charts", run->dir);
	int rc = rr_mkdir(dir);
	if (rc < 0)
		return rc;
	chart_seq(run, pub, dir, out, "read");
	chart_seq(run, pub, dir, out, "write");
	chart_rnd4k_write(run, pub, dir, out);
	chart_q1_read(run, dir, out);
	chart_costs(run, dir, out);
	chart_targets(run, dir, out);
	chart_scaling(run, dir, out);
	chart_chunks(run, pub, dir, out);
	chart_percentiles(run, dir, out);
	chart_states(run, pub, dir, out);
	chart_rebuild(run, pub, dir, out);
	rr_chart_hosts(run, dir, out);
	rr_an_charts(run, dir, out);
	return 0;
}

/* The bar chart for the other parts' charts (efficiency.c, project.c): the same drawing, one
 * opaque list of bars. */
struct bars *rr_bars_new(void)
{
	struct bars *bs = calloc(1, sizeof(*bs));
	if (!bs)
		abort();
	return bs;
}

void rr_bars_free(struct bars *bs)
{
	if (bs)
		free(bs->b);
	free(bs);
}

void rr_bars_add(struct bars *bs, int series, double v, const char *label)
{
	bar_add(bs, series, v, "%s", label);
}

size_t rr_bars_count(const struct bars *bs)
{
	return bs->n;
}

void rr_bar_chart(const char *dir, struct rr_charts *c, const char *name, const char *title,
		  const char *xlabel, const struct bars *bs, const char *const *series, int nseries,
		  const char *empty_why)
{
	bar_chart(dir, c, name, title, xlabel, bs, series, nseries, empty_why);
}
