#!/usr/bin/env bash
# tests/facts/levels_test.sh: the level facts run.sh and raid-hwinfo use are the engine's.
# For every level of the engine's table (raid-tool levels): the volume run.sh's plan
# (raid-preset plan, whose `volume` command is the same function) sizes its jobs by equals
# the engine's own (raid-mdadm --volume: the engine's config and
# size) at several member counts, and raid-hwinfo accepts an array of the level over exactly
# the members the engine needs, and refuses one fewer.
source "$(dirname "$0")/../lib.sh"
TOOL=$ROOT/build/bin/raid-tool
RMD=$ROOT/build/bin/raid-mdadm
HW=$ROOT/build/bin/raid-hwinfo
R284=$ROOT/hw-profiles/gigabyte-r284-s93-aal1.json
PRESET=$ROOT/build/bin/raid-preset
declare -A LEVEL_MIN=()
while read -r l _ min _; do LEVEL_MIN[$l]=$min; done < <("$TOOL" levels)

CHUNK=65536 MSIZE=$((5 * 65536 + 4096)) # not a whole number of chunks: the rounding counts
for i in $(seq 0 11); do truncate -s "$MSIZE" "$T_SCRATCH/m$i"; done

same_volume() { # level: run.sh's volume = the engine's, from the level's minimum to +3 members
	local n want got ms
	for ((n = LEVEL_MIN[$1]; n <= LEVEL_MIN[$1] + 3; n++)); do
		ms=$(for ((i = 0; i < n; i++)); do printf '%s:' "$T_SCRATCH/m$i"; done)
		want=$("$RMD" --volume raid_level="$1" raid_members="${ms%:}" raid_chunk=64k) || return 1
		got=$("$PRESET" volume "$1" "$n" "$MSIZE" "$CHUNK")
		echo "raid$1 x$n: engine $want, run.sh $got"
		[[ $got == "$want" ]] || return 1
	done
}

profile_with() { # level bays -> a profile whose all-12 layout is that array
	local f=$T_SCRATCH/p-$1-$2.json bays
	bays=$(seq -s ', ' 0 $(($2 - 1)))
	sed "s/{\"name\": \"raid-12\", \"level\": 0, \"bays\": \[[0-9, ]*\]}/{\"name\": \"raid-12\", \"level\": $1, \"bays\": [$bays]}/" \
		"$R284" >"$f"
	grep -q "\"level\": $1, \"bays\": \[$bays\]" "$f" || { echo "the profile edit did not land"; return 1; }
	echo "$f"
}
hwinfo_takes() { # level bays
	local f
	f=$(profile_with "$1" "$2") && "$HW" check "$f"
}
hwinfo_refuses() { # level bays
	local f
	f=$(profile_with "$1" "$2") || return 1
	! "$HW" check "$f" 2>"$T_SCRATCH/err" && cat "$T_SCRATCH/err" &&
		grep -q "RAID$1 cannot be built from $2 bays (at least ${LEVEL_MIN[$1]})" "$T_SCRATCH/err"
}

t_case "raid-tool lists the levels" test "${#LEVEL_MIN[@]}" -ge 5
for l in "${!LEVEL_MIN[@]}"; do
	min=${LEVEL_MIN[$l]}
	t_case "raid$l: run.sh's volume is the engine's" same_volume "$l"
	t_case "raid$l: raid-hwinfo takes $min bays, as the engine" hwinfo_takes "$l" "$min"
	t_case "raid$l: raid-hwinfo takes $((min + 1)) bays" hwinfo_takes "$l" $((min + 1))
	((min > 1)) && t_case "raid$l: raid-hwinfo refuses $((min - 1)) bays" hwinfo_refuses "$l" $((min - 1))
done
no_level() { # a level the engine lacks is refused, naming the engine's levels
	sed 's/"level": 0, "bays"/"level": 4, "bays"/' "$R284" >"$T_SCRATCH/p4.json"
	! "$HW" check "$T_SCRATCH/p4.json" 2>"$T_SCRATCH/err" && cat "$T_SCRATCH/err" &&
		grep -q "level: must be one of 0, 1, 5, 6, 10" "$T_SCRATCH/err"
}
t_case "raid-hwinfo refuses a level the engine lacks" no_level
t_done
