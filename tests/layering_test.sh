#!/usr/bin/env bash
# tests/layering_test.sh - the directions between the tree's parts (tools/dev/parts.sh) hold at
# include level (tools/dev/check_includes.sh) and at link level (tools/dev/check_links.sh, on
# the built objects), and each check catches a wrong edge: a backend that includes recovery, a
# level that includes the fio adapter's world, a header path that is no file; a core object
# that calls recovery, a backend that calls a level, the fio adapter that calls the core's
# internals.
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
	bad_copy b raid/backends/member_null.c '#include "recovery/rebuild.h"'
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
t_done
