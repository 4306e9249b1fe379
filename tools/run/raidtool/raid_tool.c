/* tools/run/raidtool/raid_tool.c: raid-tool, the engine's facts as the engine itself has them,
 * for run.sh, the tests and the README (which then need not know them):
 *
 *   raid-tool levels [--json]              the level table: members, parity, copies, layouts
 *   raid-tool options [--json|--markdown]  the option table; --markdown is the README's block
 *
 * `levels` prints one line per level: LEVEL NAME MIN_MEMBERS MAX_FAILED PARITY COPIES
 * USES_CHUNK DEFAULT_LAYOUT LAYOUTS, where MAX_FAILED "n-1" is every member but one, COPIES
 * "n" one on every member, USES_CHUNK 1 or 0, and "-" no layout. On a terminal a header
 * line names the columns first (as ls and ps do: scripts reading the lines, run/levels.sh,
 * get the lines alone). --json gives the same facts with the same spellings.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "raid/core/raid.h"

static const char *prog = "raid-tool";

static int usage(void)
{
	fprintf(stderr, "usage: %s levels [--json] | options [--json|--markdown]\n", prog);
	return 2;
}

/* "n-1", "n" or the number: the facts that depend on the member count, spelt so */
static const char *count_words(int v, int all, const char *all_words, char *buf, size_t len)
{
	if (v == all)
		return all_words;
	snprintf(buf, len, "%d", v);
	return buf;
}

/* the layouts a level accepts, ','-separated, "-" for none */
static const char *layouts_words(const struct raid_level_info *l, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "-");
	for (int k = 0; l->layouts >> k && used < len; k++)
		if (l->layouts >> k & 1)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "",
						 raid_layout_name(l->level, k));
	return buf;
}

static json_object *count_json(int v, int all, const char *all_words)
{
	return v == all ? json_object_new_string(all_words) : json_object_new_int(v);
}

static int levels(bool json)
{
	json_object *arr = json_object_new_array();
	struct raid_level_info l;
	char mf[16], cp[16], ls[256];

	if (!json && isatty(STDOUT_FILENO))
		printf("LEVEL NAME MIN_MEMBERS MAX_FAILED PARITY COPIES USES_CHUNK DEFAULT_LAYOUT "
		       "LAYOUTS\n");
	for (unsigned i = 0; !raid_level_nth(i, &l); i++) {
		const char *def = raid_layout_name(l.level, RAID_LAYOUT_DEFAULT);

		if (!json) {
			printf("%d %s %d %s %d %s %d %s %s\n", l.level, l.name, l.min_members,
			       count_words(l.max_failed, RAID_ALL_BUT_ONE, "n-1", mf, sizeof(mf)),
			       l.parity, count_words(l.copies, RAID_ALL_MEMBERS, "n", cp, sizeof(cp)),
			       l.uses_chunk, def ? def : "-", layouts_words(&l, ls, sizeof(ls)));
			continue;
		}
		json_object *o = json_object_new_object(), *lay = json_object_new_array();

		json_object_object_add(o, "level", json_object_new_int(l.level));
		json_object_object_add(o, "name", json_object_new_string(l.name));
		json_object_object_add(o, "min_members", json_object_new_int(l.min_members));
		json_object_object_add(o, "max_failed",
				       count_json(l.max_failed, RAID_ALL_BUT_ONE, "n-1"));
		json_object_object_add(o, "parity", json_object_new_int(l.parity));
		json_object_object_add(o, "copies", count_json(l.copies, RAID_ALL_MEMBERS, "n"));
		json_object_object_add(o, "uses_chunk", json_object_new_boolean(l.uses_chunk));
		for (int k = 0; l.layouts >> k; k++)
			if (l.layouts >> k & 1)
				json_object_array_add(
				    lay, json_object_new_string(raid_layout_name(l.level, k)));
		json_object_object_add(o, "layouts", lay);
		json_object_object_add(o, "default_layout",
				       def ? json_object_new_string(def) : NULL);
		json_object_array_add(arr, o);
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

static const char *const type_names[] = {
    [RAID_OPT_LEVEL] = "level", [RAID_OPT_INT] = "int",	  [RAID_OPT_SIZE] = "size",
    [RAID_OPT_BOOL] = "bool",	[RAID_OPT_LAYOUT] = "layout", [RAID_OPT_ENUM] = "enum",
    [RAID_OPT_RATE] = "rate",	[RAID_OPT_PATHS] = "paths",   [RAID_OPT_PATH] = "path",
    [RAID_OPT_LIST] = "list",
};

/* a markdown table cell: '|' would end it */
static void cell(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

static int options(const char *mode)
{
	json_object *arr = json_object_new_array();
	char values[1024], def[256];

	if (!strcmp(mode, "--markdown"))
		printf("| option | values | default | what it does |\n| --- | --- | --- | --- |\n");
	for (const struct raid_option *o = raid_options; o->name; o++) {
		raid_option_values(o, values, sizeof(values));
		raid_option_default(o, def, sizeof(def));
		if (!strcmp(mode, "--markdown")) {
			printf("| `%s` | ", o->name);
			cell(values);
			printf(" | ");
			cell(def);
			printf(" | ");
			cell(o->help);
			printf(" |\n");
		} else if (!strcmp(mode, "--json")) {
			json_object *j = json_object_new_object();

			json_object_object_add(j, "name", json_object_new_string(o->name));
			json_object_object_add(j, "type", json_object_new_string(type_names[o->type]));
			json_object_object_add(j, "part", json_object_new_string(o->part));
			json_object_object_add(j, "values", json_object_new_string(values));
			json_object_object_add(j, "default", json_object_new_string(def));
			json_object_object_add(j, "help", json_object_new_string(o->help));
			json_object_array_add(arr, j);
		} else {
			printf("%-26s %-6s %-9s %s\n", o->name, type_names[o->type], o->part, def);
		}
	}
	if (!strcmp(mode, "--json"))
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

int main(int argc, char **argv)
{
	const char *flag = argc > 2 ? argv[2] : "";

	if (argc < 2 || argc > 3)
		return usage();
	if (!strcmp(argv[1], "levels") && (argc == 2 || !strcmp(flag, "--json")))
		return levels(argc == 3);
	if (!strcmp(argv[1], "options") &&
	    (argc == 2 || !strcmp(flag, "--json") || !strcmp(flag, "--markdown")))
		return options(flag);
	return usage();
}
