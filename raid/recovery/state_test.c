/*
 * state_test.c - the state file (state.c) as hostile input and as a record of one array:
 * every field of the wrong type or out of range is refused with one line; a file of
 * another geometry, or one whose members are not the devices recorded, is refused and
 * names the difference (serial and EUI-64 of both where recorded), a spare that a finished
 * rebuild made the member included; a version-2 file is read and written as version 3; an
 * unfinished rebuild onto a spare that is not the recorded one restarts from 0; the dirty mark is
 * set while a writer runs and cleared at a clean end, and a dirty start resyncs, or refuses a
 * degraded RAID5 unless raid_start_dirty_degraded.
 */
#include "core/testutil.h"

#include <errno.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/identity.h"

static char dir[] = "/tmp/raid-state-test.XXXXXX";

static void put_file(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* raid_state=FILE holding `text`, after raid_level and raid_members */
static int load(const char *text, const char *level, char *err, size_t errlen)
{
	struct raid_config c;
	char m[512], st[512];
	int ret;

	put_file("st.json", text);
	snprintf(m, sizeof(m), "raid_members=%s/m0:%s/m1:%s/m2", dir, dir, dir);
	snprintf(st, sizeof(st), "%s/st.json", dir);
	t_config(&c, level, m, "raid_chunk=16k", NULL);
	ret = raid_config_set(&c, "raid_state", st, err, errlen);
	if (!ret)
		ret = raid_config_validate(&c, err, errlen);
	raid_config_free(&c);
	return ret;
}

static void test_hostile(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"[1, 2]", "not a JSON object"},
	    {"{\"members\": 3", "not a JSON state file (truncated or malformed)"},
	    {"", "not a JSON state file (truncated or malformed)"},
	    {"{\"members\": 3} {\"members\": 4}", "not a JSON state file (more follows its value)"},
	    {"{\"members\": null}", "\"members\" is not an integer"},
	    {"{\"members\": 3, \"clean\": null}", "\"clean\" is not true or false"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": false}, "
	     "{\"member\": 2, \"spare\": \"/s\", \"done\": false}]}",
	     "the spare of member 2, /s, is also the spare of member 1"},
	    {"{\"members\": \"3\"}", "\"members\" is not an integer"},
	    {"{}", "\"members\" is missing"},
	    {"{\"members\": 4}", "an array of 4 members, raid_members names 3"},
	    {"{\"members\": 3, \"version\": 9}", "\"version\" is 9, outside 1..3"},
	    {"{\"members\": 3, \"failed\": [\"x\"]}", "failed member x is not a member index"},
	    {"{\"members\": 3, \"failed\": [3]}", "failed member 3 is not a member index"},
	    {"{\"members\": 3, \"failed\": [1.5]}", "failed member 1.5 is not"},
	    {"{\"members\": 3, \"failed\": 1}", "\"failed\" is not an array"},
	    {"{\"members\": 3, \"clean\": \"yes\"}", "\"clean\" is not true or false"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": "
	     "\"false\"}]}",
	     "\"done\" of member 1 is not true or false"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": false, "
	     "\"recovery_offset\": -4096}]}",
	     "\"recovery_offset\" is -4096, outside"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": false, "
	     "\"recovery_offset\": 99999999999999999999}]}",
	     "\"recovery_offset\" is 18446744073709551615, outside 0..9223372036854775807"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": false, "
	     "\"recovery_offset\": \"8\"}]}",
	     "\"recovery_offset\" is not an integer"},
	    {"{\"members\": 3, \"array\": {\"level\": 5, \"members\": 3, \"chunk\": 16384, "
	     "\"layout\": 1, \"member_size\": 65536}, \"replaced\": [{\"member\": 1, \"spare\": "
	     "\"/s\", \"done\": false, \"recovery_offset\": 131072}]}",
	     "\"recovery_offset\" is 131072, outside 0..65536"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 7, \"spare\": \"/s\", \"done\": true}]}",
	     "\"member\" is 7, outside 0..2"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"\", \"done\": true}]}",
	     "the spare of member 1 is not a path"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": 5, \"done\": true}]}",
	     "the spare of member 1 is not a path"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": true}, "
	     "{\"member\": 1, \"spare\": \"/t\", \"done\": true}]}",
	     "member 1 is replaced twice"},
	    {"{\"members\": 3, \"replaced\": [\"x\"]}", "a \"replaced\" entry is not an object"},
	    {"{\"members\": 3, \"array\": [5]}", "\"array\" is not an object"},
	    {"{\"members\": 3, \"array\": {\"level\": \"5\"}}", "\"level\" is not an integer"},
	    {"{\"members\": 3, \"devices\": [{\"slot\": 9, \"id\": \"file:1:2:3\"}]}",
	     "\"slot\" is 9, outside 0..2"},
	    {"{\"members\": 3, \"devices\": [{\"slot\": 1, \"id\": 7}]}",
	     "device of slot 1: \"id\" (required), \"wwid\", \"serial\" or \"eui64\" is not"},
	    {"{\"members\": 3, \"devices\": [{\"slot\": 1, \"serial\": \"S1\"}]}",
	     "device of slot 1: \"id\" (required)"},
	    {"{\"members\": 3, \"devices\": [{\"slot\": 1, \"id\": \"file:1:2:3\", \"serial\": "
	     "7}]}",
	     "device of slot 1: \"id\" (required), \"wwid\", \"serial\" or \"eui64\" is not an "
	     "identity"},
	    {"{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"/s\", \"done\": true, "
	     "\"spare_eui64\": \"\"}]}",
	     "the spare of member 1: \"spare_id\", \"spare_wwid\", \"spare_serial\" or "
	     "\"spare_eui64\" is not an identity (a string of 1..159 bytes)"},
	};
	char err[RAID_ERRLEN], text[600];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		assert_int_equal(load(cases[i].text, "raid_level=5", err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want) || !strstr(err, "raid: raid_state: "))
			fail_msg("state %s: message '%s' lacks '%s'", cases[i].text, err,
				 cases[i].want);
	}
	/* the member's spare named as another member */
	snprintf(text, sizeof(text),
		 "{\"members\": 3, \"replaced\": [{\"member\": 1, \"spare\": \"%s/m2\", \"done\": "
		 "true}]}",
		 dir);
	assert_int_equal(load(text, "raid_level=5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is member 2"));
}

/* A state path that is no file to read, or a member: one line with the reason. */
static void test_unreadable(void **state)
{
	struct raid_config c;
	char m[512], p[512], err[RAID_ERRLEN];

	snprintf(m, sizeof(m), "raid_members=%s/m0:%s/m1:%s/m2", dir, dir, dir);
	snprintf(p, sizeof(p), "%s/sub", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	t_config(&c, "raid_level=5", m, NULL);
	assert_int_equal(raid_config_set(&c, "raid_state", p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/sub: cannot read it: Is a directory"));
	snprintf(p, sizeof(p), "%s/m0/st.json", dir); /* under a regular file */
	assert_int_equal(raid_config_set(&c, "raid_state", p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/m0/st.json: cannot read it: Not a directory"));
	/* a FIFO: refused at once, never waited on */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(raid_config_set(&c, "raid_state", p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/fifo: cannot read it: not a regular file"));
	unlink(p);
	/* a member: its bytes would be written over */
	snprintf(p, sizeof(p), "%s/./m1", dir);
	assert_int_equal(raid_config_set(&c, "raid_state", p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/./m1: it is member 1: the state file must be a file"));
	raid_config_free(&c);
	snprintf(p, sizeof(p), "%s/sub", dir);
	rmdir(p);
}

/* Two arrays of one process naming one state file: the second is refused. */
static void test_shared_state(void **state)
{
	struct raid_config c, d;
	struct raid_array *a, *b;
	char st[512], err[RAID_ERRLEN];

	snprintf(st, sizeof(st), "raid_state=%s/shared.json", dir);
	t_config(&c, "raid_level=1", "raid_members=/sh-a0:/sh-a1", "raid_backend=ram",
		 "raid_member_size=1m", st, NULL);
	t_config(&d, "raid_level=1", "raid_members=/sh-b0:/sh-b1", "raid_backend=ram",
		 "raid_member_size=1m", st, NULL);
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), 0);
	assert_int_equal(raid_array_get(&d, &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/shared.json is the state file of another array in this "
				    "fio (raid_members /sh-a0...)"));
	assert_int_equal(raid_array_get(&c, &b, err, sizeof(err)), 0); /* the same array: fine */
	assert_ptr_equal(a, b);
	raid_array_put(b);
	assert_int_equal(raid_array_put(a), 0);
	raid_config_free(&c);
	raid_config_free(&d);
}

/* RAID1 over the ram members /NAME-0, /NAME-1 of SIZE with raid_state=dir/FILE (read now) */
static void ram_config(struct raid_config *c, const char *name, const char *size, const char *file)
{
	char m[128], st[512], sz[64];

	snprintf(m, sizeof(m), "raid_members=/%s-0:/%s-1", name, name);
	snprintf(st, sizeof(st), "raid_state=%s/%s", dir, file);
	snprintf(sz, sizeof(sz), "raid_member_size=%s", size);
	t_config(c, "raid_level=1", m, "raid_backend=ram", sz, st, NULL);
}

/* raid_array_get over ram_config()'s array */
static int get_ram(const char *name, const char *size, const char *file, struct raid_array **a,
		   char *err, size_t errlen)
{
	struct raid_config c;
	int ret;

	ram_config(&c, name, size, file);
	ret = raid_array_get(&c, a, err, errlen);
	raid_config_free(&c);
	return ret;
}

/*
 * Two processes naming one state file for two arrays, started at once: whichever opens
 * second is refused while the first holds the file, and a file that another process wrote
 * after this one read it is refused too (it was read before that process's record).
 */
static void test_state_in_use(void **state)
{
	struct raid_array *a;
	char err[RAID_ERRLEN], p[512], tmp[512];
	int ready[2], done[2];
	pid_t pid;
	char c = 0;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* the other fio: holds its array until told, or until the test ends */
		close(ready[0]);
		close(done[1]);
		int ok = !get_ram("use-b", "2m", "inuse.json", &a, err, sizeof(err));

		(void)!write(ready[1], &ok, sizeof(ok));
		(void)!read(done[0], &c, 1);
		_exit(ok && !raid_array_put(a) ? 0 : 1);
	}
	int ok = 0;

	close(ready[1]);
	close(done[0]);
	assert_int_equal(read(ready[0], &ok, sizeof(ok)), (ssize_t)sizeof(ok));
	assert_true(ok);
	assert_int_equal(get_ram("use-a", "1m", "inuse.json", &a, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "/inuse.json is in use by another process (it holds "));
	assert_non_null(strstr(err, "/inuse.json.lock): one fio at a time"));
	assert_int_equal(write(done[1], &c, 1), 1);
	close(done[1]);
	close(ready[0]);
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the file is the other array's record, unharmed: this one is then refused for that */
	assert_int_equal(get_ram("use-a", "1m", "inuse.json", &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/inuse.json describes another array"));
	assert_int_equal(get_ram("use-b", "2m", "inuse.json", &a, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);

	/* another process's save (a new file renamed over it) between this one's read and lock */
	struct raid_config cfg;

	ram_config(&cfg, "ch", "1m", "changed.json"); /* read while absent */
	put_file("changed.json", "{\"members\": 2}");
	assert_int_equal(raid_array_get(&cfg, &a, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "/changed.json changed after this job read it"));
	raid_config_free(&cfg);
	ram_config(&cfg, "ch", "1m", "changed.json"); /* read as it is now */
	put_file("changed.tmp", "{\"members\": 2}");
	snprintf(tmp, sizeof(tmp), "%s/changed.tmp", dir);
	snprintf(p, sizeof(p), "%s/changed.json", dir);
	assert_int_equal(rename(tmp, p), 0);
	assert_int_equal(raid_array_get(&cfg, &a, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "/changed.json changed after this job read it"));
	raid_config_free(&cfg);
	ram_config(&cfg, "ch", "1m", "changed.json"); /* read as it is now, unchanged since */
	assert_int_equal(raid_array_get(&cfg, &a, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);
	raid_config_free(&cfg);
}

static void test_geometry(void **state)
{
	static const char *st = "{\"members\": 3, \"array\": {\"level\": 5, \"members\": 3, "
				"\"chunk\": 65536, \"layout\": 1, \"member_size\": 65536}}";
	char err[RAID_ERRLEN];

	assert_int_equal(load(st, "raid_level=5", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "describes another array: it records raid_chunk=65536, this "
				    "job has raid_chunk=16384"));
	assert_int_equal(load(st, "raid_level=1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "it records raid_level=5, this job has raid_level=1"));
	/* a failure the file recorded is the file's: not blamed on raid_failed */
	assert_int_equal(
	    load("{\"members\": 3, \"failed\": [0, 2]}", "raid_level=5", err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "raid: raid_state: "));
	assert_non_null(strstr(err, "records failed members: the array has lost more"));
}

/* The array over m0..m2 (psync, 64 KiB members) with the state file and extra options. */
/* extra, then extra2 (each NULL for none) */
static int open_array2(struct raid_array **a, const char *level, const char *extra,
		       const char *extra2, bool writes, char *err, size_t errlen)
{
	struct raid_config c;
	char m[512], st[512];
	int ret;

	snprintf(m, sizeof(m), "raid_members=%s/m0:%s/m1:%s/m2", dir, dir, dir);
	snprintf(st, sizeof(st), "raid_state=%s/st.json", dir);
	t_config(&c, level, m, "raid_chunk=16k", "raid_member_size=64k", "raid_backend=psync", st,
		 extra, extra2, NULL);
	c.writes = writes;
	ret = raid_array_get(&c, a, err, errlen);
	raid_config_free(&c);
	return ret;
}

static int open_array(struct raid_array **a, const char *level, const char *extra, bool writes,
		      char *err, size_t errlen)
{
	return open_array2(a, level, extra, NULL, writes, err, errlen);
}

static json_object *state_json(void)
{
	char p[512];
	json_object *o;

	snprintf(p, sizeof(p), "%s/st.json", dir);
	o = json_object_from_file(p);
	assert_non_null(o);
	return o;
}

static bool state_clean(void)
{
	json_object *o = state_json(), *x;
	bool clean = json_object_object_get_ex(o, "clean", &x) && json_object_get_boolean(x);

	json_object_put(o);
	return clean;
}

static void test_round_trip(void **state)
{
	struct raid_array *a;
	char err[RAID_ERRLEN], p[512];
	json_object *o, *x;

	snprintf(p, sizeof(p), "%s/st.json", dir);
	unlink(p); /* the first run: no file yet */
	assert_int_equal(open_array(&a, "raid_level=5", NULL, true, err, sizeof(err)), 0);
	assert_false(state_clean()); /* a writer runs: dirty before its first write */
	assert_int_equal(raid_array_put(a), 0);
	assert_true(state_clean());
	o = state_json();
	assert_true(json_object_object_get_ex(o, "devices", &x));
	assert_int_equal(json_object_array_length(x), 3);
	assert_true(json_object_object_get_ex(o, "array", &x));
	assert_true(json_object_object_get_ex(x, "member_size", &x));
	assert_int_equal(json_object_get_int64(x), 65536);
	json_object_put(o);
	/* reopened as it was: accepted; read-only: the file stays clean */
	if (open_array(&a, "raid_level=5", NULL, false, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(state_clean());
	assert_int_equal(raid_array_put(a), 0);
	/* member 1 is another file now (deleted and made again): refused, and says which */
	snprintf(p, sizeof(p), "%s/m1", dir);
	assert_int_equal(unlink(p), 0);
	put_file("m1", "");
	assert_int_equal(truncate(p, 65536), 0);
	assert_int_equal(open_array(&a, "raid_level=5", NULL, true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "describes another array: member 1"));
	assert_true(state_clean()); /* a refused file is left as it was */
	snprintf(p, sizeof(p), "%s/st.json", dir);
	unlink(p);
}

static void test_spare_identity(void **state)
{
	struct raid_array *a;
	char err[RAID_ERRLEN], st[1024], sp[512];
	json_object *o, *x;

	/* a first clean run records the members; then a rebuild onto s0 "was" half done */
	assert_int_equal(open_array(&a, "raid_level=1", NULL, true, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);
	snprintf(sp, sizeof(sp), "%s/s0", dir);
	put_file("s0", "");
	assert_int_equal(truncate(sp, 65536), 0);
	snprintf(
	    st, sizeof(st),
	    "{\"members\": 3, \"clean\": true, \"failed\": [1], \"replaced\": [{\"member\": 1, "
	    "\"spare\": \"%s\", \"spare_id\": \"file:0:0:1\", \"done\": false, "
	    "\"recovery_offset\": 32768}]}",
	    sp);
	put_file("st.json", st);
	/* s0 is another device now: refused, naming both, the file left as it was */
	assert_int_equal(open_array(&a, "raid_level=1", NULL, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the spare of member 1"));
	assert_non_null(strstr(err, "the file records file:0:0:1, rebuilt to 32768"));
	o = state_json();
	assert_true(json_object_object_get_ex(o, "replaced", &x));
	x = json_object_array_get_idx(x, 0);
	assert_true(json_object_object_get_ex(x, "recovery_offset", &x));
	assert_int_equal(json_object_get_int64(x), 32768);
	json_object_put(o);
	snprintf(st, sizeof(st), "%s/st.json", dir);
	unlink(st);
	unlink(sp);
}

/* dir/NAME's identity */
static struct raid_ident ident(const char *name)
{
	struct raid_ident id;
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(raid_dev_identity(p, &id), 0);
	return id;
}

static char *state_text(void)
{
	static char text[4096];
	char p[512];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/st.json", dir);
	f = fopen(p, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	return text;
}

/*
 * Serial and EUI-64 beside each id: a version-2 file (ids only) is read and written back as
 * version 3; a device recorded with them that is now another is refused, the message naming
 * both and the file left as it was; a spare that a finished rebuild made the member (that run
 * wrote its spare_* and no "devices" entry for the slot) is checked as the member.
 */
static void test_identity_records(void **state)
{
	struct raid_ident m0 = ident("m0"), m1 = ident("m1"), m2 = ident("m2"), s0;
	struct raid_array *a;
	char err[RAID_ERRLEN], st[2048], want[1024], sp[512], *before;
	json_object *o, *x;

	snprintf(st, sizeof(st),
		 "{\"version\": 2, \"members\": 3, \"clean\": true, \"devices\": [{\"slot\": 0, "
		 "\"id\": \"%s\"}, {\"slot\": 1, \"id\": \"%s\"}, {\"slot\": 2, \"id\": \"%s\"}]}",
		 m0.id, m1.id, m2.id);
	put_file("st.json", st);
	assert_int_equal(open_array(&a, "raid_level=5", NULL, true, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);
	o = state_json();
	assert_true(json_object_object_get_ex(o, "version", &x));
	assert_int_equal(json_object_get_int(x), 3);
	assert_true(json_object_object_get_ex(o, "devices", &x));
	assert_int_equal(json_object_array_length(x), 3);
	json_object_put(o);

	/* slot 1 recorded as a drive: the same id matches whatever else the record says */
	snprintf(st, sizeof(st),
		 "{\"version\": 3, \"members\": 3, \"devices\": [{\"slot\": 1, \"id\": \"%s\", "
		 "\"serial\": \"S3Z9NB0K123456\", \"eui64\": \"0025388b91b2c8a1\"}]}",
		 m1.id);
	put_file("st.json", st);
	assert_int_equal(open_array(&a, "raid_level=5", NULL, false, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);
	/* another device at its path: refused, naming what is there and what was recorded */
	put_file("st.json",
		 "{\"version\": 3, \"members\": 3, \"devices\": [{\"slot\": 1, "
		 "\"id\": \"wwn:eui.0025388b91b2c8a1\", \"wwid\": \"eui.0025388b91b2c8a1\", "
		 "\"serial\": \"S3Z9NB0K123456\", \"eui64\": \"0025388b91b2c8a1\"}]}");
	before = strdup(state_text());
	assert_int_equal(open_array(&a, "raid_level=5", NULL, true, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "describes another array: member 1 (%s/m1) is %s; the file records serial "
		 "S3Z9NB0K123456, EUI-64 0025388b91b2c8a1 (put that device back at %s/m1",
		 dir, m1.id, dir);
	if (!strstr(err, want))
		fail_msg("'%s' lacks '%s'", err, want);
	assert_string_equal(state_text(), before);
	free(before);

	/* member 1 rebuilt onto s0 in the last run: s0 is member 1 now, and checked as it */
	snprintf(sp, sizeof(sp), "%s/s0", dir);
	put_file("s0", "");
	assert_int_equal(truncate(sp, 65536), 0);
	s0 = ident("s0");
	snprintf(st, sizeof(st),
		 "{\"version\": 3, \"members\": 3, \"clean\": true, \"devices\": [{\"slot\": 0, "
		 "\"id\": \"%s\"}, {\"slot\": 2, \"id\": \"%s\"}], \"failed\": [], \"replaced\": "
		 "[{\"member\": 1, \"spare\": \"%s\", \"spare_id\": \"%s\", \"spare_serial\": "
		 "\"SPARE1\", \"spare_eui64\": \"00000000000000a3\", \"done\": true}]}",
		 m0.id, m2.id, sp, s0.id);
	put_file("st.json", st);
	assert_int_equal(open_array(&a, "raid_level=5", NULL, false, err, sizeof(err)), 0);
	assert_int_equal(raid_array_put(a), 0);
	put_file("st.json", st);
	assert_int_equal(unlink(sp), 0);
	put_file("s0", "");
	assert_int_equal(truncate(sp, 65536), 0);
	assert_int_equal(open_array(&a, "raid_level=5", NULL, false, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "member 1 (%s) is %s; the file records serial SPARE1, EUI-64 00000000000000a3", sp,
		 ident("s0").id);
	if (!strstr(err, want))
		fail_msg("'%s' lacks '%s'", err, want);
	unlink(sp);
	snprintf(sp, sizeof(sp), "%s/st.json", dir);
	unlink(sp);
}

static void test_dirty(void **state)
{
	struct raid_array *a;
	char err[RAID_ERRLEN], p[512];

	assert_int_equal(open_array(&a, "raid_level=5", NULL, true, err, sizeof(err)), 0);
	/* the writer's process "crashes": the file still says dirty */
	assert_false(state_clean());
	{
		json_object *o = state_json();

		snprintf(p, sizeof(p), "%s/crash.json", dir);
		json_object_to_file(p, o);
		json_object_put(o);
	}
	assert_int_equal(raid_array_put(a), 0);
	snprintf(p, sizeof(p), "cp %s/crash.json %s/st.json", dir, dir);
	assert_int_equal(system(p), 0);
	/* degraded and dirty: refused unless asked for */
	assert_int_equal(open_array(&a, "raid_level=5", "raid_failed=2", false, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not shut down cleanly and is degraded"));
	assert_non_null(strstr(err, "raid_start_dirty_degraded=1"));
	assert_int_equal(
	    open_array(&a, "raid_level=5", "raid_start_dirty_degraded=1", false, err, sizeof(err)),
	    0);
	assert_int_equal(raid_array_put(a), 0);
	/* forced while degraded: it stays dirty, as md keeps its resync pending (rows torn at
	 * the crash are still torn once a spare completes the array) */
	assert_int_equal(system(p), 0);
	assert_int_equal(open_array2(&a, "raid_level=5", "raid_failed=2",
				     "raid_start_dirty_degraded=1", true, err, sizeof(err)),
			 0);
	assert_int_equal(raid_array_put(a), 0);
	assert_false(state_clean());
	/* complete and dirty: resynced before the first I/O, then clean */
	assert_int_equal(system(p), 0);
	t_log[0] = 0;
	assert_int_equal(open_array(&a, "raid_level=5", NULL, false, err, sizeof(err)), 0);
	assert_non_null(strstr(t_log, "not shut down cleanly"));
	assert_non_null(strstr(t_log, "resync done"));
	assert_int_equal(raid_array_put(a), 0);
	assert_true(state_clean());
	snprintf(p, sizeof(p), "%s/st.json", dir);
	unlink(p);
}

static int setup(void **state)
{
	char p[512];

	assert_non_null(mkdtemp(dir));
	t_log_start();
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "m%d", i);
		put_file(p, "");
		snprintf(p, sizeof(p), "%s/m%d", dir, i);
		assert_int_equal(truncate(p, 65536), 0);
	}
	return 0;
}

static int teardown(void **state)
{
	return t_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile),	   cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_shared_state),   cmocka_unit_test(test_state_in_use),
	    cmocka_unit_test(test_geometry),	   cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_spare_identity), cmocka_unit_test(test_identity_records),
	    cmocka_unit_test(test_dirty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
