#!/usr/bin/env bash
# tests/facts/readme_paths_test.sh: every path a README names exists. A path is a `quoted`
# word or a link target with a folder in it or a file's extension (.c .h .sh .md .mk .fio
# .preset .csv .json .cu .py); it resolves from the README's folder, from the root, or, a
# bare name or a shorter path, as the tail of a file or folder of the tree (README prose says
# `stats.c` inside raid/core/). Not paths: an extension alone (`.c`), placeholders written
# in capitals (`NAME.preset`, `X_test.c`, `tests/T.json`), build/ (build-san/) and results/
# outputs, absolute paths and URLs, and the few names of what a run writes (KNOWN below).
source "$(dirname "$0")/../lib.sh"

# named by READMEs, no file of the tree: a report's outputs, md's sysfs knobs, the team's
# design note kept beside the repository
KNOWN=" efficiency.csv hosts.csv projection.csv charts meta.json sync_speed_min/max architecture.md "

# stale TREE: "README: path" for each path no file answers
stale() {
	local tree=$1 r d p list
	list=$T_SCRATCH/files
	(cd "$tree" && find . \( -name build -o -name .git -o -path ./results \) -prune -o -print |
		sed 's|^\./||') >"$list"
	while IFS= read -r r; do
		d=${r%/*}
		grep -oE '`[^` ]+`|\]\([^)# ]+' "$tree/$r" | sed -E 's/^`//; s/`$//; s/^\]\(//' |
			grep -E '^[A-Za-z0-9_.][A-Za-z0-9_./+-]*$' |
			grep -E '/|\.(c|h|sh|md|mk|py|fio|preset|csv|json|cu)$' |
			grep -vE '^(build[a-z-]*|results)(/|$)|^\.|\.\.\.|(^|/)[A-Z]{1,4}[._/]' | sort -u |
			while IFS= read -r p; do
				p=${p%/}
				[[ $KNOWN == *" $p "* || -e $tree/$d/$p || -e $tree/$p ]] && continue
				grep -qE "(^|/)${p//./\\.}\$" "$list" && continue
				echo "$r: $p"
			done
	done < <(grep -E '(^|/)README\.md$' "$list" | grep -v '^results/')
}

none_stale() {
	local out
	out=$(stale "$ROOT")
	[[ -z $out ]] && return 0
	echo "paths named by READMEs that no file of the tree answers:"
	echo "$out"
	return 1
}
t_case "every path a README names exists" none_stale

# a README naming a file that is not there (and one that is) in a tree of two files
planted() {
	local t=$T_SCRATCH/tree out
	mkdir -p "$t/a/b" && : >"$t/a/b/real.c"
	printf '%s\n' 'Sources: `b/real.c`, `real.c`, [gone](b/gone.c) and `a/moved/x.sh`.' >"$t/a/README.md"
	out=$(stale "$t")
	echo "$out"
	[[ $out == $'a/README.md: a/moved/x.sh\na/README.md: b/gone.c' ]]
}
t_case "a planted README naming a missing file is caught (and the real ones are not)" planted
t_done
