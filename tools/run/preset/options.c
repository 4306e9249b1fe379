/*
 * options.c - `raid-preset plan`'s options, checked with the engine's own limits (the option
 * table's raid_gpu and raid_gpu_batch ranges, raid_parse_size), the automatic --scale, and
 * `raid-preset limits`: the limits and defaults run.sh's --help names.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/* DESC KEY -> the value of KEY=VALUE in a --target-desc string ('' without) */
static const char *desc_get(const char *desc, const char *key, char *out, size_t len)
{
	size_t l = strlen(key);

	*out = 0;
	for (const char *s = desc; s && *s; s += strcspn(s, " "), s += strspn(s, " "))
		if (!strncmp(s, key, l) && s[l] == '=')
			snprintf(out, len, "%.*s", (int)strcspn(s + l + 1, " "), s + l + 1);
	return out;
}

/* An option's value checked against the engine's option table: its own message on error */
static const char *engine_int(const char *opt, const char *name, const char *v)
{
	const struct raid_option *ro = raid_option_find(name);
	char *end;
	long long n = strtoll(v, &end, 10);

	if (!*v || *end || n < ro->lo || n > ro->hi)
		preset_die("%s must be %s %lld..%lld, not '%s'", opt, ro->unit, ro->lo, ro->hi, v);
	return v;
}

/* min(1, cores/32) rounded down to a power of two: a small machine runs the published
 * thread counts scaled down so that its cores are not swamped */
double auto_scale(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN), s = 1;

	while (cores * s < 32 && s < 1024)
		s *= 2;
	return 1.0 / s;
}

/* plan's options that take one word, and where it goes */
static const struct {
	const char *name;
	size_t off;
} opt_words[] = {
#define W(n, f)                                                                                    \
	{                                                                                          \
		n, offsetof(struct opts, f)                                                        \
	}
    W("--workloads", workloads),
    W("--layout", layout),
    W("--parity", parity),
    W("--only", only),
    W("--drives", drives),
    W("--scratch", scratch),
    W("--host-scratch", host_scratch),
    W("--host-label", host_label),
    W("--results", results),
    W("--engine", engine),
    W("--place", place),
    W("--gpu", gpu),
    W("--gpu-batch", gpu_batch),
    W("--scale", scale_s),
    W("--runtime", runtime_s),
    W("--member-size", msize_s),
    W("--target", targets_s),
    W("--repeat", repeat_s),
    W("--md-bitmap", md_bitmap),
    W("--md-consistency", md_consistency),
    W("--md-stripe-cache", md_knob[0]),
    W("--md-threads", md_knob[1]),
    W("--md-sync-min", md_knob[2]),
    W("--md-sync-max", md_knob[3]),
    W("--precondition", precond_s),
    W("--steadystate", steady_s),
#undef W
};

/* md's own limits for its knobs (md(4): stripe_cache_size 17..32768; sync speeds in MB/s) */
static void md_knobs(const struct opts *o)
{
	static const struct {
		const char *opt;
		long long lo, hi; /* hi 0: none */
	} k[] = {{"--md-stripe-cache", 17, 32768},
		 {"--md-threads", 0, 8192},
		 {"--md-sync-min", 1, 0},
		 {"--md-sync-max", 1, 0}};

	for (int i = 0; i < 4; i++) {
		const char *v = o->md_knob[i];
		char hi[32] = "";

		if (!v)
			continue;
		if (k[i].hi)
			snprintf(hi, sizeof(hi), "%lld", k[i].hi);
		if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 15 ||
		    atoll(v) < k[i].lo || (k[i].hi && atoll(v) > k[i].hi))
			preset_die("%s must be a whole number %lld..%s, not '%s'", k[i].opt,
				   k[i].lo, hi, v);
	}
	if (o->md_knob[2] && o->md_knob[3] && atoll(o->md_knob[2]) > atoll(o->md_knob[3]))
		preset_die("--md-sync-min (%s) is above --md-sync-max (%s)", o->md_knob[2],
			   o->md_knob[3]);
}

void parse_opts(struct opts *o, int argc, char **argv)
{
	const char *scale, *runtime, *msize, *targets;

	for (int i = 0; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--fit") || !strcmp(k, "--reuse")) {
			*(k[2] == 'f' ? &o->fit : &o->reuse) = true;
			continue;
		}
		if (!v)
			preset_die("%s needs a value", k);
		i++;
		if (!strcmp(k, "--dev")) { /* --dev LABEL DESC */
			struct dev *d = &o->devs[o->ndevs];

			if (i + 1 >= argc || o->ndevs == MAX_DEVS)
				preset_die("--dev LABEL DESC, at most %d", MAX_DEVS);
			snprintf(d->label, sizeof(d->label), "%s", v);
			desc_get(argv[++i], "level", d->level, sizeof(d->level));
			desc_get(argv[i], "members", d->members, sizeof(d->members));
			desc_get(argv[i], "chunk", d->chunk, sizeof(d->chunk));
			o->ndevs++;
			continue;
		}
		const char **dst = NULL;

		for (size_t j = 0; j < sizeof(opt_words) / sizeof(opt_words[0]); j++)
			if (!strcmp(k, opt_words[j].name))
				dst = (const char **)((char *)o + opt_words[j].off);
		if (!dst)
			preset_die("plan: unknown option '%s'", k);
		*dst = v;
	}
	scale = o->scale_s, runtime = o->runtime_s, msize = o->msize_s;
	targets = o->targets_s ? o->targets_s : "engine";
	if (!o->workloads)
		preset_die("plan: --workloads DIR is required");
	if (o->parity && strcmp(o->parity, "cpu") && strcmp(o->parity, "cuda") &&
	    strcmp(o->parity, "auto"))
		preset_die("--parity must be cpu, cuda or auto, not '%s'", o->parity);
	if (runtime && (strspn(runtime, "0123456789") != strlen(runtime) || atoll(runtime) < 1))
		preset_die("--runtime must be a whole number of seconds, not '%s'", runtime);
	o->runtime = runtime ? strtoull(runtime, NULL, 10) : 0;
	if (o->repeat_s) {
		char *end;

		o->repeat = strtol(o->repeat_s, &end, 10);
		if (!*o->repeat_s || *end || o->repeat < 1 || o->repeat > MAX_REPEAT)
			preset_die("--repeat must be a whole number 1..%d, not '%s'", MAX_REPEAT,
				   o->repeat_s);
	}
	if (o->gpu)
		engine_int("--gpu", "raid_gpu", o->gpu);
	if (o->gpu_batch)
		engine_int("--gpu-batch", "raid_gpu_batch", o->gpu_batch);
	md_knobs(o);
	o->scale = auto_scale();
	if (scale) {
		char *end;

		o->scale = strtod(scale, &end);
		if (!*scale || *end || !(o->scale > 0 && o->scale <= 1))
			preset_die("--scale must be a number in (0, 1], not '%s'", scale);
	}
	if (msize) {
		o->msize = size_of("--member-size", msize);
		if (o->msize < MIB)
			preset_die("--member-size must be at least 1M");
		o->member_size_given = true;
		check_drive_sizes(o, msize);
	}
	for (char *t = strtok(xstrdup(targets), ","); t; t = strtok(NULL, ","))
		if (o->ntargets < 8)
			snprintf(o->targets[o->ntargets++], sizeof(o->targets[0]), "%s", t);
}

/* The engine's limits and defaults that run.sh's help and checks name */
int limits_main(void)
{
	const char *names[] = {"raid_gpu", "raid_gpu_batch", "raid_rebuild_min",
			       "raid_rebuild_max"};

	printf("scale_auto=%g\n", auto_scale());
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct raid_option *ro = raid_option_find(names[i]);

		printf("%s_default=%s\n%s_max=%lld\n", names[i] + 5, ro->def, names[i] + 5, ro->hi);
	}
	return 0;
}
