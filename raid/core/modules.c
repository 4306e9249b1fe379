/*
 * modules.c - what the parts above the core registered with it, besides their levels
 * (level.c) and option rows (options.c): the member backends by name (raid_backend's values),
 * raid_inject's decorator, and the recovery service. The core names none of them; a part
 * registers its own from the library's module list (raid/raid_modules.c, raid/README.md)
 * before any array opens.
 */
#include <errno.h>
#include <string.h>

#include "service.h"

static const struct member_backend_ops *backends[MEMBER_BACKENDS_MAX];
static int nbackends;
struct raid_opt_value member_backend_values[MEMBER_BACKENDS_MAX + 1];
static const struct member_backend_ops *injector;

static bool complete(const struct member_backend_ops *ops)
{
	return ops && ops->init && ops->exit && ops->prep && ops->submit && ops->poll;
}

int member_backend_register(const struct member_backend_ops *ops)
{
	if (!complete(ops) || !ops->name || nbackends == MEMBER_BACKENDS_MAX) {
		raid_log("raid: backend %s not registered (a hook or its name is missing, or room)",
			 ops && ops->name ? ops->name : "(null)");
		return -EINVAL;
	}
	for (int i = 0; i < nbackends; i++)
		if (!strcmp(backends[i]->name, ops->name)) {
			raid_log("raid: raid_backend=%s is registered twice", ops->name);
			return -EEXIST;
		}
	member_backend_values[nbackends] =
	    (struct raid_opt_value){.name = ops->name, .value = nbackends, .help = ops->help};
	backends[nbackends++] = ops;
	return 0;
}

int member_injector_register(const struct member_backend_ops *ops)
{
	if (!complete(ops) || !ops->wraps || injector) {
		raid_log("raid: injector %s not registered", ops ? ops->name : "(null)");
		return ops && injector ? -EEXIST : -EINVAL;
	}
	injector = ops;
	return 0;
}

const struct member_backend_ops *member_backend(int b)
{
	return b >= 0 && b < nbackends ? backends[b] : NULL;
}

const char *raid_backend_name(int b)
{
	return b >= 0 && b < nbackends ? backends[b]->name : NULL;
}

const struct member_backend_ops *member_injector(void)
{
	return injector;
}

/* Without a recovery service, an array simply has none: nothing to probe, start or stop. */
static int no_probe(struct raid_array *a, char *err, size_t errlen)
{
	return 0;
}

static int no_stop(struct raid_array *a)
{
	return 0;
}

static void no_free(struct raid_array *a)
{
}

static void no_stats(struct raid_array *a, void *o)
{
}

static void no_config(const struct raid_config *c, struct raid_service_cfg *out)
{
}

static void no_interrupt(void)
{
}

static const struct raid_service_ops no_service = {
    .probe = no_probe,
    .open = no_probe,
    .writer = no_probe,
    .stop = no_stop,
    .free = no_free,
    .stats = no_stats,
    .config = no_config,
    .interrupt = no_interrupt,
};
static const struct raid_service_ops *service = &no_service;

int raid_service_register(const struct raid_service_ops *ops)
{
	if (!ops || !ops->probe || !ops->open || !ops->writer || !ops->stop || !ops->free ||
	    !ops->stats || !ops->config || !ops->interrupt || service != &no_service) {
		raid_log("raid: a recovery service not registered (%s)",
			 service != &no_service ? "one is already" : "a hook is missing");
		return service != &no_service ? -EEXIST : -EINVAL;
	}
	service = ops;
	return 0;
}

const struct raid_service_ops *raid_service(void)
{
	return service;
}

/* the public call (raid.h), for SIGINT/SIGTERM handlers: the service's hook */
void raid_interrupt(void)
{
	service->interrupt();
}
