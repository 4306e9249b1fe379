/*
 * options.c - the engine's options, one table: name, type, range, default, help and the
 * part that consumes each. The core's rows are here; a part above the core registers its
 * own with their hooks (options.h: recovery's raid_spares, raid_rebuild*, raid_fail, ...).
 * raid_config_set() parses by the table (every name, type and range checked here, in one
 * place); the fio adapter builds fio's option array from it, and raid-tool renders it for
 * the README. Options whose value is a list with its own grammar (raid_failed, raid_fail,
 * raid_inject) name their parser.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "level.h"
#include "options.h"
#include "service.h"

#define MB 1000000.0
#define AT RAID_OPT_AT

/* The names of the enums, also what raid_backend_name() and friends print. */
static const struct raid_opt_value layout_values[] = {
    {"left-symmetric", RAID_LAYOUT_LEFT_SYM, NULL},
    {"left-asymmetric", RAID_LAYOUT_LEFT_ASYM, NULL},
    {"right-symmetric", RAID_LAYOUT_RIGHT_SYM, NULL},
    {"right-asymmetric", RAID_LAYOUT_RIGHT_ASYM, NULL},
    {"near2", RAID_LAYOUT_NEAR2, NULL},
    {NULL, 0, NULL},
};

static const char *name_of(const struct raid_opt_value *v, int value)
{
	for (; v->name; v++)
		if (v->value == value)
			return v->name;
	return NULL;
}

const char *raid_layout_name(int level, enum raid_layout_kind l)
{
	const struct raid_level_ops *ops = raid_level_find(level);

	if (l == RAID_LAYOUT_DEFAULT)
		l = ops ? ops->default_layout : RAID_LAYOUT_DEFAULT;
	return name_of(layout_values, l);
}

/* raid_failed: "0,3"; failures the state file recorded stay, whatever the order */
static int parse_failed(struct raid_config *c, const char *v, char *err, size_t errlen)
{
	const char *p = v;

	c->failed = raid_service_cfg(c).state_failed;
	c->failed_opt = 0;
	while (*p) {
		char *end;
		long idx;

		errno = 0;
		idx = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || idx < 0 ||
		    idx >= RAID_MAX_MEMBERS || (*end && !end[1])) {
			snprintf(err, errlen,
				 "raid: raid_failed: '%s' is not a ','-separated list of member "
				 "indices (0-based)",
				 v);
			return -EINVAL;
		}
		c->failed |= 1ULL << idx;
		c->failed_opt |= 1ULL << idx;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* The core's rows; room after them for the rows parts register (raid_options_register). */
static struct raid_option table[RAID_OPTIONS_MAX + 1] = {
    {.name = "raid_level", .type = RAID_OPT_LEVEL, .part = "core", .help = "RAID level",
     .required = true, AT(level)},
    {.name = "raid_members", .type = RAID_OPT_PATHS, .part = "core",
     .help = "the members, files or block devices", .required = true, AT(members),
     .count_off = offsetof(struct raid_config, nmembers)},
    {.name = "raid_chunk", .type = RAID_OPT_SIZE, .part = "core", .help = "chunk size",
     .def = "512k", .def_doc = "mdadm's", .lo = 4096, .hi = 1 << 20, .pow2 = true, AT(chunk)},
    /* the core's: it checks it against the level table, as raid_level */
    {.name = "raid_layout", .type = RAID_OPT_LAYOUT, .part = "core",
     .help = "how data and parity rotate over the members (md's layouts)",
     .def_doc = "the level's", .values = layout_values, AT(layout)},
    {.name = "raid_member_size", .type = RAID_OPT_SIZE, .part = "core",
     .help = "bytes of each member to use; missing member files are created this size",
     .def_doc = "the smallest member", .lo = 1, .hi = INT64_MAX, AT(member_size)},
    /* the core's: which of the registered backends (core/member.h), by name */
    {.name = "raid_backend", .type = RAID_OPT_ENUM, .part = "core",
     .help = "how member I/O is done", .def = "io_uring", .values = member_backend_values,
     AT(backend)},
    {.name = "raid_failed", .type = RAID_OPT_LIST, .part = "core",
     .help = "members missing from the start", .def_doc = "none",
     .syntax = "member indices (0-based), ','-separated", .parse = parse_failed},
    {.name = "raid_stats", .type = RAID_OPT_PATH, .part = "core",
     .help = "JSON stats file written at the end (schema: results/README.md)",
     .def_doc = "none", AT(stats_path)},
    {.name = "raid_merge", .type = RAID_OPT_BOOL, .part = "core",
     .help = "1: member I/Os of one commit that continue each other go to the member as one "
	     "vectored I/O (the block layer's plug merge under md); 0: never (A/B)",
     .def = "1", AT(merge)},
};

const struct raid_option *raid_options = table;

#define GROUPS_MAX RAID_PARTS_MAX
static const struct raid_option_group *groups[GROUPS_MAX];
static int ngroups;

static int rows_of(const struct raid_option *rows)
{
	int n = 0;

	while (rows[n].name)
		n++;
	return n;
}

/* Where a registered row goes: after the row its .after names, else at the end. */
static int place_of(const struct raid_option *row, int have)
{
	const struct raid_option *o = row->after ? raid_option_find(row->after) : NULL;

	return o ? (int)(o - table) + 1 : have;
}

int raid_options_register(const struct raid_option_group *g)
{
	int have = rows_of(table), add = rows_of(g->rows);

	if (have + add > RAID_OPTIONS_MAX || ngroups == GROUPS_MAX) {
		raid_log("raid: the options of %s not registered: more than %d options", g->part,
			 RAID_OPTIONS_MAX);
		return -ENOSPC;
	}
	for (int i = 0; i < add; i++)
		if (raid_option_find(g->rows[i].name)) {
			raid_log("raid: option %s of %s is registered twice", g->rows[i].name,
				 g->part);
			return -EEXIST;
		}
	for (int i = 0; i < add; i++, have++) {
		int at = place_of(&g->rows[i], have);

		memmove(&table[at + 1], &table[at], (size_t)(have - at) * sizeof(table[0]));
		table[at] = g->rows[i];
		table[at].slot = g->size ? ngroups + 1 : 0; /* no struct: raid_config's */
	}
	if (g->slot)
		*g->slot = ngroups;
	groups[ngroups++] = g;
	return 0;
}

void *raid_config_part(const struct raid_config *c, const struct raid_option_group *g)
{
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == g)
			return c->part[i];
	return NULL;
}

int raid_option_groups_validate(const struct raid_config *c, const struct raid_level_ops *ops,
				char *err, size_t errlen)
{
	int ret = 0;

	for (int i = 0; i < ngroups && !ret; i++)
		if (groups[i]->validate)
			ret = groups[i]->validate(c, ops, err, errlen);
	return ret;
}

void raid_option_groups_free(struct raid_config *c)
{
	for (int i = 0; i < ngroups; i++) {
		if (groups[i]->size && !c->part[i])
			continue; /* freed already */
		if (groups[i]->free)
			groups[i]->free(c);
		free(c->part[i]);
		c->part[i] = NULL;
	}
}

int raid_option_groups_dup(struct raid_config *c)
{
	int ret = 0;

	for (int i = 0; i < ngroups; i++) {
		void *p;

		if (!c->part[i])
			continue;
		p = malloc(groups[i]->size);
		if (p)
			memcpy(p, c->part[i], groups[i]->size);
		else
			ret = -ENOMEM;
		c->part[i] = p;
	}
	if (ret) {
		for (int i = 0; i < ngroups; i++) {
			free(c->part[i]);
			c->part[i] = NULL;
		}
		return ret;
	}
	for (int i = 0; i < ngroups; i++)
		if (groups[i]->dup)
			groups[i]->dup(c);
	return 0;
}

void raid_option_groups_stats(struct raid_array *a, void *o)
{
	for (int i = 0; i < ngroups; i++)
		if (groups[i]->stats)
			groups[i]->stats(a, o);
}

const struct raid_option *raid_option_find(const char *name)
{
	for (const struct raid_option *o = raid_options; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

bool raid_option_given(const struct raid_config *c, const char *name)
{
	const struct raid_option *o = raid_option_find(name);

	return o && (c->given >> (o - raid_options) & 1);
}

/* snprintf that appends at *used and never runs past len */
#define PUT(...)                                                                                   \
	(used += snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, __VA_ARGS__))

/* "4k", "1m", "65536": a size the way a job file writes it */
static int size_words(uint64_t v, char *buf, size_t len)
{
	static const char sfx[] = "kmgt";
	int s = 0;

	while (s < 4 && v && !(v & 1023)) {
		v >>= 10;
		s++;
	}
	return s ? snprintf(buf, len, "%" PRIu64 "%c", v, sfx[s - 1])
		 : snprintf(buf, len, "%" PRIu64, v);
}

/* "a, b or c" (sep ", " and last " or "), or the levels' numbers */
static int names_words(const struct raid_option *o, const char *last, char *buf, size_t len)
{
	const struct raid_level_ops *l;
	size_t used = 0;
	int n = 0, i;

	if (o->type == RAID_OPT_LEVEL) {
		while (raid_level_at(n))
			n++;
		for (i = 0; (l = raid_level_at(i)); i++)
			PUT("%s%d", !i ? "" : i == n - 1 ? last : ", ", l->level);
		return (int)used;
	}
	while (o->values[n].name)
		n++;
	for (i = 0; i < n; i++)
		PUT("%s%s", !i ? "" : i == n - 1 ? last : ", ", o->values[i].name);
	return (int)used;
}

/* The level table's levels (bit: index in the table) that accept, or default to, layout v */
static unsigned levels_of(int v, bool defaults)
{
	const struct raid_level_ops *l;
	unsigned set = 0;

	for (unsigned j = 0; (l = raid_level_at(j)); j++)
		if (defaults ? (int)l->default_layout == v : (int)(l->layouts >> v & 1))
			set |= 1u << j;
	return set;
}

/*
 * raid_layout in the level table's words: the layouts and the levels that accept them
 * ("left-symmetric, ..., right-asymmetric (5, 6); near2 (10)"), or each level's default
 * ("the level's: left-symmetric (5, 6), near2 (10)").
 */
static int layouts_words(const struct raid_option *o, bool defaults, char *buf, size_t len)
{
	size_t used = 0;
	int groups = 0;

	if (defaults)
		PUT("%s: ", o->def_doc);
	for (int i = 0; o->values[i].name; i++) {
		unsigned set = levels_of(o->values[i].value, defaults);
		const char *next = o->values[i + 1].name;

		if (!set)
			continue;
		PUT("%s%s", groups++ ? (defaults ? ", " : "; ") : "", o->values[i].name);
		/* values that the same levels accept are listed together, the levels once */
		while (!defaults && next && levels_of(o->values[i + 1].value, false) == set) {
			PUT(", %s", next);
			next = o->values[++i + 1].name;
		}
		PUT(" (");
		for (unsigned j = 0, k = 0; set >> j; j++)
			if (set >> j & 1)
				PUT("%s%d", k++ ? ", " : "", raid_level_at(j)->level);
		PUT(")");
	}
	return (int)used;
}

int raid_option_values(const struct raid_option *o, char *buf, size_t len)
{
	char lo[32], hi[32];
	size_t used = 0;

	switch (o->type) {
	case RAID_OPT_LEVEL:
		return names_words(o, ", ", buf, len);
	case RAID_OPT_LAYOUT:
		return layouts_words(o, false, buf, len);
	case RAID_OPT_ENUM:
		for (int i = 0; o->values[i].name; i++)
			PUT("%s%s%s%s%s", i ? ", " : "", o->values[i].name,
			    o->values[i].help ? " (" : "", o->values[i].help ? o->values[i].help : "",
			    o->values[i].help ? ")" : "");
		return (int)used;
	case RAID_OPT_INT:
		return snprintf(buf, len, "%lld .. %lld", o->lo, o->hi);
	case RAID_OPT_SIZE:
		if (o->hi == INT64_MAX)
			return snprintf(buf, len, "a size in bytes (k, m, g, t: binary multiples)");
		size_words((uint64_t)o->lo, lo, sizeof(lo));
		size_words((uint64_t)o->hi, hi, sizeof(hi));
		return snprintf(buf, len, "%s .. %s%s", lo, hi, o->pow2 ? ", a power of two" : "");
	case RAID_OPT_BOOL:
		return snprintf(buf, len, "0, 1");
	case RAID_OPT_RATE:
		return snprintf(buf, len, "MB/s, at least 1 byte/s, at most %lld", o->hi);
	case RAID_OPT_PATHS:
		return snprintf(buf, len, "paths separated by ':', up to %d", RAID_MAX_MEMBERS);
	case RAID_OPT_PATH:
		return snprintf(buf, len, "a path");
	case RAID_OPT_LIST:
		return snprintf(buf, len, "%s", o->syntax);
	}
	return snprintf(buf, len, "?");
}

int raid_option_default(const struct raid_option *o, char *buf, size_t len)
{
	if (o->type == RAID_OPT_LAYOUT)
		return layouts_words(o, true, buf, len);
	if (o->required)
		return snprintf(buf, len, "required");
	if (o->def && o->def_doc)
		return snprintf(buf, len, "%s (%s)", o->def, o->def_doc);
	return snprintf(buf, len, "%s", o->def ? o->def : o->def_doc ? o->def_doc : "none");
}

int raid_option_help(const struct raid_option *o, char *buf, size_t len)
{
	size_t used = 0;

	PUT("%s: ", o->help);
	used += (size_t)raid_option_values(o, buf + (used < len ? used : len),
					   used < len ? len - used : 0);
	PUT(o->required ? " (" : " (default ");
	used += (size_t)raid_option_default(o, buf + (used < len ? used : len),
					    used < len ? len - used : 0);
	PUT(")");
	return (int)used;
}

/* The error line of a value that does not parse: what the option accepts, in words. */
static int refuse(const struct raid_option *o, const char *v, char *err, size_t errlen)
{
	char what[RAID_ERRLEN / 2], lo[32], hi[32];

	switch (o->type) {
	case RAID_OPT_LEVEL:
	case RAID_OPT_LAYOUT:
	case RAID_OPT_ENUM:
		if (o->type != RAID_OPT_LEVEL && o->values[0].name && o->values[1].name &&
		    !o->values[2].name) {
			names_words(o, " or ", what, sizeof(what));
			break;
		}
		memcpy(what, "one of ", 8);
		names_words(o, ", ", what + 7, sizeof(what) - 7);
		break;
	case RAID_OPT_INT:
		snprintf(what, sizeof(what), "%s from %lld to %lld", o->unit, o->lo, o->hi);
		break;
	case RAID_OPT_SIZE:
		size_words((uint64_t)o->lo, lo, sizeof(lo));
		size_words((uint64_t)o->hi, hi, sizeof(hi));
		if (o->hi == INT64_MAX)
			snprintf(what, sizeof(what), "a size (a positive number of bytes, k, m, g, t)");
		else
			snprintf(what, sizeof(what), "a %s from %s to %s",
				 o->pow2 ? "power of two" : "size", lo, hi);
		break;
	case RAID_OPT_BOOL:
		snprintf(what, sizeof(what), "0 or 1");
		break;
	case RAID_OPT_RATE:
		snprintf(what, sizeof(what), "a rate in MB/s (a positive number, at most %lld)",
			 o->hi);
		break;
	default:
		snprintf(what, sizeof(what), "%s", o->syntax ? o->syntax : "valid");
		break;
	}
	snprintf(err, errlen, "raid: %s: '%s' is not %s", o->name, v, what);
	return -EINVAL;
}

/* the row's struct: the configuration's own, or the registering part's */
static char *base(struct raid_config *c, const struct raid_option *o)
{
	return o->slot ? (char *)c->part[o->slot - 1] : (char *)c;
}

static void *field(struct raid_config *c, const struct raid_option *o)
{
	return base(c, o) + o->off;
}

static void store_int(struct raid_config *c, const struct raid_option *o, long long v)
{
	void *p = field(c, o);

	if (o->size == sizeof(bool))
		*(bool *)p = v != 0;
	else if (o->size == sizeof(int))
		*(int *)p = (int)v;
	else
		*(uint64_t *)p = (uint64_t)v;
}

/* ':'-separated paths into the option's array and count, owned */
static int set_paths(struct raid_config *c, const struct raid_option *o, const char *v, char *err,
		     size_t errlen)
{
	char **out = field(c, o);
	int *n = (int *)(base(c, o) + o->count_off);
	const char *p = v;

	for (int i = 0; i < *n; i++)
		free(out[i]);
	*n = 0;
	while (*p) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (!len || (e && !e[1])) {
			snprintf(err, errlen, "raid: %s: empty path in '%s'", o->name, v);
			return -EINVAL;
		}
		if (*n == RAID_MAX_MEMBERS) {
			snprintf(err, errlen, "raid: %s: more than %d paths", o->name,
				 RAID_MAX_MEMBERS);
			return -EINVAL;
		}
		out[(*n)++] = strndup(p, len);
		p += len + (e ? 1 : 0);
	}
	if (!*n) {
		snprintf(err, errlen, "raid: %s: no paths given", o->name);
		return -EINVAL;
	}
	return 0;
}

static int lookup(const struct raid_option *o, const char *v, long long *out)
{
	char *end;

	if (o->type == RAID_OPT_LEVEL) {
		errno = 0;
		*out = strtoll(v, &end, 10);
		return *v && !*end && !errno && raid_level_find((int)*out) ? 0 : -EINVAL;
	}
	for (int i = 0; o->values[i].name; i++)
		if (!strcmp(o->values[i].name, v)) {
			*out = o->values[i].value;
			return 0;
		}
	return -EINVAL;
}

/* Parse and store one option's value; -EINVAL with the option named. */
static int set_one(struct raid_config *c, const struct raid_option *o, const char *v, char *err,
		   size_t errlen)
{
	long long n;
	uint64_t s;
	double d;
	char *end;

	switch (o->type) {
	case RAID_OPT_LEVEL:
	case RAID_OPT_LAYOUT:
	case RAID_OPT_ENUM:
		if (lookup(o, v, &n))
			return refuse(o, v, err, errlen);
		store_int(c, o, n);
		return 0;
	case RAID_OPT_INT:
		errno = 0;
		n = strtoll(v, &end, 10);
		if (!*v || *end || errno || n < o->lo || n > o->hi)
			return refuse(o, v, err, errlen);
		store_int(c, o, n);
		return 0;
	case RAID_OPT_SIZE:
		if (raid_parse_size(v, &s) || s < (uint64_t)o->lo || s > (uint64_t)o->hi ||
		    (o->pow2 && (s & (s - 1))))
			return refuse(o, v, err, errlen);
		store_int(c, o, (long long)s);
		return 0;
	case RAID_OPT_BOOL:
		if (strcmp(v, "0") && strcmp(v, "1"))
			return refuse(o, v, err, errlen);
		store_int(c, o, *v == '1');
		return 0;
	case RAID_OPT_RATE:
		d = strtod(v, &end);
		if (!*v || *end || !(d * MB >= 1) || d > (double)o->hi) /* >= 1 byte/s */
			return refuse(o, v, err, errlen);
		store_int(c, o, (long long)(d * MB));
		return 0;
	case RAID_OPT_PATHS:
		return set_paths(c, o, v, err, errlen);
	case RAID_OPT_PATH:
		if (!*v) {
			snprintf(err, errlen, "raid: %s: no path given", o->name);
			return -EINVAL;
		}
		free(*(char **)field(c, o));
		*(char **)field(c, o) = strdup(v);
		return 0;
	case RAID_OPT_LIST:
		return o->parse(c, v, err, errlen);
	}
	return -EINVAL;
}

int raid_config_set(struct raid_config *c, const char *name, const char *v, char *err,
		    size_t errlen)
{
	const struct raid_option *o = raid_option_find(name);
	int ret;

	if (!o) {
		snprintf(err, errlen, "raid: unknown option '%s'", name);
		return -EINVAL;
	}
	if (!v)
		v = "";
	ret = set_one(c, o, v, err, errlen);
	if (!ret && o->then)
		ret = o->then(c, v, err, errlen);
	if (!ret)
		c->given |= 1ULL << (o - raid_options);
	return ret;
}

void raid_config_init(struct raid_config *c)
{
	char err[RAID_ERRLEN];

	memset(c, 0, sizeof(*c));
	c->level = -1;
	for (int i = 0; i < ngroups; i++)
		if (groups[i]->size && !(c->part[i] = calloc(1, groups[i]->size))) {
			raid_log("raid: out of memory for the options of %s", groups[i]->part);
			abort();
		}
	/* the table's defaults, through the parser that checks them (options_test too) */
	for (const struct raid_option *o = raid_options; o->name; o++)
		if (o->def && set_one(c, o, o->def, err, sizeof(err)))
			raid_log("%s (the option table's default)", err);
}
