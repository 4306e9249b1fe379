/*
 * checks.c - run.sh's checks of its own options, one error line each naming the option:
 *
 *   raid-preset targets LIST NDESC HOSTS   --target LIST (engine, md, ublk, dev:PATH[=LABEL]),
 *                                          NDESC --target-desc given, HOSTS non-empty with
 *                                          --hosts/--hosts-file: one line a target, "TARGET
 *                                          LABEL PATH" separated by 0x1f (dev: by its label)
 *   raid-preset devices WHAT PATH...       each PATH an attached block device (a medium, a
 *                                          size), none twice (a link is the device it names)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "preset.h"

int targets_main(int argc, char **argv)
{
	char *list, seen[64][PATH_MAX + 8];
	int n = 0, ndev = 0;

	if (argc != 3)
		preset_die("usage: targets LIST NDESC HOSTS");
	list = xstrdup(argv[0]);
	/* as run.sh split it: empty entries are kept (and refused), a last empty one dropped */
	if (!*list)
		preset_die("--target needs a list: engine, ublk, md, dev:PATH[=LABEL]");
	if (strlen(list) > 1 && list[strlen(list) - 1] == ',')
		list[strlen(list) - 1] = 0;
	for (char *t = list, *next; t; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = 0;
		char name[PATH_MAX + 8], path[PATH_MAX] = "", label[PATH_MAX] = "";

		if (!strcmp(t, "engine") || !strcmp(t, "md") || !strcmp(t, "ublk")) {
			snprintf(name, sizeof(name), "%s", t);
		} else if (!strncmp(t, "dev:", 4)) {
			const char *p = t + 4, *eq = strchr(p, '='), *slash;

			snprintf(path, sizeof(path), "%.*s", (int)(eq ? eq - p : (int)strlen(p)),
				 p);
			slash = strrchr(path, '/');
			snprintf(label, sizeof(label), "%s",
				 eq	 ? eq + 1
				 : slash ? slash + 1
					 : path);
			if (!*path)
				preset_die("--target %s: no path (dev:/dev/md0[=LABEL])", t);
			if (!plain(label) || strchr(label, '+'))
				preset_die(
				    "--target %s: label '%s' may hold only letters, digits, '_', "
				    "'.' and '-'",
				    t, label);
			snprintf(name, sizeof(name), "dev:%s", label);
			ndev++;
		} else {
			preset_die(
			    "--target: unknown target '%s' (engine, ublk, md, dev:PATH[=LABEL])",
			    t);
		}
		for (int i = 0; i < n; i++)
			if (!strcmp(seen[i], name))
				preset_die("--target: '%s' is listed twice", name);
		if (n == 64)
			preset_die("--target: more than 64 targets");
		snprintf(seen[n++], sizeof(seen[0]), "%s", name);
		printf("%s\x1f%s\x1f%s\n", name, label, path);
	}
	if (atoi(argv[1]) > ndev)
		preset_die("--target-desc given %d times for %d dev: targets", atoi(argv[1]), ndev);
	/* fio's servers take job files only: nothing there could make an md array, attach a loop
	 * device, check a volume for data or tear any of it down after a Ctrl-C */
	if (*argv[2] && (n != 1 || strcmp(seen[0], "engine")))
		preset_die(
		    "--target %s: not with --hosts/--hosts-file: a host's fio server runs job "
		    "files only, so md arrays and dev: volumes cannot be made or checked there "
		    "(run run.sh --target md on each host)",
		    argv[0]);
	free(list);
	return 0;
}

int devices_main(int argc, char **argv)
{
	const char *what = argv[0];
	dev_t *seen = calloc(argc > 0 ? argc : 1, sizeof(*seen));

	if (argc < 1 || !seen)
		preset_die("usage: devices WHAT PATH...");
	for (int i = 1; i < argc; i++) {
		const char *d = argv[i];
		char sys[64], buf[64] = "";
		struct stat st;
		FILE *f;

		if (!*d)
			preset_die("%s: an empty entry in the list", what);
		if (stat(d, &st) || !S_ISBLK(st.st_mode))
			preset_die("%s: %s is not a block device", what, d);
		for (int k = 1; k < i; k++)
			if (seen[k] == st.st_rdev)
				preset_die("%s: %s and %s are the same device (%u:%u)", what, d,
					   argv[k], major(st.st_rdev), minor(st.st_rdev));
		seen[i] = st.st_rdev;
		/* an unattached loop device (or a bay without its medium) exists but has no size */
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/size", major(st.st_rdev),
			 minor(st.st_rdev));
		f = fopen(sys, "r");
		if (!f || !fgets(buf, sizeof(buf), f) || strtoull(buf, NULL, 10) == 0)
			preset_die("%s: %s has no medium (size 0: a loop device with no file "
				   "attached?)",
				   what, d);
		fclose(f);
	}
	free(seen);
	return 0;
}
