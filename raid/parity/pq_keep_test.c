/*
 * pq_keep_test.c - the kept selection's file (pq_keep.c): a measured hot selection written and
 * read back figure for figure; the other use's record kept beside it; a record of another
 * machine refused as such; every kind of damaged record refused with a reason, never half read;
 * a file that is not a regular one, or too big, or in no directory. The process-level behaviour
 * (RAID_PARITY_SELECTION in the bench: measured once, then read; processes started together
 * share one) is raid/parity/bench_test.sh's.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pq_test_util.h"
#include "pq_impl.h"

static char dir[] = "/tmp/pq_keep_test.XXXXXX";
static char path[256];
static struct pq_selection hot; /* measured once, written by the tests that need a file */

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/sel.json", dir);
	if (pq_select_measure(PQ_USE_HOT, &hot))
		return -1;
	hot.runs = 3;
	pq_keep_stamp(&hot);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* hot's candidates with no figures: what pq_keep_read() is handed */
static void blank(struct pq_selection *s, enum pq_use use)
{
	*s = hot;
	s->use = use;
	s->runs = 0;
	s->cpu_s = 0;
	s->measured[0] = '\0';
	for (int c = 0; c < s->n; c++)
		s->cand[c].rel = s->cand[c].gbps = 0, s->cand[c].rounds = s->cand[c].finals = 0;
}

static void write_hot(void)
{
	unlink(path);
	assert_int_equal(pq_keep_write(path, &hot), 0);
}

static void test_round_trip(void **state)
{
	struct pq_selection s;
	const char *why = "unset";

	write_hot();
	blank(&s, PQ_USE_HOT);
	assert_int_equal(pq_keep_read(path, &s, &why), 0);
	assert_null(why);
	assert_int_equal(s.runs, 3);
	assert_string_equal(s.measured, hot.measured);
	assert_true(s.cpu_s == hot.cpu_s);
	for (int c = 0; c < s.n; c++) {
		assert_true(s.cand[c].rel == hot.cand[c].rel); /* exact: %.17g */
		assert_true(s.cand[c].gbps == hot.cand[c].gbps);
		assert_int_equal(s.cand[c].rounds, hot.cand[c].rounds);
		assert_int_equal(s.cand[c].finals, hot.cand[c].finals);
	}
}

static void test_missing(void **state)
{
	struct pq_selection s;
	const char *why = "unset";

	unlink(path);
	blank(&s, PQ_USE_HOT);
	assert_int_equal(pq_keep_read(path, &s, &why), -ENOENT);
	assert_null(why);
	/* a file with the hot record only: no streaming one yet */
	write_hot();
	blank(&s, PQ_USE_STREAM);
	assert_int_equal(pq_keep_read(path, &s, &why), -ENOENT);
}

/* a streaming record written after the hot one leaves the hot one as it was */
static void test_other_use_kept(void **state)
{
	struct pq_selection st = hot, s;
	const char *why;
	json_object *root;

	write_hot();
	st.use = PQ_USE_STREAM;
	st.cand[0].rel = 7.5;
	assert_int_equal(pq_keep_write(path, &st), 0);
	root = json_object_from_file(path);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "hot", NULL));
	assert_true(json_object_object_get_ex(root, "streaming", NULL));
	json_object_put(root);
	blank(&s, PQ_USE_HOT);
	assert_int_equal(pq_keep_read(path, &s, &why), 0);
	assert_true(s.cand[0].rel == hot.cand[0].rel);
	blank(&s, PQ_USE_STREAM);
	assert_int_equal(pq_keep_read(path, &s, &why), 0);
	assert_true(s.cand[0].rel == 7.5);
}

/* the written file, edited by a jq-like change: key path and new value as JSON text */
static void edit(const char *const *keys, int nkeys, const char *value)
{
	json_object *root = json_object_from_file(path), *o = root, *v;

	assert_non_null(root);
	for (int i = 0; i < nkeys - 1; i++) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, atoi(keys[i]));
		else
			assert_true(json_object_object_get_ex(o, keys[i], &o));
	}
	v = value ? json_tokener_parse(value) : NULL;
	if (value && !v) /* not JSON: as a string */
		v = json_object_new_string(value);
	if (json_object_is_type(o, json_type_array)) {
		json_object_array_put_idx(o, atoi(keys[nkeys - 1]), v);
	} else if (value) {
		json_object_object_add(o, keys[nkeys - 1], v);
	} else {
		json_object_object_del(o, keys[nkeys - 1]);
	}
	assert_int_equal(json_object_to_file(path, root), 0);
	json_object_put(root);
}

static int read_after(const char *const *keys, int nkeys, const char *value, const char **why)
{
	struct pq_selection s;

	write_hot();
	edit(keys, nkeys, value);
	blank(&s, PQ_USE_HOT);
	return pq_keep_read(path, &s, why);
}

#define KEYS(...)                                                                                  \
	(const char *const[]){__VA_ARGS__}, sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *)

static void test_other_machine(void **state)
{
	const char *why;

	assert_int_equal(read_after(KEYS("cpu"), "\"Some Other CPU\"", &why), -ESTALE);
	assert_string_equal(why, "another CPU");
	assert_int_equal(read_after(KEYS("variants"), "\"base avx2\"", &why), -ESTALE);
	assert_string_equal(why, "another set of variants");
	assert_int_equal(read_after(KEYS("l2"), "4096", &why), -ESTALE);
	assert_int_equal(read_after(KEYS("kernels"), "1", &why), -ESTALE); /* an older build */
	assert_string_equal(why, "other kernels (another build)");
	assert_int_equal(read_after(KEYS("kernels"), NULL, &why), -ESTALE); /* before the field */
	assert_string_equal(why, "other kernels (another build)");
	assert_int_equal(read_after(KEYS("format"), "1", &why), -ESTALE); /* before "finals" */
	assert_string_equal(why, "another format");
}

static void test_damaged(void **state)
{
	static const struct {
		const char *keys[5];
		int n;
		const char *value; /* NULL: the key removed */
	} cases[] = {
	    {{"hot", "runs"}, 2, "0"},
	    {{"hot", "runs"}, 2, "\"3\""},
	    {{"hot", "runs"}, 2, NULL},
	    {{"hot", "cpu_s"}, 2, "-1.0"},
	    {{"hot", "measured"}, 2, NULL},
	    {{"hot", "candidates", "0", "name"}, 4, "\"avx3\""},
	    {{"hot", "candidates", "0", "k"}, 4, "5"},
	    {{"hot", "candidates", "0", "len"}, 4, "8192"},
	    {{"hot", "candidates", "0", "rel"}, 4, "-1.0"},
	    {{"hot", "candidates", "0", "rel"}, 4, "1e300"},
	    {{"hot", "candidates", "0", "rel"}, 4, "\"fast\""},
	    {{"hot", "candidates", "0", "gbps"}, 4, NULL},
	    {{"hot", "candidates", "0", "rounds"}, 4, "55"}, /* more than 3 runs of 15 + 3 */
	    {{"hot", "candidates", "0", "rounds"}, 4, "0"},
	    {{"hot", "candidates", "0", "finals"}, 4, "4"}, /* more than 3 runs */
	    {{"hot", "candidates", "0", "finals"}, 4, "-1"},
	    {{"hot", "candidates", "0", "finals"}, 4, NULL},
	    {{"hot", "candidates", "0"}, 3, "[]"},
	    {{"hot", "candidates"}, 2, "[]"},
	    {{"hot"}, 1, "[]"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = NULL;
		int rc = read_after(cases[i].keys, cases[i].n, cases[i].value, &why);

		if (rc != -EINVAL || !why)
			fail_msg("case %zu (%s.. = %s): rc %d, why %s", i, cases[i].keys[0],
				 cases[i].value ? cases[i].value : "(removed)", rc,
				 why ? why : "(none)");
	}
}

static void put_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_not_a_record(void **state)
{
	struct pq_selection s;
	const char *why;
	char cmd[1400];

	blank(&s, PQ_USE_HOT);
	put_file("");
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	put_file("[1, 2]");
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	assert_string_equal(why, "not a JSON object");
	write_hot();
	snprintf(cmd, sizeof(cmd), "cat '%s' '%s' > '%s.2' && mv '%s.2' '%s'", path, path, path,
		 path, path);
	assert_int_equal(system(cmd), 0); /* two objects: trailing JSON after the first */
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	unlink(path);
	assert_int_equal(mkdir(path, 0755), 0); /* a directory */
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	assert_string_equal(why, "not a regular file of at most 1 MiB");
	assert_int_not_equal(pq_keep_write(path, &hot), 0); /* cannot replace a directory */
	rmdir(path);
	assert_int_equal(mkfifo(path, 0644), 0); /* a FIFO does not hang the read */
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	unlink(path);
	put_file("{}");
	assert_int_equal(truncate(path, 2 << 20), 0); /* too big */
	assert_int_equal(pq_keep_read(path, &s, &why), -EINVAL);
	unlink(path);
}

static void test_no_directory(void **state)
{
	char bad[300];

	snprintf(bad, sizeof(bad), "%s/none/sel.json", dir);
	assert_int_equal(pq_keep_write(bad, &hot), -ENOENT);
	assert_int_equal(pq_keep_lock(bad), -ENOENT);
}

/* the one rule, over a selection measured once and over one measured as a kept one is */
static void test_rule(void **state)
{
	struct pq_selection s;

	hot.runs = 1; /* measured once (setup() says 3 for the file's sake) */
	t_check_bands(&hot);
	hot.runs = 3;
	assert_int_equal(pq_select_measure_kept(PQ_USE_HOT, &s), 0);
	assert_int_equal(s.runs, PQ_KEEP_RUNS);
	t_check_bands(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),	   cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_other_use_kept), cmocka_unit_test(test_other_machine),
	    cmocka_unit_test(test_damaged),	   cmocka_unit_test(test_not_a_record),
	    cmocka_unit_test(test_no_directory),   cmocka_unit_test(test_rule),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
