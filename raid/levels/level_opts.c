/*
 * level_opts.c - the rows of the option table this part owns (level_opts.h), each pointing
 * into this part's own options struct, with their checks across options and the parity
 * path's and the GPU's figures in the stats file (the GPU's options, raid_gpu*, are this
 * part's). Registered with the core by raid_levels_register().
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "core/core.h"
#include "level_opts.h"

#define IN_L(f) RAID_OPT_IN(struct level_opts, f)
#define IN_P(f) RAID_OPT_IN(struct parity_opts, f)

static const struct raid_opt_value parity_values[] = {
    {"cpu", RAID_PARITY_CPU, "our SIMD library"},
    {"isal", RAID_PARITY_ISAL, "ISA-L"},
    {"cuda", RAID_PARITY_CUDA, "GPU"},
    {"auto", RAID_PARITY_AUTO, "the GPU if usable, else cpu"},
    {NULL, 0, NULL},
};
static const struct raid_opt_value rmw_values[] = {
    {"auto", RAID_RMW_AUTO, "fewer reads, as md's rmw_level=1"},
    {"rmw", RAID_RMW_RMW, "read-modify-write"},
    {"rcw", RAID_RMW_RCW, "reconstruct-write"},
    {NULL, 0, NULL},
};
static const struct raid_opt_value gpu_mode_values[] = {
    {"copy", 0, "to device memory, streams overlap copy and compute"},
    {"mapped", 1, "zero-copy"},
    {NULL, 0, NULL},
};

/* .after: the README's order, which the table keeps (core/options.h) */
static const struct raid_option level_rows[] = {
    {.name = "raid_rmw",
     .type = RAID_OPT_ENUM,
     .part = "levels",
     .help = "how RAID 5/6 partial-stripe writes update parity",
     .def = "auto",
     .values = rmw_values,
     IN_L(rmw),
     .after = "raid_stats"},
    {.name = "raid_stripe_cache",
     .type = RAID_OPT_INT,
     .part = "levels",
     .help = "RAID 5/6 stripe slices (a stripe's 64 KiB of columns) in flight at most "
	     "(md's stripe_cache_size)",
     .def = "4096",
     .lo = 1,
     .hi = 1 << 20,
     .unit = "a stripe count",
     IN_L(stripe_cache),
     .after = "raid_rmw"},
    {.name = "raid_workers",
     .type = RAID_OPT_INT,
     .part = "levels",
     .help = "parity worker threads; 0: parity in the fio job threads",
     .def = "0",
     .lo = 0,
     .hi = RAID_WORKERS_MAX,
     .unit = "a thread count",
     IN_L(workers),
     .after = "raid_stripe_cache"},
    {.name = NULL},
};

static const struct raid_option parity_rows[] = {
    {.name = "raid_parity",
     .type = RAID_OPT_ENUM,
     .part = "parity",
     .help = "the parity path of RAID 5/6",
     .def = "cpu",
     .values = parity_values,
     IN_P(parity),
     .after = "raid_null_delay"},
    {.name = "raid_gpu",
     .type = RAID_OPT_INT,
     .part = "parity",
     .help = "CUDA device index, with raid_parity=cuda or auto",
     .def = "0",
     .lo = 0,
     .hi = RAID_GPU_MAX,
     .unit = "a CUDA device index",
     IN_P(gpu),
     .after = "raid_workers"},
    {.name = "raid_gpu_batch",
     .type = RAID_OPT_INT,
     .part = "parity",
     .help = "most stripes one GPU launch carries (a batch also goes at every commit), with "
	     "raid_parity=cuda or auto",
     .def = "64",
     .lo = 1,
     .hi = RAID_GPU_BATCH_MAX,
     .unit = "a stripe count",
     IN_P(gpu_batch),
     .after = "raid_gpu"},
    {.name = "raid_gpu_mode",
     .type = RAID_OPT_ENUM,
     .part = "parity",
     .help = "GPU data path, with raid_parity=cuda or auto",
     .def = "copy",
     .values = gpu_mode_values,
     IN_P(gpu_mapped),
     .after = "raid_gpu_batch"},
    {.name = NULL},
};

/* the GPU's options apply only where a GPU may compute */
static int parity_validate(const struct raid_config *c, const struct raid_level_ops *ops, char *err,
			   size_t errlen)
{
	static const char *const gpu_only[] = {"raid_gpu", "raid_gpu_batch", "raid_gpu_mode"};
	const struct parity_opts *p = parity_opts(c);

	(void)ops;
	if (p->parity != RAID_PARITY_CUDA && p->parity != RAID_PARITY_AUTO)
		for (size_t i = 0; i < sizeof(gpu_only) / sizeof(gpu_only[0]); i++)
			if (raid_option_given(c, gpu_only[i])) {
				snprintf(err, errlen,
					 "raid: %s applies only with raid_parity=cuda or auto",
					 gpu_only[i]);
				return -EINVAL;
			}
	return 0;
}

/* the GPU's figures (raid_gpu*: this part's options); null unless a GPU computes parity */
static json_object *gpu_obj(const struct raid_array *a, const struct raid_counters *t)
{
	json_object *x;

	if (!a->gpu)
		return NULL;
	x = json_object_new_object();
	json_object_object_add(x, "device", json_object_new_int(a->gpu->device));
	json_object_object_add(x, "name", json_object_new_string(a->gpu->desc));
	json_object_object_add(x, "mode",
			       json_object_new_string(a->gpu->mapped ? "mapped" : "copy"));
	json_object_object_add(x, "batch", json_object_new_int(a->gpu->batch));
	json_object_object_add(x, "launches", json_object_new_int64((int64_t)t->gpu_launches));
	json_object_object_add(x, "stripes", json_object_new_int64((int64_t)t->gpu_stripes));
	json_object_object_add(
	    x, "stripes_per_launch",
	    json_object_new_double(t->gpu_launches ? (double)t->gpu_stripes / t->gpu_launches : 0));
	json_object_object_add(x, "cpu_stripes",
			       json_object_new_int64((int64_t)t->gpu_cpu_stripes));
	json_object_object_add(x, "inplace_stripes",
			       json_object_new_int64((int64_t)t->gpu_inplace_stripes));
	return x;
}

static void parity_stats(struct raid_array *a, void *o)
{
	const char *name = "?";
	struct raid_counters t;

	for (const struct raid_opt_value *v = parity_values; v->name; v++)
		if ((int)v->value == (int)parity_opts(&a->cfg)->parity)
			name = v->name;
	json_object_object_add(o, "parity_path", json_object_new_string(name));
	pthread_mutex_lock(&a->lock);
	t = a->totals;
	pthread_mutex_unlock(&a->lock);
	json_object_object_add(o, "gpu", gpu_obj(a, &t));
}

const struct raid_option_group level_opts_group = {
    .part = "levels",
    .rows = level_rows,
    .size = sizeof(struct level_opts),
};

const struct raid_option_group parity_opts_group = {
    .part = "parity",
    .rows = parity_rows,
    .size = sizeof(struct parity_opts),
    .validate = parity_validate,
    .stats = parity_stats,
};
