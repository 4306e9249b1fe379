/* report/model/profile.c: the facts a projection needs besides the run: a host profile
 * (hw-profiles/NAME.json, a file, or this machine's from raid-hwinfo), the one the run was
 * made with, and the run's parity-bench.json. Files are found beside the binary's checkout
 * (build/bin/../..), like the published figures. */
#include "report/model/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rr_exe_dir(char *buf, size_t len, int up)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (int i = 0; i < up; i++) {
		char *s = strrchr(buf, '/');
		if (s)
			*s = '\0';
	}
	return buf;
}

/* A profile by file, by name in hw-profiles/ of this checkout (build/bin/../../hw-profiles),
 * or "host": raid-hwinfo host-profile of this machine. NULL with err set when none. */
json_object *rr_profile_load(const char *name, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 128];
	struct stat st;
	json_object *o = NULL;
	if (!name || !*name)
		return NULL;
	if (!strcmp(name, "host")) {
		if (!rr_exe_dir(dir, sizeof(dir), 1))
			return NULL;
		snprintf(path, sizeof(path), "%s/raid-hwinfo host-profile 2>/dev/null", dir);
		FILE *p = popen(path, "r");
		if (p) {
			char buf[1 << 16];
			size_t n = fread(buf, 1, sizeof(buf) - 1, p);
			buf[n] = '\0';
			pclose(p);
			o = json_tokener_parse(buf);
		}
		if (!o && err)
			snprintf(err, errlen, "--profile host: %s/raid-hwinfo host-profile failed",
				 dir);
		return o;
	}
	if (stat(name, &st) == 0) {
		snprintf(path, sizeof(path), "%s", name);
	} else if (rr_exe_dir(dir, sizeof(dir), 3)) {
		snprintf(path, sizeof(path), "%s/hw-profiles/%s.json", dir, name);
		if (stat(path, &st) != 0) {
			if (err)
				snprintf(
				    err, errlen,
				    "--profile %s: not a file, not hw-profiles/%s.json, not 'host'",
				    name, name);
			return NULL;
		}
	}
	char quiet[256];
	return rr_json_load(path, err ? err : quiet, err ? errlen : sizeof(quiet));
}

/* The host a run's preset reproduces: the profile run.sh used (run.json profile.content),
 * when it is a reviewed host's and not a generated one. NULL: none. */
json_object *rr_profile_of_run(const struct rr_run *run)
{
	json_object *prof = rr_jget(run->run_json, "profile");
	json_object *c = rr_jget(prof, "content");
	if (!c || !strcmp(rr_jstr(rr_jget(prof, "name")), "host") ||
	    !strcmp(rr_jstr(rr_jget(c, "name")), "host"))
		return NULL;
	return json_object_get(c);
}

/* The parity bench's rates per core that run.sh records (raid-parity-bench --json); NULL
 * when the run has none, with a warning when the file is there but not the bench's. */
json_object *rr_bench_load(const struct rr_run *run)
{
	char *path;
	if (asprintf(&path, "%s/parity-bench.json", run->dir) < 0)
		abort();
	json_object *b = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "raid-report: warning: %s: not a regular file, left out\n", path);
	} else if (access(path, R_OK) == 0) {
		FILE *f = fopen(path, "r");
		if (f) {
			char *buf = NULL;
			size_t cap = 0;
			ssize_t n = getdelim(&buf, &cap, '\0', f);
			fclose(f);
			/* the bench prints one JSON array; the report loader wants objects */
			const char *s = n > 0 ? strchr(buf, '[') : NULL;
			b = s ? json_tokener_parse(s) : NULL;
			free(buf);
		}
		char at[256] = "";
		if (!b || !json_object_is_type(b, json_type_array) ||
		    !rr_json_finite(b, at, sizeof(at))) {
			fprintf(stderr, "raid-report: warning: %s: not the bench's JSON array\n",
				path);
			json_object_put(b);
			b = NULL;
		}
	}
	free(path);
	return b;
}
