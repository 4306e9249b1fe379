/*
 * modules_test.c - the core's registries, as the parts above it use them: what the library's
 * module list registered is what the core holds (levels in their order, a backend per kind,
 * the recovery service, recovery's option rows after the core's); a second registration of
 * a level, backend or service, a personality without its Required hooks, an option name
 * already taken or a table past RAID_OPTIONS_MAX is refused and leaves the registry as it
 * was; a registered option group's rows parse through the table and its hooks run from
 * raid_config_validate and raid_config_free.
 */
#include "testutil.h"

#include <errno.h>

#include "level.h"
#include "options.h"
#include "service.h"

static char said[RAID_ERRLEN]; /* the last raid_log line */
static void keep_log(const char *line)
{
	snprintf(said, sizeof(said), "%s", line);
}

static int count_rows(void)
{
	int n = 0;

	while (raid_options[n].name)
		n++;
	return n;
}

static void test_levels(void **state)
{
	static const int order[] = {0, 1, 5, 6, 10};
	struct raid_level_ops no_size = *raid_level_find(5);

	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(raid_level_at(i)->level, order[i]);
	assert_null(raid_level_at(5));
	assert_int_equal(raid_level_register(raid_level_find(5)), -EEXIST);
	assert_non_null(strstr(said, "raid_level=5 is registered twice"));
	no_size.level = 7;
	no_size.size = NULL;
	assert_int_equal(raid_level_register(&no_size), -EINVAL);
	assert_null(raid_level_find(7));
	assert_null(raid_level_at(5));
}

static void test_backends(void **state)
{
	static const char *const names[] = {"io_uring", "libaio", "psync", "ram", "null"};
	const struct member_backend_ops *ram = member_backend(t_backend("ram"));
	struct member_backend_ops bad;

	/* by name, in the order they registered: raid_backend's values */
	for (int k = 0; k < 5; k++) {
		assert_non_null(member_backend(k));
		assert_string_equal(member_backend(k)->name, names[k]);
		assert_string_equal(raid_backend_name(k), names[k]);
		assert_string_equal(member_backend_values[k].name, names[k]);
	}
	assert_null(member_backend_values[5].name);
	assert_true(ram->in_memory);
	assert_non_null(member_injector());
	assert_int_equal(member_backend_register(ram), -EEXIST);
	assert_int_equal(member_injector_register(ram), -EEXIST);
	bad = *ram;
	bad.name = NULL;
	assert_int_equal(member_backend_register(&bad), -EINVAL);
	bad = *ram;
	bad.poll = NULL;
	assert_int_equal(member_backend_register(&bad), -EINVAL);
	assert_ptr_equal(member_backend(3), ram);
	assert_null(member_backend(5));
}

static void test_service(void **state)
{
	const struct raid_service_ops *s = raid_service();

	assert_non_null(s->stats);
	assert_non_null(s->config);
	assert_non_null(s->interrupt);
	assert_int_equal(raid_service_register(s), -EEXIST);
	assert_ptr_equal(raid_service(), s);
}

/* recovery's rows are recovery's, after the core's, and parse through the one table */
static void test_recovery_rows(void **state)
{
	const struct raid_option *max = raid_option_find("raid_rebuild_max");
	const struct raid_option *merge = raid_option_find("raid_merge");
	struct raid_config c;
	char err[RAID_ERRLEN];

	assert_non_null(max);
	assert_string_equal(max->part, "recovery");
	assert_true(max > merge); /* the core's rows first */
	/* raid_inject is the inject decorator's (backends), listed after raid_fail */
	for (const struct raid_option *o = merge + 1; o->name; o++)
		assert_string_equal(o->part, strcmp(o->name, "raid_inject") ? "recovery" : "backends");
	assert_ptr_equal(raid_option_find("raid_inject") - 1, raid_option_find("raid_fail"));
	/* every part's row lives in that part's own options struct, the core's in raid_config */
	for (const struct raid_option *o = raid_options; o->name; o++)
		assert_true(!strcmp(o->part, "core") || o->slot > 0);
	t_config(&c, "raid_level=5", "raid_members=/a:/b:/c", "raid_rebuild_min=300", NULL);
	assert_int_equal(raid_config_set(&c, "raid_rebuild_max", "250", err, sizeof(err)), 0);
	assert_int_equal(t_opt(&c, "raid_rebuild_max"), 250000000);
	/* recovery's validate hook, from raid_config_validate */
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "raid: raid_rebuild_min: 300 MB/s is above raid_rebuild_max"));
	raid_config_free(&c);
}

static int validated, freed;
static int group_validate(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
			  size_t errlen)
{
	validated = ops->level;
	if (c->merge)
		return 0;
	snprintf(err, errlen, "raid: raid_test_flag: refused by its group");
	return -EINVAL;
}

static void group_free(struct raid_config *c)
{
	freed++;
}

/* Run last: it adds a row to the table (nothing can take it away again). */
static void test_group(void **state)
{
	static const struct raid_option taken[] = {{.name = "raid_chunk",
						    .type = RAID_OPT_BOOL,
						    .part = "test",
						    .help = "x",
						    RAID_OPT_AT(merge)},
						   {.name = NULL}};
	static const struct raid_option flag[] = {{.name = "raid_test_flag",
						   .type = RAID_OPT_BOOL,
						   .part = "test",
						   .help = "a test's",
						   .def = "1",
						   RAID_OPT_AT(merge)},
						  {.name = NULL}};
	static struct raid_option many[RAID_OPTIONS_MAX + 1];
	static char names[RAID_OPTIONS_MAX + 1][24];
	const struct raid_option_group g_taken = {.part = "test", .rows = taken};
	const struct raid_option_group g_flag = {
	    .part = "test", .rows = flag, .validate = group_validate, .free = group_free};
	const struct raid_option_group g_many = {.part = "test", .rows = many};
	int n = count_rows();
	struct raid_config c;
	char err[RAID_ERRLEN];

	assert_int_equal(raid_options_register(&g_taken), -EEXIST);
	assert_int_equal(count_rows(), n);
	for (int i = 0; i < RAID_OPTIONS_MAX - n + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "raid_many_%d", i);
		many[i] = flag[0];
		many[i].name = names[i];
	}
	/* one row more than the table holds: none of them is added */
	assert_int_equal(raid_options_register(&g_many), -ENOSPC);
	assert_int_equal(count_rows(), n);

	assert_int_equal(raid_options_register(&g_flag), 0);
	assert_int_equal(count_rows(), n + 1);
	assert_string_equal(raid_options[n].name, "raid_test_flag");
	t_config(&c, "raid_level=1", "raid_members=/a:/b", "raid_test_flag=0", NULL);
	assert_true(raid_option_given(&c, "raid_test_flag"));
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_int_equal(validated, 1);
	assert_string_equal(err, "raid: raid_test_flag: refused by its group");
	raid_config_free(&c);
	assert_true(freed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_levels),  cmocka_unit_test(test_backends),
	    cmocka_unit_test(test_service), cmocka_unit_test(test_recovery_rows),
	    cmocka_unit_test(test_group),
	};

	raid_set_log(keep_log);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
