#!/usr/bin/env bash
# tools/dev/check_includes.sh - the layering of the tree, checked at include level: every
# #include "..." of the engine's C sources must resolve to a file, and may point only in an
# allowed direction between the parts (the table in tools/dev/parts.sh, shared with
# check_links.sh, which checks the same directions at link level). Run by `make test`
# (tests/layering_test.sh); prints each offending line.
set -u
cd "$(dirname "$0")/../.."
source tools/dev/parts.sh

bad=0 n=0
while IFS= read -r src; do
	part_of "$src"
	from=$PART key=$KEY
	if [[ ! -v ALLOW[$key] ]]; then
		echo "check_includes: $src: in no known part (add it to the table in tools/dev/parts.sh)"
		bad=$((bad + 1))
		continue
	fi
	while IFS= read -r line; do
		n=$((n + 1))
		inc=${line#*\"}
		inc=${inc%%\"*}
		# the compiler's search order: the file's folder, then -I. and -Iraid
		hit=
		for dir in "${src%/*}" . raid; do
			if [[ -f $dir/$inc ]]; then
				hit=$(realpath --relative-to=. "$dir/$inc")
				break
			fi
		done
		if [[ -z $hit ]]; then
			# not ours: fio's headers, for the adapter only
			if [[ $from == engines ]]; then continue; fi
			echo "check_includes: $src: #include \"$inc\" is no file of this tree"
			bad=$((bad + 1))
			continue
		fi
		part_of "$hit"
		to=$PART
		[[ $to == "$from" ]] && continue
		ok=0
		part_allows "$key" "$to" && ok=1
		part_allows "$key" api && [[ $hit == raid/core/raid.h ]] && ok=1
		if ((!ok)); then
			echo "check_includes: $src includes $hit: $from may not depend on $to"
			bad=$((bad + 1))
		fi
	done < <(grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src")
done < <(find raid engines report tools -name '*.[ch]' -o -name '*.cu' | sort)

echo "check_includes: $n includes checked, $bad wrong"
((bad == 0))
