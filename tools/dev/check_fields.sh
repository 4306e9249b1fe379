#!/usr/bin/env bash
# tools/dev/check_fields.sh - each part owns its data: no file of the core names a field of a
# struct of a part above it (raid/backends, raid/levels, raid/recovery). The include and link
# checks see what a file includes and calls; this one sees what it reads: a core file that
# reached into recovery's options (c->rec.rebuild_max, as raid.h once let every file do), or
# into a level's, however it got the struct, is refused. A part's options are its own
# (core/options.h: rows pointing into the part's struct, one opaque pointer per part in
# raid_config); what the core needs of them, it asks through what the part registered.
#
#   tools/dev/check_fields.sh [ROOT]    ROOT: the tree to check (default: this one)
#
# A field counts as a part's when a struct of that part declares it and no struct of the core
# or the parity library does (a name both use, such as `n` or `nspares`, says nothing: the
# compiler's types do). Comments and string literals are not read. Run by `make test` (tests/layering_test.sh); prints each
# offending line.
set -u
cd "${1:-$(dirname "$0")/../..}"

# the member names of every struct (and union) defined in the files given, one per line:
# "NAME TAG"
members() {
	awk '
	function strip(s) {
		gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
		gsub(/\/\*.*\*\//, "", s)
		sub(/\/\/.*/, "", s)
		return s
	}
	{
		line = strip($0)
		if (incomment) {
			if (line ~ /\*\//) { sub(/.*\*\//, "", line); incomment = 0 } else next
		}
		if (line ~ /\/\*/) { sub(/\/\*.*/, "", line); incomment = 1 }
		if (depth == 0 && match(line, /(struct|union)[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{/)) {
			t = substr(line, RSTART, RLENGTH)
			sub(/^(struct|union)[ \t]+/, "", t); sub(/[ \t]*\{$/, "", t)
			tag = t; depth = 1
			line = substr(line, RSTART + RLENGTH)
		} else if (depth == 0) {
			next
		}
		n = split(line, ch, "")
		for (i = 1; i <= n; i++) {
			if (ch[i] == "{") depth++
			else if (ch[i] == "}") depth--
		}
		if (depth <= 0) { depth = 0; next }
		if (depth != 1 || line !~ /;/) next
		# "int (*name)(...)", "type *a[N], b;", "unsigned x : 3;"
		if (match(line, /\(\*[ \t]*[A-Za-z_][A-Za-z0-9_]*\)/)) {
			f = substr(line, RSTART + 2, RLENGTH - 3); gsub(/[ \t]/, "", f); print f, tag
			next
		}
		sub(/;.*/, "", line)
		gsub(/\[[^]]*\]/, "", line)
		gsub(/:[ \t]*[0-9]+/, "", line)
		m = split(line, parts, ",")
		for (k = 1; k <= m; k++) {
			p = parts[k]
			if (match(p, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) {
				f = substr(p, RSTART, RLENGTH); gsub(/[ \t]/, "", f)
				if (f != "" && f !~ /^(int|char|bool|double|float|long|unsigned|void)$/) print f, tag
			}
		}
	}' "$@"
}

declare -A CORE OWNER
while read -r f _; do CORE[$f]=1; done < <(members $(find raid/core raid/parity -name '*.[ch]' ! -name '*_test.c' | sort))
for part in raid/backends raid/levels raid/recovery; do
	while read -r f tag; do
		[[ -v CORE[$f] || -v OWNER[$f] ]] && continue
		OWNER[$f]="$tag of $part"
	done < <(members $(find "$part" -name '*.[ch]' ! -name '*_test.c' | sort))
done

# every access (->f, .f) in the core's files, comments and strings left out, in one pass
files=$(find raid/core -name '*.[ch]' ! -name '*_test.c' | sort)
for f in "${!OWNER[@]}"; do echo "$f ${OWNER[$f]}"; done |
	awk -v nfiles="$(wc -w <<<"$files")" '
	NR == FNR { f = $1; $1 = ""; owner[f] = substr($0, 2); next }
	FNR == 1 { incomment = 0 }
	{
		line = $0
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
		gsub(/\/\*.*\*\//, "", line)
		sub(/\/\/.*/, "", line)
		if (incomment) {
			if (line ~ /\*\//) { sub(/.*\*\//, "", line); incomment = 0 } else next
		}
		if (line ~ /\/\*/) { sub(/\/\*.*/, "", line); incomment = 1 }
		while (match(line, /(->|\.)[ \t]*[A-Za-z_][A-Za-z0-9_]*/)) {
			f = substr(line, RSTART, RLENGTH)
			sub(/^(->|\.)[ \t]*/, "", f)
			line = substr(line, RSTART + RLENGTH)
			if (f in owner) {
				printf "check_fields: %s:%d names %s, a field of %s: the core may not read a part'"'"'s data\n", FILENAME, FNR, f, owner[f]
				bad++
			}
		}
	}
	END {
		printf "check_fields: %d fields of the parts above the core, %d core files, %d wrong\n", length(owner), nfiles, bad
		exit bad > 0
	}' - $files
