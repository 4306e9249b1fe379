#!/usr/bin/env bash
# tests/layering_test.sh - the directions between the tree's parts (tools/dev/parts.sh) hold at
# include level (tools/dev/check_includes.sh) and at link level (tools/dev/check_links.sh, on
# the built objects), and each check catches a wrong edge: a backend that includes recovery, a
# level that includes the fio adapter's world, a header path that is no file; a core object
# that calls recovery, a backend that calls a level, the fio adapter that calls the core's
# internals or a raid.h name defined above the core; that no core file reads a field of a
# part above it (tools/dev/check_fields.sh), with a planted read of recovery's and a level's;
# that recovery's layers hold (tools/dev/check_layers.sh), with a planted upward include,
# a planted upward call and a planted two-way pair; and that the module list registers the
# parts in the documented order (a planted swap refused).
source "$(dirname "$0")/lib.sh"

t_case "the tree's includes go only in the allowed directions" "$ROOT/tools/dev/check_includes.sh"
t_case "the built objects call only in the allowed directions" "$ROOT/tools/dev/check_links.sh"

# a copy of the sources with one wrong include each; the check must refuse every copy
bad_copy() { # NAME FILE LINE
	local d=$T_SCRATCH/$1
	mkdir -p "$d"
	(cd "$ROOT" && cp -r --parents raid engines report tools "$d")
	rm -rf "$d"/tools/mdvm
	echo "$3" >>"$d/$2"
	"$d/tools/dev/check_includes.sh"
}
t_case_fail "a backend that includes recovery is refused" \
	bad_copy b raid/backends/member_null.c '#include "recovery/passes/passes.h"'
t_case_fail "the parity library that includes the core is refused" \
	bad_copy p raid/parity/gf.c '#include "core/core.h"'
t_case_fail "the fio adapter that includes the core's internals is refused" \
	bad_copy e engines/fio_raid.c '#include "raid/core/core.h"'
t_case_fail "the report that includes the core's internals is refused" \
	bad_copy r report/analysis/iomodel.c '#include "raid/core/core.h"'
t_case_fail "the report's model that includes its analyses (a call upward) is refused" \
	bad_copy m report/model/load.c '#include "report/analysis/analysis.h"'
t_case_fail "the report's analyses that include its renderers are refused" \
	bad_copy a report/analysis/gate.c '#include "report/render/render.h"'
t_case_fail "an include that names no file is refused" \
	bad_copy n raid/core/log.c '#include "core/no_such.h"'

# the built objects (symbolic links to them) and one more object in FOLDER that calls SYMBOL of
# another part; the check must refuse every set
bad_link() { # NAME FOLDER SYMBOL
	local d=$T_SCRATCH/obj-$1
	cp -rs "$ROOT/build/obj" "$d"
	printf 'void %s(void);\nvoid planted(void) { %s(); }\n' "$3" "$3" |
		gcc -c -x c - -o "$d/$2/planted_$1.o"
	"$ROOT/tools/dev/check_links.sh" "$d"
}
t_case_fail "a core object that calls recovery's option parser is refused" \
	bad_link c raid/core raid_rec_parse_fail
t_case_fail "a core object that names a level's personality is refused" \
	bad_link l raid/core raid_levels_register
t_case_fail "a backend that calls a level is refused" \
	bad_link b raid/backends raid_plan_start
t_case_fail "the fio adapter that calls the core's internals is refused" \
	bad_link e engines raid_mio_get
t_case "a core object that calls the parity library below it is accepted" \
	bad_link p raid/core pq_gf_inv

# the public API is the core's: a name raid.h declares, defined by a part above the core (as
# raid_interrupt once was, by recovery), is no API to call; the fio adapter calling it is refused
api_above() {
	local d=$T_SCRATCH/obj-api
	cp -rs "$ROOT/build/obj" "$d"
	echo 'void raid_post(void) {}' | gcc -c -x c - -o "$d/raid/recovery/planted_api.o"
	printf 'void raid_post(void);\nvoid planted(void) { raid_post(); }\n' |
		gcc -c -x c - -o "$d/engines/planted_api.o"
	"$ROOT/tools/dev/check_links.sh" "$d"
}
t_case_fail "the fio adapter that calls a raid.h name defined above the core is refused" api_above

# recovery's layers (raid/recovery/README.md): helpers < blocks < passes < thread < the service;
# no include or call goes up one, and no two of its files reach each other both ways
# (tools/dev/check_layers.sh, on the sources and the built objects)
t_case "recovery's files include and call only down its layers, none both ways" \
	"$ROOT/tools/dev/check_layers.sh"
bad_layer_src() { # NAME FILE LINE: a copy of the sources with the line added, the built objects
	local d=$T_SCRATCH/l-$1
	mkdir -p "$d"
	(cd "$ROOT" && cp -r --parents raid tools/dev "$d")
	echo "$3" >>"$d/$2"
	"$d/tools/dev/check_layers.sh" "$ROOT/build/obj"
}
bad_layer_obj() { # NAME FOLDER SYMBOL: one more object in FOLDER that calls SYMBOL
	local d=$T_SCRATCH/lo-$1
	cp -rs "$ROOT/build/obj" "$d"
	printf 'void %s(void);\nvoid planted(void) { %s(); }\n' "$3" "$3" |
		gcc -c -x c - -o "$d/$2/planted_$1.o"
	"$ROOT/tools/dev/check_layers.sh" "$d"
}
t_case_fail "recovery's blocks that include the thread's header are refused" \
	--msg 'pace.c includes raid/recovery/thread/thread.h: up from' \
	bad_layer_src i raid/recovery/blocks/pace.c '#include "recovery/thread/thread.h"'
t_case_fail "a pass that calls the recovery thread is refused" \
	--msg 'calls rec_thread of raid/recovery/thread/rebuild.c: up from the passes' \
	bad_layer_obj c raid/recovery/passes rec_thread
t_case_fail "two files of one layer that reach each other both ways are refused" \
	--msg 'blocks/bitmap and raid/recovery/blocks/state reach each other both ways' \
	bad_layer_src p raid/recovery/blocks/state.c '#include "recovery/blocks/bitmap.h"'

# the module list registers the parts in the order raid/README.md documents (backends, levels,
# recovery, then the inject decorator: a row's .after must name a row already there)
module_order() { # ROOT: the order of raid_modules.c's calls against the README's sentence
	local doc got
	doc=$(tr '\n' ' ' <"$1/raid/README.md" | grep -o 'calls them from one constructor ([^)]*)' |
		grep -oE 'backends|levels|recovery|inject' | xargs)
	got=$(grep -oE '^[[:space:]]*raid_[a-z]+_register\(\)' "$1/raid/raid_modules.c" |
		sed -E 's/.*raid_([a-z]+)_register.*/\1/' | xargs)
	echo "documented: $doc; raid_modules.c: $got"
	[[ -n $doc && $doc == "$got" ]]
}
t_case "the module list registers the parts in the documented order" module_order "$ROOT"
swapped_order() {
	local d=$T_SCRATCH/order
	mkdir -p "$d/raid"
	cp "$ROOT/raid/README.md" "$d/raid/"
	sed -e 's/^\(\s*\)raid_levels_register();/\1raid_recovery_register();/;t' \
		-e 's/^\(\s*\)raid_recovery_register();/\1raid_levels_register();/' \
		"$ROOT/raid/raid_modules.c" >"$d/raid/raid_modules.c"
	module_order "$d"
}
t_case_fail "a module list with levels and recovery swapped is refused" \
	--msg 'raid_modules.c: backends recovery levels inject' swapped_order

# each part owns its data: a core file that reads a field of a part's struct is refused,
# however it reached the struct (tools/dev/check_fields.sh)
t_case "no core file reads a field of a part above it" "$ROOT/tools/dev/check_fields.sh"
bad_field() { # NAME FILE LINE
	local d=$T_SCRATCH/f-$1
	mkdir -p "$d"
	(cd "$ROOT" && cp -r --parents raid "$d")
	echo "$3" >>"$d/$2"
	"$ROOT/tools/dev/check_fields.sh" "$d"
}
t_case_fail "a core file that reads recovery's raid_rebuild_max is refused" \
	bad_field r raid/core/config.c \
	'static uint64_t f(const struct raid_config *c) { return ((struct raid_recovery_config *)c->part[2])->rebuild_max; }'
t_case_fail "a core file that reads a level's stripe cache is refused" \
	bad_field l raid/core/array.c \
	'static unsigned f(const void *p) { return ((const struct level_opts *)p)->stripe_cache; }'
t_done
