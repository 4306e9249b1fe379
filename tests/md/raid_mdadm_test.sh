#!/usr/bin/env bash
# raid_mdadm_test.sh - build/bin/raid-mdadm: the mdadm line for an engine array (level,
# chunk, layout, member order, data area, `missing`), md's room at the end of each member,
# and its bad inputs. No md needed: md_judge.sh runs these lines against md itself.
source "$(dirname "$0")/../lib.sh"
R=$ROOT/build/bin/raid-mdadm
S=$T_SCRATCH
for i in 0 1 2 3 4; do truncate -s $((8 * 1024 * 1024 + 16384)) "$S/m$i"; done
M4=$S/m0:$S/m1:$S/m2:$S/m3

line_is() { # expected-line ARGS...
	local want=$1 got
	shift
	got=$("$R" "$@") || return 1
	echo "$got"
	[[ $got == "$want" ]]
}
t_case "RAID5: level, devices, chunk, layout, --size, member order" line_is \
	"mdadm --create /dev/md0 --run --metadata=1.0 --assume-clean --level=5 --raid-devices=4 --chunk=64 --layout=right-asymmetric --size=8192 --bitmap=none $S/m0 $S/m1 $S/m2 $S/m3" \
	raid_level=5 raid_members=$M4 raid_chunk=64k raid_layout=right-asymmetric raid_member_size=8m
t_case "a failed member is 'missing'; --md names the array; fio's --option spelling" line_is \
	"mdadm --create /dev/md7 --run --metadata=1.0 --assume-clean --level=6 --raid-devices=4 --chunk=512 --layout=left-symmetric --size=8192 --bitmap=none $S/m0 missing $S/m2 $S/m3" \
	--md /dev/md7 --raid_level=6 --raid_members=$S/m0:$S/none:$S/m2:$S/m3 --raid_failed=1 --raid_member_size=8m
t_case "RAID10 is near2 (n2), odd member counts too" line_is \
	"mdadm --create /dev/md0 --run --metadata=1.0 --assume-clean --level=10 --raid-devices=3 --chunk=4 --layout=n2 --size=8192 --bitmap=none $S/m0 $S/m1 $S/m2" \
	raid_level=10 raid_members=$S/m0:$S/m1:$S/m2 raid_chunk=4k raid_member_size=8m
t_case "RAID1 has no chunk" line_is \
	"mdadm --create /dev/md0 --run --metadata=1.0 --assume-clean --level=1 --raid-devices=2 --size=8192 --bitmap=none $S/m0 $S/m1" \
	raid_level=1 raid_members=$S/m0:$S/m1 raid_member_size=8m
raid0() {
	line_is "mdadm --create /dev/md0 --run --metadata=1.0 --assume-clean --level=0 --raid-devices=2 --chunk=4 $S/m0 $S/m1" \
		raid_level=0 raid_members=$S/m0:$S/m1 raid_chunk=4k raid_member_size=8m 2>"$S/err" || return 1
	cat "$S/err"
	grep -q 'RAID0: mdadm ignores --size' "$S/err"
}
t_case "RAID0: no --size, and one line on how md sizes it" raid0
t_case "--volume is the engine's volume size" line_is $((3 * 8 * 1024 * 1024)) --volume \
	raid_level=5 raid_members=$M4 raid_chunk=64k raid_member_size=8m

# The engine's default data area (the whole member) leaves md no room: refused, with the size
# that fits. 16 KiB below 8 GiB (docs/md.md): 8 MiB + 16 KiB members hold 8 MiB exactly.
no_room() {
	! "$R" raid_level=5 raid_members=$M4 raid_chunk=4k 2>"$S/err" || return 1
	cat "$S/err"
	grep -q "raid_members: $S/m0 holds 8404992 bytes: md keeps the last 16 KiB .* raid_member_size=8388608" "$S/err"
}
t_case "members without room for md's superblock are refused, naming the size that fits" no_room
# a member not made yet: the line is printed (for devices about to be made, issue 37), with
# one stderr line saying how large to make it; nothing is created
missing_member() {
	"$R" raid_level=1 raid_members=$S/m0:$S/new raid_member_size=8m 2>"$T_SCRATCH/mm.err" |
		grep -q -- "--raid-devices=2 .*$S/new\$" &&
		grep -q "$S/new does not exist yet: make it at least 8404992 bytes" "$T_SCRATCH/mm.err"
}
t_case "a member not made yet gets its line and the size to make it" missing_member
t_case "... and was not created" test ! -e "$S/new"
t_case_fail "a bad engine option is refused" "$R" raid_level=7 raid_members=$M4
t_case_fail "an argument that is no option is refused" "$R" junk
t_case_fail "a missing level is refused" "$R" raid_members=$M4
t_done
