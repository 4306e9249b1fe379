#!/usr/bin/env bash
# tools/dev/check_includes.sh - the layering of the tree, checked: every #include "..." of the
# engine's C sources must resolve to a file, and may point only in an allowed direction
# between the parts below. Run by `make test` (and so by CI); prints each offending line.
#
#   raid/parity     the parity library (and its CUDA twin): includes nothing else of ours
#   raid/core       public API, config, array, queue, merge, level table, layout, stats
#   raid/backends   member I/O backends: implement raid/core/member.h
#   raid/levels     the personalities: implement raid/core/level.h, use parity
#   raid/recovery   rebuild, scrub, resync, the state file, faults: a client of the core
#   engines         the fio adapter: only the public API (raid/core/raid.h)
#   report/model < report/analysis < report/render < report/cmd: the report's layers
#                   (report/README.md), each the layers below it and the engine's public API
#   report          the report's tests (report/*.c): every layer
#   tools/*         one folder each: their own files, and only the engine's public API
#   tools/dev       developers' tools: also the parity library (raid-parity-bench times its
#                   variants and shapes, pq_impl.h included)
set -u
cd "$(dirname "$0")/../.."

# part -> the parts it may include from (itself always). The core reaches the recovery
# service only through what it declares itself (core/service.h), as it does the levels.
declare -A ALLOW=(
	[raid/parity]=""
	[raid/core]="raid/parity"
	[raid/backends]="raid/core"
	[raid/levels]="raid/core raid/parity"
	[raid/recovery]="raid/core raid/levels raid/parity"
	[engines]="api"
	[report/model]="api"
	[report/analysis]="api report/model"
	[report/render]="api report/model report/analysis"
	[report/cmd]="api report/model report/analysis report/render"
	[report]="api report/model report/analysis report/render report/cmd"
	[tools]="api"
	[tools/dev]="raid/parity api"
)

part_of() { # a path relative to the root -> its part, in PART (no subshell: called per include)
	local rest=${1#*/}
	case $1 in
	raid/parity/*) PART=raid/parity ;;
	raid/*/* | tools/*/* | report/*/*) PART=${1%%/*}/${rest%%/*} ;;
	*/*) PART=${1%%/*} ;;
	*) PART=. ;;
	esac
}

bad=0 n=0
while IFS= read -r src; do
	part_of "$src"
	from=$PART
	key=$from
	[[ $from == tools/* && ! -v ALLOW[$from] ]] && key=tools
	if [[ ! -v ALLOW[$key] ]]; then
		echo "check_includes: $src: in no known part (add it to the table in $0)"
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
		for p in ${ALLOW[$key]}; do
			[[ $p == "$to" ]] && ok=1
			[[ $p == api && $hit == raid/core/raid.h ]] && ok=1
		done
		if ((!ok)); then
			echo "check_includes: $src includes $hit: $from may not depend on $to"
			bad=$((bad + 1))
		fi
	done < <(grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src")
done < <(find raid engines report tools -name '*.[ch]' -o -name '*.cu' | sort)

echo "check_includes: $n includes checked, $bad wrong"
((bad == 0))
