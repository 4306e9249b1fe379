/* report/render/out.c: the output files of a run: created beside its results, and closed with
 * the write's failure (a full disk) reported rather than lost. */
#include "report/render/render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rr_mkdir(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

FILE *rr_out_open(const struct rr_run *run, const char *name, char *err, size_t errlen)
{
	char *path;
	if (asprintf(&path, "%s/%s", run->dir, name) < 0)
		abort();
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	free(path);
	return f;
}

/* A write that failed before the last flush (a full disk mid-file) sets the stream's error
 * flag, and fclose may still succeed: both are checked. */
int rr_close(FILE *f)
{
	int bad = ferror(f);
	return fclose(f) || bad ? -EIO : 0;
}

int rr_out_close(FILE *f, const struct rr_run *run, const char *name, char *err, size_t errlen)
{
	if (rr_close(f) == 0)
		return 0;
	snprintf(err, errlen, "%s/%s: write failed", run->dir, name);
	return -EIO;
}
