# run/levels.sh (sourced by run.sh): the levels' facts as the engine has them, asked of
# raid-tool levels once, never written here: the members a level needs, the volume an
# array of n members gives, its default layout, whether it has parity.
# Tested against the engine itself by tests/facts/levels_test.sh.
declare -A LEVEL_MIN=() LEVEL_PARITY=() LEVEL_COPIES=() LEVEL_CHUNK=() LEVEL_LAYOUT=()

levels_load() { # RAID_TOOL
	local l name min failed parity copies chunk layout rest
	while read -r l name min failed parity copies chunk layout rest; do
		LEVEL_MIN[$l]=$min LEVEL_PARITY[$l]=$parity LEVEL_COPIES[$l]=$copies
		LEVEL_CHUNK[$l]=$chunk LEVEL_LAYOUT[$l]=${layout#-}
	done < <("$1" levels)
	((${#LEVEL_MIN[@]})) || die "$1 levels: no levels"
}

level_min() { echo "${LEVEL_MIN[$1]}"; } # level -> members it needs at least

level_has_parity() { ((${LEVEL_PARITY[$1]:-0} > 0)); }

layout_of() { echo "${LEVEL_LAYOUT[$1]:-}"; } # level -> its default layout, or nothing

# level n member_bytes chunk_bytes -> the volume's bytes as the engine sizes it: (n - parity)
# members' worth over the copies, in whole chunks where the level uses them (member_bytes:
# whole pages; run.sh's are whole MiB)
level_volume() {
	local copies=${LEVEL_COPIES[$1]} unit=$4
	[[ $copies == n ]] && copies=$2
	((LEVEL_CHUNK[$1])) || unit=$3
	echo $(($3 / unit * ($2 - ${LEVEL_PARITY[$1]}) / copies * unit))
}
