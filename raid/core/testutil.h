/*
 * testutil.h - helpers shared by the library's cmocka tests: a deterministic PRNG that
 * prints its seed, and building an array and queue from option strings.
 */
#ifndef RAID_TESTUTIL_H
#define RAID_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "raid.h"

/* xorshift64*: reproducible from the printed seed */
static inline uint64_t t_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline uint64_t t_seed(const char *test)
{
	const char *env = getenv("RAID_TEST_SEED");
	uint64_t s = env ? strtoull(env, NULL, 0) : 0x5eed1234abcdULL;

	printf("%s: seed %#llx (RAID_TEST_SEED=%#llx reproduces)\n", test, (unsigned long long)s,
	       (unsigned long long)s);
	return s ? s : 1;
}

/* Fill a config from "name=value" pairs (NULL-terminated); asserts they are accepted. */
static inline void t_config(struct raid_config *c, ...)
{
	char err[RAID_ERRLEN];
	va_list ap;
	const char *kv;

	raid_config_init(c);
	va_start(ap, c);
	while ((kv = va_arg(ap, const char *))) {
		char name[64];
		const char *eq = strchr(kv, '=');

		assert_non_null(eq);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
		if (raid_config_set(c, name, eq + 1, err, sizeof(err)))
			fail_msg("%s", err);
	}
	va_end(ap);
}

/* One request, synchronously: submit, commit, reap it. Returns its error. */
/*
 * A number option's value in c, found as the core finds it (the row's struct and offset):
 * tests of the core read a part's options without naming the part's struct.
 */
static inline long long t_opt(const struct raid_config *c, const char *name)
{
	const struct raid_option *o = raid_option_find(name);
	const char *p;

	assert_non_null(o);
	p = (const char *)(o->slot ? c->part[o->slot - 1] : (const void *)c) + o->off;
	if (o->size == sizeof(bool))
		return *(const bool *)p;
	if (o->size == sizeof(int))
		return *(const int *)p;
	return (long long)*(const uint64_t *)p;
}

/* raid_backend's value for a backend's name (core/member.h's registry order) */
static inline int t_backend(const char *name)
{
	const struct raid_option *o = raid_option_find("raid_backend");

	for (int i = 0; o->values[i].name; i++)
		if (!strcmp(o->values[i].name, name))
			return o->values[i].value;
	fail_msg("no backend %s", name);
	return -1;
}

static inline int t_io(struct raid_queue *q, enum raid_op op, void *buf, uint64_t off, uint64_t len)
{
	struct raid_request r = {.op = op, .buf = buf, .offset = off, .length = len};
	struct raid_request *out[1];
	int ret = raid_submit(q, &r);

	if (ret)
		return ret;
	raid_commit(q);
	assert_int_equal(raid_reap(q, 1, 1, NULL, out), 1);
	assert_ptr_equal(out[0], &r);
	return r.error;
}

/* The library's log lines, kept for a test to search (t_log_start clears it); the recovery
 * thread logs too, so a line is appended under a lock. */
static char t_log[8192];
static pthread_mutex_t t_log_mu = PTHREAD_MUTEX_INITIALIZER;

static inline void t_log_line(const char *line)
{
	pthread_mutex_lock(&t_log_mu);
	size_t n = strlen(t_log);

	snprintf(t_log + n, sizeof(t_log) - n, "%s\n", line);
	pthread_mutex_unlock(&t_log_mu);
}

static inline void t_log_start(void)
{
	t_log[0] = 0;
	raid_set_log(t_log_line);
}

/* A test group's scratch directory, removed by t_rmtree at its teardown. */
static inline int t_rmtree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

#endif
