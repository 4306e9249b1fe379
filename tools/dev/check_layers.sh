#!/usr/bin/env bash
# tools/dev/check_layers.sh - the layers inside raid/recovery (raid/recovery/README.md): no
# include and no call goes up a layer, and no two files reach each other both ways (by an
# include or a call, either way round). check_includes.sh and check_links.sh hold the layers'
# directions as parts (their rows in tools/dev/parts.sh); this check also counts, so that the
# figures of the layering (lines, upward edges, two-way pairs) come from one place.
#
#   tools/dev/check_layers.sh [--flat] [--lines] [OBJDIR]    OBJDIR: build/obj; run after make
#
# A file's layer is its folder's row in parts.sh; its rank, how many of recovery's layers that
# row may use (helpers 0 ... the service 4). --flat ranks the files of a tree from before the
# layers (ff3fc75: every file in raid/recovery) by the planned table below, by file name, to
# measure what the layers changed. A header is one node with the .c of its name in its folder,
# so a call into x.c and an include of x.h are edges to the same file. --lines prints each
# file's lines. Tests (*_test.c, simdev.h) are the top layer's and left out. Run by `make
# test` (tests/layering_test.sh); prints each upward edge and each two-way pair.
set -u
flat=0 lines=0
while [[ ${1:-} == --* ]]; do
	case $1 in
	--flat) flat=1 ;;
	--lines) lines=1 ;;
	*)
		echo "check_layers: unknown option $1 (--flat, --lines)"
		exit 2
		;;
	esac
	shift
done
cd "$(dirname "$0")/../.."
source tools/dev/parts.sh
obj=${1:-build/obj}

# the planned layers of a flat tree, by file name (--flat)
declare -A PLAN=(
	[rec_opts]=0 [rebuild_config]=0 [fault]=0 [rec]=0
	[state]=1 [bitmap]=1 [pace]=1 [rebuild_window]=1
	[rebuild_pipe]=2 [rebuild_crew]=2 [scrub]=2 [intent]=2
	[rebuild]=3
	[service]=4 [module]=4 [options]=4 [rec_stats]=4 [recovery]=4
)
NAMES=(helpers state/bitmap/pace/window passes thread service)

# a file (relative to the root) -> NODE (its name without .c/.h, folder kept) and RANK
node_of() {
	local f=$1 stem
	stem=${f%.[ch]}
	NODE=$stem
	[[ $f == *.h && ! -f $stem.c ]] && NODE=$f
	if ((flat)); then
		stem=${stem##*/}
		RANK=${PLAN[$stem]:-4}
		return
	fi
	part_of "$f"
	local p n=0
	for p in ${ALLOW[$KEY]:-}; do [[ $p == raid/recovery* ]] && n=$((n + 1)); done
	RANK=$n
}

files=() nlines=0
while IFS= read -r f; do
	files+=("$f")
	n=$(wc -l <"$f")
	nlines=$((nlines + n))
	((lines)) && printf '  %5d %s\n' "$n" "$f"
done < <(find raid/recovery -name '*.[ch]' ! -name '*_test.c' ! -name simdev.h | sort)

declare -A EDGE RANKOF
bad=0 up_inc=0 up_call=0 ninc=0 ncall=0
edge() { # KIND FROM-FILE TO-FILE [SYMBOL]
	local from to fr tr
	node_of "$2"
	from=$NODE fr=$RANK
	node_of "$3"
	to=$NODE tr=$RANK
	[[ $from == "$to" ]] && return
	RANKOF[$from]=$fr RANKOF[$to]=$tr
	EDGE[$from\>$to]+="$1 "
	if ((tr > fr)); then
		local how="includes"
		[[ $1 == call ]] && how="calls $4 of"
		echo "check_layers: $2 $how $3: up from the ${NAMES[fr]} to the ${NAMES[tr]}"
		bad=$((bad + 1))
		if [[ $1 == include ]]; then up_inc=$((up_inc + 1)); else up_call=$((up_call + 1)); fi
	fi
}

for f in "${files[@]}"; do
	while IFS= read -r line; do
		inc=${line#*\"}
		inc=${inc%%\"*}
		for dir in "${f%/*}" . raid; do
			[[ -f $dir/$inc ]] || continue
			hit=$(realpath --relative-to=. "$dir/$inc")
			if [[ $hit == raid/recovery/* ]]; then
				ninc=$((ninc + 1))
				edge include "$f" "$hit"
			fi
			break
		done
	done < <(grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done

# the objects of recovery's files (not the tests'), each named by its source (its .d's, or
# its path's); one whose .d names a source that is gone is a leftover of an older tree
declare -A SRC
objs=()
while IFS= read -r o; do
	d=${o%.o}.d src=${o#"$obj"/}
	src=${src%.o}.c
	if [[ -f $d ]]; then
		src=$(head -c 4096 "$d" | tr '\\\n' '  ' | sed 's/^[^:]*:[[:space:]]*//;s/[[:space:]].*//')
		[[ -f $src ]] || continue
	fi
	SRC[$o]=$src
	objs+=("$o")
done < <(find "$obj/raid/recovery" -name '*.o' ! -name '*_test.o' 2>/dev/null | sort)
if ((${#objs[@]} == 0)); then
	echo "check_layers: no objects under $obj/raid/recovery: build first (make)"
	exit 1
fi
declare -A DEF
while read -r o sym; do DEF[$sym]=$o; done < <(nm -A -g --defined-only "${objs[@]}" |
	awk 'NF == 3 { sub(/:.*/, "", $1); print $1, $3 }')
declare -A SEEN
while read -r o sym; do
	[[ -v DEF[$sym] ]] || continue
	# one edge per pair of files (the first symbol names it)
	[[ -v SEEN[$o\>${DEF[$sym]}] ]] && continue
	SEEN[$o\>${DEF[$sym]}]=1
	ncall=$((ncall + 1))
	edge call "${SRC[$o]}" "${SRC[${DEF[$sym]}]}" "$sym"
done < <(nm -A -u "${objs[@]}" | awk '{ sub(/:$/, "", $1); print $1, $NF }')

pairs=0 cpairs=0
for e in "${!EDGE[@]}"; do
	from=${e%%>*} to=${e#*>}
	[[ -v EDGE[$to\>$from] && $from < $to ]] || continue
	echo "check_layers: $from and $to reach each other both ways" \
		"(${EDGE[$e]% }; back: ${EDGE[$to>$from]% })"
	pairs=$((pairs + 1))
	[[ ${EDGE[$e]} == *call* && ${EDGE[$to>$from]} == *call* ]] && cpairs=$((cpairs + 1))
	bad=$((bad + 1))
done

echo "check_layers: raid/recovery: ${#files[@]} files, $nlines lines; $ninc includes" \
	"($up_inc up), $ncall file pairs calling ($up_call up), $pairs two-way pairs ($cpairs by calls alone)" \
	"$( ((flat)) && echo "(ranked by the planned table)")"
((bad == 0))
