# shellcheck shell=bash
# tests/presets/loops.sh (sourced after tests/lib.sh): loop_drives N SIZE: N loop devices over
# sparse files of SIZE in T_SCRATCH, standing in for --drives, in LOOPS; detached (only
# these) and the scratch removed at exit. Where there is no root or losetup, the drive cases
# are skipped with one line and the test ends (t_done) with what ran so far.
loop_drives() {
	local i
	if [[ $(id -u) -ne 0 ]] || ! command -v losetup >/dev/null; then
		echo "skip: the drive cases need root and losetup"
		t_done
	fi
	LOOPS=()
	trap loop_detach EXIT
	for ((i = 0; i < $1; i++)); do
		truncate -s "$2" "$T_SCRATCH/disk$i"
		LOOPS+=("$(losetup --find --show "$T_SCRATCH/disk$i")") || t_skip "no free loop device"
	done
}
loop_detach() {
	local l
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$T_SCRATCH"
}
