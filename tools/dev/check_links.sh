#!/usr/bin/env bash
# tools/dev/check_links.sh - the layering of the tree, checked at link level: every symbol an
# object of ours leaves undefined (nm -u) must be defined in its own part or in a part it may
# use (the table in tools/dev/parts.sh, the one check_includes.sh holds to). The include
# check sees what a file declares; this one sees what it calls, so a part that declares a
# function of a part above it (as core/service.h once declared recovery's parsers) is caught.
# Symbols no object of ours defines (libc, liburing, fio, cmocka) are not ours to order.
#
#   tools/dev/check_links.sh [OBJDIR]    OBJDIR: the build's objects (build/obj); run after make
#
# An object's part is its folder's (build/obj/raid/core/x.o: raid/core); one whose source is
# gone (its .d names a file that no longer exists) is a leftover of an older tree and skipped.
# "api" (engines, report, tools) is the library's public header: the symbol must be declared
# in raid/core/raid.h and defined by the core (raid_interrupt is the core's, a service hook).
# Run by `make test` (tests/layering_test.sh); prints each offending reference.
set -u
cd "$(dirname "$0")/../.."
source tools/dev/parts.sh
obj=${1:-build/obj}

objs=()
while IFS= read -r o; do
	d=${o%.o}.d
	if [[ -f $d ]]; then
		src=$(head -c 4096 "$d" | tr '\\\n' '  ' | sed 's/^[^:]*:[[:space:]]*//;s/[[:space:]].*//')
		[[ -n $src && ! -f $src ]] && continue
	fi
	objs+=("$o")
done < <(find "$obj/raid" "$obj/engines" "$obj/report" "$obj/tools" -name '*.o' 2>/dev/null | sort)
if ((${#objs[@]} == 0)); then
	echo "check_links: no objects under $obj: build first (make)"
	exit 1
fi
rel_part() { part_of "${1#"$obj"/}"; }

# symbol -> the parts that define it (" raid/core raid/levels "); one nm for every object
declare -A DEF API
while read -r o sym; do
	rel_part "$o"
	[[ ${DEF[$sym]:-} == *" $PART "* ]] || DEF[$sym]="${DEF[$sym]:- }$PART "
done < <(nm -A -g --defined-only "${objs[@]}" | awk 'NF == 3 { sub(/:.*/, "", $1); print $1, $3 }')
# the public API: the identifiers of raid/core/raid.h
while read -r w; do API[$w]=1; done < <(grep -o '[A-Za-z_][A-Za-z0-9_]*' raid/core/raid.h | sort -u)

bad=0 n=0 last= from= key=
while read -r o sym; do
	if [[ $o != "$last" ]]; then
		last=$o
		rel_part "$o"
		from=$PART key=$KEY
		if [[ ! -v ALLOW[$key] ]]; then
			echo "check_links: $o: in no known part (add it to the table in tools/dev/parts.sh)"
			bad=$((bad + 1))
		fi
	fi
	[[ -v ALLOW[$key] && -v DEF[$sym] ]] || continue
	n=$((n + 1))
	ok=0
	for to in ${DEF[$sym]}; do
		[[ $to == "$from" ]] && ok=1
		part_allows "$key" "$to" && ok=1
		part_allows "$key" api && [[ $to == raid/core && -v API[$sym] ]] && ok=1
	done
	if ((!ok)); then
		echo "check_links: $o uses $sym of${DEF[$sym]%" "}: $from may not depend on it"
		bad=$((bad + 1))
	fi
done < <(nm -A -u "${objs[@]}" | awk '{ sub(/:$/, "", $1); print $1, $NF }')

echo "check_links: ${#objs[@]} objects, $n references to our own symbols checked, $bad wrong"
((bad == 0))
