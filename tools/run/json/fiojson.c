/* tools/run/json/fiojson.c: raid-json, the JSON helper of run.sh (json-c, so the shell never
 * writes or parses JSON by hand).
 *
 *   raid-json obj KEY:T=VALUE ...   print one object; KEY may be a.b.c (nested objects);
 *                                   T: s string, i integer, f number, b true/false, n null
 *                                   (no =VALUE), j JSON text, J JSON file (null if absent),
 *                                   as / ai / aj append a string / integer / JSON to an array
 *   raid-json set FILE KEY:T=VALUE ...  change or add keys of a JSON file in place
 *   raid-json get FILE KEY          print one value (a.b.c; [N] not needed so far)
 *   raid-json headline FIO_JSON     the figure a progress line shows: "1234 MB/s" for
 *                                   sequential tests, "56789 IOPS, 12.3 us mean" for random
 *   raid-json steadystate FIO_JSON  whether fio's steady state was reached: 1 when every
 *                                   job that had the criterion attained it, else 0; exit 1
 *                                   when no job had one
 *   raid-json client FIO_JSON HOST PORT   one host's part of fio's client/server output
 *                                   (its "client_stats" entries) as a plain fio JSON+
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char *prog = "raid-json";

static json_object *parent_of(json_object *root, char *path, char **leaf)
{
	char *dot;
	json_object *o = root, *next;
	while ((dot = strchr(path, '.'))) {
		*dot = '\0';
		if (!json_object_object_get_ex(o, path, &next) ||
		    !json_object_is_type(next, json_type_object)) {
			next = json_object_new_object();
			json_object_object_add(o, path, next);
		}
		o = next;
		path = dot + 1;
	}
	*leaf = path;
	return o;
}

static int parse_num(const char *s, int as_int, json_object **out)
{
	char *end;
	errno = 0;
	if (as_int) {
		long long v = strtoll(s, &end, 10);
		if (errno || end == s || *end)
			return -EINVAL;
		*out = json_object_new_int64(v);
	} else {
		double v = strtod(s, &end);
		if (errno || end == s || *end)
			return -EINVAL;
		*out = json_object_new_double(v);
	}
	return 0;
}

static int add_arg(json_object *root, const char *arg)
{
	char *dup = strdup(arg), *leaf, *colon = strchr(dup, ':'), *eq;
	json_object *val = NULL, *parent, *arr;
	const char *type;
	int ret = -EINVAL;

	if (!colon)
		goto out;
	*colon = '\0';
	type = colon + 1;
	eq = strchr(type, '=');
	if (eq)
		*eq++ = '\0';
	if (!strcmp(type, "n") && !eq)
		ret = 0;
	else if (!eq)
		goto out;
	else if (!strcmp(type, "s") || !strcmp(type, "as"))
		val = json_object_new_string(eq), ret = 0;
	else if (!strcmp(type, "i") || !strcmp(type, "ai"))
		ret = parse_num(eq, 1, &val);
	else if (!strcmp(type, "f"))
		ret = parse_num(eq, 0, &val);
	else if (!strcmp(type, "b") && (!strcmp(eq, "true") || !strcmp(eq, "false")))
		val = json_object_new_boolean(eq[0] == 't'), ret = 0;
	else if (!strcmp(type, "j") || !strcmp(type, "aj"))
		ret = (val = json_tokener_parse(eq)) || !strcmp(eq, "null") ? 0 : -EINVAL;
	else if (!strcmp(type, "J"))
		val = json_object_from_file(eq), ret = 0;
	if (ret)
		goto out;
	parent = parent_of(root, dup, &leaf);
	if (type[0] == 'a') {
		if (!json_object_object_get_ex(parent, leaf, &arr) ||
		    !json_object_is_type(arr, json_type_array)) {
			arr = json_object_new_array();
			json_object_object_add(parent, leaf, arr);
		}
		json_object_array_add(arr, val);
	} else {
		json_object_object_add(parent, leaf, val);
	}
out:
	if (ret)
		fprintf(stderr, "%s: bad argument '%s' (want KEY:TYPE=VALUE)\n", prog, arg);
	free(dup);
	return ret;
}

/* fio may print warnings ahead of the JSON in its output file (client mode prints each
 * server's job lines there, old engines their messages): parse from the first line that
 * starts with '{'. */
static json_object *load_fio_json(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *brace;
	size_t cap = 0, len = 0, n;
	json_object *o = NULL;

	if (!f)
		return NULL;
	do {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536);
			if (!nb)
				goto out;
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	buf[len] = '\0';
	for (brace = buf; *brace && *brace != '{';) {
		char *nl = strchr(brace, '\n');
		brace = nl ? nl + 1 : brace + strlen(brace);
	}
	if (*brace)
		o = json_tokener_parse(brace);
out:
	free(buf);
	fclose(f);
	return o;
}

static double num(json_object *o, const char *a, const char *b)
{
	json_object *x, *y;
	if (!json_object_object_get_ex(o, a, &x))
		return 0;
	if (!b)
		return json_object_get_double(x);
	return json_object_object_get_ex(x, b, &y) ? json_object_get_double(y) : 0;
}

static int cmd_headline(const char *path)
{
	json_object *root = load_fio_json(path), *jobs, *opts, *rw;
	double bytes = 0, iops = 0, lat_sum = 0, lat_ios = 0;
	const char *mode = NULL;
	int nj = 0;

	if (!root) {
		fprintf(stderr, "%s: %s: no fio JSON in it\n", prog, path);
		return 1;
	}
	if (!json_object_object_get_ex(root, "jobs", &jobs) &&
	    !json_object_object_get_ex(root, "client_stats", &jobs)) {
		fprintf(stderr, "%s: %s: no jobs in this fio JSON\n", prog, path);
		json_object_put(root);
		return 1;
	}
	/* rw sits in "global options" when the job file sets it in [global]. */
	if (json_object_object_get_ex(root, "global options", &opts) &&
	    json_object_object_get_ex(opts, "rw", &rw))
		mode = json_object_get_string(rw);
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *name;
		/* Client mode adds an "All clients" sum: count each host once. */
		if (json_object_object_get_ex(j, "jobname", &name) &&
		    !strcmp(json_object_get_string(name), "All clients"))
			continue;
		if (!mode && json_object_object_get_ex(j, "job options", &opts) &&
		    json_object_object_get_ex(opts, "rw", &rw))
			mode = json_object_get_string(rw);
		for (int d = 0; d < 2; d++) {
			json_object *s;
			if (!json_object_object_get_ex(j, d ? "write" : "read", &s))
				continue;
			double n = num(s, "total_ios", NULL);
			bytes += num(s, "bw_bytes", NULL);
			iops += num(s, "iops", NULL);
			lat_sum += num(s, "lat_ns", "mean") * n;
			lat_ios += n;
		}
		nj++;
	}
	if (!nj) {
		fprintf(stderr, "%s: %s: no jobs in this fio JSON\n", prog, path);
		json_object_put(root);
		return 1;
	}
	if (mode && strstr(mode, "rand"))
		printf("%.0f IOPS, %.1f us mean\n", iops, lat_ios ? lat_sum / lat_ios / 1000 : 0);
	else
		printf("%.0f MB/s\n", bytes / 1e6);
	json_object_put(root);
	return 0;
}

/* fio's client mode writes every host's jobs into one "client_stats" array, each entry with
 * the "hostname" and "port" given to --client, and one more "All clients" sum. */
static int cmd_client(const char *path, const char *host, const char *port)
{
	json_object *root = load_fio_json(path), *jobs, *v, *out, *arr;
	size_t n = 0;

	if (!root) {
		fprintf(stderr, "%s: %s: no fio JSON in it\n", prog, path);
		return 1;
	}
	if (!json_object_object_get_ex(root, "client_stats", &jobs) ||
	    !json_object_is_type(jobs, json_type_array)) {
		fprintf(stderr, "%s: %s: not fio client/server output (no client_stats)\n", prog,
			path);
		json_object_put(root);
		return 1;
	}
	out = json_object_new_object();
	arr = json_object_new_array();
	if (json_object_object_get_ex(root, "fio version", &v))
		json_object_object_add(out, "fio version", json_object_get(v));
	if (json_object_object_get_ex(root, "global options", &v))
		json_object_object_add(out, "global options", json_object_get(v));
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *h, *p, *name;
		if (json_object_object_get_ex(j, "jobname", &name) &&
		    !strcmp(json_object_get_string(name), "All clients"))
			continue;
		if (!json_object_object_get_ex(j, "hostname", &h) ||
		    !json_object_object_get_ex(j, "port", &p) ||
		    strcmp(json_object_get_string(h), host) ||
		    strcmp(json_object_get_string(p), port))
			continue;
		json_object_array_add(arr, json_object_get(j));
		n++;
	}
	json_object_object_add(out, "jobs", arr);
	if (n)
		puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		fprintf(stderr, "%s: %s: no results from host %s port %s\n", prog, path, host,
			port);
	json_object_put(out);
	json_object_put(root);
	return n ? 0 : 1;
}

static int cmd_get(const char *path, const char *key)
{
	json_object *o = json_object_from_file(path), *cur = o;
	char *dup = strdup(key), *save = NULL, *tok;
	int ret = 0;
	if (!o) {
		fprintf(stderr, "%s: %s: cannot read it as JSON\n", prog, path);
		free(dup);
		return 1;
	}
	for (tok = strtok_r(dup, ".", &save); tok; tok = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(cur, tok, &cur)) {
			fprintf(stderr, "%s: %s: no key %s\n", prog, path, key);
			ret = 1;
			break;
		}
	if (!ret)
		puts(json_object_is_type(cur, json_type_string)
			 ? json_object_get_string(cur)
			 : json_object_to_json_string_ext(cur, JSON_C_TO_STRING_PLAIN));
	free(dup);
	json_object_put(o);
	return ret;
}

/* fio writes "steadystate": {"attained": 0|1, ...} into each job run with steadystate= */
static int cmd_steadystate(const char *path)
{
	json_object *root = load_fio_json(path), *jobs, *ss, *at;
	int asked = 0, attained = 1;

	if (!root || (!json_object_object_get_ex(root, "jobs", &jobs) &&
		      !json_object_object_get_ex(root, "client_stats", &jobs))) {
		fprintf(stderr, "%s: %s: no fio jobs in it\n", prog, path);
		json_object_put(root);
		return 1;
	}
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i);

		if (!json_object_object_get_ex(j, "steadystate", &ss) ||
		    !json_object_object_get_ex(ss, "attained", &at))
			continue;
		asked = 1;
		attained &= json_object_get_int(at) != 0;
	}
	json_object_put(root);
	if (asked)
		printf("%d\n", attained);
	return !asked;
}

static int run(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "obj")) {
		json_object *o = json_object_new_object();
		for (int i = 2; i < argc; i++)
			if (add_arg(o, argv[i])) {
				json_object_put(o);
				return 1;
			}
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "set")) {
		json_object *o = json_object_from_file(argv[2]);
		if (!o) {
			fprintf(stderr, "%s: %s: cannot read it as JSON\n", prog, argv[2]);
			return 1;
		}
		for (int i = 3; i < argc; i++)
			if (add_arg(o, argv[i])) {
				json_object_put(o);
				return 1;
			}
		int ret = json_object_to_file_ext(
		    argv[2], o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		json_object_put(o);
		if (ret)
			fprintf(stderr, "%s: %s: cannot write it\n", prog, argv[2]);
		return ret ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "headline"))
		return cmd_headline(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "get"))
		return cmd_get(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "steadystate"))
		return cmd_steadystate(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "client"))
		return cmd_client(argv[2], argv[3], argv[4]);
	fprintf(stderr,
		"usage: %s obj KEY:T=VALUE... | set FILE KEY:T=VALUE... | get FILE KEY | headline "
		"FIO_JSON | steadystate FIO_JSON | client FIO_JSON HOST PORT\n",
		prog);
	return 2;
}

/*
 * What went to stdout is the result (run.sh writes run.json and meta.json with it): a
 * stdout that cannot take it (a full disk) fails the command, else the file is silently
 * empty or cut short.
 */
int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write its output: %s\n", prog, strerror(errno));
		return 1;
	}
	return ret;
}
