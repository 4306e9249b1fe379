/*
 * line_test.c - what line_compute (line.c) says a test is, case by case: its id, engine,
 * init, chunk bytes, member and spare paths, stats file, md policy, sizes and fio's
 * environment. A failure names the case and the figure that changed, with both values (the
 * dry runs' checksum only says that something did).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/* the program's own, which line.c and its helpers call: here a failure of the case */
const char *prog = "line_test";
void preset_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fail_msg("preset_die above");
	abort();
}
void field(const char *k, const char *fmt, ...)
{
	(void)k, (void)fmt;
}

static int bad;
static void want_s(const char *c, const char *what, const char *got, const char *want)
{
	if (strcmp(got ? got : "(null)", want)) {
		print_message("%s: %s is '%s', want '%s'\n", c, what, got ? got : "(null)", want);
		bad++;
	}
}
static void want_n(const char *c, const char *what, unsigned long long got, unsigned long long want)
{
	if (got != want) {
		print_message("%s: %s is %llu, want %llu\n", c, what, got, want);
		bad++;
	}
}

static struct job_facts job(const char *id, const char *rw, const char *bs)
{
	return (struct job_facts){.id = (char *)id,
				  .rw = (char *)rw,
				  .bs = (char *)bs,
				  .iodepth = "8",
				  .numjobs = "4",
				  .timed = true};
}

/* o: scale 1, 64 MiB members, 10 s, files under S, results in R */
static struct opts opts(void)
{
	return (struct opts){.scratch = "S",
			     .results = "R",
			     .engine = "E",
			     .scale = 1,
			     .runtime = 10,
			     .msize = 64ULL << 20,
			     .repeat = 1,
			     .clock = ""};
}

static void compute(struct opts *o, const char *target, const char *level, int members,
		    const char *state, char precond, const struct job_facts *j, int rep,
		    struct test_line *x)
{
	static struct row r;
	struct test t = {.r = &r};

	r = (struct row){.group = "-", .precond = precond};
	snprintf(r.state, sizeof(r.state), "%s", state);
	snprintf(r.job, sizeof(r.job), "%s", "JOB");
	snprintf(r.a.name, sizeof(r.a.name), "arr");
	snprintf(r.a.level, sizeof(r.a.level), "%s", level);
	snprintf(r.a.chunk, sizeof(r.a.chunk), "%s", strcmp(level, "jbod") ? "512k" : "-");
	snprintf(r.a.parity, sizeof(r.a.parity), "cpu");
	snprintf(r.a.bays, sizeof(r.a.bays), "-");
	r.a.members = members;
	t.a = r.a;
	snprintf(t.target, sizeof(t.target), "%s", target);
	snprintf(t.array, sizeof(t.array), "arr");
	snprintf(t.id, sizeof(t.id), "T");
	line_compute(o, &t, j, "W", 3, rep, true, x);
}

static void test_cases(void **state)
{
	struct test_line *x = malloc(sizeof(*x));
	struct opts o = opts();
	struct job_facts seq = job("SEQ1M", "write", "1M"), rnd = job("RND4K", "randwrite", "4k");
	const char *c;

	(void)state;
	assert_non_null(x);
	c = "raid5 x4 on the engine, reused members, repetition 2 of 3";
	o.reuse = true, o.repeat = 3;
	compute(&o, "engine", "5", 4, "optimal", 0, &seq, 2, x);
	want_s(c, "id", x->id, "T@2");
	want_s(c, "engine", x->engine, "raid");
	want_n(c, "repeats", x->repeats, 3);
	want_n(c, "init=resync", x->init_resync, 1);
	want_n(c, "chunk bytes", x->chunk_bytes, 512 * 1024);
	want_s(c, "job file", x->file, "W/JOB.fio");
	want_s(c, "member paths", x->members, "S/arr/bay0:S/arr/bay1:S/arr/bay2:S/arr/bay3");
	want_s(c, "spare paths", x->spare_paths, "");
	want_s(c, "stats file", x->stats, "R/tests/T@2.stats.json");
	want_n(c, "volume", x->z.vol, 192ULL << 20);
	want_n(c, "JOB_SIZE", x->z.size, 48ULL << 20);
	want_n(c, "iodepth", x->iodepth, 8);
	want_n(c, "RUNTIME", x->env_runtime, 10);
	want_n(c, "LOOPS", x->loops, 1);

	c = "raid0 x2, reused members: nothing to resync";
	compute(&o, "engine", "0", 2, "optimal", 0, &seq, 1, x);
	want_n(c, "init=resync", x->init_resync, 0);

	c = "jbod x4: no chunk, no init, fio straight on the members";
	compute(&o, "jbod", "jbod", 4, "optimal", 0, &seq, 1, x);
	want_s(c, "engine", x->engine, "jbod");
	want_n(c, "chunk bytes", x->chunk_bytes, 0);
	want_n(c, "init=resync", x->init_resync, 0);

	c = "raid1 x2 rebuilding: the spare is the bay after the members";
	o = opts();
	compute(&o, "engine", "1", 2, "rebuilding", 0, &rnd, 1, x);
	want_s(c, "spares", x->spares, "2");
	want_s(c, "spare paths", x->spare_paths, "S/arr/spare2");
	want_s(c, "id", x->id, "T");

	c = "raid6 x6 on md: 64 MiB members keep mdadm's auto bitmap off";
	compute(&o, "md", "6", 6, "optimal", 0, &seq, 1, x);
	want_s(c, "engine", x->engine, "md");
	want_s(c, "md bitmap", x->md_bitmap, "none");
	want_s(c, "md consistency", x->md_consistency, "resync");

	c = "a fill before the tests: once, writes, LOOPS the preset's passes";
	o.repeat = 2, o.m.fill = 2;
	compute(&o, "engine", "5", 4, "optimal", 'f', &rnd, 1, x);
	want_s(c, "id", x->id, "T");
	want_n(c, "repeats", x->repeats, 1);
	want_s(c, "span rw", x->span_rw, "write");
	want_n(c, "LOOPS", x->loops, 2);
	want_n(c, "TIME_BASED", x->time_based, 0);

	c = "a dev: volume: sized at run time, no bays";
	o = opts();
	compute(&o, "dev:v", "5", 4, "optimal", 0, &seq, 1, x);
	want_s(c, "engine", x->engine, "dev");
	want_n(c, "JOB_SIZE", x->z.size, 0);
	want_s(c, "bays", x->bays, "");
	free(x);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
