#!/usr/bin/env bash
# defaults_test.sh: no default of an engine option is written as a literal outside its option
# table. For each option whose default is a number or size of two characters or more (raid-tool
# options), a line of the run layer (run.sh, run/*.sh), the preset tool, the run's other
# programs (tools/run/) or the report (report/, its tests and test data aside) that names the
# option (raid_gpu_batch, gpu_batch or gpu-batch) and its default as a word is a copy of it:
# those places read the default from the table (raid_option_find(...)->def, raid-preset limits,
# the plan's header). Each copy is named with its file and line.
source "$(dirname "$0")/../lib.sh"
TOOL=$ROOT/build/bin/raid-tool

copies() {
	local name def rest stem files n=0
	mapfile -t files < <(cd "$ROOT" && ls run.sh run/*.sh && find tools/run report -name '*.[ch]' ! -name '*_test.c' ! -path '*/testdata/*')
	while read -r name _ _ def rest; do
		[[ $def =~ ^[0-9]+[kKmMgG]?$ && ${#def} -ge 2 ]] || continue
		stem=${name#raid_}
		(cd "$ROOT" && grep -nwE -- "$def" "${files[@]}" | grep -E -- "${stem}|${stem//_/-}") &&
			n=$((n + 1))
	done < <("$TOOL" options)
	((n == 0))
}
t_case "no engine default is copied outside the option table" copies
t_done
