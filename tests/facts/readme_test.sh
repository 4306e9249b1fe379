#!/usr/bin/env bash
# tests/facts/readme_test.sh: the engine's option table is the one source of the README's
# option table (tools/run/raidtool/readme.sh --check) and of fio's --enghelp; the check fails
# on a README that differs.
source "$(dirname "$0")/../lib.sh"
TOOL=$ROOT/build/bin/raid-tool
README_SH=$ROOT/tools/run/raidtool/readme.sh

t_case "the README's option table is the engine's" "$README_SH" --check "$ROOT/README.md"

edited() { # sed expression on a copy of the README: the check must fail (exit 1), naming it
	sed "$1" "$ROOT/README.md" >"$T_SCRATCH/README.md"
	! cmp -s "$ROOT/README.md" "$T_SCRATCH/README.md" || { echo "the edit did not land"; return 1; }
	"$README_SH" --check "$T_SCRATCH/README.md" 2>"$T_SCRATCH/err"
	local rc=$?
	cat "$T_SCRATCH/err"
	((rc == 1)) && grep -q "option table is not the engine's" "$T_SCRATCH/err"
}
t_case "a changed default is caught" edited 's/^| `raid_chunk` | 4k .. 1m, a power of two | 512k/| `raid_chunk` | 4k .. 1m, a power of two | 64k/'
t_case "a missing option is caught" edited '/^| `raid_merge` |/d'
t_case "an option the engine lacks is caught" edited '/^| `raid_merge` |/p; s/^| `raid_merge` |/| `raid_merged` |/'
no_markers() {
	grep -v '^<!-- options: ' "$ROOT/README.md" >"$T_SCRATCH/README.md"
	"$README_SH" --check "$T_SCRATCH/README.md" 2>&1
	(($? == 2))
}
t_case "a README without the markers is refused" no_markers

# fio's --enghelp: every option of the table, with the table's help line
enghelp() {
	local out name
	out=$("$FIO" --enghelp="$ENGINE") || return 1
	echo "$out"
	while read -r name _; do
		grep -q "^$name *: " <<<"$out" || { echo "missing: $name"; return 1; }
	done < <("$TOOL" options)
	[[ $(grep -c '^raid_' <<<"$out") == $("$TOOL" options | wc -l) ]] &&
		grep -q '^raid_chunk *: chunk size: 4k .. 1m, a power of two (default 512k' <<<"$out"
}
t_case "fio --enghelp lists the table's options and help" enghelp
t_done
