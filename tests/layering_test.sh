#!/usr/bin/env bash
# tests/layering_test.sh - the include directions between the tree's parts
# (tools/dev/check_includes.sh) hold, and the check catches a wrong one: a backend that includes
# recovery, a level that includes the fio adapter's world, a header path that is no file.
source "$(dirname "$0")/lib.sh"

t_case "the tree's includes go only in the allowed directions" "$ROOT/tools/dev/check_includes.sh"

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
t_done
