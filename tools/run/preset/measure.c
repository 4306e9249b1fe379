/*
 * measure.c - how a test is measured beyond its job file: md's write-intent bitmap and
 * consistency policy (docs/md.md, "Bitmap and consistency policy"), resolved here as mdadm
 * itself would choose them so that the plan says what each md array runs with; and the
 * preset's `precondition` and `steadystate` lines with run.sh's forcing (docs/presets.md,
 * "Preconditioning and steady state"), which apply on block devices only.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/*
 * mdadm 4.2 (Create.c, Create(): the test before "automatically enabling write-intent bitmap
 * on large array") adds an internal bitmap when no --bitmap is given, the level is 1 or
 * above, the metadata is md's own, there is no journal, no consistency policy was asked for,
 * and the component size (--size, else the smallest member's usable size, in KiB) is over
 * 100 GiB. mdadm(8) says the same: "devices which are 100G or larger".
 */
#define MDADM_AUTO_BITMAP_KIB (100ULL * 1024 * 1024)

/* A whole number of seconds, or die naming the preset line */
static unsigned long long seconds(const struct preset *p, int line, const char *what,
				  const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	if (!isdigit((unsigned char)*v) || (*end && strcmp(end, "s")))
		preset_die("%s:%d: %s: '%s' is not a whole number of seconds", p->file, line, what,
			   v);
	return n;
}

/* precondition [fill=N] [random=SECONDS | random=Nx] */
static void parse_precond(const struct preset *p, struct measure *m)
{
	m->fill = m->rand_x = 0, m->rand_s = 0; /* the line says all that is written */
	for (int i = 0; i < p->precond.n; i++) {
		const char *w = p->precond.w[i];
		char *end;

		if (!strncmp(w, "fill=", 5)) {
			m->fill = strtol(w + 5, &end, 10);
			if (!isdigit((unsigned char)w[5]) || *end || m->fill > 100)
				preset_die("%s:%d: precondition: fill=N (passes, 0..100), not '%s'",
					   p->file, p->precond_line, w);
		} else if (!strncmp(w, "random=", 7) && w[strlen(w) - 1] == 'x') {
			m->rand_x = strtol(w + 7, &end, 10), m->rand_s = 0;
			if (!isdigit((unsigned char)w[7]) || strcmp(end, "x") || m->rand_x > 100)
				preset_die(
				    "%s:%d: precondition: random=Nx (volumes, 0..100), not '%s'",
				    p->file, p->precond_line, w);
		} else if (!strncmp(w, "random=", 7)) {
			m->rand_s = seconds(p, p->precond_line, "precondition random", w + 7);
			m->rand_x = 0;
		} else {
			preset_die("%s:%d: precondition: '%s': expected fill=N, random=SECONDS or "
				   "random=Nx",
				   p->file, p->precond_line, w);
		}
	}
	if (!m->fill && !m->rand_s && !m->rand_x)
		preset_die("%s:%d: precondition: nothing to write (fill=0 and no random=)", p->file,
			   p->precond_line);
}

/* steadystate CRITERION window=S [ramp=S] [max=S]; CRITERION as fio's steadystate= takes it */
static void parse_steady(const struct preset *p, struct measure *m)
{
	static const char *const kinds[] = {"iops:", "iops_slope:", "bw:", "bw_slope:"};
	const struct words *w = &p->steady;
	bool ok = false;

	if (w->n < 2)
		preset_die("%s:%d: steadystate CRITERION window=S [ramp=S] [max=S]", p->file,
			   p->steady_line);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strncmp(w->w[0], kinds[k], strlen(kinds[k]))) {
			const char *v = w->w[0] + strlen(kinds[k]);
			char *end;

			strtod(v, &end);
			ok = end != v && (!*end || !strcmp(end, "%")) && strlen(w->w[0]) < 64;
		}
	if (!ok)
		preset_die(
		    "%s:%d: steadystate: '%s' is not fio's criterion (iops, iops_slope, bw or "
		    "bw_slope, ':' and a limit, e.g. iops_slope:10%%)",
		    p->file, p->steady_line, w->w[0]);
	snprintf(m->criterion, sizeof(m->criterion), "%s", w->w[0]);
	m->window = m->ramp = m->max = 0;
	for (int i = 1; i < w->n; i++) {
		const char *s = w->w[i];
		unsigned long long *dst = !strncmp(s, "window=", 7) ? &m->window
					  : !strncmp(s, "ramp=", 5) ? &m->ramp
					  : !strncmp(s, "max=", 4)  ? &m->max
								     : NULL;

		if (!dst)
			preset_die("%s:%d: steadystate: '%s': expected window=, ramp= or max=",
				   p->file, p->steady_line, s);
		*dst = seconds(p, p->steady_line, "steadystate", strchr(s, '=') + 1);
	}
	/* fio 3.33 writes a one-second window's slope as -nan, which is not JSON */
	if (m->window < 2)
		preset_die("%s:%d: steadystate: window=S (seconds, at least 2) is required",
			   p->file, p->steady_line);
}

static bool on_off(const char *opt, const char *v, bool dflt)
{
	if (!v)
		return dflt;
	if (strcmp(v, "on") && strcmp(v, "off"))
		preset_die("%s must be on or off, not '%s'", opt, v);
	return v[1] == 'n';
}

/*
 * The run's md policy options, checked, and its preconditioning and steady state: the
 * preset's lines, forced on (with the defaults below where the preset has no line) or off by
 * run.sh's --precondition / --steadystate. o->runtime is known.
 */
void measure_setup(const struct preset *p, struct opts *o)
{
	struct measure *m = &o->m;

	if (o->md_bitmap && strcmp(o->md_bitmap, "none") && strcmp(o->md_bitmap, "internal") &&
	    strcmp(o->md_bitmap, "auto"))
		preset_die("--md-bitmap must be none, internal or auto, not '%s'", o->md_bitmap);
	if (o->md_consistency && strcmp(o->md_consistency, "resync") &&
	    strcmp(o->md_consistency, "ppl"))
		preset_die("--md-consistency must be resync or ppl, not '%s'", o->md_consistency);
	/* md keeps one of the two in the space by its superblock (md(4), "PPL") */
	if (o->md_bitmap && !strcmp(o->md_bitmap, "internal") && o->md_consistency &&
	    !strcmp(o->md_consistency, "ppl"))
		preset_die(
		    "--md-bitmap internal and --md-consistency ppl exclude each other: md keeps "
		    "either a write-intent bitmap or a partial parity log");

	/* forced on without a line: one sequential pass, one volume of random writes; IOPS
	 * slope within 10% over a window of the run's runtime (at least 2 s), up to 5 windows */
	*m = (struct measure){.fill = 1, .rand_x = 1, .window = o->runtime < 2 ? 2 : o->runtime};
	snprintf(m->criterion, sizeof(m->criterion), "iops_slope:10%%");
	if (p->precond_line)
		parse_precond(p, m);
	if (p->steady_line)
		parse_steady(p, m);
	if (!m->max)
		m->max = m->ramp + 5 * m->window;
	m->precond = on_off("--precondition", o->precond_s, p->precond_line != 0);
	m->steady = on_off("--steadystate", o->steady_s, p->steady_line != 0);
}

/* A test's members are block devices: --drives (every target), or a dev: volume */
bool on_block(const struct opts *o, const char *target)
{
	return o->drives || !strncmp(target, "dev:", 4);
}

/* The plan header's word for preconditioning or steady state: off (not asked), on, or
 * files (asked, and some tests' members are files, which skip it: run.sh says so once) */
const char *measure_state(const struct opts *o, bool steady, bool files)
{
	if (!(steady ? o->m.steady : o->m.precond))
		return "off";
	return files ? "files" : "on";
}

/*
 * An md test's --bitmap and consistency policy. ppl is RAID5's alone (md(4)): other levels
 * keep resync under --md-consistency ppl. auto is mdadm's own choice for this component size
 * (above); the plan passes it explicitly, so md runs what the plan says either way.
 */
void md_policy(const struct opts *o, const struct raid_level_info *l,
	       unsigned long long component_kib, const char **bitmap, const char **consistency)
{
	const char *b = o->md_bitmap ? o->md_bitmap : "auto";
	bool ppl = o->md_consistency && !strcmp(o->md_consistency, "ppl") && l->level == 5;

	if (l->max_failed == 0) { /* RAID0: nothing to keep consistent, no bitmap */
		*bitmap = "none", *consistency = "none";
		return;
	}
	*consistency = ppl ? "ppl" : "resync";
	if (!strcmp(b, "auto"))
		b = !ppl && component_kib > MDADM_AUTO_BITMAP_KIB ? "internal" : "none";
	*bitmap = b;
}
