# tools/dev/parts.sh - the tree's parts and the directions between them, one table for both
# checks (sourced by check_includes.sh and check_links.sh; raid/README.md explains it).
#
#   raid/parity     the parity library (and its CUDA twin): uses nothing else of ours
#   raid/core       public API, config, array, queue, merge, the registries, stats
#   raid/backends   member I/O backends: implement raid/core/member.h, register with the core
#   raid/levels     the personalities: implement raid/core/level.h, use parity, register
#   raid/recovery   rebuild, scrub, resync, the state file, faults, its option rows: a client
#                   of the core that registers its service and rows; in layers, each a folder
#                   (raid/recovery/README.md): helpers < blocks < passes < thread < the
#                   service (the files in raid/recovery itself, its tests included)
#   raid            the library's module list (raid/raid_modules.c): names every part above
#                   the core, to register them; nothing names it
#   engines         the fio adapter: only the public API (raid/core/raid.h)
#   report/model < report/analysis < report/render < report/cmd: the report's layers
#                   (report/README.md), each the layers below it and the engine's public API
#   report          the report's tests (report/*.c): every layer
#   tools/*         one folder each: their own files, and only the engine's public API
#   tools/dev       developers' tools: also the parity library (raid-parity-bench times its
#                   variants and shapes, pq_impl.h included)

# part -> the parts it may use (itself always); "api": raid/core/raid.h and what it declares.
# A report layer gets a row of its own, e.g. [report/model]="api" and
# [report/analysis]="report/model api": part_of then gives its files that part; so does a
# layer of recovery (a folder of raid/recovery; check_layers.sh ranks them by their rows).
declare -A ALLOW=(
	[raid/parity]=""
	[raid/core]="raid/parity"
	[raid/backends]="raid/core"
	[raid/levels]="raid/core raid/parity"
	[raid/recovery/helpers]="raid/core raid/levels raid/parity"
	[raid/recovery/blocks]="raid/core raid/levels raid/parity raid/recovery/helpers"
	[raid/recovery/passes]="raid/core raid/levels raid/parity raid/recovery/helpers
		raid/recovery/blocks"
	[raid/recovery/thread]="raid/core raid/levels raid/parity raid/recovery/helpers
		raid/recovery/blocks raid/recovery/passes"
	[raid/recovery]="raid/core raid/levels raid/parity raid/recovery/helpers raid/recovery/blocks
		raid/recovery/passes raid/recovery/thread"
	[raid]="raid/core raid/backends raid/levels raid/recovery raid/parity"
	[engines]="api"
	[report/model]="api"
	[report/analysis]="api report/model"
	[report/render]="api report/model report/analysis"
	[report/cmd]="api report/model report/analysis report/render"
	[report]="api report/model report/analysis report/render report/cmd"
	[tools]="api"
	[tools/dev]="raid/parity api"
)

# a path relative to the root -> its part in PART, and the ALLOW row it answers to in KEY
# (no subshell: called per include and per object)
part_of() {
	local rest=${1#*/}
	case $1 in
	raid/parity/*) PART=raid/parity ;;
	raid/recovery/*/*)
		rest=${rest#*/}
		PART=raid/recovery/${rest%%/*}
		[[ -v ALLOW[$PART] ]] || PART=raid/recovery
		;;
	raid/*/* | tools/*/*) PART=${1%%/*}/${rest%%/*} ;;
	report/*/*)
		PART=report/${rest%%/*}
		[[ -v ALLOW[$PART] ]] || PART=report
		;;
	*/*) PART=${1%%/*} ;;
	*) PART=. ;;
	esac
	KEY=$PART
	[[ $PART == tools/* && ! -v ALLOW[$PART] ]] && KEY=tools
	return 0
}

# may part KEY use part TO? ("api" also needs the symbol or file to be the public API: the caller)
part_allows() { # KEY TO
	local p
	[[ $1 == "$2" ]] && return 0
	for p in ${ALLOW[$1]}; do [[ $p == "$2" ]] && return 0; done
	return 1
}
