/*
 * drives.c - the plan's members on bays: a row's bays and spares, and what --drives can
 * hold: too few drives refused naming the arrays (each with the drives it needs), or with
 * --fit each array kept on the bays there are and named by its new member count; a drive
 * smaller than --member-size refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/* "a,b,c" item i (0-based) into out; false past the end */
bool list_nth(const char *list, int i, char *out, size_t len)
{
	for (; list && i > 0; i--)
		list = (list = strchr(list, ',')) ? list + 1 : NULL;
	if (!list || !*list)
		return false;
	snprintf(out, len, "%.*s", (int)strcspn(list, ","), list);
	return true;
}

int list_count(const char *list)
{
	int n = 0;
	char tmp[PATH_MAX];

	while (list && list_nth(list, n, tmp, sizeof(tmp)))
		n++;
	return n;
}

/* The bays of an array (plan row form "0,1,2+4,5"): members, spares */
void split_bays(const struct inst *a, const char *state, char *bays, size_t blen, char *spares,
		size_t slen)
{
	const char *plus = strchr(a->bays, '+');

	snprintf(bays, blen, "%.*s", plus ? (int)(plus - a->bays) : (int)strlen(a->bays), a->bays);
	snprintf(spares, slen, "%s", plus ? plus + 1 : "");
	if (!strcmp(bays, "-")) {
		size_t o = 0;

		for (int i = 0; i < a->members && o < blen; i++)
			o += snprintf(bays + o, blen - o, "%s%d", i ? "," : "", i);
	}
	/* a rebuild needs a spare: the bay after the members */
	if (!*spares && !strcmp(state, "rebuilding"))
		snprintf(spares, slen, "%d", a->members);
}

int max_bay(const char *list)
{
	int m = -1;

	for (const char *s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (atoi(s) > m)
			m = atoi(s);
	return m;
}

/* A count in a name ("raid5-4m", "jbod-4") said again for what runs ("raid5-3m"): the
 * '-'-separated word N or Nm of the planned count, else "-Nm" added. */
static void rename_count(char *name, size_t len, int planned, int now)
{
	char w1[16], w2[16], out[256];
	size_t o = 0;
	bool done = false;

	snprintf(w1, sizeof(w1), "%d", planned);
	snprintf(w2, sizeof(w2), "%dm", planned);
	for (char *s = name; *s;) {
		size_t l = strcspn(s, "-");

		if (!done && ((l == strlen(w1) && !strncmp(s, w1, l)) ||
			      (l == strlen(w2) && !strncmp(s, w2, l)))) {
			o += snprintf(out + o, sizeof(out) - o, "%d%s", now,
				      s[l - 1] == 'm' ? "m" : "");
			done = true;
		} else {
			o += snprintf(out + o, sizeof(out) - o, "%.*s", (int)l, s);
		}
		s += l;
		if (*s == '-')
			o += snprintf(out + o, sizeof(out) - o, "%c", *s++);
	}
	if (!done)
		snprintf(out + o, sizeof(out) - o, "-%dm", now);
	if (strlen(out) >= len)
		preset_die("--fit: the name '%s' is too long", out);
	memcpy(name, out, strlen(out) + 1);
}

/*
 * --fit: an array over bays that are not all there keeps the bays that are (its spares too),
 * is named by its new count, and is left out below the level's minimum; 1 when it runs.
 */
static bool fit_row(struct row *r, int drives)
{
	char bays[LINE_MAX_], spares[LINE_MAX_], nb[LINE_MAX_] = "", ns[LINE_MAX_] = "";
	size_t ob = 0, os = 0;
	int n = 0, want = r->a.members, min = 1, nspares = 0;
	bool rebuild = !strcmp(r->state, "rebuilding");

	split_bays(&r->a, r->state, bays, sizeof(bays), spares, sizeof(spares));
	if (max_bay(bays) < drives && max_bay(spares) < drives)
		return true;
	if (!is_jbod(&r->a))
		min = level_of(r->a.level).min_members;
	for (int i = 0; i < list_count(spares); i++) {
		char b[16];

		list_nth(spares, i, b, sizeof(b));
		if (atoi(b) < drives && (!rebuild || nspares == 0))
			os += snprintf(ns + os, sizeof(ns) - os, "%s%s", os ? "," : "", b),
			    nspares++;
	}
	for (int i = 0; i < list_count(bays); i++) {
		char b[16];

		list_nth(bays, i, b, sizeof(b));
		/* a rebuild's spare is its own drive: the last one there when none is left */
		if (atoi(b) >= drives || (rebuild && !nspares && atoi(b) == drives - 1))
			continue;
		ob += snprintf(nb + ob, sizeof(nb) - ob, "%s%s", ob ? "," : "", b), n++;
	}
	if (rebuild && !nspares && drives > 0)
		snprintf(ns, sizeof(ns), "%d", drives - 1), nspares = 1;
	if (n < min || (rebuild && !nspares)) {
		static char told[LINE_MAX_];
		char key[sizeof(r->a.name) + sizeof(r->state) + 3];

		/* once per array and state: its other states may fit (a rebuild needs a spare) */
		snprintf(key, sizeof(key), " %s@%s ", r->a.name, r->state);
		if (strstr(told, key) || strlen(told) + strlen(key) >= sizeof(told))
			return false;
		strcat(told, key);
		fprintf(stderr, "%s: --fit: %s's %s tests need %d drives, %d given: left out\n",
			prog, r->a.name, r->state,
			max_bay(bays) > max_bay(spares) ? max_bay(bays) + 1 : max_bay(spares) + 1,
			drives);
		return false;
	}
	rename_count(r->a.name, sizeof(r->a.name), want, n);
	snprintf(r->a.bays, sizeof(r->a.bays), "%s%s%s", nb, *ns ? "+" : "", ns);
	r->a.members = n;
	return true;
}

/* The drives an array needs: its highest bay, member or spare, plus one */
static int drives_needed(const struct row *r)
{
	char bays[LINE_MAX_], spares[LINE_MAX_];

	split_bays(&r->a, r->state, bays, sizeof(bays), spares, sizeof(spares));
	return (max_bay(bays) > max_bay(spares) ? max_bay(bays) : max_bay(spares)) + 1;
}

/* The preset's name: its file's, without the folder and .preset */
const char *preset_name(const struct preset *p, char *out, size_t len)
{
	const char *b = strrchr(p->file, '/') ? strrchr(p->file, '/') + 1 : p->file;

	snprintf(out, len, "%.*s", (int)strcspn(b, "."), b);
	return out;
}

/* Arrays over more drives than --drives gave: refused, naming each with the drives it needs
 * (its most demanding test: a rebuild needs a spare), unless --fit */
void check_drives(struct plan *pl, const struct preset *p, const struct opts *o)
{
	char bad[LINE_MAX_] = "", name[128];
	size_t b = 0;
	int d = list_count(o->drives), kept = 0;

	for (int i = 0; i < pl->nrows; i++) {
		int m = 0, first = i;

		for (int k = 0; k < pl->nrows; k++)
			if (!strcmp(pl->rows[k].a.name, pl->rows[i].a.name)) {
				m = drives_needed(&pl->rows[k]) > m ? drives_needed(&pl->rows[k])
								    : m;
				first = k < first ? k : first;
			}
		if (m > d && first == i && b + 160 < sizeof(bad))
			b += snprintf(bad + b, sizeof(bad) - b, " %s (%d),", pl->rows[i].a.name, m);
	}
	if (!*bad)
		return;
	if (!o->fit) {
		bad[b - 1] = 0;
		preset_die(
		    "--drives: %d given, too few for preset %s's arrays (drives each needs):%s; "
		    "--fit runs them on the drives there are",
		    d, preset_name(p, name, sizeof(name)), bad);
	}
	for (int i = 0; i < pl->nrows; i++)
		if (fit_row(&pl->rows[i], d))
			pl->rows[kept++] = pl->rows[i];
	pl->nrows = kept;
}

/* --member-size on drives: each drive holds at least that much */
void check_drive_sizes(const struct opts *o, const char *given)
{
	char d[PATH_MAX];

	for (int i = 0; o->drives && list_nth(o->drives, i, d, sizeof(d)); i++) {
		uint64_t bytes = 0;
		int fd = open(d, O_RDONLY);

		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes))
			preset_die("--drives: %s: %s", d, strerror(errno));
		close(fd);
		if (bytes < o->msize)
			preset_die("--drives: %s holds %llu bytes, less than --member-size %s", d,
				   (unsigned long long)bytes, given);
	}
}
