/*
 * options_test.c - the option table walked: every option's default parses, the edges of
 * its range are accepted and the values just beyond refused with one line naming the
 * option and what it accepts; and config checks each level's member count and layouts
 * against the level table's facts.
 */
#include "testutil.h"

#include <errno.h>
#include <inttypes.h>

#include "raid.h"

/* raid_config_set on a fresh config: the return, the message in err */
static int set(const struct raid_option *o, const char *v, char *err, size_t errlen)
{
	struct raid_config c;
	int ret;

	raid_config_init(&c);
	err[0] = 0;
	ret = raid_config_set(&c, o->name, v, err, errlen);
	if (!ret && !raid_option_given(&c, o->name))
		fail_msg("%s=%s: accepted but not marked given", o->name, v);
	raid_config_free(&c);
	return ret;
}

static void accepted(const struct raid_option *o, const char *v)
{
	char err[RAID_ERRLEN];

	if (set(o, v, err, sizeof(err)))
		fail_msg("%s=%s refused: %s", o->name, v, err);
}

/* refused, in one line that names the option and says what it takes (`want`, if given) */
static void refused(const struct raid_option *o, const char *v, const char *want)
{
	char err[RAID_ERRLEN], head[96];

	if (set(o, v, err, sizeof(err)) != -EINVAL)
		fail_msg("%s=%s accepted", o->name, v);
	snprintf(head, sizeof(head), "raid: %s: ", o->name);
	if (strncmp(err, head, strlen(head)) || strchr(err, '\n') || (want && !strstr(err, want)))
		fail_msg("%s=%s: message '%s' does not start '%s' or lacks '%s'", o->name, v, err,
			 head, want ? want : "");
}

static void test_table(void **state)
{
	char buf[RAID_ERRLEN];
	int n = 0;

	for (const struct raid_option *o = raid_options; o->name; o++, n++) {
		assert_int_equal(strncmp(o->name, "raid_", 5), 0);
		assert_ptr_equal(raid_option_find(o->name), o);
		assert_non_null(o->help);
		assert_non_null(o->part);
		assert_true(raid_option_values(o, buf, sizeof(buf)) > 0);
		assert_true(raid_option_help(o, buf, sizeof(buf)) < (int)sizeof(buf));
		if (o->def)
			accepted(o, o->def);
	}
	assert_true(n <= RAID_OPTIONS_MAX);
	assert_null(raid_option_find("raid_nope"));
}

static void test_unknown(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN];

	raid_config_init(&c);
	assert_int_equal(raid_config_set(&c, "raid_chunks", "4k", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "raid: unknown option 'raid_chunks'");
	raid_config_free(&c);
}

/* "4k" for 4096: what the message prints */
static void size_str(uint64_t v, char *buf, size_t len)
{
	if (v >= 1024 * 1024 && !(v % (1024 * 1024)))
		snprintf(buf, len, "%" PRIu64 "m", v >> 20);
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%" PRIu64 "k", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void test_edges(void **state)
{
	char v[64], w[64], range[160];
	struct raid_level_info l;

	for (const struct raid_option *o = raid_options; o->name; o++) {
		switch (o->type) {
		case RAID_OPT_INT:
			snprintf(range, sizeof(range), "from %lld to %lld", o->lo, o->hi);
			snprintf(v, sizeof(v), "%lld", o->lo), accepted(o, v);
			snprintf(v, sizeof(v), "%lld", o->hi), accepted(o, v);
			snprintf(v, sizeof(v), "%lld", o->lo - 1), refused(o, v, range);
			snprintf(v, sizeof(v), "%lld", o->hi + 1), refused(o, v, range);
			refused(o, "", range);
			refused(o, "3x", range);
			break;
		case RAID_OPT_SIZE:
			size_str((uint64_t)o->lo, v, sizeof(v));
			accepted(o, v);
			if (o->hi == INT64_MAX) {
				refused(o, "0", "a size");
				refused(o, "big", "a size");
				break;
			}
			size_str((uint64_t)o->hi, w, sizeof(w));
			accepted(o, w);
			snprintf(range, sizeof(range), "from %s to %s", v, w);
			size_str((uint64_t)o->lo / 2, v, sizeof(v)), refused(o, v, range);
			size_str((uint64_t)o->hi * 2, v, sizeof(v)), refused(o, v, range);
			if (o->pow2)
				size_str((uint64_t)o->lo * 3, v, sizeof(v)), refused(o, v, "power of two");
			refused(o, "junk", range);
			break;
		case RAID_OPT_BOOL:
			accepted(o, "0");
			accepted(o, "1");
			refused(o, "2", "0 or 1");
			refused(o, "yes", "0 or 1");
			refused(o, "", "0 or 1");
			break;
		case RAID_OPT_LEVEL:
			for (unsigned i = 0; !raid_level_nth(i, &l); i++) {
				snprintf(v, sizeof(v), "%d", l.level);
				accepted(o, v);
				snprintf(w, sizeof(w), "'7' is not one of 0, ");
				refused(o, "7", w);
				refused(o, "7", v); /* each level named */
			}
			refused(o, "", "one of");
			refused(o, "5x", "one of");
			break;
		case RAID_OPT_LAYOUT:
		case RAID_OPT_ENUM:
			for (int i = 0; o->values[i].name; i++) {
				accepted(o, o->values[i].name);
				refused(o, "bogus", o->values[i].name); /* each value named */
			}
			break;
		case RAID_OPT_RATE:
			snprintf(v, sizeof(v), "%lld", o->hi), accepted(o, v);
			accepted(o, "0.5");
			snprintf(range, sizeof(range), "at most %lld", o->hi);
			snprintf(v, sizeof(v), "%lld", o->hi + 1), refused(o, v, range);
			refused(o, "0", range);
			refused(o, "-1", range);
			refused(o, "fast", range);
			break;
		case RAID_OPT_PATHS: {
			char many[RAID_MAX_MEMBERS * 3 + 8] = "";

			accepted(o, "/a");
			accepted(o, "/a:/b");
			for (int i = 0; i <= RAID_MAX_MEMBERS; i++)
				strcat(many, i ? ":/x" : "/x");
			refused(o, many, "more than 64 paths");
			refused(o, "/a::/b", "empty path");
			refused(o, "/a:", "empty path");
			refused(o, "", "no paths");
			break;
		}
		case RAID_OPT_PATH:
			accepted(o, "/nonexistent/raid-options-test");
			refused(o, "", "no path given");
			break;
		case RAID_OPT_LIST:
			refused(o, "x", NULL);
			refused(o, "1,", NULL);
			break;
		}
	}
}

static int validate(const char *level, int n, const char *layout, char *err, size_t errlen)
{
	struct raid_config c;
	char members[RAID_MAX_MEMBERS * 4] = "";
	int ret;

	for (int i = 0; i < n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s/m%d",
			 i ? ":" : "", i);
	t_config(&c, level, NULL);
	if (n)
		assert_int_equal(raid_config_set(&c, "raid_members", members, err, errlen), 0);
	if (layout)
		assert_int_equal(raid_config_set(&c, "raid_layout", layout, err, errlen), 0);
	ret = raid_config_validate(&c, err, errlen);
	raid_config_free(&c);
	return ret;
}

/* Config's checks are the level table's facts: member count and layouts. */
static void test_level_facts(void **state)
{
	const struct raid_option *lay = raid_option_find("raid_layout");
	struct raid_level_info l;
	char kv[32], err[RAID_ERRLEN];

	for (unsigned i = 0; !raid_level_nth(i, &l); i++) {
		snprintf(kv, sizeof(kv), "raid_level=%d", l.level);
		assert_int_equal(validate(kv, l.min_members, NULL, err, sizeof(err)), 0);
		if (l.min_members > 1) {
			assert_int_equal(validate(kv, l.min_members - 1, NULL, err, sizeof(err)),
					 -EINVAL);
			assert_non_null(strstr(err, "raid_members: "));
		}
		assert_true(l.parity < l.min_members);
		assert_true(l.copies == RAID_ALL_MEMBERS || l.copies >= 1);
		for (int k = 0; lay->values[k].name; k++) {
			int ret = validate(kv, l.min_members + 2, lay->values[k].name, err,
					   sizeof(err));

			if (l.layouts >> lay->values[k].value & 1)
				assert_int_equal(ret, 0);
			else if (ret != -EINVAL || !strstr(err, "raid: raid_layout: "))
				fail_msg("raid%d with %s: %d '%s'", l.level, lay->values[k].name,
					 ret, err);
		}
		if (l.layouts)
			assert_true(l.layouts >> l.default_layout & 1);
		else
			assert_null(raid_layout_name(l.level, RAID_LAYOUT_DEFAULT));
	}
	assert_int_equal(raid_level_get(7, &l), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_level_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
